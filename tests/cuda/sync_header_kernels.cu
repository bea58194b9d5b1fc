/*
 * sync_header_kernels.cu: a kernel that calls every function of the CUDA
 * header library (weft/cuda/sync.cuh) with every algorithm, for
 * shared_sync_source.sh to compile to PTX with Clang where no CUDA
 * toolkit is (CI): the header and the source it shares with the OpenCL
 * builtins (weft/sync_algorithms.h) must build. nvcc_tests.sh runs them.
 */
#include "weft/cuda/sync.cuh"

__global__ void every_call(weft_mutex *m, weft_semaphore *s, weft_barrier *b,
                           unsigned algorithm, int *count) {
  weft_mutex_init_with(m, algorithm);
  weft_semaphore_init_with(s, 2, algorithm);
  weft_barrier_init_with(b, gridDim.x, algorithm);
  weft_mutex_lock_block(m);
  if (threadIdx.x == 0) ++*count;
  weft_mutex_unlock_block(m);
  if (threadIdx.x == 0 && weft_mutex_trylock(m)) weft_mutex_unlock(m);
  weft_semaphore_wait_block(s);
  weft_semaphore_post_block(s);
  weft_barrier_wait(b);
}
