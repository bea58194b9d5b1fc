/*
 * sync_native.cl: cl_weft_sync's native algorithms on the CPU (the GPU's
 * are weft/sync_algorithms.h's): a word of global memory that is changed
 * with one atomic on the fast path, and a futex-like wait and wake into
 * the runtime (__weft_wait, __weft_wake) when a group must wait. On the
 * CPU a waiting group gives its thread to another group, which is what
 * makes kernels whose groups wait for each other complete.
 *
 * Layouts (uint words): mutex {state: 0 free, 1 held, 2 held and waited
 * for}; semaphore {count, waiters}; barrier {arrived, generation, groups}.
 */
#include "sync.h"

/* ---------------------------------------------------------------- mutex */

/* The uncontended path is one compare-and-swap (the first try every
 * algorithm makes). Once contended, the word says 2 ("someone may
 * wait"), so that unlock knows to wake. */
void weft__native_mutex_lock(__global weft_mutex *m) {
  __global uint *w = &m->word[0];
  while (weft__exchange(w, 2u) != 0) __weft_wait(w, 2, WEFT__WAIT_MUTEX);
}

void weft__native_mutex_unlock(__global weft_mutex *m) {
  __global uint *w = &m->word[0];
  if (weft__exchange(w, 0u) == 2) __weft_wake(w, 1);
}

/* ------------------------------------------------------------ semaphore */

/* Takes one unit when the count is positive; else waits on the count
 * word. A waiter announces itself before it parks, and the park returns at
 * once if the count changed since it read it, so no post is missed. */
void weft__native_semaphore_wait(__global weft_semaphore *s) {
  __global uint *count = &s->word[0], *waiters = &s->word[1];
  for (;;) {
    int c = (int)weft__load(count);
    if (c > 0) {
      if (weft__cas(count, (uint)c, (uint)(c - 1))) return;
      continue;
    }
    weft__fetch_add(waiters, 1u);
    __weft_wait(count, (uint)c, WEFT__WAIT_SEMAPHORE);
    (void)__atomic_fetch_sub(waiters, 1u, __ATOMIC_ACQ_REL);
  }
}

void weft__native_semaphore_post(__global weft_semaphore *s) {
  weft__fetch_add(&s->word[0], 1u);
  if (weft__load(&s->word[1])) __weft_wake(&s->word[0], 1);
}

/* -------------------------------------------------------------- barrier */

/* The last of n groups to arrive resets the count and starts the next
 * generation, which the others wait for. */
static void arrive(__global uint *arrived, __global uint *generation,
                   uint n) {
  uint g = weft__load(generation);
  if (weft__fetch_add(arrived, 1u) == n - 1) {
    weft__store(arrived, 0u);
    weft__store(generation, g + 1);
    __weft_wake(generation, WAKE_ALL);
    return;
  }
  while (weft__load(generation) == g)
    __weft_wait(generation, g, WEFT__WAIT_BARRIER);
}

void weft__native_barrier_arrive(__global uint *words, uint n) {
  arrive(&words[0], &words[1], n);
}

void weft__native_global_barrier_arrive(__global uint *words, uint groups) {
  arrive(&words[0], &words[16], groups);
}
