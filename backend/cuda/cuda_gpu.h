/*
 * cuda_gpu.h: what a CUDA GPU is, as Weft describes a device: its name,
 * compute capability, multiprocessors, memory and limits, read from the
 * driver (cuda_api.h).
 */
#ifndef WEFT_BACKEND_CUDA_GPU_H
#define WEFT_BACKEND_CUDA_GPU_H

#include "backend/cuda/cuda_api.h"

typedef struct weft_cuda_gpu {
  CUdevice device;
  char name[256];
  int cc_major, cc_minor;        /* compute capability: 9.0 is sm_90 */
  int multiprocessors;
  int max_threads_per_block;
  int max_threads_per_multiprocessor;
  int warp_size;
  int clock_khz;
  int cooperative_launch;        /* cuLaunchCooperativeKernel is there */
  int managed_memory;            /* cuMemAllocManaged is there */
  int max_block[3];              /* threads of a block in each dimension */
  int max_grid[3];               /* blocks of a grid in each dimension */
  size_t memory;                 /* bytes of global memory */
  size_t shared_per_block;       /* bytes of shared memory a block gets */
  size_t shared_per_block_optin; /* the most a kernel may ask for */
  size_t l2_cache;
  /* What a texture over linear memory needs (cuda_texture.c): the base
   * and row pitch alignments, and the largest 1D width, 2D width,
   * height and pitch. */
  int texture_alignment, texture_pitch_alignment;
  int max_texture_1d_linear, max_texture_2d_linear[3];
  /* The largest CUDA arrays a texture reads (cuda_image_arrays.c): 3D
   * width, height, depth; 2D layered width, height, layers; 1D layered
   * width, layers. */
  int max_texture_3d[3], max_texture_2d_layered[3], max_texture_1d_layered[2];
} weft_cuda_gpu;

/* The number of GPUs the loaded driver sees (0 when none). */
int weft__cuda_gpu_count(const weft_cuda_api *api);

/* Describes GPU ordinal: 0, or -1 with the failing call in why. */
int weft__cuda_gpu_describe(const weft_cuda_api *api, int ordinal,
                            weft_cuda_gpu *gpu, char *why, size_t size);

#endif
