/* test_address_space.c: to_global, to_local, to_private and get_fence on
 * generic pointers to each kind of memory (OpenCL C 2.0/3.0), with and
 * without barriers (private data then lives in region storage or on a
 * fiber's stack). */
#include "support.h"

/* For each of a global, a local and a private pointer made generic, bit 0:
 * to_global gives it back, 1: to_local, 2: to_private, 3: get_fence says
 * local, 4: get_fence says global. */
static const char *source =
    "int classify(int *p) {\n"
    "  return (to_global(p) == (__global int *)p) |\n"
    "         (to_local(p) == (__local int *)p) << 1 |\n"
    "         (to_private(p) == (__private int *)p) << 2 |\n"
    "         (get_fence(p) == CLK_LOCAL_MEM_FENCE) << 3 |\n"
    "         (get_fence(p) == CLK_GLOBAL_MEM_FENCE) << 4;\n"
    "}\n"
    "__kernel void k(__global int *out, __local int *scratch) {\n"
    "  __local int tile[8];\n"
    "  int mine[4] = {1, 2, 3, 4};\n"
    "  size_t i = get_global_id(0);\n"
    "#ifdef BARRIER\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "#endif\n"
    "  volatile int pick = (int)(i % 4);\n"
    "  out[4 * i + 0] = classify(out + i);\n"
    "  out[4 * i + 1] = classify(tile + pick);\n"
    "  out[4 * i + 2] = classify(scratch + pick);\n"
    "  out[4 * i + 3] = classify(mine + pick);\n"
    "#ifdef BARRIER\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[4 * i + 3] |= mine[pick] != pick + 1;\n"
    "#endif\n"
    "}\n";

static void check(const char *options) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *b = support_buffer(ctx, 4 * 64 * sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, 64), k);
  size_t global = 64, local = 16;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int out[4 * 64];
  CHECK_OK(weft_buffer_read(b, 0, sizeof out, out), b);
  for (int i = 0; i < 64; i++) {
    CHECK_EQ(out[4 * i + 0], 1 | 16); /* global */
    CHECK_EQ(out[4 * i + 1], 2 | 8);  /* local variable */
    CHECK_EQ(out[4 * i + 2], 2 | 8);  /* local argument */
    CHECK_EQ(out[4 * i + 3], 4 | 16); /* private */
  }
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(without_barriers) { check("-cl-std=CL3.0"); }
TEST(with_barriers) { check("-cl-std=CL3.0 -DBARRIER"); }
TEST(opencl_2_0) { check("-cl-std=CL2.0 -DBARRIER"); }

TEST_MAIN()
