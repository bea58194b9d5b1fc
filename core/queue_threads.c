/* queue_threads.c: the threads that run queues' ready commands, shared
 * by every queue of the process (queue.h).
 *
 * A queue with a ready command and no thread serving it goes on the run
 * list (holding a reference, so that it outlives its last release until
 * then); a thread takes it, runs its ready commands until there are none,
 * and takes the next. Threads are made as queues need them, up to
 * MAX_THREADS, so that up to that many queues' commands run at once (a
 * kernel waiting for another queue's kernel, as its own sync objects
 * allow, needs them to); past it, queues wait their turn on the run list.
 * A thread out of work spins for SPIN_NS, then sleeps; one idle for
 * IDLE_SECONDS ends. A command just enqueued is left a moment to the host
 * thread that is about to wait for it (HANDOFF_NS). Both keep the path
 * of a launch and its wait free of wake-ups and of a second thread
 * racing the first (see bench_api's _p99 rows). */
#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#include "base/cpu_relax.h"
#include "core/queue.h"

#define MAX_THREADS 64
#define IDLE_SECONDS 2
/* A thread out of work (one at a time) spins this long before it
 * sleeps: a queue put on the run list meanwhile needs no wake-up. A
 * wake-up is a system call on the enqueuing thread and, in a VM, an
 * interrupt to another core, and the woken thread then contends with the
 * host thread that runs the command itself: on the 2-core dev machine a
 * tenth of empty launches with clFinish took 5 to 30 us with a wake-up
 * each. */
#define SPIN_NS 100000u

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static weft_queue *run_head, *run_tail; /* linked by run_next */
static unsigned threads, idle, spinning;
/* Whether the run list holds a queue, for spinning threads to read
 * without the lock (written with it held). */
static atomic_int on_run_list;

/* A host thread that waits for a command (weft_queue_finish,
 * weft_event_wait) runs it itself (queue.h). A shared thread woken by the
 * enqueue that takes the command a moment before makes that thread sleep
 * and be woken again: on the 2-core dev machine, idle or busy, 3% to 30%
 * of empty launches with clFinish took 5 to 30 us so (p99 15 to 29 us,
 * median 1.3 us). So a command enqueued less than HANDOFF_NS ago is left
 * to such a thread until then; a program that enqueues and goes on with
 * other work sees its command start at most HANDOFF_NS later. */
#define HANDOFF_NS 20000u
#define HANDOFF_SPINS 64

/* Whether c is for a host thread to run (q->lock held). */
static int left_to_host(const weft_command *c) {
  return c->event && weft__queue_now() - c->event->times[0] < HANDOFF_NS;
}

/* Runs q's ready commands until there are none and none is in flight;
 * q->scheduled stays set meanwhile, so that q is not put on the run list
 * twice. */
static void serve(weft_queue *q) {
  for (;;) {
    pthread_mutex_lock(&q->lock);
    if (q->ready_head && left_to_host(q->ready_head)) {
      pthread_mutex_unlock(&q->lock);
      for (int i = 0; i < HANDOFF_SPINS; i++) weft__cpu_relax();
      continue;
    }
    weft_command *c = weft__queue_take_ready(q);
    /* Nothing ready: what is in flight ends before the thread leaves q
     * (its end may make more ready). */
    int step = c ? 0 : weft__queue_idle_step(q, 0);
    if (!c && !step) q->scheduled = 0;
    pthread_mutex_unlock(&q->lock);
    if (step > 0) weft__queue_settle(q);
    else if (step < 0) weft__cpu_relax();
    else if (!c) return;
    else weft__command_execute(c);
  }
}

/* Spins, the lock released, until a queue is on the run list or
 * SPIN_NS have passed (the caller holds lock; spinning counts it). */
static void spin_for_work(void) {
  spinning++;
  pthread_mutex_unlock(&lock);
  uint64_t until = weft__queue_now() + SPIN_NS;
  for (int i = 0; !atomic_load_explicit(&on_run_list, memory_order_relaxed);
       i++) {
    weft__cpu_relax();
    if (i % 64 == 0 && weft__queue_now() >= until) break;
  }
  pthread_mutex_lock(&lock);
  spinning--;
}

static int add_thread(void);

/* A thread for the run list's first queue: a sleeping one woken, or,
 * every thread busy, one more if there may be (the caller holds lock). */
static void thread_for_run_list(void) {
  if (!idle && threads < MAX_THREADS) add_thread();
  else pthread_cond_signal(&work);
}

/* The next queue to serve, or NULL after IDLE_SECONDS without one (the
 * caller holds lock). */
static weft_queue *next_queue(void) {
  /* One thread spins at a time: the others would only burn cores. */
  if (!run_head && !spinning) spin_for_work();
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += IDLE_SECONDS;
  idle++;
  int rc = 0;
  while (!run_head && rc != ETIMEDOUT)
    rc = pthread_cond_timedwait(&work, &lock, &until);
  idle--;
  weft_queue *q = run_head;
  if (q) {
    run_head = q->run_next;
    if (!run_head) run_tail = NULL;
    atomic_store_explicit(&on_run_list, run_head != NULL,
                          memory_order_relaxed);
    /* More queues wait: another thread for them. The wake-ups of two
     * enqueues can both go to this thread (idle counts it until it runs
     * again), and the spinning thread takes the first queue without one:
     * whoever takes a queue passes the rest on. */
    if (run_head) thread_for_run_list();
  }
  return q;
}

static void *thread_main(void *unused) {
  (void)unused;
  pthread_mutex_lock(&lock);
  for (;;) {
    weft_queue *q = next_queue();
    if (!q) break;
    pthread_mutex_unlock(&lock);
    serve(q);
    /* The run list's reference: the queue may end here. */
    weft_queue_release(q);
    pthread_mutex_lock(&lock);
  }
  threads--;
  pthread_mutex_unlock(&lock);
  return NULL;
}

/* A thread more (lock held); 0, or -1 when none can be made. */
static int add_thread(void) {
  pthread_attr_t attr;
  pthread_t t;
  if (pthread_attr_init(&attr)) return -1;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, thread_main, NULL);
  pthread_attr_destroy(&attr);
  if (rc) return -1;
  threads++;
  return 0;
}

int weft__queue_threads_ready(void) {
  pthread_mutex_lock(&lock);
  int rc = threads ? 0 : add_thread();
  pthread_mutex_unlock(&lock);
  return rc;
}

void weft__queue_schedule(weft_queue *q) {
  if (q->scheduled) return;
  q->scheduled = 1;
  weft_queue_retain(q);
  pthread_mutex_lock(&lock);
  q->run_next = NULL;
  int was_empty = run_head == NULL;
  if (run_tail) run_tail->run_next = q;
  else run_head = q;
  run_tail = q;
  atomic_store_explicit(&on_run_list, 1, memory_order_relaxed);
  /* The spinning thread takes the first queue without a wake-up; one more
   * on the list needs a thread of its own (a queue left there while every
   * thread is busy or asleep could wait for ever: kernels on two queues
   * may wait for each other). Every thread busy: one more, if there may
   * be (the first thread is made at enqueue, weft__queue_threads_ready,
   * so one always runs). */
  if (!spinning || !was_empty) thread_for_run_list();
  pthread_mutex_unlock(&lock);
}
