/* test_stride_loops.c: grid-stride loops, which the GPU's compiler
 * unrolls by four with their addresses stepped as pointers
 * (jit/ptx/ptx_stride_loops.c, ptx_loop_pointers.c), give the results of
 * the loops as written: int and size_t counters, strides and offsets of
 * either sign, loads and stores, trip counts of 0 to many and not a
 * multiple of four, and an index the pointers must leave alone. Run on
 * the default device (the GPU with WEFT_DEVICE=cuda). */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

#include "support.h"

static const char *source =
    /* CLBlast's Xdot, each work-item's sum kept. */
    "kernel void dot(int n, const global float *restrict x, int xo,\n"
    "                int xi, const global float *restrict y, int yo,\n"
    "                int yi, global float *out) {\n"
    "  float acc = 0;\n"
    "  int groups = get_num_groups(0);\n"
    "  int id = (int)get_group_id(0) * 64 + (int)get_local_id(0);\n"
    "  while (id < n) {\n"
    "    acc = fma(x[id * xi + xo], y[id * yi + yo], acc);\n"
    "    id += 64 * groups;\n"
    "  }\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n"
    /* A store a turn, through the same indices. */
    "kernel void axpy(int n, float a, const global float *x, int xi,\n"
    "                 int xo, global float *y, int yi, int yo) {\n"
    "  int stride = get_global_size(0);\n"
    "  for (int i = get_global_id(0); i < n; i += stride)\n"
    "    y[i * yi + yo] += a * x[i * xi + xo];\n"
    "}\n"
    /* A 64-bit counter, and the counter's own value summed. */
    "kernel void wide(long n, const global float *x, global float *out) {\n"
    "  float acc = 0;\n"
    "  long stride = get_global_size(0);\n"
    "  for (long i = get_global_id(0); i < n; i += stride)\n"
    "    acc += x[2 * i + 1] + (float)(i & 7);\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n"
    /* An index that is not linear in the counter. */
    "kernel void squares(int n, const global float *x, global float *out) {\n"
    "  float acc = 0;\n"
    "  int stride = get_global_size(0);\n"
    "  for (int i = get_global_id(0); i < n; i += stride)\n"
    "    acc += x[(i * i) % n];\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n";

enum { GROUPS = 6, LOCAL = 64, ITEMS = GROUPS * LOCAL };

/* One context and program for the process's tests. */
static weft_context *context(void) {
  static weft_context *ctx;
  if (!ctx) ctx = support_context();
  return ctx;
}

static weft_kernel *kernel(const char *name) {
  static weft_program *p;
  if (!p) p = support_build(context(), source, NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, name, &k), p);
  return k;
}

/* Small whole numbers: every sum is exact, in any order. */
static float *numbers(size_t count, unsigned seed) {
  float *v = malloc(count * sizeof *v);
  CHECK(v != NULL);
  for (size_t i = 0; i < count; i++) v[i] = (float)((i * 7 + seed) % 13) - 6;
  return v;
}

/* Sets k's arguments in order, one of kinds' letters each: 'i' an int,
 * 'f' a float (passed as double), 'b' a weft_buffer *; '_' one the
 * caller sets. */
static void set_args(weft_kernel *k, const char *kinds, ...) {
  va_list ap;
  va_start(ap, kinds);
  for (unsigned i = 0; kinds[i]; i++) {
    int n;
    float f;
    switch (kinds[i]) {
    case 'i':
      n = va_arg(ap, int);
      CHECK_OK(weft_kernel_set_arg_value(k, i, &n, sizeof n), k);
      break;
    case 'f':
      f = (float)va_arg(ap, double);
      CHECK_OK(weft_kernel_set_arg_value(k, i, &f, sizeof f), k);
      break;
    case '_':
      break;
    default:
      CHECK_OK(weft_kernel_set_arg_buffer(k, i, va_arg(ap, weft_buffer *)), k);
    }
  }
  va_end(ap);
}

static void launch(weft_kernel *k) {
  size_t global = ITEMS, local = LOCAL;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
}

static void read_floats(weft_buffer *b, float *into, size_t count) {
  CHECK_OK(weft_buffer_read(b, 0, count * sizeof *into, into), b);
}

/* dot over n elements with strides xi, yi and offsets xo, yo. */
static void check_dot(int n, int xi, int xo, int yi, int yo) {
  weft_context *ctx = context();
  size_t span = (size_t)(n ? n : 1) * (size_t)(abs(xi) + abs(yi) + 1) +
                (size_t)xo + (size_t)yo;
  float *x = numbers(span, 1), *y = numbers(span, 5), got[ITEMS];
  weft_buffer *bx = support_buffer(ctx, span * sizeof *x, x);
  weft_buffer *by = support_buffer(ctx, span * sizeof *y, y);
  weft_buffer *out = support_buffer(ctx, sizeof got, NULL);
  weft_kernel *k = kernel("dot");
  set_args(k, "ibiibiib", n, bx, xo, xi, by, yo, yi, out);
  launch(k);
  read_floats(out, got, ITEMS);
  for (int item = 0; item < ITEMS; item++) {
    float want = 0;
    for (int id = item; id < n; id += ITEMS)
      want += x[id * xi + xo] * y[id * yi + yo];
    if (got[item] != want)
      FAIL("dot n=%d x*%d+%d y*%d+%d: item %d got %g, expected %g", n, xi,
           xo, yi, yo, item, got[item], want);
  }
  weft_kernel_release(k);
  weft_buffer_release(bx);
  weft_buffer_release(by);
  weft_buffer_release(out);
  free(x);
  free(y);
}

TEST(dot_products_by_every_stride) {
  /* Trip counts of 0, 1, 3, 4, 5 and many a work-item; x read backwards
   * from its end in one. */
  const int sizes[] = {0, 100, ITEMS, 3 * ITEMS + 17, 4 * ITEMS,
                       5 * ITEMS + 1, 41 * ITEMS + 9};
  for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int n = sizes[s];
    check_dot(n, 1, 0, 1, 0);
    check_dot(n, 2, 3, 1, 5);
    check_dot(n, 3, 1, 2, 0);
    check_dot(n, -1, n > 0 ? n - 1 : 0, 1, 0);
  }
}

TEST(axpy_stores_through_stepped_pointers) {
  weft_context *ctx = context();
  const int n = 7 * ITEMS + 5, xi = 2, xo = 1, yi = 3, yo = 2;
  size_t span = (size_t)n * 3 + 3;
  float *x = numbers(span, 2), *y = numbers(span, 9);
  float *got = malloc(span * sizeof *got);
  CHECK(got != NULL);
  weft_buffer *bx = support_buffer(ctx, span * sizeof *x, x);
  weft_buffer *by = support_buffer(ctx, span * sizeof *y, y);
  weft_kernel *k = kernel("axpy");
  float a = 3;
  set_args(k, "ifbiibii", n, (double)a, bx, xi, xo, by, yi, yo);
  launch(k);
  read_floats(by, got, span);
  for (int i = 0; i < n; i++) y[i * yi + yo] += a * x[i * xi + xo];
  for (size_t i = 0; i < span; i++)
    if (got[i] != y[i]) FAIL("y[%zu] = %g, expected %g", i, got[i], y[i]);
  weft_kernel_release(k);
  weft_buffer_release(bx);
  weft_buffer_release(by);
  free(x);
  free(y);
  free(got);
}

/* Runs a kernel of (n, x, out) over x and checks out against want. */
static void check_sums(const char *name, const void *n, size_t n_size,
                       const float *x, size_t count, const float *want) {
  weft_context *ctx = context();
  float got[ITEMS];
  weft_buffer *bx = support_buffer(ctx, count * sizeof *x, x);
  weft_buffer *out = support_buffer(ctx, sizeof got, NULL);
  weft_kernel *k = kernel(name);
  CHECK_OK(weft_kernel_set_arg_value(k, 0, n, n_size), k);
  set_args(k, "_bb", bx, out);
  launch(k);
  read_floats(out, got, ITEMS);
  for (int item = 0; item < ITEMS; item++)
    if (got[item] != want[item])
      FAIL("%s: item %d got %g, expected %g", name, item, got[item],
           want[item]);
  weft_kernel_release(k);
  weft_buffer_release(bx);
  weft_buffer_release(out);
}

TEST(size_t_counters_and_indices_left_alone) {
  int64_t n = 9 * ITEMS + 3;
  float *x = numbers(2 * n + 1, 4), want[ITEMS];
  for (int64_t item = 0; item < ITEMS; item++) {
    want[item] = 0;
    for (int64_t i = item; i < n; i += ITEMS)
      want[item] += x[2 * i + 1] + (float)(i & 7);
  }
  check_sums("wide", &n, sizeof n, x, 2 * n + 1, want);
  int m = 5 * ITEMS + 7;
  for (int item = 0; item < ITEMS; item++) {
    want[item] = 0;
    for (int i = item; i < m; i += ITEMS) want[item] += x[(i * i) % m];
  }
  check_sums("squares", &m, sizeof m, x, 2 * n + 1, want);
  free(x);
}

TEST_MAIN()
