/* cl_event.c: OpenCL's events over the native ones (cl_queue.h): status,
 * waiting, callbacks, profiling, user events. */
#include <stdlib.h>

#include "api/cl_queue.h"

/* An application's callback. A command's event always ends, so its
 * callbacks hold the event until they are called; a user event's stay on
 * its list, freed with it, since one never set never calls them. */
typedef struct event_callback {
  struct event_callback *next;
  cl_event event;
  void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
  void *user_data;
} event_callback;

cl_event weft__cl_event_new(cl_context context, cl_command_queue queue,
                            cl_command_type type) {
  cl_event e = weft__cl_alloc(sizeof *e);
  if (!e) return NULL;
  weft__cl_init(e, CL_KIND_EVENT);
  pthread_mutex_init(&e->lock, NULL);
  e->context = context;
  e->queue = queue;
  e->type = type;
  clRetainContext(context);
  if (queue) clRetainCommandQueue(queue);
  return e;
}

void weft__cl_event_release(cl_event e) {
  if (!weft__cl_release(e)) return;
  cl_command_queue q = e->queue;
  cl_context c = e->context;
  weft_event_release(e->native);
  for (event_callback *cb = e->callbacks, *next; cb; cb = next) {
    next = cb->next;
    free(cb);
  }
  pthread_mutex_destroy(&e->lock);
  weft__cl_free(e, sizeof *e);
  if (q) clReleaseCommandQueue(q);
  clReleaseContext(c);
}

/* e's native status as OpenCL says it. The numbers are OpenCL's (CL_QUEUED
 * 3 ... CL_COMPLETE 0), and a command's failure is the status its run
 * gave, an OpenCL one, but for the native queue's own (a user event's
 * status is the application's, whatever it is). */
static cl_int status_of(cl_event e, int native) {
  return e->queue && native == WEFT_EWAITLIST ? weft__cl_error(native)
                                              : (cl_int)native;
}

CL_API_ENTRY cl_int CL_API_CALL clWaitForEvents(cl_uint n, const cl_event *list) {
  if (!n || !list) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; i++) {
    if (!weft__cl_is(list[i], CL_KIND_EVENT)) return CL_INVALID_EVENT;
    if (list[i]->context != list[0]->context) return CL_INVALID_CONTEXT;
  }
  cl_int rc = CL_SUCCESS;
  for (cl_uint i = 0; i < n; i++)
    if (weft_event_wait(list[i]->native) < 0)
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
    status = status_of(e, weft_event_status(e->native));
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
  uint64_t times[4];
  if (weft_event_status(e->native) != WEFT_EVENT_COMPLETE ||
      weft_event_times(e->native, times))
    return CL_PROFILING_INFO_NOT_AVAILABLE;
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

static void call(weft_event *native, int status, void *arg) {
  (void)native;
  event_callback *cb = arg;
  cl_event e = cb->event;
  cb->fn(e, status_of(e, status), cb->user_data);
  if (!e->queue) return; /* on the user event's list */
  free(cb);
  weft__cl_event_release(e);
}

CL_API_ENTRY cl_int CL_API_CALL clSetEventCallback(
    cl_event e, cl_int type,
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user_data) {
  if (!weft__cl_is(e, CL_KIND_EVENT)) return CL_INVALID_EVENT;
  if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  event_callback *cb = calloc(1, sizeof *cb);
  if (!cb) return CL_OUT_OF_HOST_MEMORY;
  *cb = (event_callback){NULL, e, fn, user_data};
  if (e->queue) {
    weft__cl_retain(e);
  } else {
    pthread_mutex_lock(&e->lock);
    cb->next = e->callbacks;
    e->callbacks = cb;
    pthread_mutex_unlock(&e->lock);
  }
  if (!weft_event_on(e->native, type, call, cb)) return CL_SUCCESS;
  /* Out of memory: nothing was registered. */
  if (e->queue) {
    free(cb);
    weft__cl_event_release(e);
  }
  return CL_OUT_OF_HOST_MEMORY;
}

CL_API_ENTRY cl_event CL_API_CALL clCreateUserEvent(cl_context c,
                                                    cl_int *errcode) {
  cl_event e = NULL;
  weft_event *native = NULL;
  cl_int rc = CL_SUCCESS;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else if (!(e = weft__cl_event_new(c, NULL, CL_COMMAND_USER)) ||
           weft_user_event_create(c->native, &native)) {
    if (e) weft__cl_event_release(e);
    e = NULL;
    rc = CL_OUT_OF_HOST_MEMORY;
  } else {
    e->native = native;
  }
  if (errcode) *errcode = rc;
  return e;
}

CL_API_ENTRY cl_int CL_API_CALL clSetUserEventStatus(cl_event e, cl_int status) {
  if (!weft__cl_is(e, CL_KIND_EVENT) || e->type != CL_COMMAND_USER)
    return CL_INVALID_EVENT;
  if (status > CL_COMPLETE) return CL_INVALID_VALUE;
  /* The status of a user event is set once. */
  return weft_user_event_set(e->native, status) == 1 ? CL_SUCCESS
                                                     : CL_INVALID_OPERATION;
}
