/*
 * weft/sync_algorithms.h: the synchronization algorithms between
 * work-groups, written once for every target. The OpenCL C builtins
 * include it for the CPU and the GPU (builtins/sync.cl, over the shim in
 * builtins/sync.h), and so does the CUDA header library
 * (weft/cuda/sync.cuh, over its own). It is not an interface: kernels use
 * weft/kernel.h, CUDA code weft/cuda/sync.cuh.
 *
 * The algorithms: the mutexes, semaphores and barrier of Stuart & Owens,
 * "Efficient Synchronization Primitives for GPUs" (2011), the barrier of
 * Xiao & Feng, "Inter-block GPU communication via fast barrier
 * synchronization" (2010), and the GPU's native ones (the CPU's park in
 * its runtime and are builtins/sync_native.cl). Object layouts are
 * weft/kernel.h's and the same on every target: 4 words, word 3 the
 * algorithm (0: the default, the caller's impl).
 *
 * Written in the C that OpenCL C 3.0 and CUDA C++ share, over a shim the
 * includer defines first. What differs between targets is only how a
 * group waits: a CPU group must give its thread away (to a group that has
 * started: poll; to one that may not have: park, and be woken), a GPU
 * thread sleeps, and the OpenCL path's sleeps are watched by its watchdog.
 *   WEFT__FN        the functions' qualifiers
 *   WEFT__GLOBAL    the objects' address space
 *   weft_mutex, weft_semaphore, weft_barrier: {unsigned word[4]}
 *   memory, on unsigned words: weft__load (acquire), weft__load_relaxed,
 *     weft__store (release), weft__store_relaxed, weft__cas (acquire; 1 if
 *     it swapped), weft__fetch_add (acq_rel), weft__fetch_add_relaxed,
 *     weft__fetch_or_acquire, weft__exchange (acq_rel; only where
 *     WEFT__WAKES), and weft__add_release, weft__and_release, whose old
 *     value nobody waits for (a GPU's red);
 *   waits, each one turn of a loop that tests its condition again after
 *     it; w points to the wait's weft__watch (WEFT__WATCH_INIT), what is
 *     weft/kernel.h's WEFT__WAIT_*, ns how long a GPU sleeps:
 *     weft__poll(w, word, seen, what, ns)    until *word leaves seen, the
 *                                            group it waits for started
 *     weft__await(w, word, target, what, ns) until the counter *word
 *                                            reaches target
 *     weft__park(w, word, seen, what, ns)    until *word leaves seen, the
 *                                            group it waits for maybe not
 *                                            started: it wakes the waiter
 *     weft__wake(word)                       wakes every group parked on word
 *     weft__sleep(w, word, what, ns)         a GPU's sleep
 *     weft__pause(w, word, seen, what, draw) a back-off's wait: draw (0 to
 *                                            its window - 1) plus 1 turns
 *                                            of poll, or draw ns of sleep
 *   WEFT__BACKOFF_FIRST, WEFT__BACKOFF_CAP: the first and the largest
 *     window of a back-off, in weft__pause's units;
 *   weft__seed(): a back-off's seed, different in every group;
 *   groups: weft__group_rank(), weft__group_count(), weft__item_rank(),
 *     weft__item_count(), weft__group_barrier() (every item of the group
 *     comes; global memory ordered);
 *   WEFT__NATIVE_PARKS: 1 where the native algorithms are the includer's
 *     (weft__native_mutex_lock/_unlock, weft__native_semaphore_wait/_post,
 *     weft__native_barrier_arrive), 0 for the GPU's, below;
 *   WEFT__WAKES: 1 where a parked group needs a wake (on a GPU a wake is
 *     nothing, and nothing need say who parked);
 *   WEFT__BARRIER_FROM_RANK_0: 1 where a barrier of n groups always counts
 *     the groups of rank 0 to n - 1.
 */
#ifndef WEFT_SYNC_ALGORITHMS_H
#define WEFT_SYNC_ALGORITHMS_H

#include "kernel.h"

/* The algorithm of the object whose words are w: its word 3, else the
 * caller's default. Word 3 is written only by the object's init, before
 * the groups that use it start: a plain load, which a GPU may serve from
 * its L1. Where it is read matters as much: an acquire empties a GPU
 * SM's L1, so a read after one goes to the L2 and the caller waits for
 * it. On an H100, the unlock's read of word 3 after the lock's acquire
 * cost the native mutex a quarter of its rate. So on the GPU every unlock
 * and post is the same for all algorithms and reads nothing, a lock reads
 * word 3 only once its first try has failed, and a semaphore wait reads
 * it while its first atomic, the same for all algorithms, is on its way. */
WEFT__FN unsigned weft__sync_chosen(const WEFT__GLOBAL unsigned *w,
                                    unsigned impl) {
  unsigned a = w[3];
  return a ? a : impl;
}

/* ------------------------------------------------------------ back-off */

/* After a failed attempt, wait a random draw in a window that doubles up
 * to a cap. The draw matters: groups that failed together would, with a
 * fixed delay, all retry together and all wait together again (on the
 * CPU, 4096 groups on one thread took 36 s instead of 1). {0, 0} at
 * first: the first back-off seeds it, so that a call that takes at once
 * reads no clock. */
typedef struct weft__backoff {
  unsigned window, state;
} weft__backoff;

/* The next of a cheap random sequence (xorshift32; state not 0). */
WEFT__FN unsigned weft__sync_random(weft__backoff *b) {
  unsigned x = b->state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return b->state = x;
}

/* The next draw of a window that starts at first and doubles up to cap. */
WEFT__FN unsigned weft__sync_draw(weft__backoff *b, unsigned first,
                                  unsigned cap) {
  if (!b->window) {
    b->window = first;
    b->state = weft__seed() | 1u;
  }
  unsigned draw = weft__sync_random(b) % b->window;
  if (b->window < cap) b->window *= 2;
  return draw;
}

WEFT__FN void weft__sync_back_off(weft__watch *w, WEFT__GLOBAL unsigned *word,
                                  unsigned seen, unsigned what,
                                  weft__backoff *b) {
  weft__pause(w, word, seen, what,
              weft__sync_draw(b, WEFT__BACKOFF_FIRST, WEFT__BACKOFF_CAP));
}

/* Every thread of the group comes, item 0 acts for the group, none goes
 * on before it has: the paper's block semantics. */
#define WEFT__FOR_GROUP(call)                                                \
  do {                                                                       \
    weft__group_barrier();                                                   \
    if (weft__item_rank() == 0) call;                                        \
    weft__group_barrier();                                                   \
  } while (0)

/* --------------------------------------------------------------- mutex */

/* Every algorithm's word 0 has bit 0 set while the mutex is held, and
 * every algorithm takes a free mutex by a compare-and-swap of word 0 from
 * 0 (free, and no ticket ever drawn) to HELD: that first try is made
 * before the algorithm is read. Every unlock but the CPU's native one
 * clears HELD. */
#define WEFT__HELD 1u

/* Algorithm 1: compare-and-swap until it succeeds (a GPU spins). */
WEFT__FN void weft__sync_spin_lock(WEFT__GLOBAL weft_mutex *m) {
  weft__watch w = WEFT__WATCH_INIT;
  while (!weft__cas(&m->word[0], 0u, WEFT__HELD))
    weft__poll(&w, &m->word[0], WEFT__HELD, WEFT__WAIT_MUTEX, 0u);
}

/* Algorithm 2: the same, but backing off before each try (the first try
 * has failed), in a window that doubles, so that waiters do not all
 * retry at once. */
WEFT__FN void weft__sync_backoff_lock(WEFT__GLOBAL weft_mutex *m) {
  weft__watch w = WEFT__WATCH_INIT;
  weft__backoff b = {0u, 0u};
  do weft__sync_back_off(&w, &m->word[0], WEFT__HELD, WEFT__WAIT_MUTEX, &b);
  while (!weft__cas(&m->word[0], 0u, WEFT__HELD));
}

/* Algorithm 3, the ticket mutex: {lock: HELD while held, plus TICKET for
 * each ticket ever drawn; 0; the ticket whose turn it is}. One add to the
 * lock word draws a ticket and, as the word is no longer 0, makes every
 * later first try fail: nobody jumps the queue. All zeros is a free
 * mutex, and one never contended is taken and freed by first tries
 * alone. The group whose turn it is takes HELD as soon as the lock is
 * free and passes the turn on. The take is an atomic OR that says whether
 * HELD was free, not a store after a load found it free: that load may
 * read a value older than the previous holder's take. Tickets count in
 * 31 bits and wrap: only equality counts (at the wrap a CPU group's poll
 * for its turn may return early; it looks again). Counting the groups in
 * the queue instead, so that the lock word falls back to 0, takes three
 * atomics a contended lock for this one's two: on an H200 it ran at 0.84x
 * to 1.02x the rate of the CUDA header's former ticket mutex, which drew
 * as this one does, from 2 to 1056 blocks. */
#define WEFT__TICKET 2u
#define WEFT__TICKETS 0x7fffffffu

WEFT__FN void weft__sync_ticket_lock(WEFT__GLOBAL weft_mutex *m) {
  WEFT__GLOBAL unsigned *lock = &m->word[0], *turn = &m->word[2];
  weft__watch w = WEFT__WATCH_INIT;
  unsigned ticket = weft__fetch_add_relaxed(lock, WEFT__TICKET) >> 1;
  /* A GPU waits in proportion to the holders ahead, up to 64. */
  for (unsigned now; (now = weft__load(turn)) != ticket;) {
    unsigned ahead = (ticket - now) & WEFT__TICKETS;
    weft__await(&w, turn, ticket, WEFT__WAIT_MUTEX,
                64u * (ahead < 64u ? ahead : 64u));
  }
  while (weft__fetch_or_acquire(lock, WEFT__HELD) & WEFT__HELD)
    for (unsigned c; (c = weft__load_relaxed(lock)) & WEFT__HELD;)
      weft__poll(&w, lock, c, WEFT__WAIT_MUTEX, 32u);
  weft__store_relaxed(turn, (ticket + 1u) & WEFT__TICKETS);
}

/* A ticket mutex that is free and whose every ticket has been served:
 * one compare-and-swap draws the next ticket and takes the lock. With the
 * turn read first, the compare-and-swap proves that nobody queued. */
WEFT__FN int weft__sync_ticket_trylock(WEFT__GLOBAL weft_mutex *m) {
  unsigned turn = weft__load(&m->word[2]);
  unsigned c = weft__load_relaxed(&m->word[0]);
  if ((c & WEFT__HELD) || (c >> 1) != turn ||
      !weft__cas(&m->word[0], c, c + WEFT__TICKET + WEFT__HELD))
    return 0;
  weft__store_relaxed(&m->word[2], (turn + 1u) & WEFT__TICKETS);
  return 1;
}

#if !WEFT__NATIVE_PARKS
/* The GPU's native mutex, test and test-and-set: sleep a random time in
 * a window that doubles up to MUTEX_SLEEP_CAP_NS, until a relaxed load
 * finds the lock free, then try again. Waiters that look seldom leave the
 * lock's line to its holder (on the H100, a 4096 ns cap against 1024 took
 * it from 0.77x to 0.82x of libcu++'s binary_semaphore at 1056 blocks). */
#ifndef WEFT__MUTEX_SLEEP_CAP_NS
#define WEFT__MUTEX_SLEEP_CAP_NS 4096u
#endif

WEFT__FN void weft__native_mutex_lock(WEFT__GLOBAL weft_mutex *m) {
  WEFT__GLOBAL unsigned *lock = &m->word[0];
  weft__watch w = WEFT__WATCH_INIT;
  weft__backoff b = {0u, 0u};
  do {
    do weft__sleep(&w, lock, WEFT__WAIT_MUTEX,
                   weft__sync_draw(&b, 32u, WEFT__MUTEX_SLEEP_CAP_NS));
    while (weft__load_relaxed(lock));
  } while (!weft__cas(lock, 0u, WEFT__HELD));
}
#endif

/* 1 if it took the mutex: free, and (ticket) nobody queued. The
 * algorithm is read only if the first try failed. */
WEFT__FN int weft__sync_mutex_trylock(WEFT__GLOBAL weft_mutex *m,
                                      unsigned impl) {
  if (weft__cas(&m->word[0], 0u, WEFT__HELD)) return 1;
  return weft__sync_chosen(m->word, impl) == WEFT_MUTEX_TICKET &&
         weft__sync_ticket_trylock(m);
}

WEFT__FN void weft__sync_mutex_lock(WEFT__GLOBAL weft_mutex *m,
                                    unsigned impl) {
  if (weft__cas(&m->word[0], 0u, WEFT__HELD)) return;
  switch (weft__sync_chosen(m->word, impl)) {
  case WEFT_MUTEX_SPIN: weft__sync_spin_lock(m); break;
  case WEFT_MUTEX_SPIN_BACKOFF: weft__sync_backoff_lock(m); break;
  case WEFT_MUTEX_TICKET: weft__sync_ticket_lock(m); break;
  default: weft__native_mutex_lock(m); break;
  }
}

/* On the GPU one and the same atomic for every algorithm, reading nothing
 * (see weft__sync_chosen). On the CPU, where unlocks dispatch anyway, the
 * spin locks, whose word holds nothing but HELD, are freed by a store: an
 * atomic AND cost the uncontended pair twice the time on x86-64. */
WEFT__FN void weft__sync_mutex_unlock(WEFT__GLOBAL weft_mutex *m,
                                      unsigned impl) {
#if WEFT__NATIVE_PARKS
  switch (weft__sync_chosen(m->word, impl)) {
  case WEFT_MUTEX_SPIN:
  case WEFT_MUTEX_SPIN_BACKOFF: weft__store(&m->word[0], 0u); return;
  case WEFT_MUTEX_TICKET: break;
  default: weft__native_mutex_unlock(m); return;
  }
#endif
  (void)impl;
  weft__and_release(&m->word[0], ~WEFT__HELD);
}

/* ----------------------------------------------------------- semaphore */

/* Every semaphore but the CPU's native one counts the units given in word
 * 0 (its initial count, then one per post) and the units drawn in word 1,
 * one per wait, made while the read of its algorithm is on its way (see
 * weft__sync_chosen), and a post adds one to given and waits for nothing.
 * A drawn unit is free once the units given have passed it. Counters
 * wrap: only signed differences count. */
WEFT__FN int weft__sync_units_free(unsigned given, unsigned drawn) {
  return (int)(given - drawn);
}

/* Algorithm 4, the spin semaphore, does not use its draws: an attempt
 * takes a lock, looks at the counts, takes a unit if one is free and
 * unlocks. The lock is word 2's top bit, the units it took its other 31
 * bits. */
#define WEFT__SPIN_LOCKED 0x80000000u

/* An attempt: 1 if it took a unit; else 0, with the word to poll before
 * the next in *word and its value in *seen: the spin word while another
 * group holds its lock, given while no unit is free. */
WEFT__FN int weft__sync_spin_take(WEFT__GLOBAL weft_semaphore *s,
                                  WEFT__GLOBAL unsigned **word,
                                  unsigned *seen) {
  WEFT__GLOBAL unsigned *spin = &s->word[2];
  unsigned taken = weft__load_relaxed(spin);
  if ((taken & WEFT__SPIN_LOCKED) ||
      !weft__cas(spin, taken, taken | WEFT__SPIN_LOCKED)) {
    *word = spin;
    *seen = taken | WEFT__SPIN_LOCKED;
    return 0;
  }
  /* Only the lock's holder takes units, and given only grows. The spin
   * word counts in 31 bits, so the difference is taken in 31 bits. */
  unsigned given = weft__load(&s->word[0]);
  int took = (int)((given - taken) << 1) > 0;
  /* The store that unlocks counts the unit too. */
  weft__store(spin, took ? (taken + 1u) & ~WEFT__SPIN_LOCKED : taken);
  *word = &s->word[0];
  *seen = given;
  return took;
}

WEFT__FN void weft__sync_spin_wait(WEFT__GLOBAL weft_semaphore *s,
                                   int back_off) {
  weft__watch w = WEFT__WATCH_INIT;
  weft__backoff b = {0u, 0u};
  WEFT__GLOBAL unsigned *word;
  unsigned seen;
  while (!weft__sync_spin_take(s, &word, &seen)) {
    if (back_off)
      weft__sync_back_off(&w, word, seen, WEFT__WAIT_SEMAPHORE, &b);
    else weft__poll(&w, word, seen, WEFT__WAIT_SEMAPHORE, 0u);
  }
}

/* Algorithm 5, the sleeping semaphore: the drawn unit (mine) is free if
 * given has passed it; else the group waits until the posts reach it.
 * Units are given in the order they were drawn: first come, first
 * served. The paper's sleep: polling a word that only plain loads read,
 * no atomic per turn (on the CPU, parking instead would need a wake of
 * every sleeper at each post, which with thousands queued costs more than
 * their polling). */
WEFT__FN void weft__sync_sleeping_wait(WEFT__GLOBAL weft_semaphore *s,
                                       unsigned mine, unsigned given) {
  WEFT__GLOBAL unsigned *g = &s->word[0];
  weft__watch w = WEFT__WATCH_INIT;
  if (weft__sync_units_free(given, mine) > 0) return;
  while (weft__sync_units_free(weft__load(g), mine) <= 0)
    weft__await(&w, g, mine + 1u, WEFT__WAIT_SEMAPHORE, 100u);
}

#if !WEFT__NATIVE_PARKS
/* The GPU's native semaphore: first come, first served, as the sleeping
 * one, but a waiter sleeps in proportion to the units ahead of it, up to
 * 64 of them. */
WEFT__FN void weft__native_semaphore_wait(WEFT__GLOBAL weft_semaphore *s,
                                          unsigned mine, unsigned given) {
  WEFT__GLOBAL unsigned *g = &s->word[0];
  weft__watch w = WEFT__WATCH_INIT;
  for (int ahead; (ahead = -weft__sync_units_free(given, mine)) >= 0;) {
    unsigned n = (unsigned)ahead + 1u;
    weft__sleep(&w, g, WEFT__WAIT_SEMAPHORE, 64u * (n < 64u ? n : 64u));
    given = weft__load(g);
  }
}
#endif

#if WEFT__NATIVE_PARKS
/* Whether a semaphore's algorithm is one of the paper's, which count
 * given and drawn units, rather than the CPU's parking native one. */
WEFT__FN int weft__sync_paper_semaphore(unsigned a) {
  return a == WEFT_SEMAPHORE_SPIN || a == WEFT_SEMAPHORE_SPIN_BACKOFF ||
         a == WEFT_SEMAPHORE_SLEEPING;
}
#endif

/* The algorithm, the draw and the units given are read at once: given
 * last, as its acquire holds back what follows it. Given read early is
 * only low: it grows. */
WEFT__FN void weft__sync_semaphore_wait(WEFT__GLOBAL weft_semaphore *s,
                                        unsigned impl) {
  unsigned a = weft__sync_chosen(s->word, impl);
#if WEFT__NATIVE_PARKS
  if (!weft__sync_paper_semaphore(a)) {
    weft__native_semaphore_wait(s);
    return;
  }
#endif
  unsigned mine = weft__fetch_add_relaxed(&s->word[1], 1u);
  unsigned given = weft__load(&s->word[0]);
  switch (a) {
  case WEFT_SEMAPHORE_SPIN: weft__sync_spin_wait(s, 0); break;
  case WEFT_SEMAPHORE_SPIN_BACKOFF: weft__sync_spin_wait(s, 1); break;
  case WEFT_SEMAPHORE_SLEEPING:
    weft__sync_sleeping_wait(s, mine, given);
    break;
#if !WEFT__NATIVE_PARKS
  default: weft__native_semaphore_wait(s, mine, given); break;
#endif
  }
}

/* On the GPU the same for every algorithm, reading nothing. */
WEFT__FN void weft__sync_semaphore_post(WEFT__GLOBAL weft_semaphore *s,
                                        unsigned impl) {
#if WEFT__NATIVE_PARKS
  if (!weft__sync_paper_semaphore(weft__sync_chosen(s->word, impl))) {
    weft__native_semaphore_post(s);
    return;
  }
#endif
  (void)impl;
  weft__add_release(&s->word[0], 1u);
}

/* ------------------------------------------------------------- barrier */

/* Two-stage (Stuart & Owens), {count 1, count 2, groups}: in each stage
 * the last of n groups resets the count and wakes the others, which wait
 * for the reset. A group out of the first stage early cannot count itself
 * into the first stage of the next use before every group has left it:
 * the second stage lets no group through before all have arrived there,
 * and the same holds of the second stage with respect to the first. */
WEFT__FN void weft__sync_stage(WEFT__GLOBAL unsigned *count, unsigned n) {
  if (weft__fetch_add(count, 1u) == n - 1u) {
    weft__store(count, 0u);
    weft__wake(count);
    return;
  }
  weft__watch w = WEFT__WATCH_INIT;
  for (unsigned c; (c = weft__load(count)) != 0u;)
    weft__park(&w, count, c, WEFT__WAIT_BARRIER, 32u);
}

/* One group's arrival (one work-item's call). */
WEFT__FN void weft__sync_two_stage_arrive(WEFT__GLOBAL unsigned *counts,
                                          unsigned n) {
  weft__sync_stage(&counts[0], n);
  weft__sync_stage(&counts[1], n);
}

/* Xiao-Feng, {0, 0, groups}, then arrived[groups], released[groups]: a
 * flag holds the number of uses of the barrier its group has arrived at
 * (arrived) or been released from (released), in 31 bits. Each group
 * raises its arrival flag; group 0's items wait for every flag, then
 * raise every release flag, each of which one group waits for. Where a
 * wake is needed, a flag's top bit says that the one group that waits on
 * it has parked, so that the one group that raises it knows to wake it. */
#define WEFT__PARKED 0x80000000u

WEFT__FN unsigned weft__sync_flag_value(unsigned flag) {
  return flag & ~WEFT__PARKED;
}

WEFT__FN void weft__sync_await_flag(WEFT__GLOBAL unsigned *flag,
                                    unsigned goal) {
  weft__watch w = WEFT__WATCH_INIT;
  for (;;) {
    unsigned f = weft__load(flag);
    if (weft__sync_flag_value(f) == goal) return;
#if WEFT__WAKES
    if (!(f & WEFT__PARKED) && !weft__cas(flag, f, f | WEFT__PARKED))
      continue;
    f |= WEFT__PARKED;
#endif
    weft__park(&w, flag, f, WEFT__WAIT_BARRIER, 32u);
  }
}

WEFT__FN void weft__sync_raise_flag(WEFT__GLOBAL unsigned *flag,
                                    unsigned goal) {
#if WEFT__WAKES
  if (weft__exchange(flag, goal) & WEFT__PARKED) weft__wake(flag);
#else
  weft__store(flag, goal);
#endif
}

/* Group 0's items share the waiting for the others' arrival flags and the
 * raising of their release flags (on a GPU they run at once). */
WEFT__FN void weft__sync_xiao_feng_master(WEFT__GLOBAL unsigned *arrived,
                                          WEFT__GLOBAL unsigned *released,
                                          unsigned n, unsigned goal) {
  unsigned items = weft__item_count(), first = weft__item_rank();
  /* Group 0 waits on no flag, but its flags count the uses too; its
   * release flag is raised with the others', after the wait. */
  if (first == 0u) weft__store(&arrived[0], goal);
  for (unsigned j = 1u + first; j < n; j += items)
    weft__sync_await_flag(&arrived[j], goal);
  weft__group_barrier();
  for (unsigned j = first; j < n; j += items)
    weft__sync_raise_flag(&released[j], goal);
}

/* Every item of the group calls it, with the barrier's n. Each group's
 * goal is one more than its own arrival flag, which only it writes: every
 * item reads it before the group's barrier, and item 0 raises it after. */
WEFT__FN void weft__sync_xiao_feng_wait(WEFT__GLOBAL weft_barrier *b,
                                        unsigned n) {
  unsigned id = weft__group_rank();
  WEFT__GLOBAL unsigned *arrived = (WEFT__GLOBAL unsigned *)(b + 1);
  WEFT__GLOBAL unsigned *released = arrived + n;
  unsigned goal =
      weft__sync_flag_value(weft__sync_flag_value(weft__load(&arrived[id])) +
                            1u);
  weft__group_barrier();
  if (id == 0u) {
    weft__sync_xiao_feng_master(arrived, released, n, goal);
  } else if (weft__item_rank() == 0u) {
    weft__sync_raise_flag(&arrived[id], goal);
    weft__sync_await_flag(&released[id], goal);
  }
  weft__group_barrier();
}

#if !WEFT__NATIVE_PARKS
/* The GPU's native barrier, {count, 0, groups}: one atomic add per group
 * on one word whose top bit flips when the last group arrives, the others
 * polling it. The count's low bits are back where they started after each
 * use. */
#define WEFT__FLIP 0x80000000u

/* Waits for the top bit of *word to differ from old's. */
WEFT__FN void weft__sync_await_flip(WEFT__GLOBAL unsigned *word,
                                    unsigned old) {
  weft__watch w = WEFT__WATCH_INIT;
  while (!((weft__load(word) ^ old) & WEFT__FLIP))
    weft__sleep(&w, word, WEFT__WAIT_BARRIER, 32u);
}

/* Over groups that include rank 0: it adds FLIP - (n - 1), the others 1,
 * so that the top bit flips with the last add, whichever group makes it,
 * and no group waits for another's result (weft_global_barrier(): 1.00x
 * to 1.24x grid.sync() on an H100). */
WEFT__FN void weft__sync_flip_with_rank_0(WEFT__GLOBAL unsigned *word,
                                          unsigned n) {
  unsigned add = weft__group_rank() == 0u ? WEFT__FLIP - (n - 1u) : 1u;
  weft__sync_await_flip(word, weft__fetch_add(word, add));
}

/* Over any n groups: each adds 1, and the last, finding n - 1 before it,
 * adds FLIP - n without waiting for the result. It costs the others a
 * round trip more: on an H100, over every group, 0.62x to 0.83x
 * grid.sync() from 1 to 1056 groups, against 0.85x to 1.06x above. */
WEFT__FN void weft__sync_flip_any(WEFT__GLOBAL unsigned *word, unsigned n) {
  unsigned old = weft__fetch_add(word, 1u);
  if ((old & ~WEFT__FLIP) == n - 1u) {
    weft__add_release(word, WEFT__FLIP - n);
    return;
  }
  weft__sync_await_flip(word, old);
}

/* One group's arrival at a native barrier of n groups. */
WEFT__FN void weft__native_barrier_arrive(WEFT__GLOBAL unsigned *words,
                                          unsigned n) {
  if (WEFT__BARRIER_FROM_RANK_0 || n == weft__group_count())
    weft__sync_flip_with_rank_0(&words[0], n);
  else weft__sync_flip_any(&words[0], n);
}
#endif

/* Every item of each of the barrier's groups calls it; none goes on
 * before all of them have arrived. n, as the algorithm, was set before
 * the groups started: a plain load. (An acquire of it, with group 0
 * raising its release flag before it waited for the others, cost the
 * CUDA header's Xiao-Feng barrier 7% to 13% of its rate on an H100.) */
WEFT__FN void weft__sync_barrier_wait(WEFT__GLOBAL weft_barrier *b,
                                      unsigned impl) {
  unsigned n = b->word[2];
  switch (weft__sync_chosen(b->word, impl)) {
  case WEFT_BARRIER_TWO_STAGE:
    WEFT__FOR_GROUP(weft__sync_two_stage_arrive(&b->word[0], n));
    break;
  case WEFT_BARRIER_XIAO_FENG: weft__sync_xiao_feng_wait(b, n); break;
  default: WEFT__FOR_GROUP(weft__native_barrier_arrive(b->word, n)); break;
  }
}

#endif
