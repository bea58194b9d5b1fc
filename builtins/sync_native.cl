/*
 * sync_native.cl: cl_weft_sync's native algorithms on the CPU (the GPU's
 * are nvptx/sync_native.cl): a word of global
 * memory that is changed with one atomic on the fast path, and a
 * futex-like wait and wake into the runtime (__weft_wait, __weft_wake)
 * when a group must wait. On the CPU a waiting group gives its thread to
 * another group, which is what makes kernels whose groups wait for each
 * other complete.
 *
 * Layouts (uint words): mutex {state: 0 free, 1 held, 2 held and waited
 * for}; semaphore {count, waiters}; barrier {arrived, generation, groups}.
 */
#include "sync.h"

/* ---------------------------------------------------------------- mutex */

/* The uncontended path is one compare-and-swap (sync.cl's first try).
 * Once contended, the word says 2 ("someone may wait"), so that unlock
 * knows to wake. */
void weft__mutex_native_lock(__global weft_mutex *m) {
  volatile __global uint *w = &m->word[0];
  while (EXCHANGE(w, 2u) != 0) __weft_wait(w, 2, WAIT_MUTEX);
}

void weft__mutex_native_unlock(__global weft_mutex *m) {
  volatile __global uint *w = &m->word[0];
  if (EXCHANGE(w, 0u) == 2) __weft_wake(w, 1);
}

/* ------------------------------------------------------------ semaphore */

/* Takes one unit when the count is positive; else waits on the count
 * word. A waiter announces itself before it parks, and the park returns at
 * once if the count changed since it read it, so no post is missed. */
void weft__semaphore_native_wait(__global weft_semaphore *s) {
  volatile __global uint *count = &s->word[0], *waiters = &s->word[1];
  for (;;) {
    int c = (int)LOAD(count);
    if (c > 0) {
      if (cas(count, (uint)c, (uint)(c - 1))) return;
      continue;
    }
    FETCH_ADD(waiters, 1u);
    __weft_wait(count, (uint)c, WAIT_SEMAPHORE);
    FETCH_SUB(waiters, 1u);
  }
}

void weft__semaphore_native_post(__global weft_semaphore *s) {
  FETCH_ADD(&s->word[0], 1u);
  if (LOAD(&s->word[1])) __weft_wake(&s->word[0], 1);
}

/* -------------------------------------------------------------- barrier */

/* The last of n groups to arrive resets the count and starts the next
 * generation, which the others wait for. */
static void arrive(volatile __global uint *arrived,
                   volatile __global uint *generation, uint n) {
  uint g = LOAD(generation);
  if (FETCH_ADD(arrived, 1u) == n - 1) {
    STORE(arrived, 0u);
    STORE(generation, g + 1);
    __weft_wake(generation, WAKE_ALL);
    return;
  }
  while (LOAD(generation) == g) __weft_wait(generation, g, WAIT_BARRIER);
}

void weft__barrier_native_arrive(volatile __global uint *words, uint n) {
  arrive(&words[0], &words[1], n);
}

/* The count in word 0, the generation in word 16: the arrivals do not
 * disturb the groups that poll. */
void weft__global_barrier_native_arrive(volatile __global uint *words,
                                        uint groups) {
  arrive(&words[0], &words[16], groups);
}
