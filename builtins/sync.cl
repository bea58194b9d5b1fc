/*
 * cl_weft_sync (include/weft/kernel.h): mutexes, semaphores and barriers
 * between work-groups, in their native form: a word of global memory that
 * is changed with one atomic on the fast path, and a futex-like wait and
 * wake into the runtime (__weft_wait, __weft_wake) when a group must wait.
 * On the CPU a waiting group gives its thread to another group, which is
 * what makes kernels whose groups wait for each other complete.
 *
 * Layouts (uint words): mutex {state: 0 free, 1 held, 2 held and waited
 * for}; semaphore {count, waiters}; barrier {arrived, generation, groups}.
 * Word 3 of each is reserved for the choice of algorithm.
 */
#include "builtins.h"
#include "weft/kernel.h"

void __weft_wait(volatile __global uint *word, uint expected, uint what);
void __weft_wake(volatile __global uint *word, uint count);
__global uint *__weft_launch_words(void) __attribute__((const));

#define WAIT_MUTEX 1u
#define WAIT_SEMAPHORE 2u
#define WAIT_BARRIER 3u

/* Loads and read-modify-writes with the orders the algorithms need. */
#define LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define EXCHANGE(p, v) __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL)
#define FETCH_ADD(p, v) __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL)
#define FETCH_SUB(p, v) __atomic_fetch_sub(p, v, __ATOMIC_ACQ_REL)

static int cas(volatile __global uint *p, uint expected, uint desired) {
  return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE);
}

/* The group's work-item 0 does f for the group, between barriers. */
#define FOR_GROUP(f)                                                         \
  do {                                                                       \
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);                     \
    if (get_local_linear_id() == 0) f;                                       \
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);                     \
  } while (0)

/* ---------------------------------------------------------------- mutex */

void WEFT_OVERLOAD weft_mutex_init(__global weft_mutex *m) {
  for (int i = 0; i < 4; i++) STORE(&m->word[i], 0u);
}

int WEFT_OVERLOAD weft_mutex_trylock(__global weft_mutex *m) {
  return cas(&m->word[0], 0, 1);
}

/* The uncontended path is one compare-and-swap. Once contended, the word
 * says 2 ("someone may wait"), so that unlock knows to wake. */
void WEFT_OVERLOAD weft_mutex_lock(__global weft_mutex *m) {
  volatile __global uint *w = &m->word[0];
  if (cas(w, 0, 1)) return;
  while (EXCHANGE(w, 2u) != 0) __weft_wait(w, 2, WAIT_MUTEX);
}

void WEFT_OVERLOAD weft_mutex_unlock(__global weft_mutex *m) {
  volatile __global uint *w = &m->word[0];
  if (EXCHANGE(w, 0u) == 2) __weft_wake(w, 1);
}

void WEFT_OVERLOAD __attribute__((convergent))
weft_mutex_lock_group(__global weft_mutex *m) {
  FOR_GROUP(weft_mutex_lock(m));
}

void WEFT_OVERLOAD __attribute__((convergent))
weft_mutex_unlock_group(__global weft_mutex *m) {
  FOR_GROUP(weft_mutex_unlock(m));
}

/* ------------------------------------------------------------ semaphore */

void WEFT_OVERLOAD weft_semaphore_init(__global weft_semaphore *s, int count) {
  STORE(&s->word[0], (uint)count);
  for (int i = 1; i < 4; i++) STORE(&s->word[i], 0u);
}

/* Takes one unit when the count is positive; else waits on the count
 * word. A waiter announces itself before it parks, and the park returns at
 * once if the count changed since it read it, so no post is missed. */
void WEFT_OVERLOAD weft_semaphore_wait(__global weft_semaphore *s) {
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

void WEFT_OVERLOAD weft_semaphore_post(__global weft_semaphore *s) {
  FETCH_ADD(&s->word[0], 1u);
  if (LOAD(&s->word[1])) __weft_wake(&s->word[0], 1);
}

void WEFT_OVERLOAD __attribute__((convergent))
weft_semaphore_wait_group(__global weft_semaphore *s) {
  FOR_GROUP(weft_semaphore_wait(s));
}

void WEFT_OVERLOAD __attribute__((convergent))
weft_semaphore_post_group(__global weft_semaphore *s) {
  FOR_GROUP(weft_semaphore_post(s));
}

/* -------------------------------------------------------------- barrier */

void WEFT_OVERLOAD weft_barrier_init(__global weft_barrier *b, uint groups) {
  STORE(&b->word[0], 0u);
  STORE(&b->word[1], 0u);
  STORE(&b->word[2], groups);
  STORE(&b->word[3], 0u);
}

/* The last of n groups to arrive resets the count and starts the next
 * generation, which the others wait for. */
static void arrive(volatile __global uint *arrived,
                   volatile __global uint *generation, uint n) {
  uint g = LOAD(generation);
  if (FETCH_ADD(arrived, 1u) == n - 1) {
    STORE(arrived, 0u);
    STORE(generation, g + 1);
    __weft_wake(generation, 0xffffffffu);
    return;
  }
  while (LOAD(generation) == g) __weft_wait(generation, g, WAIT_BARRIER);
}

void WEFT_OVERLOAD __attribute__((convergent))
weft_barrier_wait(__global weft_barrier *b) {
  FOR_GROUP(arrive(&b->word[0], &b->word[1], LOAD(&b->word[2])));
}

void WEFT_OVERLOAD __attribute__((convergent)) weft_global_barrier(void) {
  __global uint *w = __weft_launch_words();
  uint groups = (uint)(get_num_groups(0) * get_num_groups(1) * get_num_groups(2));
  FOR_GROUP(arrive(&w[0], &w[1], groups));
}
