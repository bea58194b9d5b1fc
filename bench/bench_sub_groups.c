/*
 * bench_sub_groups.c: sub-group functions on Weft's first device (the CPU,
 * or the GPU that WEFT_DEVICE=cuda puts first), each kernel beside the
 * one it should beat, in one process.
 *
 *   compact_atomic   keep the positive ints of 16M (half of them), a slot
 *                    each from atomic_inc on one counter, built with
 *                    -cl-weft-no-aggregate
 *   compact_auto     the same kernel as Weft builds it by default: on the
 *                    CPU, one atomic per work-group (aggregate_atomics.c)
 *   histogram16_atomic  the 16M ints counted in 16 bins (v & 15), an
 *                    atomic_inc each, built with -cl-weft-no-aggregate
 *   histogram16_auto the same as Weft builds it by default: on the CPU,
 *                    one atomic per work-group and bin
 *   compact_ballot   the same, aggregated by hand (NVIDIA's "warp-
 *                    aggregated atomics"): a ballot, one atomic_add per
 *                    sub-group by its elected lane, a broadcast, each
 *                    lane's slot from the ballot's exclusive scan
 *   compact_divergent the same as NVIDIA's blog writes it: inside the
 *                    branch of the lanes that keep a value, the ballot
 *                    of those lanes, the elected one's atomic_add, a
 *                    non-uniform broadcast from the first of them
 *   reduce_tree      16M ints summed in groups of 256 through a __local
 *                    tree (a barrier per level)
 *   reduce_group     the same with work_group_reduce_add
 *   reduce_sub_group the same with sub_group_reduce_add, one partial sum
 *                    per sub-group
 *   reduce_two_level the sum of each group from sub-groups: their sums
 *                    in __local memory, a barrier, the first sub-group
 *                    adding them up (a loop) and reducing those
 *   reduce_tree_tail the tree down to 32 sums, then sub_group_reduce_add
 *                    of those in the work-items that hold them
 *   scan_tree        16M ints scanned (inclusive sums) in groups of 256
 *                    through a __local tree (Hillis and Steele, a
 *                    barrier a step)
 *   scan_group       the same with work_group_scan_inclusive_add
 *   scan_sub_group   the same from sub_group_scan_inclusive_add, each
 *                    sub-group's total through __local memory
 *   sub_group_loop_slots  a sixty-fourth of the ints, four sub-group
 *                    reductions and broadcasts in a loop, built with
 *                    -cl-weft-no-jam (on the CPU: the slots, on fibers,
 *                    as meetings in a loop are)
 *   sub_group_loop   the same as Weft builds it by default: on the CPU,
 *                    whole sub-groups side by side (jam_sub_groups.c)
 *
 * Each runs once untimed, then reps times; the median is reported. Every
 * result is checked against the host (the compacted values as a multiset
 * through their sum and count; the sums exactly).
 *
 * CSV: benchmark,device,ms,over_baseline (the compactions over
 * compact_atomic, the histograms over histogram16_atomic, the reductions over reduce_tree, the scans over
 * scan_tree, the loops over sub_group_loop_slots; below 1: faster).
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *source =
    "__kernel void sub_group_loop(__global const int *in, __global int *out) {\n"
    "  int x = in[get_global_id(0)], s = 0;\n"
    "  for (int r = 0; r < 4; r++)\n"
    "    s += sub_group_reduce_add(x + r) + sub_group_broadcast(x, r);\n"
    "  out[get_global_id(0)] = s;\n"
    "}\n"
    "__kernel void compact_atomic(__global const int *in, __global int *out,\n"
    "                             __global int *count) {\n"
    "  int v = in[get_global_id(0)];\n"
    "  if (v > 0) out[atomic_inc(count)] = v;\n"
    "}\n"
    "__kernel void compact_ballot(__global const int *in, __global int *out,\n"
    "                             __global int *count) {\n"
    "  int v = in[get_global_id(0)];\n"
    "  uint4 keep = sub_group_ballot(v > 0);\n"
    "  int base = 0;\n"
    "  if (sub_group_elect())\n"
    "    base = atomic_add(count, (int)sub_group_ballot_bit_count(keep));\n"
    "  base = sub_group_non_uniform_broadcast(base, sub_group_ballot_find_lsb(\n"
    "      sub_group_ballot(1)));\n"
    "  if (v > 0) out[base + sub_group_ballot_exclusive_scan(keep)] = v;\n"
    "}\n"
    "__kernel void compact_divergent(__global const int *in, __global int *out,\n"
    "                                __global int *count) {\n"
    "  int v = in[get_global_id(0)];\n"
    "  if (v > 0) {\n"
    "    uint4 keep = sub_group_ballot(1);\n"
    "    int base = 0;\n"
    "    if (sub_group_elect())\n"
    "      base = atomic_add(count, (int)sub_group_ballot_bit_count(keep));\n"
    "    base = sub_group_non_uniform_broadcast(base,\n"
    "                                           sub_group_ballot_find_lsb(keep));\n"
    "    out[base + sub_group_ballot_exclusive_scan(keep)] = v;\n"
    "  }\n"
    "}\n"
    "__kernel void histogram16(__global const int *in, __global int *out,\n"
    "                          __global int *bins) {\n"
    "  atomic_inc(&bins[in[get_global_id(0)] & 15]);\n"
    "}\n"
    "__kernel void reduce_tree(__global const int *in, __global int *out) {\n"
    "  __local int t[256];\n"
    "  size_t l = get_local_id(0);\n"
    "  t[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = 128; s > 0; s >>= 1) {\n"
    "    if (l < s) t[l] += t[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = t[0];\n"
    "}\n"
    "__kernel void reduce_group(__global const int *in, __global int *out) {\n"
    "  int s = work_group_reduce_add(in[get_global_id(0)]);\n"
    "  if (get_local_id(0) == 0) out[get_group_id(0)] = s;\n"
    "}\n"
    "__kernel void reduce_sub_group(__global const int *in, __global int *out) {\n"
    "  int s = sub_group_reduce_add(in[get_global_id(0)]);\n"
    "  if (get_sub_group_local_id() == 0)\n"
    "    out[get_group_id(0) * get_num_sub_groups() + get_sub_group_id()] = s;\n"
    "}\n"
    "__kernel void reduce_two_level(__global const int *in, __global int *out) {\n"
    "  __local int part[256];\n"
    "  int s = sub_group_reduce_add(in[get_global_id(0)]);\n"
    "  if (get_sub_group_local_id() == 0) part[get_sub_group_id()] = s;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_sub_group_id() == 0) {\n"
    "    int v = 0;\n"
    "    for (uint k = get_sub_group_local_id(); k < get_num_sub_groups();\n"
    "         k += get_sub_group_size())\n"
    "      v += part[k];\n"
    "    v = sub_group_reduce_add(v);\n"
    "    if (get_local_id(0) == 0) out[get_group_id(0)] = v;\n"
    "  }\n"
    "}\n"
    "__kernel void reduce_tree_tail(__global const int *in, __global int *out) {\n"
    "  __local int t[256];\n"
    "  size_t l = get_local_id(0);\n"
    "  t[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = 128; s >= 32; s >>= 1) {\n"
    "    if (l < s) t[l] += t[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l < 32) {\n"
    "    int v = sub_group_reduce_add(t[l]);\n"
    "    if (get_sub_group_local_id() == 0)\n"
    "      out[get_group_id(0) * (32 / get_max_sub_group_size()) +\n"
    "          get_sub_group_id()] = v;\n"
    "  }\n"
    "}\n"
    "__kernel void scan_tree(__global const int *in, __global int *out) {\n"
    "  __local int t[2][256];\n"
    "  size_t l = get_local_id(0);\n"
    "  int from = 0;\n"
    "  t[0][l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t d = 1; d < 256; d <<= 1) {\n"
    "    t[1 - from][l] = l >= d ? t[from][l] + t[from][l - d] : t[from][l];\n"
    "    from = 1 - from;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[get_global_id(0)] = t[from][l];\n"
    "}\n"
    "__kernel void scan_group(__global const int *in, __global int *out) {\n"
    "  out[get_global_id(0)] = work_group_scan_inclusive_add(in[get_global_id(0)]);\n"
    "}\n"
    "__kernel void scan_sub_group(__global const int *in, __global int *out) {\n"
    "  __local int total[64];\n"
    "  int s = sub_group_scan_inclusive_add(in[get_global_id(0)]);\n"
    "  uint id = get_sub_group_id();\n"
    "  if (get_sub_group_local_id() == get_sub_group_size() - 1) total[id] = s;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint k = 0; k < id; k++) s += total[k];\n"
    "  out[get_global_id(0)] = s;\n"
    "}\n";

enum { GROUP = 256 };
#define DEFAULT "-cl-std=CL3.0"
#define PLAIN DEFAULT " -cl-weft-no-aggregate"

typedef struct bench {
  weft_context *ctx;
  const char *device;
  size_t n;
  int reps;
  int32_t *in;
  weft_buffer *bin, *bout, *bcount, *bbins;
} bench;

/* counter: the kernel's third argument (the count, the bins), zeroed
 * before each launch; NULL for none. */
static double launch_ms(bench *b, weft_kernel *k, weft_buffer *counter) {
  size_t global = b->n, local = GROUP;
  if (counter) {
    int32_t zero[16] = {0};
    assert(weft_buffer_size(counter) <= sizeof zero);
    WEFT_CHECK(weft_buffer_write(counter, 0, weft_buffer_size(counter), zero),
               counter);
  }
  double start = bench_now_ms();
  WEFT_CHECK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  return bench_now_ms() - start;
}

/* The median of reps timed launches after one untimed. */
static double time_kernel(bench *b, const char *name, const char *options,
                          weft_buffer *counter) {
  weft_kernel *k = bench_weft_kernel(b->ctx, source, options, name);
  WEFT_CHECK(weft_kernel_set_arg_buffer(k, 0, b->bin), k);
  WEFT_CHECK(weft_kernel_set_arg_buffer(k, 1, b->bout), k);
  if (counter) WEFT_CHECK(weft_kernel_set_arg_buffer(k, 2, counter), k);
  launch_ms(b, k, counter);
  double *t = bench_alloc((size_t)b->reps * sizeof *t);
  for (int r = 0; r < b->reps; r++) t[r] = launch_ms(b, k, counter);
  double ms = bench_median(t, b->reps);
  free(t);
  weft_kernel_release(k);
  return ms;
}

/* The compaction kept every positive value once: their count and sum. */
static void check_compaction(bench *b, const char *name) {
  int32_t count;
  WEFT_CHECK(weft_buffer_read(b->bcount, 0, sizeof count, &count), b->bcount);
  int32_t *out = bench_alloc((size_t)count * sizeof *out);
  WEFT_CHECK(weft_buffer_read(b->bout, 0, (size_t)count * sizeof *out, out),
             b->bout);
  int64_t want_sum = 0, got_sum = 0;
  size_t want_count = 0;
  for (size_t i = 0; i < b->n; i++)
    if (b->in[i] > 0) want_sum += b->in[i], want_count++;
  for (int32_t i = 0; i < count; i++) got_sum += out[i];
  if ((size_t)count != want_count || got_sum != want_sum)
    bench_die("%s: kept %d values summing to %lld, want %zu summing to %lld",
              name, count, (long long)got_sum, want_count,
              (long long)want_sum);
  free(out);
}

/* Each group's inclusive sums (outputs: unused, one per item). */
static void check_scan(bench *b, const char *name, size_t outputs) {
  (void)outputs;
  int32_t *out = bench_alloc(b->n * sizeof *out);
  WEFT_CHECK(weft_buffer_read(b->bout, 0, b->n * sizeof *out, out), b->bout);
  int32_t sum = 0;
  for (size_t i = 0; i < b->n; i++) {
    sum = (i % GROUP ? sum : 0) + b->in[i];
    if (out[i] != sum)
      bench_die("%s: item %zu has %d, want %d", name, i, out[i], sum);
  }
  free(out);
}

/* The 16 bins hold each value's count. */
static void check_histogram(bench *b, const char *name) {
  int32_t got[16], want[16] = {0};
  WEFT_CHECK(weft_buffer_read(b->bbins, 0, sizeof got, got), b->bbins);
  for (size_t i = 0; i < b->n; i++) want[b->in[i] & 15]++;
  for (int k = 0; k < 16; k++)
    if (got[k] != want[k])
      bench_die("%s: bin %d holds %d, want %d", name, k, got[k], want[k]);
}

/* The partial sums add up to the input's sum. */
static void check_sums(bench *b, const char *name, size_t partials) {
  int32_t *out = bench_alloc(partials * sizeof *out);
  WEFT_CHECK(weft_buffer_read(b->bout, 0, partials * sizeof *out, out), b->bout);
  int64_t got = 0, want = 0;
  for (size_t i = 0; i < partials; i++) got += out[i];
  for (size_t i = 0; i < b->n; i++) want += b->in[i];
  if (got != want)
    bench_die("%s: the partial sums add up to %lld, want %lld", name,
              (long long)got, (long long)want);
  free(out);
}

/* Each work-item's four reductions of its sub-group and broadcasts of
 * its first four lanes (sub-groups of width, groups a multiple). */
static unsigned loop_width;
static void check_loop(bench *b, const char *name) {
  int32_t *out = bench_alloc(b->n * sizeof *out);
  WEFT_CHECK(weft_buffer_read(b->bout, 0, b->n * sizeof *out, out), b->bout);
  for (size_t first = 0; first < b->n; first += loop_width) {
    int32_t sum = 0, lanes = 0;
    for (unsigned l = 0; l < loop_width; l++) sum += b->in[first + l];
    for (int r = 0; r < 4; r++) lanes += b->in[first + (size_t)r];
    int32_t want = 4 * sum + (int32_t)loop_width * 6 + lanes;
    for (unsigned l = 0; l < loop_width; l++)
      if (out[first + l] != want)
        bench_die("%s: item %zu has %d, want %d", name, first + l,
                  out[first + l], want);
  }
  free(out);
}

static void row(bench *b, const char *name, double ms, double baseline) {
  bench_csv_line("%s,%s,%.3f,%.3f", name, b->device, ms, ms / baseline);
}

/* A kernel as some options build it, and its row's name. */
typedef struct variant {
  const char *kernel, *options, *name;
} variant;

/* n variants (at most 4, the first the baseline), each checked by check
 * after its launches (counter as time_kernel's), then their rows. */
static void variant_rows(bench *b, const variant *v, int n,
                         void (*check)(bench *b, const char *name),
                         weft_buffer *counter) {
  double ms[4];
  for (int k = 0; k < n && k < 4; k++) {
    ms[k] = time_kernel(b, v[k].kernel, v[k].options, counter);
    check(b, v[k].name);
  }
  for (int k = 0; k < n && k < 4; k++) row(b, v[k].name, ms[k], ms[0]);
}

/* Three kernels that do one thing (the first the baseline), each checked
 * by check with its count of outputs, then their rows. */
typedef void (*checker)(bench *b, const char *name, size_t outputs);
/* count kernels, each checked, over the first. */
static void compared_rows(bench *b, const char *const *names, int count,
                          checker check, const size_t *outputs) {
  double ms[count];
  for (int k = 0; k < count; k++) {
    ms[k] = time_kernel(b, names[k], DEFAULT, NULL);
    check(b, names[k], outputs[k]);
  }
  for (int k = 0; k < count; k++) row(b, names[k], ms[k], ms[0]);
}

int main(int argc, char **argv) {
  bench_options options;
  bench_parse_options(argc, argv, &options);
  bench_set_name("bench_sub_groups");
  bench b = {.ctx = bench_weft_context(),
             .n = options.quick ? (size_t)1 << 20 : (size_t)1 << 24,
             .reps = options.quick ? 3 : 9};
  weft_device_info info;
  weft_device *device = weft_context_device(b.ctx);
  WEFT_CHECK(weft_device_info_get(device, &info), device);
  b.device = info.kind == WEFT_DEVICE_GPU ? "gpu" : "cpu";
  b.in = bench_alloc(b.n * sizeof *b.in);
  bench_random_uints((uint32_t *)b.in, b.n, 7);
  for (size_t i = 0; i < b.n; i++) b.in[i] = b.in[i] % 2001 - 1000;
  WEFT_CHECK(weft_buffer_create(b.ctx, b.n * sizeof *b.in, WEFT_MEM_COPY_HOST_PTR,
                                b.in, &b.bin),
             b.ctx);
  WEFT_CHECK(weft_buffer_create(b.ctx, b.n * sizeof *b.in, 0, NULL, &b.bout),
             b.ctx);
  WEFT_CHECK(weft_buffer_create(b.ctx, sizeof(int32_t), 0, NULL, &b.bcount),
             b.ctx);
  WEFT_CHECK(weft_buffer_create(b.ctx, 16 * sizeof(int32_t), 0, NULL, &b.bbins),
             b.ctx);
  bench_csv_open(options.csv_path, "benchmark,device,ms,over_baseline", 1);

  static const variant compactions[] = {
      {"compact_atomic", PLAIN, "compact_atomic"},
      {"compact_atomic", DEFAULT, "compact_auto"},
      {"compact_ballot", PLAIN, "compact_ballot"},
      {"compact_divergent", PLAIN, "compact_divergent"}};
  static const variant histograms[] = {
      {"histogram16", PLAIN, "histogram16_atomic"},
      {"histogram16", DEFAULT, "histogram16_auto"}};
  variant_rows(&b, compactions, 4, check_compaction, b.bcount);
  variant_rows(&b, histograms, 2, check_histogram, b.bbins);

  size_t groups = b.n / GROUP;
  size_t per_group = (GROUP + info.sub_group_size - 1) / info.sub_group_size;
  static const char *const reduce[5] = {"reduce_tree", "reduce_group",
                                        "reduce_sub_group", "reduce_two_level",
                                        "reduce_tree_tail"};
  static const char *const scan[3] = {"scan_tree", "scan_group",
                                      "scan_sub_group"};
  /* (Sub-groups of at most 32: the tail's 32 sums are whole ones.) */
  size_t tails = groups * (32 / info.sub_group_size);
  compared_rows(&b, reduce, 5, check_sums,
                (const size_t[5]){groups, groups, groups * per_group, groups,
                                  tails});
  compared_rows(&b, scan, 3, check_scan, (const size_t[3]){0, 0, 0});

  /* A sixty-fourth: the slots' fibers take seconds over all 16M. */
  static const variant loops[] = {
      {"sub_group_loop", DEFAULT " -cl-weft-no-jam", "sub_group_loop_slots"},
      {"sub_group_loop", DEFAULT, "sub_group_loop"}};
  size_t all = b.n;
  b.n = all / 64;
  loop_width = info.sub_group_size;
  variant_rows(&b, loops, 2, check_loop, NULL);
  b.n = all;

  bench_csv_close();
  weft_buffer_release(b.bin);
  weft_buffer_release(b.bout);
  weft_buffer_release(b.bcount);
  weft_buffer_release(b.bbins);
  weft_context_release(b.ctx);
  free(b.in);
  return 0;
}
