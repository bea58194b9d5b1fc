/* cuda_spare_memory.c: small allocations of GPU memory kept when their
 * buffers go, for the next buffer of the same size.
 *
 * Libraries make a temporary buffer per call (CLBlast's reductions: one
 * or two of 2 KiB for the groups' partial results), and cuMemFree waits
 * for the whole GPU: on an H200 a call of CLBlast's Isamax, two such
 * buffers, took 0.066-0.079 ms against NVIDIA's OpenCL's 0.044-0.054.
 * Kept per exact size (a tool such as compute-sanitizer sees the same
 * allocation as before), at most CUDA_SPARE_COUNT of at most
 * CUDA_SPARE_MOST bytes each, for the device's life (the process's). A
 * buffer made from a spare is zeroed as a new one is. */
#include "backend/cuda/cuda_device.h"

CUdeviceptr weft__cuda_spare_take(cuda_device *gpu, size_t size) {
  CUdeviceptr p = 0;
  if (size > CUDA_SPARE_MOST) return 0;
  pthread_mutex_lock(&gpu->spare_lock);
  for (unsigned i = 0; i < gpu->num_spare; i++) {
    if (gpu->spare[i].size != size) continue;
    p = gpu->spare[i].p;
    gpu->spare[i] = gpu->spare[--gpu->num_spare];
    break;
  }
  pthread_mutex_unlock(&gpu->spare_lock);
  return p;
}

int weft__cuda_spare_keep(cuda_device *gpu, CUdeviceptr p, size_t size) {
  if (size > CUDA_SPARE_MOST) return 0;
  pthread_mutex_lock(&gpu->spare_lock);
  int kept = gpu->num_spare < CUDA_SPARE_COUNT;
  if (kept) gpu->spare[gpu->num_spare++] = (cuda_spare){p, size};
  pthread_mutex_unlock(&gpu->spare_lock);
  return kept;
}
