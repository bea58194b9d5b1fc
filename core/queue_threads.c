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
 * A thread idle for IDLE_SECONDS ends. */
#include <errno.h>
#include <time.h>

#include "core/queue.h"

#define MAX_THREADS 64
#define IDLE_SECONDS 2

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static weft_queue *run_head, *run_tail; /* linked by run_next */
static unsigned threads, idle;

/* Runs q's ready commands until there are none; q->scheduled stays set
 * meanwhile, so that q is not put on the run list twice. */
static void serve(weft_queue *q) {
  for (;;) {
    pthread_mutex_lock(&q->lock);
    weft_command *c = weft__queue_take_ready(q);
    if (!c) q->scheduled = 0;
    pthread_mutex_unlock(&q->lock);
    if (!c) return;
    weft__command_execute(c);
  }
}

/* The next queue to serve, or NULL after IDLE_SECONDS without one (the
 * caller holds lock). */
static weft_queue *next_queue(void) {
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
  if (run_tail) run_tail->run_next = q;
  else run_head = q;
  run_tail = q;
  /* Every thread busy: one more, if there may be. The first thread is
   * made at enqueue (weft__queue_threads_ready), so one always runs. */
  if (!idle && threads < MAX_THREADS) add_thread();
  pthread_cond_signal(&work);
  pthread_mutex_unlock(&lock);
}
