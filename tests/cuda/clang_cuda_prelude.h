/*
 * clang_cuda_prelude.h: what CUDA's headers would give the CUDA header
 * library (weft/cuda/sync.cuh) when Clang compiles it for the GPU without
 * a CUDA toolkit (shared_sync_source.sh): the function qualifiers, the
 * built-in variables, and the few device functions it calls, over
 * Clang's NVPTX builtins.
 */
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __global__ __attribute__((global))
#define __forceinline__ __inline__ __attribute__((always_inline))
#include <__clang_cuda_builtin_vars.h>
static __device__ inline void __nanosleep(unsigned ns) { __nvvm_nanosleep(ns); }
static __device__ inline int clock(void) { return __nvvm_read_ptx_sreg_clock(); }
static __device__ inline void __threadfence(void) { __nvvm_membar_gl(); }
