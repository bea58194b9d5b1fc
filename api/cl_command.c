/* cl_command.c: how commands wait for their prerequisites, become ready and
 * run, on a shared queue thread or on a host thread that waits for them
 * (see cl_queue.h). */
#include <stdio.h>
#include <stdlib.h>

#include "api/cl_queue.h"

cl_command *weft__cl_command_new(size_t payload) {
  return calloc(1, sizeof(cl_command) + payload);
}

static void command_free(cl_command *c) {
  if (c->finish) c->finish(c);
  for (cl_uint i = 0; i < c->num_wait; i++) weft__cl_event_release(c->wait[i]);
  free(c->wait);
  free(c->deps);
  if (c->event) weft__cl_event_release(c->event);
  free(c);
}

cl_int weft__cl_check_wait_list(cl_context context, cl_uint n,
                                const cl_event *list) {
  if ((n && !list) || (!n && list)) return CL_INVALID_EVENT_WAIT_LIST;
  for (cl_uint i = 0; i < n; i++) {
    if (!weft__cl_is(list[i], CL_KIND_EVENT)) return CL_INVALID_EVENT_WAIT_LIST;
    if (list[i]->context != context) return CL_INVALID_CONTEXT;
  }
  return CL_SUCCESS;
}

/* ------------------------------------------------------------- running */

void weft__cl_command_execute(cl_command *c) {
  cl_int status = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  if (!atomic_load(&c->failed)) {
    weft__cl_event_set(c->event, CL_RUNNING);
    status = c->run ? c->run(c) : CL_SUCCESS;
  }
  /* What the command holds goes before its event completes: a memory
   * object released while the command ran is destroyed (its destructor
   * callbacks called) by the time a waiter sees the event complete. */
  if (c->finish) c->finish(c);
  c->finish = NULL;
  cl_command_queue q = c->queue;
  cl_event e = c->event;
  weft__cl_event_set(e, status == CL_SUCCESS ? CL_COMPLETE : status);
  weft__cl_queue_retire(q, e);
  command_free(c);
}

cl_command *weft__cl_queue_take_ready(cl_command_queue q) {
  cl_command *c = q->ready_head;
  if (c) {
    q->ready_head = c->next;
    if (!q->ready_head) q->ready_tail = NULL;
  }
  return c;
}

void weft__cl_command_release_dependency(cl_command *c) {
  /* acq_rel: the last one to drop a prerequisite sees the others' writes
   * (a failure flag) before the command runs. */
  if (atomic_fetch_sub_explicit(&c->pending, 1, memory_order_acq_rel) != 1)
    return;
  cl_command_queue q = c->queue;
  pthread_mutex_lock(&q->lock);
  if (q->ready_tail) q->ready_tail->next = c;
  else q->ready_head = c;
  q->ready_tail = c;
  weft__cl_queue_schedule(q);
  pthread_mutex_unlock(&q->lock);
}

void weft__cl_queue_help(cl_command_queue q, cl_event e) {
  for (;;) {
    if (e && weft__cl_event_done(e)) return;
    pthread_mutex_lock(&q->lock);
    cl_command *c = weft__cl_queue_take_ready(q);
    pthread_mutex_unlock(&q->lock);
    if (!c) return;
    weft__cl_command_execute(c);
  }
}

/* ----------------------------------------------------------- enqueueing */

/* The events that order c in q besides its wait list (q->lock held). */
static size_t implicit_deps(cl_command_queue q, cl_command_type type,
                            cl_uint num_wait, cl_event *out, size_t max) {
  if (!(q->properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
    if (q->last && max) out[0] = q->last;
    return q->last ? 1 : 0;
  }
  /* Out of order: a barrier or marker without a wait list waits for every
   * command before it; other commands only for the last barrier. */
  int all = (type == CL_COMMAND_BARRIER || type == CL_COMMAND_MARKER) &&
            num_wait == 0;
  if (!all) {
    if (q->barrier && max) out[0] = q->barrier;
    return q->barrier ? 1 : 0;
  }
  for (size_t i = 0; i < q->num_active && i < max; i++) out[i] = q->active[i];
  return q->num_active;
}

/* Records c's event as outstanding in q (q->lock held). */
static int track(cl_command_queue q, cl_command_type type, cl_event e) {
  if (q->properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
    if (q->num_active == q->cap_active) {
      size_t cap = q->cap_active ? 2 * q->cap_active : 16;
      cl_event *grown = realloc(q->active, cap * sizeof *grown);
      if (!grown) return -1;
      q->active = grown;
      q->cap_active = cap;
    }
    q->active[q->num_active++] = e;
    if (type == CL_COMMAND_BARRIER) q->barrier = e;
  }
  q->last = e;
  q->outstanding++;
  return 0;
}

/* Registers c's prerequisites: the wait list, then what the queue's order
 * adds. c->pending starts at 1, a guard that keeps c from becoming ready
 * before every prerequisite is registered. */
static cl_int register_deps(cl_command_queue q, cl_command_type type,
                            cl_command *c) {
  pthread_mutex_lock(&q->lock);
  size_t implicit = implicit_deps(q, type, c->num_wait, NULL, 0);
  size_t total = c->num_wait + implicit;
  c->deps = calloc(total ? total : 1, sizeof *c->deps);
  /* Most commands have one implicit prerequisite (the one before, in
   * order): no allocation for a few. */
  cl_event few[8];
  cl_event *order = implicit <= 8 ? few : malloc(implicit * sizeof *order);
  if (c->deps && order) implicit_deps(q, type, c->num_wait, order, implicit);
  /* Tracked after its own prerequisites are taken: c must not wait for
   * itself. */
  if (!c->deps || !order || track(q, type, c->event)) {
    pthread_mutex_unlock(&q->lock);
    if (order != few) free(order);
    return CL_OUT_OF_HOST_MEMORY;
  }
  atomic_init(&c->pending, 1);
  for (size_t i = 0; i < total; i++) {
    cl_dependency *d = &c->deps[c->num_deps];
    d->command = c;
    d->from_wait_list = i < c->num_wait;
    cl_event e = i < c->num_wait ? c->wait[i] : order[i - c->num_wait];
    atomic_fetch_add(&c->pending, 1);
    if (weft__cl_event_add_dependent(e, d)) c->num_deps++;
    else atomic_fetch_sub(&c->pending, 1);
  }
  pthread_mutex_unlock(&q->lock);
  if (order != few) free(order);
  return CL_SUCCESS;
}

cl_int weft__cl_enqueue(cl_command_queue q, cl_command_type type,
                        cl_uint num_wait, const cl_event *wait,
                        cl_event *event_out, cl_command *c) {
  c->queue = q;
  cl_int rc = weft__cl_check_wait_list(q->context, num_wait, wait);
  if (!rc && weft__cl_queue_threads_ready()) rc = CL_OUT_OF_RESOURCES;
  if (!rc && num_wait && !(c->wait = malloc(num_wait * sizeof *c->wait)))
    rc = CL_OUT_OF_HOST_MEMORY;
  if (!rc && !(c->event = weft__cl_event_new(q->context, q, type)))
    rc = CL_OUT_OF_HOST_MEMORY;
  for (cl_uint i = 0; !rc && i < num_wait; i++) {
    weft__cl_retain(wait[i]);
    c->wait[c->num_wait++] = wait[i];
  }
  if (!rc) rc = register_deps(q, type, c);
  if (rc) {
    command_free(c);
    return rc;
  }
  if (event_out) {
    weft__cl_retain(c->event);
    *event_out = c->event;
  }
  /* Commands are submitted as soon as they are queued: clFlush has
   * nothing left to do. */
  weft__cl_event_set(c->event, CL_SUBMITTED);
  weft__cl_command_release_dependency(c); /* the guard */
  return CL_SUCCESS;
}

cl_int weft__cl_enqueue_maybe_blocking(cl_command_queue q, cl_command_type type,
                                       cl_bool blocking, cl_uint num_wait,
                                       const cl_event *wait,
                                       cl_event *event_out, cl_command *c) {
  cl_event e = NULL;
  cl_int rc = weft__cl_enqueue(q, type, num_wait, wait,
                               blocking || event_out ? &e : NULL, c);
  if (rc) return rc;
  if (blocking && weft__cl_event_wait(e) < 0)
    rc = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  if (event_out) *event_out = e;
  else if (e) weft__cl_event_release(e);
  return rc;
}
