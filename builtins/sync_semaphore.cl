/*
 * sync_semaphore.cl: the semaphores of Stuart & Owens, "Efficient
 * Synchronization Primitives for GPUs" (2011): the spin semaphore, with
 * and without backoff (Algorithm 4), and the sleeping semaphore, whose
 * waiters queue (Algorithm 5).
 *
 * Layouts (uint words, word 3 the algorithm), {count, 0, 0} at first for
 * all: {given: the initial count plus one per post; drawn: one per wait;
 * spin: the units the spin algorithm took, in 31 bits, and its lock, the
 * top bit}. Every wait draws a unit (sync.cl) and every post adds one to
 * given (weft__semaphore_give), whatever the algorithm: so given minus
 * drawn is the count of free units, negative while groups queue.
 */
#include "sync.h"

/* ------------------------------------------------------ spin semaphore */

/* Algorithm 4's lock: the top bit of the spin word. */
#define SPIN_LOCKED 0x80000000u

/* An attempt: take the lock, look at the counts, take a unit if one is
 * free, unlock. 1 if it took a unit; else 0, with the word to poll before
 * the next attempt in *word and the value it had in *seen: the spin word
 * while another group holds the lock, given while no unit is free. */
static int try_take(__global weft_semaphore *s, volatile __global uint **word,
                    uint *seen) {
  volatile __global uint *spin = &s->word[2];
  uint taken = LOAD_RELAXED(spin);
  if ((taken & SPIN_LOCKED) || !cas(spin, taken, taken | SPIN_LOCKED)) {
    *word = spin;
    *seen = taken | SPIN_LOCKED;
    return 0;
  }
  /* Only the lock's holder takes units, and given only grows. The spin
   * word counts in 31 bits, so the difference is taken in 31 bits. */
  uint given = LOAD(&s->word[0]);
  int took = (int)((given - taken) << 1) > 0;
  /* The store that unlocks counts the unit too. */
  STORE(spin, took ? (taken + 1) & ~SPIN_LOCKED : taken);
  *word = &s->word[0];
  *seen = given;
  return took;
}

void weft__semaphore_spin_wait(__global weft_semaphore *s) {
  volatile __global uint *word;
  uint seen;
  while (!try_take(s, &word, &seen)) spin_turn(word, seen, WAIT_SEMAPHORE);
}

/* The same, but after each failure the group backs off for a random
 * number of turns in a window that doubles (back_off in sync.h). */
void weft__semaphore_backoff_wait(__global weft_semaphore *s) {
  volatile __global uint *word;
  uint seen;
  backoff b = backoff_start();
  while (!try_take(s, &word, &seen))
    back_off(word, seen, WAIT_SEMAPHORE, &b);
}

/* -------------------------------------------------- sleeping semaphore */

/* The drawn unit is free if given has passed it; else the group sleeps
 * until the posts reach it. Units are given in the order they were
 * drawn, so the groups that queue are served first come, first served.
 *
 * Sleeping is the paper's: polling a word that only plain loads read, no
 * atomic per turn, here polling it at each turn. Parking in the runtime
 * instead would need a wake of every sleeper at each post (the runtime
 * wakes by word, and all sleep on given): with thousands queued, that
 * costs more than their polling, which a post does not pay for. */
void weft__semaphore_sleeping_wait(__global weft_semaphore *s, uint mine,
                                   uint given) {
  volatile __global uint *g = &s->word[0];
  if (units_free(given, mine) > 0) return;
  while (units_free(LOAD(g), mine) <= 0)
    spin_until(g, mine + 1, WAIT_SEMAPHORE);
}

/* Every algorithm's post but the CPU's native one (sync.cl). */
void weft__semaphore_give(__global weft_semaphore *s) {
  RELEASE_ADD(&s->word[0], 1u);
}
