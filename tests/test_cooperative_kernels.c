/* test_cooperative_kernels.c: cl_weft_cooperative_kernels (weft/kernel.h)
 * on the CPU: groups killed at offer_kill, forked at request_fork with
 * their transmit variables, resized at resizing_global_barrier, ids dense
 * and get_num_groups(0) what runs; under the default policy, under
 * WEFT_RESIZE=churn (every transition at every point) and under random
 * schedules; the paper's kinds of applications (a work-stealing task
 * system, a BFS over a resizing barrier) against host references. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sync_support.h"

static const char *source =
    "/* A loop's turn: after the offer and the request, the group's first\n"
    " * item claimed from *next into b (base: __local), the loop left once\n"
    " * n are claimed. */\n"
    "#define CLAIM(next, n, b)                                               \\\n"
    "  offer_kill();                                                         \\\n"
    "  request_fork();                                                       \\\n"
    "  if (get_local_id(0) == 0)                                             \\\n"
    "    base = atomic_add(next, (int)get_local_size(0));                    \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);                                         \\\n"
    "  int b = base;                                                         \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);                                         \\\n"
    "  if (b >= n) break;\n"
    "/* Work items claimed a group's worth at a time from *next until n:\n"
    " * each done once by whichever groups are alive. stats: the most\n"
    " * groups seen, the highest id, chunks, ids past the count. */\n"
    "__kernel void claim(__global int *next, __global int *out, int n,\n"
    "                    __global int *stats) {\n"
    "  __local int base;\n"
    "  for (;;) {\n"
    "    CLAIM(next, n, b);\n"
    "    int i = b + (int)get_local_id(0);\n"
    "    if (i < n) atomic_inc(&out[i]);\n"
    "    if (get_local_id(0) == 0) {\n"
    "      atomic_max(&stats[0], (int)get_num_groups(0));\n"
    "      atomic_max(&stats[1], (int)get_group_id(0));\n"
    "      atomic_inc(&stats[2]);\n"
    "      if (get_group_id(0) >= get_num_groups(0)) atomic_inc(&stats[3]);\n"
    "    }\n"
    "  }\n"
    "}\n"
    "/* A forked group's work-items start with the transmit variables of\n"
    " * the forking group's work-item of their local id. bad[0]: a wrong\n"
    " * value; bad[1]: rounds run, by all groups. */\n"
    "__kernel void transmitted(__global int *bad, int rounds) {\n"
    "  transmit int round = 0;\n"
    "  transmit int seed = 7 * (int)get_local_id(0) + 1;\n"
    "  transmit float part = 0.5f * (float)get_local_id(0);\n"
    "  while (round < rounds) {\n"
    "    request_fork();\n"
    "    int lid = (int)get_local_id(0);\n"
    "    if (seed != 7 * lid + 1 + round || part != 0.5f * lid + round)\n"
    "      atomic_inc(&bad[0]);\n"
    "    if (lid == 0) atomic_inc(&bad[1]);\n"
    "    seed++;\n"
    "    part += 1.0f;\n"
    "    round++;\n"
    "    offer_kill();\n"
    "  }\n"
    "}\n"
    "/* Arrays, structs and two fork sites, one in a helper function: a\n"
    " * forked group resumes at the site that forked it with its values. */\n"
    "typedef struct { int a; float b; } pair;\n"
    "void fork_here(void) { request_fork(); }\n"
    "__kernel void shapes(__global int *bad, __global int *sites) {\n"
    "  transmit int v[4] = {1, 2, 3, 4};\n"
    "  transmit pair p = {10, 0.25f};\n"
    "  transmit int site = 0;\n"
    "  for (int i = 0; i < 4; i++) v[i] += (int)get_local_id(0);\n"
    "  site = 1;\n"
    "  request_fork();\n"
    "  int lid = (int)get_local_id(0);\n"
    "  if (site == 1) {\n"
    "    if (get_local_id(0) == 0) atomic_inc(&sites[0]);\n"
    "    for (int i = 0; i < 4; i++) v[i] *= 2;\n"
    "    p.a += 5;\n"
    "    site = 2;\n"
    "    fork_here();\n"
    "  }\n"
    "  lid = (int)get_local_id(0);\n"
    "  if (get_local_id(0) == 0) atomic_inc(&sites[site]);\n"
    "  for (int i = 0; i < 4; i++)\n"
    "    if (v[i] != 2 * (i + 1 + lid)) atomic_inc(bad);\n"
    "  if (p.a != 15 || p.b != 0.25f || site != 2) atomic_inc(bad);\n"
    "}\n"
    "/* Phase p's w slots, each counted once by the groups running in that\n"
    " * phase, whatever their number: it changes only at the barrier. */\n"
    "__kernel void phases(__global int *slots, int w, int phases,\n"
    "                     __global int *seen) {\n"
    "  transmit int p = 0;\n"
    "  while (p < phases) {\n"
    "    int stride = (int)get_global_size(0);\n"
    "    if (stride != (int)(get_num_groups(0) * get_local_size(0)))\n"
    "      atomic_inc(&seen[1]);\n"
    "    for (int i = (int)get_global_id(0); i < w; i += stride)\n"
    "      atomic_inc(&slots[p * w + i]);\n"
    "    if (get_global_id(0) == 0) atomic_max(&seen[0], (int)get_num_groups(0));\n"
    "    resizing_global_barrier();\n"
    "    p++;\n"
    "  }\n"
    "}\n"
    "/* Group 1 returns before the barrier: the others wait for ever. */\n"
    "__kernel void skips(__global int *out) {\n"
    "  request_fork();\n"
    "  if (get_group_id(0) == 1) return;\n"
    "  resizing_global_barrier();\n"
    "  out[get_group_id(0)] = 1;\n"
    "}\n"
    "/* The end of a persistent kernel's turn: every work-item leaves once\n"
    " * work-item 0 has seen the stop (stop, in __local memory). */\n"
    "#define END_TURN                                                        \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);                                         \\\n"
    "  if (stop) break;                                                      \\\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "/* Runs until another launch sets *flag: without threads given back\n"
    " * by its groups that launch could never run. stats: the most groups,\n"
    " * turns, group 0's count at its latest turn, the fewest groups any\n"
    " * group saw. */\n"
    "__kernel void persist(__global atomic_int *flag, __global int *stats) {\n"
    "  __local int stop;\n"
    "  for (;;) {\n"
    "    offer_kill();\n"
    "    request_fork();\n"
    "    if (get_local_id(0) == 0) {\n"
    "      stop = atomic_load(flag);\n"
    "      int n = (int)get_num_groups(0);\n"
    "      atomic_max(&stats[0], n);\n"
    "      atomic_inc(&stats[1]);\n"
    "      atomic_min(&stats[3], n);\n"
    "      if (get_group_id(0) == 0) atomic_xchg(&stats[2], n);\n"
    "    }\n"
    "    END_TURN\n"
    "  }\n"
    "}\n"
    "/* The same, with a point only at its end: it never gives a thread\n"
    " * back while it polls. */\n"
    "__kernel void persist_closed(__global atomic_int *flag,\n"
    "                             __global int *stats) {\n"
    "  __local int stop;\n"
    "  for (;;) {\n"
    "    if (get_local_id(0) == 0) {\n"
    "      stop = atomic_load(flag);\n"
    "      atomic_inc(&stats[1]);\n"
    "    }\n"
    "    END_TURN\n"
    "  }\n"
    "  offer_kill();\n"
    "}\n"
    "/* The same with a resizing barrier a turn: every group leaves at the\n"
    " * same turn, the one after the next barrier from group 0's sight of\n"
    " * the flag (stats[2]); the turn travels to new groups. */\n"
    "__kernel void persist_barrier(__global atomic_int *flag,\n"
    "                              __global int *stats) {\n"
    "  __local int stop;\n"
    "  transmit int turn = 1;\n"
    "  for (;; turn++) {\n"
    "    resizing_global_barrier();\n"
    "    if (get_local_id(0) == 0) {\n"
    "      int end = atomic_load((__global atomic_int *)&stats[2]);\n"
    "      stop = end && turn >= end;\n"
    "      atomic_max(&stats[0], (int)get_num_groups(0));\n"
    "      atomic_inc(&stats[1]);\n"
    "      if (get_group_id(0) == 0 && !end && atomic_load(flag))\n"
    "        atomic_store((__global atomic_int *)&stats[2], turn + 1);\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (stop) break;\n"
    "  }\n"
    "}\n"
    "/* persist's turns, counting in seen[id] those groups 1 and 2 begin\n"
    " * among the groups wanted back (query_kill). Once the host sets\n"
    " * seen[6] to 1, group 3 sets it to 2 and holds its offer until groups\n"
    " * are wanted back, and a millisecond or so more. */\n"
    "__kernel void wanted_back(__global atomic_int *flag,\n"
    "                          __global atomic_int *seen) {\n"
    "  __local int stop;\n"
    "  for (;;) {\n"
    "    offer_kill();\n"
    "    request_fork();\n"
    "    if (get_local_id(0) == 0) {\n"
    "      int id = (int)get_group_id(0), back = (int)query_kill();\n"
    "      if (back && id >= (int)get_num_groups(0) - back && id < 3)\n"
    "        atomic_fetch_add(&seen[id], 1);\n"
    "      if (id == 3 && atomic_load(&seen[6]) == 1) {\n"
    "        atomic_store(&seen[6], 2);\n"
    "        for (int i = 0; i < 100000000 && !query_kill(); i++)\n"
    "          ;\n"
    "        for (int i = 0; i < 1000000; i++) atomic_load(&seen[7]);\n"
    "      }\n"
    "      stop = atomic_load(flag);\n"
    "      atomic_fetch_add(&seen[9], 1);\n"
    "    }\n"
    "    END_TURN\n"
    "  }\n"
    "}\n"
    "__kernel void nothing(__global int *unused) { (void)unused; }\n"
    "/* Tens of milliseconds of one work-item's dependent multiplies. */\n"
    "__kernel void linger(__global uint *o) {\n"
    "  uint s = o[0];\n"
    "  for (uint i = 0; i < 20000000u; i++) s = (s ^ i) * 16777619u;\n"
    "  o[0] = s;\n"
    "}\n"
    "__kernel void signal(__global atomic_int *flag) {\n"
    "  atomic_store(flag, 1);\n"
    "}\n"
    "/* Items claimed a group's worth at a time, summed by sub-group\n"
    " * functions: each sub-group's reduction added by its elected lane to\n"
    " * totals[0], the odd values' non-uniform reduction (the lanes with\n"
    " * one, in a branch) to totals[1], whichever groups are alive. */\n"
    "__kernel void sub_group_sums(__global int *next, __global const int *in,\n"
    "                             int n, __global int *totals) {\n"
    "  __local int base;\n"
    "  for (;;) {\n"
    "    CLAIM(next, n, b);\n"
    "    int i = b + (int)get_local_id(0);\n"
    "    int v = i < n ? in[i] : 0;\n"
    "    int all = sub_group_reduce_add(v);\n"
    "    if (sub_group_elect()) atomic_add(&totals[0], all);\n"
    "    if (v & 1) {\n"
    "      int odd = sub_group_non_uniform_reduce_add(v);\n"
    "      if (sub_group_elect()) atomic_add(&totals[1], odd);\n"
    "    }\n"
    "  }\n"
    "}\n"
    "/* What query_kill says, and that every work-item may call it. */\n"
    "__kernel void query(__global int *out) {\n"
    "  request_fork();\n"
    "  out[get_global_id(0)] = 1 + (int)query_kill();\n"
    "}\n";

static fixture setup(void) { return setup_program(source, "-cl-std=CL3.0"); }

/* Runs claim over n items with groups of local, at most max groups, and
 * checks every item done once; stats out. */
static void run_claim(fixture *f, int n, size_t max, size_t local,
                      int stats[4]) {
  weft_kernel *k = kernel(f, "claim");
  weft_buffer *next = ints(f, 1, NULL), *out = ints(f, (size_t)n, NULL),
              *s = ints(f, 4, NULL);
  args(k, "BBIB", next, out, n, s);
  CHECK_OK(launch(k, max, local), k);
  int *got = malloc((size_t)n * sizeof *got);
  read_ints(out, got, (size_t)n);
  for (int i = 0; i < n; i++)
    if (got[i] != 1) FAIL("item %d done %d times", i, got[i]);
  free(got);
  read_ints(s, stats, 4);
  CHECK_EQ(stats[3], 0);       /* every id below the count */
  CHECK(stats[0] <= (int)max); /* never more than the launch's */
  CHECK(stats[1] < (int)max);
  release_buffers(next, out, s);
  weft_kernel_release(k);
}

/* By default a launch runs as many groups as there are threads: the
 * work is done whatever the count. */
TEST(claim_default) {
  fixture f = setup();
  int stats[4];
  run_claim(&f, 5000, 16, 8, stats);
  CHECK(stats[0] >= 1);
  teardown(&f);
}

/* WEFT_RESIZE=churn: every offer by the highest group kills it, every
 * request forks up to the launch's count: ids reach the top and the work
 * is still done once. Enough claims (50000) that on 16 threads too a
 * group numbered 15 starts before the work runs out: forks wait for a
 * thread to start them, and on the H200 host's 16 cores a group passes
 * hundreds of claims meanwhile (with 625 claims the fibers variant
 * failed so in both of two runs; with 5000 the ucontext variant within
 * ten and within fifteen repetitions, the highest to claim numbered 12). */
TEST(claim_churn) {
  setenv("WEFT_RESIZE", "churn", 1);
  fixture f = setup();
  int stats[4];
  run_claim(&f, 400000, 16, 8, stats);
  CHECK_EQ(stats[0], 16);
  CHECK_EQ(stats[1], 15);
  teardown(&f);
}

/* A random schedule for the tests that follow (set before the first
 * device starts), unless the test's variant names another. */
static void random_schedule(void) {
  CPU_ONLY("schedule exploration is the CPU's");
  setenv("WEFT_SCHEDULE", "random:1", 0);
}

/* run(f) under random schedules of seeds 1 to seeds, which kill and fork
 * at random, on one thread. */
static void sweep_seeds(unsigned seeds, void (*run)(fixture *f)) {
  random_schedule();
  fixture f = setup();
  for (unsigned seed = 1; seed <= seeds; seed++) {
    weft_schedule_seed(seed);
    run(&f);
  }
  teardown(&f);
}

static void claim_small(fixture *f) {
  int stats[4];
  run_claim(f, 700, 6, 4, stats);
}

TEST(claim_random) { sweep_seeds(12, claim_small); }

/* sub_group_sums over n values in groups of local, at most max groups:
 * the totals of all and of the odd ones. */
static void run_sub_group_sums(fixture *f, int n, size_t max, size_t local) {
  weft_kernel *k = kernel(f, "sub_group_sums");
  int *values = malloc((size_t)n * sizeof *values), want[2] = {0, 0};
  CHECK(values != NULL);
  for (int i = 0; i < n; i++) {
    values[i] = i * 37 % 101;
    want[0] += values[i];
    if (values[i] & 1) want[1] += values[i];
  }
  weft_buffer *next = ints(f, 1, NULL), *in = ints(f, (size_t)n, values),
              *totals = ints(f, 2, NULL);
  args(k, "BBIB", next, in, n, totals);
  CHECK_OK(launch(k, max, local), k);
  int got[2];
  read_ints(totals, got, 2);
  CHECK_EQ(got[0], want[0]);
  CHECK_EQ(got[1], want[1]);
  release_buffers(next, in, totals);
  weft_kernel_release(k);
  free(values);
}

/* Sub-group functions in a cooperative kernel whose groups are killed
 * and forked (churn: at every offer and request), by default, and under
 * random schedules: each value summed once. */
TEST(sub_groups_in_cooperative_kernels) {
  fixture f = setup();
  run_sub_group_sums(&f, 3000, 8, 32);
  run_sub_group_sums(&f, 1000, 5, 8);
  teardown(&f);
}

TEST(sub_groups_in_cooperative_kernels_churn) {
  setenv("WEFT_RESIZE", "churn", 1);
  fixture f = setup();
  run_sub_group_sums(&f, 3000, 8, 32);
  teardown(&f);
}

static void sub_group_sums_small(fixture *f) { run_sub_group_sums(f, 300, 4, 8); }

TEST(sub_groups_in_cooperative_kernels_random) {
  sweep_seeds(8, sub_group_sums_small);
}

static void run_transmitted(fixture *f, size_t groups, size_t local,
                            int rounds, int *runs) {
  weft_kernel *k = kernel(f, "transmitted");
  weft_buffer *bad = ints(f, 2, NULL);
  args(k, "BI", bad, rounds);
  CHECK_OK(launch(k, groups, local), k);
  int got[2];
  read_ints(bad, got, 2);
  CHECK_EQ(got[0], 0);
  *runs = got[1];
  release_buffers(bad);
  weft_kernel_release(k);
}

/* Under churn every round forks and kills: more rounds run than the
 * groups started with could run, each with the right values. */
TEST(transmit_churn) {
  setenv("WEFT_RESIZE", "churn", 1);
  fixture f = setup();
  int runs;
  run_transmitted(&f, 8, 16, 20, &runs);
  CHECK(runs > 20 * 2);
  teardown(&f);
}

static void transmitted_small(fixture *f) {
  int runs;
  run_transmitted(f, 5, 3, 6, &runs);
  CHECK(runs >= 6);
}

TEST(transmit_random) { sweep_seeds(10, transmitted_small); }

/* Under churn the first site forks the launch's other groups, which
 * skip the second (they are at site 1's resume with site 1); all check
 * their values after it. */
TEST(transmit_shapes) {
  setenv("WEFT_RESIZE", "churn", 1);
  fixture f = setup();
  weft_kernel *k = kernel(&f, "shapes");
  weft_buffer *bad = ints(&f, 1, NULL), *sites = ints(&f, 3, NULL);
  args(k, "BB", bad, sites);
  CHECK_OK(launch(k, 6, 8), k);
  int got[3];
  read_ints(bad, got, 1);
  CHECK_EQ(got[0], 0);
  read_ints(sites, got, 3);
  CHECK_EQ(got[2], 6); /* every group passed the end once */
  CHECK(got[0] >= 1 && got[0] <= 6);
  teardown(&f);
}

static void run_phases(fixture *f, size_t groups, size_t local, int *most) {
  enum { W = 300, PHASES = 12 };
  weft_kernel *k = kernel(f, "phases");
  weft_buffer *slots = ints(f, W * PHASES, NULL), *seen = ints(f, 2, NULL);
  args(k, "BIIB", slots, W, PHASES, seen);
  CHECK_OK(launch(k, groups, local), k);
  int got[W * PHASES];
  read_ints(slots, got, W * PHASES);
  for (int i = 0; i < W * PHASES; i++)
    if (got[i] != 1) FAIL("phase %d slot %d counted %d times", i / W, i % W, got[i]);
  int s[2];
  read_ints(seen, s, 2);
  CHECK_EQ(s[1], 0);
  *most = s[0];
  release_buffers(slots, seen);
  weft_kernel_release(k);
}

/* The barrier alternates between one group and all under churn. */
TEST(resizing_barrier_churn) {
  setenv("WEFT_RESIZE", "churn", 1);
  fixture f = setup();
  int most;
  run_phases(&f, 9, 8, &most);
  CHECK_EQ(most, 9);
  teardown(&f);
}

TEST(resizing_barrier_default) {
  fixture f = setup();
  int most;
  run_phases(&f, 9, 8, &most);
  CHECK(most >= 1 && most <= 9);
  teardown(&f);
}

static void phases_small(fixture *f) {
  int most;
  run_phases(f, 7, 4, &most);
}

TEST(resizing_barrier_random) { sweep_seeds(10, phases_small); }

/* A group that returns without arriving (churn forks it, whatever the
 * threads): it still counts, so the deadlock report names the resizing
 * barrier, and the device goes on. */
TEST(resizing_barrier_deadlock) {
  setenv("WEFT_SPIN_TIMEOUT", "1", 1);
  setenv("WEFT_RESIZE", "churn", 1);
  fixture f = setup();
  weft_kernel *k = kernel(&f, "skips");
  weft_buffer *out = ints(&f, 8, NULL);
  args(k, "B", out);
  CHECK_FAILS(launch(k, 4, 2), WEFT_EDEADLOCK, k,
              "waits on resizing_global_barrier()");
  support_check_device_goes_on(f.ctx, out, 8, 2, 5);
  release_buffers(out);
  weft_kernel_release(k);
  teardown(&f);
}

typedef struct persisting {
  weft_kernel *k;
  int rc;
  size_t groups, local;
} persisting;

static void *persist_main(void *arg) {
  persisting *p = arg;
  p->rc = launch(p->k, p->groups, p->local);
  return NULL;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs kernel name (persist, persist_closed, persist_barrier) in groups
 * of local on another thread until a launch of signal from this one ends
 * it: the seconds that launch took. */
static double persist_until_signalled(const char *name, size_t groups,
                                      size_t local) {
  /* The kernel only polls until the host's launch comes, which a loaded
   * machine may hold back for seconds: not a deadlock here. */
  setenv("WEFT_SPIN_TIMEOUT", "50", 1);
  fixture f = setup();
  weft_kernel *k = kernel(&f, name), *s = kernel(&f, "signal");
  int start[4] = {0, 0, 0, 1 << 30};
  weft_buffer *flag = ints(&f, 1, NULL), *stats = ints(&f, 4, start);
  args(k, "BB", flag, stats);
  args(s, "B", flag);
  persisting p = {k, -1, groups, local};
  pthread_t thread;
  CHECK_EQ(pthread_create(&thread, NULL, persist_main, &p), 0);
  /* Until it has started (its turns count). */
  int got[2] = {0, 0};
  for (int i = 0; i < 2000 && got[1] < 10; i++) {
    usleep(1000);
    read_ints(stats, got, 2);
  }
  CHECK(got[1] >= 10);
  double t0 = now();
  CHECK_OK(launch(s, 1, 1), s);
  double took = now() - t0;
  CHECK_EQ(pthread_join(thread, NULL), 0);
  CHECK_EQ(p.rc, WEFT_OK);
  release_buffers(flag, stats);
  weft_kernel_release(k);
  weft_kernel_release(s);
  teardown(&f);
  return took;
}

/* A launch from another thread while a cooperative kernel holds every
 * thread: the kernel gives threads back at its offers, the launch runs
 * (and ends the kernel, which waited for it). On a GPU the pool of 8
 * blocks leaves room: the launch runs beside it on its own stream. */
TEST(shares_threads_with_another_launch) {
  persist_until_signalled("persist", 8, 4);
}

/* The same beside a kernel that offers nothing while it polls: the launch
 * waits the gather bound (20 ms), then runs beside it all the same. */
TEST(launch_beside_a_closed_kernel) {
  persist_until_signalled("persist_closed", 8, 4);
}

/* WEFT_GATHER_BOUND sets that wait: 0.3 s beside the closed kernel on
 * two threads (on one the kernel keeps its one group and the launch does
 * not wait; a GPU's launch runs in blocks the pool leaves, if any). */
TEST(gather_bound_set_by_environment) {
  if (harness_on_gpu()) SKIP("the CPU's bound; a GPU's launch waits for "
                             "blocks");
  setenv("WEFT_NUM_THREADS", "2", 1);
  setenv("WEFT_GATHER_BOUND", "0.3", 1);
  double took = persist_until_signalled("persist_closed", 8, 4);
  if (took < 0.3) FAIL("the launch took %.3f s beside the closed kernel", took);
}

/* A GPU full of the pool's blocks (as many as fit, of 65536 groups):
 * the launch runs only in blocks the pool gives back at offer_kill
 * (builtins/nvptx/coop.cl), which later launches fill again. */
TEST(gives_a_full_gpu_back_at_offers) {
  if (!harness_on_gpu()) SKIP("a GPU's pool; on the CPU: shares_threads_*");
  persist_until_signalled("persist", 65536, 64);
}

/* The groups persist ran with at its latest turns, once they
 * stand (the same 20 turns running), or -1 if they did not within 10 s. */
static int settled_groups(weft_buffer *stats) {
  int got[3], last = -1, same = 0;
  for (int i = 0; i < 10000 && same < 20; i++) {
    usleep(1000);
    read_ints(stats, got, 3);
    same = got[2] == last ? same + 1 : 0;
    last = got[2];
  }
  return same >= 20 ? last : -1;
}

/* persist in groups of local; when it has settled, a one-work-item
 * launch of beside from this thread (which takes at least one of its
 * groups' threads or blocks, the most it can run beside): the groups it
 * ran before the launch, the fewest meanwhile and the groups once it
 * settled again after it, into ran[0..2]. */
static void groups_around_a_launch(size_t groups, size_t local,
                                   const char *beside, int ran[3]) {
  setenv("WEFT_SPIN_TIMEOUT", "50", 1);
  fixture f = setup();
  weft_kernel *k = kernel(&f, "persist"), *s = kernel(&f, "signal"),
              *other = kernel(&f, beside);
  int start[4] = {0, 0, 0, 1 << 30};
  weft_buffer *flag = ints(&f, 1, NULL), *stats = ints(&f, 4, start),
              *unused = ints(&f, 1, NULL);
  args(k, "BB", flag, stats);
  args(s, "B", flag);
  args(other, "B", unused);
  persisting p = {k, -1, groups, local};
  pthread_t thread;
  CHECK_EQ(pthread_create(&thread, NULL, persist_main, &p), 0);
  ran[0] = settled_groups(stats);
  CHECK(ran[0] > 0);
  CHECK_OK(launch(other, 1, 1), other);
  ran[2] = settled_groups(stats);
  int got[4];
  read_ints(stats, got, 4);
  ran[1] = got[3];
  CHECK_OK(launch(s, 1, 1), s);
  CHECK_EQ(pthread_join(thread, NULL), 0);
  CHECK_EQ(p.rc, WEFT_OK);
  release_buffers(flag, stats, unused);
  weft_kernel_release(k);
  weft_kernel_release(s);
  weft_kernel_release(other);
  teardown(&f);
}

/* What the kernel gave up comes back at its request_fork (on a GPU,
 * where the pool leaves room, blocks of its kernel launched to join the
 * pool take the rooms back: cuda_pool.c). */
static void takes_groups_back(size_t groups, size_t local) {
  int ran[3];
  groups_around_a_launch(groups, local, "nothing", ran);
  if (ran[2] != ran[0])
    FAIL("%d groups ran before the other launch, %d after it (fewest %d)",
         ran[0], ran[2], ran[1]);
}

/* Beside a small pool, the launch may find room without a group given
 * up; if one was, it comes back (threads8: 8 groups run, 7 while the
 * launch does, 8 again after it). */
TEST(takes_groups_back_after_a_launch) {
  takes_groups_back(8, 4);
}

/* A pool that fills the GPU numbers its groups by multiprocessor and
 * gives a launch beside it whole ones (coop.cl's sm_major_id,
 * cuda_pool.c's blocks_wanted): beside a one-work-item launch long
 * enough for the pool's groups to reach their offers (one at a time, the
 * highest first) it runs one multiprocessor's blocks fewer, and goes on
 * so after it (a pool that fills the GPU takes no blocks back). */
TEST(gives_whole_multiprocessors) {
  if (!harness_on_gpu()) SKIP("a GPU's pool; on the CPU: threads");
  int ran[3];
  groups_around_a_launch(65536, 64, "linger", ran);
  unsigned sms = support_device_info().compute_units;
  CHECK(sms > 0 && ran[0] % (int)sms == 0);
  int per_sm = ran[0] / (int)sms;
  if (ran[1] != ran[0] - per_sm || ran[2] != ran[1])
    FAIL("%d groups (%d a multiprocessor) ran before the other launch, "
         "%d at the fewest, %d after it", ran[0], per_sm, ran[1], ran[2]);
}

/* On the CPU, the barrier kernel beside a launch from another thread. */
TEST(shares_threads_at_barriers) {
  persist_until_signalled("persist_barrier", 8, 4);
}

/* Four groups on four threads; a launch of signal in three one-item
 * groups from this thread wants three back while group 3 holds its offer
 * (until it sees groups wanted back, and about a millisecond more, while
 * the others' turns take microseconds; the launch waits up to 30 s, not
 * 20 ms, for check mode's slower loops): groups 1 and 2 wait at their
 * offers until those above them have ended, and end there, rather than
 * run on turn after turn until each is the highest (resize.c's
 * wait_while_doomed). */
TEST(groups_wanted_back_wait_at_their_offers) {
  if (harness_on_gpu()) SKIP("the CPU's scheduler; a GPU's pool ends its "
                             "blocks one offer at a time");
  setenv("WEFT_NUM_THREADS", "4", 1);
  setenv("WEFT_SPIN_TIMEOUT", "50", 1);
  setenv("WEFT_GATHER_BOUND", "30", 1);
  fixture f = setup();
  weft_kernel *k = kernel(&f, "wanted_back"), *s = kernel(&f, "signal");
  weft_buffer *flag = ints(&f, 1, NULL), *seen = ints(&f, 10, NULL);
  args(k, "BB", flag, seen);
  args(s, "B", flag);
  persisting p = {k, -1, 4, 4};
  pthread_t thread;
  CHECK_EQ(pthread_create(&thread, NULL, persist_main, &p), 0);
  int got[10] = {0}, hold = 1;
  for (int i = 0; i < 2000 && got[9] < 40; i++) { /* its turns go on */
    usleep(1000);
    read_ints(seen, got, 10);
  }
  CHECK(got[9] >= 40);
  CHECK_OK(weft_buffer_write(seen, 6 * sizeof(int), sizeof hold, &hold), seen);
  for (int i = 0; i < 10000 && got[6] != 2; i++) { /* group 3 holds */
    usleep(1000);
    read_ints(seen, got, 10);
  }
  CHECK_EQ(got[6], 2);
  CHECK_OK(launch(s, 3, 1), s);
  CHECK_EQ(pthread_join(thread, NULL), 0);
  CHECK_EQ(p.rc, WEFT_OK);
  read_ints(seen, got, 10);
  for (int id = 1; id < 3; id++)
    if (got[id] > 1)
      FAIL("group %d began %d turns among the groups wanted back (1 at "
           "most: it waits at its offer)", id, got[id]);
  CHECK_EQ(got[0], 0); /* group 0 is never wanted back */
  release_buffers(flag, seen);
  weft_kernel_release(k);
  weft_kernel_release(s);
  teardown(&f);
}

/* query_kill() in 4 groups of 2, 1 added; 0 where no group ran. */
static void run_query(int got[8]) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "query");
  weft_buffer *out = ints(&f, 8, NULL);
  args(k, "B", out);
  CHECK_OK(launch(k, 4, 2), k);
  read_ints(out, got, 8);
  release_buffers(out);
  weft_kernel_release(k);
  teardown(&f);
}

/* By default no group is wanted back: the groups that ran (as many as
 * there are threads) say 0. */
TEST(query_kill_default) {
  int got[8];
  run_query(got);
  CHECK_EQ(got[0], 1);
  for (int i = 0; i < 8; i++) CHECK(got[i] == 0 || got[i] == 1);
}

/* Under churn every group runs (forked up to the launch's 4), and all
 * but one are wanted back. */
TEST(query_kill_churn) {
  setenv("WEFT_RESIZE", "churn", 1);
  int got[8];
  run_query(got);
  for (int i = 0; i < 8; i++) CHECK_EQ(got[i], 4);
}

/* One dimension: other launches fail with a message. */
TEST(launch_errors) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "claim");
  weft_buffer *next = ints(&f, 1, NULL), *out = ints(&f, 4, NULL),
              *s = ints(&f, 4, NULL);
  args(k, "BBIB", next, out, 4, s);
  size_t global[2] = {8, 2}, local[2] = {4, 1};
  CHECK_FAILS(weft_kernel_launch(k, 2, NULL, global, local), WEFT_EINVAL, k,
              "runs in one dimension, not 2");
  release_buffers(next, out, s);
  weft_kernel_release(k);
  teardown(&f);
}

/* The points belong to the kernel: one that another kernel calls is
 * refused, at the call. */
TEST(called_kernel_refused) {
  weft_context *ctx = support_context();
  weft_program *p;
  CHECK_OK(weft_program_create(ctx,
                               "__kernel void inner(__global int *o) {\n"
                               "  offer_kill();\n"
                               "  o[0] = 1;\n"
                               "}\n"
                               "__kernel void outer(__global int *o) {\n"
                               "  inner(o);\n"
                               "}\n", 0, &p), ctx);
  CHECK_EQ(weft_program_build(p, ""), WEFT_EBUILD);
  CHECK_STR_CONTAINS(weft_program_build_log(p), "kernel 'inner' has "
                     "cooperative kernels' points");
  if (!harness_on_gpu())
    CHECK_STR_CONTAINS(weft_program_build_log(p), "program.cl:2:");
  weft_program_release(p);
  weft_context_release(ctx);
}

/* A GPU's build (no GPU needed): the kernel's entry runs a pool of
 * blocks over the pool's state. */
TEST(gpu_pool_built) {
  char *ptx = NULL, *log = NULL;
  const char *src = "__kernel void k(__global int *o) {\n"
                    "  transmit int n = 1;\n"
                    "  request_fork();\n"
                    "  o[get_group_id(0)] = n + (int)get_num_groups(0);\n"
                    "}\n";
  int rc = weft_compile_ptx(src, 0, "", 90, &ptx, &log);
  if (rc) FAIL("weft_compile_ptx: %s\n%s", weft_strerror(rc), log);
  CHECK_STR_CONTAINS(ptx, ".visible .entry k(");
  CHECK_STR_CONTAINS(ptx, ".global .align 128 .b8 weft__coop_state[");
  CHECK_STR_CONTAINS(ptx, "nanosleep");
  free(ptx);
  free(log);
}

/* A program may keep the name transmit for itself. */
TEST(transmit_name_kept) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx,
                                  "__kernel void k(__global int *transmit) {\n"
                                  "  weft_transmit int n = 2;\n"
                                  "  transmit[0] = n;\n"
                                  "}\n", "-DWEFT_NO_TRANSMIT");
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST_MAIN()
