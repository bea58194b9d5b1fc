/*
 * sync_support.h: what the cl_weft_sync suites (test_sync.c,
 * test_sync_algorithms.c) share: a context with one program of the
 * suite's kernels, and short ways to make and release int buffers, set
 * arguments and launch a number of work-groups (the device's figures are
 * support.h's support_device_info).
 */
#ifndef WEFT_TESTS_SYNC_SUPPORT_H
#define WEFT_TESTS_SYNC_SUPPORT_H

#include <stdarg.h>

#include "support.h"

typedef struct fixture {
  weft_context *ctx;
  weft_program *program;
} fixture;

static inline fixture setup_program(const char *source, const char *options) {
  fixture f;
  f.ctx = support_context();
  f.program = support_build(f.ctx, source, options);
  return f;
}

static inline void teardown(fixture *f) {
  weft_program_release(f->program);
  weft_context_release(f->ctx);
}

static inline weft_kernel *kernel(fixture *f, const char *name) {
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(f->program, name, &k), f->program);
  return k;
}

/* n ints, from init (or zeros when NULL). */
static inline weft_buffer *ints(fixture *f, size_t n, const int *init) {
  return support_buffer(f->ctx, n * sizeof(int), init);
}

/* Releases the n buffers of b. */
static inline void release_buffers_n(weft_buffer *const *b, size_t n) {
  for (size_t i = 0; i < n; i++) weft_buffer_release(b[i]);
}

/* release_buffers(a, b, c): releases every buffer named. */
#define release_buffers(...)                                                 \
  release_buffers_n((weft_buffer *const[]){__VA_ARGS__},                     \
                    sizeof((weft_buffer *const[]){__VA_ARGS__}) /            \
                        sizeof(weft_buffer *))

static inline void read_ints(weft_buffer *b, int *out, size_t n) {
  CHECK_OK(weft_buffer_read(b, 0, n * sizeof(int), out), b);
}

/* Sets the kernel's arguments: buffers (B) and ints (I), as fmt says. */
static inline void args(weft_kernel *k, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  for (unsigned i = 0; fmt[i]; i++) {
    if (fmt[i] == 'B') {
      CHECK_OK(weft_kernel_set_arg_buffer(k, i, va_arg(ap, weft_buffer *)), k);
    } else {
      int v = va_arg(ap, int);
      CHECK_OK(weft_kernel_set_arg_value(k, i, &v, sizeof v), k);
    }
  }
  va_end(ap);
}

/* groups work-groups of local work-items, in one dimension. */
static inline int launch(weft_kernel *k, size_t groups, size_t local) {
  size_t global = groups * local;
  return weft_kernel_launch(k, 1, NULL, &global, &local);
}

/* expr fails as a deadlock whose report says what the groups wait on
 * (wait): on the CPU the report counts the waiting groups (cpu); on a
 * GPU it names the group whose wait timed out. Tests that expect one set
 * WEFT_SPIN_TIMEOUT low first, as the GPU's waits time out after it. */
#define CHECK_DEADLOCK(expr, k, cpu, wait)                                   \
  do {                                                                       \
    CHECK_FAILS(expr, WEFT_EDEADLOCK, k,                                     \
                harness_on_gpu() ? "deadlock: work-group (" : (cpu));        \
    CHECK_STR_CONTAINS(weft_errmsg(k), wait);                                \
  } while (0)

#endif
