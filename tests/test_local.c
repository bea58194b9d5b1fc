/* test_local.c: __local memory, shared within a work-group and private to
 * it, whether declared in the kernel or passed as arguments. */
#include "support.h"

/* Every group fills its local array with its own id, then checks every
 * entry (after a barrier) still holds it: groups running at once on other
 * threads must not see each other's local memory. */
TEST(isolated_between_concurrent_groups) {
  static const char *source =
      "__kernel void iso(__global int *bad) {\n"
      "  __local int mine[256];\n"
      "  size_t l = get_local_id(0), g = get_group_id(0);\n"
      "  for (int round = 0; round < 20; round++) {\n"
      "    mine[l] = (int)(g * 1000 + round);\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "    for (int i = 0; i < 256; i++)\n"
      "      if (mine[i] != (int)(g * 1000 + round)) bad[g] = 1;\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  }\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "iso");
  size_t groups = 256, global = groups * 256, local = 256;
  weft_buffer *bad = support_buffer(ctx, groups * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bad), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[256];
  CHECK_OK(weft_buffer_read(bad, 0, sizeof r, r), bad);
  for (size_t g = 0; g < groups; g++) CHECK_EQ(r[g], 0);
  CHECK_EQ(weft_kernel_local_mem_size(k), 1024);
  weft_buffer_release(bad);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Without a barrier, work-items still share the group's memory: each adds
 * to a local counter with an atomic, and the last one reads the total. */
TEST(shared_within_group_atomics) {
  static const char *source =
      "__kernel void count(__global int *out) {\n"
      "  __local int counter;\n"
      "  if (get_local_id(0) == 0) counter = 0;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  atomic_inc(&counter);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = counter;\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "count");
  size_t global = 4096, local = 128;
  weft_buffer *out = support_buffer(ctx, global * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int *r = malloc(global * 4);
  CHECK_OK(weft_buffer_read(out, 0, global * 4, r), out);
  for (size_t i = 0; i < global; i++) CHECK_EQ(r[i], 128);
  free(r);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Kernel-scope variables and two local arguments of odd sizes do not
 * overlap: each region is filled with its own pattern, then all checked. */
TEST(variables_and_arguments_do_not_overlap) {
  static const char *source =
      "__kernel void regions(__global int *bad, __local char *a, __local int *b) {\n"
      "  __local short s[33];\n"
      "  __local double d[5];\n"
      "  size_t l = get_local_id(0), n = get_local_size(0);\n"
      "  for (size_t i = l; i < 33; i += n) s[i] = -1;\n"
      "  for (size_t i = l; i < 5; i += n) d[i] = 2.5;\n"
      "  for (size_t i = l; i < 77; i += n) a[i] = 7;\n"
      "  for (size_t i = l; i < 19; i += n) b[i] = 123456;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int ok = 1;\n"
      "  for (int i = 0; i < 33; i++) ok &= s[i] == -1;\n"
      "  for (int i = 0; i < 5; i++) ok &= d[i] == 2.5;\n"
      "  for (int i = 0; i < 77; i++) ok &= a[i] == 7;\n"
      "  for (int i = 0; i < 19; i++) ok &= b[i] == 123456;\n"
      "  if (!ok) bad[get_group_id(0)] = 1;\n"
      "}\n";
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "regions");
  size_t global = 64, local = 8;
  weft_buffer *bad = support_buffer(ctx, 8 * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bad), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, 77), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 2, 19 * 4), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[8];
  CHECK_OK(weft_buffer_read(bad, 0, sizeof r, r), bad);
  for (int g = 0; g < 8; g++) CHECK_EQ(r[g], 0);
  CHECK(weft_kernel_local_mem_size(k) >= 33 * 2 + 5 * 8);
  weft_buffer_release(bad);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(too_much_local_memory) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void big(__local float *a) {\n"
                                  "  a[get_local_id(0)] = 0;\n"
                                  "}\n",
                                  "big");
  weft_device_info info;
  CHECK_OK(weft_device_info_get(weft_context_device(ctx), &info), ctx);
  CHECK_OK(weft_kernel_set_arg_local(k, 0, info.local_mem_size + 1), k);
  size_t global = 16;
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, NULL), WEFT_ELOCALMEM, k,
              "needs");
  CHECK_OK(weft_kernel_set_arg_local(k, 0, info.local_mem_size), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST_MAIN()
