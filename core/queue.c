/* queue.c: queues: made, ended, finished, and their side of a command's
 * life (see queue.h). */
#include <assert.h>
#include <stdlib.h>

#include "base/cpu_relax.h"
#include "base/object.h"
#include "core/queue.h"

int weft__queue_is(const weft_queue *q) {
  return q && q->kind == WEFT__KIND_QUEUE;
}

int weft_queue_create(weft_context *context, unsigned flags,
                      weft_queue **out) {
  if (!out) return WEFT_EINVAL;
  *out = NULL;
  if (!weft_context_device(context) || (flags & ~WEFT_QUEUE_OUT_OF_ORDER))
    return WEFT_EINVAL;
  weft_queue *q = calloc(1, sizeof *q);
  if (!q) return WEFT_ENOMEM;
  q->kind = WEFT__KIND_QUEUE;
  atomic_init(&q->refs, 1);
  pthread_mutex_init(&q->lock, NULL);
  pthread_mutex_init(&q->settle_lock, NULL);
  pthread_cond_init(&q->idle, NULL);
  atomic_init(&q->flying, 0);
  atomic_init(&q->running, 0);
  q->context = context;
  q->flags = flags;
  weft_context_retain(context);
  *out = q;
  return 0;
}

void weft_queue_retain(weft_queue *q) {
  if (weft__queue_is(q))
    atomic_fetch_add_explicit(&q->refs, 1, memory_order_relaxed);
}

/* The last reference: every command is done (each event holds one), and
 * no shared thread serves the queue (the run list holds one): it ends. */
void weft_queue_release(weft_queue *q) {
  if (!weft__queue_is(q) || atomic_fetch_sub(&q->refs, 1) != 1) return;
  assert(!q->scheduled && !q->outstanding && !q->flight_head);
  weft_context *c = q->context;
  pthread_cond_destroy(&q->idle);
  pthread_mutex_destroy(&q->settle_lock);
  pthread_mutex_destroy(&q->lock);
  free(q->active);
  q->kind = 0;
  free(q);
  weft_context_release(c);
}

int weft_queue_finish(weft_queue *q) {
  if (!weft__queue_is(q)) return WEFT_EINVAL;
  /* Run what is ready here rather than wait for a queue thread; what
   * becomes ready later (after another queue's or a user event) a shared
   * thread runs. */
  weft__queue_help(q, NULL);
  pthread_mutex_lock(&q->lock);
  while (q->outstanding) pthread_cond_wait(&q->idle, &q->lock);
  pthread_mutex_unlock(&q->lock);
  return 0;
}

void weft__queue_retire(weft_queue *q, weft_event *e) {
  pthread_mutex_lock(&q->lock);
  if (q->last == e) q->last = NULL;
  if (q->barrier == e) q->barrier = NULL;
  for (size_t i = 0; i < q->num_active; i++) {
    if (q->active[i] != e) continue;
    q->active[i] = q->active[--q->num_active];
    break;
  }
  assert(q->outstanding > 0);
  if (--q->outstanding == 0) pthread_cond_broadcast(&q->idle);
  pthread_mutex_unlock(&q->lock);
}

weft_command *weft__queue_take_ready(weft_queue *q) {
  weft_command *c = q->ready_head;
  if (c) {
    q->ready_head = c->next;
    if (!q->ready_head) q->ready_tail = NULL;
  }
  return c;
}

int weft__queue_idle_step(weft_queue *q, int host) {
  if (!atomic_load(&q->flying)) return 0;
  if (!host && atomic_load(&q->helping)) return 0;
  return atomic_load(&q->running) ? -1 : 1;
}

/* Runs q's ready commands and settles what is in flight, until e is
 * done (NULL: until nothing is left to run or to settle). */
static void help_until(weft_queue *q, weft_event *e) {
  for (;;) {
    if (e && weft__event_done(e)) return;
    pthread_mutex_lock(&q->lock);
    weft_command *c = weft__queue_take_ready(q);
    pthread_mutex_unlock(&q->lock);
    if (c) {
      weft__command_execute(c);
      continue;
    }
    /* Nothing more to start: wait for what is in flight (its end may
     * make more ready). */
    int step = weft__queue_idle_step(q, 1);
    if (!step) return;
    if (step > 0) weft__queue_settle(q);
    else weft__cpu_relax();
  }
}

void weft__queue_help(weft_queue *q, weft_event *e) {
  atomic_fetch_add(&q->helping, 1);
  help_until(q, e);
  /* Work left in flight (out of order after e, or started by a shared
   * thread that left it to this one as this one left) goes to the shared
   * threads. Uncounted first: a thread that counts its launch in flight,
   * then finds no helper, settles; one that finds this one still counted
   * counted its launch before, which the test below sees. */
  atomic_fetch_sub(&q->helping, 1);
  if (atomic_load(&q->flying)) {
    pthread_mutex_lock(&q->lock);
    weft__queue_schedule(q);
    pthread_mutex_unlock(&q->lock);
  }
}

void weft__queue_in_flight(weft_queue *q, weft_command *c) {
  c->next = NULL;
  pthread_mutex_lock(&q->lock);
  if (q->flight_tail) q->flight_tail->next = c;
  else q->flight_head = c;
  q->flight_tail = c;
  /* Counted before the next command is let go: a thread that runs it
   * sees the count. */
  atomic_fetch_add(&q->flying, 1);
  pthread_mutex_unlock(&q->lock);
  weft__event_in_flight(c->event);
}

/* How long a thread spins for a settle lock another holds before it
 * sleeps on it. */
#define SETTLE_SPIN_NS 100000u

/* q's settle lock, spun for first: the settle under way waits for work
 * that is mostly done, and a thread put to sleep on the lock wakes tens
 * of microseconds after its release. */
static void lock_settles(weft_queue *q) {
  uint64_t until = weft__queue_now() + SETTLE_SPIN_NS;
  for (unsigned i = 1; pthread_mutex_trylock(&q->settle_lock); i++) {
    if (i % 64 == 0 && weft__queue_now() >= until) {
      pthread_mutex_lock(&q->settle_lock);
      return;
    }
    weft__cpu_relax();
  }
}

void weft__queue_settle(weft_queue *q) {
  if (!atomic_load(&q->flying)) return;
  /* The last command's end may let q go (weft_queue_finish returns). */
  weft_queue_retain(q);
  lock_settles(q);
  pthread_mutex_lock(&q->lock);
  weft_command *c = q->flight_head;
  q->flight_head = q->flight_tail = NULL;
  pthread_mutex_unlock(&q->lock);
  if (c) {
    char msg[WEFT_MSG_MAX];
    int rc = weft_device_settle(weft_context_device(q->context), msg,
                                sizeof msg);
    while (c) {
      weft_command *next = c->next;
      atomic_fetch_sub(&q->flying, 1);
      int status = c->settled(c->arg, rc, msg);
      weft__command_finish(c, status > 0 ? 0 : status);
      c = next;
    }
  }
  pthread_mutex_unlock(&q->settle_lock);
  weft_queue_release(q);
}
