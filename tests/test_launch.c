/* test_launch.c: NDRange validation (OpenCL 1.2 rules) and automatic local
 * sizes. */
#include "support.h"

static const char *fill_source =
    "__kernel void fill(__global int *out) {\n"
    "  out[get_global_id(0) + get_global_size(0) * get_global_id(1)] = 1;\n"
    "}\n";

static weft_kernel *fill_kernel(weft_context *ctx, weft_buffer **out) {
  weft_kernel *k = support_kernel(ctx, fill_source, "fill");
  *out = support_buffer(ctx, 1 << 22, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, *out), k);
  return k;
}

/* Devices by name: "cpu" is the CPU device wherever it stands, an index
 * is that device, "cuda:N" is a GPU or WEFT_ENODEV; other names are
 * refused before any device starts. */
TEST(devices_by_name) {
  static const char *const bad[] = {"", "CPU", "cuda:", "cuda:64", "cuda:x",
                                    "gpu0", "-1", "1x", NULL};
  for (int i = 0; bad[i]; i++) {
    CHECK_EQ(weft_device_name_check(bad[i]), WEFT_EINVAL);
    weft_device *d;
    CHECK_EQ(weft_device_find(bad[i], &d), WEFT_EINVAL);
  }
  CHECK_EQ(weft_device_name_check(NULL), WEFT_EINVAL);
  static const char *const good[] = {"0", "cpu", "cuda", "gpu", "cuda:3", NULL};
  for (int i = 0; good[i]; i++) CHECK_EQ(weft_device_name_check(good[i]), 0);
  weft_device *cpu, *first, *d;
  weft_device_info info;
  CHECK_EQ(weft_device_find("cpu", &cpu), 0);
  CHECK_EQ(weft_device_info_get(cpu, &info), 0);
  CHECK_EQ(info.kind, WEFT_DEVICE_CPU);
  CHECK_EQ(weft_device_find("0", &first), 0);
  CHECK_EQ(weft_device_get(0, &d), 0);
  CHECK(first == d);
  int count = weft_device_count(), gpus = 0;
  for (int i = 0; i < count; i++) {
    CHECK_EQ(weft_device_get(i, &d), 0);
    CHECK_EQ(weft_device_info_get(d, &info), 0);
    gpus += info.kind == WEFT_DEVICE_GPU;
  }
  char name[16];
  snprintf(name, sizeof name, "cuda:%d", gpus);
  CHECK_EQ(weft_device_find(name, &d), WEFT_ENODEV);
  snprintf(name, sizeof name, "%d", count);
  CHECK_EQ(weft_device_find(name, &d), WEFT_ENODEV);
  if (gpus) {
    CHECK_EQ(weft_device_find("gpu", &d), 0);
    CHECK_EQ(weft_device_info_get(d, &info), 0);
    CHECK_EQ(info.kind, WEFT_DEVICE_GPU);
  }
}

TEST(work_dimensions) {
  weft_context *ctx = support_context();
  weft_buffer *out;
  weft_kernel *k = fill_kernel(ctx, &out);
  size_t g[4] = {4, 4, 4, 4};
  CHECK_FAILS(weft_kernel_launch(k, 0, NULL, g, NULL), WEFT_EWORKDIM, k,
              "0 dimensions");
  CHECK_FAILS(weft_kernel_launch(k, 4, NULL, g, NULL), WEFT_EWORKDIM, k,
              "4 dimensions");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(global_sizes) {
  weft_context *ctx = support_context();
  weft_buffer *out;
  weft_kernel *k = fill_kernel(ctx, &out);
  size_t zero[2] = {8, 0};
  CHECK_FAILS(weft_kernel_launch(k, 2, NULL, zero, NULL), WEFT_EGLOBALSIZE, k,
              "global size 0 in dimension 1");
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, NULL, NULL), WEFT_EGLOBALSIZE, k,
              "NULL global size");
  size_t big[1] = {16}, offset[1] = {SIZE_MAX - 3};
  CHECK_FAILS(weft_kernel_launch(k, 1, offset, big, NULL), WEFT_EGLOBALSIZE, k,
              "overflows");
  size_t huge[3] = {SIZE_MAX / 2, 4, 1};
  CHECK_FAILS(weft_kernel_launch(k, 3, NULL, huge, NULL), WEFT_EGLOBALSIZE, k,
              "more than SIZE_MAX");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(local_sizes) {
  weft_context *ctx = support_context();
  weft_buffer *out;
  weft_kernel *k = fill_kernel(ctx, &out);
  size_t global[2] = {64, 64};
  size_t not_dividing[2] = {6, 8};
  CHECK_FAILS(weft_kernel_launch(k, 2, NULL, global, not_dividing),
              WEFT_EGROUPSIZE, k,
              "local size 6 does not divide global size 64 in dimension 0");
  size_t zero[2] = {8, 0};
  CHECK_FAILS(weft_kernel_launch(k, 2, NULL, global, zero), WEFT_EGROUPSIZE, k,
              "local size 0 in dimension 1");
  /* 4096 on the CPU, 1024 on a CUDA GPU. */
  size_t max = support_device_info().max_work_group_size;
  char text[96];
  size_t big_global[1] = {8192}, too_big[1] = {8192};
  snprintf(text, sizeof text, "is not within 1 and %zu", max);
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, big_global, too_big),
              WEFT_EGROUPSIZE, k, text);
  size_t product[2] = {64, 128}, global2[2] = {64, 128};
  snprintf(text, sizeof text,
           "a work-group of 8192 work-items is larger than the maximum, %zu", max);
  CHECK_FAILS(weft_kernel_launch(k, 2, NULL, global2, product), WEFT_EGROUPSIZE,
              k, text);
  size_t fine[2] = {16, 4};
  CHECK_OK(weft_kernel_launch(k, 2, NULL, global, fine), k);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Automatic local sizes divide the global size, stay within the limits and
 * make groups big enough to amortize their cost. */
TEST(suggested_local_sizes) {
  weft_context *ctx = support_context();
  weft_buffer *out;
  weft_kernel *k = fill_kernel(ctx, &out);
  weft_device_info info;
  CHECK_OK(weft_device_info_get(weft_context_device(ctx), &info), ctx);
  static const size_t cases[][3] = {{1024, 1024, 1}, {1 << 20, 1, 1}, {1021, 1, 1},
                                    {7, 9, 11},      {4096, 1, 1},    {1, 1, 1},
                                    {100, 3, 1},     {1 << 24, 1, 1}};
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    size_t local[3];
    CHECK_OK(weft_kernel_suggest_local_size(k, 3, cases[c], local), k);
    size_t items = 1;
    for (int d = 0; d < 3; d++) {
      CHECK(local[d] >= 1);
      CHECK_EQ(cases[c][d] % local[d], 0);
      items *= local[d];
    }
    CHECK(items <= info.max_work_group_size);
  }
  /* Only dims entries are written. */
  struct {
    size_t local[1];
    size_t canary[2];
  } one = {{0}, {7, 7}};
  size_t line = 4096;
  CHECK_OK(weft_kernel_suggest_local_size(k, 1, &line, one.local), k);
  CHECK_EQ(one.canary[0], 7);
  CHECK_EQ(one.canary[1], 7);
  size_t image[2] = {1024, 1024}, local[2];
  CHECK_OK(weft_kernel_suggest_local_size(k, 2, image, local), k);
  CHECK(local[0] * local[1] >= 64);
  CHECK_OK(weft_kernel_launch(k, 2, NULL, image, NULL), k);
  int *r = malloc(1 << 22);
  CHECK_OK(weft_buffer_read(out, 0, 1 << 22, r), out);
  for (size_t i = 0; i < 1024 * 1024; i++) CHECK_EQ(r[i], 1);
  free(r);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* The same kernel object launched again with new arguments. */
TEST(relaunch_with_new_arguments) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void add(__global int *a, int v) {\n"
                                  "  a[get_global_id(0)] += v;\n"
                                  "}\n",
                                  "add");
  weft_buffer *a = support_buffer(ctx, 256 * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, a), k);
  size_t global = 256;
  for (int v = 1; v <= 10; v++) {
    CHECK_OK(weft_kernel_set_arg_value(k, 1, &v, 4), k);
    CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  }
  int r[256];
  CHECK_OK(weft_buffer_read(a, 0, sizeof r, r), a);
  for (int i = 0; i < 256; i++) CHECK_EQ(r[i], 55);
  weft_buffer_release(a);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST_MAIN()
