/* test_fault.c: crashes and stack overflows inside kernels are reported
 * with the kernel and the work-item (and a crash with its source line),
 * and the device keeps working afterwards. (Integer division never traps: test_division.c.) */
#include "support.h"

/* Launches kernel "k" (one buffer argument) over 64 items in groups of 16,
 * expects code, and checks the message contains each text. */
static void expect_failure(const char *source, int code, const char *const *texts) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "k");
  weft_buffer *b = support_buffer(ctx, 64 * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 64, local = 16;
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), code, k,
              "kernel 'k'");
  for (; *texts; texts++) CHECK_STR_CONTAINS(weft_errmsg(k), *texts);
  /* The next launch on the same device still works. */
  support_check_device_goes_on(ctx, b, global, local, 9);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(null_write_names_work_item) {
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  static const char *texts[] = {"crashed with a segmentation fault",
                                "work-item (37) [local (5) in work-group (2)] "
                                "at program.cl:3:23",
                                NULL};
  expect_failure("__kernel void k(__global int *a) {\n"
                 "  __global int *p = get_global_id(0) == 37 ? 0 : a;\n"
                 "  p[get_global_id(0)] = 1;\n"
                 "}\n",
                 WEFT_EKERNELFAULT, texts);
}

TEST(crash_after_barrier_names_work_item) {
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  static const char *texts[] = {"segmentation fault",
                                "work-item (45) [local (13) in work-group (2)] "
                                "at program.cl:5:8",
                                NULL};
  expect_failure("__kernel void k(__global int *a) {\n"
                 "  a[get_global_id(0)] = 1;\n"
                 "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
                 "  __global int *p = get_global_id(0) == 45 ? (__global int *)64 : a;\n"
                 "  p[0] = 2;\n"
                 "}\n",
                 WEFT_EKERNELFAULT, texts);
}

/* The fault comes in a region that a counter all work-items hold alike
 * (kept once per group) decides: the replay that finds the work-item
 * runs the region again for each from the counter's value at its start. */
TEST(crash_in_loop_of_regions_names_work_item) {
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  static const char *texts[] = {"segmentation fault",
                                "work-item (21) [local (5) in work-group (1)] "
                                "at program.cl:5:25",
                                NULL};
  expect_failure("__kernel void k(__global int *a) {\n"
                 "  for (uint s = 8; s > 0; s >>= 1) {\n"
                 "    barrier(CLK_LOCAL_MEM_FENCE);\n"
                 "    __global int *p = s == 2 && get_global_id(0) == 21 ? 0 : a;\n"
                 "    p[get_global_id(0)] = (int)s;\n"
                 "  }\n"
                 "}\n",
                 WEFT_EKERNELFAULT, texts);
}

/* The line named is the faulting access's, inside the helper function it
 * is in. */
TEST(crash_in_helper_names_its_line) {
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  static const char *texts[] = {"work-item (20) [local (4) in work-group (1)] "
                                "at program.cl:2:44",
                                NULL};
  expect_failure("void put(__global int *p, size_t i) {\n"
                 "  if (i == 20) p = (__global int *)8; p[i] = (int)i;\n"
                 "}\n"
                 "__kernel void k(__global int *a) {\n"
                 "  put(a, get_global_id(0));\n"
                 "}\n",
                 WEFT_EKERNELFAULT, texts);
}

/* 1 MiB of private array with the default 256 KiB stacks: the kernel's
 * frame does not fit, which the report says with the kernel's line. */
TEST(stack_overflow_without_barrier) {
  CPU_ONLY("work-item stacks are the CPU's");
  static const char *texts[] = {"stack overflow in work-item",
                                "making the frame of the function at "
                                "program.cl:1: each work-item has a "
                                "262144-byte stack",
                                "WEFT_STACK_SIZE", NULL};
  expect_failure("__kernel void k(__global int *a) {\n"
                 "  volatile int big[262144];\n"
                 "  for (int i = 0; i < 262144; i++) big[i] = i;\n"
                 "  a[get_global_id(0)] = big[get_global_id(0)];\n"
                 "}\n",
                 WEFT_ESTACK, texts);
}

/* After inlining, a work-item's frame has one fixed size. This one (280 KB)
 * fits the worker thread's stack, where work-item 0 runs, but not a 256 KiB
 * fiber stack: the first fiber after the barrier overflows. Which group
 * reports first depends on the threads, so the group is not checked. */
TEST(stack_overflow_on_fiber) {
  CPU_ONLY("work-item stacks are the CPU's");
  static const char *texts[] = {"stack overflow in work-item",
                                "[local (1) in work-group",
                                "262144-byte stack", NULL};
  expect_failure("__kernel void k(__global int *a) {\n"
                 "  volatile int big[70000];\n"
                 "  big[get_local_id(0)] = 1;\n"
                 "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
                 "  for (int i = 0; i < 70000; i++) big[i] = i;\n"
                 "  a[get_global_id(0)] = big[get_local_id(0)];\n"
                 "}\n",
                 WEFT_ESTACK, texts);
}

/* WEFT_STACK_SIZE, read at start-up, makes room for the same kernel. */
TEST(larger_stack_from_environment) {
  CPU_ONLY("WEFT_STACK_SIZE sizes the CPU's work-item stacks");
  setenv("WEFT_STACK_SIZE", "2M", 1);
  weft_context *ctx = support_context();
  weft_device_info info;
  CHECK_OK(weft_device_info_get(weft_context_device(ctx), &info), ctx);
  CHECK_EQ(info.stack_size, 2 << 20);
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void k(__global int *a) {\n"
                                  "  volatile int big[262144];\n"
                                  "  for (int i = 0; i < 262144; i++) big[i] = i;\n"
                                  "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
                                  "  a[get_global_id(0)] = big[get_global_id(0) * 1000];\n"
                                  "}\n",
                                  "k");
  weft_buffer *b = support_buffer(ctx, 8 * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 8, local = 4;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int r[8];
  CHECK_OK(weft_buffer_read(b, 0, sizeof r, r), b);
  for (int i = 0; i < 8; i++) CHECK_EQ(r[i], i * 1000);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST_MAIN()
