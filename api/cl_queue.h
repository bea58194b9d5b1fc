/*
 * cl_queue.h: OpenCL's commands over the native queues and events
 * (weft.h's weft_queue, weft_event, weft_enqueue, which order and run
 * them: core/queue.h). A command here is what an clEnqueue* call does,
 * with its arguments in a payload; the native queue runs it on a shared
 * thread, or on a host thread that waits for it, once its wait list and
 * its queue's order allow. An OpenCL event wraps the native one and adds
 * the command's type, queue and context.
 */
#ifndef WEFT_API_CL_QUEUE_H
#define WEFT_API_CL_QUEUE_H

#include "api/cl_objects.h"

typedef struct cl_command cl_command;

struct cl_command {
  cl_command_queue queue;     /* retained until the command is done */
  /* Does the work: CL_SUCCESS or a negative status for the event. */
  cl_int (*run)(cl_command *c);
  /* Frees what the payload holds (retained objects); may be NULL. */
  void (*finish)(cl_command *c);
  /* A command whose run may leave its work in flight on the device (run
   * returns WEFT_IN_FLIGHT: a launch, weft_kernel_start): its status once
   * the device has settled with status (0, or a native failure and its
   * message). NULL for the others. */
  cl_int (*settled)(cl_command *c, int status, const char *msg);
  _Alignas(16) unsigned char payload[];
};

/* A command with payload bytes (zeroed), or NULL. Until it is enqueued the
 * caller may free it with free() after releasing what its payload holds. */
cl_command *weft__cl_command_new(size_t payload);

/* Checks a wait list: events of this context (CL_INVALID_CONTEXT) that are
 * valid (CL_INVALID_EVENT_WAIT_LIST). */
cl_int weft__cl_check_wait_list(cl_context context, cl_uint n,
                                const cl_event *list);

/* Submits c to queue q after checking the wait list; on success *event_out
 * (if asked for) gets a new event for the command. On failure c is freed
 * (finish included) and an error is returned. */
cl_int weft__cl_enqueue(cl_command_queue q, cl_command_type type,
                        cl_uint num_wait, const cl_event *wait,
                        cl_event *event_out, cl_command *c);

/* Like weft__cl_enqueue, then waits for the command when blocking. */
cl_int weft__cl_enqueue_maybe_blocking(cl_command_queue q, cl_command_type type,
                                       cl_bool blocking, cl_uint num_wait,
                                       const cl_event *wait,
                                       cl_event *event_out, cl_command *c);

/* An OpenCL event, whose native event (a reference it takes over) the
 * caller sets before anyone else sees it; NULL when out of memory. */
cl_event weft__cl_event_new(cl_context context, cl_command_queue queue,
                            cl_command_type type);

void weft__cl_event_release(cl_event e);

#endif
