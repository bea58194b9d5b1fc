/* test_workitem.c: work-item functions in 1, 2 and 3 dimensions, with
 * offsets, given and automatic local sizes, against a host reference. */
#include "support.h"

/* Each work-item writes everything it can ask about itself. */
#define FIELDS 23
static const char *ids_source =
    "__kernel void ids(__global ulong *out) {\n"
    "  size_t x = get_global_id(0) - get_global_offset(0);\n"
    "  size_t y = get_global_id(1) - get_global_offset(1);\n"
    "  size_t z = get_global_id(2) - get_global_offset(2);\n"
    "  __global ulong *o = out + ((z * get_global_size(1) + y) *\n"
    "                             get_global_size(0) + x) * 23;\n"
    "  for (uint d = 0; d < 3; d++) {\n"
    "    o[d] = get_global_id(d);\n"
    "    o[3 + d] = get_local_id(d);\n"
    "    o[6 + d] = get_group_id(d);\n"
    "    o[9 + d] = get_global_size(d);\n"
    "    o[12 + d] = get_local_size(d);\n"
    "    o[15 + d] = get_num_groups(d);\n"
    "    o[18 + d] = get_global_offset(d);\n"
    "  }\n"
    "  o[21] = get_work_dim();\n"
    "  /* Dimensions past the last: ids 0, sizes 1. */\n"
    "  o[22] = get_global_id(3) + get_local_id(5) + 10 * get_local_size(3) +\n"
    "          100 * get_num_groups(4) + 1000 * get_global_size(9);\n"
    "}\n";

static void check_ids(unsigned dims, const size_t *offset, const size_t *global,
                      const size_t *local_in) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, ids_source, "ids");
  size_t g[3] = {1, 1, 1}, off[3] = {0, 0, 0}, l[3] = {1, 1, 1};
  for (unsigned d = 0; d < dims; d++) {
    g[d] = global[d];
    off[d] = offset ? offset[d] : 0;
  }
  if (local_in) {
    for (unsigned d = 0; d < dims; d++) l[d] = local_in[d];
  } else {
    CHECK_OK(weft_kernel_suggest_local_size(k, dims, global, l), k);
    for (unsigned d = 0; d < dims; d++) CHECK_EQ(g[d] % l[d], 0);
  }
  size_t n = g[0] * g[1] * g[2];
  weft_buffer *out = support_buffer(ctx, n * FIELDS * 8, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, dims, offset, global, local_in), k);
  unsigned long long *r = malloc(n * FIELDS * 8);
  CHECK_OK(weft_buffer_read(out, 0, n * FIELDS * 8, r), out);
  for (size_t z = 0; z < g[2]; z++)
    for (size_t y = 0; y < g[1]; y++)
      for (size_t x = 0; x < g[0]; x++) {
        size_t pos[3] = {x, y, z};
        unsigned long long *o = r + ((z * g[1] + y) * g[0] + x) * FIELDS;
        for (int d = 0; d < 3; d++) {
          CHECK_EQ(o[d], pos[d] + off[d]);
          CHECK_EQ(o[3 + d], pos[d] % l[d]);
          CHECK_EQ(o[6 + d], pos[d] / l[d]);
          CHECK_EQ(o[9 + d], g[d]);
          CHECK_EQ(o[12 + d], l[d]);
          CHECK_EQ(o[15 + d], g[d] / l[d]);
          CHECK_EQ(o[18 + d], off[d]);
        }
        CHECK_EQ(o[21], dims);
        CHECK_EQ(o[22], 1110);
      }
  free(r);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(one_dim) {
  size_t global[] = {96}, local[] = {8};
  check_ids(1, NULL, global, local);
}

TEST(one_dim_offset) {
  size_t offset[] = {5}, global[] = {64}, local[] = {16};
  check_ids(1, offset, global, local);
}

TEST(two_dims_offset) {
  size_t offset[] = {3, 7}, global[] = {12, 10}, local[] = {4, 5};
  check_ids(2, offset, global, local);
}

TEST(three_dims_offset) {
  size_t offset[] = {1, 2, 3}, global[] = {6, 4, 8}, local[] = {3, 2, 4};
  check_ids(3, offset, global, local);
}

/* Groups one work-item wide in x run their y or z as the innermost loop
 * (jit/cpu/workgroup.c's narrow_first): every work-item once, with its
 * ids. A kernel without a loop (not jammed), counting its runs. */
static const char *narrow_source =
    "__kernel void ids(__global uint *out, __global uint *runs) {\n"
    "  size_t x = get_global_id(0) - get_global_offset(0);\n"
    "  size_t y = get_global_id(1) - get_global_offset(1);\n"
    "  size_t z = get_global_id(2) - get_global_offset(2);\n"
    "  size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "  out[2 * i] = get_global_id(0) + 100 * get_global_id(1) +\n"
    "               10000 * get_global_id(2);\n"
    "  out[2 * i + 1] = get_local_id(0) + 100 * get_local_id(1) +\n"
    "                   10000 * get_local_id(2);\n"
    "  atomic_inc(&runs[i]);\n"
    "}\n";

static void check_narrow(const size_t offset[3], const size_t global[3],
                         const size_t local[3]) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, narrow_source, "ids");
  size_t n = global[0] * global[1] * global[2];
  weft_buffer *out = support_buffer(ctx, n * 8, NULL);
  weft_buffer *runs = support_buffer(ctx, n * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, runs), k);
  CHECK_OK(weft_kernel_launch(k, 3, offset, global, local), k);
  unsigned *r = malloc(n * 8), *c = malloc(n * 4);
  CHECK_OK(weft_buffer_read(out, 0, n * 8, r), out);
  CHECK_OK(weft_buffer_read(runs, 0, n * 4, c), runs);
  for (size_t z = 0; z < global[2]; z++)
    for (size_t y = 0; y < global[1]; y++)
      for (size_t x = 0; x < global[0]; x++) {
        size_t i = (z * global[1] + y) * global[0] + x;
        CHECK_EQ(c[i], 1);
        CHECK_EQ(r[2 * i], (x + offset[0]) + 100 * (y + offset[1]) +
                               10000 * (z + offset[2]));
        CHECK_EQ(r[2 * i + 1], x % local[0] + 100 * (y % local[1]) +
                                   10000 * (z % local[2]));
      }
  free(r);
  free(c);
  weft_buffer_release(out);
  weft_buffer_release(runs);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(groups_one_work_item_wide) {
  static const size_t none[3] = {0, 0, 0}, offset[3] = {1, 2, 3};
  static const size_t shapes[][2][3] = {
      {{3, 16, 8}, {1, 8, 4}},   /* y inside z */
      {{2, 3, 32}, {1, 1, 16}},  /* z alone */
      {{2, 2, 2}, {1, 1, 1}},    /* one work-item a group */
      {{4, 6, 5}, {2, 3, 5}},    /* wider in x: the usual loops */
  };
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    check_narrow(none, shapes[s][0], shapes[s][1]);
    check_narrow(offset, shapes[s][0], shapes[s][1]);
  }
}

TEST(single_work_item) {
  size_t global[] = {1, 1, 1}, local[] = {1, 1, 1};
  check_ids(3, NULL, global, local);
}

TEST(automatic_local_size) {
  size_t global[] = {64, 48};
  check_ids(2, NULL, global, NULL);
}

TEST(automatic_local_size_3d) {
  size_t offset[] = {2, 0, 9}, global[] = {10, 9, 14};
  check_ids(3, offset, global, NULL);
}

/* A prime global size: the only divisors are 1 and itself. */
TEST(automatic_local_size_prime) {
  size_t global[] = {1021};
  check_ids(1, NULL, global, NULL);
}

/* The OpenCL 2.0 linear ids and the enqueued local size. */
TEST(linear_ids_cl3) {
  static const char *source =
      "__kernel void lin(__global ulong *out) {\n"
      "  size_t i = get_global_linear_id();\n"
      "  out[3 * i] = i;\n"
      "  out[3 * i + 1] = get_local_linear_id();\n"
      "  out[3 * i + 2] = get_enqueued_local_size(0) * 100 + get_enqueued_local_size(1);\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "lin", &k), p);
  size_t offset[] = {4, 1}, global[] = {8, 6}, local[] = {4, 3};
  weft_buffer *out = support_buffer(ctx, 48 * 3 * 8, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 2, offset, global, local), k);
  unsigned long long r[48 * 3];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  for (size_t y = 0; y < 6; y++)
    for (size_t x = 0; x < 8; x++) {
      size_t i = y * 8 + x;
      CHECK_EQ(r[3 * i], i);
      CHECK_EQ(r[3 * i + 1], (y % 3) * 4 + x % 4);
      CHECK_EQ(r[3 * i + 2], 403);
    }
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* Many groups spread over all threads, each group summing its own ids. */
TEST(many_groups) {
  static const char *source =
      "__kernel void sum(__global uint *out) {\n"
      "  out[get_global_id(0)] = get_group_id(0) * 7 + get_local_id(0);\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "sum");
  size_t n = 1 << 20, global[] = {n}, local[] = {16};
  weft_buffer *out = support_buffer(ctx, n * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, global, local), k);
  unsigned *r = malloc(n * 4);
  CHECK_OK(weft_buffer_read(out, 0, n * 4, r), out);
  for (size_t i = 0; i < n; i++) CHECK_EQ(r[i], (i / 16) * 7 + i % 16);
  free(r);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST_MAIN()
