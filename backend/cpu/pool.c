/* pool.c: worker threads (see pool.h). */
#include "backend/cpu/pool.h"

#include <assert.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/config.h"
#include "base/cpu_relax.h"
#include "weft/weft.h"

/* About 10 to 50 microseconds of polling before a waiter sleeps: long
 * enough to catch back-to-back launches, short enough not to starve the
 * host thread on a two-core machine. */
#define SPINS 1000
/* Polls between yields of a waiter's core. The thread it waits for may be
 * queued on the same core (the scheduler's placement, or an affinity mask
 * narrower than the workers): without the yields it ran only once the
 * spin was over, and an empty launch took 57 to 65 us instead of 1.4 in
 * half the processes on a two-core machine, and every time with the
 * process pinned to one core. 64 polls are about a microsecond. */
#define POLLS_PER_YIELD 64

struct weft_pool {
  unsigned size;              /* workers, the caller included */
  unsigned num_threads;       /* started threads: size - 1 */
  pthread_t *threads;
  pthread_mutex_t run_lock;   /* one job at a time */
  atomic_uint generation;     /* bumped to start a job (futex word) */
  atomic_uint pending;        /* threads still in the job (futex word) */
  atomic_uint sleepers;       /* threads asleep, or about to be, on a word */
  int spins;                  /* polls before sleeping */
  weft_pool_fn fn;
  void *arg;
  int stopping;
  weft_pool_fn init;
  void *init_arg;
};

typedef struct worker_start {
  weft_pool *pool;
  unsigned index;
} worker_start;

/* Returns once *word != value. */
static void wait_while(weft_pool *p, atomic_uint *word, unsigned value) {
  for (int i = 1; i <= p->spins; i++) {
    if (atomic_load_explicit(word, memory_order_acquire) != value) return;
    if (i % POLLS_PER_YIELD) weft__cpu_relax();
    else sched_yield();
  }
  while (atomic_load(word) == value) {
    /* Announce the sleep before the kernel re-checks the word: a waker that
     * changed the word and then saw no sleeper is seen by the check. */
    atomic_fetch_add(&p->sleepers, 1);
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
    atomic_fetch_sub(&p->sleepers, 1);
  }
}

static void wake_all(weft_pool *p, atomic_uint *word) {
  if (atomic_load(&p->sleepers))
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void *worker_main(void *arg) {
  worker_start start = *(worker_start *)arg;
  free(arg);
  weft_pool *p = start.pool;
  char name[16];
  snprintf(name, sizeof name, "weft-worker-%u", start.index);
  pthread_setname_np(pthread_self(), name);
  if (p->init) p->init(p->init_arg, start.index);
  unsigned seen = 0;
  for (;;) {
    wait_while(p, &p->generation, seen);
    seen = atomic_load_explicit(&p->generation, memory_order_acquire);
    if (p->stopping) break;
    p->fn(p->arg, start.index);
    if (atomic_fetch_sub(&p->pending, 1) == 1) wake_all(p, &p->pending);
  }
  return NULL;
}

int weft__pool_create(unsigned workers, size_t stack_size, weft_pool_fn init,
                      void *init_arg, weft_pool **out) {
  weft_pool *p = calloc(1, sizeof *p);
  if (!p || !(p->threads = calloc(workers, sizeof *p->threads))) {
    free(p);
    return WEFT_ENOMEM;
  }
  p->size = workers;
  /* With more workers than cores, a spinning waiter takes the core that the
   * thread it waits for needs: sleep at once instead. */
  p->spins = workers > weft__usable_cpus() ? 0 : SPINS;
  pthread_mutex_init(&p->run_lock, NULL);
  p->init = init;
  p->init_arg = init_arg;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack_size);
  pthread_attr_setguardsize(&attr, (size_t)sysconf(_SC_PAGESIZE));
  int rc = 0;
  for (unsigned i = 1; i < workers && !rc; i++) {
    worker_start *start = malloc(sizeof *start);
    if (!start) {
      rc = WEFT_ENOMEM;
      break;
    }
    *start = (worker_start){p, i};
    if (pthread_create(&p->threads[i - 1], &attr, worker_main, start)) {
      free(start);
      rc = WEFT_ESYS;
      break;
    }
    p->num_threads++;
  }
  pthread_attr_destroy(&attr);
  if (rc) {
    weft__pool_destroy(p);
    return rc;
  }
  *out = p;
  return 0;
}

void weft__pool_run(weft_pool *p, weft_pool_fn fn, void *arg,
                    unsigned threads) {
  assert(threads == 1 || threads == p->size);
  int alone = threads == 1;
  pthread_mutex_lock(&p->run_lock);
  p->fn = fn;
  p->arg = arg;
  if (p->num_threads && !alone) {
    atomic_store(&p->pending, p->num_threads);
    /* The release in this increment publishes fn and arg to the workers. */
    atomic_fetch_add(&p->generation, 1);
    wake_all(p, &p->generation);
  }
  fn(arg, 0);
  unsigned left;
  while (!alone && (left = atomic_load(&p->pending)) != 0)
    wait_while(p, &p->pending, left);
  pthread_mutex_unlock(&p->run_lock);
}

unsigned weft__pool_size(const weft_pool *p) { return p->size; }

void weft__pool_destroy(weft_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->run_lock);
  p->stopping = 1;
  atomic_fetch_add(&p->generation, 1);
  syscall(SYS_futex, &p->generation, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
  pthread_mutex_unlock(&p->run_lock);
  for (unsigned i = 0; i < p->num_threads; i++) pthread_join(p->threads[i], NULL);
  pthread_mutex_destroy(&p->run_lock);
  free(p->threads);
  free(p);
}
