/*
 * sync.h: what the cl_weft_sync builtins share (sync*.cl): the runtime's
 * yield, wait and wake, atomics with the orders the algorithms need, and
 * each algorithm's functions, which sync.cl dispatches to.
 *
 * On the CPU a work-group that waits must give its thread away, or a group
 * it waits for on the same thread never runs: every wait loop here either
 * polls (spin_turn, spin_until: the group is not run again until the word
 * it polls changes) at each turn, or parks (__weft_wait: the group sleeps
 * until a wake on the word, as a futex waiter does) where the one it
 * waits for will wake it. A poll lets only groups that have started run,
 * so an algorithm that waits for groups that may not have started yet (a
 * barrier) parks.
 */
#ifndef WEFT_BUILTINS_SYNC_H
#define WEFT_BUILTINS_SYNC_H

#include "builtins.h"
#include "weft/kernel.h"

void __weft_yield(void);
void __weft_wait(volatile __global uint *word, uint expected, uint what);
void __weft_wake(volatile __global uint *word, uint count);
void __weft_poll(volatile __global uint *word, uint seen, uint what);
__global uint *__weft_launch_words(void) __attribute__((const));

/* What a parked group waits on (WEFT_WAIT_* in jit/kernel_abi.h). */
#define WAIT_MUTEX 1u
#define WAIT_SEMAPHORE 2u
#define WAIT_BARRIER 3u
#define WAKE_ALL 0xffffffffu
#define POLL_REACH 0x80000000u /* WEFT_POLL_REACH */

/* Loads and read-modify-writes with the orders the algorithms need. */
#define LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define LOAD_RELAXED(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define EXCHANGE(p, v) __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL)
#define FETCH_ADD(p, v) __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL)
#define FETCH_SUB(p, v) __atomic_fetch_sub(p, v, __ATOMIC_ACQ_REL)
#define FETCH_ADD_RELAXED(p, v) __atomic_fetch_add(p, v, __ATOMIC_RELAXED)

/* The CPU's native mutex and semaphore park in the runtime and keep
 * layouts of their own (sync_native.cl). The GPU's share the paper's
 * layouts (nvptx/sync_native.cl), so that there every unlock and every
 * post is one and the same atomic whatever the algorithm, and a wait
 * draws its unit before it knows the algorithm: the read of an object's
 * algorithm right after an acquire goes to the L2 (an acquire empties the
 * SM's L1), and that read cost the GPU's mutex a quarter of its rate. */
#ifdef __NVPTX__
#define NATIVE_PARKS 0
#else
#define NATIVE_PARKS 1
#endif

/* Every mutex's word 0 has bit 0 set while it is held, and every mutex is
 * taken by a compare-and-swap of that word from 0 (free, and nobody
 * queued) to HELD. */
#define HELD 1u

/* Every semaphore counts the units given in word 0 (its initial count
 * plus one per post) and, but the CPU's native one, the units drawn in
 * word 1, one per wait: a wait's unit is free once the units given have
 * passed it. The counters wrap: only signed differences count. */
static inline int units_free(uint given, uint drawn) {
  return (int)(given - drawn);
}

/* Every compare-and-swap here takes something (a lock, a unit, a flag):
 * acquire is all it needs, and on the GPU a release would cost a round
 * trip to memory. */
static inline int cas(volatile __global uint *p, uint expected, uint desired) {
  return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_ACQUIRE);
}

/* Releases whose old value nobody needs: on the GPU a red, an atomic
 * that returns nothing, which the thread that makes it does not wait for
 * (jit/ptx/ptx_atomics.c makes one of such a release). */
#define RELEASE_AND(p, v) ((void)__atomic_fetch_and(p, v, __ATOMIC_RELEASE))
#define RELEASE_ADD(p, v) ((void)__atomic_fetch_add(p, v, __ATOMIC_RELEASE))

/* One turn of a loop that waits for *word to change from seen: lets the
 * other groups run (a poll, a yield that says what the group waits for).
 * The runtime does not run the group again while *word is still seen,
 * which spares a switch per waiter and turn, and reports groups that all
 * poll unchanged words, with none running, as a deadlock (WEFT_EDEADLOCK)
 * instead of letting them spin for ever. */
static inline void spin_turn(volatile __global uint *word, uint seen,
                             uint what) {
  __weft_poll(word, seen, what);
}

/* The same for a loop that waits until the counter *word reaches target
 * (compared by signed difference: counters wrap): the group is not run
 * again before that, though others move the counter. */
static inline void spin_until(volatile __global uint *word, uint target,
                              uint what) {
  __weft_poll(word, target, what | POLL_REACH);
}

/* Backoff: after a failed attempt, let the others run a number of turns
 * drawn from 1 to window, and double the window, up to BACKOFF_MAX turns.
 * The draw matters on the CPU: groups that failed together would, with a
 * fixed delay, all retry together and all sleep together again, and a
 * lock freed meanwhile would stay free for window turns of every group
 * (a run of 4096 groups on one thread took 36 s instead of 1). Each
 * work-item draws from a generator seeded by its global id. */
#define BACKOFF_MAX 64u

typedef struct backoff {
  uint window, state;
} backoff;

static inline backoff backoff_start(void) {
  return (backoff){1u, (uint)get_global_linear_id() * 0x9e3779b9u | 1u};
}

/* The next of a cheap random sequence (xorshift32; state not 0). */
static inline uint next_random(uint *state) {
  uint x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

static inline void back_off(volatile __global uint *word, uint seen,
                            uint what, backoff *b) {
  uint turns = 1 + next_random(&b->state) % b->window;
  for (uint i = 0; i < turns; i++) spin_turn(word, seen, what);
  if (b->window < BACKOFF_MAX) b->window *= 2;
}

/* The group's work-item 0 does f for the group, between barriers. */
#define FOR_GROUP(f)                                                         \
  do {                                                                       \
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);                     \
    if (get_local_linear_id() == 0) f;                                       \
    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);                     \
  } while (0)

/* The native algorithms: the CPU's (sync_native.cl) park in the runtime;
 * the GPU's (nvptx/sync_native.cl) sleep. A mutex's lock is called once
 * the first try, common to all algorithms, has failed. Where the native
 * semaphore does not park, its wait gets the unit drawn and the units
 * given read with the draw. */
void weft__mutex_native_lock(__global weft_mutex *m);
#if NATIVE_PARKS
void weft__mutex_native_unlock(__global weft_mutex *m);
void weft__semaphore_native_wait(__global weft_semaphore *s);
void weft__semaphore_native_post(__global weft_semaphore *s);
#else
void weft__semaphore_native_wait(__global weft_semaphore *s, uint mine,
                                 uint given);
#endif
void weft__barrier_native_arrive(volatile __global uint *words, uint n);
/* weft_global_barrier()'s: the launch's words, zero at its start, and
 * every group of the launch. */
void weft__global_barrier_native_arrive(volatile __global uint *words,
                                        uint groups);

/* sync_mutex.cl: Stuart & Owens' mutexes, called once the first try has
 * failed, and the unlock they share. */
void weft__mutex_spin_lock(__global weft_mutex *m);
void weft__mutex_backoff_lock(__global weft_mutex *m);
void weft__mutex_ticket_lock(__global weft_mutex *m);
void weft__mutex_bit_unlock(__global weft_mutex *m);

/* sync_semaphore.cl: Stuart & Owens' semaphores, whose waits have drawn
 * their unit (mine) and read the units given, and the post they share. */
void weft__semaphore_spin_wait(__global weft_semaphore *s);
void weft__semaphore_backoff_wait(__global weft_semaphore *s);
void weft__semaphore_sleeping_wait(__global weft_semaphore *s, uint mine,
                                   uint given);
void weft__semaphore_give(__global weft_semaphore *s);

/* sync_barrier.cl: the two-stage atomic and Xiao-Feng barriers. The
 * two-stage arrive is one work-item's; the Xiao-Feng wait is the whole
 * group's (every work-item calls it). */
void weft__barrier_two_stage_arrive(volatile __global uint *counts, uint n);
void __attribute__((convergent))
weft__barrier_xiao_feng_wait(__global weft_barrier *b);

#endif
