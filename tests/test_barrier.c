/* test_barrier.c: barrier() however the device runs it (regions, fibers,
 * a GPU's bar.sync): results, group sizes, barriers in loops, callees and
 * three dimensions, private state across barriers (per work-item, and
 * once per group where every work-item holds the same), and divergence
 * reports. */
#include "support.h"

/* Reverses each group's ids through local memory: a barrier separates the
 * writes from the reads of other work-items' values. */
static const char *reverse_source =
    "__kernel void reverse(__global int *out, __local int *tmp) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = (int)get_global_id(0);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tmp[n - 1 - l];\n"
    "}\n";

static void run_reverse(size_t global, size_t local) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, reverse_source, "reverse");
  weft_buffer *out = support_buffer(ctx, global * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, local * 4), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int *r = malloc(global * 4);
  CHECK_OK(weft_buffer_read(out, 0, global * 4, r), out);
  for (size_t i = 0; i < global; i++) {
    size_t base = i / local * local;
    CHECK_EQ(r[i], base + local - 1 - (i - base));
  }
  free(r);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(straight_code) { run_reverse(256, 64); }

TEST(group_sizes_one_to_max) {
  static const size_t sizes[] = {1, 2, 3, 7, 64, 255, 1024, 4096};
  size_t most = support_device_info().max_work_group_size;
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
    if (sizes[i] <= most) run_reverse(sizes[i] * 3, sizes[i]);
}

TEST(many_groups_many_threads) { run_reverse(1 << 16, 64); }

/* Rotates values around the group steps times: two barriers per step. */
TEST(in_loop) {
  static const char *source =
      "__kernel void rotate(__global int *out, __local int *a, int steps) {\n"
      "  size_t l = get_local_id(0), n = get_local_size(0);\n"
      "  a[l] = (int)get_global_id(0);\n"
      "  for (int s = 0; s < steps; s++) {\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "    int v = a[(l + 1) % n];\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "    a[l] = v;\n"
      "  }\n"
      "  out[get_global_id(0)] = a[l];\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "rotate");
  size_t global = 1024, local = 32;
  int steps = 45;
  weft_buffer *out = support_buffer(ctx, global * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, local * 4), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 2, &steps, sizeof steps), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[1024];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  for (size_t i = 0; i < global; i++)
    CHECK_EQ(r[i], i / local * local + (i % local + steps) % local);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Reads after a barrier: of memory only read (restrict const), which
 * the GPU's compiler issues above the barrier (ptx_barrier_loads.c), and
 * of global memory other work-items wrote before it, which must see their
 * writes (rows 16 at a time of a matrix, through __local x; then the
 * same rows written by the group before the barrier). */
static const char *rows_source =
    "__kernel void rows(const __global float *restrict a, int ld,\n"
    "                   const __global float *restrict x,\n"
    "                   __global float *y, int n) {\n"
    "  __local float xl[16];\n"
    "  int gid = get_global_id(0), lid = get_local_id(0);\n"
    "  float acc = 0;\n"
    "  for (int k = 0; k < n; k += 16) {\n"
    "    if (lid < 16) xl[lid] = x[k + lid];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    #pragma unroll\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      acc = fma(a[ld * (k + c) + gid], xl[c], acc);\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  y[gid] = acc;\n"
    "}\n"
    "__kernel void written_rows(__global float *a, int ld,\n"
    "                           const __global float *restrict x,\n"
    "                           __global float *y, int n) {\n"
    "  int gid = get_global_id(0), lid = get_local_id(0);\n"
    "  int size = get_local_size(0), first = gid - lid;\n"
    "  float acc = 0;\n"
    "  for (int k = 0; k < n; k += 16) {\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      a[ld * (k + c) + first + (lid + 1) % size] += 1.0f;\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "    #pragma unroll\n"
    "    for (int c = 0; c < 16; c++)\n"
    "      acc = fma(a[ld * (k + c) + gid], x[k + c], acc);\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  }\n"
    "  y[gid] = acc;\n"
    "}\n";

static void run_rows(const char *name, float added) {
  enum { N = 64, LD = 256, LOCAL = 64 };
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, rows_source, name);
  float *a = malloc(N * LD * sizeof *a), x[N], y[LD];
  for (int i = 0; i < N * LD; i++) a[i] = (float)(i % 7) - 3;
  for (int i = 0; i < N; i++) x[i] = (float)(i % 5) - 2;
  weft_buffer *ba = support_buffer(ctx, N * LD * sizeof *a, a);
  weft_buffer *bx = support_buffer(ctx, sizeof x, x);
  weft_buffer *by = support_buffer(ctx, sizeof y, NULL);
  int ld = LD, n = N;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, ba), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &ld, sizeof ld), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, bx), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 3, by), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 4, &n, sizeof n), k);
  size_t global = LD, local = LOCAL;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  CHECK_OK(weft_buffer_read(by, 0, sizeof y, y), by);
  for (int col = 0; col < LD; col++) {
    float want = 0;
    for (int r = 0; r < N; r++) want += (a[r * LD + col] + added) * x[r];
    if (y[col] != want) FAIL("%s: y[%d] = %g, expected %g", name, col, y[col], want);
  }
  weft_buffer_release(ba);
  weft_buffer_release(bx);
  weft_buffer_release(by);
  weft_kernel_release(k);
  weft_context_release(ctx);
  free(a);
}

TEST(reads_after_a_barrier) {
  run_rows("rows", 0.0f);
  run_rows("written_rows", 1.0f);
}

/* The barrier sits in a function the kernel calls. */
TEST(in_callee) {
  static const char *source =
      "void exchange(__local int *a, size_t l, size_t n, int v, int *got) {\n"
      "  a[l] = v;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  *got = a[n - 1 - l];\n"
      "}\n"
      "__kernel void k(__global int *out) {\n"
      "  __local int a[16];\n"
      "  int got;\n"
      "  exchange(a, get_local_id(0), get_local_size(0), get_global_id(0), &got);\n"
      "  out[get_global_id(0)] = got;\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "k");
  size_t global = 64, local = 16;
  weft_buffer *out = support_buffer(ctx, global * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[64];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  for (int i = 0; i < 64; i++) CHECK_EQ(r[i], i / 16 * 16 + 15 - i % 16);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* 4 KiB of private data per work-item, written before a barrier and read
 * after two: each fiber's stack keeps its own. */
TEST(private_array_survives) {
  static const char *source =
      "__kernel void priv(__global int *out, int salt) {\n"
      "  int p[1024];\n"
      "  int l = (int)get_local_id(0);\n"
      "  for (int i = 0; i < 1024; i++) p[i] = i * salt + l;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int s = 0;\n"
      "  for (int i = 0; i < 1024; i++) s += p[(i * 7 + l) % 1024];\n"
      "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = s;\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "priv");
  size_t global = 512, local = 128;
  int salt = 3;
  weft_buffer *out = support_buffer(ctx, global * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &salt, sizeof salt), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[512];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  for (size_t i = 0; i < global; i++)
    CHECK_EQ(r[i], salt * (1024 * 1023 / 2) + 1024 * (int)(i % local));
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A 3-D group: transposes a 4x4x4 block through local memory. */
TEST(three_dims) {
  static const char *source =
      "__kernel void t(__global int *out) {\n"
      "  __local int a[4][4][4];\n"
      "  size_t x = get_local_id(0), y = get_local_id(1), z = get_local_id(2);\n"
      "  a[z][y][x] = (int)(x + 10 * y + 100 * z + 1000 * get_group_id(0));\n"
      "  work_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0) + 8 * (get_global_id(1) + 4 * get_global_id(2))] ="
      "      a[x][y][z];\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "t", &k), p);
  size_t global[] = {8, 4, 4}, local[] = {4, 4, 4};
  weft_buffer *out = support_buffer(ctx, 128 * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 3, NULL, global, local), k);
  int r[128];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  for (int z = 0; z < 4; z++)
    for (int y = 0; y < 4; y++)
      for (int gx = 0; gx < 8; gx++) {
        int x = gx % 4, group = gx / 4;
        CHECK_EQ(r[gx + 8 * (y + 4 * z)], z + 10 * y + 100 * x + 1000 * group);
      }
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* One kernel calls another that holds the barrier and a __local array. */
TEST(kernel_calls_kernel) {
  static const char *source =
      "__kernel void inner(__global int *out) {\n"
      "  __local int a[8];\n"
      "  a[get_local_id(0)] = (int)get_local_id(0);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] += a[7 - get_local_id(0)];\n"
      "}\n"
      "__kernel void outer(__global int *out) {\n"
      "  out[get_global_id(0)] = 100;\n"
      "  inner(out);\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "outer");
  size_t global = 16, local = 8;
  weft_buffer *out = support_buffer(ctx, 64, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[16];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  for (int i = 0; i < 16; i++) CHECK_EQ(r[i], 100 + 7 - i % 8);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Runs kernel "k" over 256 work-items in groups of 32 with one int output
 * per work-item, and checks out[i] == expected(i). */
static void run_and_check(const char *source, const char *options,
                          int (*expected)(int)) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  size_t global = 256, local = 32;
  weft_buffer *out = support_buffer(ctx, global * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[256];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  for (int i = 0; i < 256; i++)
    if (r[i] != expected(i)) FAIL("out[%d] = %d, expected %d", i, r[i], expected(i));
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* Private arrays, a vector array read as floats and a struct, all
 * across barriers, written through a pointer that is one array or the
 * other and read directly: each object's accesses are told apart from
 * the others' (regions.c gives each its own no-alias scope), never from
 * its own through another path. The host runs the same code. */
static int expect_objects(int item) {
  int l = item % 32, a[4], b[4], x[3], y = l * 3, sum = 0;
  float f[8];
  for (int i = 0; i < 4; i++) {
    a[i] = l + i;
    b[i] = 10 * l - i;
    f[i] = (float)(l + i);
    f[4 + i] = 2.0f * (float)(l + i);
  }
  for (int i = 0; i < 3; i++) x[i] = l ^ i;
  a[l & 3] = 100 + l;
  int *p = (l & 1) ? a : b;
  for (int i = 0; i < 4; i++) p[(i + l) & 3] += (31 - l) * 5 + i;
  int seen = a[l & 3] * 11 + b[l & 3];
  for (int i = 0; i < 8; i++) f[(i * 3 + l) & 7] += (float)a[i & 3];
  x[l % 3] += b[l & 3] + y;
  for (int i = 0; i < 4; i++) sum += a[i] * 3 + b[i] * 5;
  for (int i = 0; i < 8; i++) sum += (int)f[i] * (i + 1);
  for (int i = 0; i < 3; i++) sum += x[i] * 7;
  return sum + y + seen;
}

TEST(private_objects_kept_apart_across_barriers) {
  run_and_check("typedef struct { int x[3]; int y; } pair_t;\n"
                "__kernel void k(__global int *out) {\n"
                "  __local int t[32];\n"
                "  int l = (int)get_local_id(0);\n"
                "  int a[4], b[4];\n"
                "  float4 v[2];\n"
                "  pair_t s;\n"
                "  for (int i = 0; i < 4; i++) { a[i] = l + i; b[i] = 10 * l - i; }\n"
                "  v[0] = (float4)(l, l + 1, l + 2, l + 3);\n"
                "  v[1] = v[0] * 2.0f;\n"
                "  s.y = l * 3;\n"
                "  for (int i = 0; i < 3; i++) s.x[i] = l ^ i;\n"
                "  t[l] = l * 5;\n"
                "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                "  a[l & 3] = 100 + l;\n"
                "  int *p = (l & 1) ? a : b;\n"
                "  for (int i = 0; i < 4; i++) p[(i + l) & 3] += t[31 - l] + i;\n"
                "  int seen = a[l & 3] * 11 + b[l & 3];\n"
                "  float *f = (float *)v;\n"
                "  for (int i = 0; i < 8; i++) f[(i * 3 + l) & 7] += (float)a[i & 3];\n"
                "  s.x[l % 3] += b[l & 3] + s.y;\n"
                "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                "  int sum = 0;\n"
                "  for (int i = 0; i < 4; i++) sum += a[i] * 3 + b[i] * 5;\n"
                "  for (int i = 0; i < 8; i++) sum += (int)f[i] * (i + 1);\n"
                "  for (int i = 0; i < 3; i++) sum += s.x[i] * 7;\n"
                "  out[get_global_id(0)] = sum + s.y + seen;\n"
                "}\n",
                NULL, expect_objects);
}

/* Odd groups take a barrier that even groups skip: uniform within a
 * group, so allowed. */
static int expect_uniform_branch(int i) {
  int g = i / 32, l = i % 32;
  return g % 2 ? g * 32 + 31 - l : -1;
}

TEST(barrier_under_uniform_condition) {
  run_and_check("__kernel void k(__global int *out) {\n"
                "  __local int a[32];\n"
                "  size_t l = get_local_id(0);\n"
                "  int v = -1;\n"
                "  if (get_group_id(0) % 2) {\n"
                "    a[l] = (int)get_global_id(0);\n"
                "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                "    v = a[31 - l];\n"
                "  }\n"
                "  out[get_global_id(0)] = v;\n"
                "}\n",
                NULL, expect_uniform_branch);
}

/* Group 0 returns before the barrier; the others pass it. */
static int expect_early_return(int i) { return i < 32 ? 0 : 1000 + (i / 32) * 32 + 31 - i % 32; }

TEST(uniform_early_return) {
  run_and_check("__kernel void k(__global int *out) {\n"
                "  __local int a[32];\n"
                "  if (get_group_id(0) == 0) return;\n"
                "  a[get_local_id(0)] = (int)get_global_id(0);\n"
                "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                "  out[get_global_id(0)] = 1000 + a[31 - get_local_id(0)];\n"
                "}\n",
                NULL, expect_early_return);
}

/* Vectors, doubles, 64-bit integers and a pointer into a private array
 * all live across two barriers. */
static int expect_live_values(int i) { return 4 * i + 6 + 2 * i + (i + 7) + 3 * i + 5; }

TEST(values_of_every_kind_cross_barriers) {
  run_and_check("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                "__kernel void k(__global int *out) {\n"
                "  int i = (int)get_global_id(0);\n"
                "  float4 v = (float4)(i, i + 1, i + 2, i + 3);\n"
                "  double d = 2.0 * i;\n"
                "  long big = (long)i + (7L << 40);\n"
                "  int arr[8];\n"
                "  for (int j = 0; j < 8; j++) arr[j] = i * j;\n"
                "  int *p = &arr[3];\n"
                "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                "  arr[5] = 5;\n"
                "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                "  out[i] = (int)(v.x + v.y + v.z + v.w) + (int)d +\n"
                "           (int)(big - (7L << 40)) + 7 + *p + arr[5];\n"
                "}\n",
                NULL, expect_live_values);
}

/* ---- values all work-items hold alike, kept once per group (regions) */

/* A reduction's halving counter, and a count, a long, a float and a
 * float4 that change with it: every work-item of a region reads the
 * region's value, although earlier ones of it have written the next. */
TEST(uniform_values_cross_barriers) {
  static const char *source =
      "__kernel void k(__global long *out, __global float *sums,\n"
      "                __local float *a) {\n"
      "  size_t l = get_local_id(0), n = get_local_size(0);\n"
      "  long g = (long)get_group_id(0);\n"
      "  a[l] = (float)(get_global_id(0) % 7);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int steps = 0;\n"
      "  long big = g;\n"
      "  float f = 1.0f;\n"
      "  float4 v = (float4)(g);\n"
      "  for (uint s = n / 2; s > 0; s >>= 1) {\n"
      "    if (l < s) a[l] += a[l + s];\n"
      "    steps++;\n"
      "    big = big * 3 + s;\n"
      "    f *= 1.5f;\n"
      "    v += (float4)(1, 2, 3, s);\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "  size_t i = get_global_id(0);\n"
      "  out[4 * i] = steps + (long)l * 100;\n"
      "  out[4 * i + 1] = big;\n"
      "  out[4 * i + 2] = (long)f;\n"
      "  out[4 * i + 3] = (long)(v.x + v.y + v.z + v.w);\n"
      "  if (l == 0) sums[get_group_id(0)] = a[0];\n"
      "}\n";
  static const size_t locals[] = {1, 2, 64, 256};
  for (size_t c = 0; c < sizeof locals / sizeof *locals; c++) {
    size_t local = locals[c], global = local * 8, groups = 8;
    weft_context *ctx = support_context();
    weft_kernel *k = support_kernel(ctx, source, "k");
    weft_buffer *out = support_buffer(ctx, global * 4 * 8, NULL);
    weft_buffer *sums = support_buffer(ctx, groups * 4, NULL);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 1, sums), k);
    CHECK_OK(weft_kernel_set_arg_local(k, 2, local * 4), k);
    CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
    int64_t *r = malloc(global * 4 * 8);
    float got[8];
    CHECK_OK(weft_buffer_read(out, 0, global * 4 * 8, r), out);
    CHECK_OK(weft_buffer_read(sums, 0, sizeof got, got), sums);
    for (size_t g = 0; g < groups; g++) {
      int64_t steps = 0, big = (int64_t)g, v = 4 * (int64_t)g;
      float f = 1.0f, sum = 0.0f;
      for (size_t s = local / 2; s > 0; s >>= 1) {
        steps++;
        big = big * 3 + (int64_t)s;
        f *= 1.5f;
        v += 6 + (int64_t)s;
      }
      for (size_t i = 0; i < local; i++) sum += (float)((g * local + i) % 7);
      CHECK_EQ(got[g], sum);
      for (size_t l = 0; l < local; l++) {
        const int64_t *item = r + 4 * (g * local + l);
        if (item[0] != steps + (int64_t)l * 100 || item[1] != big ||
            item[2] != (int64_t)f || item[3] != v)
          FAIL("group size %zu, work-item %zu of group %zu: %lld %lld %lld "
               "%lld, expected %lld %lld %lld %lld", local, l, g,
               (long long)item[0], (long long)item[1], (long long)item[2],
               (long long)item[3], (long long)(steps + (int64_t)l * 100),
               (long long)big, (long long)(int64_t)f, (long long)v);
      }
    }
    free(r);
    weft_buffer_release(out);
    weft_buffer_release(sums);
    weft_kernel_release(k);
    weft_context_release(ctx);
  }
}

/* Values that look alike but are not: a loop each work-item leaves at its
 * own turn, a branch on the local id, a load, a count that grows under a
 * branch on the local id inside a loop that all run alike. */
static int expect_differing(int i) {
  int l = i % 32, in_l = l % 4;
  int c = l % 3 + 1;
  return (l % 5) * 1000000 + (l & 1 ? 7 + in_l : 5) * 1000 + c * 10 + 3;
}

TEST(values_that_differ_stay_per_work_item) {
  static const char *source =
      "__kernel void k(__global int *out) {\n"
      "  size_t l = get_local_id(0);\n"
      "  __local int t[32];\n"
      "  t[l] = l ? (int)(l % 4) : 3;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int k = 0;\n"
      "  while (k < (int)(l % 5)) k++;\n"
      "  int v = 5;\n"
      "  if (l & 1) v = 7 + t[l];\n"
      "  int w = t[0];\n"
      "  int c = 0;\n"
      "  for (int i = 0; i < 3; i++) {\n"
      "    if (l % 3 == i) c += i + 1;\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "  out[get_global_id(0)] = k * 1000000 + v * 1000 + c * 10 + w;\n"
      "}\n";
  run_and_check(source, NULL, expect_differing);
}

/* More values alike than the group's room for them (128 bytes): the rest
 * are kept per work-item, and all come out right. */
TEST(more_uniform_values_than_room) {
  char source[8192];
  int n = 0;
  n += snprintf(source + n, sizeof source - n,
                "__kernel void k(__global int *out) {\n"
                "  int l = (int)get_local_id(0), mine = l;\n");
  for (int u = 0; u < 48; u++)
    n += snprintf(source + n, sizeof source - n, "  int u%d = %d;\n", u, u);
  n += snprintf(source + n, sizeof source - n,
                "  for (int s = 0; s < 5; s++) {\n");
  for (int u = 0; u < 48; u++)
    n += snprintf(source + n, sizeof source - n, "    u%d += %d;\n", u, u + 1);
  n += snprintf(source + n, sizeof source - n,
                "    mine += l;\n"
                "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                "  }\n"
                "  int sum = mine * 100000;\n");
  for (int u = 0; u < 48; u++)
    n += snprintf(source + n, sizeof source - n, "  sum += u%d * %d;\n", u, u + 1);
  n += snprintf(source + n, sizeof source - n,
                "  out[get_global_id(0)] = sum;\n}\n");
  CHECK(n < (int)sizeof source);
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "k");
  size_t global = 256, local = 64;
  weft_buffer *out = support_buffer(ctx, global * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[256];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  int alike = 0;
  for (int u = 0; u < 48; u++) alike += (u + 5 * (u + 1)) * (u + 1);
  for (int i = 0; i < 256; i++) CHECK_EQ(r[i], 6 * (i % 64) * 100000 + alike);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* ---- divergence: reported, never a hang, and the device stays usable */

static void check_divergence(const char *body, const char *expected) {
  CPU_ONLY("barrier divergence is not detected on the GPU (bar.sync has no "
           "report)");
  char source[1024];
  snprintf(source, sizeof source,
           "__kernel void diverge(__global int *out) {\n"
           "  size_t l = get_local_id(0);\n"
           "%s"
           "  out[get_global_id(0)] = 1;\n"
           "}\n",
           body);
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "diverge");
  size_t global = 32, local = 16;
  weft_buffer *out = support_buffer(ctx, global * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), WEFT_EBARRIER,
              k, "barrier divergence");
  CHECK_STR_CONTAINS(weft_errmsg(k), "kernel 'diverge'");
  CHECK_STR_CONTAINS(weft_errmsg(k), expected);
  weft_kernel_release(k);
  /* The device runs the next launch normally. */
  weft_buffer_release(out);
  weft_context_release(ctx);
  run_reverse(64, 16);
}

TEST(divergence_some_items_skip) {
  check_divergence("  if (l < 4) barrier(CLK_LOCAL_MEM_FENCE);\n",
                   "the barrier at line 3, column 14");
}

TEST(divergence_first_item_skips) {
  check_divergence("  if (l != 0) barrier(CLK_LOCAL_MEM_FENCE);\n",
                   "returned without reaching it");
}

TEST(divergence_different_barriers) {
  check_divergence("  if (l % 2) barrier(CLK_LOCAL_MEM_FENCE);\n"
                   "  else barrier(CLK_GLOBAL_MEM_FENCE);\n",
                   "waits at the barrier at line 4");
}

TEST(divergence_loop_trip_counts) {
  check_divergence("  for (size_t i = 0; i < l % 3; i++)\n"
                   "    barrier(CLK_LOCAL_MEM_FENCE);\n",
                   "returned without reaching it");
}

TEST_MAIN()
