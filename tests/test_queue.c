/* test_queue.c: the native queues and events (weft.h's weft_queue,
 * weft_event, weft_enqueue): order in and out of order, barriers and
 * markers, wait lists and their failures, callbacks, times, user events,
 * what a command holds freed once, a kernel launched asynchronously, and
 * commands that run with no thread waiting for them. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "support.h"

/* What the commands of a test did, in order. */
typedef struct trace {
  pthread_mutex_t lock;
  int order[64];
  int count;
  atomic_int done; /* done() calls */
} trace;

typedef struct step {
  trace *t;
  int id;
  int status; /* what run returns */
} step;

static int run_step(void *arg) {
  step *s = arg;
  pthread_mutex_lock(&s->t->lock);
  s->t->order[s->t->count++] = s->id;
  pthread_mutex_unlock(&s->t->lock);
  return s->status;
}

static void done_step(void *arg) {
  step *s = arg;
  atomic_fetch_add(&s->t->done, 1);
  free(s);
}

/* Enqueues step id (returning status) after the wait list; its event. */
static weft_event *enqueue(weft_queue *q, trace *t, int id, int status,
                           unsigned kind, unsigned n, weft_event *const *wait) {
  step *s = malloc(sizeof *s);
  CHECK(s);
  *s = (step){t, id, status};
  weft_event *e = NULL;
  CHECK_EQ(weft_enqueue(q, run_step, done_step, s, kind, n, wait, &e), 0);
  CHECK(e);
  return e;
}

static weft_queue *queue_new(weft_context *ctx, unsigned flags) {
  weft_queue *q;
  CHECK_EQ(weft_queue_create(ctx, flags, &q), 0);
  return q;
}

/* A user event that holds back what waits for it until it is set. */
static weft_event *gate_new(weft_context *ctx) {
  weft_event *gate;
  CHECK_EQ(weft_user_event_create(ctx, &gate), 0);
  return gate;
}

static trace *trace_new(void) {
  trace *t = calloc(1, sizeof *t);
  CHECK(t);
  pthread_mutex_init(&t->lock, NULL);
  return t;
}

/* An in-order queue runs its commands one after another, as enqueued,
 * even behind a user event that opens later. */
TEST(in_order) {
  weft_context *ctx = support_context();
  weft_queue *q = queue_new(ctx, 0);
  trace *t = trace_new();
  weft_event *gate = gate_new(ctx);
  CHECK_EQ(weft_event_status(gate), WEFT_EVENT_SUBMITTED);
  weft_event *events[5];
  events[0] = enqueue(q, t, 0, 0, 0, 1, &gate);
  for (int i = 1; i < 5; i++) events[i] = enqueue(q, t, i, 0, 0, 0, NULL);
  CHECK_EQ(t->count, 0);
  CHECK_EQ(weft_event_status(events[4]), WEFT_EVENT_SUBMITTED);
  CHECK_EQ(weft_user_event_set(gate, WEFT_EVENT_COMPLETE), 1);
  CHECK_EQ(weft_user_event_set(gate, WEFT_EVENT_COMPLETE), 0);
  CHECK_EQ(weft_queue_finish(q), 0);
  CHECK_EQ(t->count, 5);
  for (int i = 0; i < 5; i++) {
    CHECK_EQ(t->order[i], i);
    CHECK_EQ(weft_event_status(events[i]), WEFT_EVENT_COMPLETE);
    CHECK(weft_event_queue(events[i]) == q);
    weft_event_release(events[i]);
  }
  CHECK_EQ(atomic_load(&t->done), 5);
  CHECK(weft_event_queue(gate) == NULL);
  weft_event_release(gate);
  weft_queue_release(q);
  weft_context_release(ctx);
}

/* Out of order, commands run as their wait lists allow; a barrier waits
 * for all before it and holds back all after it; a marker without a wait
 * list waits for all before it. */
TEST(out_of_order_barriers_and_markers) {
  weft_context *ctx = support_context();
  weft_queue *q = queue_new(ctx, WEFT_QUEUE_OUT_OF_ORDER);
  trace *t = trace_new();
  weft_event *gate = gate_new(ctx);
  weft_event *held = enqueue(q, t, 1, 0, 0, 1, &gate);
  weft_event *free_one = enqueue(q, t, 2, 0, 0, 0, NULL);
  CHECK_EQ(weft_event_wait(free_one), WEFT_EVENT_COMPLETE);
  CHECK_EQ(t->count, 1); /* it passed the held one */
  CHECK_EQ(t->order[0], 2);
  weft_event *marker = enqueue(q, t, 3, 0, WEFT_COMMAND_MARKER, 0, NULL);
  weft_event *barrier = enqueue(q, t, 4, 0, WEFT_COMMAND_BARRIER, 0, NULL);
  weft_event *after = enqueue(q, t, 5, 0, 0, 0, NULL);
  CHECK_EQ(weft_event_status(after), WEFT_EVENT_SUBMITTED);
  CHECK_EQ(weft_event_status(marker), WEFT_EVENT_SUBMITTED);
  weft_user_event_set(gate, WEFT_EVENT_COMPLETE);
  CHECK_EQ(weft_queue_finish(q), 0);
  CHECK_EQ(t->count, 5);
  CHECK_EQ(t->order[1], 1);
  CHECK_EQ(t->order[4], 5); /* after the barrier, which is after the rest */
  weft_event *all[] = {held, free_one, marker, barrier, after, gate};
  for (int i = 0; i < 6; i++) weft_event_release(all[i]);
  weft_queue_release(q);
  weft_context_release(ctx);
}

/* A failed command's event holds its status; a command whose wait list
 * holds it fails with WEFT_EWAITLIST without running, but the next in
 * order (which only follows it) runs. done() runs once for each. */
TEST(failures_and_wait_lists) {
  weft_context *ctx = support_context();
  weft_queue *q = queue_new(ctx, 0);
  trace *t = trace_new();
  weft_event *bad = enqueue(q, t, 1, WEFT_ELAUNCH, 0, 0, NULL);
  weft_event *waits = enqueue(q, t, 2, 0, 0, 1, &bad);
  weft_event *next = enqueue(q, t, 3, 0, 0, 0, NULL);
  CHECK_EQ(weft_event_wait(next), WEFT_EVENT_COMPLETE);
  CHECK_EQ(weft_event_wait(bad), WEFT_ELAUNCH);
  CHECK_EQ(weft_event_wait(waits), WEFT_EWAITLIST);
  CHECK_EQ(t->count, 2);
  CHECK_EQ(t->order[0], 1);
  CHECK_EQ(t->order[1], 3);
  CHECK_EQ(atomic_load(&t->done), 3);
  /* A failed user event fails what waits on it. */
  weft_event *gate = gate_new(ctx);
  weft_event *gated = enqueue(q, t, 4, 0, 0, 1, &gate);
  CHECK_EQ(weft_user_event_set(gate, -5), 1);
  CHECK_EQ(weft_event_wait(gated), WEFT_EWAITLIST);
  CHECK_EQ(weft_user_event_set(gated, WEFT_EVENT_COMPLETE), WEFT_EINVAL);
  CHECK_EQ(weft_user_event_set(gate, 2), WEFT_EINVAL);
  weft_event *all[] = {bad, waits, next, gate, gated};
  for (int i = 0; i < 5; i++) weft_event_release(all[i]);
  weft_queue_release(q);
  weft_context_release(ctx);
}

/* Wrong arguments are refused, and done() still frees what the command
 * holds. */
TEST(errors_free_the_command) {
  weft_context *ctx = support_context(), *other = support_context();
  weft_queue *q;
  CHECK_EQ(weft_queue_create(NULL, 0, &q), WEFT_EINVAL);
  CHECK_EQ(weft_queue_create(ctx, 8, &q), WEFT_EINVAL);
  CHECK_EQ(weft_queue_create(ctx, 0, &q), 0);
  trace *t = trace_new();
  weft_event *foreign;
  CHECK_EQ(weft_user_event_create(other, &foreign), 0);
  step *s = malloc(sizeof *s);
  *s = (step){t, 1, 0};
  weft_event *e = (weft_event *)1;
  CHECK_EQ(weft_enqueue(q, run_step, done_step, s, 0, 1, &foreign, &e),
           WEFT_EINVAL);
  CHECK(e == NULL);
  CHECK_EQ(atomic_load(&t->done), 1);
  s = malloc(sizeof *s);
  *s = (step){t, 2, 0};
  CHECK_EQ(weft_enqueue(q, run_step, done_step, s, 0, 1, NULL, NULL),
           WEFT_EINVAL);
  CHECK_EQ(atomic_load(&t->done), 2);
  CHECK_EQ(weft_event_status(NULL), WEFT_EINVAL);
  CHECK_EQ(weft_event_wait((weft_event *)q), WEFT_EINVAL);
  CHECK_EQ(weft_event_on(foreign, WEFT_EVENT_QUEUED, NULL, NULL),
           WEFT_EINVAL);
  CHECK_EQ(t->count, 0);
  weft_event_release(foreign);
  weft_queue_release(q);
  weft_context_release(ctx);
  weft_context_release(other);
}

typedef struct seen {
  pthread_mutex_t lock;
  int status[8];
  int count;
} seen;

static void record(weft_event *e, int status, void *arg) {
  (void)e;
  seen *s = arg;
  pthread_mutex_lock(&s->lock);
  s->status[s->count++] = status;
  pthread_mutex_unlock(&s->lock);
}

/* Callbacks come in the order of the statuses, one already reached at
 * once; a failure reaches complete's callback; the times only grow. */
TEST(callbacks_and_times) {
  weft_context *ctx = support_context();
  weft_queue *q = queue_new(ctx, 0);
  trace *t = trace_new();
  weft_event *gate = gate_new(ctx);
  weft_event *e = enqueue(q, t, 1, 0, 0, 1, &gate);
  seen s = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
  CHECK_EQ(weft_event_on(e, WEFT_EVENT_COMPLETE, record, &s), 0);
  CHECK_EQ(weft_event_on(e, WEFT_EVENT_RUNNING, record, &s), 0);
  CHECK_EQ(weft_event_on(e, WEFT_EVENT_SUBMITTED, record, &s), 0);
  CHECK_EQ(s.count, 1); /* submitted already */
  weft_user_event_set(gate, WEFT_EVENT_COMPLETE);
  CHECK_EQ(weft_event_wait(e), WEFT_EVENT_COMPLETE);
  CHECK_EQ(weft_queue_finish(q), 0);
  for (int i = 0; i < 500 && s.count < 3; i++) usleep(1000);
  CHECK_EQ(s.count, 3);
  CHECK_EQ(s.status[0], WEFT_EVENT_SUBMITTED);
  CHECK_EQ(s.status[1], WEFT_EVENT_RUNNING);
  CHECK_EQ(s.status[2], WEFT_EVENT_COMPLETE);
  uint64_t times[4];
  CHECK_EQ(weft_event_times(e, times), 0);
  for (int i = 0; i < 3; i++) CHECK(times[i] && times[i] <= times[i + 1]);
  weft_event *bad = enqueue(q, t, 2, WEFT_ECHECK, 0, 0, NULL);
  CHECK_EQ(weft_event_wait(bad), WEFT_ECHECK);
  CHECK_EQ(weft_event_on(bad, WEFT_EVENT_COMPLETE, record, &s), 0);
  CHECK_EQ(s.count, 4);
  CHECK_EQ(s.status[3], WEFT_ECHECK);
  weft_event_release(bad);
  weft_event_release(e);
  weft_event_release(gate);
  weft_queue_release(q);
  weft_context_release(ctx);
}

typedef struct launch {
  weft_kernel *kernel;
  size_t global;
} launch;

static int run_launch(void *arg) {
  launch *l = arg;
  return weft_kernel_launch(l->kernel, 1, NULL, &l->global, NULL);
}

/* A kernel launched from a command while the host goes on; the queue is
 * released before its command has run, and the command still runs. */
TEST(asynchronous_launch) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(
      ctx, "kernel void k(global int *a) { a[get_global_id(0)] += 3; }", "k");
  weft_buffer *b = support_ints(ctx, 64, 1);
  CHECK_EQ(weft_kernel_set_arg_buffer(k, 0, b), 0);
  weft_queue *q = queue_new(ctx, 0);
  weft_event *gate = gate_new(ctx);
  launch l = {k, 64};
  weft_event *e;
  CHECK_EQ(weft_enqueue(q, run_launch, NULL, &l, 0, 1, &gate, &e), 0);
  weft_queue_release(q);
  weft_user_event_set(gate, WEFT_EVENT_COMPLETE);
  CHECK_EQ(weft_event_wait(e), WEFT_EVENT_COMPLETE);
  int got[64];
  support_read_ints(b, got, 64);
  for (int i = 0; i < 64; i++) CHECK_EQ(got[i], 4);
  weft_event_release(e);
  weft_event_release(gate);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Polls e's status (never waits on it: a waiting thread would run the
 * command itself) until it completes; fails after 10 s. */
static void poll_until_complete(weft_event *e) {
  for (int i = 0; i < 10000 && weft_event_status(e) != WEFT_EVENT_COMPLETE;
       i++)
    usleep(1000);
  CHECK_EQ(weft_event_status(e), WEFT_EVENT_COMPLETE);
}

/* A command that leaves its work in flight (weft_enqueue_settled): what
 * it saw when it ran and when it was settled. */
typedef struct flight {
  trace *t;
  int id;
  int fail;                 /* what settled returns */
  weft_event *before;       /* the command before it, or NULL */
  int before_status;        /* that event's status when this one ran */
  atomic_int *settled;      /* settles so far, of every command */
  int settled_when_run;     /* *settled when this one ran */
  int settled_as;           /* its place among the settles (1, 2, ...) */
  int settle_status;        /* the status settled was given */
} flight;

static int run_flight(void *arg) {
  flight *f = arg;
  run_step(&(step){f->t, f->id, 0});
  f->settled_when_run = atomic_load(f->settled);
  if (f->before) f->before_status = weft_event_status(f->before);
  return WEFT_IN_FLIGHT;
}

static int settle_flight(void *arg, int status, const char *msg) {
  flight *f = arg;
  CHECK(msg != NULL);
  f->settle_status = status;
  f->settled_as = atomic_fetch_add(f->settled, 1) + 1;
  return f->fail;
}

/* Commands that leave their work in flight on the device run one after
 * another without waiting for it, in order or through a wait list: the
 * one before is still running (its event too) when the next runs. They end in order when the queue
 * settles: before a command of another kind runs (which finds them all
 * ended), and when the host waits. A failure that settled gives fails
 * that command's event alone. (The CPU device has nothing in flight:
 * its settle is at once, status 0; the GPU's is the device tool's.) */
TEST(commands_left_in_flight) {
  weft_context *ctx = support_context();
  weft_queue *q = queue_new(ctx, 0);
  trace *t = trace_new();
  weft_event *gate = gate_new(ctx);
  atomic_int settled = 0;
  flight f[5];
  weft_event *e[6];
  for (int i = 0; i < 5; i++) {
    f[i] = (flight){.t = t, .id = i < 3 ? i : i + 1, .settled = &settled,
                    .fail = i == 1 ? WEFT_EKERNELFAULT : 0};
    /* Commands 0, 1, 2, then a plain one (3), then 4 and 5. */
    int at = i < 3 ? i : i + 1;
    if (i == 3) e[3] = enqueue(q, t, 3, 0, 0, 0, NULL);
    f[i].before = at ? e[at - 1] : NULL;
    /* 0 waits for the gate; 2 names 1's event as well. */
    weft_event *wait = i == 0 ? gate : i == 2 ? e[1] : NULL;
    CHECK_EQ(weft_enqueue_settled(q, run_flight, settle_flight, NULL, &f[i],
                                  wait != NULL, wait ? &wait : NULL, &e[at]),
             0);
  }
  CHECK_EQ(weft_enqueue_settled(q, run_flight, NULL, NULL, &f[0], 0, NULL,
                                NULL),
           WEFT_EINVAL);
  /* Polled, not waited for: one thread (the queue's) runs them all, so
   * that no other thread settles in between. */
  weft_user_event_set(gate, WEFT_EVENT_COMPLETE);
  poll_until_complete(e[5]);
  CHECK_EQ(t->count, 6);
  for (int i = 0; i < 6; i++) CHECK_EQ(t->order[i], i);
  /* 1 and 2 ran while the one before was in flight. */
  CHECK_EQ(f[1].settled_when_run, 0);
  CHECK_EQ(f[1].before_status, WEFT_EVENT_RUNNING);
  CHECK_EQ(f[2].settled_when_run, 0);
  CHECK_EQ(f[2].before_status, WEFT_EVENT_RUNNING);
  /* The plain command found 0, 1, 2 ended; 4 ran after it. */
  CHECK_EQ(f[3].settled_when_run, 3);
  CHECK_EQ(f[3].before_status, WEFT_EVENT_COMPLETE);
  for (int i = 0; i < 5; i++) {
    CHECK_EQ(f[i].settled_as, i + 1);
    CHECK_EQ(f[i].settle_status, 0);
  }
  CHECK_EQ(weft_event_status(e[0]), WEFT_EVENT_COMPLETE);
  CHECK_EQ(weft_event_status(e[1]), WEFT_EKERNELFAULT);
  for (int i = 2; i < 6; i++)
    CHECK_EQ(weft_event_status(e[i]), WEFT_EVENT_COMPLETE);
  CHECK_EQ(weft_queue_finish(q), 0);
  for (int i = 0; i < 6; i++) weft_event_release(e[i]);
  weft_event_release(gate);
  weft_queue_release(q);
  weft_context_release(ctx);
}

/* With no thread waiting, the queue's shared threads run the commands:
 * one enqueued while a shared thread still spins for work, and one
 * enqueued after it went to sleep (queue_threads.c leaves a command a
 * moment to a host thread about to wait, then takes it). */
TEST(commands_run_with_no_thread_waiting) {
  weft_context *ctx = support_context();
  weft_queue *q = queue_new(ctx, 0);
  trace *t = trace_new();
  for (int round = 0; round < 3; round++) {
    weft_event *a = enqueue(q, t, 2 * round, 0, 0, 0, NULL);
    weft_event *b = enqueue(q, t, 2 * round + 1, 0, 0, 0, NULL);
    poll_until_complete(a);
    poll_until_complete(b);
    weft_event_release(a);
    weft_event_release(b);
    usleep(5000); /* past the spinning: the next enqueue must wake one */
  }
  CHECK_EQ(t->count, 6);
  for (int i = 0; i < 6; i++) CHECK_EQ(t->order[i], i);
  weft_queue_release(q);
  CHECK_EQ(atomic_load(&t->done), 6);
  free(t);
  weft_context_release(ctx);
}

/* Two commands that must run at the same time: the first waits (up to
 * 3 s, then fails) for the second, which only sets the flag. */
typedef struct pair_flag {
  atomic_int set;
} pair_flag;

static int wait_for_flag(void *arg) {
  pair_flag *f = arg;
  for (int i = 0; i < 3000 && !atomic_load(&f->set); i++) usleep(1000);
  return atomic_load(&f->set) ? 0 : WEFT_EDEADLOCK;
}

static int set_flag(void *arg) {
  atomic_store(&((pair_flag *)arg)->set, 1);
  return 0;
}

/* Queues put on the shared threads' run list together each get a thread,
 * even while one thread spins for work (it takes one queue without a
 * wake-up; the second needs a thread of its own, or a kernel waiting for
 * another queue's would wait for ever). */
TEST(queues_enqueued_together_each_get_a_thread) {
  weft_context *ctx = support_context();
  weft_queue *first = queue_new(ctx, 0), *waiting = queue_new(ctx, 0);
  weft_queue *setting = queue_new(ctx, 0);
  trace *t = trace_new();
  for (int round = 0; round < 20; round++) {
    /* A command done: a shared thread now spins for work. */
    weft_event *e = enqueue(first, t, round, 0, 0, 0, NULL);
    poll_until_complete(e);
    weft_event_release(e);
    pair_flag f = {0};
    weft_event *a, *b;
    CHECK_EQ(weft_enqueue(waiting, wait_for_flag, NULL, &f, 0, 0, NULL, &a), 0);
    CHECK_EQ(weft_enqueue(setting, set_flag, NULL, &f, 0, 0, NULL, &b), 0);
    poll_until_complete(b);
    poll_until_complete(a);
    weft_event_release(a);
    weft_event_release(b);
  }
  weft_queue_release(first);
  weft_queue_release(waiting);
  weft_queue_release(setting);
  free(t);
  weft_context_release(ctx);
}

TEST_MAIN()
