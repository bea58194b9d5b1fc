/* test_schedule.c: schedule exploration (WEFT_SCHEDULE=pct, and in the
 * .random_deep and .pct_depth3 variants random-deep and pct:1:3) finds
 * the bugs of synchronization code that a plain run hides, and names the
 * seed that reproduces them; correct code passes every schedule. Each test
 * sets WEFT_SCHEDULE before Weft starts (unless its variant did), then runs
 * 200 seeds with weft_schedule_seed. */
#include "support.h"

#define SEEDS 200
#define GROUPS 8

/* Work-groups per launch: GROUPS, but 3 for exhaustive exploration. */
static int groups = GROUPS;

static const char *source =
    "/* A lock whose acquire is a test, then a set: two groups can enter. */\n"
    "__kernel void racy(volatile __global int *lock, __global int *c) {\n"
    "  if (get_local_id(0) == 0) {\n"
    "    while (lock[0] != 0) {}\n"
    "    lock[0] = 1;\n"
    "    int v = c[0]; c[0] = v + 1;\n"
    "    lock[0] = 0;\n"
    "  }\n"
    "}\n"
    "__kernel void correct(__global weft_mutex *m, __global int *c) {\n"
    "  weft_mutex_lock_group(m);\n"
    "  if (get_local_id(0) == 0) { int v = c[0]; c[0] = v + 1; }\n"
    "  weft_mutex_unlock_group(m);\n"
    "}\n"
    "/* Every work-item takes the lock, not one for its group. */\n"
    "__kernel void every_item(__global weft_mutex *m, __global int *c) {\n"
    "  weft_mutex_lock(m);\n"
    "  c[0]++;\n"
    "  weft_mutex_unlock(m);\n"
    "}\n"
    "/* Group 0 posts without waiting: the count grows past 1. c[0] inside\n"
    " * now, c[1] the most inside at once. */\n"
    "__kernel void extra_post(__global weft_semaphore *s, __global int *c) {\n"
    "  if (get_group_id(0) == 0) { weft_semaphore_post_group(s); return; }\n"
    "  weft_semaphore_wait_group(s);\n"
    "  if (get_local_id(0) == 0) {\n"
    "    atomic_max(&c[1], atomic_inc(&c[0]) + 1);\n"
    "    atomic_dec(&c[0]);\n"
    "  }\n"
    "  weft_semaphore_post_group(s);\n"
    "}\n"
    "__kernel void skip_barrier(__global int *s, __global int *c) {\n"
    "  if (get_group_id(0) == 2) return;\n"
    "  weft_global_barrier();\n"
    "}\n"
    "/* A compare-and-swap lock released by a relaxed store (a bug only on a\n"
    " * weak memory), and by a release store (correct). */\n"
    "#define LOCKED(order)                                                  \\\n"
    "  if (get_local_id(0) == 0) {                                          \\\n"
    "    volatile __global atomic_int *lock = (volatile __global atomic_int *)l; \\\n"
    "    int free = 0;                                                      \\\n"
    "    while (!atomic_compare_exchange_strong(lock, &free, 1)) free = 0;  \\\n"
    "    int v = c[0];                                                      \\\n"
    "    c[0] = v + 1;                                                      \\\n"
    "    atomic_store_explicit(lock, 0, order);                             \\\n"
    "  }\n"
    "__kernel void relaxed_release(__global int *l, __global int *c) {\n"
    "  LOCKED(memory_order_relaxed)\n"
    "}\n"
    "__kernel void release(__global int *l, __global int *c) {\n"
    "  LOCKED(memory_order_release)\n"
    "}\n"
    "/* Group 0 writes data (c[0]), then raises a flag (l[0]) by a relaxed\n"
    " * store: with nothing between (a bug on a weak memory) or after a release\n"
    " * fence (correct). Group 1 waits for the flag and sets c[1] to 1 if it saw\n"
    " * the data; the other groups set it too. */\n"
    "#define MESSAGE(fence)                                                 \\\n"
    "  volatile __global atomic_int *flag = (volatile __global atomic_int *)l; \\\n"
    "  if (get_local_id(0)) return;                                         \\\n"
    "  if (get_group_id(0) == 0) {                                          \\\n"
    "    c[0] = 42;                                                         \\\n"
    "    fence;                                                             \\\n"
    "    atomic_store_explicit(flag, 1, memory_order_relaxed);              \\\n"
    "  } else if (get_group_id(0) == 1) {                                   \\\n"
    "    while (atomic_load_explicit(flag, memory_order_relaxed) == 0) {}   \\\n"
    "    atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, \\\n"
    "                           memory_scope_device);                       \\\n"
    "    c[1] = c[0] == 42;                                                 \\\n"
    "  }\n"
    "__kernel void relaxed_message(__global int *l, __global int *c) {\n"
    "  MESSAGE((void)0)\n"
    "}\n"
    "__kernel void fenced_message(__global int *l, __global int *c) {\n"
    "  MESSAGE(atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release,\n"
    "                                 memory_scope_device))\n"
    "}\n"
    "/* Each group adds to an element of its own, then draws a ticket from\n"
    " * c[0] and writes its group at the ticket's place in c[1] (2 bits\n"
    " * each): c[1] tells the order of the draws, and nothing else the\n"
    " * interleaving. */\n"
    "__kernel void independent(__global int *a, __global int *c) {\n"
    "  if (get_local_id(0)) return;\n"
    "  int g = get_group_id(0);\n"
    "  for (int i = 1; i <= 3; i++) a[g] += i;\n"
    "  atomic_add(&c[1], g << 2 * atomic_inc(&c[0]));\n"
    "}\n"
    "/* Group 0 writes a[0]; group 1 copies c[0] to c[1]: the same bytes when\n"
    " * a and c are one buffer. */\n"
    "__kernel void aliased(__global int *a, __global int *c) {\n"
    "  if (get_local_id(0)) return;\n"
    "  if (get_group_id(0) == 0) a[0] = 7;\n"
    "  else if (get_group_id(0) == 1) c[1] = c[0];\n"
    "}\n";

typedef struct run {
  weft_context *ctx;
  weft_kernel *k;
  weft_buffer *a, *b;
} run;

/* "[schedule pct:SEED, launch 1": how a failed launch names its seed,
 * under the schedule Weft runs (weft_schedule_environment). */
static void schedule_note(unsigned long long seed, char *out, size_t size) {
  char env[128];
  CHECK_OK(weft_schedule_environment(seed, env, sizeof env), NULL);
  snprintf(out, size, "[schedule %s, launch 1",
           strstr(env, "WEFT_SCHEDULE=") + strlen("WEFT_SCHEDULE="));
}

/* WEFT_SCHEDULE for setup; NULL: the variant's (the .random_deep and
 * .pct_depth3 variants set it), else pct:1. */
static const char *forced_schedule;

static run setup(const char *kernel) {
  if (forced_schedule) setenv("WEFT_SCHEDULE", forced_schedule, 1);
  else setenv("WEFT_SCHEDULE", "pct:1", 0);
  run r;
  r.ctx = support_context();
  weft_program *p = support_build(r.ctx, source, "-cl-std=CL3.0");
  CHECK_OK(weft_kernel_create(p, kernel, &r.k), p);
  weft_program_release(p);
  r.a = support_buffer(r.ctx, 16, NULL);
  r.b = support_buffer(r.ctx, 8, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(r.k, 0, r.a), r.k);
  CHECK_OK(weft_kernel_set_arg_buffer(r.k, 1, r.b), r.k);
  return r;
}

static void teardown(run *r) {
  weft_buffer_release(r->a);
  weft_buffer_release(r->b);
  weft_kernel_release(r->k);
  weft_context_release(r->ctx);
}

/* One launch with a seed, a (the lock, mutex or semaphore) set to init
 * and b to zeros; returns the launch's status and b in out. */
static int once(run *r, unsigned long long seed, const int init[4], int out[2]) {
  int zero[2] = {0, 0};
  CHECK_OK(weft_buffer_write(r->a, 0, 16, init), r->a);
  CHECK_OK(weft_buffer_write(r->b, 0, 8, zero), r->b);
  weft_schedule_seed(seed);
  size_t global = (size_t)groups * 2, local = 2;
  int rc = weft_kernel_launch(r->k, 1, NULL, &global, &local);
  CHECK_OK(weft_buffer_read(r->b, 0, 8, out), r->b);
  return rc;
}

static const int zeros[4] = {0, 0, 0, 0};

TEST(racy_lock_is_caught_and_reproduced) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  run r = setup("racy");
  unsigned long long caught = 0;
  int out[2], lost = 0;
  for (unsigned long long seed = 1; seed <= SEEDS && !caught; seed++) {
    CHECK_OK(once(&r, seed, zeros, out), r.k);
    if (out[0] != GROUPS) caught = seed, lost = GROUPS - out[0];
  }
  if (!caught) FAIL("no schedule of %d showed the racy lock's lost update", SEEDS);
  fprintf(stderr, "racy lock: seed %llu loses %d updates\n", caught, lost);
  /* What ran last: stretches of work-items 0 of groups, between the
   * lock's lines (4 to 7). */
  char history[8192];
  CHECK_OK(weft_schedule_history(history, sizeof history), NULL);
  fprintf(stderr, "%s", history);
  CHECK_STR_CONTAINS(history, "[local (0) in work-group (");
  CHECK_STR_CONTAINS(history, ": program.cl:");
  CHECK(strstr(history, "steps\n") || strstr(history, "1 step\n"));
  CHECK_EQ(weft_schedule_history(NULL, 8), WEFT_EINVAL);
  /* The seed replays the same interleaving. */
  for (int i = 0; i < 3; i++) {
    CHECK_OK(once(&r, caught, zeros, out), r.k);
    CHECK_EQ(GROUPS - out[0], lost);
  }
  teardown(&r);
}

TEST(correct_mutex_passes_every_schedule) {
  run r = setup("correct");
  int out[2];
  for (unsigned long long seed = 1; seed <= SEEDS; seed++) {
    CHECK_OK(once(&r, seed, zeros, out), r.k);
    if (out[0] != GROUPS) FAIL("seed %llu: counter %d, not %d", seed, out[0], GROUPS);
  }
  teardown(&r);
}

/* Run one after another, the work-items would each take and give back the
 * lock; interleaved, one waits for a sibling, and so does its whole group. */
TEST(lock_by_every_work_item_deadlocks) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  run r = setup("every_item");
  int out[2], rc = 0;
  unsigned long long seed = 1;
  for (; seed <= SEEDS && !rc; seed++) rc = once(&r, seed, zeros, out);
  CHECK_EQ(rc, WEFT_EDEADLOCK);
  const char *msg = weft_errmsg(r.k);
  fprintf(stderr, "every item: %s\n", msg);
  CHECK_STR_CONTAINS(msg, "waits on a mutex");
  CHECK_STR_CONTAINS(msg, "[local (1) in work-group");
  char want[64];
  schedule_note(seed - 1, want, sizeof want);
  CHECK_STR_CONTAINS(msg, want);
  /* The seed named deadlocks again. */
  CHECK_EQ(once(&r, seed - 1, zeros, out), WEFT_EDEADLOCK);
  teardown(&r);
}

TEST(post_without_wait_is_caught) {
  run r = setup("extra_post");
  const int one[4] = {1, 0, 0, 0}; /* a semaphore of count 1 */
  unsigned long long caught = 0;
  int out[2];
  for (unsigned long long seed = 1; seed <= SEEDS && !caught; seed++) {
    CHECK_OK(once(&r, seed, one, out), r.k);
    if (out[1] > 1) caught = seed;
  }
  if (!caught) FAIL("no schedule of %d let two groups in at once", SEEDS);
  fprintf(stderr, "extra post: seed %llu lets %d in at once\n", caught, out[1]);
  teardown(&r);
}

TEST(skipped_barrier_names_the_seed) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  run r = setup("skip_barrier");
  int out[2];
  CHECK_EQ(once(&r, 42, zeros, out), WEFT_EDEADLOCK);
  CHECK_STR_CONTAINS(weft_errmsg(r.k), "weft_global_barrier()");
  char want[64];
  schedule_note(42, want, sizeof want);
  CHECK_STR_CONTAINS(weft_errmsg(r.k), want);
  teardown(&r);
}

/* ---------------------------------------------------- weak memory */

/* The first seed (of SEEDS) whose launch, l and c zeroed, leaves c such
 * that broken(c), under WEFT_MEMORY=weak or sequential consistency; 0 if
 * none. A seed found replays the failure. Under random-deep in every
 * variant: under PCT a group that waits for a flag drops below the one
 * that raises it, which then ends, and its stores drain, before the
 * waiter looks (README: how the modes compare). */
static unsigned long long first_broken(const char *kernel, int weak,
                                       int (*broken)(const int c[2])) {
  if (weak) setenv("WEFT_MEMORY", "weak", 1);
  forced_schedule = "random-deep:1";
  run r = setup(kernel);
  int out[2];
  unsigned long long caught = 0;
  for (unsigned long long seed = 1; seed <= SEEDS && !caught; seed++) {
    CHECK_OK(once(&r, seed, zeros, out), r.k);
    if (broken(out)) caught = seed;
  }
  if (caught) {
    CHECK_OK(once(&r, caught, zeros, out), r.k);
    CHECK(broken(out));
  }
  teardown(&r);
  return caught;
}

static int lost_update(const int c[2]) { return c[0] != GROUPS; }
static int stale_data(const int c[2]) { return c[1] != 1; }

TEST(weak_memory_catches_a_relaxed_release) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  unsigned long long seed = first_broken("relaxed_release", 1, lost_update);
  if (!seed) FAIL("no seed of %d lost an update under WEFT_MEMORY=weak", SEEDS);
  fprintf(stderr, "relaxed release: seed %llu\n", seed);
}

TEST(weak_memory_catches_unfenced_message_passing) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  unsigned long long seed = first_broken("relaxed_message", 1, stale_data);
  if (!seed) FAIL("no seed of %d showed stale data under WEFT_MEMORY=weak", SEEDS);
  fprintf(stderr, "relaxed message: seed %llu\n", seed);
}

/* The same kernels are correct under sequential consistency, and their
 * fenced forms under the weak memory: no seed may fail. */
TEST(sequential_consistency_hides_a_relaxed_release) {
  CHECK_EQ(first_broken("relaxed_release", 0, lost_update), 0);
}

TEST(sequential_consistency_hides_unfenced_message_passing) {
  CHECK_EQ(first_broken("relaxed_message", 0, stale_data), 0);
}

TEST(weak_memory_passes_a_release_store) {
  CHECK_EQ(first_broken("release", 1, lost_update), 0);
}

TEST(weak_memory_passes_fenced_message_passing) {
  CHECK_EQ(first_broken("fenced_message", 1, stale_data), 0);
}

/* ---------------------------------------------- exhaustive exploration */

/* Every interleaving of kernel at 3 groups within 2 preemptions, each
 * launch on fresh inputs, until broken(c) or none is left: the number of
 * the first broken one, or 0 with *total the interleavings run. */
static unsigned long long explore(const char *kernel,
                                  int (*broken)(const int c[2]),
                                  unsigned long long *total) {
  forced_schedule = "exhaustive";
  groups = 3;
  run r = setup(kernel);
  int out[2];
  unsigned long long n = 0, failed = 0;
  for (int next = 1; next == 1 && !failed;) {
    CHECK_OK(once(&r, 0, zeros, out), r.k);
    n++;
    if (broken(out)) failed = n;
    else next = weft_schedule_next();
    CHECK(next >= 0);
  }
  *total = n;
  char replay[256];
  unsigned long long explored = 0;
  CHECK_OK(weft_schedule_replay(replay, sizeof replay, &explored), NULL);
  CHECK_STR_CONTAINS(replay, "replay:");
  /* Counted by weft_schedule_next: all of them, or those before the
   * failing one. */
  CHECK_EQ(explored, failed ? n - 1 : n);
  teardown(&r);
  return failed;
}

static int lost_of_three(const int c[2]) { return c[0] != 3; }

TEST(exhaustive_finds_the_racy_lock) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  unsigned long long total, failed = explore("racy", lost_of_three, &total);
  fprintf(stderr, "racy lock: interleaving %llu\n", failed);
  CHECK(failed > 1); /* the first, without preemption, is right */
}

TEST(exhaustive_proves_the_mutex_at_three_groups) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  unsigned long long total, failed = explore("correct", lost_of_three, &total);
  fprintf(stderr, "correct mutex: %llu interleavings\n", total);
  CHECK_EQ(failed, 0);
  CHECK(total > 100);
}

/* Partial-order reduction: "independent" at 3 groups has 6 orders of its
 * tickets, the only thing its result can tell; every other access of a
 * group touches its own element. Each must be seen with reduction (a
 * sleeping work-item must not hide one) and without (":full", where every
 * interleaving of every access runs). Returns the orders seen (a bit per
 * value of c[1]). */
static uint64_t explore_independent(unsigned long long *launches,
                                    unsigned long long *repeats) {
  groups = 3;
  run r = setup("independent");
  int out[2], a[4];
  uint64_t seen = 0;
  for (int next = 1; next == 1;) {
    CHECK_OK(once(&r, 0, zeros, out), r.k);
    CHECK_OK(weft_buffer_read(r.a, 0, sizeof a, a), r.a);
    CHECK_EQ(out[0], 3);
    CHECK(out[1] >= 0 && out[1] < 64);
    seen |= 1ull << out[1];
    for (int g = 0; g < 3; g++) CHECK_EQ(a[g], 6);
    next = weft_schedule_next();
    CHECK(next >= 0);
  }
  CHECK_OK(weft_schedule_explored(launches, repeats), NULL);
  teardown(&r);
  return seen;
}

/* The 6 values of c[1]: groups 0, 1, 2 in any order, 2 bits each. */
static uint64_t every_order(void) {
  static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                   {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  uint64_t all = 0;
  for (int i = 0; i < 6; i++)
    all |= 1ull << (orders[i][0] | orders[i][1] << 2 | orders[i][2] << 4);
  return all;
}

TEST(exhaustive_reduction_still_runs_every_order_of_the_atomics) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  forced_schedule = "exhaustive";
  unsigned long long launches, repeats;
  CHECK_EQ(explore_independent(&launches, &repeats), every_order());
  fprintf(stderr, "independent: %llu distinct in %llu launches\n",
          launches - repeats, launches);
  /* Launches that end differently are not repeats of each other. */
  CHECK(launches - repeats >= 6);
}

TEST(exhaustive_full_runs_every_order_of_every_access) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  forced_schedule = "exhaustive:100000:2:full";
  unsigned long long launches, repeats;
  CHECK_EQ(explore_independent(&launches, &repeats), every_order());
  fprintf(stderr, "independent, full: %llu launches\n", launches);
  CHECK_EQ(repeats, 0);
}

/* "aliased" at 3 groups of one work-item with a and c one buffer (same) or
 * two: the results seen, as a mask of 1 << c[1] (0 or 7), and the
 * distinct interleavings. */
static unsigned explore_aliased(int same, unsigned long long *distinct) {
  forced_schedule = "exhaustive";
  run r = setup("aliased");
  weft_buffer *c = same ? r.a : r.b;
  CHECK_OK(weft_kernel_set_arg_buffer(r.k, 1, c), r.k);
  unsigned seen = 0;
  for (int next = 1; next == 1;) {
    int init[4] = {0, 0, 0, 0}, out[2];
    CHECK_OK(weft_buffer_write(r.a, 0, sizeof init, init), r.a);
    CHECK_OK(weft_buffer_write(r.b, 0, 8, init), r.b);
    size_t global = 3, local = 1;
    CHECK_OK(weft_kernel_launch(r.k, 1, NULL, &global, &local), r.k);
    CHECK_OK(weft_buffer_read(c, 0, sizeof out, out), c);
    CHECK(out[1] == 0 || out[1] == 7);
    seen |= 1u << out[1];
    next = weft_schedule_next();
    CHECK(next >= 0);
  }
  unsigned long long launches, repeats;
  CHECK_OK(weft_schedule_explored(&launches, &repeats), NULL);
  *distinct = launches - repeats;
  teardown(&r);
  return seen;
}

TEST(exhaustive_reduction_sees_one_buffer_behind_two_arguments) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  unsigned long long distinct;
  /* Group 1 reads a[0] before and after group 0 writes it: two orders of
   * the two accesses, and only those (the rest touch nothing shared). */
  CHECK_EQ(explore_aliased(1, &distinct), 1u << 0 | 1u << 7);
  CHECK_EQ(distinct, 2);
}

TEST(exhaustive_reduction_keeps_one_order_of_two_buffers) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  unsigned long long distinct;
  CHECK_EQ(explore_aliased(0, &distinct), 1u << 0);
  CHECK_EQ(distinct, 1);
}

TEST(next_needs_exhaustive) {
  run r = setup("correct");
  char replay[16];
  CHECK_EQ(weft_schedule_next(), WEFT_EINVAL);
  CHECK_EQ(weft_schedule_replay(replay, sizeof replay, NULL), WEFT_EINVAL);
  CHECK_EQ(weft_schedule_explored(NULL, NULL), WEFT_EINVAL);
  teardown(&r);
}

TEST_MAIN()
