/*
 * queue.h: queues, commands and their events (weft.h's weft_queue,
 * weft_event, weft_enqueue), for the files of core/ that run them.
 *
 * A command waits for its prerequisites by counting them, never by blocking
 * a thread: the events of its wait list, and what its queue's order adds
 * (in an in-order queue, the command enqueued before it; in an out-of-order
 * queue, the last barrier, or every command still outstanding for a barrier
 * or marker without a wait list). When the count reaches zero the command
 * is ready and goes on its queue's ready list. Threads shared by every
 * queue (queue_threads.c: a bounded number, made as needed) run ready
 * commands, one queue at a time each; so does any host thread that waits
 * on one of the queue's events (weft_queue_finish, weft_event_wait), which
 * saves the hand-over to another thread on the path that decides launch
 * latency.
 *
 * A command that starts work on a device which keeps its own order (a
 * GPU: weft_enqueue_settled, weft_kernel_start) may leave it in flight:
 * its event stays running and the command goes on its queue's flight
 * list, and another such command of the queue that waits for it (the
 * next of an in-order queue, or one naming its event) may run at once
 * (its wait is let go: the device orders them). The
 * queue settles (weft__queue_settle: the device waits for its work, then
 * each command of the list ends in order) before any other command of
 * the queue runs, when a thread finds nothing of the queue ready, and
 * when the host waits for it. So a chain of launches costs the host one
 * wait, not one per launch.
 *
 * Lock order: a queue's settle lock, then its lock, then an event's lock,
 * never the other way round. Callbacks run with no lock held, but the
 * settle lock (OpenCL leaves a callback that waits for its own queue
 * undefined).
 */
#ifndef WEFT_CORE_QUEUE_H
#define WEFT_CORE_QUEUE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "weft/weft.h"

/* Kind tags of queues and events, which weft__queue_is and weft__event_is
 * check: the tag and the count of base/object.h's header, without its
 * message buffer (an event is made per command). */
#define WEFT__KIND_QUEUE 0x57460806u
#define WEFT__KIND_EVENT 0x57460707u

typedef struct weft_command weft_command;

/* A command's wait on one event: a node in the event's dependents list. */
typedef struct weft_dependency {
  struct weft_dependency *next;
  weft_command *command;
  int from_wait_list; /* a failure there fails the command */
} weft_dependency;

/* A callback of weft_event_on. */
typedef struct weft_event_callback {
  struct weft_event_callback *next;
  weft_event_fn fn;
  void *arg;
  int status; /* the status that fires it */
} weft_event_callback;

struct weft_event {
  uint32_t kind;
  atomic_int refs;
  weft_context *context;          /* retained */
  weft_queue *queue;              /* retained; NULL for a user event */
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int status;                     /* WEFT_EVENT_*, or a failure */
  /* Its command's work is in flight on the device: a command of its
   * queue that starts work there need not wait for it (event.c). */
  int in_flight;
  uint64_t times[4];              /* queued, submitted, started, ended */
  weft_event_callback *callbacks;
  weft_dependency *dependents;    /* commands waiting for this event */
};

struct weft_queue {
  uint32_t kind;
  atomic_int refs;
  weft_context *context;          /* retained */
  unsigned flags;                 /* WEFT_QUEUE_* */
  pthread_mutex_t lock;
  pthread_cond_t idle;            /* no command is outstanding */
  weft_command *ready_head, *ready_tail;
  unsigned outstanding;           /* enqueued and not yet finished */
  /* What orders the next command, as borrowed pointers to events of
   * outstanding commands (each is cleared when its command finishes):
   * in order, the last command; out of order, the last barrier and the
   * list of every outstanding command, for barriers and markers. */
  weft_event *last;
  weft_event *barrier;
  weft_event **active;
  size_t num_active, cap_active;
  /* Commands whose work is in flight on the device, in order (linked by
   * next), and how many (read without the lock: none is the common case
   * and needs no lock); settle_lock keeps settles in order. */
  weft_command *flight_head, *flight_tail;
  atomic_uint flying;
  /* Commands of the queue a thread is running now: a settle waits for
   * them, so that the thread that starts the next launch is not held up
   * by another's wait on the device, and the last launch of a chain goes
   * with the rest. */
  atomic_uint running;
  /* Host threads waiting on the queue (weft__queue_help): what is in
   * flight is theirs to settle, so that the thread that waits is the one
   * the device's end wakes, not one that must wake it in turn. */
  atomic_uint helping;
  pthread_mutex_t settle_lock;
  /* On the shared threads' run list or served by one of them
   * (queue_threads.c), and the link of that list. */
  int scheduled;
  weft_queue *run_next;
};

struct weft_command {
  weft_command *next;             /* in the queue's ready or flight list */
  weft_queue *queue;
  weft_event *event;
  weft_event **wait;              /* the wait list, retained until the end */
  unsigned num_wait;
  unsigned kind;                  /* WEFT_COMMAND_* or 0 */
  weft_dependency *deps;          /* one node per prerequisite event */
  unsigned num_deps;
  /* deps for most commands (the one before in order, and one more): no
   * allocation on the path that decides launch latency. */
  weft_dependency few_deps[2];
  atomic_int pending;  /* prerequisites not yet finished, plus a guard */
  atomic_int failed;   /* an event of the wait list failed */
  weft_command_fn run;
  /* weft_enqueue_settled's: how the command ends after WEFT_IN_FLIGHT;
   * NULL for other commands. */
  weft_settle_fn settled;
  void (*done)(void *arg);
  void *arg;
};

/* Nanoseconds on the monotonic clock. */
uint64_t weft__queue_now(void);

/* ----------------------------------------------------- queue.c */

/* The queue's side of a finished command: it no longer orders later ones,
 * and weft_queue_finish may return once none is outstanding. */
void weft__queue_retire(weft_queue *q, weft_event *e);

/* The first ready command of q, taken off its ready list (q->lock held),
 * or NULL. */
weft_command *weft__queue_take_ready(weft_queue *q);

/* Runs ready commands of q on the calling thread until there are none
 * and none is in flight, or until e (if not NULL) has finished. */
void weft__queue_help(weft_queue *q, weft_event *e);

/* c left its work in flight: it goes on q's flight list, and the command
 * after it may run. */
void weft__queue_in_flight(weft_queue *q, weft_command *c);

/* Waits for the device's work of q's commands in flight and ends them,
 * in order; nothing to do (and no lock taken) when none is. */
void weft__queue_settle(weft_queue *q);

/* What a thread that found none of q's commands ready does about those in
 * flight: 1 to settle them now (no thread runs a command of q), 0 when
 * there are none, -1 to look again in a moment (one runs: it may start
 * another launch first). A shared thread leaves them (0) to a host
 * thread that helps. */
int weft__queue_idle_step(weft_queue *q, int host);

/* ------------------------------------------------- command.c */

/* Runs c and finishes it (or leaves it in flight: weft__queue_in_flight). */
void weft__command_execute(weft_command *c);

/* Ends c with status: what it holds released, its event, the commands
 * waiting for it, then its queue's count of outstanding commands. */
void weft__command_finish(weft_command *c, int status);

/* Drops one prerequisite of c; the last one makes it ready to run. */
void weft__command_release_dependency(weft_command *c);

/* ------------------------------------------- queue_threads.c */

/* The shared threads: at least one runs (0), or none can be made (-1);
 * called before a command is enqueued. */
int weft__queue_threads_ready(void);

/* q has a ready command (q->lock held): a shared thread will run it,
 * unless one serves q already. */
void weft__queue_schedule(weft_queue *q);

/* --------------------------------------------------- event.c */

/* A command's event, queued (queue retained), or NULL. */
weft_event *weft__event_new(weft_context *context, weft_queue *queue);

/* Whether e has completed or failed. */
int weft__event_done(weft_event *e);

/* Makes c wait for e, unless e has finished already (then a failure of an
 * event from the wait list marks c failed). Returns 1 when c now waits. */
int weft__event_add_dependent(weft_event *e, weft_dependency *d);

/* Whether e (q) is a live event (queue); NULL is not. */
int weft__event_is(const weft_event *e);
int weft__queue_is(const weft_queue *q);

/* Moves e to status and fires the callbacks due; a final status releases
 * the commands waiting for e. Returns 0 (and changes nothing) if e had
 * already finished. */
int weft__event_set(weft_event *e, int status);

/* e's command left its work in flight: the commands of its queue waiting
 * for e that start work on the device (weft_enqueue_settled) are let go,
 * and so is any that starts waiting so later. */
void weft__event_in_flight(weft_event *e);

#endif
