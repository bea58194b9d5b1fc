/*
 * sync.cl: cl_weft_sync's entry points (include/weft/kernel.h), over the
 * algorithms every target shares (weft/sync_algorithms.h, through
 * sync.h's shim): each reads the algorithm an object was initialized with
 * (its word 3) and calls it. Word 3 is 0 for the default: then impl, the
 * calling program's build option, decides, and native where the program
 * has none. Values no algorithm has get the native one.
 */
#include "sync.h"

/* ---------------------------------------------------------------- mutex */

/* Every algorithm's mutex starts as all zeros. */
void weft__mutex_init(__global weft_mutex *m, uint algorithm) {
  for (int i = 0; i < 3; i++) weft__store(&m->word[i], 0u);
  weft__store(&m->word[3], algorithm);
}

void weft__mutex_lock(__global weft_mutex *m, uint impl) {
  weft__sync_mutex_lock(m, impl);
}

int weft__mutex_trylock(__global weft_mutex *m, uint impl) {
  return weft__sync_mutex_trylock(m, impl);
}

void weft__mutex_unlock(__global weft_mutex *m, uint impl) {
  weft__sync_mutex_unlock(m, impl);
}

void __attribute__((convergent))
weft__mutex_lock_group(__global weft_mutex *m, uint impl) {
  WEFT__FOR_GROUP(weft__sync_mutex_lock(m, impl));
}

void __attribute__((convergent))
weft__mutex_unlock_group(__global weft_mutex *m, uint impl) {
  WEFT__FOR_GROUP(weft__sync_mutex_unlock(m, impl));
}

/* ------------------------------------------------------------ semaphore */

/* Every algorithm's semaphore starts as {count, 0, 0}. */
void weft__semaphore_init(__global weft_semaphore *s, int count,
                          uint algorithm) {
  weft__store(&s->word[0], (uint)count);
  weft__store(&s->word[1], 0u);
  weft__store(&s->word[2], 0u);
  weft__store(&s->word[3], algorithm);
}

void weft__semaphore_wait(__global weft_semaphore *s, uint impl) {
  weft__sync_semaphore_wait(s, impl);
}

void weft__semaphore_post(__global weft_semaphore *s, uint impl) {
  weft__sync_semaphore_post(s, impl);
}

void __attribute__((convergent))
weft__semaphore_wait_group(__global weft_semaphore *s, uint impl) {
  WEFT__FOR_GROUP(weft__sync_semaphore_wait(s, impl));
}

void __attribute__((convergent))
weft__semaphore_post_group(__global weft_semaphore *s, uint impl) {
  WEFT__FOR_GROUP(weft__sync_semaphore_post(s, impl));
}

/* -------------------------------------------------------------- barrier */

/* Every algorithm's barrier starts as {0, 0, groups}; the Xiao-Feng one's
 * flags follow, zero. */
void weft__barrier_init(__global weft_barrier *b, uint groups, uint algorithm,
                        uint impl) {
  weft__store(&b->word[0], 0u);
  weft__store(&b->word[1], 0u);
  weft__store(&b->word[2], groups);
  weft__store(&b->word[3], algorithm);
  if ((algorithm ? algorithm : impl) != WEFT_BARRIER_XIAO_FENG) return;
  __global uint *flags = (__global uint *)(b + 1);
  for (uint i = 0; i < 2 * groups; i++) weft__store(&flags[i], 0u);
}

void __attribute__((convergent))
weft__barrier_wait(__global weft_barrier *b, uint impl) {
  weft__sync_barrier_wait(b, impl);
}

/* The launch's words are zero at its start, 16 to a cache line: native
 * uses words 0 to 31; two-stage uses words 32 and 33. */
void __attribute__((convergent)) weft__global_barrier(uint impl) {
  __global uint *w = __weft_launch_words();
  uint groups = weft__group_count();
  if (impl == WEFT_BARRIER_TWO_STAGE)
    WEFT__FOR_GROUP(weft__sync_two_stage_arrive(&w[32], groups));
#if WEFT__NATIVE_PARKS
  else WEFT__FOR_GROUP(weft__native_global_barrier_arrive(w, groups));
#else
  else WEFT__FOR_GROUP(weft__sync_flip_with_rank_0(w, groups));
#endif
}
