/* test_sub_groups.c: sub-groups (OpenCL C 3.0's __opencl_c_subgroups and
 * cl_khr_subgroup_extended_types): the work-item functions, every
 * collective function at every type against the host, vectors'
 * broadcasts, sub-groups that take different paths in one group, a
 * sub-group barrier ordering __local memory, under random schedules too,
 * and a sub-group whose work-items part ways, reported. */
#include <math.h>

#include "support.h"

/* in[i] is long(i * 7919 % 1000) - 500: both signs, no order. */
static long value_of(size_t i) { return (long)(i * 7919 % 1000) - 500; }

static unsigned width(void) { return support_device_info().sub_group_size; }

/* Builds "k" (args: __global T *in, __global T *out with outs results per
 * work-item) with options, runs it over global items in groups of local
 * (dims 1 to 3) and reads out back; the launch's log line into log (512
 * bytes) unless it is NULL. */
static void run_built(const char *source, const char *options, char *log,
                      size_t type_size, unsigned dims, const size_t *global,
                      const size_t *local, size_t outs, const void *in,
                      void *out) {
  size_t n = global[0] * (dims > 1 ? global[1] : 1) * (dims > 2 ? global[2] : 1);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *bin = support_buffer(ctx, n * type_size, (void *)in);
  weft_buffer *bout = support_buffer(ctx, outs * n * type_size, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bin), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bout), k);
  if (log) support_stderr_begin();
  int rc = weft_kernel_launch(k, dims, NULL, global, local);
  if (log) snprintf(log, 512, "%s", support_stderr_end());
  CHECK_OK(rc, k);
  CHECK_OK(weft_buffer_read(bout, 0, outs * n * type_size, out), bout);
  weft_buffer_release(bin);
  weft_buffer_release(bout);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

static void run(const char *source, size_t type_size, unsigned dims,
                const size_t *global, const size_t *local, size_t outs,
                const void *in, void *out) {
  run_built(source, "-cl-std=CL3.0", NULL, type_size, dims, global, local,
            outs, in, out);
}

/* The CPU's sub-groups are as wide as its vector holds 32-bit lanes (at
 * least 4), unless WEFT_SUB_GROUP_SIZE says otherwise. */
TEST(width_is_the_vectors) {
  CPU_ONLY("a GPU's sub-groups are warps");
  if (harness_sub_group_size_set()) SKIP("WEFT_SUB_GROUP_SIZE is set");
  weft_device_info info = support_device_info();
  unsigned lanes = info.vector_bytes / 4;
  CHECK_EQ(info.sub_group_size, lanes < 4 ? 4 : lanes);
}

/* WEFT_SUB_GROUP_SIZE: every kernel that asks for no width runs at it
 * (the device says so too), one that asks runs at its own; a size the
 * CPU has not is ignored with a warning. */
static unsigned sizes_at(const char *value, unsigned *reqd) {
  setenv("WEFT_SUB_GROUP_SIZE", value, 1); /* read as Weft starts */
  static const char *source =
      "__kernel void k(__global const uint *in, __global uint *out) {\n"
      "  out[get_global_id(0)] = get_max_sub_group_size() + in[0];\n"
      "}\n"
      "__attribute__((intel_reqd_sub_group_size(32)))\n"
      "__kernel void r(__global const uint *in, __global uint *out) {\n"
      "  out[get_global_id(0)] = get_max_sub_group_size() + in[0];\n"
      "}\n";
  size_t global = 64, local = 64;
  unsigned in[64] = {0}, out[64];
  run(source, sizeof(unsigned), 1, &global, &local, 1, in, out);
  for (int i = 1; i < 64; i++) CHECK_EQ(out[i], out[0]);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "r", &k), p);
  weft_kernel_attributes a;
  CHECK_OK(weft_kernel_get_attributes(k, &a), k);
  *reqd = a.sub_group_size;
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
  return out[0];
}

TEST(width_set_by_environment) {
  CPU_ONLY("a GPU's sub-groups are warps");
  unsigned reqd;
  CHECK_EQ(sizes_at("8", &reqd), 8);
  CHECK_EQ(reqd, 32);
  CHECK_EQ(support_device_info().sub_group_size, 8);
}

TEST(width_of_a_bad_size_ignored_with_a_warning) {
  CPU_ONLY("a GPU's sub-groups are warps");
  setenv("WEFT_SUB_GROUP_SIZE", "12", 1);
  support_stderr_begin();
  weft_device_info info = support_device_info();
  const char *err = support_stderr_end();
  CHECK_STR_CONTAINS(err, "weft: ignoring WEFT_SUB_GROUP_SIZE='12': "
                          "expected 4, 8, 16 or 32");
  unsigned lanes = info.vector_bytes / 4;
  CHECK_EQ(info.sub_group_size, lanes < 4 ? 4 : lanes);
}

/* The work-item functions in 3 dimensions, groups of 5 x 3 x 2 (the last
 * sub-group of each is partial at a width of 16 or 32). */
TEST(work_item_functions) {
  static const char *source =
      "__kernel void k(__global const uint *in, __global uint *out) {\n"
      "  __global uint *o = out + 6 * get_global_linear_id();\n"
      "  o[0] = get_sub_group_size();\n"
      "  o[1] = get_max_sub_group_size();\n"
      "  o[2] = get_num_sub_groups();\n"
      "  o[3] = get_enqueued_num_sub_groups();\n"
      "  o[4] = get_sub_group_id();\n"
      "  o[5] = get_sub_group_local_id();\n"
      "}\n";
  size_t gx = 10, global[3] = {10, 3, 2}, local[3] = {5, 3, 2};
  unsigned w = width(), out[6 * 60], in[60] = {0};
  CHECK(w >= 4);
  run(source, sizeof(unsigned), 3, global, local, 6, in, out);
  for (size_t z = 0; z < 2; z++)
    for (size_t y = 0; y < 3; y++)
      for (size_t x = 0; x < gx; x++) {
        const unsigned *o = out + 6 * ((z * 3 + y) * gx + x);
        size_t lx = x % 5, sx = 5;
        unsigned items = (unsigned)(sx * 3 * 2), enqueued = 30;
        unsigned lin = (unsigned)((z * 3 + y) * sx + lx);
        unsigned id = lin / w, left = items - id * w;
        CHECK_EQ(o[0], left < w ? left : w);
        CHECK_EQ(o[1], enqueued < w ? enqueued : w);
        CHECK_EQ(o[2], (items + w - 1) / w);
        CHECK_EQ(o[3], (enqueued + w - 1) / w);
        CHECK_EQ(o[4], id);
        CHECK_EQ(o[5], lin % w);
      }
}

#define OUTS 9
#define KERNEL(T)                                                            \
  "__kernel void k(__global const " T " *in, __global " T " *out) {\n"       \
  "  size_t i = get_global_id(0);\n"                                         \
  "  " T " x = in[i];\n"                                                     \
  "  __global " T " *o = out + 9 * i;\n"                                     \
  "  o[0] = sub_group_reduce_add(x);\n"                                      \
  "  o[1] = sub_group_reduce_min(x);\n"                                      \
  "  o[2] = sub_group_reduce_max(x);\n"                                      \
  "  o[3] = sub_group_scan_inclusive_add(x);\n"                              \
  "  o[4] = sub_group_scan_exclusive_add(x);\n"                              \
  "  o[5] = sub_group_scan_inclusive_min(x);\n"                              \
  "  o[6] = sub_group_scan_exclusive_max(x);\n"                              \
  "  o[7] = sub_group_broadcast(x, (get_sub_group_size() - 1) / 2);\n"       \
  "  o[8] = sub_group_any(x == in[0]) + 2 * sub_group_all(x != in[1]);\n"    \
  "}\n"

/* The results of one type against the host's, which folds in the same
 * order (float sums are exact too) and wraps 8- and 16-bit sums as the
 * device does. */
#define CHECK_TYPE(T, NAME, MIN, MAX)                                        \
  static void check_##NAME(size_t global, size_t local) {                    \
    T *in = malloc(global * sizeof(T)), *out = malloc(OUTS * global * sizeof(T)); \
    for (size_t i = 0; i < global; i++) in[i] = (T)(value_of(i) % 100);      \
    run(KERNEL(#T), sizeof(T), 1, &global, &local, OUTS, in, out);           \
    size_t w = width();                                                      \
    for (size_t g = 0; g < global; g += local)                               \
      for (size_t s = g; s < g + local; s += w) {                            \
        size_t n = g + local - s < w ? g + local - s : w;                    \
        T sum = 0, mn = MAX, mx = MIN;                                       \
        int any = 0, all = 1;                                                \
        for (size_t l = 0; l < n; l++) {                                     \
          sum = (T)(sum + in[s + l]);                                        \
          if (in[s + l] < mn) mn = in[s + l];                                \
          if (in[s + l] > mx) mx = in[s + l];                                \
          any |= in[s + l] == in[0];                                         \
          all &= in[s + l] != in[1];                                         \
        }                                                                    \
        T run_sum = 0, run_min = MAX, run_max = MIN;                         \
        for (size_t l = 0; l < n; l++) {                                     \
          const T *o = out + OUTS * (s + l);                                 \
          CHECK(o[0] == sum && o[1] == mn && o[2] == mx);                    \
          CHECK(o[4] == run_sum && o[6] == run_max);                         \
          run_sum = (T)(run_sum + in[s + l]);                                \
          if (in[s + l] < run_min) run_min = in[s + l];                      \
          if (in[s + l] > run_max) run_max = in[s + l];                      \
          CHECK(o[3] == run_sum && o[5] == run_min);                         \
          CHECK(o[7] == in[s + (n - 1) / 2]);                                \
          CHECK(o[8] == (T)(any + 2 * all));                                 \
        }                                                                    \
      }                                                                      \
    free(in);                                                                \
    free(out);                                                               \
  }

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
CHECK_TYPE(int, int, INT32_MIN, INT32_MAX)
CHECK_TYPE(uint, uint, 0, UINT32_MAX)
CHECK_TYPE(long, long, INT64_MIN, INT64_MAX)
CHECK_TYPE(ulong, ulong, 0, UINT64_MAX)
CHECK_TYPE(float, float, -INFINITY, INFINITY)
CHECK_TYPE(double, double, -INFINITY, INFINITY)
CHECK_TYPE(char, char, INT8_MIN, INT8_MAX)
CHECK_TYPE(uchar, uchar, 0, UINT8_MAX)
CHECK_TYPE(short, short, INT16_MIN, INT16_MAX)
CHECK_TYPE(ushort, ushort, 0, UINT16_MAX)

/* Groups of one work-item, smaller than a sub-group, a whole number of
 * sub-groups (at 16 and 32), and not. */
static const size_t sizes[][2] = {{3, 1}, {14, 7}, {128, 64}, {200, 40},
                                  {1024, 1024}};

#define EACH_SIZE(call)                                                      \
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)                  \
  call(sizes[i][0], sizes[i][1])

TEST(int_types) {
  EACH_SIZE(check_int);
  EACH_SIZE(check_uint);
}

TEST(long_types) {
  EACH_SIZE(check_long);
  EACH_SIZE(check_ulong);
}

TEST(float_types) {
  EACH_SIZE(check_float);
  EACH_SIZE(check_double);
}

TEST(extended_types) {
  EACH_SIZE(check_char);
  EACH_SIZE(check_uchar);
  EACH_SIZE(check_short);
  EACH_SIZE(check_ushort);
}

/* Broadcasts of vectors (cl_khr_subgroup_extended_types), lane by lane. */
TEST(vector_broadcasts) {
  static const char *source =
      "__kernel void k(__global const int *in, __global int *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  float4 f = (float4)(in[i], 2 * in[i], 3 * in[i], 4 * in[i]);\n"
      "  char3 c = (char3)(in[i], in[i] + 1, in[i] + 2);\n"
      "  long16 l = (long16)(in[i]) * 1000000007L;\n"
      "  float4 bf = sub_group_broadcast(f, 2);\n"
      "  char3 bc = sub_group_broadcast(c, 1);\n"
      "  long16 bl = sub_group_broadcast(l, 0);\n"
      "  __global int *o = out + 4 * i;\n"
      "  o[0] = (int)bf.w;\n"
      "  o[1] = bc.z;\n"
      "  o[2] = (int)(bl.sf / 1000000007L);\n"
      "  o[3] = (int)bf.y;\n"
      "}\n";
  size_t global = 64, local = 64, w = width();
  int in[64], out[4 * 64];
  for (int i = 0; i < 64; i++) in[i] = i;
  run(source, sizeof(int), 1, &global, &local, 4, in, out);
  for (size_t i = 0; i < 64; i++) {
    int base = (int)(i - i % w);
    CHECK_EQ(out[4 * i + 0], 4 * (base + 2));
    CHECK_EQ(out[4 * i + 1], base + 1 + 2);
    CHECK_EQ(out[4 * i + 2], base);
    CHECK_EQ(out[4 * i + 3], 2 * (base + 2));
  }
}

/* Sub-groups of one group on different paths: the second reduces, the
 * third scans, waits at a sub-group barrier and broadcasts, the others
 * do none of it; around them, work-group barriers and __local memory.
 * (The third passes its scan through an array of its own: in tmp, the
 * second's last work-item, reading its neighbour, would race with it,
 * which schedules other than the default found at a width of 4 and 8.) */
static const char *paths_source =
    "__kernel void k(__global const int *in, __global int *out) {\n"
    "  __local int tmp[256], passed[256];\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int v = tmp[(l + 1) % n];\n"
    "  if (get_sub_group_id() == 1) {\n"
    "    v = sub_group_reduce_add(v);\n"
    "  } else if (get_sub_group_id() == 2) {\n"
    "    v = sub_group_scan_inclusive_add(v);\n"
    "    passed[l] = v;\n"
    "    sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    v += passed[l - get_sub_group_local_id()];\n" /* the first's scan */
    "    v += sub_group_broadcast(v, get_sub_group_size() - 1);\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = v;\n"
    "}\n";

static void check_paths(void) {
  size_t w = width(), local = 2 * w + w / 2, global = 2 * local;
  int *in = malloc(global * sizeof(int)), *out = malloc(global * sizeof(int));
  for (size_t i = 0; i < global; i++) in[i] = (int)value_of(i);
  run(paths_source, sizeof(int), 1, &global, &local, 1, in, out);
  for (size_t g = 0; g < global; g += local) {
    int next[256], sum1 = 0;
    for (size_t l = 0; l < local; l++) next[l] = in[g + (l + 1) % local];
    for (size_t l = w; l < 2 * w; l++) sum1 += next[l];
    int scan[256] = {0}, run_sum = 0, first = next[2 * w];
    for (size_t l = 2 * w; l < local; l++) scan[l] = run_sum += next[l];
    int last = scan[local - 1] + first;
    for (size_t l = 0; l < local; l++) {
      int want = l < w ? next[l] : l < 2 * w ? sum1 : scan[l] + first + last;
      CHECK_EQ(out[g + l], want);
    }
  }
  free(in);
  free(out);
}

TEST(sub_groups_on_different_paths) { check_paths(); }

/* The same under random and PCT schedules: the work-items of a group
 * interleave, and each sub-group's still wait for each other. */
TEST(sub_groups_on_different_paths_random) {
  CPU_ONLY("schedules are the CPU device's");
  setenv("WEFT_SCHEDULE", "random:3", 1);
  check_paths();
}

TEST(sub_groups_on_different_paths_pct) {
  CPU_ONLY("schedules are the CPU device's");
  setenv("WEFT_SCHEDULE", "pct:5", 1);
  check_paths();
}

/* Sub-groups make independent forward progress (cl_khr_subgroups): the
 * first sub-group's first work-item waits for a flag that the last
 * sub-group sets, in __local memory, then each reduces; on the CPU the
 * waiting one lets the others of its group run. */
static void check_progress(void) {
  static const char *source =
      "__kernel void k(__global const int *in, __global int *out) {\n"
      "  __local atomic_int flag;\n"
      "  if (get_local_id(0) == 0) atomic_init(&flag, 0);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  uint sg = get_sub_group_id(), last = get_num_sub_groups() - 1;\n"
      "  int v = in[get_global_id(0)];\n"
      "  if (sg == 0 && get_sub_group_local_id() == 0)\n"
      "    while (atomic_load(&flag) != 7) {}\n"
      "  if (sg == last && get_sub_group_local_id() == 0)\n"
      "    atomic_store(&flag, 7);\n"
      "  out[get_global_id(0)] = sub_group_reduce_add(v);\n"
      "}\n";
  size_t w = width(), local = 3 * w, global = 2 * local;
  int *in = malloc(global * sizeof(int)), *out = malloc(global * sizeof(int));
  for (size_t i = 0; i < global; i++) in[i] = (int)value_of(i);
  run(source, sizeof(int), 1, &global, &local, 1, in, out);
  for (size_t s = 0; s < global; s += w) {
    int sum = 0;
    for (size_t l = 0; l < w; l++) sum += in[s + l];
    for (size_t l = 0; l < w; l++) CHECK_EQ(out[s + l], sum);
  }
  free(in);
  free(out);
}

TEST(sub_groups_progress_independently) { check_progress(); }

TEST(sub_groups_progress_independently_random) {
  CPU_ONLY("schedules are the CPU device's");
  setenv("WEFT_SCHEDULE", "random:4", 1);
  check_progress();
}

/* The non-uniform functions (the cl_khr_subgroup_* extensions): in a
 * branch a third of each sub-group takes, only those lanes take part; in
 * a loop whose trip count differs by lane, those still in it at each turn;
 * after the loop all again. Ballots, shuffles, clustered reductions and
 * rotations over the whole sub-group. */
/* The non-uniform functions where lanes part ways, in a branch and in a
 * loop they leave at different turns, against the host: as Weft builds
 * it (on the CPU, in groups of 64, whole sub-groups side by side: the
 * branch straight-line code, the loop masked) and with
 * -cl-weft-no-jam (the slots, the sub-groups on fibers). */
static void check_non_uniform_built(const char *options) {
  static const char *source =
      "__kernel void k(__global const int *in, __global int *out) {\n"
      "  size_t g = get_global_id(0);\n"
      "  uint lane = get_sub_group_local_id(), n = get_sub_group_size();\n"
      "  int v = in[g];\n"
      "  __global int *o = out + 12 * g;\n"
      "  o[0] = o[1] = o[2] = -7;\n"
      "  if (lane % 3 == 1) {\n"
      "    o[0] = sub_group_non_uniform_reduce_add(v);\n"
      "    o[1] = sub_group_elect();\n"
      "    o[2] = sub_group_non_uniform_scan_inclusive_max(v);\n"
      "  }\n"
      "  o[3] = (int)sub_group_ballot(v > 0).x;\n"
      "  o[4] = sub_group_shuffle(v, (lane + 3) % n);\n"
      "  o[5] = sub_group_shuffle_xor(v, 1);\n"
      "  o[6] = sub_group_clustered_reduce_add(v, 4);\n"
      "  o[7] = sub_group_rotate(v, 2);\n"
      "  int turns = 0;\n"
      "  for (uint i = 0; i <= lane % 4; i++)\n"
      "    turns += sub_group_non_uniform_reduce_add(1);\n"
      "  o[8] = turns;\n"
      "  o[9] = sub_group_non_uniform_reduce_add(1);\n"
      "  o[10] = sub_group_non_uniform_all_equal(v) + 2 * sub_group_non_uniform_any(v == in[0]);\n"
      "  o[11] = sub_group_broadcast_first(v);\n"
      "}\n";
  size_t w = width(), local = 64, global = 128;
  int in[128], out[12 * 128];
  for (size_t i = 0; i < global; i++) in[i] = (int)value_of(i);
  run_built(source, options, NULL, sizeof(int), 1, &global, &local, 12, in, out);
  for (size_t s = 0; s < global; s += w) {
    int sum = 0, first = -1;
    unsigned ballot = 0;
    for (size_t l = 0; l < w; l++) {
      if (l % 3 == 1) sum += in[s + l];
      if (l % 3 == 1 && first < 0) first = (int)l;
      if (in[s + l] > 0) ballot |= 1u << l;
    }
    int run_max = INT32_MIN;
    for (size_t l = 0; l < w; l++) {
      const int *o = out + 12 * (s + l);
      if (l % 3 == 1) {
        if (in[s + l] > run_max) run_max = in[s + l];
        CHECK_EQ(o[0], sum);
        CHECK_EQ(o[1], (int)l == first);
        CHECK_EQ(o[2], run_max);
      } else {
        CHECK(o[0] == -7 && o[1] == -7 && o[2] == -7);
      }
      CHECK_EQ((unsigned)o[3], ballot);
      CHECK_EQ(o[4], in[s + (l + 3) % w]);
      CHECK_EQ(o[5], in[s + (l ^ 1)]);
      size_t c = l & ~(size_t)3;
      CHECK_EQ(o[6], in[s + c] + in[s + c + 1] + in[s + c + 2] + in[s + c + 3]);
      CHECK_EQ(o[7], in[s + (l + 2) % w]);
      int turns = 0;
      for (size_t i = 0; i <= l % 4; i++) /* lanes still in the loop */
        for (size_t m = 0; m < w; m++) turns += m % 4 >= i;
      CHECK_EQ(o[8], turns);
      CHECK_EQ(o[9], (int)w);
      CHECK_EQ(o[10], 0 + 2 * (s == 0));
      CHECK_EQ(o[11], in[s]);
    }
  }
}

static void check_non_uniform(void) {
  check_non_uniform_built("-cl-std=CL3.0");
  check_non_uniform_built("-cl-std=CL3.0 -cl-weft-no-jam");
}

TEST(non_uniform_functions) { check_non_uniform(); }

TEST(non_uniform_functions_random) {
  CPU_ONLY("schedules are the CPU device's");
  setenv("WEFT_SCHEDULE", "random:9", 1);
  check_non_uniform();
}

/* Rotations go round the sub-group either way, also a group's last,
 * smaller one (groups of 26: 16 and 10 at a width of 16, 26 at 32, three
 * of 8 and one of 2 at 8: a rotation by more than its lanes). */
TEST(rotations_go_round_partial_sub_groups) {
  static const char *source =
      "__kernel void k(__global const int *in, __global int *out) {\n"
      "  int l = (int)get_sub_group_local_id();\n"
      "  out[2 * get_global_id(0)] = sub_group_rotate(in[get_global_id(0)], -3);\n"
      "  out[2 * get_global_id(0) + 1] = sub_group_rotate(l, 5);\n"
      "}\n";
  size_t global = 52, local = 26, w = width();
  int in[52], out[2 * 52];
  for (int i = 0; i < 52; i++) in[i] = 100 + i;
  run(source, sizeof(int), 1, &global, &local, 2, in, out);
  for (size_t i = 0; i < 52; i++) {
    size_t l = i % local, first = i - l + l / w * w;
    int n = (int)(local - l / w * w < w ? local - l / w * w : w);
    int lane = (int)(i - first);
    CHECK_EQ(out[2 * i], in[first + (size_t)(((lane - 3) % n + n) % n)]);
    CHECK_EQ(out[2 * i + 1], (lane + 5) % n);
  }
}

/* A sub-group function that some work-items of a sub-group skip is a
 * divergence, reported with both work-items; so is a sub-group barrier
 * that one work-item passes by for a work-group barrier. */
static void check_parted(const char *body, const char *schedule,
                         const char *message) {
  if (schedule) setenv("WEFT_SCHEDULE", schedule, 1);
  char source[512];
  snprintf(source, sizeof source,
           "__kernel void k(__global const int *in, __global int *out) {\n"
           "  int v = in[get_global_id(0)];\n"
           "%s\n"
           "  out[get_global_id(0)] = v;\n"
           "}\n",
           body);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *b = support_buffer(ctx, 64 * sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, b), k);
  size_t global = 64, local = 64;
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), WEFT_EBARRIER, k,
              message);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* intel_reqd_sub_group_size(n) for every n the device has: groups of 60
 * (the last sub-group partial), the work-item functions, a reduction, an
 * exclusive scan, a broadcast, and a non-uniform reduction of the odd
 * values (the lanes that take a branch), against the host. */
#define REQUIRED_OUTS 9
static void check_required_size(unsigned w) {
  char source[2048];
  snprintf(source, sizeof source,
           "__attribute__((intel_reqd_sub_group_size(%u)))\n"
           "__kernel void k(__global const uint *in, __global uint *out) {\n"
           "  size_t i = get_global_id(0);\n"
           "  uint x = in[i];\n"
           "  __global uint *o = out + %d * i;\n"
           "  o[0] = get_sub_group_size();\n"
           "  o[1] = get_max_sub_group_size();\n"
           "  o[2] = get_num_sub_groups();\n"
           "  o[3] = get_sub_group_id();\n"
           "  o[4] = get_sub_group_local_id();\n"
           "  o[5] = sub_group_reduce_add(x);\n"
           "  o[6] = sub_group_scan_exclusive_add(x);\n"
           "  o[7] = sub_group_broadcast(x, 1);\n"
           "  o[8] = 0;\n"
           "  if (x & 1) o[8] = sub_group_non_uniform_reduce_add(x);\n"
           "}\n",
           w, REQUIRED_OUTS);
  enum { GROUP = 60, N = 240 };
  size_t global = N, local = GROUP;
  unsigned in[N], out[REQUIRED_OUTS * N];
  for (unsigned i = 0; i < N; i++) in[i] = (unsigned)value_of(i) + 1000;
  run(source, sizeof(unsigned), 1, &global, &local, REQUIRED_OUTS, in, out);
  for (unsigned i = 0; i < N; i++) {
    unsigned lid = i % GROUP, id = lid / w, lane = lid % w;
    unsigned first = i - lane, left = GROUP - id * w, size = left < w ? left : w;
    unsigned sum = 0, before = 0, odd = 0;
    for (unsigned j = 0; j < size; j++) {
      sum += in[first + j];
      if (j < lane) before += in[first + j];
      if (in[first + j] & 1) odd += in[first + j];
    }
    const unsigned *o = out + REQUIRED_OUTS * i;
    CHECK_EQ(o[0], size);
    CHECK_EQ(o[1], w);
    CHECK_EQ(o[2], (GROUP + w - 1) / w);
    CHECK_EQ(o[3], id);
    CHECK_EQ(o[4], lane);
    CHECK_EQ(o[5], sum);
    CHECK_EQ(o[6], before);
    CHECK_EQ(o[7], in[first + 1]);
    CHECK_EQ(o[8], in[i] & 1 ? odd : 0u);
  }
}

TEST(required_sub_group_sizes) {
  unsigned sizes = support_device_info().sub_group_sizes, tried = 0;
  for (unsigned w = 1; w && w <= 32; w <<= 1)
    if (sizes & w) {
      check_required_size(w);
      tried++;
    }
  CHECK(tried >= 1);
  CHECK(sizes & width());
}

TEST(parted_sub_group_reported) {
  CPU_ONLY("barrier divergence is not detected on the GPU");
  check_parted("  if (get_sub_group_local_id() < 3) v = sub_group_reduce_add(v);",
               NULL, "returned without reaching it");
}

TEST(parted_sub_group_reported_random) {
  CPU_ONLY("barrier divergence is not detected on the GPU");
  check_parted("  if (get_sub_group_local_id() < 3) v = sub_group_reduce_add(v);",
               "random:11", "returned without reaching it");
}

/* Whole sub-groups side by side find a sub-group whose lanes part ways
 * at a function they must all reach, in a branch or in a loop they leave
 * at different turns, and the group runs again without them, where the
 * slots name the work-items and the line. */
TEST(parted_sub_group_found_side_by_side) {
  CPU_ONLY("barrier divergence is not detected on the GPU");
  if (harness_check_mode()) SKIP("check mode jams nothing");
  setenv("WEFT_LOG", "launch", 1);
  static const char *const bodies[] = {
      "  if (get_sub_group_local_id() < 3) v = sub_group_reduce_add(v);",
      "  for (uint k = 0; k < get_sub_group_local_id() % 3; k++)\n"
      "    v += sub_group_broadcast(v, 0);",
      "  if (get_sub_group_local_id() != 1) v = sub_group_scan_exclusive_min(v);",
      /* between work-group barriers: a split kernel (build.c) */
      "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
      "  if (get_sub_group_local_id() < 3) v = sub_group_reduce_add(v);\n"
      "  barrier(CLK_GLOBAL_MEM_FENCE);",
      /* sub-groups that stop at different barriers (jam.c's stating) */
      "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
      "  v = sub_group_reduce_add(v);\n"
      "  if (get_sub_group_id() == 1) barrier(CLK_GLOBAL_MEM_FENCE);"};
  for (unsigned b = 0; b < 5; b++) {
    if (b >= 3 && harness_barriers_on_fibers()) break;
    support_stderr_begin();
    /* (Past the sub-group function, the others wait at the barrier.) */
    check_parted(bodies[b], NULL, b >= 3 ? "barrier divergence in work-group"
                                         : "returned without reaching it");
    const char *log = support_stderr_end();
    CHECK_STR_CONTAINS(log, "whole sub-groups of");
  }
}

/* Groups of one row whose x size is no multiple of the width run their
 * whole sub-groups side by side and the last, partial one on fibers
 * (weft_cpu_sub_groups_rows): a crash in either names its work-item
 * (the partial one's at once, the others' once the group runs again
 * without them), and the group after it runs on. */
TEST(fault_in_rows_names_work_item) {
  setenv("WEFT_LOG", "launch", 1); /* read as Weft starts: first */
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  if (harness_check_mode())
    SKIP("check mode stops the access itself, and jams nothing");
  if (width() > 16) SKIP("groups of 40 hold no whole sub-group of %u", width());
  static const size_t bad[] = {37, 45};
  for (int b = 0; b < 2; b++) {
    char source[512];
    snprintf(source, sizeof source,
             "__kernel void k(__global int *a) {\n"
             "  int s = (int)get_global_id(0);\n"
             "  if (get_sub_group_id() %% 2 == 0) s = sub_group_reduce_add(s);\n"
             "  __global int *p = (__global int *)((size_t)a * (get_global_id(0) != %zu));\n"
             "  p[get_global_id(0)] = s;\n"
             "}\n",
             bad[b]);
    weft_context *ctx = support_context();
    weft_kernel *k = support_kernel(ctx, source, "k");
    weft_buffer *buf = support_buffer(ctx, 80 * sizeof(int), NULL);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 0, buf), k);
    size_t global = 80, local = 40;
    support_stderr_begin();
    int rc = weft_kernel_launch(k, 1, NULL, &global, &local);
    CHECK_STR_CONTAINS(support_stderr_end(), 40 % width()
                                                 ? "partial one on fibers"
                                                 : "whole sub-groups of");
    CHECK_FAILS(rc, WEFT_EKERNELFAULT, k, "segmentation fault");
    char where[96];
    snprintf(where, sizeof where, "work-item (%zu) [local (%zu) in work-group (%zu)] at program.cl:5:",
             bad[b], bad[b] % 40, bad[b] / 40);
    CHECK_STR_CONTAINS(weft_errmsg(k), where);
    support_check_device_goes_on(ctx, buf, global, local, 9);
    weft_buffer_release(buf);
    weft_kernel_release(k);
    weft_context_release(ctx);
  }
}

TEST(sub_group_barrier_against_group_barrier_reported) {
  CPU_ONLY("barrier divergence is not detected on the GPU");
  check_parted("  if (get_sub_group_local_id() == 1) barrier(CLK_LOCAL_MEM_FENCE);\n"
               "  else sub_group_barrier(CLK_LOCAL_MEM_FENCE);",
               NULL, "waits at");
}

/* Whole sub-groups side by side (jit/cpu/jam_sub_groups.c): where a
 * group's x size is a multiple of the sub-group width, one call runs
 * whole sub-groups jammed and the functions fold the lanes' values in
 * lane order, as the slots do. Sub-group functions in a loop (which runs
 * on fibers otherwise), one lane writing (a branch made straight-line),
 * two lanes' choices of what to write: the same bits as -cl-weft-no-jam,
 * at every group shape. */
static const char *jammed_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  float x = in[i], acc = 0.0f;\n"
    "  for (int r = 0; r < 3; r++) {\n"
    "    acc += sub_group_reduce_add(x * (r + 1));\n"
    "    x = sub_group_broadcast(x, r) + sub_group_scan_exclusive_add(x);\n"
    "    acc -= sub_group_reduce_max(x) + sub_group_scan_inclusive_min(x);\n"
    "  }\n"
    "  uint lane = get_sub_group_local_id();\n"
    "  float other = sub_group_broadcast(acc, 1);\n"
    "  if (lane == 0) out[2 * i] = acc; else out[2 * i] = (float)lane;\n"
    "  if (lane & 1) out[2 * i + 1] = x;\n"
    "  else out[2 * i + 1] = -x * other;\n"
    "}\n";

/* The non-uniform functions (cl_khr_subgroup_*) where every lane comes:
 * in a jam of whole sub-groups, folds and picks of the lanes too. (Every
 * lane's source lane in range of its sub-group, a group's last too:
 * reading past it is undefined, and check mode says so.) */
static const char *jammed_non_uniform_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  float x = in[i];\n"
    "  int v = (int)(x * 3.0f);\n"
    "  uint lane = get_sub_group_local_id();\n"
    "  __global float *o = out + 12 * i;\n"
    "  o[0] = sub_group_non_uniform_reduce_mul(x / 64.0f);\n"
    "  o[1] = sub_group_non_uniform_scan_inclusive_min(x);\n"
    "  o[2] = sub_group_non_uniform_scan_exclusive_add(x);\n"
    "  o[3] = (float)sub_group_non_uniform_reduce_xor(v);\n"
    "  o[4] = (float)sub_group_clustered_reduce_max(v, 4);\n"
    "  o[5] = (float)sub_group_ballot(x > 0).x;\n"
    "  o[6] = sub_group_shuffle(x, (lane * 5) % get_sub_group_size())\n"
    "         - sub_group_shuffle_xor(x, 2);\n"
    "  o[7] = sub_group_rotate(x, -5) + sub_group_shuffle_up(x, 1);\n"
    "  o[8] = (float)(sub_group_elect() + 2 * sub_group_non_uniform_all_equal(v / 1000)\n"
    "                 + 4 * sub_group_non_uniform_any(v > 400));\n"
    "  o[9] = sub_group_broadcast_first(x) + sub_group_non_uniform_broadcast(x, 3);\n"
    "  o[10] = (float)sub_group_non_uniform_scan_exclusive_logical_or(v > 200);\n"
    "  o[11] = (float)sub_group_clustered_reduce_logical_and(v > -900, 8)\n"
    "          + sub_group_non_uniform_scan_inclusive_mul(x / 100.0f);\n"
    "}\n";

/* The non-uniform functions in branches that lanes take differently: in
 * a jam of whole sub-groups the branches become straight-line code
 * (jam_predicate.c) and each function folds or picks the lanes that
 * came (the slots: those that met), an if and its else, an elected
 * lane's branch within one; a uniform function after they join. */
static const char *jammed_divergent_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  float x = in[i];\n"
    "  int v = (int)(x * 3.0f);\n"
    "  __global float *o = out + 8 * i;\n"
    "  if (v > 0) {\n"
    "    o[0] = sub_group_non_uniform_reduce_add(x);\n"
    "    o[1] = (float)sub_group_non_uniform_scan_exclusive_add(v);\n"
    "    o[2] = sub_group_non_uniform_scan_inclusive_max(x);\n"
    "    o[3] = (float)sub_group_ballot(v > 100).x;\n"
    "    o[4] = sub_group_broadcast_first(x);\n"
    "    int first = 0;\n"
    "    if (sub_group_elect()) first = v;\n"
    "    o[5] = (float)sub_group_non_uniform_broadcast(first,\n"
    "        sub_group_ballot_find_lsb(sub_group_ballot(1)));\n"
    "    o[6] = (float)(sub_group_non_uniform_all(v > 50)\n"
    "                   + 2 * sub_group_non_uniform_any(v > 400)\n"
    "                   + 4 * sub_group_non_uniform_all_equal(v / 1000));\n"
    "  } else {\n"
    "    o[0] = sub_group_non_uniform_reduce_min(x);\n"
    "    o[1] = (float)sub_group_non_uniform_reduce_xor(v);\n"
    "    o[2] = sub_group_non_uniform_scan_exclusive_mul(x / 64.0f);\n"
    "    o[3] = (float)sub_group_elect();\n"
    "    o[4] = sub_group_shuffle_xor(x, 0);\n"
    "    o[5] = (float)sub_group_non_uniform_scan_inclusive_logical_or(v < -300);\n"
    "    o[6] = sub_group_non_uniform_reduce_mul(x / 32.0f);\n"
    "  }\n"
    "  o[7] = sub_group_reduce_add(x);\n"
    "}\n";

/* Sub-group functions between work-group barriers: cut into regions, each
 * region that holds them runs whole sub-groups side by side where the
 * group's x size allows (workgroup.c's lanes regions), the others run as
 * usual; the slots and sub-group barriers serve other shapes. Functions
 * before the first barrier, between two and after the last. */
static const char *jammed_regions_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  __local float t[1024];\n"
    "  size_t i = get_global_linear_id(), l = get_local_linear_id();\n"
    "  size_t n = get_local_size(0) * get_local_size(1);\n"
    "  float x = in[i];\n"
    "  float s = sub_group_scan_inclusive_add(x);\n"
    "  t[l] = sub_group_reduce_max(x);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  float y = t[(l + 17) % n];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  y += sub_group_broadcast(y, 2) + sub_group_scan_exclusive_add(y);\n"
    "  t[l] = y;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  float m = sub_group_reduce_min(y) + t[n - 1 - l];\n"
    "  out[2 * i] = s;\n"
    "  if (get_sub_group_local_id() == 0) out[2 * i + 1] = m;\n"
    "  else out[2 * i + 1] = y - s;\n"
    "}\n";

/* A loop that lanes leave at different turns, then sub-group functions
 * of what it made: whole sub-groups run side by side all the same (the
 * loop masked), with and without a work-group barrier after it. */
static const char *jammed_loop_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  float x = in[i], s = 0.0f;\n"
    "  int n = (int)fabs(x) % 7;\n"
    "  for (int k = 0; k < n; k++) s += x * (float)k;\n"
    "  out[2 * i] = sub_group_reduce_add(s);\n"
    "  out[2 * i + 1] = sub_group_scan_inclusive_max(s);\n"
    "}\n";

/* A vector stored in such a branch (a masked vector store), and within
 * it, the elected lane's own store: both masks. */
static const char *jammed_divergent_vector_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  float x = in[i];\n"
    "  __global float4 *o = (__global float4 *)(out + 4 * i);\n"
    "  *o = (float4)(-1.0f);\n"
    "  if (x > 0.0f) {\n"
    "    *o = (float4)(x, sub_group_non_uniform_reduce_max(x),\n"
    "                  sub_group_non_uniform_scan_inclusive_add(x), 1.0f);\n"
    "    if (sub_group_elect()) {\n"
    "      out[4 * i + 3] = 2.0f;\n"
    "      *o += (float4)(sub_group_non_uniform_reduce_min(x));\n"
    "    }\n"
    "  }\n"
    "}\n";

/* Non-uniform functions in a loop that lanes leave at different turns:
 * each turn folds the lanes still in it (the loop masked), as the slots
 * fold those that met there. */
static const char *jammed_loop_non_uniform_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  float x = in[i], s = 0.0f;\n"
    "  int n = (int)fabs(x) % 7, c = 0;\n"
    "  for (int k = 0; k < n; k++) {\n"
    "    s += sub_group_non_uniform_reduce_add(x * (float)k);\n"
    "    c += sub_group_non_uniform_scan_inclusive_add(k + n)\n"
    "         + (int)sub_group_ballot(k & 1).x + 3 * sub_group_elect();\n"
    "  }\n"
    "  out[2 * i] = s;\n"
    "  out[2 * i + 1] = (float)c;\n"
    "}\n";

/* Functions that every lane must come to, in branches and a loop that
 * each sub-group takes as one (its id, its group's): the jam's checks
 * find every lane or none of each sub-group there. */
static const char *jammed_uniform_branches_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  size_t i = get_global_linear_id();\n"
    "  float x = in[i], s = 0.0f;\n"
    "  uint sg = get_sub_group_id();\n"
    "  __global float *o = out + 4 * i;\n"
    "  if (sg % 2 == 0) o[0] = sub_group_reduce_add(x);\n"
    "  else o[0] = sub_group_scan_inclusive_max(x);\n"
    "  o[1] = 0.0f;\n"
    "  if (sg < 2) o[1] = sub_group_broadcast(x, 1) + (float)sub_group_any(x > 2.0f);\n"
    "  for (uint k = 0; k < sg % 4 + (uint)get_group_id(0) % 3; k++)\n"
    "    s += sub_group_reduce_max(x * (float)k);\n"
    "  o[2] = s;\n"
    "  o[3] = sg == 1 ? sub_group_scan_exclusive_add(x) : x;\n"
    "}\n";

/* The two-level reduction, its second level in the first sub-group
 * alone (a loop over the partial sums there), between work-group
 * barriers, and a non-uniform function in a branch after them: the
 * sub-groups meet where not every work-item passes, which cuts cannot
 * make work-group barriers; the kernel's regions run by whole
 * sub-groups, the slots' way on fibers where the groups are not whole
 * (build.c's split_slots). */
static const char *jammed_split_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  __local float part[1024], total;\n"
    "  size_t i = get_global_linear_id();\n"
    "  float x = in[i];\n"
    "  float s = sub_group_reduce_add(x);\n"
    "  if (get_sub_group_local_id() == 0) part[get_sub_group_id()] = s;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_sub_group_id() == 0) {\n"
    "    float v = 0.0f;\n"
    "    for (uint k = get_sub_group_local_id(); k < get_num_sub_groups();\n"
    "         k += get_sub_group_size())\n"
    "      v += part[k];\n"
    "    v = sub_group_reduce_add(v);\n"
    "    if (get_sub_group_local_id() == 0) total = v;\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[2 * i] = total;\n"
    "  out[2 * i + 1] = x > 1.0f ? sub_group_non_uniform_reduce_max(x) : -1.0f;\n"
    "}\n";

/* A tree in __local memory down to 32 sums, a barrier in its loop, then
 * a reduction of those by the sub-groups that hold them: the region
 * after the loop's barrier may stop there again or after the reduction
 * (its jams say which: jam.c's stating). */
static const char *jammed_tail_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  __local float t[1024];\n"
    "  size_t i = get_global_linear_id(), l = get_local_linear_id();\n"
    "  size_t n = get_local_size(0) * get_local_size(1);\n"
    "  t[l] = in[i];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t d = n / 2; d >= 32; d /= 2) {\n"
    "    if (l < d) t[l] += t[l + d];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  float v = 0.0f;\n"
    "  if (l < 32) v = sub_group_reduce_add(t[l]);\n"
    "  out[2 * i] = v;\n"
    "  out[2 * i + 1] = sub_group_scan_inclusive_max(t[l]);\n"
    "}\n";

static const char *jammed_loop_regions_source =
    "REQD __kernel void k(__global const float *in, __global float *out) {\n"
    "  __local float t[1024];\n"
    "  size_t i = get_global_linear_id(), l = get_local_linear_id();\n"
    "  float x = in[i], s = 0.0f;\n"
    "  t[l] = x;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int n = (int)fabs(t[l ^ 1]) % 7;\n"
    "  for (int k = 0; k < n; k++) s += x * (float)k;\n"
    "  out[2 * i] = sub_group_reduce_add(s);\n"
    "  out[2 * i + 1] = sub_group_scan_exclusive_add(s);\n"
    "}\n";

/* source over global items in groups of local (2D with gy > 1), outs
 * floats an item, built with options; its launch log line when log is
 * not NULL. */
static void run_jammed(const char *source, size_t outs, const char *options,
                       const size_t *global, const size_t *local, float *out,
                       char *log) {
  size_t n = global[0] * global[1];
  float *in = malloc(n * sizeof *in);
  for (size_t i = 0; i < n; i++) in[i] = (float)value_of(i) / 7.0f;
  run_built(source, options, log, sizeof *in, global[1] > 1 ? 2 : 1, global,
            local, outs, in, out);
  free(in);
}

/* How a launch runs its sub-groups, by its log: the slots (on fibers
 * or in regions), whole sub-groups side by side, or those of groups of
 * one row side by side and each group's last, partial one on fibers. */
enum { SLOTS, WHOLE, ROWS };

static int ran_as(const char *log) {
  return strstr(log, "partial one on fibers")  ? ROWS
         : strstr(log, "whole sub-groups of") ? WHOLE
                                              : SLOTS;
}

static void check_jammed(const char *source, size_t outs, const char *reqd,
                         const size_t *global, const size_t *local, int how) {
  char jam[160], plain[200], log[512];
  snprintf(jam, sizeof jam, "-cl-std=CL3.0 -DREQD=%s", reqd);
  snprintf(plain, sizeof plain, "%s -cl-weft-no-jam", jam);
  size_t n = outs * global[0] * global[1];
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  run_jammed(source, outs, jam, global, local, a, log);
  run_jammed(source, outs, plain, global, local, b, NULL);
  for (size_t i = 0; i < n; i++) {
    if (!memcmp(&a[i], &b[i], sizeof *a)) continue;
    fprintf(stderr, "group %zux%zu, item %zu: %a jammed, %a not\n", local[0],
            local[1], i / outs, a[i], b[i]);
    CHECK(!memcmp(&a[i], &b[i], sizeof *a));
  }
  /* (Check mode runs every work-item on its own: nothing is jammed.) */
  if (!harness_on_gpu() && !harness_check_mode() && ran_as(log) != how) {
    fprintf(stderr, "%zux%zu: %s\n", local[0], local[1], log);
    CHECK_EQ(ran_as(log), how);
  }
  free(a);
  free(b);
}

TEST(whole_sub_groups_jammed) {
  setenv("WEFT_LOG", "launch", 1); /* read as Weft starts */
  static const struct {
    size_t global[2], local[2];
    int whole; /* at the CPU's width of 16 */
  } shapes[] = {{{256, 1}, {64, 1}, 1},  {{96, 1}, {48, 1}, 1},
                {{64, 4}, {32, 2}, 1},   {{200, 1}, {40, 1}, 0},
                {{60, 2}, {20, 2}, 0},   {{1024, 1}, {1024, 1}, 1}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    /* Whole at another width: both x sizes its multiples. */
    int whole = width() == 16 ? shapes[s].whole
                              : shapes[s].local[0] % width() == 0 &&
                                    shapes[s].global[0] % width() == 0;
    /* Kernels without work-group barriers: groups of one row run their
     * whole sub-groups side by side all the same; but one whose
     * sub-groups' meetings all cut into work-group barriers (its
     * functions at its top level, a dozen at most) runs as regions, its
     * slots in memory (on fibers where barriers are). */
    int row = shapes[s].local[1] == 1;
    int plain = whole ? WHOLE : row ? ROWS : SLOTS;
    int cut = whole ? WHOLE : row && harness_barriers_on_fibers() ? ROWS : SLOTS;
    int regions = whole && !harness_barriers_on_fibers() ? WHOLE : SLOTS;
    const size_t *g = shapes[s].global, *l = shapes[s].local;
    check_jammed(jammed_source, 2, "", g, l, plain);
    check_jammed(jammed_non_uniform_source, 12, "", g, l, plain);
    check_jammed(jammed_divergent_source, 8, "", g, l, plain);
    check_jammed(jammed_divergent_vector_source, 4, "", g, l, plain);
    check_jammed(jammed_regions_source, 2, "", g, l, regions);
    check_jammed(jammed_loop_source, 2, "", g, l, cut);
    check_jammed(jammed_loop_non_uniform_source, 2, "", g, l, plain);
    check_jammed(jammed_uniform_branches_source, 4, "", g, l, plain);
    check_jammed(jammed_loop_regions_source, 2, "", g, l, regions);
    check_jammed(jammed_split_source, 2, "", g, l, regions);
    check_jammed(jammed_tail_source, 2, "", g, l, regions);
  }
}

/* A kernel whose sub-groups meet where not every work-item passes,
 * called by another kernel of its program: the caller takes in its body
 * whole (build.c splits no body another kernel calls; it did, and the
 * build failed for want of the lanes' folds). */
TEST(kernel_calling_a_split_kernel) {
  static const char *source =
      "__kernel void inner(__global const int *in, __global int *out) {\n"
      "  __local int sums[256];\n"
      "  uint lane = get_sub_group_local_id(), n = get_num_sub_groups();\n"
      "  int mine = sub_group_reduce_add(in[get_global_id(0)]);\n"
      "  if (lane == 0) sums[get_sub_group_id()] = mine;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  if (get_sub_group_id() != 0) return;\n"
      "  int total = 0;\n"
      "  while (lane < n) { total += sums[lane]; lane += get_max_sub_group_size(); }\n"
      "  total = sub_group_reduce_add(total);\n"
      "  if (get_local_id(0) == 0) out[get_group_id(0)] = total;\n"
      "}\n"
      "__kernel void k(__global const int *in, __global int *out) {\n"
      "  inner(in, out);\n"
      "}\n";
  enum { N = 256, GROUP = 64 };
  int in[N], out[N];
  for (int i = 0; i < N; i++) in[i] = (int)value_of((size_t)i);
  size_t global = N, local = GROUP;
  run(source, sizeof(int), 1, &global, &local, 1, in, out);
  for (int g = 0; g < N / GROUP; g++) {
    int want = 0;
    for (int i = 0; i < GROUP; i++) want += in[g * GROUP + i];
    CHECK_EQ(out[g], want);
  }
}

/* Ids shifted and masked by powers of 2 beside sub-group functions, in
 * a jam of whole sub-groups (jam_blocks.c): where a global offset leaves
 * a global id's blocks unaligned, the call runs the jam made without them
 * (a sub-group's functions need all its lanes at once, not one work-item
 * at a time); bit for bit as without jamming, at every offset. */
static const char *blocks_source =
    "__kernel void k(__global uint *out) {\n"
    "  uint g = get_global_id(0);\n"
    "  uint s = sub_group_reduce_add(g & 15u);\n"
    "  uint t = sub_group_scan_inclusive_add(g >> 4);\n"
    "  uint u = get_sub_group_local_id() == get_sub_group_size() - 1u;\n"
    "  out[g - (uint)get_global_offset(0)] = s * 1000u + t + u * 3u +\n"
    "      (g % 16u == 5u ? 7u : 0u) + get_sub_group_id() * 11u;\n"
    "}\n";

static void run_blocks(const char *options, size_t offset, unsigned *out) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, blocks_source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *b = support_buffer(ctx, 256 * sizeof *out, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 256, local = 64;
  CHECK_OK(weft_kernel_launch(k, 1, &offset, &global, &local), k);
  CHECK_OK(weft_buffer_read(b, 0, 256 * sizeof *out, out), b);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(shifted_ids_in_whole_sub_groups_as_without) {
  /* The last crosses 2^32: the uint ids wrap inside a launch. */
  static const size_t offsets[] = {0, 3, 8, 16, 19, 64, (1ull << 32) - 40};
  for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++) {
    unsigned jammed[256], plain[256];
    run_blocks("-cl-std=CL3.0", offsets[o], jammed);
    run_blocks("-cl-std=CL3.0 -cl-weft-no-jam", offsets[o], plain);
    for (size_t i = 0; i < 256; i++)
      if (jammed[i] != plain[i])
        FAIL("offset %zu, item %zu: %u jammed, %u not", offsets[o], i,
             jammed[i], plain[i]);
  }
}

/* Random kernels of sub-group functions (on uints: any order of a sum
 * gives the same bits), work-group barriers around __local exchanges,
 * loops that work-items leave at different turns and arithmetic, at the
 * kernel's top level or in a branch that sub-groups take as one
 * (uniform functions) or that their lanes take differently (non-uniform
 * ones): cut into regions, or split (build.c), the regions with
 * sub-group functions run by whole sub-groups where the shape allows.
 * Each gives the bits it gives with -cl-weft-no-jam (the slots), in
 * groups of 64 (whole sub-groups at every width; two seeds in three)
 * and of 40 (a smaller last one at 16 and 32). */
static void random_segment(char *out, size_t size, unsigned *seed) {
  unsigned x = support_random_next(seed) % 4, y = support_random_next(seed) % 4,
           z = support_random_next(seed) % 4, c = support_random_next(seed) % 89 + 1;
  switch (support_random_next(seed) % 9) {
  case 7:
    snprintf(out, size,
             "if (get_sub_group_id() %% 2u == %uu) v%u = sub_group_reduce_max(v%u) + v%u;\n",
             c % 2, x, y, z);
    break;
  case 8:
    snprintf(out, size,
             "if (v%u & %uu) v%u += sub_group_non_uniform_scan_inclusive_add(v%u);\n",
             y, c, x, z);
    break;
  case 0:
    snprintf(out, size, "v%u = sub_group_reduce_add(v%u) ^ v%u;\n", x, y, z);
    break;
  case 1:
    snprintf(out, size, "v%u += sub_group_scan_inclusive_add(v%u);\n", x, y);
    break;
  case 2:
    snprintf(out, size, "v%u = sub_group_scan_exclusive_max(v%u) + v%u;\n", x,
             y, z);
    break;
  case 3: /* lanes 0 to 3: every sub-group of these groups has them */
    snprintf(out, size, "v%u ^= sub_group_broadcast(v%u, %uu);\n", x, y, c % 4);
    break;
  case 4:
    snprintf(out, size,
             "t[l] = v%u; barrier(CLK_LOCAL_MEM_FENCE);\n"
             "  v%u += t[(l + %uu) %% n]; barrier(CLK_LOCAL_MEM_FENCE);\n",
             y, x, c);
    break;
  case 5:
    snprintf(out, size,
             "{ uint s = 0; for (uint k = 0; k < (v%u & 7u); k++) s += v%u ^ k;"
             " v%u += s; }\n",
             y, z, x);
    break;
  default:
    snprintf(out, size, "v%u = v%u * v%u + %uu;\n", x, y, z, c);
    break;
  }
}

static char *random_sub_group_kernel(unsigned seed) {
  return support_random_kernel(
      "__kernel void k(__global const uint *in, __global uint *out) {\n"
      "  __local uint t[64];\n"
      "  uint g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);\n"
      "  uint v0 = in[g], v1 = l * %uu, v2 = g ^ %uu, v3 = in[g] >> 3;\n",
      random_segment, 6,
      "  out[g] = v0 ^ (v1 * 3u) ^ (v2 << 1) ^ (v3 * 7u);\n}\n", seed);
}

TEST(random_sub_group_kernels_as_with_slots) {
  size_t global = 128;
  unsigned in[128], jammed[128], slots[128];
  for (unsigned i = 0; i < 128; i++) in[i] = (unsigned)value_of(i) * 2654435761u;
  for (unsigned seed = 1; seed <= 12; seed++) {
    char *source = random_sub_group_kernel(seed);
    size_t local = seed % 3 ? 64 : 40, shaped = local == 40 ? 120 : global;
    run_built(source, "-cl-std=CL3.0", NULL, sizeof *in, 1, &shaped, &local,
              1, in, jammed);
    run_built(source, "-cl-std=CL3.0 -cl-weft-no-jam", NULL, sizeof *in, 1,
              &shaped, &local, 1, in, slots);
    for (size_t i = 0; i < shaped; i++) {
      if (jammed[i] == slots[i]) continue;
      fprintf(stderr, "seed %u, item %zu: %u jammed, %u not\n%s", seed, i,
              jammed[i], slots[i], source);
      CHECK(jammed[i] == slots[i]);
    }
    free(source);
  }
}

TEST(whole_sub_groups_jammed_at_required_sizes) {
  setenv("WEFT_LOG", "launch", 1);
  CPU_ONLY("the GPU's sub-groups are warps of 32");
  size_t global[2] = {96, 1}, local[2] = {24, 1};
  static const char *const sizes[] = {"4", "8", "32"};
  for (unsigned k = 0; k < 3; k++) {
    char reqd[80];
    snprintf(reqd, sizeof reqd,
             "__attribute__((intel_reqd_sub_group_size(%s)))", sizes[k]);
    /* At 32, groups of 24 are one partial sub-group each. */
    int plain = k < 2 ? WHOLE : ROWS;
    check_jammed(jammed_source, 2, reqd, global, local, plain);
    check_jammed(jammed_non_uniform_source, 12, reqd, global, local, plain);
    check_jammed(jammed_regions_source, 2, reqd, global, local,
                 k < 2 && !harness_barriers_on_fibers() ? WHOLE : SLOTS);
  }
}

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return x < y ? -1 : x > y;
}

/* CUDA's "warp-aggregated atomics" as OpenCL writes them: a ballot, one
 * atomic_add per sub-group by its elected lane, the base broadcast, each
 * lane's slot from the ballot's scan; `compact` with the ballot of every
 * lane, `compact_divergent` as the blog writes it, inside the branch of
 * the lanes that keep an element (the non-uniform functions fold those
 * lanes: jam_predicate.c). Whole sub-groups run side by side on the CPU
 * (the atomic in the elected branch goes to a private word for the
 * other lanes, then is branched around again); every positive lands
 * once, each sub-group's lanes see one base, and the atomic in a loop
 * (counted three times a sub-group) adds up too. */
static const char *compact_source =
    "__kernel void compact(__global const int *in, __global int *out,\n"
    "                      __global int *count, __global int *bases) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int v = in[i];\n"
    "  uint4 keep = sub_group_ballot(v > 0);\n"
    "  int base = 0;\n"
    "  if (sub_group_elect())\n"
    "    base = atomic_add(count, (int)sub_group_ballot_bit_count(keep));\n"
    "  base = sub_group_broadcast(base, 0);\n"
    "  if (v > 0) out[base + sub_group_ballot_exclusive_scan(keep)] = v;\n"
    "  bases[i] = base;\n"
    "}\n"
    "__kernel void compact_divergent(__global const int *in, __global int *out,\n"
    "                                __global int *count, __global int *bases) {\n"
    "  size_t i = get_global_id(0);\n"
    "  int v = in[i], base = 0;\n"
    "  if (v > 0) {\n"
    "    uint4 keep = sub_group_ballot(1);\n"
    "    if (sub_group_elect())\n"
    "      base = atomic_add(count, (int)sub_group_ballot_bit_count(keep));\n"
    "    base = sub_group_non_uniform_broadcast(base,\n"
    "                                           sub_group_ballot_find_lsb(keep));\n"
    "    out[base + sub_group_ballot_exclusive_scan(keep)] = v;\n"
    "  }\n"
    "  bases[i] = sub_group_reduce_max(base);\n"
    "}\n"
    "__kernel void looped(__global int *count) {\n"
    "  for (int r = 0; r < (int)get_num_groups(0); r++)\n"
    "    if (sub_group_elect()) atomic_inc(count);\n"
    "}\n";

enum { COMPACT_N = 4096, COMPACT_LOCAL = 128 };

/* Kernel name of compact_source over in (COMPACT_N values): the
 * positives, each once, and one base for each sub-group's lanes. */
static void check_compact(weft_context *ctx, weft_program *p, const char *name,
                          const int *in) {
  enum { N = COMPACT_N };
  int *out = malloc(N * sizeof *out), *bases = malloc(N * sizeof *bases);
  int *want = malloc(N * sizeof *want), kept = 0;
  CHECK(out && bases && want);
  for (int i = 0; i < N; i++)
    if (in[i] > 0) want[kept++] = in[i];
  weft_buffer *bin = support_buffer(ctx, N * sizeof *in, in);
  weft_buffer *bout = support_buffer(ctx, N * sizeof *out, NULL);
  weft_buffer *bcount = support_ints(ctx, 1, 0);
  weft_buffer *bbases = support_buffer(ctx, N * sizeof *bases, NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, name, &k), p);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bin), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bout), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, bcount), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 3, bbases), k);
  size_t global = N, local = COMPACT_LOCAL;
  support_stderr_begin();
  int rc = weft_kernel_launch(k, 1, NULL, &global, &local);
  const char *log = support_stderr_end();
  CHECK_OK(rc, k);
  if (!harness_on_gpu() && !harness_check_mode() && COMPACT_LOCAL % width() == 0)
    CHECK_STR_CONTAINS(log, "whole sub-groups of");
  int count;
  CHECK_OK(weft_buffer_read(bcount, 0, sizeof count, &count), bcount);
  CHECK_EQ(count, kept);
  CHECK_OK(weft_buffer_read(bout, 0, N * sizeof *out, out), bout);
  CHECK_OK(weft_buffer_read(bbases, 0, N * sizeof *bases, bases), bbases);
  qsort(want, (size_t)kept, sizeof *want, compare_ints);
  qsort(out, (size_t)count, sizeof *out, compare_ints);
  for (int i = 0; i < kept; i++)
    if (out[i] != want[i])
      FAIL("%s: compacted value %d is %d, expected %d", name, i, out[i], want[i]);
  for (int i = 0; i < N; i++)
    if (bases[i] != bases[i - i % (int)width()])
      FAIL("%s: work-item %d saw base %d, its sub-group's first %d", name, i,
           bases[i], bases[i - i % (int)width()]);
  weft_kernel_release(k);
  weft_buffer_release(bin);
  weft_buffer_release(bout);
  weft_buffer_release(bcount);
  weft_buffer_release(bbases);
  free(out);
  free(bases);
  free(want);
}

TEST(elected_atomics_in_whole_sub_groups) {
  setenv("WEFT_LOG", "launch", 1);
  enum { N = COMPACT_N };
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, compact_source, "-cl-std=CL3.0");
  int *in = malloc(N * sizeof *in);
  CHECK(in != NULL);
  for (int i = 0; i < N; i++) in[i] = (int)value_of((size_t)i);
  check_compact(ctx, p, "compact", in);
  check_compact(ctx, p, "compact_divergent", in);
  /* The loop: groups x sub-groups x turns (the number of groups). */
  weft_buffer *bcount = support_ints(ctx, 1, 0);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "looped", &k), p);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bcount), k);
  size_t global = N, local = COMPACT_LOCAL;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int count;
  CHECK_OK(weft_buffer_read(bcount, 0, sizeof count, &count), bcount);
  size_t groups = N / COMPACT_LOCAL;
  CHECK_EQ((size_t)count, groups * (N / width()));
  weft_kernel_release(k);
  weft_buffer_release(bcount);
  weft_program_release(p);
  weft_context_release(ctx);
  free(in);
}

/* A crash in whole sub-groups side by side names its work-item: the
 * group runs again as it runs without them, in a kernel cut into
 * regions at its meetings (a reduction) and in one whose meetings run on
 * fibers (nine functions, past the cuts' limit). */
TEST(fault_in_whole_sub_groups_names_work_item) {
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  if (harness_check_mode())
    SKIP("check mode stops the access itself, and jams nothing");
  setenv("WEFT_LOG", "launch", 1);
  char whole[64]; /* groups of 32: whole sub-groups at every width */
  snprintf(whole, sizeof whole, "whole sub-groups of %u", width());
  support_check_fault(
      "__kernel void k(__global int *a) {\n"
      "  int s = sub_group_reduce_add((int)get_global_id(0));\n"
      "  /* NULL for work-item 37, without a branch: */\n"
      "  __global int *p = (__global int *)((size_t)a * (get_global_id(0) != 37));\n"
      "  p[get_global_id(0)] = s;\n"
      "}\n",
      32, whole,
      "work-item (37) [local (5) in work-group (1)] at program.cl:5:");
  support_check_fault(
      "__kernel void k(__global int *a) {\n"
      "  int x = (int)get_global_id(0), s = 0;\n"
      "  for (int r = 0; r < 9; r++) s += sub_group_reduce_max(x + r);\n"
      "  __global int *p = (__global int *)((size_t)a * (get_global_id(0) != 37));\n"
      "  p[get_global_id(0)] = s;\n"
      "}\n",
      32, whole,
      "work-item (37) [local (5) in work-group (1)] at program.cl:5:");
  /* Between barriers: regions run by whole sub-groups (the fibers run
   * its work-items one at a time). */
  if (harness_barriers_on_fibers()) return;
  support_check_fault(
      "__kernel void k(__global int *a) {\n"
      "  __local int t[32];\n"
      "  t[get_local_id(0)] = (int)get_global_id(0);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int s = sub_group_scan_inclusive_add(t[31 - get_local_id(0)]);\n"
      "  __global int *p = (__global int *)((size_t)a * (get_global_id(0) != 37));\n"
      "  p[get_global_id(0)] = s;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "}\n",
      32, whole,
      "work-item (37) [local (5) in work-group (1)] at program.cl:7:");
  /* A split kernel (build.c): its slots' way, on fibers, names it. */
  support_check_fault(
      "__kernel void k(__global int *a) {\n"
      "  __local int t[32];\n"
      "  t[get_local_id(0)] = (int)get_global_id(0);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  int s = t[31 - get_local_id(0)];\n"
      "  if (get_sub_group_id() == 1) s = sub_group_scan_inclusive_add(s);\n"
      "  __global int *p = (__global int *)((size_t)a * (get_global_id(0) != 37));\n"
      "  p[get_global_id(0)] = s;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "}\n",
      32, whole,
      "work-item (37) [local (5) in work-group (1)] at program.cl:8:");
}

TEST_MAIN()
