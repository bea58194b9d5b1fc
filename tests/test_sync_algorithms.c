/* test_sync_algorithms.c: every algorithm of cl_weft_sync (include/weft/
 * kernel.h) keeps its invariants under contention on the CPU, from 1 to
 * 4096 work-groups: mutual exclusion, a semaphore's count, no group through
 * a barrier before all arrived, first come first served where the
 * algorithm promises it; objects initialized by the host and by a kernel;
 * the default algorithm chosen by a build option.
 *
 * Contention needs groups that are all started: a group that yields lets
 * only started groups run. The kernels that want every group in the race
 * first meet at weft_global_barrier(), which starts them all, and let the
 * others run inside their critical sections. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sync_support.h"
#include "weft/kernel.h"

static const char *source =
    "void __weft_yield(void);\n"
    "static void let_others_run(int turns) {\n"
    "  for (int i = 0; i < turns; i++) __weft_yield();\n"
    "}\n"
    "/* The algorithms the program was built with (kernel.h's macros). */\n"
    "__kernel void impls(__global int *o) {\n"
    "  o[0] = WEFT_MUTEX_IMPL; o[1] = WEFT_SEMAPHORE_IMPL;\n"
    "  o[2] = WEFT_BARRIER_IMPL; o[3] = WEFT_GLOBAL_BARRIER_IMPL;\n"
    "}\n"
    "__kernel void init_mutex(__global weft_mutex *m, uint algorithm) {\n"
    "  weft_mutex_init_with(m, algorithm);\n"
    "}\n"
    "__kernel void init_semaphore(__global weft_semaphore *s, int count,\n"
    "                             uint algorithm) {\n"
    "  weft_semaphore_init_with(s, count, algorithm);\n"
    "}\n"
    "__kernel void init_barrier(__global weft_barrier *b, uint groups,\n"
    "                           uint algorithm) {\n"
    "  weft_barrier_init_with(b, groups, algorithm);\n"
    "}\n"
    "/* c[0]: a counter read before and written after others ran, inside\n"
    " * the critical section; c[1]: acquisitions, counted atomically. */\n"
    "__kernel void mutex(__global weft_mutex *m, __global int *c, int reps,\n"
    "                    int together, int turns) {\n"
    "  if (together) weft_global_barrier();\n"
    "  for (int r = 0; r < reps; r++) {\n"
    "    weft_mutex_lock_group(m);\n"
    "    if (get_local_id(0) == 0) {\n"
    "      int v = c[0];\n"
    "      let_others_run(turns);\n"
    "      c[0] = v + 1;\n"
    "      atomic_inc(&c[1]);\n"
    "    }\n"
    "    weft_mutex_unlock_group(m);\n"
    "  }\n"
    "}\n"
    "/* c[0]: taken now; c[1]: taken at once, most seen. */\n"
    "__kernel void trylock(__global weft_mutex *m, __global int *c) {\n"
    "  weft_global_barrier();\n"
    "  if (get_local_id(0) == 0 && weft_mutex_trylock(m)) {\n"
    "    atomic_max(&c[1], atomic_inc(&c[0]) + 1);\n"
    "    let_others_run(2);\n"
    "    atomic_dec(&c[0]);\n"
    "    weft_mutex_unlock(m);\n"
    "  }\n"
    "}\n"
    "/* c[0]: inside now; c[1]: inside at once, most seen; c[2]: entries. */\n"
    "__kernel void semaphore(__global weft_semaphore *s, __global int *c,\n"
    "                        int reps, int together, int turns) {\n"
    "  if (together) weft_global_barrier();\n"
    "  for (int r = 0; r < reps; r++) {\n"
    "    weft_semaphore_wait_group(s);\n"
    "    if (get_local_id(0) == 0) {\n"
    "      atomic_max(&c[1], atomic_inc(&c[0]) + 1);\n"
    "      let_others_run(turns);\n"
    "      atomic_dec(&c[0]);\n"
    "      atomic_inc(&c[2]);\n"
    "    }\n"
    "    weft_semaphore_post_group(s);\n"
    "  }\n"
    "}\n"
    "/* Phase p: every group from first on counts itself in slot p, some\n"
    " * after letting others run; past the barrier every work-item must see\n"
    " * all those groups counted. */\n"
    "static void barrier_phases(__global weft_barrier *b,\n"
    "                           __global int *slots, __global int *bad,\n"
    "                           int phases, int first) {\n"
    "  int id = get_group_id(0), groups = get_num_groups(0) - first;\n"
    "  if (id < first) return;\n"
    "  for (int p = 0; p < phases; p++) {\n"
    "    if (get_local_id(0) == 0) {\n"
    "      let_others_run((id * 7 + p) % 3);\n"
    "      atomic_inc(&slots[p]);\n"
    "    }\n"
    "    weft_barrier_wait(b);\n"
    "    if (atomic_add(&slots[p], 0) != groups) atomic_inc(bad);\n"
    "  }\n"
    "}\n"
    "__kernel void object_barrier(__global weft_barrier *b,\n"
    "                             __global int *slots, __global int *bad,\n"
    "                             int phases) {\n"
    "  barrier_phases(b, slots, bad, phases, 0);\n"
    "}\n"
    "/* The same over the groups from first on only: group 0 is not among\n"
    " * them. */\n"
    "__kernel void some_groups_barrier(__global weft_barrier *b,\n"
    "                                  __global int *slots,\n"
    "                                  __global int *bad, int phases,\n"
    "                                  int first) {\n"
    "  barrier_phases(b, slots, bad, phases, first);\n"
    "}\n"
    "__kernel void global_barrier(__global int *slots, __global int *bad,\n"
    "                             int phases) {\n"
    "  int groups = get_num_groups(0);\n"
    "  for (int p = 0; p < phases; p++) {\n"
    "    if (get_local_id(0) == 0) atomic_inc(&slots[p]);\n"
    "    weft_global_barrier();\n"
    "    if (atomic_add(&slots[p], 0) != groups) atomic_inc(bad);\n"
    "  }\n"
    "}\n"
    "/* First come, first served. Groups arrive in the reverse of their\n"
    " * order, which is not the order the scheduler runs them in: rank 0\n"
    " * takes the free lock (state[1] says it has), then rank r takes its\n"
    " * ticket once r - 1 tickets were taken (the mutex's word 0 counts\n"
    " * them in 2s). The\n"
    " * first holds the lock until every other group has its ticket.\n"
    " * order[] gets the ranks in the order they acquired (state[0]). */\n"
    "__kernel void mutex_fifo(__global weft_mutex *m, __global int *order,\n"
    "                         __global int *state) {\n"
    "  weft_global_barrier();\n"
    "  if (get_local_id(0) != 0) return;\n"
    "  volatile __global uint *lock = &m->word[0];\n"
    "  volatile __global int *first_in = &state[1];\n"
    "  uint n = get_num_groups(0), rank = n - 1 - get_group_id(0);\n"
    "  if (rank > 0)\n"
    "    while (!*first_in || *lock >> 1 != rank - 1) __weft_yield();\n"
    "  weft_mutex_lock(m);\n"
    "  *first_in = 1;\n"
    "  while (*lock >> 1 != n - 1) __weft_yield();\n"
    "  order[state[0]++] = rank;\n"
    "  weft_mutex_unlock(m);\n"
    "}\n"
    "/* The same order of arrival, for a lock that does not promise to\n"
    " * serve it: rank r calls lock once rank r - 1 has (arrived[0]). */\n"
    "__kernel void mutex_arrivals(__global weft_mutex *m,\n"
    "                             __global int *order, __global int *state) {\n"
    "  weft_global_barrier();\n"
    "  if (get_local_id(0) != 0) return;\n"
    "  volatile __global int *arrived = &state[0];\n"
    "  int n = get_num_groups(0), rank = n - 1 - get_group_id(0);\n"
    "  while (*arrived != rank) __weft_yield();\n"
    "  *arrived = rank + 1;\n"
    "  weft_mutex_lock(m);\n"
    "  while (*arrived != n) __weft_yield();\n"
    "  order[state[1]++] = rank;\n"
    "  weft_mutex_unlock(m);\n"
    "}\n"
    "/* First come, first served for the groups that queue on a sleeping\n"
    " * semaphore of count units. Rank r arrives once r groups entered (the\n"
    " * first count ranks enter at once) or, past those, once the first\n"
    " * count entered and r units were drawn (the semaphore's word 1).\n"
    " * Nobody posts\n"
    " * before all have arrived; then the groups post one at a time, in the\n"
    " * order they entered, each once the groups that could enter before its\n"
    " * post have recorded their entry: entries are recorded in the order\n"
    " * they happen. state[0]: entries; state[1]: posts. */\n"
    "__kernel void semaphore_fifo(__global weft_semaphore *s,\n"
    "                             __global int *order,\n"
    "                             __global int *state, int count) {\n"
    "  weft_global_barrier();\n"
    "  if (get_local_id(0) != 0) return;\n"
    "  volatile __global int *entered = &state[0], *posted = &state[1];\n"
    "  volatile __global uint *drawn = &s->word[1];\n"
    "  int n = get_num_groups(0), rank = n - 1 - get_group_id(0);\n"
    "  if (rank < count) while (*entered != rank) __weft_yield();\n"
    "  else while (*entered != count || *drawn != (uint)rank)\n"
    "    __weft_yield();\n"
    "  weft_semaphore_wait(s);\n"
    "  int p = atomic_inc(entered);\n"
    "  order[p] = rank;\n"
    "  while (*posted != p || *entered != min(n, p + count) ||\n"
    "         *drawn != (uint)n)\n"
    "    __weft_yield();\n"
    "  weft_semaphore_post(s);\n"
    "  atomic_inc(posted);\n"
    "}\n"
    "/* The first group leaves holding the lock; the others wait for\n"
    " * ever. */\n"
    "__kernel void never_unlocked(__global weft_mutex *m) {\n"
    "  weft_mutex_lock_group(m);\n"
    "}\n"
    "/* A semaphore of count 0 nobody posts. */\n"
    "__kernel void never_posted(__global weft_semaphore *s) {\n"
    "  weft_semaphore_wait_group(s);\n"
    "}\n";

/* ------------------------------------------------------------- helpers */

static fixture setup(const char *options) {
  return setup_program(source, options);
}

/* An object of words ints, initialized by the host ({w0, w1, w2,
 * algorithm}, then zeros) or, when by_kernel, by the kernel init_name
 * with arguments (param, algorithm), or (algorithm) if param < 0. */
typedef struct object_init {
  const char *kernel;
  int w0, w2, param, algorithm;
  size_t words;
} object_init;

static weft_buffer *object(fixture *f, object_init o, int by_kernel) {
  int *host = calloc(o.words, sizeof *host);
  host[0] = o.w0;
  host[2] = o.w2;
  host[3] = o.algorithm;
  weft_buffer *b = ints(f, o.words, by_kernel ? NULL : host);
  free(host);
  if (!by_kernel) return b;
  weft_kernel *k = kernel(f, o.kernel);
  if (o.param < 0) args(k, "BI", b, o.algorithm);
  else args(k, "BII", b, o.param, o.algorithm);
  CHECK_OK(launch(k, 1, 1), k);
  weft_kernel_release(k);
  return b;
}

static weft_buffer *new_mutex(fixture *f, int algorithm, int by_kernel) {
  return object(f, (object_init){"init_mutex", 0, 0, -1, algorithm, 4},
                by_kernel);
}

static weft_buffer *new_semaphore(fixture *f, int count, int algorithm,
                                  int by_kernel) {
  return object(f, (object_init){"init_semaphore", count, 0, count,
                                 algorithm, 4}, by_kernel);
}

static weft_buffer *new_barrier(fixture *f, int groups, int algorithm,
                                int by_kernel) {
  size_t bytes = WEFT_BARRIER_SIZE(algorithm, (size_t)groups);
  return object(f, (object_init){"init_barrier", 0, groups, groups,
                                 algorithm, bytes / sizeof(int)}, by_kernel);
}

/* ------------------------------------------------------------- mutexes */

/* Groups, repetitions and turns given to others inside the critical
 * section: every group of the launch races for the lock (up to 512), or
 * groups start as threads free up (4096, a few at a time). */
static const struct mutex_case {
  size_t groups;
  int reps, together, turns;
} mutex_cases[] = {
    {1, 20, 1, 2}, {3, 50, 1, 3}, {64, 20, 1, 2},
    {512, 2, 1, 1}, {4096, 1, 0, 1},
};

/* A mutex's words after its last unlock: free, and a ticket mutex's
 * every ticket (its lock word counts them in 2s) served; the others'
 * words all 0. */
static void check_mutex_left(const int *got, int ticket) {
  CHECK_EQ(got[0] & 1, 0);
  CHECK_EQ((unsigned)got[0] >> 1, got[2]);
  CHECK_EQ(got[1], 0);
  if (!ticket) CHECK_EQ(got[0], 0);
}

/* The non-atomic counter equals the number of acquisitions: no group
 * entered while another was inside, though each let the others run. */
static void check_mutex(int algorithm) {
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "mutex");
  for (size_t i = 0; i < sizeof mutex_cases / sizeof *mutex_cases; i++) {
    const struct mutex_case *t = &mutex_cases[i];
    weft_buffer *m = new_mutex(&f, algorithm, i % 2),
                *c = ints(&f, 2, NULL);
    args(k, "BBIII", m, c, t->reps, t->together, t->turns);
    CHECK_OK(launch(k, t->groups, 4), k);
    int got[4];
    read_ints(c, got, 2);
    CHECK_EQ(got[1], (long long)t->groups * t->reps);
    CHECK_EQ(got[0], got[1]);
    read_ints(m, got, 4);
    CHECK_EQ(got[3], algorithm);
    check_mutex_left(got, algorithm == WEFT_MUTEX_TICKET);
    release_buffers(m, c);
  }
  weft_kernel_release(k);
  teardown(&f);
}

TEST(mutex_native) { check_mutex(WEFT_MUTEX_NATIVE); }
TEST(mutex_spin) { check_mutex(WEFT_MUTEX_SPIN); }
TEST(mutex_spin_backoff) { check_mutex(WEFT_MUTEX_SPIN_BACKOFF); }
TEST(mutex_ticket) { check_mutex(WEFT_MUTEX_TICKET); }

/* trylock takes a free mutex and never a held one, for every algorithm,
 * and leaves it unlocked. */
TEST(mutex_trylock) {
  static const int algorithms[] = {WEFT_MUTEX_NATIVE, WEFT_MUTEX_SPIN,
                                   WEFT_MUTEX_SPIN_BACKOFF, WEFT_MUTEX_TICKET};
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "trylock");
  for (size_t i = 0; i < 4; i++) {
    weft_buffer *m = new_mutex(&f, algorithms[i], i % 2),
                *c = ints(&f, 2, NULL);
    args(k, "BB", m, c);
    CHECK_OK(launch(k, 256, 2), k);
    int got[4];
    read_ints(c, got, 2);
    CHECK_EQ(got[0], 0);
    CHECK_EQ(got[1], 1);
    read_ints(m, got, 4);
    /* A ticket mutex's trylock draws a ticket once the lock word has
     * left 0, and passes its turn on. */
    check_mutex_left(got, algorithms[i] == WEFT_MUTEX_TICKET);
    release_buffers(m, c);
  }
  weft_kernel_release(k);
  teardown(&f);
}

/* ---------------------------------------------------------- semaphores */

/* Whether groups run on one thread: then the order they run in is
 * known. */
static int one_thread(void) {
  return support_device_info().compute_units == 1;
}

/* Every group of the launch races (up to 300 groups; at 4096 they start
 * as threads free up); each lets the others run while inside, so count
 * groups get inside at once (on one thread, where the groups take turns
 * in order; on more, a group may be through before another starts), and
 * never more. */
static void check_semaphore(int algorithm) {
  static const int counts[] = {1, 2, 10, 120};
  static const struct {
    size_t groups;
    int reps, together;
  } cases[] = {{1, 10, 1}, {7, 20, 1}, {300, 3, 1}, {4096, 1, 0}};
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "semaphore");
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
    for (size_t j = 0; j < sizeof cases / sizeof *cases; j++) {
      size_t groups = cases[j].groups;
      int reps = cases[j].reps, got[4];
      if (counts[i] >= 10 && groups > 1000) continue; /* nothing new */
      weft_buffer *s = new_semaphore(&f, counts[i], algorithm, (i + j) % 2),
                  *c = ints(&f, 3, NULL);
      args(k, "BBIII", s, c, reps, cases[j].together, 3);
      CHECK_OK(launch(k, groups, 2), k);
      read_ints(c, got, 3);
      CHECK_EQ(got[0], 0);
      CHECK(got[1] >= 1 && got[1] <= counts[i]);
      if (cases[j].together && one_thread())
        CHECK_EQ(got[1], groups < (size_t)counts[i] ? (int)groups : counts[i]);
      CHECK_EQ(got[2], (long long)groups * reps);
      read_ints(s, got, 4);
      CHECK_EQ(got[0] - got[1], counts[i]); /* every unit back */
      CHECK_EQ(got[3], algorithm);
      /* One unit drawn per wait, but by the CPU's native semaphore, whose
       * word 1 counts its parked waiters, none by now. */
      if (algorithm == WEFT_SEMAPHORE_NATIVE && !harness_on_gpu())
        CHECK_EQ(got[1], 0);
      else CHECK_EQ(got[1], (long long)groups * reps);
      release_buffers(s, c);
    }
  }
  weft_kernel_release(k);
  teardown(&f);
}

TEST(semaphore_native) { check_semaphore(WEFT_SEMAPHORE_NATIVE); }
TEST(semaphore_spin) { check_semaphore(WEFT_SEMAPHORE_SPIN); }
TEST(semaphore_spin_backoff) { check_semaphore(WEFT_SEMAPHORE_SPIN_BACKOFF); }
TEST(semaphore_sleeping) { check_semaphore(WEFT_SEMAPHORE_SLEEPING); }

/* ------------------------------------------------------------ barriers */

/* No work-item of any group passes a phase before every group arrived,
 * from 1 to 4096 groups, far more than threads. */
static void check_barrier(int algorithm) {
  static const size_t groups[] = {1, 2, 3, 64, 1024, 4096};
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "object_barrier");
  for (size_t i = 0; i < sizeof groups / sizeof *groups; i++) {
    int phases = groups[i] > 1000 ? 4 : 12, got[12];
    weft_buffer *b = new_barrier(&f, (int)groups[i], algorithm, i % 2),
                *slots = ints(&f, 12, NULL), *bad = ints(&f, 1, NULL);
    args(k, "BBBI", b, slots, bad, phases);
    CHECK_OK(launch(k, groups[i], 4), k);
    read_ints(bad, got, 1);
    CHECK_EQ(got[0], 0);
    read_ints(slots, got, (size_t)phases);
    for (int p = 0; p < phases; p++) CHECK_EQ(got[p], (long long)groups[i]);
    read_ints(b, got, 4);
    CHECK_EQ(got[2], (long long)groups[i]);
    CHECK_EQ(got[3], algorithm);
    release_buffers(b, slots, bad);
  }
  weft_kernel_release(k);
  teardown(&f);
}

/* A barrier that counts some of the launch's groups, not group 0 (the
 * GPU's native barrier has a path of its own for it); Xiao-Feng's wants
 * the groups numbered from 0, so it is not among these. */
TEST(barrier_over_some_groups) {
  static const int algorithms[] = {WEFT_BARRIER_NATIVE,
                                   WEFT_BARRIER_TWO_STAGE};
  static const size_t launched[] = {2, 5, 65, 1025};
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "some_groups_barrier");
  for (size_t a = 0; a < 2; a++) {
    for (size_t i = 0; i < sizeof launched / sizeof *launched; i++) {
      int groups = (int)launched[i] - 1, phases = 8, got[8];
      weft_buffer *b = new_barrier(&f, groups, algorithms[a], i % 2),
                  *slots = ints(&f, 8, NULL), *bad = ints(&f, 1, NULL);
      args(k, "BBBII", b, slots, bad, phases, 1);
      CHECK_OK(launch(k, launched[i], 2), k);
      read_ints(bad, got, 1);
      CHECK_EQ(got[0], 0);
      read_ints(slots, got, 8);
      for (int p = 0; p < phases; p++) CHECK_EQ(got[p], groups);
      release_buffers(b, slots, bad);
    }
  }
  weft_kernel_release(k);
  teardown(&f);
}

TEST(barrier_native) { check_barrier(WEFT_BARRIER_NATIVE); }
TEST(barrier_two_stage) { check_barrier(WEFT_BARRIER_TWO_STAGE); }
TEST(barrier_xiao_feng) { check_barrier(WEFT_BARRIER_XIAO_FENG); }

/* ------------------------------------------------------ first come first */

static const size_t fifo_groups[] = {1, 2, 16, 256};

/* Acquisitions in the order of arrival: order[i] == i. */
static void check_in_order(weft_buffer *order, size_t n) {
  int *got = malloc(n * sizeof *got);
  read_ints(order, got, n);
  for (size_t i = 0; i < n; i++)
    if (got[i] != (int)i)
      FAIL("acquisition %zu of %zu went to arrival %d", i, n, got[i]);
  free(got);
}

TEST(fifo_ticket_mutex) {
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "mutex_fifo");
  for (size_t i = 0; i < sizeof fifo_groups / sizeof *fifo_groups; i++) {
    size_t n = fifo_groups[i];
    weft_buffer *m = new_mutex(&f, WEFT_MUTEX_TICKET, i % 2),
                *order = ints(&f, n, NULL), *state = ints(&f, 2, NULL);
    args(k, "BBB", m, order, state);
    CHECK_OK(launch(k, n, 2), k);
    check_in_order(order, n);
    release_buffers(m, order, state);
  }
  weft_kernel_release(k);
  teardown(&f);
}

/* The check means something: a spin lock, given the same order of
 * arrival, serves the groups in the order the scheduler runs them, which
 * is not that order: some group is served out of turn, on every variant
 * the test runs as (the default, 1 and 8 threads, fibers, ucontext). */
TEST(fifo_check_fails_spin_lock) {
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "mutex_arrivals");
  size_t n = 64;
  weft_buffer *m = new_mutex(&f, WEFT_MUTEX_SPIN, 0),
              *order = ints(&f, n, NULL), *state = ints(&f, 2, NULL);
  args(k, "BBB", m, order, state);
  CHECK_OK(launch(k, n, 2), k);
  int got[64], in_order = 1;
  read_ints(order, got, n);
  for (size_t i = 0; i < n; i++) in_order &= got[i] == (int)i;
  CHECK(!in_order);
  release_buffers(m, order, state);
  weft_kernel_release(k);
  teardown(&f);
}

TEST(fifo_sleeping_semaphore) {
  static const int counts[] = {1, 2, 10};
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "semaphore_fifo");
  for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
    for (size_t i = 0; i < sizeof fifo_groups / sizeof *fifo_groups; i++) {
      size_t n = fifo_groups[i];
      weft_buffer *s = new_semaphore(&f, counts[c], WEFT_SEMAPHORE_SLEEPING,
                                     (c + i) % 2),
                  *order = ints(&f, n, NULL), *state = ints(&f, 2, NULL);
      args(k, "BBBI", s, order, state, counts[c]);
      CHECK_OK(launch(k, n, 2), k);
      check_in_order(order, n);
      release_buffers(s, order, state);
    }
  }
  weft_kernel_release(k);
  teardown(&f);
}

/* ---------------------------------------------------------- build option */

/* A program built with -DWEFT_MUTEX_IMPL=WEFT_MUTEX_TICKET runs the
 * ticket algorithm on mutexes of the default algorithm (all zero, from the
 * host or weft_mutex_init), which the tickets drawn show (the groups
 * that found the lock held queued); an algorithm given at init still
 * wins. */
TEST(build_option_mutex) {
  fixture f = setup("-cl-std=CL3.0 -DWEFT_MUTEX_IMPL=WEFT_MUTEX_TICKET");
  weft_kernel *k = kernel(&f, "mutex");
  static const int algorithms[] = {WEFT_MUTEX_DEFAULT, WEFT_MUTEX_SPIN};
  for (int by_kernel = 0; by_kernel < 2; by_kernel++) {
    for (size_t a = 0; a < 2; a++) {
      weft_buffer *m = new_mutex(&f, algorithms[a], by_kernel),
                  *c = ints(&f, 2, NULL);
      args(k, "BBIII", m, c, 5, 1, 2);
      CHECK_OK(launch(k, 40, 2), k);
      int got[4];
      read_ints(c, got, 2);
      CHECK_EQ(got[0], 200);
      read_ints(m, got, 4);
      check_mutex_left(got, algorithms[a] == WEFT_MUTEX_DEFAULT);
      if (algorithms[a] == WEFT_MUTEX_DEFAULT) CHECK(got[2] > 0);
      CHECK_EQ(got[3], algorithms[a]);
      release_buffers(m, c);
    }
  }
  weft_kernel_release(k);
  teardown(&f);
}

/* -DWEFT_SEMAPHORE_IMPL=WEFT_SEMAPHORE_SLEEPING: every wait drew a unit
 * (word 1), which the CPU's native semaphore does not do. */
TEST(build_option_semaphore) {
  fixture f =
      setup("-cl-std=CL3.0 -DWEFT_SEMAPHORE_IMPL=WEFT_SEMAPHORE_SLEEPING");
  weft_kernel *k = kernel(&f, "semaphore");
  for (int by_kernel = 0; by_kernel < 2; by_kernel++) {
    weft_buffer *s = new_semaphore(&f, 2, WEFT_SEMAPHORE_DEFAULT, by_kernel),
                *c = ints(&f, 3, NULL);
    args(k, "BBIII", s, c, 4, 1, 3);
    CHECK_OK(launch(k, 50, 2), k);
    int got[4];
    read_ints(c, got, 3);
    /* Two inside at once at most; exactly two only where the groups take
     * turns on one thread (on more, one may be through before another
     * starts: 1 in 40 runs on 8 threads, as check_semaphore knows). */
    CHECK(got[1] >= 1 && got[1] <= 2);
    if (one_thread()) CHECK_EQ(got[1], 2);
    CHECK_EQ(got[2], 200);
    read_ints(s, got, 4);
    CHECK_EQ(got[0], 202);
    CHECK_EQ(got[1], 200);
    CHECK_EQ(got[3], WEFT_SEMAPHORE_DEFAULT);
    release_buffers(s, c);
  }
  weft_kernel_release(k);
  teardown(&f);
}

/* -DWEFT_BARRIER_IMPL: a default barrier runs that algorithm (the native
 * one would count generations in word 1; the Xiao-Feng one leaves every
 * group's flags at the number of phases), and weft_global_barrier() runs
 * the two-stage one when asked. */
TEST(build_option_barrier) {
  static const int algorithms[] = {WEFT_BARRIER_TWO_STAGE,
                                   WEFT_BARRIER_XIAO_FENG};
  static const char *const options[] = {
      "-cl-std=CL3.0 -DWEFT_BARRIER_IMPL=WEFT_BARRIER_TWO_STAGE",
      "-cl-std=CL3.0 -DWEFT_BARRIER_IMPL=WEFT_BARRIER_XIAO_FENG"};
  for (size_t a = 0; a < 2; a++) {
    fixture f = setup(options[a]);
    weft_kernel *k = kernel(&f, "object_barrier");
    int groups = 100, phases = 6, got[4 + 2 * 100];
    for (int by_kernel = 0; by_kernel < 2; by_kernel++) {
      size_t words = WEFT_BARRIER_SIZE(algorithms[a], groups) / sizeof(int);
      weft_buffer *b = object(&f, (object_init){"init_barrier", 0, groups,
                                                groups, WEFT_BARRIER_DEFAULT,
                                                words}, by_kernel),
                  *slots = ints(&f, 6, NULL), *bad = ints(&f, 1, NULL);
      args(k, "BBBI", b, slots, bad, phases);
      CHECK_OK(launch(k, (size_t)groups, 2), k);
      read_ints(bad, got, 1);
      CHECK_EQ(got[0], 0);
      read_ints(b, got, words);
      CHECK_EQ(got[1], 0); /* no generations counted */
      for (size_t w = 4; w < words; w++) CHECK_EQ(got[w], phases);
      release_buffers(b, slots, bad);
    }
    weft_kernel_release(k);
    weft_kernel *g = kernel(&f, "global_barrier");
    static const size_t sizes[] = {1, 5, 2048};
    for (size_t i = 0; i < 3; i++) {
      weft_buffer *slots = ints(&f, 6, NULL), *bad = ints(&f, 1, NULL);
      args(g, "BBI", slots, bad, phases);
      CHECK_OK(launch(g, sizes[i], 2), g);
      read_ints(bad, got, 1);
      CHECK_EQ(got[0], 0);
      read_ints(slots, got, 6);
      for (int p = 0; p < phases; p++) CHECK_EQ(got[p], (long long)sizes[i]);
      release_buffers(slots, bad);
    }
    weft_kernel_release(g);
    teardown(&f);
  }
}

/* ----------------------------------------------------- machine defaults */

/* The algorithms f's programs were built with (the impls kernel): the
 * mutex's, the semaphore's, the barrier's and the global barrier's. */
static void check_impls(fixture *f, int mutex, int semaphore, int barrier,
                        int global_barrier) {
  weft_kernel *q = kernel(f, "impls");
  weft_buffer *built = ints(f, 4, NULL);
  args(q, "B", built);
  CHECK_OK(launch(q, 1, 1), q);
  int impl[4];
  read_ints(built, impl, 4);
  CHECK_EQ(impl[0], mutex);
  CHECK_EQ(impl[1], semaphore);
  CHECK_EQ(impl[2], barrier);
  CHECK_EQ(impl[3], global_barrier);
  weft_kernel_release(q);
  weft_buffer_release(built);
}

/* The sync-defaults file `weft bench probe` writes in the cache folder
 * sets the algorithm of objects initialized without one: the program is
 * built with the file's choices (a bogus value is the default), and a
 * default mutex runs the ticket algorithm, whose words say so: every
 * ticket drawn (word 0 counts them in 2s) was served (word 2). How many
 * tickets are drawn depends on how often the lock was found held, which
 * the OS's scheduling decides: on a busy machine, none may be (this test
 * once failed by asking for more than none). A two-stage barrier leaves
 * its generation word (the native one's word 1) at 0. A program's own
 * option still wins. */
TEST(machine_defaults_file) {
  CPU_ONLY("the machine's measured defaults are the CPU's");
  char dir[] = "/tmp/weft-defaults-XXXXXX", path[64];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/sync-defaults", dir);
  /* 0600 whatever the umask: the cache ignores files others may write
   * (under umask 002 fopen's 0664 made this test fail every time). */
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  FILE *file = fd < 0 ? NULL : fdopen(fd, "w");
  CHECK(file != NULL);
  fputs("# written by the test\nversion=1\nmutex=ticket\nsemaphore=bogus\n"
        "barrier=two_stage\nglobal_barrier=native\n", file);
  fclose(file);
  setenv("WEFT_CACHE_DIR", dir, 1);
  static const char *const options[] = {"-cl-std=CL3.0",
                                        "-cl-std=CL3.0 -DWEFT_MUTEX_IMPL=1"};
  for (int own = 0; own < 2; own++) {
    fixture f = setup(options[own]);
    check_impls(&f, own ? WEFT_MUTEX_NATIVE : WEFT_MUTEX_TICKET,
                WEFT_SEMAPHORE_DEFAULT, WEFT_BARRIER_TWO_STAGE,
                WEFT_BARRIER_NATIVE);
    weft_kernel *k = kernel(&f, "mutex");
    weft_buffer *m = new_mutex(&f, WEFT_MUTEX_DEFAULT, 1),
                *c = ints(&f, 2, NULL);
    args(k, "BBIII", m, c, 3, 1, 1);
    CHECK_OK(launch(k, 5, 2), k);
    int got[4];
    read_ints(m, got, 4);
    CHECK_EQ(got[3], WEFT_MUTEX_DEFAULT);
    /* native draws no tickets and leaves 0 */
    check_mutex_left(got, !own);
    read_ints(c, got, 2);
    CHECK_EQ(got[0], 15); /* 5 groups, 3 times each, one at a time */
    weft_kernel_release(k);
    release_buffers(m, c);
    teardown(&f);
  }
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "object_barrier");
  weft_buffer *b = new_barrier(&f, 4, WEFT_BARRIER_DEFAULT, 1),
              *slots = ints(&f, 3, NULL), *bad = ints(&f, 1, NULL);
  args(k, "BBBI", b, slots, bad, 3);
  CHECK_OK(launch(k, 4, 2), k);
  int got[4];
  read_ints(bad, got, 1);
  CHECK_EQ(got[0], 0);
  read_ints(b, got, 4);
  CHECK_EQ(got[1], 0); /* native would have counted 3 generations */
  release_buffers(b, slots, bad);
  weft_kernel_release(k);
  teardown(&f);
  support_remove_tree(dir);
}

/* The file written through the library (weft_sync_defaults_save, as
 * `weft bench probe` does): a folder made for it, private to the user;
 * what it cannot say refused; and the CPU device, made afterwards, builds
 * with it. */
TEST(defaults_saved_through_the_library) {
  CPU_ONLY("the machine's measured defaults are the CPU's");
  char base[] = "/tmp/weft-defaults-XXXXXX", dir[96], path[128];
  CHECK(mkdtemp(base) != NULL);
  snprintf(dir, sizeof dir, "%s/not/yet", base);
  setenv("WEFT_CACHE_DIR", dir, 1);
  char *text = NULL;
  weft_sync_defaults bad = {.barrier = "xiao_feng"};
  CHECK_EQ(weft_sync_defaults_text(&bad, &text), WEFT_EINVAL);
  CHECK(text == NULL);
  bad = (weft_sync_defaults){.cpu = "two\nlines"};
  CHECK_EQ(weft_sync_defaults_save(&bad, NULL), WEFT_EINVAL);
  CHECK_EQ(weft_sync_defaults_text(NULL, &text), WEFT_EINVAL);
  weft_sync_defaults d = {4, "a CPU", "atomics:cheap", "ticket", "sleeping",
                          "two_stage", NULL};
  snprintf(path, sizeof path, "%s/missing/file", base);
  errno = 0;
  CHECK_EQ(weft_sync_defaults_save(&d, path), WEFT_ESYS);
  CHECK_EQ(errno, ENOENT);
  CHECK_EQ(weft_sync_defaults_save(&d, NULL), 0);
  snprintf(path, sizeof path, "%s/" WEFT_SYNC_DEFAULTS_FILE, dir);
  struct stat st;
  CHECK_EQ(stat(path, &st), 0);
  CHECK_EQ(st.st_mode & 0777, 0600);
  CHECK_EQ(stat(dir, &st), 0);
  CHECK_EQ(st.st_mode & 0777, 0700);
  CHECK_EQ(weft_sync_defaults_text(&d, &text), 0);
  CHECK_STR_CONTAINS(text, "\nversion=1\nthreads=4\ncpu=a CPU\n"
                           "class=atomics:cheap\nmutex=ticket\n"
                           "semaphore=sleeping\nbarrier=two_stage\n"
                           "global_barrier=native\n");
  free(text);
  fixture f = setup("-cl-std=CL3.0");
  check_impls(&f, WEFT_MUTEX_TICKET, WEFT_SEMAPHORE_SLEEPING,
              WEFT_BARRIER_TWO_STAGE, WEFT_BARRIER_NATIVE);
  teardown(&f);  support_remove_tree(base); /* it was left in /tmp at every run */
}

/* ------------------------------------------------------------ host init */

/* weft_sync_object_init writes, at an offset, the very bytes a kernel's
 * weft_*_init_with does, for every kind and algorithm, over junk; the
 * bytes around the object are untouched. */
TEST(host_init_matches_kernel_init) {
  static const struct {
    int kind;
    const char *kernel;
    int param, algorithms;
  } kinds[] = {{WEFT_SYNC_MUTEX, "init_mutex", -1, WEFT_MUTEX_TICKET},
               {WEFT_SYNC_SEMAPHORE, "init_semaphore", 7,
                WEFT_SEMAPHORE_SLEEPING},
               {WEFT_SYNC_BARRIER, "init_barrier", 5, WEFT_BARRIER_XIAO_FENG}};
  fixture f = setup("-cl-std=CL3.0");
  for (size_t i = 0; i < 3; i++) {
    for (int a = 0; a <= kinds[i].algorithms; a++) {
      long long param = kinds[i].param < 0 ? 0 : kinds[i].param;
      size_t bytes;
      CHECK_OK(weft_sync_object_size(kinds[i].kind, param, (unsigned)a,
                                     &bytes), NULL);
      size_t words = bytes / 4, total = words + 8;
      int *junk = malloc(total * sizeof *junk), *want = malloc(bytes),
          *got = malloc(total * sizeof *got);
      for (size_t w = 0; w < total; w++) junk[w] = 0x5a5a5a5a;
      weft_buffer *host = ints(&f, total, junk);
      CHECK_OK(weft_sync_object_init(host, 16, kinds[i].kind, param,
                                     (unsigned)a), host);
      weft_buffer *by_kernel = object(
          &f, (object_init){kinds[i].kernel, 0, 0, kinds[i].param, a, words},
          1);
      read_ints(by_kernel, want, words);
      read_ints(host, got, total);
      for (size_t w = 0; w < total; w++) {
        int expect = w < 4 || w >= 4 + words ? 0x5a5a5a5a : want[w - 4];
        if (got[w] != expect)
          FAIL("kind %d algorithm %d: word %zu is %#x, not %#x",
               kinds[i].kind, a, w, got[w], expect);
      }
      release_buffers(host, by_kernel);
      free(junk);
      free(want);
      free(got);
    }
  }
  teardown(&f);
}

/* Wrong arguments: the code and a message that says what is wrong. */
TEST(host_init_errors) {
  fixture f = setup("-cl-std=CL3.0");
  size_t bytes = 0;
  CHECK_OK(weft_sync_object_size(WEFT_SYNC_BARRIER, 100,
                                 WEFT_BARRIER_XIAO_FENG, &bytes), NULL);
  CHECK_EQ(bytes, 16 + 8 * 100);
  CHECK_OK(weft_sync_object_size(WEFT_SYNC_MUTEX, 0, 0, &bytes), NULL);
  CHECK_EQ(bytes, 16);
  CHECK_EQ(weft_sync_object_size(0, 0, 0, &bytes), WEFT_EINVAL);
  CHECK_EQ(weft_sync_object_size(WEFT_SYNC_MUTEX, 0, 0, NULL), WEFT_EINVAL);
  weft_buffer *b = ints(&f, 8, NULL);
  CHECK_FAILS(weft_sync_object_init(b, 0, WEFT_SYNC_MUTEX, 0, 9), WEFT_EINVAL,
              b, "no such algorithm");
  CHECK_FAILS(weft_sync_object_init(b, 0, WEFT_SYNC_SEMAPHORE, -1, 0),
              WEFT_EINVAL, b, "count must be from 0");
  CHECK_FAILS(weft_sync_object_init(b, 0, WEFT_SYNC_BARRIER, 0, 0),
              WEFT_EINVAL, b, "number of work-groups must be from 1");
  CHECK_FAILS(weft_sync_object_init(b, 6, WEFT_SYNC_MUTEX, 0, 0), WEFT_EINVAL,
              b, "offset 6 is not a multiple of 4");
  CHECK_FAILS(weft_sync_object_init(b, 20, WEFT_SYNC_MUTEX, 0, 0),
              WEFT_ERANGE, b, "outside the 32-byte buffer");
  CHECK_EQ(weft_sync_object_init(NULL, 0, WEFT_SYNC_MUTEX, 0, 0), WEFT_EINVAL);
  weft_buffer_release(b);
  teardown(&f);
}

/* ---------------------------------------------------- random schedules */

#define SEEDS 200

/* One launch of an invariant kernel per seed, for every algorithm: under
 * WEFT_SCHEDULE=random-deep the groups and their work-items switch at
 * random at every atomic, barrier, load and store of global memory, on one
 * thread (under pct, by priorities); a seed that breaks an invariant is
 * named. Small launches (6
 * groups of 2): what matters is how many interleavings are tried. */
static void check_mutex_seeds(fixture *f, int algorithm) {
  weft_kernel *k = kernel(f, "mutex");
  for (unsigned long long seed = 1; seed <= SEEDS; seed++) {
    weft_buffer *m = new_mutex(f, algorithm, 0), *c = ints(f, 2, NULL);
    args(k, "BBIII", m, c, 2, 1, 1);
    weft_schedule_seed(seed);
    CHECK_OK(launch(k, 6, 2), k);
    int got[2];
    read_ints(c, got, 2);
    if (got[0] != 12 || got[1] != 12)
      FAIL("mutex %d, seed %llu: counter %d after %d acquisitions",
           algorithm, seed, got[0], got[1]);
    release_buffers(m, c);
  }
  weft_kernel_release(k);
}

static void check_semaphore_seeds(fixture *f, int algorithm) {
  weft_kernel *k = kernel(f, "semaphore");
  for (unsigned long long seed = 1; seed <= SEEDS; seed++) {
    int count = 1 + (int)(seed % 3), got[4];
    weft_buffer *s = new_semaphore(f, count, algorithm, 0),
                *c = ints(f, 3, NULL);
    args(k, "BBIII", s, c, 2, 1, 1);
    weft_schedule_seed(seed);
    CHECK_OK(launch(k, 6, 2), k);
    read_ints(c, got, 3);
    if (got[1] > count || got[2] != 12)
      FAIL("semaphore %d of count %d, seed %llu: %d inside at once, %d "
           "entries", algorithm, count, seed, got[1], got[2]);
    read_ints(s, got, 4);
    CHECK_EQ(got[0] - got[1], count);
    release_buffers(s, c);
  }
  weft_kernel_release(k);
}

static void check_barrier_seeds(fixture *f, int algorithm) {
  weft_kernel *k = kernel(f, "object_barrier");
  for (unsigned long long seed = 1; seed <= SEEDS; seed++) {
    weft_buffer *b = new_barrier(f, 6, algorithm, 0),
                *slots = ints(f, 3, NULL), *bad = ints(f, 1, NULL);
    args(k, "BBBI", b, slots, bad, 3);
    weft_schedule_seed(seed);
    CHECK_OK(launch(k, 6, 2), k);
    int got[1];
    read_ints(bad, got, 1);
    if (got[0])
      FAIL("barrier %d, seed %llu: %d work-items through a phase early",
           algorithm, seed, got[0]);
    release_buffers(b, slots, bad);
  }
  weft_kernel_release(k);
}

static void check_every_algorithm(const char *schedule) {
  setenv("WEFT_SCHEDULE", schedule, 1);
  fixture f = setup("-cl-std=CL3.0");
  for (int a = WEFT_MUTEX_NATIVE; a <= WEFT_MUTEX_TICKET; a++)
    check_mutex_seeds(&f, a);
  for (int a = WEFT_SEMAPHORE_NATIVE; a <= WEFT_SEMAPHORE_SLEEPING; a++)
    check_semaphore_seeds(&f, a);
  for (int a = WEFT_BARRIER_NATIVE; a <= WEFT_BARRIER_XIAO_FENG; a++)
    check_barrier_seeds(&f, a);
  teardown(&f);
}

TEST(every_algorithm_under_random_schedules) {
  check_every_algorithm("random-deep:1");
}

/* PCT also switches at __local accesses, and runs the best work-item
 * until its priority drops. */
TEST(every_algorithm_under_pct_schedules) { check_every_algorithm("pct:1"); }

/* Each algorithm's releases are fenced: plain stores waiting in a store
 * buffer (WEFT_MEMORY=weak) break none of their invariants. */
TEST(every_algorithm_under_weak_memory) {
  setenv("WEFT_MEMORY", "weak", 1);
  check_every_algorithm("random-deep:1");
}

/* ------------------------------------------------------------ deadlock */

/* Groups that spin for ever on one of the paper's algorithms are a
 * deadlock, reported at once with what each waits on: a spinning group
 * polls its word, which nobody running can change (not "memory it polls
 * in a loop", the report of a loop the runtime knows nothing of). On a
 * GPU, after WEFT_SPIN_TIMEOUT. */
TEST(spinning_deadlock_is_reported) {
  static const int mutexes[] = {WEFT_MUTEX_SPIN, WEFT_MUTEX_SPIN_BACKOFF,
                                WEFT_MUTEX_TICKET};
  static const int semaphores[] = {WEFT_SEMAPHORE_SPIN,
                                   WEFT_SEMAPHORE_SPIN_BACKOFF,
                                   WEFT_SEMAPHORE_SLEEPING};
  setenv("WEFT_SPIN_TIMEOUT", "1", 1);
  fixture f = setup("-cl-std=CL3.0");
  weft_kernel *k = kernel(&f, "never_unlocked");
  for (size_t i = 0; i < 3; i++) {
    weft_buffer *m = new_mutex(&f, mutexes[i], 0);
    args(k, "B", m);
    CHECK_DEADLOCK(launch(k, 6, 2), k,
                   "5 work-groups wait and none can go on (1 finished",
                   "waits on a mutex at 0x");
    weft_buffer_release(m);
  }
  weft_kernel_release(k);
  k = kernel(&f, "never_posted");
  for (size_t i = 0; i < 3; i++) {
    weft_buffer *s = new_semaphore(&f, 0, semaphores[i], 0);
    args(k, "B", s);
    CHECK_DEADLOCK(launch(k, 3, 2), k,
                   "3 work-groups wait and none can go on (0 finished",
                   "waits on a semaphore at 0x");
    weft_buffer_release(s);
  }
  weft_kernel_release(k);
  teardown(&f);
}

TEST_MAIN()
