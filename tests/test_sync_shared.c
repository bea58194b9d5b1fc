/*
 * test_sync_shared.c: the synchronization algorithms every target shares
 * (include/weft/sync_algorithms.h) as the GPU runs them, on host threads:
 * here over a shim of C atomics, set as CUDA's shim in weft/cuda/sync.cuh
 * sets it (the GPU's native algorithms, waits that sleep and need no
 * wake), each thread a group of one item. CI has no GPU: this is where
 * the GPU's configuration of the shared source runs there (the OpenCL
 * path's runs on the CPU in test_sync_algorithms, and on a GPU with
 * WEFT_DEVICE=cuda). Each test checks its primitive's invariant: one
 * holder and an exact count for a mutex, no more holders than units for a
 * semaphore, no thread past a barrier's phase early.
 */
#include <pthread.h>
#include <sched.h>

#include "harness.h"
#include "weft/kernel.h"

/* ------------------------------------------------------------ the shim */

typedef struct weft_mutex {
  unsigned word[4];
} weft_mutex;
typedef struct weft_semaphore {
  unsigned word[4];
} weft_semaphore;
typedef struct weft_barrier {
  unsigned word[4];
} weft_barrier;

#define WEFT__FN static inline
#define WEFT__GLOBAL

#define ATOMIC(name, builtin, order)                                         \
  static inline unsigned name(unsigned *p, unsigned v) {                     \
    return builtin(p, v, order);                                             \
  }
ATOMIC(weft__fetch_add, __atomic_fetch_add, __ATOMIC_ACQ_REL)
ATOMIC(weft__fetch_add_relaxed, __atomic_fetch_add, __ATOMIC_RELAXED)
ATOMIC(weft__fetch_or_acquire, __atomic_fetch_or, __ATOMIC_ACQUIRE)
ATOMIC(weft__exchange, __atomic_exchange_n, __ATOMIC_ACQ_REL)

static inline unsigned weft__load(const unsigned *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline unsigned weft__load_relaxed(const unsigned *p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline void weft__store(unsigned *p, unsigned v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline void weft__store_relaxed(unsigned *p, unsigned v) {
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
}
static inline int weft__cas(unsigned *p, unsigned expected, unsigned desired) {
  return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_ACQUIRE);
}
static inline void weft__add_release(unsigned *p, unsigned v) {
  (void)__atomic_fetch_add(p, v, __ATOMIC_RELEASE);
}
static inline void weft__and_release(unsigned *p, unsigned v) {
  (void)__atomic_fetch_and(p, v, __ATOMIC_RELEASE);
}

/* Every wait of a GPU, a sleep, becomes a yield: more threads than cores
 * run here. */
typedef int weft__watch;
#define WEFT__WATCH_INIT 0
#define WAIT_ARGS weft__watch *w, unsigned *word, unsigned v, unsigned what
#define WAIT_BODY                                                            \
  do {                                                                       \
    (void)w, (void)word, (void)v, (void)what, (void)ns;                      \
    sched_yield();                                                           \
  } while (0)
static inline void weft__poll(WAIT_ARGS, unsigned ns) { WAIT_BODY; }
static inline void weft__await(WAIT_ARGS, unsigned ns) { WAIT_BODY; }
static inline void weft__park(WAIT_ARGS, unsigned ns) { WAIT_BODY; }
static inline void weft__pause(WAIT_ARGS, unsigned ns) { WAIT_BODY; }
static inline void weft__sleep(weft__watch *w, unsigned *word, unsigned what,
                               unsigned ns) {
  unsigned v = 0;
  WAIT_BODY;
}
static inline void weft__wake(unsigned *word) { (void)word; }
#define WEFT__BACKOFF_FIRST 32u
#define WEFT__BACKOFF_CAP 1024u

/* Each thread is a group of one item, its rank set when it starts. */
static _Thread_local unsigned group_rank;
static unsigned group_count;
static inline unsigned weft__group_rank(void) { return group_rank; }
static inline unsigned weft__group_count(void) { return group_count; }
static inline unsigned weft__item_rank(void) { return 0; }
static inline unsigned weft__item_count(void) { return 1; }
static inline void weft__group_barrier(void) {}
static inline unsigned weft__seed(void) {
  return (group_rank + 1u) * 2654435761u;
}

#define WEFT__NATIVE_PARKS 0
#define WEFT__WAKES 0
/* Run-time here, so that both native barrier paths run. */
static int from_rank_0;
#define WEFT__BARRIER_FROM_RANK_0 from_rank_0

#include "weft/sync_algorithms.h"

/* ------------------------------------------------------------- the runs */

#define THREADS 6
#define OPS 2000

static struct {
  weft_mutex mutex;
  weft_semaphore semaphore;
  unsigned units;
  /* A barrier with room for a Xiao-Feng one's flags. */
  weft_barrier barrier[1 + (2 * THREADS * sizeof(unsigned) + 15) / 16];
  unsigned count, inside, most_inside;
  unsigned phase[THREADS], early;
  unsigned members; /* threads at the barrier: the last ones */
} run;

static void *mutex_thread(void *arg) {
  group_rank = (unsigned)(size_t)arg;
  for (int i = 0; i < OPS; i++) {
    if (i % 7 == 3 && weft__sync_mutex_trylock(&run.mutex, WEFT_MUTEX_NATIVE)) {
    } else {
      weft__sync_mutex_lock(&run.mutex, WEFT_MUTEX_NATIVE);
    }
    unsigned in = __atomic_add_fetch(&run.inside, 1, __ATOMIC_RELAXED);
    if (in > run.most_inside) run.most_inside = in;
    run.count++; /* plain: the mutex must make it exact */
    if (i % 4 == 0) sched_yield(); /* let the others find it held */
    __atomic_sub_fetch(&run.inside, 1, __ATOMIC_RELAXED);
    weft__sync_mutex_unlock(&run.mutex, WEFT_MUTEX_NATIVE);
  }
  return NULL;
}

static void *semaphore_thread(void *arg) {
  group_rank = (unsigned)(size_t)arg;
  for (int i = 0; i < OPS; i++) {
    weft__sync_semaphore_wait(&run.semaphore, WEFT_SEMAPHORE_NATIVE);
    unsigned in = __atomic_add_fetch(&run.inside, 1, __ATOMIC_ACQ_REL);
    unsigned most = __atomic_load_n(&run.most_inside, __ATOMIC_RELAXED);
    while (in > most && !__atomic_compare_exchange_n(&run.most_inside, &most,
                                                     in, 0, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
    }
    sched_yield();
    __atomic_sub_fetch(&run.inside, 1, __ATOMIC_ACQ_REL);
    weft__sync_semaphore_post(&run.semaphore, WEFT_SEMAPHORE_NATIVE);
  }
  return NULL;
}

/* Each member passes OPS / 10 phases; after each, no member may still be
 * in a phase before its own. */
static void *barrier_thread(void *arg) {
  group_rank = (unsigned)(size_t)arg;
  for (unsigned p = 1; p <= OPS / 10; p++) {
    __atomic_store_n(&run.phase[group_rank], p, __ATOMIC_RELEASE);
    weft__sync_barrier_wait(run.barrier, WEFT_BARRIER_NATIVE);
    for (unsigned t = THREADS - run.members; t < THREADS; t++)
      if (__atomic_load_n(&run.phase[t], __ATOMIC_ACQUIRE) < p)
        __atomic_store_n(&run.early, 1, __ATOMIC_RELAXED);
    weft__sync_barrier_wait(run.barrier, WEFT_BARRIER_NATIVE);
  }
  return NULL;
}

/* Runs body on threads first to THREADS - 1, ranks being their index. */
static void run_threads(void *(*body)(void *), unsigned first) {
  pthread_t t[THREADS];
  group_count = THREADS;
  for (unsigned i = first; i < THREADS; i++)
    CHECK(pthread_create(&t[i], NULL, body, (void *)(size_t)i) == 0);
  for (unsigned i = first; i < THREADS; i++) pthread_join(t[i], NULL);
}

static void check_mutex(unsigned algorithm) {
  memset(&run, 0, sizeof run);
  run.mutex.word[3] = algorithm;
  run_threads(mutex_thread, 0);
  CHECK_EQ(run.count, THREADS * OPS);
  CHECK_EQ(run.most_inside, 1);
  /* Free again, and (ticket) every ticket served: the lock word counts
   * the tickets drawn, the trylocks' too, in 2s; 0 for the others. (How
   * many tickets were drawn depends on how often the lock was found held,
   * which the OS decides: on a busy machine, none may be.) */
  CHECK_EQ(run.mutex.word[0] & 1, 0);
  CHECK_EQ(run.mutex.word[0] >> 1, run.mutex.word[2]);
}

TEST(mutex_native) { check_mutex(WEFT_MUTEX_NATIVE); }
TEST(mutex_spin) { check_mutex(WEFT_MUTEX_SPIN); }
TEST(mutex_spin_backoff) { check_mutex(WEFT_MUTEX_SPIN_BACKOFF); }
TEST(mutex_ticket) { check_mutex(WEFT_MUTEX_TICKET); }

static void check_semaphore(unsigned algorithm, unsigned units) {
  memset(&run, 0, sizeof run);
  run.semaphore.word[0] = units;
  run.semaphore.word[3] = algorithm;
  run_threads(semaphore_thread, 0);
  CHECK(run.most_inside >= 1 && run.most_inside <= units);
  /* Every wait drew a unit, whatever the algorithm, and every one was
   * given back. */
  CHECK_EQ(run.semaphore.word[0] - run.semaphore.word[1], units);
}

TEST(semaphore_native) {
  check_semaphore(WEFT_SEMAPHORE_NATIVE, 1);
  check_semaphore(WEFT_SEMAPHORE_NATIVE, 3);
}
TEST(semaphore_spin) { check_semaphore(WEFT_SEMAPHORE_SPIN, 2); }
TEST(semaphore_spin_backoff) {
  check_semaphore(WEFT_SEMAPHORE_SPIN_BACKOFF, 2);
}
TEST(semaphore_sleeping) {
  check_semaphore(WEFT_SEMAPHORE_SLEEPING, 1);
  check_semaphore(WEFT_SEMAPHORE_SLEEPING, 3);
}

/* members threads, the last ones, meet at the barrier; rank_0 says whether
 * the barrier may count on rank 0 being among them. */
static void check_barrier(unsigned algorithm, unsigned members, int rank_0) {
  memset(&run, 0, sizeof run);
  run.barrier[0].word[2] = members;
  run.barrier[0].word[3] = algorithm;
  run.members = members;
  from_rank_0 = rank_0;
  run_threads(barrier_thread, THREADS - members);
  CHECK_EQ(run.early, 0);
}

TEST(barrier_native) {
  check_barrier(WEFT_BARRIER_NATIVE, THREADS, 1);
  /* Some groups, rank 0 not among them: the last to arrive flips. */
  check_barrier(WEFT_BARRIER_NATIVE, THREADS - 2, 0);
  CHECK_EQ(run.barrier[0].word[0] & 0x7fffffffu, 0);
}
TEST(barrier_two_stage) { check_barrier(WEFT_BARRIER_TWO_STAGE, THREADS, 1); }
TEST(barrier_xiao_feng) { check_barrier(WEFT_BARRIER_XIAO_FENG, THREADS, 1); }

TEST_MAIN()
