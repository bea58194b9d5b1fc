/*
 * sync.h: what the cl_weft_sync builtins share (sync.cl, sync_native.cl):
 * the runtime's wait and wake, and the shim over which
 * weft/sync_algorithms.h, the algorithms every target shares with the
 * CUDA header library, is written for OpenCL C.
 *
 * On the CPU a work-group that waits must give its thread away, or a group
 * it waits for on the same thread never runs: every wait loop either
 * polls (__weft_poll: the group is not run again until the word it polls
 * changes) at each turn, or parks (__weft_wait: the group sleeps until a
 * wake on the word, as a futex waiter does) where the one it waits for
 * will wake it. A poll lets only groups that have started run, so an
 * algorithm that waits for groups that may not have started yet (a
 * barrier) parks. On the GPU both sleep, under the watchdog
 * (nvptx/target.cl), and a wake is nothing.
 */
#ifndef WEFT_BUILTINS_SYNC_H
#define WEFT_BUILTINS_SYNC_H

#include "builtins.h"
#include "wait.h"
#include "weft/kernel.h"
#ifdef __NVPTX__
#include "nvptx/target.h"
#endif

/* ------------------------------------------------ the algorithms' shim */

#define WEFT__FN static inline
#define WEFT__GLOBAL __global

/* Loads and read-modify-writes with the orders the algorithms name. Every
 * compare-and-swap takes something (a lock, a unit, a flag): acquire is
 * all it needs, and on the GPU a release would cost a round trip to
 * memory. Those whose old value nobody needs become, on the GPU, a red,
 * which the thread that makes it does not wait for
 * (jit/ptx/ptx_atomics.c). */
WEFT__FN uint weft__load(const __global uint *p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
WEFT__FN uint weft__load_relaxed(const __global uint *p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}
WEFT__FN void weft__store(__global uint *p, uint v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
WEFT__FN void weft__store_relaxed(__global uint *p, uint v) {
  __atomic_store_n(p, v, __ATOMIC_RELAXED);
}
WEFT__FN int weft__cas(__global uint *p, uint expected, uint desired) {
  return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQUIRE,
                                     __ATOMIC_ACQUIRE);
}
WEFT__FN uint weft__fetch_add(__global uint *p, uint v) {
  return __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL);
}
WEFT__FN uint weft__fetch_add_relaxed(__global uint *p, uint v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
WEFT__FN uint weft__fetch_or_acquire(__global uint *p, uint v) {
  return __atomic_fetch_or(p, v, __ATOMIC_ACQUIRE);
}
WEFT__FN uint weft__exchange(__global uint *p, uint v) {
  return __atomic_exchange_n(p, v, __ATOMIC_ACQ_REL);
}
WEFT__FN void weft__add_release(__global uint *p, uint v) {
  (void)__atomic_fetch_add(p, v, __ATOMIC_RELEASE);
}
WEFT__FN void weft__and_release(__global uint *p, uint v) {
  (void)__atomic_fetch_and(p, v, __ATOMIC_RELEASE);
}

/* Waits. The runtime does not run a group that polls again while the
 * word is still seen (or, POLL_REACH, while the counter has not reached
 * the target), which spares a switch per waiter and turn, and reports
 * groups that all poll unchanged words, with none running, as a deadlock
 * (WEFT_EDEADLOCK) instead of letting them spin for ever. The GPU's
 * sleep lengths (ns) are the runtime's own here (nvptx/target.cl). */
#ifdef __NVPTX__
typedef gpu_watch weft__watch;
#define WEFT__WATCH_INIT {0, 0}
#else
typedef int weft__watch;
#define WEFT__WATCH_INIT 0
#endif

WEFT__FN void weft__poll(weft__watch *w, __global uint *word, uint seen,
                         uint what, uint ns) {
  (void)w;
  (void)ns;
  __weft_poll(word, seen, what);
}
WEFT__FN void weft__await(weft__watch *w, __global uint *word, uint target,
                          uint what, uint ns) {
  (void)w;
  (void)ns;
  __weft_poll(word, target, what | POLL_REACH);
}
WEFT__FN void weft__park(weft__watch *w, __global uint *word, uint seen,
                         uint what, uint ns) {
  (void)w;
  (void)ns;
  __weft_wait(word, seen, what);
}
WEFT__FN void weft__wake(__global uint *word) { __weft_wake(word, WAKE_ALL); }

/* A back-off waits 1 to 64 turns (on the CPU, a turn lets every other
 * group run once). */
#define WEFT__BACKOFF_FIRST 1u
#define WEFT__BACKOFF_CAP 64u
WEFT__FN void weft__pause(weft__watch *w, __global uint *word, uint seen,
                          uint what, uint draw) {
  (void)w;
  for (uint i = 0; i <= draw; i++) __weft_poll(word, seen, what);
}

WEFT__FN uint weft__group_rank(void) {
  return (uint)((get_group_id(2) * get_num_groups(1) + get_group_id(1)) *
                    get_num_groups(0) +
                get_group_id(0));
}
WEFT__FN uint weft__group_count(void) {
  return (uint)(get_num_groups(0) * get_num_groups(1) * get_num_groups(2));
}
WEFT__FN uint weft__item_rank(void) { return (uint)get_local_linear_id(); }
WEFT__FN uint weft__item_count(void) {
  return (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
}
WEFT__FN void weft__group_barrier(void) {
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
}

#ifdef __NVPTX__
/* The GPU's own algorithms sleep, and their sleeps are watched. */
#define WEFT__NATIVE_PARKS 0
#define WEFT__WAKES 0
WEFT__FN void weft__sleep(weft__watch *w, __global uint *word, uint what,
                          uint ns) {
  __weft_gpu_sleep(w, word, what, ns);
}
/* Apart in every group and call. */
WEFT__FN uint weft__seed(void) {
  return (weft__group_rank() + 1u) * 2654435761u ^
         (uint)__nvvm_read_ptx_sreg_clock();
}
#else
/* The CPU's native algorithms park in the runtime, with layouts of their
 * own (sync_native.cl). */
#define WEFT__NATIVE_PARKS 1
#define WEFT__WAKES 1
void weft__native_mutex_lock(__global weft_mutex *m);
void weft__native_mutex_unlock(__global weft_mutex *m);
void weft__native_semaphore_wait(__global weft_semaphore *s);
void weft__native_semaphore_post(__global weft_semaphore *s);
void weft__native_barrier_arrive(__global uint *words, uint n);
/* weft_global_barrier()'s: its count in word 0, its generation in word
 * 16, so that the arrivals do not disturb the groups that wait. */
void weft__native_global_barrier_arrive(__global uint *words, uint groups);
WEFT__FN uint weft__seed(void) {
  return (uint)get_global_linear_id() * 0x9e3779b9u;
}
#endif

/* WEFT__BARRIER_FROM_RANK_0: an OpenCL barrier may count any n groups. */
#define WEFT__BARRIER_FROM_RANK_0 0

#include "weft/sync_algorithms.h"

#endif
