/*
 * cuda_launch.h: a launch on a CUDA GPU as the files that make it share
 * it: cuda_launch.c (shapes, globals, the launch and its wait) and
 * cuda_pool.c (a cooperative kernel's pool of blocks and the launches
 * that run beside it). Private to backend/cuda/.
 */
#ifndef WEFT_BACKEND_CUDA_CUDA_LAUNCH_H
#define WEFT_BACKEND_CUDA_CUDA_LAUNCH_H

#include <stdint.h>

#include "backend/cuda/cuda_device.h"

typedef struct gpu_launch {
  cuda_device *gpu;
  const weft_launch_desc *desc;
  cuda_program *program;
  const cuda_kernel *kernel;
  unsigned blocks[3], threads[3];
  size_t shared;                 /* dynamic shared memory, bytes */
  /* A cooperative kernel's: the most blocks of it resident at once. */
  unsigned long long resident;
  /* Per argument: a __constant one's offset in the constant bank, a
   * __local one's in dynamic shared memory. */
  uint64_t offsets[];
} gpu_launch;

/* Whether l's program's launch block holds l's offset and dimensions
 * already (cuda_launch.c writes it only when not). */
int weft__cuda_launch_block_holds(const gpu_launch *l);

/* The most blocks of the launch's kernel resident at once on the GPU. */
unsigned long long weft__cuda_resident_blocks(gpu_launch *l);

/* With launch_lock held: waits until l may go (the lock released while
 * it waits). 1: it runs beside a pool (a plain kernel whose globals do
 * not touch the pool's); 0: nothing else runs. */
int weft__cuda_pool_turn(gpu_launch *l);

/* A cooperative kernel's pool state, written before its launch. */
int weft__cuda_pool_write(gpu_launch *l, weft_msg *msg);

/* Launches a cooperative kernel's pool and waits for it to end, with
 * launch_lock held on entry and on return but not while it runs, so that
 * other launches run beside it. */
CUresult weft__cuda_pool_run(gpu_launch *l, void **params);

/* Around a launch beside the pool (launch_lock held): _ask raises the
 * blocks the pool is to give back by what l needs (returned), _done
 * lowers it again. */
uint64_t weft__cuda_beside_ask(gpu_launch *l);
void weft__cuda_beside_done(gpu_launch *l, uint64_t asked);

#endif
