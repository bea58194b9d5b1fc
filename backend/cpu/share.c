/* share.c: the CPU's threads shared between a cooperative kernel
 * (cl_weft_cooperative_kernels) that holds the pool and the launches that
 * come from other threads meanwhile (share.h).
 *
 * Without it, a launch waits for the pool until the launch before it ends,
 * which for a persistent kernel may be never. Instead, a launch that finds
 * a cooperative kernel holding the pool asks for the threads it would use
 * (its demand, at most all but one); the kernel then wants that many fewer
 * groups (resize.c), so its highest groups end at their next offer_kill
 * (the lower of them waiting there for those above while the launch
 * waits), or all at once at its next resizing barrier, and their threads
 * fall idle. The launch waits until the kernel has given them back, or for
 * the gather bound at most (WEFT_GATHER_BOUND, 20 ms: a kernel that
 * seldom offers must not hold the others back for long), then runs on a
 * second set of worker threads, the guest pool, made on first need. When
 * it ends its demand goes, and the kernel's next request_fork takes the
 * threads back. The fairness rule: a waiting or running launch is always
 * served before the kernel grows again, and the kernel always keeps one
 * group. */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "backend/cpu/executor_internal.h"
#include "backend/cpu/resize.h"
#include "backend/cpu/share.h"

void weft__share_init(weft_executor *e) {
  pthread_mutex_init(&e->share_lock, NULL);
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&e->share_changed, &attr);
  pthread_condattr_destroy(&attr);
}

void weft__share_fini(weft_executor *e) {
  pthread_cond_destroy(&e->share_changed);
  pthread_mutex_destroy(&e->share_lock);
}

void weft__share_hold(weft_executor *e, launch_state *l) {
  pthread_mutex_lock(&e->share_lock);
  e->holder = l;
  pthread_mutex_unlock(&e->share_lock);
}

void weft__share_release(weft_executor *e, launch_state *l) {
  pthread_mutex_lock(&e->share_lock);
  if (e->holder == l) e->holder = NULL;
  pthread_cond_broadcast(&e->share_changed);
  pthread_mutex_unlock(&e->share_lock);
}

unsigned weft__share_demand(const weft_executor *e) {
  return __atomic_load_n(&e->demand, __ATOMIC_RELAXED);
}

void weft__share_changed(weft_executor *e) {
  if (!weft__share_demand(e)) return;
  pthread_mutex_lock(&e->share_lock);
  pthread_cond_broadcast(&e->share_changed);
  pthread_mutex_unlock(&e->share_lock);
}

/* The monotonic clock's time seconds after from. */
static struct timespec after(struct timespec from, double seconds) {
  long ns = (long)(seconds * 1e9);
  from.tv_sec += ns / 1000000000L;
  from.tv_nsec += ns % 1000000000L;
  if (from.tv_nsec >= 1000000000L) {
    from.tv_sec++;
    from.tv_nsec -= 1000000000L;
  }
  return from;
}

/* How long a group that waits to be given back sleeps between looks when
 * nothing is said: the changes that do not wake it (a group's return, a
 * failure) are rare, and the wait lasts the gather bound at most. */
#define AWAIT_LOOK 0.001

int weft__share_await(weft_executor *e, int (*waits)(const void *),
                      const void *arg) {
  pthread_mutex_lock(&e->share_lock);
  /* Under the lock that the notes of change take: a change after this
   * look wakes the wait below. */
  int gathering = e->gathering != 0;
  if (gathering && waits(arg)) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    struct timespec until = after(now, AWAIT_LOOK);
    pthread_cond_timedwait(&e->share_changed, &e->share_lock, &until);
  }
  pthread_mutex_unlock(&e->share_lock);
  return gathering;
}

int weft__share_ask(weft_executor *e, unsigned need, double *waited) {
  struct timespec start;
  pthread_mutex_lock(&e->share_lock);
  if (!e->holder) {
    pthread_mutex_unlock(&e->share_lock);
    return 0;
  }
  __atomic_fetch_add(&e->demand, need, __ATOMIC_RELAXED);
  e->gathering++;
  clock_gettime(CLOCK_MONOTONIC, &start);
  struct timespec deadline = after(start, e->config->gather_bound);
  while (e->holder && !weft__resize_gathered(e->holder))
    if (pthread_cond_timedwait(&e->share_changed, &e->share_lock, &deadline) ==
        ETIMEDOUT)
      break;
  /* The kernel's groups that waited to be given back go on (resize.c). */
  e->gathering--;
  pthread_cond_broadcast(&e->share_changed);
  pthread_mutex_unlock(&e->share_lock);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  *waited = (double)(now.tv_sec - start.tv_sec) +
            (double)(now.tv_nsec - start.tv_nsec) * 1e-9;
  return 1;
}

void weft__share_done(weft_executor *e, unsigned need) {
  __atomic_fetch_sub(&e->demand, need, __ATOMIC_RELAXED);
}
