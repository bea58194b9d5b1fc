/* cl_event.c: OpenCL's events over the native ones (cl_queue.h): status,
 * waiting, callbacks, profiling, user events. */
#include <stdlib.h>

#include "api/cl_queue.h"

cl_event weft__cl_event_wrap(cl_context context, cl_command_queue queue,
                             cl_command_type type, weft_event *native) {
  cl_event e = weft__cl_alloc(sizeof *e);
  if (!e) {
    weft_event_release(native);
    return NULL;
  }
  weft__cl_init(e, CL_KIND_EVENT);
  e->context = context;
  e->queue = queue;
  e->type = type;
  e->native = native;
  clRetainContext(context);
  if (queue) clRetainCommandQueue(queue);
  return e;
}

void weft__cl_event_release(cl_event e) {
  if (!weft__cl_release(e)) return;
  cl_command_queue q = e->queue;
  cl_context c = e->context;
  weft_event_release(e->native);
  weft__cl_free(e, sizeof *e);
  if (q) clReleaseCommandQueue(q);
  clReleaseContext(c);
}

cl_int weft__cl_event_status(int native) {
  /* The statuses are OpenCL's numbers (CL_QUEUED 3 ... CL_COMPLETE 0),
   * and a command's failure is the status its run gave, an OpenCL one,
   * but for the native queue's own. */
  return native == WEFT_EWAITLIST ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
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
    status = weft__cl_event_status(weft_event_status(e->native));
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

/* An application's callback, which holds its event until it is called. */
typedef struct event_callback {
  cl_event event;
  void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
  void *user_data;
} event_callback;

static void call(weft_event *native, int status, void *arg) {
  (void)native;
  event_callback *cb = arg;
  cb->fn(cb->event, weft__cl_event_status(status), cb->user_data);
  weft__cl_event_release(cb->event);
  free(cb);
}

CL_API_ENTRY cl_int CL_API_CALL clSetEventCallback(
    cl_event e, cl_int type,
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *user_data) {
  if (!weft__cl_is(e, CL_KIND_EVENT)) return CL_INVALID_EVENT;
  if (!fn || (type != CL_SUBMITTED && type != CL_RUNNING && type != CL_COMPLETE))
    return CL_INVALID_VALUE;
  event_callback *cb = calloc(1, sizeof *cb);
  if (!cb) return CL_OUT_OF_HOST_MEMORY;
  weft__cl_retain(e);
  *cb = (event_callback){e, fn, user_data};
  if (weft_event_on(e->native, type, call, cb)) {
    weft__cl_event_release(e);
    free(cb);
    return CL_OUT_OF_HOST_MEMORY;
  }
  return CL_SUCCESS;
}

CL_API_ENTRY cl_event CL_API_CALL clCreateUserEvent(cl_context c,
                                                    cl_int *errcode) {
  cl_event e = NULL;
  weft_event *native = NULL;
  cl_int rc = CL_SUCCESS;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else if (weft_user_event_create(c->native, &native) ||
           !(e = weft__cl_event_wrap(c, NULL, CL_COMMAND_USER, native)))
    rc = CL_OUT_OF_HOST_MEMORY;
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
