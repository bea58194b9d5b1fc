/*
 * reduce.c: the sum of 16M floats by a tree reduction in __local memory.
 *
 * Each work-item first adds a contiguous run of PER_ITEM values on its own,
 * then the GROUP work-items of a group add their sums pairwise in a
 * __local scratch array (halving the active items at every step, with a
 * barrier between steps), and one item writes the group's partial sum. The
 * host adds the partial sums and compares with a double-precision sum.
 *
 * The sequential first step keeps work-items, and so barriers, few (one
 * work-item per value would cost nine barriers per value). As Weft runs a
 * work-item's loop alone on a CPU, a contiguous run streams through cache.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "weft/weft.h"

enum { VALUES = 1 << 24, GROUP = 256, GROUPS = 256 };
enum { PER_ITEM = VALUES / (GROUP * GROUPS) };

/* The scratch array is a kernel argument: its size (one float per
 * work-item) is set by the host with weft_kernel_set_arg_local. The tree
 * needs GROUP to be a power of two. */
static const char *source =
    "__kernel void partial_sums(__global const float *in, uint per_item,\n"
    "                           __global float *partial,\n"
    "                           __local float *scratch) {\n"
    "  uint me = get_local_id(0);\n"
    "  __global const float *run = in + get_global_id(0) * per_item;\n"
    "  float sum = 0.0f;\n"
    "  for (uint i = 0; i < per_item; i++) sum += run[i];\n"
    "  scratch[me] = sum;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint active = get_local_size(0) / 2; active > 0; active /= 2) {\n"
    "    if (me < active) scratch[me] += scratch[me + active];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (me == 0) partial[get_group_id(0)] = scratch[0];\n"
    "}\n";

/* Stops the program with Weft's explanation when a call fails. */
#define CHECK(call, object) check((call), (object), #call)

static void check(int rc, const void *object, const char *call) {
  if (rc == WEFT_OK) return;
  fprintf(stderr, "reduce: %s failed: %s\n  %s\n", call, weft_strerror(rc),
          object ? weft_errmsg(object) : "");
  exit(EXIT_FAILURE);
}

/* Compiles source and returns its kernel called name. The kernel keeps its
 * program alive, so the program's reference is dropped here. */
static weft_kernel *build_kernel(weft_context *ctx, const char *source,
                                 const char *name) {
  weft_program *program;
  CHECK(weft_program_create(ctx, source, 0, &program), ctx);
  int rc = weft_program_build(program, "");
  if (rc != WEFT_OK) {
    fprintf(stderr, "reduce: build failed: %s\n%s\n", weft_strerror(rc),
            weft_program_build_log(program));
    exit(EXIT_FAILURE);
  }
  weft_kernel *kernel;
  CHECK(weft_kernel_create(program, name, &kernel), program);
  weft_program_release(program);
  return kernel;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Fills the input through a mapping, so the values are written once, in
 * the buffer itself, and returns their sum in double precision. */
static double fill_input(weft_buffer *in) {
  void *mapped;
  CHECK(weft_buffer_map(in, 0, VALUES * sizeof(float), WEFT_MAP_WRITE,
                        &mapped), in);
  float *values = mapped;
  double sum = 0.0;
  srand(42);
  for (size_t i = 0; i < VALUES; i++) {
    values[i] = (float)rand() / (float)RAND_MAX;
    sum += values[i];
  }
  CHECK(weft_buffer_unmap(in, mapped), in);
  return sum;
}

int main(void) {
  weft_device *device;
  weft_context *ctx;
  CHECK(weft_device_get(0, &device), NULL);
  CHECK(weft_context_create(device, &ctx), device);
  weft_kernel *kernel = build_kernel(ctx, source, "partial_sums");

  weft_buffer *in, *partial;
  CHECK(weft_buffer_create(ctx, VALUES * sizeof(float), WEFT_MEM_READ_ONLY,
                           NULL, &in), ctx);
  CHECK(weft_buffer_create(ctx, GROUPS * sizeof(float), WEFT_MEM_WRITE_ONLY,
                           NULL, &partial), ctx);
  double expected = fill_input(in);

  uint32_t per_item = PER_ITEM;
  CHECK(weft_kernel_set_arg_buffer(kernel, 0, in), kernel);
  CHECK(weft_kernel_set_arg_value(kernel, 1, &per_item, sizeof per_item),
        kernel);
  CHECK(weft_kernel_set_arg_buffer(kernel, 2, partial), kernel);
  CHECK(weft_kernel_set_arg_local(kernel, 3, GROUP * sizeof(float)), kernel);
  size_t global = GROUP * GROUPS, local = GROUP;
  double start = now_ms();
  CHECK(weft_kernel_launch(kernel, 1, NULL, &global, &local), kernel);
  double ms = now_ms() - start;

  float partials[GROUPS];
  CHECK(weft_buffer_read(partial, 0, sizeof partials, partials), partial);
  double sum = 0.0;
  for (size_t g = 0; g < GROUPS; g++) sum += partials[g];

  /* Adding n positive floats one after another is off by at most about
   * n * FLT_EPSILON / 2 relative to the exact sum; a work-item adds
   * PER_ITEM values and the tree adds log2(GROUP) more levels, so twice
   * that bound leaves room without hiding a real error. */
  double tolerance = (PER_ITEM + 8) * FLT_EPSILON;
  double error = fabs(sum - expected) / expected;
  printf("reduce: %d floats, %d groups of %d, %d values per work-item, "
         "%.1f ms\n", VALUES, GROUPS, GROUP, PER_ITEM, ms);
  printf("  partial sums %.3f %.3f ...\n", partials[0], partials[1]);
  printf("  sum %.3f, host %.3f, relative error %.2g (tolerance %.2g)\n",
         sum, expected, error, tolerance);
  if (!(error <= tolerance)) {
    fprintf(stderr, "reduce: the sum is off by more than the tolerance\n");
    return EXIT_FAILURE;
  }
  printf("  ok\n");

  weft_buffer_release(in);
  weft_buffer_release(partial);
  weft_kernel_release(kernel);
  weft_context_release(ctx);
  return EXIT_SUCCESS;
}
