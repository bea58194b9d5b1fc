/*
 * builtins_support.h: helpers for the builtin-library suites, which build
 * one program of generated kernels per test and check every type and width
 * against reference functions on the host.
 */
#ifndef WEFT_TESTS_BUILTINS_SUPPORT_H
#define WEFT_TESTS_BUILTINS_SUPPORT_H

#include <stdarg.h>
#include <stdint.h>

#include "support.h"

/* The vector widths of OpenCL C; width 1 is the scalar. */
static const int bs_widths[] = {1, 2, 3, 4, 8, 16};
#define BS_NUM_WIDTHS 6

/* Components a vector of width n takes in memory: a 3-vector takes 4. */
static inline int bs_stride(int n) { return n == 3 ? 4 : n; }

/* The type name with its width: "int", "int4". */
static inline const char *bs_vec(const char *type, int n) {
  static char names[8][32];
  static int next;
  char *s = names[next++ % 8];
  if (n == 1) snprintf(s, 32, "%s", type);
  else snprintf(s, 32, "%s%d", type, n);
  return s;
}

/* A growing string for generated kernel source. */
typedef struct bs_text {
  char *s;
  size_t len, cap;
} bs_text;

static inline void bs_append(bs_text *t, const char *format, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, format);
    size_t room = t->cap - t->len;
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? room : 0, format, ap);
    va_end(ap);
    if (t->s && (size_t)n < room) {
      t->len += (size_t)n;
      return;
    }
    t->cap = t->cap * 2 + (size_t)n + 4096;
    t->s = realloc(t->s, t->cap);
    if (!t->s) FAIL("out of memory");
  }
}

/* xorshift64*: the same pseudo-random values on every run. */
static inline uint64_t bs_random(void) {
  static uint64_t state = 0x9e3779b97f4a7c15ull;
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return state * 0x2545f4914f6cdd1dull;
}

/* Runs kernel name of program p over global work-items, with the buffers
 * as its arguments in order. */
static inline void bs_launch(weft_program *p, const char *name, size_t global,
                             weft_buffer **buffers, int count) {
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, name, &k), p);
  for (int i = 0; i < count; i++)
    CHECK_OK(weft_kernel_set_arg_buffer(k, i, buffers[i]), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  weft_kernel_release(k);
}

#endif
