/* bench_sync_pthread.c: the work of the sync kernels done by C threads on
 * pthread_mutex, sem_t and pthread_barrier, with the same checks. */
#include <math.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench_sync.h"
#include "bench_util.h"

typedef struct shared {
  sync_primitive primitive;
  int count, checked; /* checked: count the semaphore's holders */
  unsigned threads, ops;
  pthread_barrier_t start; /* all threads and the timer */
  pthread_mutex_t mutex;
  sem_t semaphore;
  pthread_barrier_t barrier;
  int counter; /* the mutex's, not atomic */
  _Atomic int inside, entries, bad;
  volatile int *phase; /* the barrier's, SYNC_STRIDE apart */
  double *begin, *end; /* when each thread started and finished */
} shared;

typedef struct worker {
  shared *s;
  unsigned index;
} worker;

static void mutex_ops(shared *s) {
  for (unsigned i = 0; i < s->ops; i++) {
    pthread_mutex_lock(&s->mutex);
    int v = s->counter;
    s->counter = v + 1;
    pthread_mutex_unlock(&s->mutex);
  }
}

static void semaphore_ops(shared *s) {
  for (unsigned i = 0; i < s->ops; i++) {
    while (sem_wait(&s->semaphore)) continue; /* EINTR */
    if (s->checked) {
      if (atomic_fetch_add(&s->inside, 1) >= s->count) atomic_store(&s->bad, 1);
      atomic_fetch_sub(&s->inside, 1);
    }
    sem_post(&s->semaphore);
  }
  atomic_fetch_add(&s->entries, (int)s->ops);
}

static void barrier_ops(shared *s, unsigned t) {
  unsigned next = (t + 1) % s->threads;
  for (int p = 1; p <= (int)s->ops; p++) {
    s->phase[(size_t)t * SYNC_STRIDE] = p;
    pthread_barrier_wait(&s->barrier);
    if (s->phase[(size_t)next * SYNC_STRIDE] < p) atomic_fetch_add(&s->bad, 1);
  }
}

static void *work(void *arg) {
  worker *w = arg;
  shared *s = w->s;
  pthread_barrier_wait(&s->start);
  s->begin[w->index] = bench_seconds();
  if (s->primitive == SYNC_MUTEX)
    mutex_ops(s);
  else if (s->primitive == SYNC_SEMAPHORE)
    semaphore_ops(s);
  else
    barrier_ops(s, w->index);
  s->end[w->index] = bench_seconds();
  return NULL;
}

static int init_shared(shared *s, sync_primitive p, int count, unsigned threads,
                       unsigned ops) {
  memset(s, 0, sizeof *s);
  s->primitive = p;
  s->count = count;
  s->threads = threads;
  s->ops = ops;
  s->begin = calloc(threads, sizeof *s->begin);
  s->end = calloc(threads, sizeof *s->end);
  s->phase = calloc((size_t)threads * SYNC_STRIDE, sizeof(int));
  if (!s->begin || !s->end || !s->phase) return -1;
  pthread_barrier_init(&s->start, NULL, threads + 1);
  pthread_barrier_init(&s->barrier, NULL, threads);
  pthread_mutex_init(&s->mutex, NULL);
  sem_init(&s->semaphore, 0, (unsigned)count);
  return 0;
}

static void fini_shared(shared *s) {
  pthread_barrier_destroy(&s->start);
  pthread_barrier_destroy(&s->barrier);
  pthread_mutex_destroy(&s->mutex);
  sem_destroy(&s->semaphore);
  free(s->begin);
  free(s->end);
  free((void *)s->phase);
}

static void check(const shared *s) {
  long long want = (long long)s->threads * s->ops;
  int ok = s->primitive == SYNC_MUTEX       ? s->counter == want
           : s->primitive == SYNC_SEMAPHORE ? !s->bad && s->entries == want
                                            : !s->bad;
  if (!ok)
    bench_die("%s/pthread: INVARIANT VIOLATED with %u threads",
                   sync_primitive_name(s->primitive), s->threads);
}

/* Seconds from the first thread's start to the last one's end: not from
 * when this thread sees the start, which may come after all are done. */
static double run_once(sync_primitive p, int count, unsigned threads,
                       unsigned ops, int checked) {
  shared s;
  pthread_t *ids = calloc(threads, sizeof *ids);
  worker *workers = calloc(threads, sizeof *workers);
  if (!ids || !workers || init_shared(&s, p, count, threads, ops))
    bench_die("out of memory");
  s.checked = checked;
  for (unsigned t = 0; t < threads; t++) {
    workers[t] = (worker){&s, t};
    /* The others wait at the start for ever: nothing to do but stop. */
    if (pthread_create(&ids[t], NULL, work, &workers[t]))
      bench_die("cannot start %u threads", threads);
  }
  pthread_barrier_wait(&s.start);
  for (unsigned t = 0; t < threads; t++) pthread_join(ids[t], NULL);
  double start = s.begin[0], end = s.end[0];
  for (unsigned t = 1; t < threads; t++) {
    start = s.begin[t] < start ? s.begin[t] : start;
    end = s.end[t] > end ? s.end[t] : end;
  }
  check(&s);
  fini_shared(&s);
  free(ids);
  free(workers);
  return end - start;
}

typedef struct run_args {
  sync_primitive p;
  int count;
  unsigned threads;
} run_args;

static double run_with(void *arg, unsigned ops) {
  run_args *a = arg;
  return run_once(a->p, a->count, a->threads, ops, 0);
}

double sync_pthread_seconds(sync_primitive p, int count, unsigned threads,
                            unsigned *ops, const tool_timing *timing) {
  run_args a = {p, count, threads};
  /* Not less a run without operations: the threads' start is spread
   * over time, and overlaps the work of those already started. */
  double seconds = tool_measure(run_with, &a, ops, timing, 0);
  /* The timed runs do not count the semaphore's holders, as the kernels'
   * do not (bench_sync_weft.c): one more run does. */
  if (p == SYNC_SEMAPHORE && threads > 1) run_once(p, count, threads, *ops, 1);
  return seconds;
}
