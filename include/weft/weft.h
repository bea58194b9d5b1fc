/*
 * weft.h: the native C API of Weft, a runtime that runs OpenCL C kernels on
 * CPUs (and on CUDA GPUs where present).
 *
 * Read it top to bottom: devices, contexts, buffers, programs, kernels,
 * launches. Every function that can fail returns an int: 0 (WEFT_OK) or a
 * negative WEFT_E* code. weft_strerror() names a code; weft_errmsg() gives the
 * detailed message of the last failed call on an object (the object a call
 * takes first, or the parent passed to a create function).
 */
#ifndef WEFT_H
#define WEFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define WEFT_EXPORT __attribute__((visibility("default")))
#else
#define WEFT_EXPORT
#endif

/* ---------------------------------------------------------------- errors */

#define WEFT_OK 0
#define WEFT_EINVAL -1         /* an invalid argument (NULL handle, bad flag) */
#define WEFT_ENOMEM -2         /* out of memory */
#define WEFT_ESYS -3           /* a system call failed (mmap, pthread_create) */
#define WEFT_ENODEV -4         /* no such device */
#define WEFT_EBUILD -5         /* the program failed to build: see its log */
#define WEFT_EOPTION -6        /* an unknown or malformed build option */
#define WEFT_ENOTBUILT -7      /* the program has not been built */
#define WEFT_ENOKERNEL -8      /* no kernel of that name in the program */
#define WEFT_EARGINDEX -9      /* the argument index is out of range */
#define WEFT_EARGSIZE -10      /* the argument size does not match */
#define WEFT_EARGKIND -11      /* e.g. a buffer passed for a scalar argument */
#define WEFT_EARGUNSET -12     /* a kernel argument was never set */
#define WEFT_EWORKDIM -13      /* dimensions outside 1..3 */
#define WEFT_EGLOBALSIZE -14   /* a zero or too large global size */
#define WEFT_EGROUPSIZE -15    /* the local size is invalid or does not divide */
#define WEFT_ERANGE -16        /* an offset or size outside a buffer */
#define WEFT_ELOCALMEM -17     /* the kernel needs more local memory than exists */
#define WEFT_EKERNELFAULT -18  /* the kernel crashed (bad access, trap) */
#define WEFT_ESTACK -19        /* a work-item overflowed its stack */
#define WEFT_EBARRIER -20      /* barrier() not reached by all work-items */
#define WEFT_EMAPPED -21       /* the buffer is mapped, or the pointer is not */
#define WEFT_ELAUNCH -22       /* launch failed for another reason */
#define WEFT_EDEADLOCK -23     /* work-groups wait for each other for ever */
#define WEFT_ECHECK -24        /* check mode found errors, or weft_assert failed */
#define WEFT_ETIMEOUT -25      /* the launch ran past its time (WEFT_TIMEOUT) */
#define WEFT_EWAITLIST -26     /* a command's wait list holds a failed event */
#define WEFT_EOVERLAP -27      /* a copy's source and destination share bytes */

/* The name and meaning of a status code, e.g. "WEFT_EBUILD: build failed". */
WEFT_EXPORT const char *weft_strerror(int status);

/* Weft's version, the source revision it was built from and the LLVM it
 * compiles with, as one line: "0.1.0 (git 2ea8e13c9f1a, LLVM 19.1.7)"
 * ("-dirty" after the revision when the tree had changes, "unknown"
 * outside a git checkout). */
WEFT_EXPORT const char *weft_version(void);

/* The folder of Weft's disk cache (kernels, and `weft bench probe`'s
 * defaults): WEFT_CACHE_DIR, or by default $XDG_CACHE_HOME/weft or
 * ~/.cache/weft; NULL when the disk cache is off. */
WEFT_EXPORT const char *weft_cache_dir(void);

/* The machine's default cl_weft_sync algorithms (README: "Choosing the
 * synchronization implementations"): `weft bench probe` measures them and
 * saves its choice as the file sync-defaults in the kernel cache's folder,
 * which the CPU device reads when it starts and adds to the options of the
 * programs it builds (a program's own -DWEFT_*_IMPL wins). */
#define WEFT_SYNC_DEFAULTS_FILE "sync-defaults" /* its name in the folder */

typedef struct weft_sync_defaults {
  unsigned threads;       /* the worker threads the measurements ran on */
  const char *cpu;        /* the device measured (one line; NULL: none) */
  const char *class_text; /* how it was classified, for people (one line) */
  /* Each primitive's algorithm, as the lowercase suffix of its constant in
   * weft/kernel.h (WEFT_MUTEX_TICKET: "ticket"); NULL is "native". The
   * barriers take native or two_stage. */
  const char *mutex, *semaphore, *barrier, *global_barrier;
} weft_sync_defaults;

/* The file's text for d, malloc'd, in *text: 0, WEFT_EINVAL (an algorithm
 * the primitive does not have, or a line break in a text) or
 * WEFT_ENOMEM. */
WEFT_EXPORT int weft_sync_defaults_text(const weft_sync_defaults *d,
                                        char **text);

/* Saves d as the file at path, whose folder must exist, or, with path
 * NULL, where the CPU device reads it (the kernel cache's folder, made if
 * missing). The file is replaced whole: a reader sees the old one or the
 * new. 0; WEFT_EINVAL as weft_sync_defaults_text, or with path NULL when
 * the disk cache is off (weft_cache_dir() is NULL); WEFT_ESYS with errno
 * when it cannot be written (EACCES: the cache's folder is not usable, as
 * stderr says); WEFT_ENOMEM. */
WEFT_EXPORT int weft_sync_defaults_save(const weft_sync_defaults *d,
                                        const char *path);

/* The environment variables Weft reads: the i-th's name (from 0), with
 * *values (the forms it takes) and *meaning (a line) if not NULL; NULL
 * past the last. Each is read once, when the library starts. */
WEFT_EXPORT const char *weft_environment_variable(unsigned i,
                                                  const char **values,
                                                  const char **meaning);

/* The message of the last failed call on a device, context, buffer, program
 * or kernel, or "" when none failed. Valid until the next call on it. */
WEFT_EXPORT const char *weft_errmsg(const void *object);

/* --------------------------------------------------------------- devices */

typedef struct weft_device weft_device;

typedef enum weft_device_kind {
  WEFT_DEVICE_CPU = 1,
  WEFT_DEVICE_GPU = 2
} weft_device_kind;

typedef struct weft_device_info {
  weft_device_kind kind;
  char name[128];
  char vendor[64];
  unsigned compute_units;        /* threads that run work-groups */
  size_t max_work_group_size;
  size_t max_work_item_sizes[3];
  uint64_t global_mem_size;
  uint64_t max_alloc_size;
  uint64_t local_mem_size;       /* bytes of __local memory per work-group */
  unsigned address_bits;
  size_t stack_size;             /* bytes of stack per work-item */
  char barriers[16];             /* barrier scheduling: "regions", "fibers" */
  /* The OpenCL C extensions and optional features kernels may use, comma-
   * separated ("cl_khr_fp64,__opencl_c_int64,..."); lives as long as the
   * device. */
  const char *features;
  char fiber[16];                /* context switch in use: "asm", "ucontext" */
  unsigned max_clock_mhz;        /* the highest clock, 0 where unknown */
  uint64_t cache_size;           /* bytes of the last-level cache (a core's) */
  unsigned cacheline_size;       /* bytes of a cache line */
  unsigned vector_bytes;         /* bytes of the widest SIMD register */
  int svm;                       /* 1: shared virtual memory (weft_svm_alloc) */
  /* The most work-groups that can be resident at once: a launch whose
   * groups wait for each other (weft_global_barrier above all) needs them
   * all resident. On the CPU, 65536, or WEFT_RESIDENT_GROUPS when set. */
  uint64_t max_resident_groups;
  /* Work-items per sub-group (consecutive local linear ids; a group's
   * last sub-group may have fewer): 16 on the CPU, a warp on a GPU. */
  unsigned sub_group_size;
  /* The sizes a kernel may ask for instead with
   * __attribute__((intel_reqd_sub_group_size(n))), powers of two, each
   * its own bit: 4 | 8 | 16 | 32 on the CPU, 32 on a GPU. */
  unsigned sub_group_sizes;
} weft_device_info;

/* The number of devices (at least the CPU), or a negative error. */
WEFT_EXPORT int weft_device_count(void);

/* The device at index: the CPU, then each CUDA GPU, unless WEFT_DEVICE
 * puts a GPU first. Devices live as long as the process. */
WEFT_EXPORT int weft_device_get(int index, weft_device **out);

/* Devices by name, as WEFT_DEVICE and the weft tool's --device take
 * them: "cpu", "cuda" or "gpu" (the first GPU), "cuda:N" (GPU N), or a
 * device index. weft_device_name_check answers 0 for a name of one of
 * those forms, WEFT_EINVAL otherwise, and starts no device;
 * weft_device_find finds the device named (WEFT_ENODEV: none such). */
WEFT_EXPORT int weft_device_name_check(const char *name);
WEFT_EXPORT int weft_device_find(const char *name, weft_device **out);

/* Fills info with the device's description and limits. */
WEFT_EXPORT int weft_device_info_get(weft_device *device,
                                     weft_device_info *info);

/* -------------------------------------------------------------- contexts */

typedef struct weft_context weft_context;

/* Creates a context on one device; buffers and programs belong to it. */
WEFT_EXPORT int weft_context_create(weft_device *device, weft_context **out);
WEFT_EXPORT void weft_context_retain(weft_context *context);
/* Drops a reference; the context goes when its objects and users are gone. */
WEFT_EXPORT void weft_context_release(weft_context *context);
WEFT_EXPORT weft_device *weft_context_device(weft_context *context);

/* --------------------------------------------------------------- buffers */

typedef struct weft_buffer weft_buffer;

#define WEFT_MEM_READ_WRITE 0u
#define WEFT_MEM_READ_ONLY 1u     /* kernels only read it */
#define WEFT_MEM_WRITE_ONLY 2u    /* kernels only write it */
#define WEFT_MEM_USE_HOST_PTR 4u  /* the buffer is the caller's memory */
#define WEFT_MEM_COPY_HOST_PTR 8u /* start with a copy of host_ptr */
/* Its contents start undefined, as OpenCL's buffers' do: check mode's
 * uninit check reports kernels' reads of bytes nothing wrote (the memory
 * is zero-filled all the same). Without host data only. */
#define WEFT_MEM_UNDEFINED 16u

/* Creates a buffer of size bytes. host_ptr is used with USE_HOST_PTR or
 * COPY_HOST_PTR and must be NULL otherwise. New memory is zero-filled. */
WEFT_EXPORT int weft_buffer_create(weft_context *context, size_t size,
                                   unsigned flags, void *host_ptr,
                                   weft_buffer **out);
WEFT_EXPORT void weft_buffer_retain(weft_buffer *buffer);
WEFT_EXPORT void weft_buffer_release(weft_buffer *buffer);
WEFT_EXPORT size_t weft_buffer_size(weft_buffer *buffer);

/* A buffer that is the bytes [offset, offset + size) of parent, sharing its
 * memory. flags as for weft_buffer_create, without host pointer flags. */
WEFT_EXPORT int weft_buffer_create_sub(weft_buffer *parent, size_t offset,
                                       size_t size, unsigned flags,
                                       weft_buffer **out);

/* Copies size bytes from host memory into the buffer at offset. */
WEFT_EXPORT int weft_buffer_write(weft_buffer *buffer, size_t offset,
                                  size_t size, const void *src);
/* Copies size bytes of the buffer at offset into host memory. */
WEFT_EXPORT int weft_buffer_read(weft_buffer *buffer, size_t offset,
                                 size_t size, void *dst);

/* Copies size bytes between buffers of one context (ranges may overlap only
 * if they are in different buffers). */
WEFT_EXPORT int weft_buffer_copy(weft_buffer *src, size_t src_offset,
                                 weft_buffer *dst, size_t dst_offset,
                                 size_t size);

/* A rectangle of memory laid out in rows and slices: its origin (x in
 * bytes, y in rows, z in slices) and the pitches, in bytes, of a row and
 * of a slice (0: tightly packed, as the region's width and rows make
 * them). */
typedef struct weft_rect {
  size_t origin[3];
  size_t row_pitch, slice_pitch;
} weft_rect;

/* Moves region (width in bytes, rows, slices; none 0) between a buffer and
 * host memory, or between two buffers of one context, row by row. Each
 * side's rectangle says where. WEFT_ERANGE when a rectangle does not fit
 * its buffer (host memory: the address space), or its pitches do not fit
 * region (a row pitch under the width, a slice pitch under the rows or not
 * a multiple of the row pitch); WEFT_EOVERLAP when a copy's rectangles
 * share a byte (within one buffer, or sub-buffers of one). */
WEFT_EXPORT int weft_buffer_read_rect(weft_buffer *buffer, const weft_rect *at,
                                      void *host, const weft_rect *host_at,
                                      const size_t region[3]);
WEFT_EXPORT int weft_buffer_write_rect(weft_buffer *buffer,
                                       const weft_rect *at, const void *host,
                                       const weft_rect *host_at,
                                       const size_t region[3]);
WEFT_EXPORT int weft_buffer_copy_rect(weft_buffer *src, const weft_rect *src_at,
                                      weft_buffer *dst, const weft_rect *dst_at,
                                      const size_t region[3]);
/* What one of those would answer about its arguments, moving nothing
 * (src or dst NULL: that side is host memory). */
WEFT_EXPORT int weft_buffer_check_rect(weft_buffer *src,
                                       const weft_rect *src_at,
                                       weft_buffer *dst,
                                       const weft_rect *dst_at,
                                       const size_t region[3]);

/* Fills size bytes at offset with a repeated pattern of pattern_size bytes
 * (1 to 128, and size a multiple of it). */
WEFT_EXPORT int weft_buffer_fill(weft_buffer *buffer, const void *pattern,
                                 size_t pattern_size, size_t offset,
                                 size_t size);

#define WEFT_MAP_READ 1u
#define WEFT_MAP_WRITE 2u

/* Makes a range of the buffer visible to the host until unmapped. */
WEFT_EXPORT int weft_buffer_map(weft_buffer *buffer, size_t offset,
                                size_t size, unsigned map_flags, void **ptr);
WEFT_EXPORT int weft_buffer_unmap(weft_buffer *buffer, void *ptr);
/* Brings the mapping at ptr up to date with the buffer: where a map is a
 * copy (a GPU's memory), its range is read again; where it is the memory
 * itself, nothing happens. For a caller that maps before earlier work on
 * the buffer has run (OpenCL's enqueued maps). */
WEFT_EXPORT int weft_buffer_map_refresh(weft_buffer *buffer, void *ptr);

/* ---------------------------------------------------------------- images */

/* Images, on every device: a buffer that holds an image's elements,
 * which kernels read and write through image arguments (read_imagef, ...)
 * and the host through the buffer functions. Types, channel orders and
 * channel types take OpenCL's values (CL_MEM_OBJECT_IMAGE2D, CL_RGBA,
 * CL_UNORM_INT8: cl.h). Element (x, y, z) is at x * element size +
 * y * row_pitch + z * slice_pitch; an array's layer is its z. */
typedef struct weft_image_desc {
  unsigned type;          /* CL_MEM_OBJECT_IMAGE1D ... IMAGE3D */
  unsigned channel_order; /* CL_R ... CL_LUMINANCE */
  unsigned channel_type;  /* CL_SNORM_INT8 ... CL_FLOAT */
  size_t width, height, depth, array_size; /* 0 where the type has none */
  /* Bytes from row to row and slice (or layer) to slice of host_ptr's
   * data, or of a 2D image's buffer; 0: packed. Without either both must
   * be 0. */
  size_t row_pitch, slice_pitch;
  /* CL_MEM_OBJECT_IMAGE1D_BUFFER (and optionally IMAGE2D): the buffer
   * whose memory it is (big enough for every row, its memory aligned to an
   * element), or NULL. */
  weft_buffer *buffer;
} weft_image_desc;

/* The largest images: sizes of 2D images (and 1D, and arrays' layers),
 * of 3D images, layers of an array, elements of a 1D buffer image. */
#define WEFT_IMAGE2D_MAX 16384u
#define WEFT_IMAGE3D_MAX 2048u
#define WEFT_IMAGE_LAYERS_MAX 2048u
#define WEFT_IMAGE_BUFFER_MAX (1u << 27)

/* The bytes of an element of the format, or 0 when Weft has no such
 * format. */
WEFT_EXPORT size_t weft_image_element_size(unsigned channel_order,
                                           unsigned channel_type);
/* The formats Weft has, as (order, type) pairs into out (up to max);
 * returns how many there are. */
WEFT_EXPORT size_t weft_image_formats(unsigned (*out)[2], size_t max);
/* Creates an image. flags and host_ptr as for weft_buffer_create, host_ptr
 * laid out by the descriptor's pitches (USE_HOST_PTR: the image is that
 * memory, so its pitches are those). */
WEFT_EXPORT int weft_image_create(weft_context *context, unsigned flags,
                                  const weft_image_desc *desc, void *host_ptr,
                                  weft_buffer **out);
/* Fills the elements [origin, origin + region) (x, y, z; an array's layer
 * is z) with color, four floats for normalized and float formats, four
 * ints or unsigned ints for integer ones, converted as write_imagef,
 * write_imagei and write_imageui do. */
WEFT_EXPORT int weft_image_fill(weft_buffer *image, const void *color,
                                const size_t origin[3], const size_t region[3]);
/* An image's description, with the pitches of its storage (and
 * buffer: the buffer it was made from, or NULL); WEFT_EINVAL for a buffer
 * that is not an image. */
WEFT_EXPORT int weft_image_describe(weft_buffer *image, weft_image_desc *out);

/* ------------------------------------------------- shared virtual memory */

/* Memory the host and kernels address with the same pointers (OpenCL's
 * coarse-grained SVM buffers): a structure of pointers built on the host
 * is followed by kernels as it is. Zero-filled. alignment is 0 or a power
 * of two up to 4096; every allocation is aligned to at least 128 bytes
 * (the widest type). Fails with WEFT_ENODEV on a device without it
 * (weft_device_info.svm). */
WEFT_EXPORT int weft_svm_alloc(weft_context *context, size_t size,
                               size_t alignment, void **out);

/* Frees an allocation made by weft_svm_alloc (NULL does nothing); kernels
 * still using it must have finished. */
WEFT_EXPORT int weft_svm_free(weft_context *context, void *ptr);

/* The allocation of the context that holds ptr: its start and size, or
 * WEFT_EINVAL when ptr lies in none. */
WEFT_EXPORT int weft_svm_find(weft_context *context, const void *ptr,
                              void **base, size_t *size);

/* -------------------------------------------------------------- programs */

typedef struct weft_program weft_program;

/* Creates a program from OpenCL C source (length 0: NUL-terminated). */
WEFT_EXPORT int weft_program_create(weft_context *context, const char *source,
                                    size_t length, weft_program **out);
WEFT_EXPORT void weft_program_retain(weft_program *program);
WEFT_EXPORT void weft_program_release(weft_program *program);

/* Compiles the program with OpenCL build options ("-cl-std=CL3.0 -DN=4").
 * On WEFT_EBUILD the log names file, line and column of each diagnostic. */
WEFT_EXPORT int weft_program_build(weft_program *program, const char *options);

/* The build log of the last build ("" before any). */
WEFT_EXPORT const char *weft_program_build_log(weft_program *program);

/* The source the program was made from, its length in *length (if not
 * NULL); NULL for a program made from IR, a binary or a link. Valid as
 * long as the program. */
WEFT_EXPORT const char *weft_program_source(weft_program *program,
                                            size_t *length);

/* The options of the program's last build, compile or link, as given
 * ("" before any), copied into out (size bytes, NUL-terminated, cut to
 * fit; out may be NULL with size 0): the bytes they take with their NUL,
 * or WEFT_EINVAL. */
WEFT_EXPORT long weft_program_options(weft_program *program, char *out,
                                      size_t size);

/* What a program holds: nothing yet, a compiled object or a library (for
 * weft_program_link), or an executable (built, with kernels). */
typedef enum weft_program_binary_type {
  WEFT_BINARY_NONE = 0,
  WEFT_BINARY_OBJECT = 1,
  WEFT_BINARY_LIBRARY = 2,
  WEFT_BINARY_EXECUTABLE = 3
} weft_program_binary_type;

/* Separate compilation: compiles the source to an object for
 * weft_program_link, without building. headers are num_headers pairs of
 * names and sources, found by #include "name" in the source. */
WEFT_EXPORT int weft_program_compile(weft_program *program,
                                     const char *options, unsigned num_headers,
                                     const char *const *header_names,
                                     const char *const *header_sources);

/* Links compiled objects and libraries into a new program: an executable,
 * built with options, or with "-create-library" a library. The link
 * options of OpenCL are accepted (-enable-link-options, -cl-fast-relaxed-
 * math and its parts). When linking or building fails the new program is
 * still returned, with the log, and the status is WEFT_EBUILD. */
WEFT_EXPORT int weft_program_link(weft_context *context, unsigned count,
                                  weft_program *const *inputs,
                                  const char *options, weft_program **out);

WEFT_EXPORT weft_program_binary_type weft_program_get_binary_type(
    weft_program *program);

/* The program as a binary (LLVM bitcode of the device's target in Weft's
 * container), malloc'd; the caller frees it. Compiled objects, libraries
 * and built executables have one. */
WEFT_EXPORT int weft_program_get_binary(weft_program *program, void **binary,
                                        size_t *size);

/* Creates a program from what weft_program_get_binary gave, for the same
 * kind of device; building it skips the OpenCL C front end. */
WEFT_EXPORT int weft_program_create_binary(weft_context *context,
                                           const void *binary, size_t size,
                                           weft_program **out);

/* How the last build was served: 0 compiled, 1 shared with an identical
 * build earlier in this process, 2 loaded from the kernel cache on disk
 * (WEFT_CACHE_DIR). Negative if the program is not built. */
WEFT_EXPORT int weft_program_build_cached(weft_program *program);

/* The bytes of a built program's program-scope variables in the __global
 * address space (OpenCL's CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE). */
WEFT_EXPORT int weft_program_global_variables_size(weft_program *program,
                                                   size_t *size);

/* The kernels of a built program, in source order. */
WEFT_EXPORT int weft_program_kernel_count(weft_program *program);
WEFT_EXPORT const char *weft_program_kernel_name(weft_program *program,
                                                 int index);

/* --------------------------------------------------------------- kernels */

typedef struct weft_kernel weft_kernel;

typedef enum weft_arg_kind {
  WEFT_ARG_BUFFER = 1,   /* __global or __constant pointer: a weft_buffer */
  WEFT_ARG_LOCAL = 2,    /* __local pointer: a size in bytes */
  WEFT_ARG_VALUE = 3,    /* scalar, vector or struct passed by value */
  WEFT_ARG_IMAGE = 4,    /* an image (weft_image_create) */
  WEFT_ARG_SAMPLER = 5   /* a sampler: its CLK_* bits, CPU only */
} weft_arg_kind;

/* An image argument's access qualifier (others: WEFT_IMAGE_ACCESS_NONE). */
typedef enum weft_image_access {
  WEFT_IMAGE_ACCESS_NONE = 0,
  WEFT_IMAGE_READ_ONLY = 1,
  WEFT_IMAGE_WRITE_ONLY = 2,
  WEFT_IMAGE_READ_WRITE = 3
} weft_image_access;

typedef enum weft_address_space {
  WEFT_ADDRESS_PRIVATE = 0,
  WEFT_ADDRESS_GLOBAL = 1,
  WEFT_ADDRESS_CONSTANT = 2,
  WEFT_ADDRESS_LOCAL = 3
} weft_address_space;

#define WEFT_TYPE_CONST 1u
#define WEFT_TYPE_RESTRICT 2u
#define WEFT_TYPE_VOLATILE 4u

typedef struct weft_arg_info {
  weft_arg_kind kind;
  weft_address_space address_space; /* where a pointer points */
  size_t size;                      /* bytes a value argument takes */
  const char *name;                 /* as in the source */
  const char *type_name;            /* e.g. "float4*", "int" */
  unsigned type_qualifiers;         /* WEFT_TYPE_* */
  weft_image_access access;               /* of an image */
} weft_arg_info;

/* Creates a kernel object for the named kernel of a built program. */
WEFT_EXPORT int weft_kernel_create(weft_program *program, const char *name,
                                   weft_kernel **out);
WEFT_EXPORT void weft_kernel_retain(weft_kernel *kernel);
WEFT_EXPORT void weft_kernel_release(weft_kernel *kernel);
WEFT_EXPORT const char *weft_kernel_name(weft_kernel *kernel);
WEFT_EXPORT int weft_kernel_arg_count(weft_kernel *kernel);
WEFT_EXPORT int weft_kernel_arg_info(weft_kernel *kernel, int index,
                                     weft_arg_info *info);

/* A new kernel object for the same kernel, with the same argument values,
 * which then change independently (a launch that must not see later
 * changes uses a clone). */
WEFT_EXPORT int weft_kernel_clone(weft_kernel *kernel, weft_kernel **out);

/* The local size the kernel declares it needs, with
 * __attribute__((reqd_work_group_size(x, y, z))), and the one it suggests
 * (work_group_size_hint); zeros where it declares none. A launch of a
 * kernel with a required size must use it (local == NULL uses it). */
typedef struct weft_kernel_attributes {
  size_t reqd_local_size[3];
  size_t local_size_hint[3];
  /* __attribute__((vec_type_hint(T))): T's name ("float4"), or "". */
  char vec_type_hint[16];
  /* __attribute__((intel_reqd_sub_group_size(n))): n, the width of its
   * sub-groups; 0 where it has none (the device's sub_group_size). */
  unsigned sub_group_size;
} weft_kernel_attributes;

WEFT_EXPORT int weft_kernel_get_attributes(weft_kernel *kernel,
                                           weft_kernel_attributes *out);

/* Bytes of __local memory the kernel declares itself (not its arguments). */
WEFT_EXPORT size_t weft_kernel_local_mem_size(weft_kernel *kernel);

/* Sets a pointer argument to a buffer (NULL passes a NULL pointer). The
 * kernel holds a reference to the buffer until the argument is set again
 * or the kernel is released. */
WEFT_EXPORT int weft_kernel_set_arg_buffer(weft_kernel *kernel, int index,
                                           weft_buffer *buffer);
/* Sets a pointer argument to an address inside an SVM allocation of the
 * kernel's context (NULL passes a NULL pointer). */
WEFT_EXPORT int weft_kernel_set_arg_svm(weft_kernel *kernel, int index,
                                        const void *ptr);
/* Sets a by-value argument; size must equal the argument's size. */
WEFT_EXPORT int weft_kernel_set_arg_value(weft_kernel *kernel, int index,
                                          const void *value, size_t size);
/* Sets a __local pointer argument to size bytes of per-group memory. */
WEFT_EXPORT int weft_kernel_set_arg_local(weft_kernel *kernel, int index,
                                          size_t size);
/* An image argument: an image (weft_image_create) that allows the
 * argument's access (a read_only argument takes no WEFT_MEM_WRITE_ONLY
 * image, a write_only one no WEFT_MEM_READ_ONLY image). */
WEFT_EXPORT int weft_kernel_set_arg_image(weft_kernel *kernel, int index,
                                          weft_buffer *image);
/* A sampler argument: the bits of OpenCL C's sampler initializers, the
 * WEFT_SAMPLER_* below (CLK_NORMALIZED_COORDS_TRUE, CLK_ADDRESS_CLAMP,
 * CLK_FILTER_LINEAR ... have the same values). */
#define WEFT_SAMPLER_NORMALIZED 0x1u
#define WEFT_SAMPLER_NONE 0x0u /* addressing: nothing outside the image */
#define WEFT_SAMPLER_CLAMP_TO_EDGE 0x2u
#define WEFT_SAMPLER_CLAMP 0x4u
#define WEFT_SAMPLER_REPEAT 0x6u
#define WEFT_SAMPLER_MIRRORED_REPEAT 0x8u
#define WEFT_SAMPLER_NEAREST 0x10u
#define WEFT_SAMPLER_LINEAR 0x20u
WEFT_EXPORT int weft_kernel_set_arg_sampler(weft_kernel *kernel, int index,
                                            unsigned bits);

/* -------------------------------------------------------------- launches */

/* Runs the kernel over an NDRange of dims (1..3) dimensions and waits for it.
 * offset may be NULL (all zero); local may be NULL (Weft picks a size that
 * divides global). A kernel that crashes, overflows its stack or reaches
 * barrier() divergently fails with a message naming the work-item. */
WEFT_EXPORT int weft_kernel_launch(weft_kernel *kernel, unsigned dims,
                                   const size_t *offset, const size_t *global,
                                   const size_t *local);

/* What weft_kernel_start returns when the launch runs on (the work is
 * the device's, in the order it was given) until the device settles
 * (weft_device_settle); a command's run returns it likewise
 * (weft_enqueue_settled). */
#define WEFT_IN_FLIGHT 1

/* As weft_kernel_launch, but a device that runs launches in order
 * without the host (a GPU) may return WEFT_IN_FLIGHT once the launch is
 * started: the launch is done, or its failure known, when the device
 * settles (weft_device_settle); launches and memory operations given to
 * the device afterwards run after it. Elsewhere it is weft_kernel_launch. */
WEFT_EXPORT int weft_kernel_start(weft_kernel *kernel, unsigned dims,
                                  const size_t *offset, const size_t *global,
                                  const size_t *local);

/* Waits until every launch started on the device has finished: 0, or
 * the status of a failure since the last settle, with the device's
 * message (naming the kernels that were in flight) in msg (if not NULL,
 * size bytes). */
WEFT_EXPORT int weft_device_settle(weft_device *device, char *msg,
                                   size_t size);

/* What weft_kernel_launch checks before running, without running: the
 * same status and message it would give. */
WEFT_EXPORT int weft_kernel_check_launch(weft_kernel *kernel, unsigned dims,
                                         const size_t *offset,
                                         const size_t *global,
                                         const size_t *local);

/* Schedule exploration, for testing kernels whose work-groups wait for each
 * other: with WEFT_SCHEDULE=random:SEED (or random-deep:SEED, which also
 * switches at every global load and store), cooperative work-groups run on
 * one thread in a random order, switching at random at atomics and
 * barriers; with pct:SEED[:DEPTH], by random priorities that drop at steps
 * the seed draws, switching at every shared access (README, Schedule
 * exploration). A given seed gives the same interleaving every time. This
 * sets
 * the seed for the launches that follow (they count from 1 again); a
 * failed launch's message names its seed and launch. */
WEFT_EXPORT int weft_schedule_seed(unsigned long long seed);

/* The interleaving of the last launch that ran under a schedule mode,
 * summarized into out (size bytes, NUL-terminated; "" before any): its
 * last stretches, oldest first, one line each, "work-item (3) [local (1)
 * in work-group (1)]: program.cl:5:9 to program.cl:7:3, 4 steps" (a
 * stretch: the schedule points one work-item passed with no other in
 * between). 0, or WEFT_EINVAL for a NULL or empty out. */
WEFT_EXPORT int weft_schedule_history(char *out, size_t size);

/* The environment that runs launches as this process does, under seed:
 * "WEFT_SCHEDULE=random-deep:17", "WEFT_MEMORY=weak WEFT_SCHEDULE=pct:17:3"
 * (under exhaustive exploration, "WEFT_SCHEDULE=exhaustive", whatever the
 * seed; weft_schedule_replay names one interleaving), into out (size
 * bytes): what a tool prints to replay a seed it swept. 0, or WEFT_EINVAL
 * under no schedule mode (fifo) or for a NULL or empty out. */
WEFT_EXPORT int weft_schedule_environment(unsigned long long seed, char *out,
                                          size_t size);

/* Exhaustive exploration
 * (WEFT_SCHEDULE=exhaustive[:BUDGET[:PREEMPTIONS[:full]]]): each launch of
 * a cooperative kernel runs one interleaving with at most PREEMPTIONS
 * preemptions (2 by default), the first without any; interleavings that
 * only reorder independent accesses of one already run are cut from the
 * search (partial-order reduction; ":full" runs them too). After a
 * launch, this moves on: 1 when another interleaving is left (the next
 * launch, on the same inputs, runs it), 0 when every one has run,
 * WEFT_ERANGE when BUDGET launches (100000 by default) ran first,
 * WEFT_ELAUNCH when the launch did not repeat the decisions it was to
 * replay (its path depends on more than its memory), WEFT_EINVAL under
 * another schedule. A program loops: set the inputs, launch, check, call
 * this, until it returns 0. */
WEFT_EXPORT int weft_schedule_next(void);

/* The last launch's interleaving under exhaustive exploration, as the
 * WEFT_SCHEDULE value that replays it alone ("replay:3=1,17=2": the
 * decisions that did not take the first choice), into out (size bytes);
 * *explored (if not NULL): the launches explored before it. 0, or
 * WEFT_EINVAL under another schedule or for a NULL or empty out. */
WEFT_EXPORT int weft_schedule_replay(char *out, size_t size,
                                     unsigned long long *explored);

/* Under exhaustive exploration: *launches (if not NULL), the launches
 * explored so far (those weft_schedule_next moved past), and *repeats (if
 * not NULL), how many of them ran an interleaving that only reorders
 * independent accesses of one explored before (partial-order reduction
 * cuts such launches from the search, but each still runs to its end);
 * launches - repeats are distinct. 0, or WEFT_EINVAL under another
 * schedule. */
WEFT_EXPORT int weft_schedule_explored(unsigned long long *launches,
                                       unsigned long long *repeats);

/* ----------------------------------------------------- queues and events */

/* Asynchronous work: a queue runs commands on Weft's threads (shared by
 * every queue of the process) once what they wait for has finished; each
 * command has an event that tells its status, its times, and calls back.
 * An in-order queue runs its commands one after another, in the order they
 * were enqueued; an out-of-order one (WEFT_QUEUE_OUT_OF_ORDER) runs them
 * as their wait lists allow, and barriers order them. A host thread that
 * waits (weft_event_wait, weft_queue_finish) runs the queue's ready
 * commands itself meanwhile. */
typedef struct weft_queue weft_queue;
typedef struct weft_event weft_event;

#define WEFT_QUEUE_OUT_OF_ORDER 1u

WEFT_EXPORT int weft_queue_create(weft_context *context, unsigned flags,
                                  weft_queue **out);
WEFT_EXPORT void weft_queue_retain(weft_queue *queue);
/* The queue ends once its last reference is gone and its commands are
 * done (each command's event holds one). */
WEFT_EXPORT void weft_queue_release(weft_queue *queue);
/* Waits until every command enqueued so far has finished. */
WEFT_EXPORT int weft_queue_finish(weft_queue *queue);

/* What a command does: 0, or a negative status, which fails its event. */
typedef int (*weft_command_fn)(void *arg);

/* How a command orders an out-of-order queue (kind): a barrier waits for
 * every command enqueued before it and every command after waits for it;
 * a marker without a wait list waits for every command before it. In an
 * in-order queue both are plain commands. */
#define WEFT_COMMAND_BARRIER 1u
#define WEFT_COMMAND_MARKER 2u

/* Enqueues run(arg) (run may be NULL: a command that does nothing, as
 * markers and barriers do) to start once the events of the wait list and
 * what the queue's order adds have finished; a failed event of the wait
 * list fails the command instead (WEFT_EWAITLIST) without running it.
 * done(arg), if not NULL, is called once in every case (run or not, and
 * before the event completes; on an error here, before returning): it
 * releases what arg holds. *event (if event is not NULL) gets the
 * command's event, a reference for the caller. 0, WEFT_EINVAL or
 * WEFT_ENOMEM, or WEFT_ESYS when no thread could be started to run it. */
WEFT_EXPORT int weft_enqueue(weft_queue *queue, weft_command_fn run,
                             void (*done)(void *arg), void *arg,
                             unsigned kind, unsigned num_wait,
                             weft_event *const *wait, weft_event **event);

/* How a command whose run returned WEFT_IN_FLIGHT ends: once its queue's
 * device has settled, settled(arg, status, msg) gets 0, or the settle's
 * failure and message, and returns the command's status (0, or the
 * negative status its event fails with). */
typedef int (*weft_settle_fn)(void *arg, int status, const char *msg);

/* As weft_enqueue, for a command that starts work on the queue's device
 * (weft_kernel_start): its run may return WEFT_IN_FLIGHT. Then another
 * such command of the queue that waits for it (the next of an in-order
 * queue, or one naming its event) runs without waiting for the device
 * (the device keeps their order), and the command ends when the queue
 * settles: before any other kind of command of the queue runs, when
 * there is nothing ready to run, and when the host waits for it (done
 * runs then, before its event completes). */
WEFT_EXPORT int weft_enqueue_settled(weft_queue *queue, weft_command_fn run,
                                     weft_settle_fn settled,
                                     void (*done)(void *arg), void *arg,
                                     unsigned num_wait, weft_event *const *wait,
                                     weft_event **event);

/* An event's status: queued (just enqueued), submitted (waiting for its
 * prerequisites), running, complete, or the negative status it failed
 * with. Statuses only go down. */
#define WEFT_EVENT_QUEUED 3
#define WEFT_EVENT_SUBMITTED 2
#define WEFT_EVENT_RUNNING 1
#define WEFT_EVENT_COMPLETE 0

WEFT_EXPORT int weft_event_status(weft_event *event);
/* Waits until the event has completed or failed, running its queue's
 * ready commands meanwhile; its final status (WEFT_EINVAL: no event). */
WEFT_EXPORT int weft_event_wait(weft_event *event);
/* When it was queued, submitted, started and ended, in ns of the
 * monotonic clock (0: not yet). WEFT_EINVAL for no event. */
WEFT_EXPORT int weft_event_times(weft_event *event, uint64_t times[4]);
/* The queue of a command's event, NULL for a user event. */
WEFT_EXPORT weft_queue *weft_event_queue(weft_event *event);

/* Calls fn(event, status, arg) once the event reaches status
 * (WEFT_EVENT_SUBMITTED, _RUNNING or _COMPLETE) or fails (fn then gets
 * the failure), from the thread that moves it there, or at once from this
 * one if it is there already. A command's event always gets there; a
 * user event released without being set drops its callbacks uncalled
 * (arg stays the caller's to free). 0, WEFT_EINVAL or WEFT_ENOMEM. */
typedef void (*weft_event_fn)(weft_event *event, int status, void *arg);
WEFT_EXPORT int weft_event_on(weft_event *event, int status, weft_event_fn fn,
                              void *arg);

/* An event the program completes itself, for commands to wait on: it
 * starts submitted, and weft_user_event_set moves it once to complete or
 * a negative status (1 if it did, 0 if it had been set before;
 * WEFT_EINVAL for another event or status). */
WEFT_EXPORT int weft_user_event_create(weft_context *context,
                                       weft_event **out);
WEFT_EXPORT int weft_user_event_set(weft_event *event, int status);

WEFT_EXPORT void weft_event_retain(weft_event *event);
WEFT_EXPORT void weft_event_release(weft_event *event);

/* ------------------------------------------------------------------ CUDA */

/* What the CUDA driver (libcuda.so.1, loaded at run time, or the file
 * WEFT_LIBCUDA names) offers here: "1 GPU, driver 13.0; NVIDIA H100 ...
 * (sm_90, 132 multiprocessors, 79.2 GiB); ...", or "none: " and why (no
 * driver, no GPU). Each GPU listed is a device after the CPU
 * (WEFT_DEVICE=cuda puts the first one first). */
WEFT_EXPORT const char *weft_cuda_status(void);

/* Compiles OpenCL C for an NVIDIA GPU of compute capability sm (90 for
 * sm_90) into PTX, with no GPU needed: *ptx (malloc'd, NUL-terminated) is
 * what the CUDA device loads, *log (malloc'd, never NULL) the build log.
 * Returns 0, WEFT_EBUILD, WEFT_EOPTION, WEFT_EINVAL (sm below 70) or
 * WEFT_ENOMEM. */
WEFT_EXPORT int weft_compile_ptx(const char *source, size_t length,
                                 const char *options, unsigned sm, char **ptx,
                                 char **log);

/* --------------------------------------------- cl_weft_sync from the host */

/* Kinds of the objects of cl_weft_sync, the mutexes, semaphores and
 * barriers that work-groups share (weft/kernel.h: the kernel side, their
 * algorithms and their bytes). */
#define WEFT_SYNC_MUTEX 1
#define WEFT_SYNC_SEMAPHORE 2
#define WEFT_SYNC_BARRIER 3

/* The bytes an object of that kind and algorithm (WEFT_MUTEX_*, ... in
 * weft/kernel.h; 0 for the program's default) takes in a buffer. param is
 * a semaphore's initial count (0 or more), a barrier's number of work-
 * groups (1 or more), 0 for a mutex. WEFT_EINVAL for an unknown kind or
 * algorithm, or a param out of range. */
WEFT_EXPORT int weft_sync_object_size(int kind, long long param,
                                      unsigned algorithm, size_t *bytes);

/* Writes a fresh object (a free mutex, a semaphore of count param free
 * units, a barrier for param work-groups) at offset in buffer, a multiple
 * of 4. Do it before a launch that uses the object, not during one. The
 * same as a kernel's weft_*_init_with. */
WEFT_EXPORT int weft_sync_object_init(weft_buffer *buffer, size_t offset,
                                      int kind, long long param,
                                      unsigned algorithm);

/* The local size a launch with local == NULL would use (the kernel's
 * reqd_work_group_size, else Weft's choice): dims entries. */
WEFT_EXPORT int weft_kernel_suggest_local_size(weft_kernel *kernel,
                                               unsigned dims,
                                               const size_t *global,
                                               size_t *local);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_H */
