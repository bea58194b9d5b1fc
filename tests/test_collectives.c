/* test_collectives.c: work-group collective functions (reduce, scans,
 * broadcast, any, all) for every type, against the host, for group sizes
 * from 1 to 1024 and in 1, 2 and 3 dimensions, as regions and on fibers. */
#include <math.h>

#include "support.h"

/* in[i] is long(i * 7919 % 1000) - 500: both signs, no order. */
static long value_of(size_t i) { return (long)(i * 7919 % 1000) - 500; }

/* Runs "k" (args: __global T *in, __global T *out with 7 results per
 * work-item) over global items in groups of local; reads out back. */
static void run(const char *source, size_t type_size, size_t global,
                size_t local, void *in, void *out) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *bin = support_buffer(ctx, global * type_size, in);
  weft_buffer *bout = support_buffer(ctx, 7 * global * type_size, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bin), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bout), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  CHECK_OK(weft_buffer_read(bout, 0, 7 * global * type_size, out), bout);
  weft_buffer_release(bin);
  weft_buffer_release(bout);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

#define KERNEL(T)                                                            \
  "__kernel void k(__global const " T " *in, __global " T " *out) {\n"       \
  "  size_t i = get_global_id(0), l = get_local_id(0);\n"                    \
  "  " T " x = in[i];\n"                                                     \
  "  __global " T " *o = out + 7 * i;\n"                                     \
  "  o[0] = work_group_reduce_add(x);\n"                                     \
  "  o[1] = work_group_reduce_min(x);\n"                                     \
  "  o[2] = work_group_reduce_max(x);\n"                                     \
  "  o[3] = work_group_scan_inclusive_add(x);\n"                             \
  "  o[4] = work_group_scan_exclusive_add(x);\n"                             \
  "  o[5] = work_group_scan_inclusive_max(x);\n"                             \
  "  o[6] = work_group_broadcast(x, get_local_size(0) / 2);\n"               \
  "}\n"

/* Checks the results of one type; the host folds in the same order, so
 * float results are exact too. */
#define CHECK_TYPE(T, NAME)                                                  \
  static void check_##NAME(size_t global, size_t local) {                    \
    T *in = malloc(global * sizeof(T)), *out = malloc(7 * global * sizeof(T)); \
    for (size_t i = 0; i < global; i++) in[i] = (T)value_of(i);              \
    run(KERNEL(#T), sizeof(T), global, local, in, out);                      \
    for (size_t g = 0; g < global; g += local) {                             \
      T sum = 0, mn = in[g], mx = in[g];                                     \
      for (size_t l = 0; l < local; l++) {                                   \
        sum += in[g + l];                                                    \
        if (in[g + l] < mn) mn = in[g + l];                                  \
        if (in[g + l] > mx) mx = in[g + l];                                  \
      }                                                                      \
      T run_sum = 0, run_max = in[g];                                        \
      for (size_t l = 0; l < local; l++) {                                   \
        const T *o = out + 7 * (g + l);                                      \
        CHECK(o[0] == sum && o[1] == mn && o[2] == mx);                      \
        CHECK(o[4] == run_sum);                                              \
        run_sum += in[g + l];                                                \
        if (in[g + l] > run_max) run_max = in[g + l];                        \
        CHECK(o[3] == run_sum && o[5] == run_max);                           \
        CHECK(o[6] == in[g + local / 2]);                                    \
      }                                                                      \
    }                                                                        \
    free(in);                                                                \
    free(out);                                                               \
  }

typedef unsigned int uint;
typedef unsigned long ulong;
CHECK_TYPE(int, int)
CHECK_TYPE(uint, uint)
CHECK_TYPE(long, long)
CHECK_TYPE(ulong, ulong)
CHECK_TYPE(float, float)
CHECK_TYPE(double, double)

static const size_t sizes[][2] = {{1, 1}, {14, 7}, {256, 64}, {1024, 256},
                                  {2048, 1024}};

TEST(int_types) {
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    check_int(sizes[i][0], sizes[i][1]);
    check_uint(sizes[i][0], sizes[i][1]);
  }
}

TEST(long_types) {
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    check_long(sizes[i][0], sizes[i][1]);
    check_ulong(sizes[i][0], sizes[i][1]);
  }
}

TEST(float_types) {
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    check_float(sizes[i][0], sizes[i][1]);
    check_double(sizes[i][0], sizes[i][1]);
  }
}

/* any, all, and broadcast by 2D and 3D local ids. */
TEST(any_all_and_broadcast_in_3d) {
  static const char *source =
      "__kernel void k(__global const int *in, __global int *out) {\n"
      "  size_t i = get_global_linear_id();\n"
      "  int x = in[i];\n"
      "  __global int *o = out + 7 * i;\n"
      "  o[0] = work_group_any(x == 17);\n"
      "  o[1] = work_group_all(x >= 0);\n"
      "  o[2] = work_group_broadcast(x, 1, 2);\n"
      "  o[3] = work_group_broadcast(x, 3, 1, 1);\n"
      "  o[4] = work_group_all(1);\n"
      "  o[5] = work_group_any(0);\n"
      "  o[6] = 0;\n"
      "}\n";
  size_t global[3] = {8, 4, 4}, local[3] = {4, 4, 2}, n = 128;
  int in[128], out[7 * 128];
  for (size_t i = 0; i < n; i++) in[i] = (int)i;
  in[17] = 17;
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL2.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *bin = support_buffer(ctx, sizeof in, in);
  weft_buffer *bout = support_buffer(ctx, sizeof out, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bin), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bout), k);
  CHECK_OK(weft_kernel_launch(k, 3, NULL, global, local), k);
  CHECK_OK(weft_buffer_read(bout, 0, sizeof out, out), bout);
  for (size_t z = 0; z < 4; z++)
    for (size_t y = 0; y < 4; y++)
      for (size_t x = 0; x < 8; x++) {
        size_t i = (z * 4 + y) * 8 + x;
        size_t gx = x / 4 * 4, gy = y / 4 * 4, gz = z / 2 * 2;
        /* the group holding item 17 (x 1, y 2, z 0) answers any with 1 */
        int has17 = gx == 0 && gy == 0 && gz == 0;
        CHECK_EQ(out[7 * i + 0], has17);
        CHECK_EQ(out[7 * i + 1], 1);
        size_t b2 = (gz * 4 + gy + 2) * 8 + gx + 1;
        size_t b3 = ((gz + 1) * 4 + gy + 1) * 8 + gx + 3;
        CHECK_EQ(out[7 * i + 2], in[b2]);
        CHECK_EQ(out[7 * i + 3], in[b3]);
        CHECK_EQ(out[7 * i + 4], 1);
        CHECK_EQ(out[7 * i + 5], 0);
      }
  /* The scratch: a slot per work-item the device allows, and one more. */
  CHECK_EQ(weft_kernel_local_mem_size(k) >= (support_device_info().max_work_group_size + 1) * 8, 1);
  weft_buffer_release(bin);
  weft_buffer_release(bout);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* A collective some work-items skip is a divergence, reported. */
TEST(divergent_collective_reported) {
  CPU_ONLY("barrier divergence is not detected on the GPU (bar.sync has no report)");
  static const char *source =
      "__kernel void k(__global const int *in, __global int *out) {\n"
      "  if (get_local_id(0) < 2) out[get_global_id(0)] =\n"
      "      work_group_reduce_add(in[get_global_id(0)]);\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *b = support_buffer(ctx, 64 * sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, b), k);
  size_t global = 8, local = 4;
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), WEFT_EBARRIER, k,
              "barrier divergence");
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST_MAIN()
