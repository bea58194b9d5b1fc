/* event.c: events: status, waiting, callbacks, times, user events (see
 * queue.h). */
#include <assert.h>
#include <stdlib.h>
#include <time.h>

#include "core/queue.h"

uint64_t weft__queue_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int weft__event_is(const weft_event *e) {
  return e && e->kind == WEFT__KIND_EVENT;
}

weft_event *weft__event_new(weft_context *context, weft_queue *queue) {
  weft_event *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->kind = WEFT__KIND_EVENT;
  atomic_init(&e->refs, 1);
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->changed, NULL);
  e->context = context;
  e->queue = queue;
  e->status = queue ? WEFT_EVENT_QUEUED : WEFT_EVENT_SUBMITTED;
  e->times[0] = weft__queue_now();
  weft_context_retain(context);
  if (queue) weft_queue_retain(queue);
  return e;
}

void weft_event_retain(weft_event *e) {
  if (weft__event_is(e))
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
}

void weft_event_release(weft_event *e) {
  if (!weft__event_is(e) || atomic_fetch_sub(&e->refs, 1) != 1) return;
  for (weft_event_callback *cb = e->callbacks, *next; cb; cb = next) {
    next = cb->next;
    free(cb);
  }
  weft_queue *q = e->queue;
  weft_context *c = e->context;
  pthread_cond_destroy(&e->changed);
  pthread_mutex_destroy(&e->lock);
  e->kind = 0;
  free(e);
  if (q) weft_queue_release(q);
  weft_context_release(c);
}

/* A callback for status s fires once the event reaches s or anything after
 * it (statuses count down: queued 3 ... complete 0, failures < 0). */
static int fires(const weft_event_callback *cb, int status) {
  return status <= cb->status;
}

int weft__event_done(weft_event *e) {
  pthread_mutex_lock(&e->lock);
  int done = e->status <= WEFT_EVENT_COMPLETE;
  pthread_mutex_unlock(&e->lock);
  return done;
}

/* Whether d's command is one the device orders after e's, e's work
 * being in flight (e->lock held): it starts work on the device of e's
 * queue, from that queue, which settles both and ends e's first. (A
 * wait list's event counts too, as the device orders the work alike:
 * CLBlast's second kernel of a reduction names the first's event. Should
 * that work fail, the device's failure is sticky, so the command fails
 * with it rather than with WEFT_EWAITLIST.) */
static int ordered_by_device(const weft_event *e, const weft_dependency *d) {
  return e->in_flight && d->command->settled && d->command->queue == e->queue;
}

int weft__event_add_dependent(weft_event *e, weft_dependency *d) {
  pthread_mutex_lock(&e->lock);
  int waits = e->status > WEFT_EVENT_COMPLETE && !ordered_by_device(e, d);
  if (waits) {
    d->next = e->dependents;
    e->dependents = d;
  } else if (e->status < 0 && d->from_wait_list) {
    atomic_store(&d->command->failed, 1);
  }
  pthread_mutex_unlock(&e->lock);
  return waits;
}

/* Unlinks the callbacks that fire at status (e->lock held). */
static weft_event_callback *take_due_callbacks(weft_event *e, int status) {
  weft_event_callback *due = NULL;
  weft_event_callback **link = &e->callbacks;
  while (*link) {
    weft_event_callback *cb = *link;
    if (fires(cb, status)) {
      *link = cb->next;
      cb->next = due;
      due = cb;
    } else {
      link = &cb->next;
    }
  }
  return due;
}

int weft__event_set(weft_event *e, int status) {
  uint64_t now = weft__queue_now();
  weft_dependency *released = NULL;
  pthread_mutex_lock(&e->lock);
  if (e->status <= WEFT_EVENT_COMPLETE) {
    pthread_mutex_unlock(&e->lock);
    return 0; /* finished events stay as they are */
  }
  e->status = status;
  if (status <= WEFT_EVENT_SUBMITTED && !e->times[1]) e->times[1] = now;
  if (status <= WEFT_EVENT_RUNNING && !e->times[2]) e->times[2] = now;
  if (status <= WEFT_EVENT_COMPLETE) {
    e->times[3] = now;
    released = e->dependents;
    e->dependents = NULL;
  }
  weft_event_callback *due = take_due_callbacks(e, status);
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
  /* Commands first, so that work waiting for e is on its way before the
   * callbacks run. */
  while (released) {
    weft_dependency *next = released->next;
    if (status < 0 && released->from_wait_list)
      atomic_store(&released->command->failed, 1);
    weft__command_release_dependency(released->command);
    released = next;
  }
  while (due) {
    weft_event_callback *next = due->next;
    /* Complete's callbacks get the failure when the event failed. */
    due->fn(e, status < 0 ? status : due->status, due->arg);
    free(due);
    due = next;
  }
  return 1;
}

void weft__event_in_flight(weft_event *e) {
  weft_dependency *released = NULL;
  pthread_mutex_lock(&e->lock);
  assert(e->status == WEFT_EVENT_RUNNING);
  e->in_flight = 1;
  weft_dependency **link = &e->dependents;
  while (*link) {
    weft_dependency *d = *link;
    if (ordered_by_device(e, d)) {
      *link = d->next;
      d->next = released;
      released = d;
    } else {
      link = &d->next;
    }
  }
  pthread_mutex_unlock(&e->lock);
  while (released) {
    weft_dependency *next = released->next;
    weft__command_release_dependency(released->command);
    released = next;
  }
}

int weft_event_status(weft_event *e) {
  if (!weft__event_is(e)) return WEFT_EINVAL;
  pthread_mutex_lock(&e->lock);
  int status = e->status;
  pthread_mutex_unlock(&e->lock);
  return status;
}

int weft_event_wait(weft_event *e) {
  if (!weft__event_is(e)) return WEFT_EINVAL;
  if (e->queue) weft__queue_help(e->queue, e);
  pthread_mutex_lock(&e->lock);
  while (e->status > WEFT_EVENT_COMPLETE)
    pthread_cond_wait(&e->changed, &e->lock);
  int status = e->status;
  pthread_mutex_unlock(&e->lock);
  return status;
}

int weft_event_times(weft_event *e, uint64_t times[4]) {
  if (!weft__event_is(e) || !times) return WEFT_EINVAL;
  pthread_mutex_lock(&e->lock);
  for (int i = 0; i < 4; i++) times[i] = e->times[i];
  pthread_mutex_unlock(&e->lock);
  return 0;
}

weft_queue *weft_event_queue(weft_event *e) {
  return weft__event_is(e) ? e->queue : NULL;
}

int weft_event_on(weft_event *e, int status, weft_event_fn fn, void *arg) {
  if (!weft__event_is(e) || !fn ||
      (status != WEFT_EVENT_SUBMITTED && status != WEFT_EVENT_RUNNING &&
       status != WEFT_EVENT_COMPLETE))
    return WEFT_EINVAL;
  weft_event_callback *cb = calloc(1, sizeof *cb);
  if (!cb) return WEFT_ENOMEM;
  cb->fn = fn;
  cb->arg = arg;
  cb->status = status;
  pthread_mutex_lock(&e->lock);
  int now_status = e->status;
  int now = fires(cb, now_status);
  if (!now) {
    cb->next = e->callbacks;
    e->callbacks = cb;
  }
  pthread_mutex_unlock(&e->lock);
  if (now) {
    /* Already there: called at once, from this thread. */
    fn(e, now_status < 0 ? now_status : status, arg);
    free(cb);
  }
  return 0;
}

int weft_user_event_create(weft_context *context, weft_event **out) {
  if (!out) return WEFT_EINVAL;
  *out = NULL;
  if (!weft_context_device(context)) return WEFT_EINVAL;
  return (*out = weft__event_new(context, NULL)) ? 0 : WEFT_ENOMEM;
}

int weft_user_event_set(weft_event *e, int status) {
  if (!weft__event_is(e) || e->queue || status > WEFT_EVENT_COMPLETE)
    return WEFT_EINVAL;
  /* A user event's status is set once. */
  return weft__event_set(e, status);
}
