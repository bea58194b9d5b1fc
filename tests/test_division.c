/* test_division.c: integer division and remainder never stop a kernel.
 * OpenCL leaves x / 0, x % 0 and INT_MIN / -1 undefined in value, but the
 * kernel must run to its end; Weft gives RISC-V's values on every device:
 * x / 0 has every bit set, x % 0 is x, INT_MIN / -1 is INT_MIN (wrapped)
 * and INT_MIN % -1 is 0. Every other element is the exact quotient. */
#include <stdint.h>

#include "support.h"

#define N 64

typedef struct itype {
  const char *name;
  int bits, is_signed;
} itype;

static const itype types[] = {
    {"char", 8, 1},  {"uchar", 8, 0}, {"short", 16, 1}, {"ushort", 16, 0},
    {"int", 32, 1},  {"uint", 32, 0}, {"long", 64, 1},  {"ulong", 64, 0},
};

/* Element i of the dividends and divisors, as 64-bit values in range. */
static int64_t dividend(const itype *t, int i) {
  int64_t min = t->is_signed ? (int64_t)((uint64_t)-1 << (t->bits - 1)) : 0;
  switch (i % 4) {
  case 0: return min;          /* INT_MIN (0 unsigned) */
  case 1: return 100 + i;
  case 2: return t->is_signed ? -7 - i : 7 + i;
  default: return i;
  }
}
static int64_t divisor(const itype *t, int i) {
  (void)t;
  switch (i % 8) {
  case 0: case 5: return 0;
  case 1: return -1;           /* all ones unsigned */
  case 2: return 3;
  case 3: return -5;
  default: return i + 1;
  }
}

/* v in t's representation, as the kernel stores it (sign-extended). */
static int64_t wrap(const itype *t, int64_t v) {
  if (t->bits == 64) return v;
  uint64_t u = (uint64_t)v & ((1ull << t->bits) - 1);
  if (t->is_signed && (u >> (t->bits - 1))) return (int64_t)(u - (1ull << t->bits));
  return (int64_t)u;
}

/* What Weft promises for x op d. */
static int64_t expected(const itype *t, int64_t x, int64_t d, int rem) {
  x = wrap(t, x);
  d = wrap(t, d);
  if (d == 0) return rem ? x : wrap(t, -1);
  if (t->is_signed) {
    int64_t min = wrap(t, (int64_t)((uint64_t)1 << (t->bits - 1)));
    if (x == min && d == -1) return rem ? 0 : min;
    return rem ? x % d : x / d;
  }
  uint64_t ux = (uint64_t)x, ud = (uint64_t)d;
  if (t->bits == 64) return (int64_t)(rem ? ux % ud : ux / ud);
  return rem ? (int64_t)(ux % ud) : (int64_t)(ux / ud);
}

/* Each work-item divides with its own operands, as scalars and (for
 * vector width 4) as lanes of a vector, and by a literal 0. */
static const char *source =
    "__kernel void k(__global const long *x, __global const long *d,\n"
    "                __global long *q, __global long *r,\n"
    "                __global long *qv, __global long *rv,\n"
    "                __global long *z) {\n"
    "  size_t i = get_global_id(0);\n"
    "  T a = (T)x[i], b = (T)d[i];\n"
    "  q[i] = a / b;\n"
    "  r[i] = a % b;\n"
    "  if (i % 4 == 0) {\n"
    "    VT va = (VT)((T)x[i], (T)x[i + 1], (T)x[i + 2], (T)x[i + 3]);\n"
    "    VT vb = (VT)((T)d[i], (T)d[i + 1], (T)d[i + 2], (T)d[i + 3]);\n"
    "    VT vq = va / vb, vr = va % vb;\n"
    "    qv[i] = vq.x; qv[i + 1] = vq.y; qv[i + 2] = vq.z; qv[i + 3] = vq.w;\n"
    "    rv[i] = vr.x; rv[i + 1] = vr.y; rv[i + 2] = vr.z; rv[i + 3] = vr.w;\n"
    "  }\n"
    "  z[i] = a / (T)0 + (a % (T)0) * 0;\n"
    "}\n";

static void check_type(weft_context *ctx, const itype *t) {
  char options[64];
  snprintf(options, sizeof options, "-DT=%s -DVT=%s4 -w", t->name, t->name);
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  int64_t x[N], d[N], out[5][N];
  for (int i = 0; i < N; i++) {
    x[i] = dividend(t, i);
    d[i] = divisor(t, i);
  }
  weft_buffer *b[7];
  b[0] = support_buffer(ctx, sizeof x, x);
  b[1] = support_buffer(ctx, sizeof d, d);
  for (int i = 2; i < 7; i++) b[i] = support_buffer(ctx, sizeof x, NULL);
  for (int i = 0; i < 7; i++) CHECK_OK(weft_kernel_set_arg_buffer(k, i, b[i]), k);
  size_t global = N;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  for (int i = 0; i < 5; i++)
    CHECK_OK(weft_buffer_read(b[i + 2], 0, sizeof out[i], out[i]), b[i + 2]);
  /* Scalars narrower than int are promoted to int (C's rules); vector
   * lanes divide in their own type. */
  static const itype int_type = {"int", 32, 1};
  const itype *scalar = t->bits < 32 ? &int_type : t;
  for (int i = 0; i < N; i++) {
    int64_t a = wrap(t, x[i]), b = wrap(t, d[i]);
    int64_t eq = expected(scalar, a, b, 0), er = expected(scalar, a, b, 1);
    int64_t evq = expected(t, a, b, 0), evr = expected(t, a, b, 1);
    int64_t ez = expected(scalar, a, 0, 0);
    if (out[0][i] != eq || out[2][i] != evq || out[1][i] != er ||
        out[3][i] != evr || out[4][i] != ez)
      FAIL("%s %lld / %lld: got q %lld (vector %lld), r %lld (vector %lld), "
           "/0 %lld; expected q %lld (%lld), r %lld (%lld), /0 %lld",
           t->name, (long long)a, (long long)b, (long long)out[0][i],
           (long long)out[2][i], (long long)out[1][i], (long long)out[3][i],
           (long long)out[4][i], (long long)eq, (long long)evq, (long long)er,
           (long long)evr, (long long)ez);
  }
  for (int i = 0; i < 7; i++) weft_buffer_release(b[i]);
  weft_kernel_release(k);
  weft_program_release(p);
}

/* Divisions by work-item sizes, which are not guarded, divide right. */
TEST(divisions_by_sizes) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "__kernel void k(__global ulong *a) {\n"
      "  size_t i = get_global_id(0);\n"
      "  a[i] = (i + 5) % get_global_size(0) * 1000000 +\n"
      "         i / get_local_size(0) * 10000 + i % get_num_groups(0) * 100 +\n"
      "         i / get_enqueued_local_size(0);\n"
      "}\n",
      "-cl-std=CL3.0");
  weft_kernel *k = NULL;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  enum { ITEMS = 60, LOCAL = 6 };
  weft_buffer *b = support_buffer(ctx, ITEMS * 8, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = ITEMS, local = LOCAL;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  uint64_t r[ITEMS];
  CHECK_OK(weft_buffer_read(b, 0, sizeof r, r), b);
  size_t groups = ITEMS / LOCAL;
  for (size_t i = 0; i < ITEMS; i++) {
    uint64_t want = (i + 5) % ITEMS * 1000000 + i / LOCAL * 10000 +
                    i % groups * 100 + i / LOCAL;
    CHECK_EQ(r[i], want);
  }
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(by_zero_and_overflow_go_on) {
  weft_context *ctx = support_context();
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    check_type(ctx, &types[i]);
  weft_context_release(ctx);
}

/* A divisor that is zero in one work-item only, from memory: the others
 * get exact quotients and the launch succeeds (it used to trap). */
TEST(one_work_item_by_zero) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void k(__global int *a) {\n"
                                  "  int d = a[get_global_id(0)] + (get_global_id(0) != 20);\n"
                                  "  a[get_global_id(0)] = 100 / d;\n"
                                  "}\n",
                                  "k");
  weft_buffer *b = support_buffer(ctx, 64 * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 64, local = 16;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[64];
  CHECK_OK(weft_buffer_read(b, 0, sizeof r, r), b);
  for (int i = 0; i < 64; i++) CHECK_EQ(r[i], i == 20 ? -1 : 100);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* The freeze instructions of the guard in the dumped IR of program n. */
static int freezes_in(const char *dir, int n) {
  return support_dumped_ir_lines(dir, n, " freeze ");
}

/* A division by a constant keeps LLVM's cheap form: the guard adds
 * nothing where the divisor cannot be 0; a divisor from an argument is
 * guarded. */
TEST(only_divisors_that_may_trap_are_guarded) {
  CPU_ONLY("reads the CPU's dumped IR");
  char dir[] = "/tmp/weft-division-XXXXXX";
  support_dump_ir_begin(dir);
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx, "__kernel void k(__global int *a) { a[0] = a[1] / 7 + a[2] % 9; }\n",
      NULL);
  weft_program *q = support_build(
      ctx, "__kernel void k(__global int *a, int d) { a[0] = a[1] / d; }\n",
      NULL);
  /* Work-item sizes are never below 1. */
  weft_program *r = support_build(
      ctx,
      "__kernel void k(__global ulong *a) {\n"
      "  size_t i = get_global_id(0);\n"
      "  a[i] = (i + 5) % get_global_size(0) + i / get_local_size(0) +\n"
      "         i % get_num_groups(0) + i / get_enqueued_local_size(0);\n"
      "}\n",
      "-cl-std=CL3.0");
  CHECK_EQ(freezes_in(dir, 0), 0);
  CHECK(freezes_in(dir, 1) > 0);
  CHECK_EQ(freezes_in(dir, 2), 0);
  weft_program_release(p);
  weft_program_release(q);
  weft_program_release(r);
  weft_context_release(ctx);
  support_dump_ir_end(dir);
}

TEST_MAIN()
