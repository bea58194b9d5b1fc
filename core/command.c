/* command.c: how commands wait for their prerequisites, become ready and
 * run, on a shared queue thread or on a host thread that waits for them
 * (see queue.h); weft_enqueue. */
#include <stdlib.h>

#include "core/queue.h"

static void command_free(weft_command *c) {
  if (c->done) c->done(c->arg);
  for (unsigned i = 0; i < c->num_wait; i++) weft_event_release(c->wait[i]);
  free(c->wait);
  if (c->deps != c->few_deps) free(c->deps);
  if (c->event) weft_event_release(c->event);
  free(c);
}

/* ------------------------------------------------------------- running */

void weft__command_execute(weft_command *c) {
  weft_queue *q = c->queue;
  /* Only a command that starts work on the device may run while work
   * of the queue is in flight there: the others find it done. */
  if (!c->settled) weft__queue_settle(q);
  int status = WEFT_EWAITLIST;
  if (!atomic_load(&c->failed)) {
    weft__event_set(c->event, WEFT_EVENT_RUNNING);
    atomic_fetch_add(&q->running, 1);
    status = c->run ? c->run(c->arg) : 0;
    int flies = status == WEFT_IN_FLIGHT && c->settled;
    if (flies) weft__queue_in_flight(q, c);
    atomic_fetch_sub(&q->running, 1);
    if (flies) return;
    if (status > 0) status = 0;
  }
  weft__command_finish(c, status);
}

void weft__command_finish(weft_command *c, int status) {
  /* What the command holds goes before its event completes: an object
   * released while the command ran is destroyed by the time a waiter sees
   * the event complete. */
  if (c->done) c->done(c->arg);
  c->done = NULL;
  weft_queue *q = c->queue;
  weft_event *e = c->event;
  weft__event_set(e, status ? status : WEFT_EVENT_COMPLETE);
  weft__queue_retire(q, e);
  command_free(c);
}

void weft__command_release_dependency(weft_command *c) {
  /* acq_rel: the last one to drop a prerequisite sees the others' writes
   * (a failure flag) before the command runs. */
  if (atomic_fetch_sub_explicit(&c->pending, 1, memory_order_acq_rel) != 1)
    return;
  weft_queue *q = c->queue;
  pthread_mutex_lock(&q->lock);
  if (q->ready_tail) q->ready_tail->next = c;
  else q->ready_head = c;
  q->ready_tail = c;
  weft__queue_schedule(q);
  pthread_mutex_unlock(&q->lock);
}

/* ----------------------------------------------------------- enqueueing */

/* The events that order c in q besides its wait list (q->lock held). */
static size_t implicit_deps(weft_queue *q, const weft_command *c,
                            weft_event **out, size_t max) {
  if (!(q->flags & WEFT_QUEUE_OUT_OF_ORDER)) {
    if (q->last && max) out[0] = q->last;
    return q->last ? 1 : 0;
  }
  /* Out of order: a barrier or marker without a wait list waits for every
   * command before it; other commands only for the last barrier. */
  if (!c->kind || c->num_wait) {
    if (q->barrier && max) out[0] = q->barrier;
    return q->barrier ? 1 : 0;
  }
  for (size_t i = 0; i < q->num_active && i < max; i++) out[i] = q->active[i];
  return q->num_active;
}

/* Records c's event as outstanding in q (q->lock held). */
static int track(weft_queue *q, const weft_command *c) {
  if (q->flags & WEFT_QUEUE_OUT_OF_ORDER) {
    if (q->num_active == q->cap_active) {
      size_t cap = q->cap_active ? 2 * q->cap_active : 16;
      weft_event **grown = realloc(q->active, cap * sizeof *grown);
      if (!grown) return -1;
      q->active = grown;
      q->cap_active = cap;
    }
    q->active[q->num_active++] = c->event;
    if (c->kind == WEFT_COMMAND_BARRIER) q->barrier = c->event;
  }
  q->last = c->event;
  q->outstanding++;
  return 0;
}

/* Registers c's prerequisites: the wait list, then what the queue's order
 * adds. c->pending starts at 1, a guard that keeps c from becoming ready
 * before every prerequisite is registered. */
static int register_deps(weft_queue *q, weft_command *c) {
  pthread_mutex_lock(&q->lock);
  size_t implicit = implicit_deps(q, c, NULL, 0);
  size_t total = c->num_wait + implicit;
  c->deps = total <= 2 ? c->few_deps : calloc(total, sizeof *c->deps);
  /* Most commands have one implicit prerequisite (the one before, in
   * order): no allocation for a few. */
  weft_event *few[8];
  weft_event **order = implicit <= 8 ? few : calloc(implicit, sizeof *order);
  if (c->deps && order) implicit_deps(q, c, order, implicit);
  /* Tracked after its own prerequisites are taken: c must not wait for
   * itself. */
  if (!c->deps || !order || track(q, c)) {
    pthread_mutex_unlock(&q->lock);
    if (order != few) free(order);
    return WEFT_ENOMEM;
  }
  atomic_init(&c->pending, 1);
  for (size_t i = 0; i < total; i++) {
    weft_dependency *d = &c->deps[c->num_deps];
    d->command = c;
    d->from_wait_list = i < c->num_wait;
    weft_event *e = i < c->num_wait ? c->wait[i] : order[i - c->num_wait];
    atomic_fetch_add(&c->pending, 1);
    if (weft__event_add_dependent(e, d)) c->num_deps++;
    else atomic_fetch_sub(&c->pending, 1);
  }
  pthread_mutex_unlock(&q->lock);
  if (order != few) free(order);
  return 0;
}

/* Whether the wait list is events of q's context. */
static int wait_list_valid(const weft_queue *q, unsigned n,
                           weft_event *const *wait) {
  if (n && !wait) return 0;
  for (unsigned i = 0; i < n; i++)
    if (!weft__event_is(wait[i]) || wait[i]->context != q->context)
      return 0;
  return 1;
}

/* weft_enqueue and weft_enqueue_settled. */
static int enqueue(weft_queue *q, weft_command_fn run, weft_settle_fn settled,
                   void (*done)(void *), void *arg, unsigned kind,
                   unsigned num_wait, weft_event *const *wait,
                   weft_event **event) {
  if (event) *event = NULL;
  weft_command *c = calloc(1, sizeof *c);
  if (!c) {
    if (done) done(arg);
    return WEFT_ENOMEM;
  }
  c->run = run;
  c->settled = settled;
  c->done = done;
  c->arg = arg;
  c->kind = kind;
  int rc = 0;
  if (!weft__queue_is(q) || kind > WEFT_COMMAND_MARKER ||
      !wait_list_valid(q, num_wait, wait))
    rc = WEFT_EINVAL;
  c->queue = q;
  if (!rc && weft__queue_threads_ready()) rc = WEFT_ESYS;
  if (!rc && num_wait && !(c->wait = malloc(num_wait * sizeof *c->wait)))
    rc = WEFT_ENOMEM;
  if (!rc && !(c->event = weft__event_new(q->context, q))) rc = WEFT_ENOMEM;
  for (unsigned i = 0; !rc && i < num_wait; i++) {
    weft_event_retain(wait[i]);
    c->wait[c->num_wait++] = wait[i];
  }
  if (!rc) rc = register_deps(q, c);
  if (rc) {
    command_free(c);
    return rc;
  }
  if (event) {
    weft_event_retain(c->event);
    *event = c->event;
  }
  /* Commands are submitted as soon as they are queued. */
  weft__event_set(c->event, WEFT_EVENT_SUBMITTED);
  weft__command_release_dependency(c); /* the guard */
  return 0;
}

int weft_enqueue(weft_queue *q, weft_command_fn run, void (*done)(void *),
                 void *arg, unsigned kind, unsigned num_wait,
                 weft_event *const *wait, weft_event **event) {
  return enqueue(q, run, NULL, done, arg, kind, num_wait, wait, event);
}

int weft_enqueue_settled(weft_queue *q, weft_command_fn run,
                         weft_settle_fn settled, void (*done)(void *),
                         void *arg, unsigned num_wait, weft_event *const *wait,
                         weft_event **event) {
  if (!settled) {
    if (done) done(arg);
    return WEFT_EINVAL;
  }
  return enqueue(q, run, settled, done, arg, 0, num_wait, wait, event);
}
