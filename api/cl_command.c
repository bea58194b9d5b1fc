/* cl_command.c: OpenCL's commands handed to the native queue, which runs
 * them once their wait lists and their queues' order allow (cl_queue.h). */
#include <stdlib.h>

#include "api/cl_queue.h"

cl_command *weft__cl_command_new(size_t payload) {
  return calloc(1, sizeof(cl_command) + payload);
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

/* The native queue's side of a command: run it (and, if it left its work
 * in flight, end it once the device settles), then free it (what its
 * payload holds goes before its event completes). */
static int run(void *arg) {
  cl_command *c = arg;
  return c->run ? c->run(c) : CL_SUCCESS;
}

static int settled(void *arg, int status, const char *msg) {
  cl_command *c = arg;
  return c->settled(c, status, msg);
}

static void done(void *arg) {
  cl_command *c = arg;
  if (c->finish) c->finish(c);
  if (c->queue) clReleaseCommandQueue(c->queue);
  free(c);
}

/* How a command of type orders an out-of-order queue. */
static unsigned kind_of(cl_command_type type) {
  return type == CL_COMMAND_BARRIER  ? WEFT_COMMAND_BARRIER
         : type == CL_COMMAND_MARKER ? WEFT_COMMAND_MARKER
                                     : 0;
}

/* Submits c to q; *native (if not NULL) gets its native event. */
static cl_int submit(cl_command_queue q, cl_command_type type,
                     cl_uint num_wait, const cl_event *wait, cl_command *c,
                     weft_event **native) {
  cl_int rc = weft__cl_check_wait_list(q->context, num_wait, wait);
  /* Most wait lists are short: no allocation for a few. */
  weft_event *few[8], **natives = num_wait <= 8 ? few : NULL;
  if (!rc && !natives && !(natives = malloc(num_wait * sizeof *natives)))
    rc = CL_OUT_OF_HOST_MEMORY;
  if (rc) {
    done(c);
    return rc;
  }
  for (cl_uint i = 0; i < num_wait; i++) natives[i] = wait[i]->native;
  weft__cl_retain(q);
  c->queue = q;
  int status = c->settled
                   ? weft_enqueue_settled(q->native, run, settled, done, c,
                                          num_wait, natives, native)
                   : weft_enqueue(q->native, run, done, c, kind_of(type),
                                  num_wait, natives, native);
  if (natives != few) free(natives);
  return weft__cl_error(status);
}

cl_int weft__cl_enqueue(cl_command_queue q, cl_command_type type,
                        cl_uint num_wait, const cl_event *wait,
                        cl_event *event_out, cl_command *c) {
  /* The event first: once the command is queued, nothing may fail. */
  cl_event e = event_out ? weft__cl_event_new(q->context, q, type) : NULL;
  if (event_out && !e) {
    done(c);
    return CL_OUT_OF_HOST_MEMORY;
  }
  cl_int rc = submit(q, type, num_wait, wait, c, e ? &e->native : NULL);
  if (rc && e) weft__cl_event_release(e);
  else if (event_out) *event_out = e;
  return rc;
}

cl_int weft__cl_enqueue_maybe_blocking(cl_command_queue q, cl_command_type type,
                                       cl_bool blocking, cl_uint num_wait,
                                       const cl_event *wait,
                                       cl_event *event_out, cl_command *c) {
  cl_event e = NULL;
  weft_event *native = NULL;
  /* A blocking call that keeps no event waits on the native one alone. */
  cl_int rc = event_out
                  ? weft__cl_enqueue(q, type, num_wait, wait, &e, c)
                  : submit(q, type, num_wait, wait, c,
                           blocking ? &native : NULL);
  if (rc) return rc;
  if (e) native = e->native;
  if (blocking && weft_event_wait(native) < 0)
    rc = CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  if (event_out) *event_out = e;
  else if (native) weft_event_release(native);
  return rc;
}
