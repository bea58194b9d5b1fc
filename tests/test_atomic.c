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

TEST_MAIN()
