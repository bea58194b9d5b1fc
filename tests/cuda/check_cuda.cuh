/* check_cuda.cuh: CHECK_CUDA(call), for the nvcc-built tests and
 * benchmarks: a failed CUDA runtime call ends the program, saying where
 * and what the runtime said. */
#ifndef WEFT_CHECK_CUDA_CUH
#define WEFT_CHECK_CUDA_CUH

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(call)                                                     \
  do {                                                                       \
    cudaError_t e_ = (call);                                                 \
    if (e_ != cudaSuccess) {                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,          \
              cudaGetErrorString(e_));                                       \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

#endif
