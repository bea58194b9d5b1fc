/* test_aggregate_atomics.c: atomics on one counter that the CPU's build
 * makes one per work-group (jit/cpu/aggregate_atomics.c): every work-item
 * still gets its own old value, a compaction keeps each value once, in
 * every group shape, with values and work-items that go around the cut
 * (an early return, a switch, phis), subtractions, 64-bit counters,
 * varying amounts, two counters, barriers and __local memory beside it;
 * and the kernels it must leave alone (a loop, an address per work-item,
 * a kernel another calls, -cl-weft-no-aggregate) are left alone and
 * still right; tables of up to 256 counters where the results go
 * unused (histograms). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* in[i]: both signs, no order. */
static int value_of(size_t i) { return (int)(i * 7919 % 2001) - 1000; }

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static int compare_longs(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

/* A kernel run: buffers of ints (init or fill), launched over dims. */
typedef struct run {
  weft_context *ctx;
  weft_program *p;
  weft_kernel *k;
  weft_buffer *b[6];
  unsigned nb;
} run;

static void run_start(run *r, const char *source, const char *options) {
  memset(r, 0, sizeof *r);
  r->ctx = support_context();
  r->p = support_build(r->ctx, source, options ? options : "-cl-std=CL3.0");
  CHECK_OK(weft_kernel_create(r->p, "k", &r->k), r->p);
}

/* Argument nb: a buffer of size bytes from init (or zeroed). */
static weft_buffer *run_buffer(run *r, size_t size, const void *init) {
  void *zeros = init ? NULL : calloc(1, size);
  weft_buffer *b = support_buffer(r->ctx, size, init ? init : zeros);
  free(zeros);
  CHECK_OK(weft_kernel_set_arg_buffer(r->k, r->nb, b), r->k);
  r->b[r->nb++] = b;
  return b;
}

static void run_launch(run *r, unsigned dims, const size_t *global,
                       const size_t *local) {
  CHECK_OK(weft_kernel_launch(r->k, dims, NULL, global, local), r->k);
}

/* Runs "k" of source over global items in groups of local with three
 * buffer arguments: n ints from in, out_bytes and third_bytes zeroed. */
static void run_three(run *r, const char *source, const int *in, size_t n,
                      size_t out_bytes, size_t third_bytes, size_t global,
                      size_t local) {
  run_start(r, source, NULL);
  run_buffer(r, n * sizeof *in, in);
  run_buffer(r, out_bytes, NULL);
  run_buffer(r, third_bytes, NULL);
  run_launch(r, 1, &global, &local);
}

static void run_read(run *r, unsigned arg, size_t size, void *out) {
  CHECK_OK(weft_buffer_read(r->b[arg], 0, size, out), r->b[arg]);
}

static void run_end(run *r) {
  for (unsigned i = 0; i < r->nb; i++) weft_buffer_release(r->b[i]);
  weft_kernel_release(r->k);
  weft_program_release(r->p);
  weft_context_release(r->ctx);
}

static int *inputs(size_t n) {
  int *in = malloc(n * sizeof *in);
  CHECK(in);
  for (size_t i = 0; i < n; i++) in[i] = value_of(i);
  return in;
}

/* out[0..count) holds exactly the positive values of in[0..n). */
static void check_kept(const int *in, size_t n, int *out, int count) {
  int *want = malloc(n * sizeof *want);
  CHECK(want);
  int kept = 0;
  for (size_t i = 0; i < n; i++)
    if (in[i] > 0) want[kept++] = in[i];
  CHECK_EQ(count, kept);
  qsort(want, (size_t)kept, sizeof *want, compare_ints);
  qsort(out, (size_t)count, sizeof *out, compare_ints);
  for (int i = 0; i < kept; i++) CHECK_EQ(out[i], want[i]);
  free(want);
}

static const char *compaction =
    "__kernel void k(__global const int *in, __global int *out,\n"
    "                __global int *count) {\n"
    "  int v = in[get_global_linear_id()];\n"
    "  if (v > 0) out[atomic_inc(count)] = v;\n"
    "}\n";

static void compact(unsigned dims, const size_t *global, const size_t *local) {
  size_t n = global[0] * (dims > 1 ? global[1] : 1) * (dims > 2 ? global[2] : 1);
  int *in = inputs(n), *out = calloc(n, sizeof *out), count;
  CHECK(out);
  run r;
  run_start(&r, compaction, NULL);
  run_buffer(&r, n * sizeof *in, in);
  run_buffer(&r, n * sizeof *out, NULL);
  run_buffer(&r, sizeof count, NULL);
  run_launch(&r, dims, global, local);
  run_read(&r, 2, sizeof count, &count);
  CHECK(count >= 0 && (size_t)count <= n);
  run_read(&r, 1, (size_t)count * sizeof *out, out);
  check_kept(in, n, out, count);
  run_end(&r);
  free(in);
  free(out);
}

TEST(compaction_keeps_each_value_once) {
  size_t global = 1 << 16, locals[] = {256, 64, 16, 1};
  for (size_t i = 0; i < sizeof locals / sizeof *locals; i++)
    compact(1, &global, &locals[i]);
}

/* 1000 items in groups of 40, and in those Weft chooses. */
TEST(compaction_in_odd_groups) {
  size_t global = 1000, local = 40;
  compact(1, &global, &local);
  compact(1, &global, NULL);
}

TEST(compaction_in_three_dimensions) {
  size_t global[3] = {32, 12, 6}, local[3] = {8, 4, 2};
  compact(3, global, local);
}

/* Work-items leave before the atomic (a return), take other ways (a
 * switch) and carry values past the cut (a phi fed where the atomic is
 * not reached). */
TEST(work_items_and_values_go_around_the_cut) {
  static const char *source =
      "__kernel void k(__global const int *in, __global int *out,\n"
      "                __global int *slots, __global int *count, int n) {\n"
      "  int i = get_global_id(0);\n"
      "  if (i >= n) return;\n"
      "  int x = in[i], y = 3 * x;\n"
      "  switch (x & 3) {\n"
      "  case 0: y = atomic_inc(count); slots[y] = x; break;\n"
      "  case 1: y = -y; break;\n"
      "  case 2: return;\n"
      "  default: break;\n"
      "  }\n"
      "  out[i] = y + 1;\n"
      "}\n";
  enum { N = 3000 };
  size_t global = 3072, local = 128;
  int *in = inputs(N), *out = malloc(N * sizeof *out), *slots = calloc(N, sizeof *slots);
  CHECK(out && slots);
  for (int i = 0; i < N; i++) out[i] = -7;
  run r;
  run_start(&r, source, NULL);
  run_buffer(&r, N * sizeof *in, in);
  run_buffer(&r, N * sizeof *out, out);
  run_buffer(&r, N * sizeof *slots, NULL);
  run_buffer(&r, sizeof(int), NULL);
  int n = N;
  CHECK_OK(weft_kernel_set_arg_value(r.k, 4, &n, sizeof n), r.k);
  run_launch(&r, 1, &global, &local);
  int count;
  run_read(&r, 3, sizeof count, &count);
  run_read(&r, 1, N * sizeof *out, out);
  run_read(&r, 2, N * sizeof *slots, slots);
  unsigned char *taken = calloc(N, 1);
  CHECK(taken);
  int zeros = 0;
  for (int i = 0; i < N; i++) {
    int x = in[i];
    switch (x & 3) {
    case 0: {
      int s = out[i] - 1;
      CHECK(s >= 0 && s < count && !taken[s]);
      taken[s] = 1;
      CHECK_EQ(slots[s], x);
      zeros++;
      break;
    }
    case 1: CHECK_EQ(out[i], -3 * x + 1); break;
    case 2: CHECK_EQ(out[i], -7); break;
    default: CHECK_EQ(out[i], 3 * x + 1); break;
    }
  }
  CHECK_EQ(count, zeros);
  free(taken);
  free(slots);
  free(out);
  free(in);
  run_end(&r);
}

/* Subtractions of varying amounts on a 32-bit counter and additions on a
 * 64-bit one: sorted by old value, each work-item's range starts where
 * the one before ended, as one atomic at a time would leave them; adds
 * of 0 read the counter. */
/* A __local counter reached through a generic pointer in a function
 * (the CTS's c11_atomics atomic_fetch_add) is the group's own: never
 * aggregated as if global, its sum right. */
TEST(local_counters_through_generic_pointers) {
  static const char *source =
      "void add(volatile atomic_int *c, uint tid) {\n"
      "  atomic_fetch_add_explicit(c, (int)tid + 3, memory_order_relaxed,\n"
      "                            memory_scope_work_group);\n"
      "  atomic_fetch_add_explicit(c, ((int)tid + 3) << 8,\n"
      "                            memory_order_relaxed,\n"
      "                            memory_scope_work_group);\n"
      "}\n"
      "__kernel void k(__global int *out, volatile __local atomic_int *c) {\n"
      "  if (get_local_id(0) == 0)\n"
      "    atomic_store_explicit(c, 0, memory_order_relaxed,\n"
      "                          memory_scope_work_group);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  add(c, get_local_id(0));\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  if (get_local_id(0) == 0)\n"
      "    out[get_group_id(0)] = atomic_load_explicit(c,\n"
      "        memory_order_relaxed, memory_scope_work_group);\n"
      "}\n";
  size_t global = 4096, local = 1024;
  run r;
  run_start(&r, source, NULL);
  run_buffer(&r, 4 * sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_local(r.k, 1, sizeof(int)), r.k);
  run_launch(&r, 1, &global, &local);
  int out[4];
  run_read(&r, 0, sizeof out, out);
  int want = 0;
  for (int t = 0; t < 1024; t++) want += (t + 3) + ((t + 3) << 8);
  for (int g = 0; g < 4; g++) CHECK_EQ(out[g], want);
  run_end(&r);
}

TEST(old_values_of_varying_amounts_tile_the_counter) {
  static const char *source =
      "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n"
      "__kernel void k(__global const int *in, __global long *old,\n"
      "                __global int *down, __global long *up,\n"
      "                __global int *same) {\n"
      "  size_t i = get_global_id(0);\n"
      "  int x = in[i];\n"
      "  long a = -1, b = -1;\n"
      "  if (x % 3 == 0) a = atomic_sub(down, (x & 7) + 1);\n"
      "  if (x > 100) b = atom_add(up, (long)((x & 15) + 1) << 33);\n"
      "  old[2 * i] = a;\n"
      "  old[2 * i + 1] = b;\n"
      "  if (x & 1) same[i] = atomic_add(&same[N], 0);\n"
      "}\n";
  enum { N = 4096 };
  size_t global = N, local = 256;
  int *in = inputs(N), start = 1 << 20, down;
  int *same = calloc(N + 1, sizeof *same);
  long *old = malloc(2 * N * sizeof *old), up = 5;
  long (*d)[2] = malloc(N * sizeof *d), (*u)[2] = malloc(N * sizeof *u);
  CHECK(old && d && u && same);
  same[N] = 42;
  run r;
  run_start(&r, source, "-cl-std=CL3.0 -DN=4096");
  run_buffer(&r, N * sizeof *in, in);
  run_buffer(&r, 2 * N * sizeof *old, NULL);
  run_buffer(&r, sizeof start, &start);
  run_buffer(&r, sizeof up, &up);
  run_buffer(&r, (N + 1) * sizeof *same, same);
  run_launch(&r, 1, &global, &local);
  run_read(&r, 4, (N + 1) * sizeof *same, same);
  for (size_t i = 0; i <= N; i++) CHECK_EQ(same[i], i == N || (in[i] & 1) ? 42 : 0);
  run_read(&r, 1, 2 * N * sizeof *old, old);
  run_read(&r, 2, sizeof down, &down);
  run_read(&r, 3, sizeof up, &up);
  size_t nd = 0, nu = 0;
  for (size_t i = 0; i < N; i++) {
    if (in[i] % 3 == 0) d[nd][0] = old[2 * i], d[nd++][1] = (in[i] & 7) + 1;
    else CHECK_EQ(old[2 * i], -1);
    if (in[i] > 100) u[nu][0] = old[2 * i + 1], u[nu++][1] = (long)((in[i] & 15) + 1) << 33;
    else CHECK_EQ(old[2 * i + 1], -1);
  }
  CHECK(nd > 100 && nu > 100);
  qsort(d, nd, sizeof *d, compare_longs);
  qsort(u, nu, sizeof *u, compare_longs);
  /* Down from start: the highest old value is the start. */
  CHECK_EQ(d[nd - 1][0], (long)start);
  for (size_t k = nd - 1; k > 0; k--) CHECK_EQ(d[k - 1][0], d[k][0] - d[k][1]);
  CHECK_EQ((long)down, d[0][0] - d[0][1]);
  CHECK_EQ(u[0][0], 5L);
  for (size_t k = 0; k + 1 < nu; k++) CHECK_EQ(u[k + 1][0], u[k][0] + u[k][1]);
  CHECK_EQ(up, u[nu - 1][0] + u[nu - 1][1]);
  free(d);
  free(u);
  free(same);
  free(old);
  free(in);
  run_end(&r);
}

/* Two counters, a barrier and __local memory before and after them. */
TEST(two_counters_beside_barriers_and_local_memory) {
  static const char *source =
      "__kernel void k(__global const int *in, __global int *out,\n"
      "                __global int *counts) {\n"
      "  __local int t[64];\n"
      "  size_t l = get_local_id(0), i = get_global_id(0);\n"
      "  t[l] = in[i];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int v = t[63 - l];\n"
      "  if (v > 0) out[atomic_inc(&counts[0])] = v;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  t[l] = -v;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  if (t[l ^ 1] > 0) out[get_global_size(0) + atomic_inc(&counts[1])] = t[l ^ 1];\n"
      "}\n";
  enum { N = 8192 };
  size_t global = N, local = 64;
  int *in = inputs(N), *out = calloc(2 * N, sizeof *out), counts[2];
  CHECK(out);
  run r;
  run_three(&r, source, in, N, 2 * N * sizeof *out, sizeof counts, global,
            local);
  run_read(&r, 2, sizeof counts, counts);
  run_read(&r, 1, 2 * N * sizeof *out, out);
  check_kept(in, N, out, counts[0]);
  /* The second keeps the negative values, negated. */
  int *neg = malloc(N * sizeof *neg);
  CHECK(neg);
  for (int i = 0; i < N; i++) neg[i] = -in[i];
  check_kept(neg, N, out + N, counts[1]);
  free(neg);
  free(out);
  free(in);
  run_end(&r);
}

/* A histogram of 8 and of 3 bins (v % 3 of the positive values), each
 * work-item keeping the old value of its bin: per bin, the old values are
 * 0 to its count - 1, each once. */
TEST(counters_of_a_small_table_each_give_distinct_slots) {
  static const char *source =
      "__kernel void k(__global const int *in, __global int *old,\n"
      "                __global int *bins) {\n"
      "  size_t i = get_global_id(0);\n"
      "  int v = in[i];\n"
      "  old[2 * i] = atomic_inc(&bins[v & 7]);\n"
      "  old[2 * i + 1] = v > 0 ? atomic_add(&bins[8 + (uint)v % 3u], 2) : -1;\n"
      "}\n";
  enum { N = 6000, BINS = 11 };
  size_t global = N, local = 200;
  int *in = inputs(N), *old = malloc(2 * N * sizeof *old), bins[BINS];
  CHECK(old);
  run r;
  run_three(&r, source, in, N, 2 * N * sizeof *old, sizeof bins, global,
            local);
  run_read(&r, 1, 2 * N * sizeof *old, old);
  run_read(&r, 2, sizeof bins, bins);
  int want[BINS] = {0};
  for (size_t i = 0; i < N; i++) {
    want[in[i] & 7]++;
    if (in[i] > 0) {
      want[8 + in[i] % 3] += 2;
    } else {
      CHECK_EQ(old[2 * i + 1], -1);
    }
  }
  for (int b = 0; b < BINS; b++) CHECK_EQ(bins[b], want[b]);
  /* Per bin, the old values sorted are 0, step, 2 step ...: distinct. */
  for (int b = 0; b < BINS; b++) {
    int step = b < 8 ? 1 : 2, n = 0;
    int *vals = malloc(N * sizeof *vals);
    CHECK(vals);
    for (size_t i = 0; i < N; i++) {
      if (b < 8 && (in[i] & 7) == b) vals[n++] = old[2 * i];
      if (b >= 8 && in[i] > 0 && 8 + in[i] % 3 == b) vals[n++] = old[2 * i + 1];
    }
    qsort(vals, (size_t)n, sizeof *vals, compare_ints);
    for (int k = 0; k < n; k++) CHECK_EQ(vals[k], k * step);
    free(vals);
  }
  free(old);
  free(in);
  run_end(&r);
}

/* Whether the CPU's IR dumped for program n holds aggregate_atomics.c's
 * cut (its values keep their names). */
static int aggregated_in(const char *dir, int n) {
  return support_dumped_ir_lines(dir, n, "%aggregate.") > 0;
}

/* Builds source into the dump folder as program n, runs it over 4096
 * items in groups of 128 and checks that count (argument 2) ends at
 * want (argument 1 holds in[], argument 0 nothing). */
static int build_and_count(const char *dir, int n, const char *source,
                           const char *options, int want) {
  enum { N = 4096 };
  size_t global = N, local = 128;
  int *in = inputs(N), count;
  run r;
  run_start(&r, source, options);
  run_buffer(&r, N * sizeof *in, NULL);
  run_buffer(&r, N * sizeof *in, in);
  run_buffer(&r, 16 * sizeof count, NULL);
  run_launch(&r, 1, &global, &local);
  run_read(&r, 2, sizeof count, &count);
  CHECK_EQ(count, want);
  run_end(&r);
  free(in);
  return aggregated_in(dir, n);
}

TEST(only_shared_counters_passed_once_are_aggregated) {
  CPU_ONLY("reads the CPU's dumped IR");
  static const char *plain =
      "__kernel void k(__global int *o, __global const int *in,\n"
      "                __global int *c) {\n"
      "  if (in[get_global_id(0)] > 0) o[atomic_inc(c)] = 1;\n"
      "}\n";
  static const char *in_loop =
      "__kernel void k(__global int *o, __global const int *in,\n"
      "                __global int *c) {\n"
      "  for (int j = 0; j < (in[get_global_id(0)] & 1); j++)\n"
      "    o[atomic_inc(c)] = 1;\n"
      "}\n";
  /* A table of counters whose index has no bound the pass can see. */
  static const char *per_item =
      "__kernel void k(__global int *o, __global const int *in,\n"
      "                __global int *c) {\n"
      "  int v = in[get_global_id(0)];\n"
      "  if (v > 0) atomic_inc(&c[min(v & 15, 3)]);\n"
      "}\n";
  /* One of 16 counters: aggregated per counter. */
  static const char *keyed =
      "__kernel void k(__global int *o, __global const int *in,\n"
      "                __global int *c) {\n"
      "  int v = in[get_global_id(0)];\n"
      "  if (v > 0) atomic_inc(&c[v & 15]);\n"
      "}\n";
  /* The callee's cut would be a barrier only odd work-items reach. */
  static const char *called =
      "__kernel void callee(__global int *o, __global const int *in,\n"
      "                     __global int *c) {\n"
      "  if (in[get_global_id(0)] > 0) atomic_inc(c);\n"
      "}\n"
      "__kernel void k(__global int *o, __global const int *in,\n"
      "                __global int *c) {\n"
      "  if (get_local_id(0) & 1) callee(o, in, c);\n"
      "}\n";
  /* One work-item a group: already one atomic a group. */
  static const char *one_each =
      "__kernel void k(__global int *o, __global const int *in,\n"
      "                __global int *c) {\n"
      "  if (get_local_id(0) == 5 && in[get_global_id(0)] > 0) atomic_inc(c);\n"
      "}\n";
  char dir[] = "/tmp/weft-aggregate-XXXXXX";
  support_dump_ir_begin(dir);
  int positive = 0, odd_positive = 0, odd = 0, in_slot0 = 0, fifth = 0;
  for (size_t i = 0; i < 4096; i++) {
    int v = value_of(i);
    positive += v > 0;
    odd_positive += v > 0 && (i & 1);
    odd += v & 1;
    in_slot0 += v > 0 && (v & 15) == 0;
    fifth += v > 0 && i % 128 == 5;
  }
  CHECK(build_and_count(dir, 0, plain, NULL, positive));
  CHECK(!build_and_count(dir, 1, plain, "-cl-std=CL3.0 -cl-weft-no-aggregate",
                         positive));
  CHECK(!build_and_count(dir, 2, in_loop, NULL, odd));
  CHECK(!build_and_count(dir, 3, per_item, NULL, in_slot0));
  CHECK(!build_and_count(dir, 4, called, NULL, odd_positive));
  CHECK(!build_and_count(dir, 5, one_each, NULL, fifth));
  CHECK(build_and_count(dir, 6, keyed, NULL, in_slot0));
  support_dump_ir_end(dir);
}

/* A histogram: 256 counters whose atomics' results go unused, beside a
 * second table of 128 with varying amounts: both made one atomic per
 * group and counter on the CPU (the wide tables); with the results used,
 * past 16 counters, the atomics stay as they are. Runs both in groups of
 * 64, which leave most counters unreached, and checks the counts and
 * that the old values per bin are distinct. */
static void check_histograms(void) {
  static const char *unused =
      "__kernel void k(__global const int *in, __global int *o,\n"
      "                __global int *c) {\n"
      "  int v = in[get_global_id(0)];\n"
      "  atomic_inc(&c[v & 255]);\n"
      "  __global int *d = c + 256;\n"
      "  if (v > 0) atomic_add(&d[v & 127], v & 3);\n"
      "}\n";
  static const char *used =
      "__kernel void k(__global const int *in, __global int *o,\n"
      "                __global int *c) {\n"
      "  int v = in[get_global_id(0)];\n"
      "  o[get_global_id(0)] = atomic_inc(&c[v & 255]);\n"
      "}\n";
  enum { N = 4096, BINS = 384 };
  int *in = inputs(N), *old = malloc(N * sizeof *old);
  int *vals = malloc(N * sizeof *vals), bins[BINS], want[BINS] = {0};
  CHECK(old && vals);
  for (size_t i = 0; i < N; i++) {
    want[in[i] & 255]++;
    if (in[i] > 0) want[256 + (in[i] & 127)] += in[i] & 3;
  }
  run r;
  run_three(&r, unused, in, N, N * sizeof *old, sizeof bins, N, 64);
  run_read(&r, 2, sizeof bins, bins);
  run_end(&r);
  for (int b = 0; b < BINS; b++) CHECK_EQ(bins[b], want[b]);
  run_three(&r, used, in, N, N * sizeof *old, sizeof bins, N, 64);
  run_read(&r, 1, N * sizeof *old, old);
  run_read(&r, 2, sizeof bins, bins);
  run_end(&r);
  for (int b = 0; b < 256; b++) {
    CHECK_EQ(bins[b], want[b]);
    int n = 0;
    for (size_t i = 0; i < N; i++)
      if ((in[i] & 255) == b) vals[n++] = old[i];
    qsort(vals, (size_t)n, sizeof *vals, compare_ints);
    for (int k = 0; k < n; k++) CHECK_EQ(vals[k], k);
  }
  free(vals);
  free(old);
  free(in);
}

TEST(histograms_of_256_bins) { check_histograms(); }

TEST(wide_tables_only_where_results_go_unused) {
  CPU_ONLY("reads the CPU's dumped IR");
  char dir[] = "/tmp/weft-aggregate-XXXXXX";
  support_dump_ir_begin(dir);
  check_histograms();
  CHECK(aggregated_in(dir, 0));
  CHECK(!aggregated_in(dir, 1));
  support_dump_ir_end(dir);
}

TEST_MAIN()
