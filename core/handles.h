/*
 * handles.h: the structs behind the native API's handles. Each starts with
 * a weft_object (object.h). Only core/ looks inside them.
 */
#ifndef WEFT_CORE_HANDLES_H
#define WEFT_CORE_HANDLES_H

#include <pthread.h>
#include <stdatomic.h>

#include "backend/device.h"
#include "base/lock.h"
#include "base/object.h"

/* A device: its back end's operations and state (backend/device.h),
 * made by the back end's probe (backend/backends.h). */
struct weft_device {
  weft_object object;
  const weft_device_ops *ops;
  weft_backend_device *state;
};

/* An SVM allocation of a context. */
typedef struct weft_svm_block {
  char *base;
  size_t size;
} weft_svm_block;

struct weft_context {
  weft_object object;
  weft_device *device;
  weft_lock svm_lock;
  weft_svm_block *svm;      /* sorted by base address */
  size_t num_svm, cap_svm;
};

struct weft_buffer {
  weft_object object;
  weft_context *context;
  size_t size;
  unsigned flags;
  void *mem;             /* the device address */
  void *host_ptr;        /* with WEFT_MEM_USE_HOST_PTR */
  weft_buffer *parent;   /* a sub-buffer's (retained); its memory is lent */
  unsigned num_maps;     /* live mappings, guarded by object.lock */
  unsigned map_capacity;
  weft_mapping *maps;
  /* Check mode's record of its written bytes (buffer_shadow.c), on a
   * root buffer: WEFT_SHADOW_*, and the shadow once made. */
  atomic_int shadow_state;
  unsigned char *shadow;
  /* An image's layout (builtins/image_layout.h), or NULL for a plain
   * buffer; and its copy in the device's memory, which the image's kernel
   * arguments point to (the image builtins read it on the device). */
  struct weft_image_layout *image;
  void *image_arg;
  /* Whether the device was asked for the image's textures (the layout's
   * texture[]), at the first kernel that takes it read-only (object.lock). */
  int textures_asked;
};

struct weft_program {
  weft_object object;
  weft_context *context;
  char *source;               /* NULL for programs from IR */
  size_t length;
  weft_lock build_lock; /* one build at a time */
  char *log;
  char *options;              /* of the last build, compile or link, as
                                 given (object.lock) */
  weft_binary *binary;        /* NULL until a build succeeds */
  /* The device's IR: of a compiled object, a library, a program made from
   * a binary or a link, or (made on demand) of an executable built from
   * source, for weft_program_binary. */
  void *ir;
  size_t ir_size;
  weft_program_binary_type binary_type;
  atomic_int num_kernels;     /* kernel objects made from the binary */
  /* Copies of kernels (weft_kernel_clone: launches still queued), which
   * do not stop a rebuild: the binaries they run, once replaced, are kept
   * here until the program goes (build_lock guards the list). */
  atomic_int num_clones;
  weft_binary **retired;
  unsigned num_retired;
};

struct weft_kernel {
  weft_object object;
  weft_program *program;
  const weft_binary *binary;  /* the program's when the kernel was made */
  const weft_kernel_desc *desc; /* in binary */
  int is_clone;               /* counted in num_clones, not num_kernels */
  unsigned char *values;      /* the argument values, one aligned slot each */
  size_t values_size;
  void **args;                /* args[i] points at slot i */
  unsigned char *is_set;
  /* Bytes of each argument where a back end needs them: asked for a
   * __local argument; of a buffer argument, from where it points on. */
  size_t *arg_sizes;
  /* The buffer of each buffer argument (retained), or NULL; and, for a
   * kernel built with the uninit check, the shadows a launch passes. */
  weft_buffer **arg_buffers;
  unsigned char **arg_shadows;
};

/* The root buffer b is a sub-buffer of (b itself if none), and b's offset
 * in it into *offset unless offset is NULL. */
weft_buffer *weft__buffer_root(weft_buffer *b, size_t *offset);

/* Argument index of k, if it exists and has kind (0: any), into *out; or
 * an error on k that says what is wrong. */
int weft__kernel_arg(weft_kernel *k, int index, weft_arg_kind kind,
                     const weft_arg_desc **out);

/* Argument index of k holds buffer b (or none): b is retained while it
 * does. */
void weft__kernel_hold(weft_kernel *k, unsigned index, weft_buffer *b);

/* Records a finished build, compile or link ("build", ...): its log
 * (taken over) and, on failure, the message; returns rc. */
int weft__program_done(weft_program *p, int rc, char *log, const char *what);

/* Forgets the binary an earlier build made (build_lock held): frees it,
 * or keeps it among the retired while clones of its kernels may run it;
 * 0 or WEFT_ENOMEM (with the binary still the program's). */
int weft__program_reset(weft_program *p);

/* Records the options of a build, compile or link as given (NULL: ""),
 * under the object's lock, which weft_program_options takes. */
void weft__program_set_options(weft_program *p, const char *options);

/* A new program of context c, with nothing in it yet (a reference to c
 * taken); NULL when out of memory. */
weft_program *weft__program_new(weft_context *c);

/* The device's limits (cached by core/device.c). */
const weft_device_info *weft__device_info(weft_device *device);

#endif
