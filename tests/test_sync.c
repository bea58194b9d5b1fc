/* test_sync.c: cl_weft_sync (include/weft/kernel.h) on the CPU: mutexes,
 * semaphores and barriers between work-groups keep their invariants under
 * contention, with any number of groups on any number of threads (the
 * tests also run on 1 and 8 threads, and with fibers); groups that wait
 * for each other for ever are reported, never left hanging. */
#include "sync_support.h"

static const char *source =
    "/* A non-atomic counter, changed only inside the critical section. */\n"
    "__kernel void mutex(__global weft_mutex *m, __global int *c, int reps) {\n"
    "  for (int r = 0; r < reps; r++) {\n"
    "    weft_mutex_lock_group(m);\n"
    "    if (get_local_id(0) == 0) { int v = c[0]; c[1]++; c[0] = v + 1; }\n"
    "    weft_mutex_unlock_group(m);\n"
    "  }\n"
    "}\n"
    "__kernel void trylock(__global weft_mutex *m, __global int *c) {\n"
    "  if (get_local_id(0) == 0 && weft_mutex_trylock(m)) {\n"
    "    c[0]++;\n"
    "    weft_mutex_unlock(m);\n"
    "  }\n"
    "}\n"
    "/* At most count groups inside at once: c[0] inside now, c[1] the most\n"
    " * ever seen, c[2] entries. */\n"
    "__kernel void semaphore(__global weft_semaphore *s, __global int *c,\n"
    "                        int reps) {\n"
    "  for (int r = 0; r < reps; r++) {\n"
    "    weft_semaphore_wait_group(s);\n"
    "    if (get_local_id(0) == 0) {\n"
    "      atomic_max(&c[1], atomic_inc(&c[0]) + 1);\n"
    "      atomic_inc(&c[2]);\n"
    "      atomic_dec(&c[0]);\n"
    "    }\n"
    "    weft_semaphore_post_group(s);\n"
    "  }\n"
    "}\n"
    "/* Phase p: every group adds to slot p; past the barrier every group\n"
    " * must see all the additions. */\n"
    "__kernel void global_barrier(__global int *slots, __global int *bad,\n"
    "                             int phases) {\n"
    "  int groups = get_num_groups(0);\n"
    "  for (int p = 0; p < phases; p++) {\n"
    "    if (get_local_id(0) == 0) atomic_inc(&slots[p]);\n"
    "    weft_global_barrier();\n"
    "    if (get_local_id(0) == 0 && slots[p] != groups) atomic_inc(bad);\n"
    "  }\n"
    "}\n"
    "__kernel void object_barrier(__global weft_barrier *b, __global int *slots,\n"
    "                             __global int *bad, int phases) {\n"
    "  /* The host set b for all groups. */\n"
    "  int groups = get_num_groups(0);\n"
    "  for (int p = 0; p < phases; p++) {\n"
    "    if (get_local_id(0) == 0) atomic_inc(&slots[p]);\n"
    "    weft_barrier_wait(b);\n"
    "    if (get_local_id(0) == 0 && slots[p] != groups) atomic_inc(bad);\n"
    "  }\n"
    "}\n"
    "__kernel void skip_barrier(__global int *out) {\n"
    "  if (get_group_id(0) == 3) return;\n"
    "  weft_global_barrier();\n"
    "  out[0] = 1;\n"
    "}\n"
    "__kernel void never_unlocked(__global weft_mutex *m) {\n"
    "  if (get_local_id(0) == 0) weft_mutex_lock(m);\n"
    "}\n"
    "/* A user's own lock and flag, without the extension: the JIT makes\n"
    " * the polling loops yield. */\n"
    "__kernel void user_spin(__global int *lock, __global int *counter,\n"
    "                        volatile __global int *flag) {\n"
    "  if (get_local_id(0) == 0) {\n"
    "    while (atomic_cmpxchg(lock, 0, 1) != 0) {}\n"
    "    int c = counter[0]; counter[0] = c + 1;\n"
    "    atomic_xchg(lock, 0);\n"
    "    if (get_group_id(0) == get_num_groups(0) - 1) flag[0] = 1;\n"
    "    while (flag[0] == 0) {}\n"
    "  }\n"
    "}\n"
    "__kernel void spin_forever(volatile __global int *flag) {\n"
    "  if (get_local_id(0) == 0) while (flag[0] == 0) {}\n"
    "}\n"
    "__kernel void crash(__global weft_mutex *m, __global int *c) {\n"
    "  weft_mutex_lock_group(m);\n"
    "  if (get_group_id(0) == 5 && get_local_id(0) == 1) *(__global int *)8 = 1;\n"
    "  weft_mutex_unlock_group(m);\n"
    "}\n"
    "/* Sub-group functions between global barriers: in phase p each\n"
    " * sub-group's reduction of its lanes' values, added by its elected\n"
    " * lane to slot p, must make the phase's total past the barrier; there\n"
    " * the lanes with an odd value (half of each sub-group: consecutive\n"
    " * values, sub-groups of an even size) count themselves, a non-uniform\n"
    " * function in a branch. bad: wrong totals, wrong counts. */\n"
    "__kernel void sub_group_phases(__global int *slots, __global int *bad,\n"
    "                               int phases) {\n"
    "  int items = (int)get_global_size(0);\n"
    "  for (int p = 0; p < phases; p++) {\n"
    "    int v = (int)get_global_id(0) + p;\n"
    "    int s = sub_group_reduce_add(v);\n"
    "    if (sub_group_elect()) atomic_add(&slots[p], s);\n"
    "    weft_global_barrier();\n"
    "    if (slots[p] != items * (items - 1) / 2 + items * p) atomic_inc(&bad[0]);\n"
    "    if (v & 1) {\n"
    "      int odd = sub_group_non_uniform_reduce_add(1);\n"
    "      if (odd != (int)get_sub_group_size() / 2) atomic_inc(&bad[1]);\n"
    "    }\n"
    "  }\n"
    "}\n";

static fixture setup(void) { return setup_program(source, "-cl-std=CL3.0"); }

/* The mutex admits one group at a time: the non-atomic counter equals the
 * number of acquisitions, for 1 to 4096 groups. */
TEST(mutex_mutual_exclusion) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "mutex");
  static const size_t groups[] = {1, 3, 64, 1024, 4096};
  for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
    weft_buffer *m = ints(&f, 4, NULL), *c = ints(&f, 2, NULL);
    int reps = groups[i] > 1000 ? 5 : 50, got[2];
    args(k, "BBI", m, c, reps);
    CHECK_OK(launch(k, groups[i], 4), k);
    read_ints(c, got, 2);
    CHECK_EQ(got[0], (long long)groups[i] * reps);
    CHECK_EQ(got[1], got[0]);
    release_buffers(m, c);
  }
  weft_kernel_release(k);
  teardown(&f);
}

TEST(mutex_trylock) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "trylock");
  weft_buffer *m = ints(&f, 4, NULL), *c = ints(&f, 1, NULL);
  args(k, "BB", m, c);
  CHECK_OK(launch(k, 256, 2), k);
  int got[4];
  read_ints(c, got, 1);
  /* Groups run one after another on a thread: at least one took it. */
  CHECK(got[0] >= 1 && got[0] <= 256);
  read_ints(m, got, 4);
  CHECK_EQ(got[0], 0); /* left unlocked */
  release_buffers(m, c);
  weft_kernel_release(k);
  teardown(&f);
}

/* The semaphore never admits more than its count, and every wait is
 * matched. */
TEST(semaphore_count) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "semaphore");
  static const int counts[] = {1, 2, 10, 120};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
    int init[4] = {counts[i], 0, 0, 0};
    weft_buffer *s = ints(&f, 4, init), *c = ints(&f, 3, NULL);
    int reps = 20, got[3];
    args(k, "BBI", s, c, reps);
    CHECK_OK(launch(k, 512, 4), k);
    read_ints(c, got, 3);
    CHECK_EQ(got[0], 0);
    CHECK(got[1] >= 1 && got[1] <= counts[i]);
    CHECK_EQ(got[2], 512 * reps);
    /* Every unit back: given less drawn, or on the CPU the count less
     * the parked waiters, none by now (weft/kernel.h). */
    read_ints(s, got, 2);
    CHECK_EQ(got[0] - got[1], counts[i]);
    release_buffers(s, c);
  }
  weft_kernel_release(k);
  teardown(&f);
}

/* No group leaves a phase of the global barrier before all arrived, with
 * far more groups than threads. */
TEST(global_barrier_phases) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "global_barrier");
  static const size_t groups[] = {1, 2, 64, 4096};
  for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
    weft_buffer *slots = ints(&f, 16, NULL), *bad = ints(&f, 1, NULL);
    int phases = 16, got[16];
    args(k, "BBI", slots, bad, phases);
    CHECK_OK(launch(k, groups[i], 4), k);
    read_ints(bad, got, 1);
    CHECK_EQ(got[0], 0);
    read_ints(slots, got, 16);
    for (int p = 0; p < 16; p++) CHECK_EQ(got[p], (long long)groups[i]);
    release_buffers(slots, bad);
  }
  weft_kernel_release(k);
  teardown(&f);
}

/* Sub-group functions in groups that wait for each other at global
 * barriers, more groups than threads: each phase's sums and counts. */
TEST(sub_groups_between_global_barriers) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "sub_group_phases");
  static const size_t shapes[][2] = {{1, 32}, {3, 4}, {64, 32}};
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    enum { PHASES = 6 };
    weft_buffer *slots = ints(&f, PHASES, NULL), *bad = ints(&f, 2, NULL);
    args(k, "BBI", slots, bad, PHASES);
    CHECK_OK(launch(k, shapes[i][0], shapes[i][1]), k);
    int got[2];
    read_ints(bad, got, 2);
    CHECK_EQ(got[0], 0);
    CHECK_EQ(got[1], 0);
    release_buffers(slots, bad);
  }
  weft_kernel_release(k);
  teardown(&f);
}

TEST(object_barrier) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "object_barrier");
  int init[4] = {0, 0, 300, 0}; /* {arrived, generation, groups} */
  weft_buffer *b = ints(&f, 4, init), *slots = ints(&f, 8, NULL),
              *bad = ints(&f, 1, NULL);
  int phases = 8, got[8];
  args(k, "BBBI", b, slots, bad, phases);
  CHECK_OK(launch(k, 300, 2), k);
  read_ints(bad, got, 1);
  CHECK_EQ(got[0], 0);
  read_ints(slots, got, 8);
  for (int p = 0; p < 8; p++) CHECK_EQ(got[p], 300);
  release_buffers(b, slots, bad);
  weft_kernel_release(k);
  teardown(&f);
}

/* A group that skips the global barrier: the others would wait for ever.
 * The launch fails naming them (on a GPU, after WEFT_SPIN_TIMEOUT); the
 * device goes on working. */
TEST(deadlock_reported) {
  setenv("WEFT_SPIN_TIMEOUT", "1", 1);
  fixture f = setup();
  weft_kernel *k = kernel(&f, "skip_barrier");
  weft_buffer *out = ints(&f, 1, NULL);
  args(k, "B", out);
  CHECK_DEADLOCK(launch(k, 16, 4), k,
                 "15 work-groups wait and none can go on (1 finished",
                 "waits on weft_global_barrier()");
  if (!harness_on_gpu())
    CHECK_STR_CONTAINS(weft_errmsg(k), "work-group (0) at program.cl:52:3 "
                                       "waits on weft_global_barrier()");
  weft_kernel *m = kernel(&f, "never_unlocked");
  weft_buffer *mutex = ints(&f, 4, NULL);
  args(m, "B", mutex);
  CHECK_DEADLOCK(launch(m, 4, 2), m, "deadlock", "waits on a mutex at 0x");
  if (!harness_on_gpu())
    CHECK_STR_CONTAINS(weft_errmsg(m), ") at program.cl:56:29 waits on a "
                                       "mutex at 0x");
  /* The device still works. */
  weft_kernel *ok = kernel(&f, "global_barrier");
  weft_buffer *slots = ints(&f, 16, NULL), *bad = ints(&f, 1, NULL);
  int phases = 2;
  args(ok, "BBI", slots, bad, phases);
  CHECK_OK(launch(ok, 8, 1), ok);
  release_buffers(out, mutex, slots, bad);
  weft_kernel_release(k);
  weft_kernel_release(m);
  weft_kernel_release(ok);
  teardown(&f);
}

/* More groups than Weft can hold cannot meet at a global barrier: an
 * error at launch, naming the limit. */
TEST(global_barrier_beyond_residency) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "global_barrier");
  weft_buffer *slots = ints(&f, 16, NULL), *bad = ints(&f, 1, NULL);
  int phases = 1;
  args(k, "BBI", slots, bad, phases);
  /* A GPU's limit is the kernel's occupancy, at most the device's. */
  size_t groups = (size_t)support_device_info().max_resident_groups + 1;
  char want[96];
  snprintf(want, sizeof want, "at most %zu can be resident at once", groups - 1);
  CHECK_FAILS(launch(k, groups, 1), WEFT_EGROUPSIZE, k,
              harness_on_gpu() ? "can be resident at once" : want);
  release_buffers(slots, bad);
  weft_kernel_release(k);
  teardown(&f);
}

/* The query says how many groups can be resident at once. */
/* Mappings of this process now. */
static long maps_now(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  long n = 0;
  for (int c; f && (c = fgetc(f)) != EOF;) n += c == '\n';
  if (f) fclose(f);
  return n;
}

/* The CPU holds as many resident groups as three quarters of the
 * process's mappings allow, two per group (a stack and its guard), up to
 * 65536: a global barrier over that many groups of one runs, leaves no
 * mappings behind, and one group more is refused, naming the limit
 * (before: 65536 claimed, 21,850 reached, then out of memory and the
 * mappings kept). */
TEST(resident_groups_query) {
  CPU_ONLY("the figure checked is the CPU's");
  long limit = 65530;
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  if (f) {
    if (fscanf(f, "%ld", &limit) != 1) limit = 65530;
    fclose(f);
  }
  long expected = (limit - limit / 4) / 2;
  if (expected > 65536) expected = 65536;
  unsigned long long groups = support_device_info().max_resident_groups;
  CHECK_EQ(groups, expected);
  fixture f2 = setup();
  weft_kernel *k = kernel(&f2, "global_barrier");
  weft_buffer *slots = ints(&f2, 16, NULL), *bad = ints(&f2, 1, NULL);
  args(k, "BBI", slots, bad, 2);
  long before = maps_now();
  CHECK_OK(launch(k, groups, 1), k);
  int got[2];
  read_ints(slots, got, 2);
  CHECK_EQ(got[0], (long long)groups);
  CHECK_EQ(got[1], (long long)groups);
  read_ints(bad, got, 1);
  CHECK_EQ(got[0], 0);
  CHECK(maps_now() < before + 1000);
  char want[128];
  snprintf(want, sizeof want, "with %llu work-groups; at most %llu can be "
           "resident at once", groups + 1, groups);
  CHECK_FAILS(launch(k, groups + 1, 1), WEFT_EGROUPSIZE, k, want);
  release_buffers(slots, bad);
  weft_kernel_release(k);
  teardown(&f2);
}

/* WEFT_RESIDENT_GROUPS=4 makes the CPU hold 4 groups at once, as a GPU
 * would: the query says so, a global barrier over 5 groups is refused,
 * and groups that wait for one that cannot start (user_spin's last group
 * sets the flag they poll) are a deadlock, reported with the reason. */
TEST(emulated_occupancy) {
  CPU_ONLY("WEFT_RESIDENT_GROUPS emulates a GPU on the CPU");
  setenv("WEFT_RESIDENT_GROUPS", "4", 1);
  setenv("WEFT_SPIN_TIMEOUT", "0.3", 1);
  fixture f = setup();
  CHECK_EQ(support_device_info().max_resident_groups, 4);
  weft_kernel *k = kernel(&f, "global_barrier");
  weft_buffer *slots = ints(&f, 16, NULL), *bad = ints(&f, 1, NULL);
  int phases = 4;
  args(k, "BBI", slots, bad, phases);
  CHECK_OK(launch(k, 4, 2), k);
  CHECK_FAILS(launch(k, 5, 2), WEFT_EGROUPSIZE, k,
              "with 5 work-groups; at most 4 can be resident");
  weft_kernel *spin = kernel(&f, "user_spin");
  weft_buffer *lock = ints(&f, 1, NULL), *counter = ints(&f, 1, NULL),
              *flag = ints(&f, 1, NULL);
  args(spin, "BBB", lock, counter, flag);
  CHECK_OK(launch(spin, 4, 2), spin);
  CHECK_OK(weft_buffer_fill(flag, &(int){0}, sizeof(int), 0, sizeof(int)),
           flag);
  CHECK_FAILS(launch(spin, 8, 2), WEFT_EDEADLOCK, spin,
              "4 not started; the others cannot start: WEFT_RESIDENT_GROUPS "
              "allows only that many resident");
  release_buffers(slots, bad, lock, counter, flag);
  weft_kernel_release(k);
  weft_kernel_release(spin);
  teardown(&f);
}

/* A crash inside a cooperative group names the kernel and the work-item;
 * the groups left waiting are dropped. */
TEST(crash_in_cooperative_group) {
  CPU_ONLY("a GPU fault names the kernel, not the work-group");
  fixture f = setup();
  weft_kernel *k = kernel(&f, "crash");
  weft_buffer *m = ints(&f, 4, NULL), *c = ints(&f, 1, NULL);
  args(k, "BB", m, c);
  CHECK_FAILS(launch(k, 64, 4), WEFT_EKERNELFAULT, k,
              "kernel 'crash' crashed");
  CHECK_STR_CONTAINS(weft_errmsg(k), "work-group (5)");
  release_buffers(m, c);
  weft_kernel_release(k);
  teardown(&f);
}

/* Groups spinning on memory that a later group writes all complete, on
 * any number of threads. */
TEST(user_spin_loops_yield) {
  fixture f = setup();
  weft_kernel *k = kernel(&f, "user_spin");
  weft_buffer *lock = ints(&f, 1, NULL), *counter = ints(&f, 1, NULL),
              *flag = ints(&f, 1, NULL);
  args(k, "BBB", lock, counter, flag);
  CHECK_OK(launch(k, 512, 2), k);
  int got;
  read_ints(counter, &got, 1);
  CHECK_EQ(got, 512);
  release_buffers(lock, counter, flag);
  weft_kernel_release(k);
  teardown(&f);
}

/* What the IR WEFT_DUMP_IR wrote to dir for build n calls: 1 for the
 * yield, 2 for a yield in a block after a wait (each block read from its
 * first line to its branch). */
static int dumped_ir_yields(const char *dir, int n) {
  char path[128];
  snprintf(path, sizeof path, "%s/program-%d.ll", dir, n);
  FILE *f = fopen(path, "r");
  CHECK(f);
  char line[4096];
  int found = 0, waited = 0;
  while (fgets(line, sizeof line, f)) {
    if (strstr(line, "call void @weft__cpu_wait(")) waited = 1;
    if (strstr(line, "call void @weft__cpu_yield("))
      found = found > 1 || waited ? 2 : 1;
    if (strstr(line, "  br ") || strstr(line, "  ret ")) waited = 0;
  }
  fclose(f);
  return found;
}

/* The JIT's yield points go in a user's polling loop, not in the wait
 * loops of the primitives, which already let the others run (a yield after
 * each wait put every woken group back in the queue: a global barrier of
 * 128 groups on 2 threads ran 3 times slower). A semaphore's retry after a
 * lost compare-and-swap, which waits for nothing, keeps its yield. */
TEST(yield_points_only_where_nothing_waits) {
  CPU_ONLY("yield points are the CPU device's");
  char dir[] = "/tmp/weft-yield-test-XXXXXX";
  support_dump_ir_begin(dir);
  weft_context *ctx = support_context();
  weft_program *waits = support_build(
      ctx,
      "__kernel void k(__global weft_mutex *m, int n) {\n"
      "  for (int i = 0; i < n; i++) {\n"
      "    weft_mutex_lock_group(m);\n"
      "    weft_mutex_unlock_group(m);\n"
      "    weft_global_barrier();\n"
      "  }\n"
      "}\n",
      NULL);
  weft_program *spins = support_build(
      ctx,
      "__kernel void k(volatile __global int *flag) {\n"
      "  while (flag[0] == 0) {}\n"
      "}\n",
      NULL);
  /* The CTS's c11 compare-exchange loop: a retry that stores a value
   * read from global memory at each turn waits for no one (it made the
   * launch cooperative, 10 to 100 times slower). */
  weft_program *retries = support_build(
      ctx,
      "__kernel void k(__global atomic_int *d, __global int *old) {\n"
      "  int tid = get_global_id(0), expected = tid, n = 0;\n"
      "  for (int i = 0; i < 100 || n == 0; i++)\n"
      "    if (atomic_compare_exchange_strong(d, &expected, old[tid])) {\n"
      "      old[tid] = expected;\n"
      "      n++;\n"
      "    }\n"
      "}\n",
      "-cl-std=CL2.0");
  CHECK(dumped_ir_yields(dir, 0) < 2); /* the other algorithms' may yield */
  CHECK_EQ(dumped_ir_yields(dir, 1), 1);
  CHECK_EQ(dumped_ir_yields(dir, 2), 0);
  weft_program_release(waits);
  weft_program_release(spins);
  weft_program_release(retries);
  weft_context_release(ctx);
  support_dump_ir_end(dir);
}

/* Groups that only spin on memory nothing writes: after WEFT_SPIN_TIMEOUT
 * with nothing else happening, a deadlock, reported. */
TEST(spin_deadlock_reported) {
  CPU_ONLY("a kernel's own spin loops are not watched on the GPU, only Weft's waits");
  setenv("WEFT_SPIN_TIMEOUT", "0.3", 1);
  fixture f = setup();
  weft_kernel *k = kernel(&f, "spin_forever");
  weft_buffer *flag = ints(&f, 1, NULL);
  args(k, "B", flag);
  /* The report names the loop's line (the kernel's is 71 of the source). */
  CHECK_FAILS(launch(k, 6, 2), WEFT_EDEADLOCK, k,
              "work-group (0) at program.cl:71:29 waits on memory it polls in "
              "a loop");
  weft_buffer_release(flag);
  weft_kernel_release(k);
  teardown(&f);
}

TEST_MAIN()
