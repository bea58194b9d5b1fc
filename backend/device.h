/*
 * device.h: a device is a table of operations (compile, memory, launch)
 * that each back end fills in, the way SQLite's VFS or PoCL's device ops
 * work. core/ calls through the table and never asks which back end it has;
 * every operation takes the back end's own state, and the core handle
 * (struct weft_device) is core's.
 *
 * Memory is named by a device address (void *): for the CPU it is the host
 * pointer itself; a GPU back end gives its own. Adding a byte offset to an
 * address names the memory that far in (sub-buffers rely on it). A buffer
 * argument passes that address to the kernel.
 */
#ifndef WEFT_BACKEND_DEVICE_H
#define WEFT_BACKEND_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "base/object.h"
#include "jit/jit.h"
#include "jit/kernel_abi.h"
#include "weft/weft.h"

/* Everything a launch needs, validated by core/ (local sizes divide the
 * global sizes; unused dimensions are 1). */
typedef struct weft_launch_desc {
  const weft_kernel_desc *kernel;
  const weft_binary *binary;   /* for barrier sites in reports */
  void *const *args;           /* see weft_wg_fn in kernel_abi.h */
  /* Bytes of a buffer argument from where it points on (a GPU copies a
   * __constant one); of a __local one, asked for. */
  const size_t *arg_sizes;
  /* With WEFT_KERNEL_ARG_SHADOWS (check mode): see weft_wg_ctx. */
  unsigned char *const *arg_shadows;
  size_t local_mem_size;       /* per group: the kernel's and its arguments' */
  unsigned dims;
  size_t offset[3];
  size_t global[3];
  size_t local[3];
  /* The CPU's: stores to the kernel's streams go past the caches
   * (weft_cpu_stream_stores, decided by core/launch.c). */
  int stream_stores;
  /* The launch may be left running (weft_kernel_start): launch returns
   * WEFT_IN_FLIGHT once it is started, and settle reports its end. */
  int may_defer;
} weft_launch_desc;

/* A live map of a buffer: the host pointer the caller got, the range, and
 * WEFT_MAP_READ / WEFT_MAP_WRITE. */
typedef struct weft_mapping {
  void *ptr;
  size_t offset;
  size_t size;
  unsigned flags;
} weft_mapping;

/* A back end's own state for one of its devices: each back end defines
 * the struct (the CPU's cpu_device, CUDA's cuda_device); core/ never
 * looks inside. */
typedef struct weft_backend_device weft_backend_device;

struct weft_image_layout; /* builtins/image_layout.h */

typedef struct weft_device_ops {
  const char *name;
  void (*info)(weft_backend_device *device, weft_device_info *info);

  /* Memory of size bytes, zero-filled; with host_ptr, that memory itself. */
  int (*mem_alloc)(weft_backend_device *device, size_t size, void *host_ptr,
                   void **mem, weft_msg *msg);
  void (*mem_free)(weft_backend_device *device, void *mem, size_t size,
                   void *host_ptr);
  int (*mem_write)(weft_backend_device *device, void *mem, size_t offset,
                   size_t size, const void *src);
  int (*mem_read)(weft_backend_device *device, void *mem, size_t offset,
                  size_t size, void *dst);
  int (*mem_copy)(weft_backend_device *device, void *dst, size_t dst_offset,
                  void *src, size_t src_offset, size_t size);
  int (*mem_fill)(weft_backend_device *device, void *mem, size_t offset,
                  size_t size, const void *pattern, size_t pattern_size);
  /* Shared virtual memory: one address for host and kernels, zero-filled,
   * aligned as asked (a power of two). NULL where the device has none. */
  int (*svm_alloc)(weft_backend_device *device, size_t size, size_t alignment,
                   void **ptr, weft_msg *msg);
  void (*svm_free)(weft_backend_device *device, void *ptr, size_t size);
  /* A host pointer (m->ptr) to m's range of memory, valid until unmapped;
   * host_ptr is the buffer's own host memory (WEFT_MEM_USE_HOST_PTR), or
   * NULL. The same m comes back to unmap. */
  int (*mem_map)(weft_backend_device *device, void *mem, void *host_ptr,
                 weft_mapping *m);
  int (*mem_unmap)(weft_backend_device *device, void *mem, void *host_ptr,
                   const weft_mapping *m);
  /* Hardware texture objects for reading the image laid out as l
   * (builtins/image_layout.h), whose storage is this device's memory,
   * into texture[WEFT_IMAGE_TEXTURES]: each slot 0 where the hardware has
   * no texture for that class of sampler (the builtins then read the
   * memory themselves), all of them where it has none for the image.
   * image_textures_free frees what it made for l. NULL where the device
   * has no texture hardware. */
  void (*image_textures)(weft_backend_device *device,
                         const struct weft_image_layout *l, uint64_t *texture);
  void (*image_textures_free)(weft_backend_device *device,
                              const struct weft_image_layout *l);
  /* Before a launch that takes image l (whose textures were asked for):
   * writes, the kernel may write it; else it reads it through its
   * textures, which must then hold what its memory holds (a texture over
   * a copy of the image is brought up to date). 0, or an error with the
   * reason in msg. NULL where no texture reads a copy. */
  int (*image_use)(weft_backend_device *device,
                   const struct weft_image_layout *l, int writes,
                   weft_msg *msg);

  /* Compiles OpenCL C for the device; *log is malloc'd in every case. */
  int (*build)(weft_backend_device *device, const char *source, size_t length,
               const char *options, weft_binary **out, char **log);
  /* Separate compilation: OpenCL C to the device's IR (malloc'd), and IR
   * units linked into one; build_ir makes runnable code of IR. Program
   * binaries are this IR. */
  int (*compile)(weft_backend_device *device, const char *source, size_t length,
                 const char *options, const weft_jit_header *headers,
                 unsigned num_headers, void **ir, size_t *size, char **log);
  int (*link)(weft_backend_device *device, const void *const *irs,
              const size_t *sizes, unsigned count, void **ir, size_t *size,
              char **log);
  int (*build_ir)(weft_backend_device *device, const void *ir, size_t size,
                  const char *options, weft_binary **out, char **log);
  /* Whether ir is whole and for this device (0), cheaply. */
  int (*check_ir)(weft_backend_device *device, const void *ir, size_t size);
  void (*binary_free)(weft_backend_device *device, weft_binary *binary);

  /* The seed of random schedules (WEFT_SCHEDULE) for the launches to
   * come; NULL where the device has no schedule exploration. */
  void (*schedule_seed)(weft_backend_device *device, unsigned long long seed);
  /* The last schedule-mode launch's interleaving as text, into out ("" if
   * none); NULL where the device has no schedule exploration. */
  void (*schedule_history)(weft_backend_device *device, char *out, size_t size);
  /* WEFT_SCHEDULE=exhaustive: weft_schedule_next,
   * weft_schedule_replay's and weft_schedule_explored's work; NULL where
   * there is none. */
  int (*schedule_next)(weft_backend_device *device);
  int (*schedule_replay)(weft_backend_device *device, char *out, size_t size,
                         unsigned long long *explored);
  int (*schedule_counts)(weft_backend_device *device,
                         unsigned long long *launches,
                         unsigned long long *repeats);

  /* Runs a launch to completion; or, where launch->may_defer, may start
   * it and return WEFT_IN_FLIGHT: the device then runs what it is asked
   * later after it. */
  int (*launch)(weft_backend_device *device, const weft_launch_desc *launch,
                weft_msg *msg);
  /* Waits for every launch left in flight: 0, or the first failure among
   * them with the kernels named in msg. NULL where launches always run to
   * completion. */
  int (*settle)(weft_backend_device *device, weft_msg *msg);
} weft_device_ops;

/* What a back end's probe makes of a device: its operations and its
 * state, which core/ keeps in its handle (core/handles.h) and hands back
 * to every operation. */
typedef struct weft_device_made {
  const weft_device_ops *ops;
  weft_backend_device *state;
} weft_device_made;

#endif
