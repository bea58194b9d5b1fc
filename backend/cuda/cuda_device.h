/*
 * cuda_device.h: a CUDA GPU as a Weft device (backend/device.h), and what
 * the files of its operations share: cuda_device.c (the device, its
 * description), cuda_memory.c (buffers), cuda_program.c (builds, through
 * the JIT to PTX, and modules), cuda_launch.c (launches) and
 * cuda_host_pages.c (host memory mapped for kernels).
 *
 * Memory is named by its CUdeviceptr, cast to a pointer. Every operation
 * makes the GPU's primary context current on the calling thread first.
 */
#ifndef WEFT_BACKEND_CUDA_CUDA_DEVICE_H
#define WEFT_BACKEND_CUDA_CUDA_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "backend/cuda/cuda_api.h"
#include "backend/cuda/cuda_gpu.h"
#include "backend/device.h"

/* Launches left running (weft_kernel_start) since the last settle: how
 * many, and the first few's names, for the message of a failure found
 * after them (cuda_launch.c). */
#define CUDA_FLYING_NAMED 4
typedef struct cuda_flying {
  unsigned count;
  char names[192];
} cuda_flying;

/* A spare allocation of GPU memory (cuda_spare_memory.c). */
#define CUDA_SPARE_COUNT 16
#define CUDA_SPARE_MOST (1u << 20)
typedef struct cuda_spare {
  CUdeviceptr p;
  size_t size;
} cuda_spare;

/* A cooperative kernel's pool running on the GPU (cuda_pool.c), under
 * the device's launch_lock: its launch (program, blocks) and parameters,
 * which blocks that join it later are launched with; the blocks the
 * launches beside it want. */
typedef struct cuda_pool {
  const struct gpu_launch *launch;
  void **params;
  uint64_t demand;
} cuda_pool;

typedef struct cuda_device {
  const weft_config *config;      /* the back end's, from its probe */
  const weft_cuda_api *api;
  weft_cuda_gpu gpu;
  /* The primary context, retained at the first weft__cuda_enter (under
   * context_lock; context_open says it is there). */
  pthread_mutex_t context_lock;
  atomic_int context_open;
  CUcontext context;
  unsigned sm;                    /* compute capability as 90 for sm_90 */
  /* A launch writes its program's globals (the launch block, the
   * barrier's words, the constant bank) and starts under this lock, so
   * launches of one program from two threads do not mix (the GPU runs
   * what the lock let through in order: one stream). */
  pthread_mutex_t launch_lock;
  cuda_flying flying;             /* under launch_lock */
  /* The pool running, if any, the stream pools run on and the one
   * blocks joining a pool are launched on (made at the first pool, both
   * CU_STREAM_NON_BLOCKING: a launch on the legacy stream must not wait
   * for them); pool_ended is signalled when one ends. Under
   * launch_lock. */
  cuda_pool *pool;
  CUstream pool_stream, join_stream;
  pthread_cond_t pool_ended;
  /* The record a wait that timed out writes (cuda_watchdog.c), host
   * memory mapped for the GPU at watchdog_address; NULL: none. */
  void *watchdog;
  CUdeviceptr watchdog_address;
  /* The CUDA arrays that hold copies of images for their textures
   * (cuda_image_arrays.c), under arrays_lock. */
  pthread_mutex_t arrays_lock;
  struct cuda_image_array *arrays;
  size_t num_arrays;
  /* Allocations of freed buffers kept for new ones of their size
   * (cuda_spare_memory.c), under spare_lock. */
  pthread_mutex_t spare_lock;
  cuda_spare spare[CUDA_SPARE_COUNT];
  unsigned num_spare;
} cuda_device;

/* A kernel of a module: its function, and the most threads a block of
 * it may have (its registers decide). */
typedef struct cuda_kernel {
  CUfunction function;
  int max_threads;
} cuda_kernel;

/* A built program on the GPU: its module, its kernels in order, and the
 * globals a launch fills (0 where the kernels use none). */
typedef struct cuda_program {
  CUmodule module;
  cuda_kernel *kernels;
  CUdeviceptr launch_block;       /* WEFT_PTX_LAUNCH_BLOCK */
  uint64_t launch_block_holds[4]; /* what it holds (zeros when loaded) */
  CUdeviceptr launch_words;       /* WEFT_PTX_LAUNCH_WORDS */
  CUdeviceptr constant_bank;      /* WEFT_PTX_CONSTANT_BANK */
  CUdeviceptr coop_state;         /* WEFT_PTX_COOP_STATE */
  /* A cooperative kernel's pool's transmit records and ring, kept from
   * one launch to the next (cudaMalloc and free cost more than a launch):
   * the program's launches take turns (the device's launch_lock). */
  CUdeviceptr coop_records;
  size_t coop_records_size;
  CUdeviceptr watchdog;           /* WEFT_PTX_WATCHDOG */
  size_t constant_bank_size;
} cuda_program;

/* The back end's state of a device is its cuda_device. */
static inline cuda_device *weft__cuda_of(weft_backend_device *device) {
  return (cuda_device *)device;
}

/* The CUDA back end's probe (backends.h): a device for each GPU the
 * driver offers that Weft can use, the others left out with a word on
 * stderr; none without a driver. */
int weft__cuda_probe(const weft_config *config, weft_device_made *out, int max,
                     char **error);

/* cuda_spare_memory.c: a kept allocation of exactly size bytes, taken
 * (0: none), and p of size bytes kept (1) or not (0: the caller frees
 * it). */
CUdeviceptr weft__cuda_spare_take(cuda_device *gpu, size_t size);
int weft__cuda_spare_keep(cuda_device *gpu, CUdeviceptr p, size_t size);

/* Makes the device's context current on this thread, creating it at the
 * device's first use: 0, or WEFT_ELAUNCH (WEFT_ENODEV, WEFT_ENOMEM when
 * it cannot be created) with the driver's words in msg (which may be
 * NULL). */
int weft__cuda_enter(cuda_device *gpu, weft_msg *msg);

/* A failed driver call as a Weft status, with "what: NAME (text)" in msg
 * (which may be NULL): WEFT_ENOMEM for the GPU's memory running out,
 * WEFT_EKERNELFAULT for a kernel's fault, else fallback. 0 on success. */
int weft__cuda_fail(cuda_device *gpu, CUresult rc, const char *what,
                    int fallback, weft_msg *msg);

/* Host memory for kernels (cuda_host_pages.c): _hold maps the pages of
 * [p, p + size) for every GPU, sharing pages other buffers hold; 0 or an
 * error with the driver's words in msg. _release gives them back. */
int weft__cuda_pages_hold(cuda_device *gpu, void *p, size_t size,
                          weft_msg *msg);
void weft__cuda_pages_release(cuda_device *gpu, void *p, size_t size);
/* The bytes from p on (at most size, at least 1) that lie in one
 * registration or in none: what one driver copy may take. */
size_t weft__cuda_pages_piece(const void *p, size_t size);

/* The watchdog of waits (cuda_watchdog.c). _start makes the device's
 * record (none if the driver cannot map host memory: waits then go
 * unwatched); _arm writes a loaded module's watchdog global, returning
 * its address, or 0 where the module's kernels do not wait; _check, after
 * a launch, answers WEFT_EDEADLOCK with the report in msg if a wait timed
 * out, and makes ready for the next launch. */
void weft__cuda_watchdog_start(cuda_device *gpu);
CUdeviceptr weft__cuda_watchdog_arm(cuda_device *gpu, CUmodule module);
int weft__cuda_watchdog_check(cuda_device *gpu, CUdeviceptr global,
                              CUdeviceptr launch_words, CUdeviceptr coop_state,
                              const weft_launch_desc *desc, weft_msg *msg);

/* Copies of images in CUDA arrays (cuda_image_arrays.c), for the
 * textures of arrays and 3D images. _takes_array: whether l's textures
 * read one. _make: an array holding l's memory, and the texture
 * resource over it, for the hardware's format and channels; 0 where the
 * GPU cannot hold or copy the image. _free: l's, if it has one. _touch:
 * [p, p + bytes) is being written; copies of images there are stale. */
struct weft_image_layout;
int weft__cuda_image_takes_array(const struct weft_image_layout *l);
int weft__cuda_image_array_make(cuda_device *gpu,
                                const struct weft_image_layout *l, int format,
                                unsigned channels, CUDA_RESOURCE_DESC *resource);
void weft__cuda_image_array_free(cuda_device *gpu,
                                 const struct weft_image_layout *l);
void weft__cuda_image_arrays_touch(cuda_device *gpu, CUdeviceptr p,
                                   size_t bytes);

/* The operations, by file. */
int weft__cuda_mem_alloc(weft_backend_device *device, size_t size,
                         void *host_ptr, void **mem, weft_msg *msg);
void weft__cuda_mem_free(weft_backend_device *device, void *mem, size_t size,
                         void *host_ptr);
int weft__cuda_mem_write(weft_backend_device *device, void *mem, size_t offset,
                         size_t size, const void *src);
int weft__cuda_mem_read(weft_backend_device *device, void *mem, size_t offset,
                        size_t size, void *dst);
int weft__cuda_mem_copy(weft_backend_device *device, void *dst,
                        size_t dst_offset, void *src, size_t src_offset,
                        size_t size);
int weft__cuda_mem_fill(weft_backend_device *device, void *mem, size_t offset,
                        size_t size, const void *pattern, size_t pattern_size);
int weft__cuda_svm_alloc(weft_backend_device *device, size_t size,
                         size_t alignment, void **ptr, weft_msg *msg);
void weft__cuda_svm_free(weft_backend_device *device, void *ptr, size_t size);
int weft__cuda_mem_map(weft_backend_device *device, void *mem, void *host_ptr,
                       weft_mapping *m);
int weft__cuda_mem_unmap(weft_backend_device *device, void *mem, void *host_ptr,
                         const weft_mapping *m);
int weft__cuda_image_use(weft_backend_device *device,
                         const struct weft_image_layout *l, int writes,
                         weft_msg *msg);

/* The back end's compile_ptx (backends.h), with its JIT. */
/* Texture objects over an image's storage (cuda_texture.c). */
void weft__cuda_image_textures(weft_backend_device *device,
                               const struct weft_image_layout *l,
                               uint64_t *texture);
void weft__cuda_image_textures_free(weft_backend_device *device,
                                    const struct weft_image_layout *l);

int weft__cuda_compile_ptx(const weft_config *config, unsigned sm,
                           const char *source, size_t length,
                           const char *options, char **ptx, char **log);

/* The back end's JIT (cuda_jit.c), made at the first call with config:
 * 0, or an error with *log set to a build log that says why. */
int weft__cuda_jit(const weft_config *config, const weft_jit **out,
                   char **log);

int weft__cuda_build(weft_backend_device *device, const char *source,
                     size_t length, const char *options, weft_binary **out,
                     char **log);
int weft__cuda_compile(weft_backend_device *device, const char *source,
                       size_t length, const char *options,
                       const weft_jit_header *headers, unsigned num_headers,
                       void **ir, size_t *size, char **log);
int weft__cuda_link(weft_backend_device *device, const void *const *irs,
                    const size_t *sizes, unsigned count, void **ir,
                    size_t *size, char **log);
int weft__cuda_build_ir(weft_backend_device *device, const void *ir,
                        size_t size, const char *options, weft_binary **out,
                        char **log);
int weft__cuda_check_ir(weft_backend_device *device, const void *ir,
                        size_t size);
void weft__cuda_binary_free(weft_backend_device *device, weft_binary *binary);

int weft__cuda_launch(weft_backend_device *device,
                      const weft_launch_desc *launch, weft_msg *msg);
/* Waits for the launches left running (device.h's settle). */
int weft__cuda_settle(weft_backend_device *device, weft_msg *msg);

#endif
