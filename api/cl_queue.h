/*
 * cl_queue.h: commands, their events, and the queues that run them.
 *
 * Each command queue has a thread that runs its commands one after another,
 * in the order they were enqueued (which out-of-order queues may do too).
 * Before running a command the thread waits for the events of its wait
 * list, from any queue or user events; a failed one fails the command.
 */
#ifndef WEFT_API_CL_QUEUE_H
#define WEFT_API_CL_QUEUE_H

#include "api/cl_objects.h"

struct cl_command {
  cl_command *next;
  cl_event event;
  cl_event *wait;
  cl_uint num_wait;
  /* Does the work on the queue's thread: CL_SUCCESS or an error status. */
  cl_int (*run)(cl_command *c);
  /* Frees what the payload holds (retained objects); may be NULL. */
  void (*finish)(cl_command *c);
  _Alignas(16) unsigned char payload[];
};

/* A command with payload bytes (zeroed), or NULL. */
cl_command *weft__cl_command_new(size_t payload);

/* Checks a wait list: events of this context (CL_INVALID_CONTEXT) that are
 * valid (CL_INVALID_EVENT_WAIT_LIST). */
cl_int weft__cl_check_wait_list(cl_context context, cl_uint n,
                                const cl_event *list);

/* Submits c to queue q after checking the wait list; on success *event_out
 * (if asked for) gets a new reference to the command's event. On failure c
 * is freed (finish included) and an error is returned. */
cl_int weft__cl_enqueue(cl_command_queue q, cl_command_type type,
                        cl_uint num_wait, const cl_event *wait,
                        cl_event *event_out, cl_command *c);

/* Like weft__cl_enqueue, then waits for the command when blocking. */
cl_int weft__cl_enqueue_maybe_blocking(cl_command_queue q, cl_command_type type,
                                       cl_bool blocking, cl_uint num_wait,
                                       const cl_event *wait,
                                       cl_event *event_out, cl_command *c);

/* Events. */
cl_event weft__cl_event_new(cl_context context, cl_command_queue queue,
                            cl_command_type type);
/* Moves e to status and fires the callbacks due; returns 0 (and changes
 * nothing) if e had already completed or failed. */
int weft__cl_event_set(cl_event e, cl_int status);
/* Waits until e completes or fails; returns its final status. */
cl_int weft__cl_event_wait(cl_event e);
void weft__cl_event_release(cl_event e);

#endif
