/* test_memory.c: work-items without barriers cost no memory of their own. */
#include "support.h"

/* A 1024x1024 NDRange without barrier() runs every work-item inside the
 * work-group loop: peak RSS must grow by less than 16 MiB over an empty
 * launch (the buffers are touched beforehand, so only the runtime counts). */
TEST(no_stacks_without_barrier) {
  static const char *source =
      "__kernel void empty(__global uchar *out) {}\n"
      "__kernel void pixels(__global uchar *out) {\n"
      "  size_t x = get_global_id(0), y = get_global_id(1);\n"
      "  out[y * get_global_size(0) + x] = (uchar)(x ^ y);\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, NULL);
  weft_kernel *empty, *pixels;
  CHECK_OK(weft_kernel_create(p, "empty", &empty), p);
  CHECK_OK(weft_kernel_create(p, "pixels", &pixels), p);
  size_t n = 1024 * 1024;
  unsigned char *host = calloc(n, 1);
  weft_buffer *out = support_buffer(ctx, n, host);
  CHECK_OK(weft_kernel_set_arg_buffer(empty, 0, out), empty);
  CHECK_OK(weft_kernel_set_arg_buffer(pixels, 0, out), pixels);
  size_t global[2] = {1024, 1024};
  CHECK_OK(weft_kernel_launch(empty, 2, NULL, global, NULL), empty);
  long before = support_peak_rss_kib();
  CHECK_OK(weft_kernel_launch(pixels, 2, NULL, global, NULL), pixels);
  long after = support_peak_rss_kib();
  CHECK_OK(weft_buffer_read(out, 0, n, host), out);
  for (size_t i = 0; i < n; i++)
    CHECK_EQ(host[i], (unsigned char)((i % 1024) ^ (i / 1024)));
  printf("peak RSS: %ld KiB after the empty launch, %ld KiB after 1024x1024 "
         "(+%ld KiB)\n", before, after, after - before);
  CHECK(before > 0);
  CHECK(after - before < 16 * 1024);
  free(host);
  weft_buffer_release(out);
  weft_kernel_release(empty);
  weft_kernel_release(pixels);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* Region scheduling (the default) keeps only what crosses a barrier per
 * work-item: 4096-item groups with barriers cost far less than 4096
 * stacks, which would touch at least 16 MiB for each group running (one
 * a thread). Each thread keeps its group's work-item records (a fiber's
 * context each, should the group need them): 8.2 MiB more at 16 threads
 * (an H200 host's Xeon), 1.1 at 2. */
TEST(barrier_groups_without_stacks) {
  CPU_ONLY("stackless barrier regions are the CPU's");
  static const char *source =
      "__kernel void rotate(__global int *out, __local int *a) {\n"
      "  size_t l = get_local_id(0), n = get_local_size(0);\n"
      "  a[l] = (int)get_global_id(0);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int v = a[(l + 1) % n];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = v;\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "rotate");
  size_t global = 4096 * 64, local = 4096;
  int *host = calloc(global, sizeof(int));
  weft_buffer *out = support_buffer(ctx, global * sizeof(int), host);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, local * sizeof(int)), k);
  size_t one = 1;
  weft_kernel *empty = support_kernel(ctx, "__kernel void e() {}", "e");
  CHECK_OK(weft_kernel_launch(empty, 1, NULL, &one, NULL), empty);
  long before = support_peak_rss_kib();
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  long after = support_peak_rss_kib();
  CHECK_OK(weft_buffer_read(out, 0, global * sizeof(int), host), out);
  for (size_t i = 0; i < global; i++)
    CHECK_EQ(host[i], i / local * local + (i % local + 1) % local);
  printf("peak RSS +%ld KiB for 64 groups of 4096 work-items with barriers\n",
         after - before);
  unsigned threads = support_device_info().compute_units;
  CHECK(after - before < 4 * 1024 * (long)(threads > 2 ? threads : 2));
  free(host);
  weft_buffer_release(out);
  weft_kernel_release(empty);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST_MAIN()
