/* test_check.c: check mode (-cl-weft-check=memory,uninit, and WEFT_CHECK
 * for a whole process): the memory and uninitialised-read checks (races:
 * test_check_races.c). Each seeded bug is reported
 * with its whole text -- the kind, the work-item, the source line, the
 * object and the offset -- and is not carried out: a write outside its
 * object changes nothing, a read gives zero, and the rest of the kernel
 * runs. Correct kernels run as they do without checks. */
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "support.h"

#define CHECKED "-cl-weft-check=memory"

/* A report names the first work-item that failed at its site; with groups
 * run in order on one thread, that is the same work-item every time. */
__attribute__((constructor)) static void one_thread(void) {
  setenv("WEFT_NUM_THREADS", "1", 0);
}

static weft_context *ctx;

/* Kernel k of source, built with options (the kernel keeps the program). */
static weft_kernel *checked_kernel_with(const char *source, const char *options) {
  CPU_ONLY("check mode instruments the CPU device's code");
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_program_release(p);
  return k;
}

static weft_kernel *checked_kernel(const char *source) {
  return checked_kernel_with(source, CHECKED);
}

/* Sets k's two buffer arguments. */
static void bind(weft_kernel *k, weft_buffer *arg0, weft_buffer *arg1) {
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, arg0), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, arg1), k);
}

/* Launches k over global items in groups of local, expecting success. */
static void launch_clean(weft_kernel *k, size_t global, size_t local) {
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
}

/* Launches k over global items in groups of local, expecting check
 * mode's failure; returns the message. */
static const char *launch_refused(weft_kernel *k, size_t global, size_t local) {
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), WEFT_ECHECK, k,
              "kernel 'k': ");
  return weft_errmsg(k);
}

/* One work-item writes one element past the end of a sub-buffer: the
 * parent's next element stays as it was. */
TEST(write_past_end_of_buffer) {
  ctx = support_context();
  weft_kernel *k = checked_kernel("__kernel void k(__global int *out) {\n"
                                  "  size_t i = get_global_id(0);\n"
                                  "  out[i] = (int)i;\n"
                                  "}\n");
  weft_buffer *parent = support_ints(ctx, 128, -7), *sub;
  CHECK_OK(weft_buffer_create_sub(parent, 0, 64 * sizeof(int), 0, &sub), parent);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, sub), k);
  const char *msg = launch_refused(k, 65, 5);
  CHECK_STR_CONTAINS(msg, "kernel 'k': 1 error found by check mode (invalid "
                          "accesses were not carried out)\n"
                          "program.cl:3:10: invalid write of 4 bytes by "
                          "work-item (64) [local (4) in work-group (12)], just "
                          "past the end of argument 0 'out' (256 bytes from "
                          "where it points)");
  int got[128];
  support_read_ints(parent, got, 128);
  for (int i = 0; i < 128; i++) CHECK_EQ(got[i], i < 64 ? i : -7);
  weft_buffer_release(sub);
  weft_buffer_release(parent);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Every work-item reads its neighbour: the last reads past the end, gets
 * zero, and the others' results are right. */
TEST(read_past_end_gives_zero) {
  ctx = support_context();
  weft_kernel *k = checked_kernel("__kernel void k(__global int *out,\n"
                                  "                __global const int *in) {\n"
                                  "  size_t i = get_global_id(0);\n"
                                  "  out[i] = in[i + 1] + 1;\n"
                                  "}\n");
  weft_buffer *out = support_ints(ctx, 64, 0), *in = support_ints(ctx, 64, 5);
  bind(k, out, in);
  const char *msg = launch_refused(k, 64, 16);
  CHECK_STR_CONTAINS(msg, "program.cl:4:12: invalid read of 4 bytes by "
                          "work-item (63) [local (15) in work-group (3)], just "
                          "past the end of argument 1 'in' (256 bytes from "
                          "where it points)");
  int got[64];
  support_read_ints(out, got, 64);
  for (int i = 0; i < 64; i++) CHECK_EQ(got[i], i < 63 ? 6 : 1);
  weft_buffer_release(out);
  weft_buffer_release(in);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A write 2^36 elements away would fault (or land anywhere): it is
 * reported with its distance and not made. So is one before the start. */
TEST(far_and_negative_writes) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global int *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  if (i == 3) out[i + (1L << 36)] = 1;\n"
      "  if (i == 0) out[(long)i - 2] = 1;\n"
      "  out[i] = 2;\n"
      "}\n");
  weft_buffer *out = support_ints(ctx, 16, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  const char *msg = launch_refused(k, 16, 16);
  CHECK_STR_CONTAINS(msg, "2 errors found by check mode");
  CHECK_STR_CONTAINS(msg, "program.cl:3:35: invalid write of 4 bytes by "
                          "work-item (3) [local (3) in work-group (0)], "
                          "274877906892 bytes past the end of argument 0 "
                          "'out' (64 bytes from where it points)");
  CHECK_STR_CONTAINS(msg, "program.cl:4:32: invalid write of 4 bytes by "
                          "work-item (0) [local (0) in work-group (0)], 8 "
                          "bytes before the start of argument 0 'out'");
  int got[16];
  support_read_ints(out, got, 16);
  for (int i = 0; i < 16; i++) CHECK_EQ(got[i], 2);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A private array indexed past its end, from a helper function: the
 * helper's line, the variable's name and size; counted once per site. */
TEST(private_array_in_helper) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "int pick(int i) {\n"
      "  int table[4] = {10, 20, 30, 40};\n"
      "  return table[i % 5];\n"
      "}\n"
      "__kernel void k(__global int *out) {\n"
      "  out[get_global_id(0)] = pick((int)get_global_id(0));\n"
      "}\n");
  weft_buffer *out = support_ints(ctx, 20, -1);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  const char *msg = launch_refused(k, 20, 4);
  CHECK_STR_CONTAINS(msg, "program.cl:3:10: invalid read of 4 bytes by "
                          "work-item (4) [local (0) in work-group (1)], just "
                          "past the end of private variable 'table' (16 "
                          "bytes); 4 times in all");
  int got[20];
  support_read_ints(out, got, 20);
  for (int i = 0; i < 20; i++) CHECK_EQ(got[i], i % 5 == 4 ? 0 : 10 * (i % 5 + 1));
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* __local memory: a kernel's variable and an argument's, each overrun by
 * the group's last work-item. */
TEST(local_variable_and_argument) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global int *out, __local int *scratch) {\n"
      "  __local int tile[16];\n"
      "  size_t l = get_local_id(0);\n"
      "  tile[l + 1] = 1;\n"
      "  scratch[l + 1] = 2;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = 3;\n"
      "}\n");
  weft_buffer *out = support_ints(ctx, 32, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, 16 * sizeof(int)), k);
  const char *msg = launch_refused(k, 32, 16);
  CHECK_STR_CONTAINS(msg, "program.cl:4:15: invalid write of 4 bytes by "
                          "work-item (15) [local (15) in work-group (0)], just "
                          "past the end of __local variable 'tile' (64 bytes); "
                          "2 times in all");
  CHECK_STR_CONTAINS(msg, "program.cl:5:18: invalid write of 4 bytes by "
                          "work-item (15) [local (15) in work-group (0)], just "
                          "past the end of argument 1 'scratch' (__local, 64 "
                          "bytes); 2 times in all");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A vector load that begins inside the buffer and ends outside it. */
TEST(vector_overrun) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global float *out, __global const float *in) {\n"
      "  size_t i = get_global_id(0);\n"
      "  float4 v = vload4(i, in);\n"
      "  out[i] = v.x + v.y + v.z + v.w;\n"
      "}\n");
  float init[10] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  weft_buffer *out = support_buffer(ctx, 3 * sizeof(float), NULL);
  weft_buffer *in = support_buffer(ctx, sizeof init, init);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, in), k);
  const char *msg = launch_refused(k, 3, 1);
  CHECK_STR_CONTAINS(msg, "invalid read of 16 bytes by work-item (2) [local "
                          "(0) in work-group (2)], at offset 32, overrunning "
                          "the end of argument 1 'in' (40 bytes from where it "
                          "points)");
  float got[3];
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  CHECK(got[0] == 4 && got[1] == 4 && got[2] == 0);
  weft_buffer_release(out);
  weft_buffer_release(in);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A histogram whose bin index runs past its bins: the atomic is named as
 * a read-modify-write and not made. */
TEST(atomic_out_of_bounds) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global int *bins, __global const uchar *data) {\n"
      "  atomic_inc(&bins[data[get_global_id(0)] / 16]);\n"
      "}\n");
  unsigned char data[64];
  for (int i = 0; i < 64; i++) data[i] = (unsigned char)(i * 4);
  weft_buffer *bins = support_ints(ctx, 8, 0);
  weft_buffer *in = support_buffer(ctx, sizeof data, data);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bins), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, in), k);
  const char *msg = launch_refused(k, 64, 8);
  CHECK_STR_CONTAINS(msg, "program.cl:2:3: invalid atomic read-modify-write of "
                          "4 bytes by work-item (32) [local (0) in work-group "
                          "(4)], just past the end of argument 0 'bins' (32 "
                          "bytes from where it points); 32 times in all");
  int got[8];
  support_read_ints(bins, got, 8);
  for (int i = 0; i < 8; i++) CHECK_EQ(got[i], 4);
  weft_buffer_release(bins);
  weft_buffer_release(in);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* An SVM pointer argument is checked against its allocation from where
 * it points. */
TEST(svm_pointer) {
  ctx = support_context();
  if (!support_device_info().svm) SKIP("the device has no SVM");
  weft_kernel *k = checked_kernel("__kernel void k(__global int *p) {\n"
                                  "  p[get_global_id(0)] = 1;\n"
                                  "}\n");
  int *mem;
  CHECK_OK(weft_svm_alloc(ctx, 64 * sizeof(int), 0, (void **)&mem), ctx);
  CHECK_OK(weft_kernel_set_arg_svm(k, 0, mem + 32), k);
  const char *msg = launch_refused(k, 33, 1);
  CHECK_STR_CONTAINS(msg, "by work-item (32) [local (0) in work-group (32)], "
                          "just past the end of argument 0 'p' (128 bytes from "
                          "where it points)");
  for (int i = 0; i < 64; i++) CHECK_EQ(mem[i], i >= 32);
  CHECK_OK(weft_svm_free(ctx, mem), ctx);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Half a group fills a __local array, and every work-item reads it. */
TEST(uninitialised_local_read) {
  ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "__kernel void k(__global int *out) {\n"
      "  __local int tile[16];\n"
      "  size_t l = get_local_id(0);\n"
      "  if (l < 8) tile[l] = (int)l;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = tile[15 - l];\n"
      "}\n",
      "-cl-weft-check=uninit");
  CPU_ONLY("check mode instruments the CPU device's code");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *out = support_ints(ctx, 32, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  const char *msg = launch_refused(k, 32, 16);
  CHECK_STR_CONTAINS(msg, "kernel 'k': 1 error found by check mode");
  CHECK_STR_CONTAINS(msg, "program.cl:6:27: uninitialised read of 4 bytes by "
                          "work-item (0) [local (0) in work-group (0)], at "
                          "offset 60 of __local variable 'tile' (64 bytes); 16 "
                          "times in all");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* A private array of which one element is set. Each group starts with
 * its __local memory unwritten again: a group reading what an earlier
 * group wrote is reported too. */
TEST(uninitialised_private_read) {
  ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "__kernel void k(__global int *out) {\n"
      "  int t[4];\n"
      "  t[0] = 1;\n"
      "  out[get_global_id(0)] = t[get_global_id(0) % 4];\n"
      "}\n",
      "-cl-weft-check=all");
  CPU_ONLY("check mode instruments the CPU device's code");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *out = support_ints(ctx, 8, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  const char *msg = launch_refused(k, 8, 8);
  CHECK_STR_CONTAINS(msg, "program.cl:4:27: uninitialised read of 4 bytes by "
                          "work-item (1) [local (1) in work-group (0)], at "
                          "offset 4 of private variable 't' (16 bytes); 6 times "
                          "in all");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* A buffer whose contents start undefined (OpenCL's without host data). */
static weft_buffer *undefined_buffer(size_t size) {
  weft_buffer *b;
  CHECK_OK(weft_buffer_create(ctx, size, WEFT_MEM_UNDEFINED, NULL, &b), ctx);
  return b;
}

/* A buffer whose contents start undefined: the host writes half of it, fills an
 * eighth, and a checked kernel reads all of it. The reads of bytes no one
 * wrote are reported (and made: the kernel goes on); what the kernel
 * wrote is followed too, so a second checked launch that reads it is
 * clean. */
TEST(uninitialised_buffer_read) {
  ctx = support_context();
  weft_kernel *k = checked_kernel_with("__kernel void k(__global int *out,\n"
                                       "                __global const int *in) {\n"
                                       "  size_t i = get_global_id(0);\n"
                                       "  out[i] = in[i] + 1;\n"
                                       "}\n",
                                       "-cl-weft-check=uninit");
  weft_buffer *in = undefined_buffer(64 * sizeof(int));
  weft_buffer *out = undefined_buffer(64 * sizeof(int));
  weft_buffer *again = undefined_buffer(64 * sizeof(int));
  int half[32], five = 5;
  for (int i = 0; i < 32; i++) half[i] = i;
  CHECK_OK(weft_buffer_write(in, 0, sizeof half, half), in);
  CHECK_OK(weft_buffer_fill(in, &five, sizeof five, 32 * sizeof(int),
                            8 * sizeof(int)), in);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, in), k);
  const char *msg = launch_refused(k, 64, 16);
  CHECK_STR_CONTAINS(msg, "kernel 'k': 1 error found by check mode");
  CHECK_STR_CONTAINS(msg, "program.cl:4:12: uninitialised read of 4 bytes by "
                          "work-item (40) [local (8) in work-group (2)], at "
                          "offset 160 of argument 1 'in' (256 bytes from where "
                          "it points); 24 times in all");
  int got[64];
  support_read_ints(out, got, 64);
  for (int i = 0; i < 40; i++) CHECK_EQ(got[i], i < 32 ? i + 1 : 6);
  bind(k, again, out);
  launch_clean(k, 64, 16);
  weft_buffer_release(in);
  weft_buffer_release(out);
  weft_buffer_release(again);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* out[i] = in[i], its read on line 4, column 12. */
static const char *const copy_ints = "__kernel void k(__global int *out,\n"
                                     "                __global const int *in) {\n"
                                     "  size_t i = get_global_id(0);\n"
                                     "  out[i] = in[i];\n"
                                     "}\n";

/* Bytes of address space this process has mapped. */
static size_t mapped_bytes(void) {
  unsigned long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%lu", &pages) != 1) FAIL("cannot read /proc/self/statm");
  fclose(f);
  return pages * (size_t)sysconf(_SC_PAGESIZE);
}

/* A buffer whose shadow cannot be mapped (the address space limited to
 * its data's mapping) is made all the same, and stderr says its reads
 * are not checked; a checked kernel then reads it without a report. */
TEST(uninitialised_buffer_without_room_for_its_shadow) {
  ctx = support_context();
  weft_kernel *k = checked_kernel_with(copy_ints, "-cl-weft-check=uninit");
  weft_buffer *out = support_ints(ctx, 64, 0);
  const size_t big = (size_t)1 << 30;
  struct rlimit old;
  CHECK(getrlimit(RLIMIT_AS, &old) == 0);
  struct rlimit tight = {mapped_bytes() + big + big / 2, old.rlim_max};
  CHECK(setrlimit(RLIMIT_AS, &tight) == 0);
  support_stderr_begin();
  weft_buffer *in;
  int rc = weft_buffer_create(ctx, big, WEFT_MEM_UNDEFINED, NULL, &in);
  const char *text = support_stderr_end();
  CHECK(setrlimit(RLIMIT_AS, &old) == 0);
  CHECK_OK(rc, ctx);
  CHECK_STR_CONTAINS(text, "weft: check mode: no uninitialised-read check of "
                           "a 1073741824-byte buffer: no memory for its shadow "
                           "(1073741888 bytes more)");
  bind(k, out, in);
  launch_clean(k, 64, 16);
  weft_buffer_release(in);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A map for writing counts as written; a sub-buffer shares its parent's
 * record (the offset reported is the sub-buffer's); a copy carries the
 * record with the bytes; a kernel built without the check may write any
 * byte, so its buffers are not followed after it. */
TEST(uninitialised_buffer_map_sub_copy_unchecked) {
  ctx = support_context();
  weft_kernel *k = checked_kernel_with(copy_ints, "-cl-weft-check=uninit");
  weft_kernel *plain = support_kernel(ctx, copy_ints, "k");
  weft_buffer *parent = undefined_buffer(32 * sizeof(int)), *sub;
  weft_buffer *out = undefined_buffer(32 * sizeof(int));
  int *mapped;
  CHECK_OK(weft_buffer_map(parent, 0, 16 * sizeof(int), WEFT_MAP_WRITE,
                           (void **)&mapped), parent);
  for (int i = 0; i < 16; i++) mapped[i] = i;
  CHECK_OK(weft_buffer_unmap(parent, mapped), parent);
  CHECK_OK(weft_buffer_create_sub(parent, 12 * sizeof(int), 8 * sizeof(int), 0,
                                  &sub), parent);
  bind(k, out, sub);
  CHECK_STR_CONTAINS(launch_refused(k, 8, 8),
                     "program.cl:4:12: uninitialised read of 4 bytes by "
                     "work-item (4) [local (4) in work-group (0)], at offset 16 "
                     "of argument 1 'in' (32 bytes from where it points); 4 "
                     "times in all");
  /* out's first 8 ints were written by the kernel, the rest by no one: a
   * copy of all of it into the parent carries that. */
  CHECK_OK(weft_buffer_copy(out, 0, parent, 0, 32 * sizeof(int)), parent);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, parent), k);
  CHECK_STR_CONTAINS(launch_refused(k, 32, 8),
                     "uninitialised read of 4 bytes by work-item (8) [local (0) "
                     "in work-group (1)], at offset 32 of argument 1 'in' (128 "
                     "bytes from where it points); 24 times in all");
  /* After an unchecked kernel writes parent, it is not followed. */
  bind(plain, parent, out);
  launch_clean(plain, 32, 8);
  bind(k, out, parent);
  launch_clean(k, 32, 8);
  weft_buffer_release(sub);
  weft_buffer_release(parent);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_kernel_release(plain);
  weft_context_release(ctx);
}

/* Correct kernels under the check: no report, the same results. A
 * tiled transpose through __local memory with barriers, reading and
 * writing every element. */
TEST(correct_kernel_passes) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "#define T 8\n"
      "__kernel void k(__global float *out, __global const float *in,\n"
      "                int n) {\n"
      "  __local float tile[T][T + 1];\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  int lx = get_local_id(0), ly = get_local_id(1);\n"
      "  tile[ly][lx] = in[y * n + x];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int ox = get_group_id(1) * T + lx, oy = get_group_id(0) * T + ly;\n"
      "  out[oy * n + ox] = tile[lx][ly];\n"
      "}\n");
  enum { N = 32 };
  float in[N * N], got[N * N];
  for (int i = 0; i < N * N; i++) in[i] = (float)i;
  weft_buffer *out = support_buffer(ctx, sizeof got, NULL);
  weft_buffer *src = support_buffer(ctx, sizeof in, in);
  int n = N;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, src), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 2, &n, sizeof n), k);
  size_t global[2] = {N, N}, local[2] = {8, 8};
  CHECK_OK(weft_kernel_launch(k, 2, NULL, global, local), k);
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  for (int y = 0; y < N; y++)
    for (int x = 0; x < N; x++) CHECK(got[y * N + x] == in[x * N + y]);
  weft_buffer_release(out);
  weft_buffer_release(src);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A division by zero is a warning: the launch succeeds with the defined
 * value, and stderr names the work-item and the line. */
TEST(division_by_zero_is_a_warning) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global int *a) {\n"
      "  int d = a[get_global_id(0)] + (get_global_id(0) != 20);\n"
      "  a[get_global_id(0)] = 100 / d;\n"
      "}\n");
  weft_buffer *a = support_ints(ctx, 64, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, a), k);
  support_stderr_begin();
  size_t global = 64, local = 16;
  int rc = weft_kernel_launch(k, 1, NULL, &global, &local);
  const char *text = support_stderr_end();
  CHECK_OK(rc, k);
  CHECK_STR_CONTAINS(text, "weft: kernel 'k': 1 warning from check mode\n"
                           "program.cl:3:29: warning: integer division by zero "
                           "by work-item (20) [local (4) in work-group (1)] (the "
                           "kernel went on: x / 0 gives all ones, x % 0 gives x)");
  int got[64];
  support_read_ints(a, got, 64);
  for (int i = 0; i < 64; i++) CHECK_EQ(got[i], i == 20 ? -1 : 100);
  weft_buffer_release(a);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* The option's list: a word Weft does not know is a build error that
 * says which words it takes. */
TEST(option_words) {
  CPU_ONLY("check mode instruments the CPU device's code");
  ctx = support_context();
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, "__kernel void k() {}", 0, &p), ctx);
  CHECK_FAILS(weft_program_build(p, "-cl-weft-check=memroy"), WEFT_EOPTION, p,
              "bad check list in '-cl-weft-check=memroy': expected a "
              "comma-separated list of memory, uninit and races, or all");
  CHECK_FAILS(weft_program_build(p, "-cl-weft-check=memory,"), WEFT_EOPTION, p,
              "bad check list in '-cl-weft-check=memory,'");
  CHECK_OK(weft_program_build(p, "-cl-weft-check=memory,races"), p);
  CHECK_OK(weft_program_build(p, "-cl-weft-check=all"), p);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* WEFT_CHECK=memory checks every program of the process, without the
 * option. */
TEST(environment_checks_every_program) {
  CPU_ONLY("check mode instruments the CPU device's code");
  setenv("WEFT_CHECK", "memory", 1);
  ctx = support_context();
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void k(__global int *out) {\n"
                                  "  out[get_global_id(0) + 1] = 1;\n"
                                  "}\n",
                                  "k");
  weft_buffer *out = support_ints(ctx, 4, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_STR_CONTAINS(launch_refused(k, 4, 4),
                     "invalid write of 4 bytes by work-item (3)");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST_MAIN()
