/*
 * sync_native.cl: cl_weft_sync's native algorithms on NVIDIA GPUs, the
 * ones include/weft/cuda/sync.cuh measured best on an H100 (the README
 * gives the figures). They keep the paper's layouts (sync_mutex.cl,
 * sync_semaphore.cl), so that sync.cl unlocks and posts the same way for
 * every algorithm, reading nothing. Every wait sleeps under the watchdog
 * (target.h).
 *
 * Layouts (uint words): mutex {lock: HELD or 0}; semaphore {given,
 * drawn}; barrier {count, 0, groups}, the count's top bit flipping at
 * each use.
 */
#include "../sync.h"
#include "target.h"

/* ---------------------------------------------------------------- mutex */

/* Test and test-and-set, called once the first try failed: sleep a
 * random time in a window that doubles up to MUTEX_SLEEP_CAP_NS, until
 * a relaxed load finds the lock free, then try again. Waiters that look
 * seldom leave the lock's line to its holder (on the H100, a 4096 ns cap
 * against 1024 took the header's mutex from 0.77x to 0.82x of libcu++'s
 * at 1056 blocks). */
#define MUTEX_SLEEP_FIRST_NS 32u
#define MUTEX_SLEEP_CAP_NS 4096u

void weft__mutex_native_lock(__global weft_mutex *m) {
  volatile __global uint *w = &m->word[0];
  gpu_watch watch = {0, 0};
  uint window = MUTEX_SLEEP_FIRST_NS;
  /* Seeded apart in every group and call. */
  uint x = (__nvvm_read_ptx_sreg_ctaid_x() + 1u) * 2654435761u ^
           (uint)__nvvm_read_ptx_sreg_clock() | 1u;
  do {
    do {
      __weft_gpu_sleep(&watch, w, WAIT_MUTEX, next_random(&x) % window);
      if (window < MUTEX_SLEEP_CAP_NS) window *= 2;
    } while (LOAD_RELAXED(w));
  } while (!cas(w, 0u, HELD));
}

/* ------------------------------------------------------------ semaphore */

/* First come, first served, as the sleeping semaphore: the unit drawn is
 * free once given has passed it. Here a waiter sleeps in proportion to
 * the units ahead of it, up to 64 of them. */
void weft__semaphore_native_wait(__global weft_semaphore *s, uint mine,
                                 uint given) {
  volatile __global uint *g = &s->word[0];
  gpu_watch watch = {0, 0};
  for (int ahead; (ahead = -units_free(given, mine)) >= 0;) {
    uint n = (uint)ahead + 1u;
    __weft_gpu_sleep(&watch, g, WAIT_SEMAPHORE, 64u * (n < 64u ? n : 64u));
    given = LOAD(g);
  }
}

/* -------------------------------------------------------------- barrier */

#define FLIP 0x80000000u

/* Waits for the top bit of *word to differ from old's. */
static void await_flip(volatile __global uint *word, uint old) {
  gpu_watch watch = {0, 0};
  while (!((LOAD(word) ^ old) & FLIP))
    __weft_gpu_sleep(&watch, word, WAIT_BARRIER, 32u);
}

static int first_group(void) {
  return !__nvvm_read_ptx_sreg_ctaid_x() && !__nvvm_read_ptx_sreg_ctaid_y() &&
         !__nvvm_read_ptx_sreg_ctaid_z();
}

/* Over every group of the launch, group 0 among them: it adds FLIP -
 * (n - 1), the others 1, so that the top bit flips with the last add,
 * whichever group makes it, and no group waits for another's result
 * (weft_global_barrier(): 1.00x to 1.24x grid.sync() on an H100). */
static void arrive_all(volatile __global uint *word, uint n) {
  uint old = FETCH_ADD(word, first_group() ? FLIP - (n - 1u) : 1u);
  await_flip(word, old);
}

/* Either way the count's low bits are back where they started after each
 * use, and its top bit has flipped. */
void weft__barrier_native_arrive(volatile __global uint *words, uint n) {
  uint groups = __nvvm_read_ptx_sreg_nctaid_x() *
                __nvvm_read_ptx_sreg_nctaid_y() *
                __nvvm_read_ptx_sreg_nctaid_z();
  if (n == groups) {
    arrive_all(&words[0], n);
    return;
  }
  /* Some of the launch's groups, which need not include group 0: each
   * adds 1, and the last, finding n - 1 before it, adds FLIP - n without
   * waiting for the result. It costs the others a round trip more: on an
   * H100, over every group, 0.62x to 0.83x grid.sync() from 1 to 1056
   * groups, against 0.85x to 1.06x for arrive_all. */
  uint old = FETCH_ADD(&words[0], 1u);
  if ((old & ~FLIP) == n - 1) {
    RELEASE_ADD(&words[0], FLIP - n);
    return;
  }
  await_flip(&words[0], old);
}

void weft__global_barrier_native_arrive(volatile __global uint *words,
                                        uint groups) {
  arrive_all(&words[0], groups);
}
