/* cl_event.c: events: status, waiting, callbacks, profiling, user events. */
#include <stdlib.h>

#include "api/cl_queue.h"

cl_event weft__cl_event_new(cl_context context, cl_command_queue queue,
                            cl_command_type type) {
  cl_event e = weft__cl_alloc(sizeof *e);
  if (!e) return NULL;
  weft__cl_init(e, CL_KIND_EVENT);
  pthread_mutex_init(&e->lock, NULL);
  pthread_cond_init(&e->changed, NULL);
  e->context = context;
  e->queue = queue;
  e->type = type;
  e->status = queue ? CL_QUEUED : CL_SUBMITTED;
  e->times[0] = weft__cl_now();
  clRetainContext(context);
  if (queue) clRetainCommandQueue(queue);
  return e;
}

void weft__cl_event_release(cl_event e) {
  if (!weft__cl_release(e)) return;
  for (cl_callback *cb = e->callbacks, *next; cb; cb = next) {
    next = cb->next;
    free(cb);
  }
  cl_command_queue q = e->queue;
  cl_context c = e->context;
  pthread_cond_destroy(&e->changed);
  pthread_mutex_destroy(&e->lock);
  weft__cl_free(e, sizeof *e);
  if (q) clReleaseCommandQueue(q);
  clReleaseContext(c);
}

/* A callback for status s fires once the event reaches s or anything after
 * it (statuses count down: CL_QUEUED 3 ... CL_COMPLETE 0, errors < 0). */
static int fires(const cl_callback *cb, cl_int status) {
  return status <= cb->status;
}

static void call(cl_event e, cl_callback *cb, cl_int status) {
  ((void(CL_CALLBACK *)(cl_event, cl_int, void *))cb->fn)(e, status,
                                                          cb->user_data);
}

int weft__cl_event_done(cl_event e) {
  pthread_mutex_lock(&e->lock);
  int done = e->status <= CL_COMPLETE;
  pthread_mutex_unlock(&e->lock);
  return done;
}

int weft__cl_event_add_dependent(cl_event e, cl_dependency *d) {
  pthread_mutex_lock(&e->lock);
  int waits = e->status > CL_COMPLETE;
  if (waits) {
    d->next = e->dependents;
    e->dependents = d;
  } else if (e->status < 0 && d->from_wait_list) {
    atomic_store(&d->command->failed, 1);
  }
  pthread_mutex_unlock(&e->lock);
  return waits;
}

/* Unlinks the callbacks that fire at status (the caller holds e->lock). */
static cl_callback *take_due_callbacks(cl_event e, cl_int status) {
  cl_callback *due = NULL;
  cl_callback **link = &e->callbacks;
  while (*link) {
    cl_callback *cb = *link;
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

int weft__cl_event_set(cl_event e, cl_int status) {
  cl_ulong now = weft__cl_now();
  cl_dependency *released = NULL;
  pthread_mutex_lock(&e->lock);
  if (e->status <= CL_COMPLETE) {
    pthread_mutex_unlock(&e->lock);
    return 0; /* finished events stay as they are */
  }
  e->status = status;
  if (status <= CL_SUBMITTED && !e->times[1]) e->times[1] = now;
  if (status <= CL_RUNNING && !e->times[2]) e->times[2] = now;
  if (status <= CL_COMPLETE) {
    e->times[3] = now;
    released = e->dependents;
    e->dependents = NULL;
  }
  cl_callback *due = take_due_callbacks(e, status);
  pthread_cond_broadcast(&e->changed);
  pthread_mutex_unlock(&e->lock);
  /* Commands first, so that work waiting for e is on its way before the
   * application's callbacks run. */
  while (released) {
    cl_dependency *next = released->next;
    if (status < 0 && released->from_wait_list)
      atomic_store(&released->command->failed, 1);
    weft__cl_command_release_dependency(released->command);
    released = next;
  }
  while (due) {
    cl_callback *next = due->next;
    /* CL_COMPLETE callbacks get the error when the event failed. */
    call(e, due, status < 0 ? status : due->status);
    free(due);
    due = next;
  }
  return 1;
}

cl_int weft__cl_event_wait(cl_event e) {
  if (e->queue) weft__cl_queue_help(e->queue, e);
  pthread_mutex_lock(&e->lock);
  while (e->status > CL_COMPLETE) pthread_cond_wait(&e->changed, &e->lock);
  cl_int status = e->status;
  pthread_mutex_unlock(&e->lock);
  return status;
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint n, const cl_event *list) {
  if (!n || !list) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; i++) {
    if (!weft__cl_is(list[i], CL_KIND_EVENT)) return CL_INVALID_EVENT;
    if (list[i]->context != list[0]->context) return CL_INVALID_CONTEXT;
  }
  cl_int rc = CL_SUCCESS;
  for (cl_uint i = 0; i < n; i++)
    if (weft__cl_event_wait(list[i]) < 0)
      rc = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainEvent(cl_event e) {
  if (!weft__cl_is(e, CL_KIND_EVENT)) return CL_INVALID_EVENT;
  weft__cl_retain(e);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseEvent(cl_event e) {
  if (!weft__cl_is(e, CL_KIND_EVENT)) return CL_INVALID_EVENT;
  weft__cl_event_release(e);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventInfo(cl_event e, cl_event_info param,
                                               size_t size, void *value,
                                               size_t *size_ret) {
  if (!weft__cl_is(e, CL_KIND_EVENT)) return CL_INVALID_EVENT;
  cl_int status;
  cl_uint refs;
  switch (param) {
  case CL_EVENT_COMMAND_QUEUE:
    return weft__cl_info(&e->queue, sizeof e->queue, size, value, size_ret);
  case CL_EVENT_CONTEXT:
    return weft__cl_info(&e->context, sizeof e->context, size, value, size_ret);
  case CL_EVENT_COMMAND_TYPE:
    return weft__cl_info(&e->type, sizeof e->type, size, value, size_ret);
  case CL_EVENT_COMMAND_EXECUTION_STATUS:
    pthread_mutex_lock(&e->lock);
    status = e->status;
    pthread_mutex_unlock(&e->lock);
    return weft__cl_info(&status, sizeof status, size, value, size_ret);
  case CL_EVENT_REFERENCE_COUNT:
    refs = (cl_uint)atomic_load(&e->h.refs);
    return weft__cl_info(&refs, sizeof refs, size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}

CL_API_ENTRY cl_int CL_API_CALL clGetEventProfilingInfo(cl_event e,
                                                        cl_profiling_info param,
                                                        size_t size, void *value,
                                                        size_t *size_ret) {
  if (!weft__cl_is(e, CL_KIND_EVENT)) return CL_INVALID_EVENT;
  if (!e->queue || !(e->queue->properties & CL_QUEUE_PROFILING_ENABLE))
    return CL_PROFILING_INFO_NOT_AVAILABLE;
  pthread_mutex_lock(&e->lock);
  cl_int status = e->status;
  cl_ulong times[4] = {e->times[0], e->times[1], e->times[2], e->times[3]};
  pthread_mutex_unlock(&e->lock);
  if (status != CL_COMPLETE) return CL_PROFILING_INFO_NOT_AVAILABLE;
  cl_ulong t;
  switch (param) {
  case CL_PROFILING_COMMAND_QUEUED: t = times[0]; break;
  case CL_PROFILING_COMMAND_SUBMIT: t = times[1]; break;
  case CL_PROFILING_COMMAND_START: t = times[2]; break;
  case CL_PROFILING_COMMAND_END:
  case CL_PROFILING_COMMAND_COMPLETE: t = times[3]; break;
  default: return CL_INVALID_VALUE;
  }
  return weft__cl_info(&t, sizeof t, size, value, size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clSetEventCallback(
    cl_event e, cl_int type,
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user_data) {
  if (!weft__cl_is(e, CL_KIND_EVENT)) return CL_INVALID_EVENT;
  if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  cl_callback *cb = calloc(1, sizeof *cb);
  if (!cb) return CL_OUT_OF_HOST_MEMORY;
  cb->fn = (void (*)(void))fn;
  cb->user_data = user_data;
  cb->status = type;
  pthread_mutex_lock(&e->lock);
  cl_int status = e->status;
  int now = fires(cb, status);
  if (!now) {
    cb->next = e->callbacks;
    e->callbacks = cb;
  }
  pthread_mutex_unlock(&e->lock);
  if (now) {
    /* Already there: call it at once, from this thread. */
    call(e, cb, status < 0 ? status : type);
    free(cb);
  }
  return CL_SUCCESS;
}

CL_API_ENTRY cl_event CL_API_CALL clCreateUserEvent(cl_context c,
                                                    cl_int *errcode) {
  cl_event e = NULL;
  cl_int rc = CL_SUCCESS;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else if (!(e = weft__cl_event_new(c, NULL, CL_COMMAND_USER)))
    rc = CL_OUT_OF_HOST_MEMORY;
  if (errcode) *errcode = rc;
  return e;
}

CL_API_ENTRY cl_int CL_API_CALL clSetUserEventStatus(cl_event e, cl_int status) {
  if (!weft__cl_is(e, CL_KIND_EVENT) || e->type != CL_COMMAND_USER)
    return CL_INVALID_EVENT;
  if (status > CL_COMPLETE) return CL_INVALID_VALUE;
  /* The status of a user event is set once. */
  return weft__cl_event_set(e, status) ? CL_SUCCESS : CL_INVALID_OPERATION;
}
