/*
 * cl_queue.h: commands, their events, and the queues that run them.
 *
 * A command waits for its prerequisites by counting them, never by blocking
 * a thread: the events of its wait list, and what its queue's order adds
 * (in an in-order queue, the command enqueued before it; in an out-of-order
 * queue, the last barrier, or every command still outstanding for a barrier
 * or marker without a wait list). When the count reaches zero the command
 * is ready and goes on its queue's ready list. Threads shared by every
 * queue (cl_queue_threads.c: a bounded number, made as needed) run ready
 * commands, one queue at a time each; so does any host thread that waits
 * on one of the queue's events (clFinish, clWaitForEvents, a blocking
 * read), which saves the hand-over to another thread on the path that
 * decides launch latency.
 *
 * Lock order: a queue's lock may be held while an event's lock is taken,
 * never the other way round. User callbacks run with no lock held.
 */
#ifndef WEFT_API_CL_QUEUE_H
#define WEFT_API_CL_QUEUE_H

#include "api/cl_objects.h"

typedef struct cl_command cl_command;

/* A command's wait on one event: a node in the event's dependents list. */
typedef struct cl_dependency {
  struct cl_dependency *next;
  cl_command *command;
  int from_wait_list; /* a failure there fails the command (the spec's rule) */
} cl_dependency;

struct cl_command {
  cl_command *next;           /* in the queue's ready list */
  cl_command_queue queue;
  cl_event event;
  cl_event *wait;             /* the wait list, retained until the end */
  cl_uint num_wait;
  cl_dependency *deps;        /* one node per prerequisite event */
  unsigned num_deps;
  atomic_int pending;         /* prerequisites not yet finished, plus a guard */
  atomic_int failed;          /* an event of the wait list failed */
  /* Does the work: CL_SUCCESS or a negative status for the event. */
  cl_int (*run)(cl_command *c);
  /* Frees what the payload holds (retained objects); may be NULL. */
  void (*finish)(cl_command *c);
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

/* Runs ready commands of q on the calling thread until there are none, or
 * until e (if not NULL) has finished. */
void weft__cl_queue_help(cl_command_queue q, cl_event e);

/* The queue's side of a finished command: it no longer orders later ones,
 * and clFinish may return once none is outstanding. */
void weft__cl_queue_retire(cl_command_queue q, cl_event e);

/* The first ready command of q, taken off its ready list (q->lock held),
 * or NULL. */
cl_command *weft__cl_queue_take_ready(cl_command_queue q);

/* Runs c and finishes it: its event, the commands waiting for it, then its
 * queue's count of outstanding commands. */
void weft__cl_command_execute(cl_command *c);

/* The shared threads (cl_queue_threads.c): at least one runs (0), or none
 * can be made (-1); called before a command is enqueued. */
int weft__cl_queue_threads_ready(void);

/* q has a ready command (q->lock held): a shared thread will run it,
 * unless one serves q already. */
void weft__cl_queue_schedule(cl_command_queue q);

/* Frees a queue whose last reference is gone. */
void weft__cl_queue_free(cl_command_queue q);

/* Events. */
cl_event weft__cl_event_new(cl_context context, cl_command_queue queue,
                            cl_command_type type);

/* Whether e has completed or failed. */
int weft__cl_event_done(cl_event e);

/* Makes c wait for e, unless e has finished already (then a failure of an
 * event from the wait list marks c failed). Returns 1 when c now waits. */
int weft__cl_event_add_dependent(cl_event e, cl_dependency *d);

/* Moves e to status and fires the callbacks due; a final status releases
 * the commands waiting for e. Returns 0 (and changes nothing) if e had
 * already finished. */
int weft__cl_event_set(cl_event e, cl_int status);

/* Waits until e completes or fails, helping its queue meanwhile; returns
 * its final status. */
cl_int weft__cl_event_wait(cl_event e);
void weft__cl_event_release(cl_event e);

/* Drops one prerequisite of c; the last one makes it ready to run. */
void weft__cl_command_release_dependency(cl_command *c);

#endif
