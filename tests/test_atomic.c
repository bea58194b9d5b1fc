/* test_atomic.c: OpenCL 1.2 atomics on global and local memory, from work-
 * items on all threads at once. */
#include "support.h"

static const char *source =
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
    "__kernel void all(__global int *g, __global uint *u, __global long *l,\n"
    "                  __global float *f, __global int *cas) {\n"
    "  int i = (int)get_global_id(0);\n"
    "  atomic_add(&g[0], 2);\n"
    "  atomic_sub(&g[1], 1);\n"
    "  atomic_inc(&g[2]);\n"
    "  atomic_dec(&g[3]);\n"
    "  atomic_min(&g[4], -i);\n"
    "  atomic_max(&g[5], i);\n"
    "  atomic_or(&u[0], 1u << (i % 32));\n"
    "  atomic_and(&u[1], ~(1u << (i % 32)));\n"
    "  atomic_xor(&u[2], (uint)i);\n"
    "  atomic_max(&u[3], (uint)i * 3u);\n"
    "  atom_add(&l[0], 1L << 33);\n"
    "  atom_max(&l[1], (long)i << 40);\n"
    "  atomic_xchg(&f[0], 1.5f);\n"
    "  /* A counter built on compare-and-swap, as user spin code does. */\n"
    "  int old, seen = cas[0];\n"
    "  do { old = seen; seen = atomic_cmpxchg(&cas[0], old, old + 1); } while (seen != old);\n"
    "  __local int lc[2];\n"
    "  if (get_local_id(0) == 0) { lc[0] = 0; lc[1] = 0; }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_add(&lc[0], 1);\n"
    "  atom_max(&lc[1], (int)get_local_id(0));\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) { atomic_add(&g[6], lc[0]); atomic_add(&g[7], lc[1]); }\n"
    "}\n";

TEST(every_operation_under_contention) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "all");
  int n = 1 << 16;
  int g0[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  unsigned u0[4] = {0, 0xffffffffu, 0, 0};
  long long l0[2] = {0, 0};
  float f0[1] = {0};
  int c0[1] = {0};
  weft_buffer *g = support_buffer(ctx, sizeof g0, g0);
  weft_buffer *u = support_buffer(ctx, sizeof u0, u0);
  weft_buffer *l = support_buffer(ctx, sizeof l0, l0);
  weft_buffer *f = support_buffer(ctx, sizeof f0, f0);
  weft_buffer *c = support_buffer(ctx, sizeof c0, c0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, g), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, u), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, l), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 3, f), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 4, c), k);
  size_t global = (size_t)n, local = 64;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  CHECK_OK(weft_buffer_read(g, 0, sizeof g0, g0), g);
  CHECK_OK(weft_buffer_read(u, 0, sizeof u0, u0), u);
  CHECK_OK(weft_buffer_read(l, 0, sizeof l0, l0), l);
  CHECK_OK(weft_buffer_read(f, 0, sizeof f0, f0), f);
  CHECK_OK(weft_buffer_read(c, 0, sizeof c0, c0), c);
  CHECK_EQ(g0[0], 2 * n);
  CHECK_EQ(g0[1], -n);
  CHECK_EQ(g0[2], n);
  CHECK_EQ(g0[3], -n);
  CHECK_EQ(g0[4], -(n - 1));
  CHECK_EQ(g0[5], n - 1);
  CHECK_EQ(g0[6], n);
  CHECK_EQ(g0[7], (n / 64) * 63);
  CHECK_EQ(u0[0], 0xffffffffu);
  CHECK_EQ(u0[1], 0);
  CHECK_EQ(u0[2], 0); /* xor of 0..2^16-1 */
  CHECK_EQ(u0[3], (unsigned)(n - 1) * 3u);
  CHECK_EQ(l0[0], (long long)n << 33);
  CHECK_EQ(l0[1], (long long)(n - 1) << 40);
  CHECK(f0[0] == 1.5f);
  CHECK_EQ(c0[0], n);
  weft_buffer_release(g);
  weft_buffer_release(u);
  weft_buffer_release(l);
  weft_buffer_release(f);
  weft_buffer_release(c);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* The 64-bit atom_* functions, and every 1.x function on __local memory
 * in 32 and 64 bits: each group works on its own local copies, and the
 * first work-item writes them out after a barrier. */
static const char *wide_source =
    "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
    "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n"
    "#define OPS(L, U, i, inc, dec, xchg, cmpxchg, add, sub, min, max, and, or,"
    " xor, ST, UT, B)\\\n"
    "  r[i] = inc(&L[0]);                                   \\\n"
    "  sub(&L[1], (ST)i);                                   \\\n"
    "  dec(&L[2]);                                          \\\n"
    "  min(&L[3], -((ST)i << (B - 16)));                    \\\n"
    "  max(&L[4], (ST)i << (B - 16));                       \\\n"
    "  x[i] = xchg(&L[5], (ST)i + 1);                       \\\n"
    "  { ST old, seen = L[6];                               \\\n"
    "    do { old = seen; seen = cmpxchg(&L[6], old, old + 3); } while (seen != old); } \\\n"
    "  add(&L[7], (ST)1 << (B - 8));                        \\\n"
    "  and(&U[0], ~((UT)1 << (i % B)));                     \\\n"
    "  or(&U[1], (UT)1 << (i % B));                         \\\n"
    "  xor(&U[2], (UT)i << (B - 16));                       \\\n"
    "  min(&U[3], (UT)i + 5);                               \\\n"
    "  max(&U[4], (UT)i << (B - 16));                       \\\n"
    "  inc(&U[5]); dec(&U[6]); sub(&U[7], (UT)3);           \\\n"
    "  add(&U[8], (UT)2); xchg(&U[9], (UT)7);               \\\n"
    "  cmpxchg(&U[10], (UT)0, (UT)i + 1);\n"
    "#define ALL(L, U, i, P, ST, UT, B) OPS(L, U, i, P##_inc, P##_dec, "
    "P##_xchg, P##_cmpxchg, P##_add, P##_sub, P##_min, P##_max, P##_and, "
    "P##_or, P##_xor, ST, UT, B)\n"
    "__kernel void wide(__global long *gs, __global ulong *gu,\n"
    "                   __global long *out, __global int *out32,\n"
    "                   __global long *lr, __global long *lx,\n"
    "                   __global int *lr32, __global int *lx32,\n"
    "                   __global float *fx) {\n"
    "  __local long ls[8];\n"
    "  __local ulong lu[11];\n"
    "  __local int is[8];\n"
    "  __local uint iu[11];\n"
    "  __local float f;\n"
    "  size_t gid = get_global_id(0), l = get_local_id(0);\n"
    "  size_t g = get_group_id(0), n = get_local_size(0);\n"
    "  if (l == 0) {\n"
    "    for (int k = 0; k < 8; k++) ls[k] = is[k] = 0;\n"
    "    for (int k = 0; k < 11; k++) lu[k] = iu[k] = 0;\n"
    "    lu[0] = ~0ul; iu[0] = ~0u; lu[3] = iu[3] = 1000000;\n"
    "    f = -1.0f;\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  { __global long *r = lr + g * n, *x = lx + g * n;\n"
    "    ALL(ls, lu, l, atom, long, ulong, 64) }\n"
    "  { __global int *r = lr32 + g * n, *x = lx32 + g * n;\n"
    "    ALL(is, iu, l, atomic, int, uint, 32) }\n"
    "  fx[gid] = atomic_xchg(&f, (float)l);\n"
    "  { __global long *r = out, *x = out + get_global_size(0);\n"
    "    ALL(gs, gu, gid, atom, long, ulong, 64) }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) {\n"
    "    for (int k = 0; k < 8; k++) out32[g * 40 + k] = (int)(ls[k] >> 32) ^ (int)ls[k];\n"
    "    for (int k = 0; k < 11; k++) out32[g * 40 + 8 + k] = (int)(lu[k] >> 32) ^ (int)lu[k];\n"
    "    for (int k = 0; k < 8; k++) out32[g * 40 + 19 + k] = is[k];\n"
    "    for (int k = 0; k < 11; k++) out32[g * 40 + 27 + k] = (int)iu[k];\n"
    "    out32[g * 40 + 38] = (int)f;\n"
    "  }\n"
    "}\n";

/* Expected finals of OPS over items 0..n-1 for B-bit values, folded to an
 * int as the kernel folds them (high half xor low half). */
static void expect_ops(int bits, uint64_t n, int32_t *s, int32_t *u) {
  uint64_t mask = bits == 64 ? ~0ull : 0xffffffffull;
  uint64_t S[8] = {n, (uint64_t)-(int64_t)(n * (n - 1) / 2), (uint64_t)-(int64_t)n,
                   (uint64_t)-(int64_t)((n - 1) << (bits - 16)),
                   (n - 1) << (bits - 16), 0, 3 * n, n << (bits - 8)};
  uint64_t U[11] = {n >= (uint64_t)bits ? 0 : ~0ull, 0, 0, 5, (n - 1) << (bits - 16),
                    n, (uint64_t)-(int64_t)n, (uint64_t)-(int64_t)(3 * n), 2 * n, 7, 0};
  for (uint64_t i = 0; i < n; i++) {
    if (n < (uint64_t)bits) U[0] &= ~(1ull << i);
    U[1] |= 1ull << (i % (uint64_t)bits);
    U[2] ^= i << (bits - 16);
  }
  for (int k = 0; k < 11; k++) {
    uint64_t v = U[k] & mask;
    u[k] = bits == 64 ? (int32_t)((v >> 32) ^ (v & 0xffffffffu)) : (int32_t)v;
    if (k < 8) {
      v = S[k] & mask;
      s[k] = bits == 64 ? (int32_t)((v >> 32) ^ (v & 0xffffffffu)) : (int32_t)v;
    }
  }
}

/* values[0..n) are first..first+n-1 in some order. */
static void check_permutation(const long long *values, size_t n,
                              long long first) {
  unsigned char *seen = calloc(n, 1);
  for (size_t i = 0; i < n; i++) {
    long long v = values[i] - first;
    CHECK(v >= 0 && v < (long long)n && !seen[v]);
    seen[v] = 1;
  }
  free(seen);
}

static void run_wide(const char *options, size_t global, size_t local) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, wide_source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "wide", &k), p);
  weft_program_release(p);
  size_t groups = global / local;
  long long gs0[8] = {0}, gu0[11] = {0};
  gu0[0] = -1;
  gu0[3] = 1000000;
  size_t sizes[9] = {sizeof gs0, sizeof gu0, 2 * global * 8, groups * 40 * 4,
                     global * 8, global * 8, global * 4, global * 4, global * 4};
  const void *init[9] = {gs0, gu0};
  weft_buffer *b[9];
  for (int a = 0; a < 9; a++) {
    b[a] = support_buffer(ctx, sizes[a], init[a]);
    CHECK_OK(weft_kernel_set_arg_buffer(k, a, b[a]), k);
  }
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  void *r[9];
  for (int a = 0; a < 9; a++) {
    r[a] = malloc(sizes[a]);
    CHECK_OK(weft_buffer_read(b[a], 0, sizes[a], r[a]), b[a]);
  }
  /* Global 64-bit: results of atom_inc and atom_xchg, and the finals. */
  long long *out = r[2];
  check_permutation(out, global, 0);
  long long *xchg = malloc((global + 1) * 8);
  memcpy(xchg, out + global, global * 8);
  xchg[global] = ((long long *)r[0])[5];
  check_permutation(xchg, global + 1, 0);
  int32_t s[8], u[11];
  expect_ops(64, global, s, u);
  for (int i = 0; i < 8; i++) {
    uint64_t v = (uint64_t)((long long *)r[0])[i];
    if (i != 5) CHECK_EQ((int32_t)((v >> 32) ^ (v & 0xffffffffu)), s[i]);
  }
  for (int i = 0; i < 10; i++) {
    uint64_t v = (uint64_t)((long long *)r[1])[i];
    CHECK_EQ((int32_t)((v >> 32) ^ (v & 0xffffffffu)), u[i]);
  }
  CHECK(((long long *)r[1])[10] >= 1 && ((long long *)r[1])[10] <= (long long)global);
  /* Local, per group, in 64 and 32 bits. */
  int *o32 = r[3];
  for (size_t g = 0; g < groups; g++) {
    int32_t s32[8], u32[11];
    expect_ops(64, local, s, u);
    expect_ops(32, local, s32, u32);
    int *o = o32 + g * 40;
    for (int i = 0; i < 8; i++) {
      if (i == 5) continue;
      CHECK_EQ(o[i], s[i]);
      CHECK_EQ(o[19 + i], s32[i]);
    }
    for (int i = 0; i < 10; i++) {
      CHECK_EQ(o[8 + i], u[i]);
      CHECK_EQ(o[27 + i], u32[i]);
    }
    CHECK(o[18] >= 1 && o[18] <= (int)local);
    CHECK(o[37] >= 1 && o[37] <= (int)local);
    long long *lr = (long long *)r[4] + g * local, *lx = (long long *)r[5] + g * local;
    check_permutation(lr, local, 0);
    memcpy(xchg, lx, local * 8);
    xchg[local] = o[5]; /* the value left: small, so its fold is itself */
    check_permutation(xchg, local + 1, 0);
    long long *p32 = malloc((local + 1) * 8);
    for (size_t i = 0; i < local; i++) p32[i] = ((int *)r[6])[g * local + i];
    check_permutation(p32, local, 0);
    for (size_t i = 0; i < local; i++) p32[i] = ((int *)r[7])[g * local + i];
    p32[local] = o[19 + 5];
    check_permutation(p32, local + 1, 0);
    for (size_t i = 0; i < local; i++) p32[i] = (long long)((float *)r[8])[g * local + i] + 1;
    p32[local] = o[38] + 1;
    check_permutation(p32, local + 1, 0);
    free(p32);
  }
  free(xchg);
  for (int a = 0; a < 9; a++) {
    free(r[a]);
    weft_buffer_release(b[a]);
  }
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(atom_64_bit_and_local) {
  run_wide("-cl-std=CL1.2", 1 << 14, 64);
  run_wide("-cl-std=CL3.0", 1 << 12, 256);
  run_wide("", 96, 1);
  run_wide("", 3 * 100, 100);
}

TEST_MAIN()
