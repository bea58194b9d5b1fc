/* cuda_device.c: a CUDA GPU's device operations and description (see
 * cuda_device.h). */
#include "backend/cuda/cuda_device.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"
#include "weft/weft.h"

int weft__cuda_fail(cuda_device *gpu, CUresult rc, const char *what,
                    int fallback, weft_msg *msg) {
  if (rc == CUDA_SUCCESS) return 0;
  if (msg) weft__cuda_describe(gpu->api, rc, what, msg->text, sizeof msg->text);
  switch (rc) {
  case CUDA_ERROR_OUT_OF_MEMORY: return WEFT_ENOMEM;
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_LAUNCH_FAILED: return WEFT_EKERNELFAULT;
  default: return fallback;
  }
}

/* The GPU's primary context, retained at the device's first use rather
 * than when devices are counted: a process that only lists devices or
 * runs on the CPU makes none (on an H100 a context took a CPU run of a
 * tiny kernel from about 20 ms to 350 ms, and holds GPU memory). With it
 * the watchdog's record is mapped. 0, or the driver's failure in msg. */
static int open_context(cuda_device *gpu, weft_msg *msg) {
  pthread_mutex_lock(&gpu->context_lock);
  int rc = 0;
  if (!atomic_load_explicit(&gpu->context_open, memory_order_relaxed)) {
    CUresult r = gpu->api->cuDevicePrimaryCtxRetain(&gpu->context,
                                                    gpu->gpu.device);
    rc = weft__cuda_fail(gpu, r, "creating the GPU's context", WEFT_ENODEV,
                         msg);
    if (!rc) {
      weft__cuda_watchdog_start(gpu);
      atomic_store_explicit(&gpu->context_open, 1, memory_order_release);
    }
  }
  pthread_mutex_unlock(&gpu->context_lock);
  return rc;
}

int weft__cuda_enter(cuda_device *gpu, weft_msg *msg) {
  if (!atomic_load_explicit(&gpu->context_open, memory_order_acquire)) {
    int rc = open_context(gpu, msg);
    if (rc) return rc;
  }
  return weft__cuda_fail(gpu, gpu->api->cuCtxSetCurrent(gpu->context),
                         "making the GPU's context current", WEFT_ELAUNCH, msg);
}

/* The most groups that could be resident: the hardware's blocks per
 * multiprocessor (32 from Volta on); a launch checks its own kernel's
 * occupancy, which may allow fewer. */
#define BLOCKS_PER_MULTIPROCESSOR 32

static void cuda_info(weft_backend_device *device, weft_device_info *info) {
  cuda_device *gpu = weft__cuda_of(device);
  const weft_cuda_gpu *g = &gpu->gpu;
  memset(info, 0, sizeof *info);
  info->kind = WEFT_DEVICE_GPU;
  snprintf(info->name, sizeof info->name, "%.127s", g->name);
  snprintf(info->vendor, sizeof info->vendor, "NVIDIA Corporation");
  info->compute_units = (unsigned)g->multiprocessors;
  info->max_work_group_size = (size_t)g->max_threads_per_block;
  info->sub_group_size = 32; /* a warp (builtins/nvptx/target.cl) */
  info->sub_group_sizes = WEFT_GPU_SUB_GROUP_SIZES;
  for (int d = 0; d < 3; d++) info->max_work_item_sizes[d] = (size_t)g->max_block[d];
  info->global_mem_size = g->memory;
  info->max_alloc_size = g->memory;
  info->local_mem_size = g->shared_per_block_optin > g->shared_per_block
                             ? g->shared_per_block_optin
                             : g->shared_per_block;
  info->address_bits = 64;
  info->svm = g->managed_memory;
  info->max_resident_groups =
      (uint64_t)g->multiprocessors * BLOCKS_PER_MULTIPROCESSOR;
  info->features = weft__jit_features();
  snprintf(info->barriers, sizeof info->barriers, "bar.sync");
  info->max_clock_mhz = (unsigned)(g->clock_khz / 1000);
  info->cache_size = g->l2_cache;
  info->cacheline_size = 128;
}

static const weft_device_ops cuda_ops = {
    .name = "cuda",
    .info = cuda_info,
    .mem_alloc = weft__cuda_mem_alloc,
    .mem_free = weft__cuda_mem_free,
    .mem_write = weft__cuda_mem_write,
    .mem_read = weft__cuda_mem_read,
    .mem_copy = weft__cuda_mem_copy,
    .mem_fill = weft__cuda_mem_fill,
    .svm_alloc = weft__cuda_svm_alloc,
    .svm_free = weft__cuda_svm_free,
    .mem_map = weft__cuda_mem_map,
    .mem_unmap = weft__cuda_mem_unmap,
    .image_textures = weft__cuda_image_textures,
    .image_textures_free = weft__cuda_image_textures_free,
    .image_use = weft__cuda_image_use,
    .build = weft__cuda_build,
    .compile = weft__cuda_compile,
    .link = weft__cuda_link,
    .build_ir = weft__cuda_build_ir,
    .check_ir = weft__cuda_check_ir,
    .binary_free = weft__cuda_binary_free,
    .schedule_seed = NULL, /* GPUs schedule in hardware */
    .launch = weft__cuda_launch,
    .settle = weft__cuda_settle,
};

/* The device of GPU ordinal of the loaded driver: 0, or an error with a
 * malloc'd message in *error. */
static int create(const weft_config *config, const weft_cuda_api *api,
                  int ordinal, weft_device_made *out, char **error) {
  cuda_device *gpu = calloc(1, sizeof *gpu);
  char why[512];
  if (!gpu) return WEFT_ENOMEM;
  gpu->config = config;
  gpu->api = api;
  int rc = weft__cuda_gpu_describe(api, ordinal, &gpu->gpu, why, sizeof why);
  if (!rc && gpu->gpu.cc_major < 7) {
    snprintf(why, sizeof why, "%s is sm_%d%d; Weft needs sm_70 or newer",
             gpu->gpu.name, gpu->gpu.cc_major, gpu->gpu.cc_minor);
    rc = -1;
  }
  if (rc) {
    *error = strdup(why);
    free(gpu);
    return WEFT_ENODEV;
  }
  gpu->sm = (unsigned)(gpu->gpu.cc_major * 10 + gpu->gpu.cc_minor);
  pthread_mutex_init(&gpu->launch_lock, NULL);
  pthread_cond_init(&gpu->pool_ended, NULL);
  pthread_mutex_init(&gpu->context_lock, NULL);
  pthread_mutex_init(&gpu->arrays_lock, NULL);
  pthread_mutex_init(&gpu->spare_lock, NULL);
  atomic_init(&gpu->context_open, 0);
  *out = (weft_device_made){&cuda_ops, (weft_backend_device *)gpu};
  return 0;
}

int weft__cuda_probe(const weft_config *config, weft_device_made *out, int max,
                     char **error) {
  (void)error; /* a machine without GPUs is no failure */
  const weft_cuda_api *api = weft__cuda_driver(config);
  int count = api ? weft__cuda_gpu_count(api) : 0, made = 0;
  for (int i = 0; i < count && made < max; i++) {
    char *why = NULL;
    if (!create(config, api, i, &out[made], &why)) {
      made++;
      continue;
    }
    fprintf(stderr, "weft: leaving CUDA GPU %d out: %s\n", i,
            why ? why : "out of memory");
    free(why);
  }
  return made;
}
