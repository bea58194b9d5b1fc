/*
 * builtins_support.h: helpers for the builtin-library suites, which build
 * one program of generated kernels per test and check every type and width
 * against reference functions on the host.
 */
#ifndef WEFT_TESTS_BUILTINS_SUPPORT_H
#define WEFT_TESTS_BUILTINS_SUPPORT_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

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

/* Component lane of the vectors of width n, as an index into memory. */
static inline int bs_slot(int lane, int n) {
  return lane / n * bs_stride(n) + lane % n;
}

static inline uint64_t bs_get(const void *mem, int bytes, int index) {
  switch (bytes) {
  case 1: return ((const uint8_t *)mem)[index];
  case 2: return ((const uint16_t *)mem)[index];
  case 4: return ((const uint32_t *)mem)[index];
  default: return ((const uint64_t *)mem)[index];
  }
}

static inline void bs_put(void *mem, int bytes, int index, uint64_t v) {
  switch (bytes) {
  case 1: ((uint8_t *)mem)[index] = (uint8_t)v; break;
  case 2: ((uint16_t *)mem)[index] = (uint16_t)v; break;
  case 4: ((uint32_t *)mem)[index] = (uint32_t)v; break;
  default: ((uint64_t *)mem)[index] = v; break;
  }
}

/* One program run at several widths: kernel "<prefix><width>" runs over
 * lanes / width work-items; argument a holds args[a][lane] (bit patterns
 * of bytes[a] bytes) laid out as vectors of that width, and a last buffer
 * holds nout output regions of region bytes. check sees each width's
 * output. */
typedef struct bs_run {
  const char *source, *prefix;
  const int *widths;
  int num_widths, lanes;
  int nargs;
  uint64_t *const *args;
  const int *bytes;
  int nout;
  size_t region;
  void (*check)(int n, const uint8_t *out, void *data);
  void *data;
  const char *options; /* build options; NULL: -cl-std=CL3.0 */
} bs_run;

static inline void bs_run_widths(const bs_run *r) {
  weft_context *ctx = support_context();
  weft_program *p =
      support_build(ctx, r->source, r->options ? r->options : "-cl-std=CL3.0");
  size_t in_size = (size_t)r->lanes / 3 * 4 * 8 + 64;
  uint8_t *in = malloc(in_size), *out = malloc((size_t)r->nout * r->region);
  if (!in || !out) FAIL("out of memory");
  for (int wi = 0; wi < r->num_widths; wi++) {
    int n = r->widths[wi];
    weft_buffer *bufs[8];
    for (int a = 0; a < r->nargs; a++) {
      for (int l = 0; l < r->lanes; l++)
        bs_put(in, r->bytes[a], bs_slot(l, n), r->args[a][l]);
      bufs[a] = support_buffer(ctx, in_size, in);
    }
    bufs[r->nargs] = support_buffer(ctx, (size_t)r->nout * r->region, NULL);
    char name[64];
    snprintf(name, sizeof name, "%s%d", r->prefix, n);
    bs_launch(p, name, (size_t)(r->lanes / n), bufs, r->nargs + 1);
    CHECK_OK(weft_buffer_read(bufs[r->nargs], 0, (size_t)r->nout * r->region, out),
             bufs[r->nargs]);
    for (int a = 0; a <= r->nargs; a++) weft_buffer_release(bufs[a]);
    r->check(n, out, r->data);
  }
  free(in);
  free(out);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* The float (or, when is_double, double) whose bits are bits. */
static inline double bs_from_bits(int is_double, uint64_t bits) {
  if (is_double) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
  }
  uint32_t u = (uint32_t)bits;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* The bits of v rounded to float or, when is_double, to double. */
static inline uint64_t bs_to_bits(int is_double, long double v) {
  if (is_double) {
    double d = (double)v;
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
  }
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

/* The value v rounded to the type. */
static inline double bs_rounded(int is_double, long double v) {
  return is_double ? (double)v : (double)(float)v;
}

/* The error of got in units in the last place of want in the type. */
static inline double bs_ulp_error(int is_double, double got, long double want) {
  if (isnan(got) || isnan(want)) return isnan(got) && isnan(want) ? 0 : INFINITY;
  double w = bs_rounded(is_double, want);
  if (isinf(w) || isinf(got)) return got == w ? 0 : INFINITY;
  int e;
  frexpl(fabsl(want), &e);
  int emin = is_double ? -1021 : -125, digits = is_double ? 53 : 24;
  if (want == 0 || e < emin) e = emin;
  return (double)(fabsl((long double)got - want) / ldexpl(1, e - digits));
}

/* The start of a kernel that calls every declaration of a family: each
 * call is USE(expression), which stores the value so it is kept. End it
 * with "}" and bs_build_and_free. */
static inline void bs_begin_every_declaration(bs_text *text) {
  bs_append(text,
            "#define USE(v) (*(__global __typeof__(v) *)(o += 64) = (v))\n"
            "__kernel void k(__global char *o, __global const char *in) {\n");
}

/* Builds the program text holds, which must build and link (a test that
 * every declaration of a family has a definition), and frees the text. */
static inline void bs_build_and_free(bs_text *text) {
  weft_context *ctx = support_context();
  weft_program_release(support_build(ctx, text->s, "-cl-std=CL3.0"));
  weft_context_release(ctx);
  free(text->s);
}

#endif
