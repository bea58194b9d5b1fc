/* cuda_gpu.c: a CUDA GPU's description, read from the driver
 * (cuda_gpu.h). */
#include "backend/cuda/cuda_gpu.h"

#include <string.h>

int weft__cuda_gpu_count(const weft_cuda_api *api) {
  int count = 0;
  if (api->cuDeviceGetCount(&count) != CUDA_SUCCESS) return 0;
  return count;
}

int weft__cuda_gpu_describe(const weft_cuda_api *api, int ordinal,
                            weft_cuda_gpu *gpu, char *why, size_t size) {
  memset(gpu, 0, sizeof *gpu);
  CUresult rc = api->cuDeviceGet(&gpu->device, ordinal);
  if (rc == CUDA_SUCCESS)
    rc = api->cuDeviceGetName(gpu->name, (int)sizeof gpu->name, gpu->device);
  if (rc == CUDA_SUCCESS) rc = api->cuDeviceTotalMem(&gpu->memory, gpu->device);
  const struct {
    int which;
    int *out;
  } ints[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &gpu->cc_major},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &gpu->cc_minor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &gpu->multiprocessors},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &gpu->max_threads_per_block},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
       &gpu->max_threads_per_multiprocessor},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &gpu->warp_size},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &gpu->clock_khz},
      {CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, &gpu->cooperative_launch},
      {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, &gpu->managed_memory},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &gpu->max_block[0]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &gpu->max_block[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &gpu->max_block[2]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &gpu->max_grid[0]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &gpu->max_grid[1]},
      {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &gpu->max_grid[2]},
      {CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT, &gpu->texture_alignment},
      {CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT,
       &gpu->texture_pitch_alignment},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH,
       &gpu->max_texture_1d_linear},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH,
       &gpu->max_texture_2d_linear[0]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT,
       &gpu->max_texture_2d_linear[1]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH,
       &gpu->max_texture_2d_linear[2]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH, &gpu->max_texture_3d[0]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT, &gpu->max_texture_3d[1]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH, &gpu->max_texture_3d[2]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH,
       &gpu->max_texture_2d_layered[0]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT,
       &gpu->max_texture_2d_layered[1]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS,
       &gpu->max_texture_2d_layered[2]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH,
       &gpu->max_texture_1d_layered[0]},
      {CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS,
       &gpu->max_texture_1d_layered[1]},
  };
  for (size_t i = 0; rc == CUDA_SUCCESS && i < sizeof ints / sizeof *ints; i++)
    rc = api->cuDeviceGetAttribute(ints[i].out, ints[i].which, gpu->device);
  const struct {
    int which;
    size_t *out;
  } sizes[] = {
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &gpu->shared_per_block},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &gpu->shared_per_block_optin},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &gpu->l2_cache},
  };
  for (size_t i = 0; rc == CUDA_SUCCESS && i < sizeof sizes / sizeof *sizes;
       i++) {
    int v = 0;
    rc = api->cuDeviceGetAttribute(&v, sizes[i].which, gpu->device);
    *sizes[i].out = (size_t)v;
  }
  if (rc == CUDA_SUCCESS) return 0;
  weft__cuda_describe(api, rc, "reading the GPU's attributes", why, size);
  return -1;
}
