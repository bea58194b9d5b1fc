/* test_check_races.c: check mode's race check (-cl-weft-check=races).
 * Each seeded race is reported with its whole text -- the kind, both
 * work-items, both lines, the object and the offset -- and correct
 * kernels that order their accesses by barriers, locks or flags, or that
 * share words without sharing bytes, run clean with the right results. */
#include <stdint.h>

#include "support.h"

#define CHECKED "-cl-weft-check=races"

/* A report names the first work-item that raced at its site; with groups
 * run in order on one thread, that is the same work-item every time. */
__attribute__((constructor)) static void one_thread(void) {
  setenv("WEFT_NUM_THREADS", "1", 0);
}

static weft_context *ctx;

static weft_kernel *checked_kernel(const char *source, const char *options) {
  CPU_ONLY("check mode instruments the CPU device's code");
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_program_release(p);
  return k;
}

/* Launches k over global items in groups of local, expecting check
 * mode's failure; returns the message. */
static const char *launch_refused(weft_kernel *k, size_t global, size_t local) {
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), WEFT_ECHECK, k,
              "kernel 'k': ");
  return weft_errmsg(k);
}

static void launch_ok(weft_kernel *k, size_t global, size_t local) {
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
}

/* A correct kernel k(__global int *out) over global items in groups of
 * local runs with no report, and every element of out is want. */
static void runs_clean(const char *source, size_t global, size_t local,
                       int want) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(source, CHECKED);
  weft_buffer *out = support_ints(ctx, global, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  launch_ok(k, global, local);
  int *got = malloc(global * sizeof *got);
  support_read_ints(out, got, global);
  for (size_t i = 0; i < global; i++) CHECK_EQ(got[i], want);
  free(got);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A neighbour exchange through __local memory without its barrier: each
 * work-item's write races with its neighbour's read, both ways round. */
TEST(local_exchange_without_barrier) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global int *out) {\n"
      "  __local int tile[16];\n"
      "  size_t l = get_local_id(0);\n"
      "  tile[l] = (int)l;\n"
      "  out[get_global_id(0)] = tile[(l + 1) % 16];\n"
      "}\n",
      CHECKED);
  weft_buffer *out = support_ints(ctx, 32, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  const char *msg = launch_refused(k, 32, 16);
  CHECK_STR_CONTAINS(msg,
      "kernel 'k': 2 errors found by check mode (invalid accesses were not "
      "carried out)\n"
      "program.cl:4:11: read-write race on __local variable 'tile' (64 bytes) "
      "at offset 4: work-item (1) [local (1) in work-group (0)] writes 4 bytes "
      "here, and work-item (0) [local (0) in work-group (0)] read them at "
      "program.cl:5:27, with no barrier between; 30 times in all\n"
      "program.cl:5:27: read-write race on __local variable 'tile' (64 bytes) "
      "at offset 0: work-item (15) [local (15) in work-group (0)] reads 4 "
      "bytes here, and work-item (0) [local (0) in work-group (0)] wrote them "
      "at program.cl:4:11, with no barrier between; 2 times in all");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Work-item 0 of every group increments out[0] without an atomic: the
 * groups' reads and writes race, and nothing orders them. */
TEST(groups_update_one_word) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global int *out) {\n"
      "  if (get_local_id(0) == 0) out[0] = out[0] + 1;\n"
      "}\n",
      CHECKED);
  weft_buffer *out = support_ints(ctx, 1, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  const char *msg = launch_refused(k, 64, 8);
  CHECK_STR_CONTAINS(msg,
      "program.cl:2:38: read-write race on argument 0 'out' (4 bytes from "
      "where it points) at offset 0: work-item (8) [local (0) in work-group "
      "(1)] reads 4 bytes here, and work-item (0) [local (0) in work-group "
      "(0)] wrote them at program.cl:2:36, in another work-group, and no "
      "atomic, lock or flag orders the two; 7 times in all\n"
      "program.cl:2:36: write-write race on argument 0 'out' (4 bytes from "
      "where it points) at offset 0: work-item (8) [local (0) in work-group "
      "(1)] writes 4 bytes here, and work-item (0) [local (0) in work-group "
      "(0)] wrote them at program.cl:2:36, in another work-group, and no "
      "atomic, lock or flag orders the two; 7 times in all");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A tree reduction whose loop lacks its barrier: the race is found at the
 * lines inside the helper function that make it. */
TEST(reduction_missing_barrier_in_helper) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "void add(__local float *s, size_t l, size_t step) {\n"
      "  if (l < step) s[l] += s[l + step];\n"
      "}\n"
      "__kernel void k(__global const float *in, __global float *out,\n"
      "                __local float *s) {\n"
      "  size_t l = get_local_id(0);\n"
      "  s[l] = in[get_global_id(0)];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  for (size_t n = get_local_size(0) / 2; n > 0; n /= 2)\n"
      "    add(s, l, n);\n"
      "  if (l == 0) out[get_group_id(0)] = s[0];\n"
      "}\n",
      CHECKED);
  weft_buffer *in = support_ints(ctx, 64, 0), *out = support_ints(ctx, 2, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, in), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, out), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 2, 32 * sizeof(float)), k);
  const char *msg = launch_refused(k, 64, 32);
  /* Work-item 0 runs its whole loop first: the race shows at the writes
   * of the others, after its reads. */
  CHECK_STR_CONTAINS(msg,
      "kernel 'k': 1 error found by check mode (invalid accesses were not "
      "carried out)\n"
      "program.cl:2:22: read-write race on argument 2 's' (__local, 128 "
      "bytes) at offset 4: work-item (1) [local (1) in work-group (0)] writes "
      "4 bytes here, and work-item (0) [local (0) in work-group (0)] read "
      "them at program.cl:2:25, with no barrier between; 52 times in all");
  weft_buffer_release(in);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Bytes of one word written by different work-items do not race; a
 * barrier orders the exchange. */
TEST(neighbouring_bytes_and_barriers_are_clean) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global int *out, __global int *copy) {\n"
      "  __local uchar b[64];\n"
      "  size_t l = get_local_id(0), g = get_global_id(0);\n"
      "  b[l] = (uchar)l;\n"
      "  out[g] = (int)g;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
      "  copy[g] = b[(l + 1) % 64] + 1000 * out[g - l + (l + 1) % 64];\n"
      "}\n",
      CHECKED);
  weft_buffer *out = support_ints(ctx, 128, 0), *copy = support_ints(ctx, 128, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, copy), k);
  launch_ok(k, 128, 64);
  int got[128];
  support_read_ints(copy, got, 128);
  for (int g = 0; g < 128; g++) {
    int l = g % 64, next = (l + 1) % 64;
    CHECK_EQ(got[g], next + 1000 * (g - l + next));
  }
  weft_buffer_release(out);
  weft_buffer_release(copy);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A lock made of a compare-and-swap and an exchange orders its critical
 * sections, across groups: no report, and every increment counts. */
TEST(correct_lock_is_clean) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(volatile __global int *lock, __global int *count) {\n"
      "  if (get_local_id(0) != 0) return;\n"
      "  while (atomic_cmpxchg(lock, 0, 1) != 0) {}\n"
      "  count[0] = count[0] + 1;\n"
      "  atomic_xchg(lock, 0);\n"
      "}\n",
      CHECKED);
  weft_buffer *lock = support_ints(ctx, 1, 0), *count = support_ints(ctx, 1, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, lock), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, count), k);
  launch_ok(k, 64, 4);
  int got;
  support_read_ints(count, &got, 1);
  CHECK_EQ(got, 16);
  weft_buffer_release(lock);
  weft_buffer_release(count);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A flag of OpenCL 2.0: group 0 writes data, then releases the flag; the
 * other groups acquire it, then read the data. Ordered: no report. */
TEST(release_acquire_flag_is_clean) {
  ctx = support_context();
  weft_kernel *k = checked_kernel(
      "__kernel void k(__global atomic_int *flag, __global int *data,\n"
      "                __global int *out) {\n"
      "  size_t g = get_group_id(0);\n"
      "  if (get_local_id(0) != 0) return;\n"
      "  if (g == 0) {\n"
      "    data[0] = 42;\n"
      "    atomic_store_explicit(flag, 1, memory_order_release);\n"
      "  } else {\n"
      "    while (!atomic_load_explicit(flag, memory_order_acquire)) {}\n"
      "    out[g] = data[0];\n"
      "  }\n"
      "}\n",
      CHECKED " -cl-std=CL2.0");
  weft_buffer *flag = support_ints(ctx, 1, 0), *data = support_ints(ctx, 1, 0), *out = support_ints(ctx, 4, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, flag), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, data), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, out), k);
  launch_ok(k, 16, 4);
  int got[4];
  support_read_ints(out, got, 4);
  for (int g = 1; g < 4; g++) CHECK_EQ(got[g], 42);
  weft_buffer_release(flag);
  weft_buffer_release(data);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* A lock among a group's work-items, in __local memory, orders their
 * critical sections too. */
TEST(group_lock_in_local_memory_is_clean) {
  runs_clean(
      "__kernel void k(__global int *out) {\n"
      "  __local int lock, inside;\n"
      "  if (get_local_id(0) == 0) { lock = 0; inside = 0; }\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  while (atomic_xchg(&lock, 1) != 0) {}\n"
      "  inside = inside + 1;\n"
      "  atomic_xchg(&lock, 0);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = inside;\n"
      "}\n",
      32, 16, 16);
}

/* Atomic counters do not race with each other, and the result read after
 * the barrier is ordered. */
TEST(local_atomics_then_barrier_are_clean) {
  runs_clean(
      "__kernel void k(__global int *out) {\n"
      "  __local int n;\n"
      "  if (get_local_id(0) == 0) n = 0;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  atomic_inc(&n);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = n;\n"
      "}\n",
      64, 32, 32);
}

TEST_MAIN()
