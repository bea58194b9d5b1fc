/*
 * sync.cl: cl_weft_sync's entry points (include/weft/kernel.h): each reads
 * the algorithm an object was initialized with (its word 3) and calls it.
 * Word 3 is 0 for the default: then impl, the calling program's build
 * option, decides, and native where the program has none. Values no
 * algorithm has get the native one. What all algorithms share needs no
 * dispatch: a mutex's first try and trylock everywhere, and on the GPU,
 * whose native algorithms share the paper's layouts, every unlock and
 * post (NATIVE_PARKS in sync.h).
 */
#include "sync.h"

/* The algorithm of the object whose words are w: 0 for the default,
 * which every dispatch below runs as native, as it does values no
 * algorithm has. Word 3 is written only by the object's init, before
 * the groups that use it start: a plain load, which the GPU may serve
 * from its L1 (an atomic one goes to the L2 each time). */
static uint chosen(const __global uint *w, uint impl) {
  uint a = w[3];
  return a ? a : impl;
}

/* ---------------------------------------------------------------- mutex */

/* Every algorithm's mutex starts as all zeros. */
void weft__mutex_init(__global weft_mutex *m, uint algorithm) {
  for (int i = 0; i < 3; i++) STORE(&m->word[i], 0u);
  STORE(&m->word[3], algorithm);
}

/* The first try is every algorithm's, made before the algorithm is read
 * (see NATIVE_PARKS in sync.h): the ticket mutex keeps its lock word
 * above 0 while groups queue, so that the try cannot jump the queue. */
void weft__mutex_lock(__global weft_mutex *m, uint impl) {
  if (cas(&m->word[0], 0u, HELD)) return;
  switch (chosen(m->word, impl)) {
  case WEFT_MUTEX_SPIN: weft__mutex_spin_lock(m); break;
  case WEFT_MUTEX_SPIN_BACKOFF: weft__mutex_backoff_lock(m); break;
  case WEFT_MUTEX_TICKET: weft__mutex_ticket_lock(m); break;
  default: weft__mutex_native_lock(m); break;
  }
}

/* Takes the mutex only if it is free and, for the ticket mutex, nobody
 * queues for it: the same first try for every algorithm. */
int weft__mutex_trylock(__global weft_mutex *m, uint impl) {
  (void)impl;
  return cas(&m->word[0], 0u, HELD);
}

static int paper_mutex(uint algorithm) {
  return algorithm == WEFT_MUTEX_SPIN || algorithm == WEFT_MUTEX_SPIN_BACKOFF ||
         algorithm == WEFT_MUTEX_TICKET;
}

/* On the CPU, where unlocks dispatch anyway, the spin locks, whose word
 * holds nothing but HELD, are freed by a store: an atomic AND cost the
 * uncontended pair twice the time on x86-64 (2.2 ns against 5 ns). */
void weft__mutex_unlock(__global weft_mutex *m, uint impl) {
#if NATIVE_PARKS
  uint a = chosen(m->word, impl);
  if (!paper_mutex(a)) {
    weft__mutex_native_unlock(m);
    return;
  }
  if (a != WEFT_MUTEX_TICKET) {
    STORE(&m->word[0], 0u);
    return;
  }
#endif
  (void)impl;
  weft__mutex_bit_unlock(m);
}

void __attribute__((convergent))
weft__mutex_lock_group(__global weft_mutex *m, uint impl) {
  FOR_GROUP(weft__mutex_lock(m, impl));
}

void __attribute__((convergent))
weft__mutex_unlock_group(__global weft_mutex *m, uint impl) {
  FOR_GROUP(weft__mutex_unlock(m, impl));
}

/* ------------------------------------------------------------ semaphore */

/* Every algorithm's semaphore starts as {count, 0, 0}. */
void weft__semaphore_init(__global weft_semaphore *s, int count,
                          uint algorithm) {
  STORE(&s->word[0], (uint)count);
  STORE(&s->word[1], 0u);
  STORE(&s->word[2], 0u);
  STORE(&s->word[3], algorithm);
}

static int paper_semaphore(uint algorithm) {
  return algorithm == WEFT_SEMAPHORE_SPIN ||
         algorithm == WEFT_SEMAPHORE_SPIN_BACKOFF ||
         algorithm == WEFT_SEMAPHORE_SLEEPING;
}

/* The algorithm, the draw and the units given are read at once where the
 * native semaphore draws too: given last, as its acquire holds back what
 * follows it. Given read early is only low: it grows. */
void weft__semaphore_wait(__global weft_semaphore *s, uint impl) {
  uint a = chosen(s->word, impl);
#if NATIVE_PARKS
  if (!paper_semaphore(a)) {
    weft__semaphore_native_wait(s);
    return;
  }
#endif
  uint mine = FETCH_ADD_RELAXED(&s->word[1], 1u);
  uint given = LOAD(&s->word[0]);
  switch (a) {
  case WEFT_SEMAPHORE_SPIN: weft__semaphore_spin_wait(s); break;
  case WEFT_SEMAPHORE_SPIN_BACKOFF: weft__semaphore_backoff_wait(s); break;
  case WEFT_SEMAPHORE_SLEEPING:
    weft__semaphore_sleeping_wait(s, mine, given);
    break;
#if !NATIVE_PARKS
  default: weft__semaphore_native_wait(s, mine, given); break;
#endif
  }
}

void weft__semaphore_post(__global weft_semaphore *s, uint impl) {
#if NATIVE_PARKS
  if (!paper_semaphore(chosen(s->word, impl))) {
    weft__semaphore_native_post(s);
    return;
  }
#endif
  (void)impl;
  weft__semaphore_give(s);
}

void __attribute__((convergent))
weft__semaphore_wait_group(__global weft_semaphore *s, uint impl) {
  FOR_GROUP(weft__semaphore_wait(s, impl));
}

void __attribute__((convergent))
weft__semaphore_post_group(__global weft_semaphore *s, uint impl) {
  FOR_GROUP(weft__semaphore_post(s, impl));
}

/* -------------------------------------------------------------- barrier */

/* Every algorithm's barrier starts as {0, 0, groups}; the Xiao-Feng one's
 * flags follow, zero. */
void weft__barrier_init(__global weft_barrier *b, uint groups, uint algorithm,
                        uint impl) {
  STORE(&b->word[0], 0u);
  STORE(&b->word[1], 0u);
  STORE(&b->word[2], groups);
  STORE(&b->word[3], algorithm);
  if ((algorithm ? algorithm : impl) != WEFT_BARRIER_XIAO_FENG) return;
  __global uint *flags = (__global uint *)(b + 1);
  for (uint i = 0; i < 2 * groups; i++) STORE(&flags[i], 0u);
}

void __attribute__((convergent))
weft__barrier_wait(__global weft_barrier *b, uint impl) {
  /* n, as the algorithm, was set before the groups started. */
  uint n = b->word[2];
  switch (chosen(b->word, impl)) {
  case WEFT_BARRIER_TWO_STAGE:
    FOR_GROUP(weft__barrier_two_stage_arrive(&b->word[0], n));
    break;
  case WEFT_BARRIER_XIAO_FENG:
    weft__barrier_xiao_feng_wait(b);
    break;
  default:
    FOR_GROUP(weft__barrier_native_arrive(b->word, n));
    break;
  }
}

/* The launch's words are zero at its start, 16 to a cache line: native
 * uses words 0 to 31 (sync_native.cl, nvptx/sync_native.cl); two-stage
 * uses words 32 and 33. */
void __attribute__((convergent)) weft__global_barrier(uint impl) {
  __global uint *w = __weft_launch_words();
  uint groups =
      (uint)(get_num_groups(0) * get_num_groups(1) * get_num_groups(2));
  if (impl == WEFT_BARRIER_TWO_STAGE)
    FOR_GROUP(weft__barrier_two_stage_arrive(&w[32], groups));
  else
    FOR_GROUP(weft__global_barrier_native_arrive(w, groups));
}
