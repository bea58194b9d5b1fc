/*
 * sync_semaphore.cl: the semaphores of Stuart & Owens, "Efficient
 * Synchronization Primitives for GPUs" (2011): the spin semaphore, with
 * and without backoff (Algorithm 4), and the sleeping semaphore, whose
 * waiters queue (Algorithm 5).
 *
 * Layouts (uint words, word 3 the algorithm), {count, 0, 0} at first for
 * both: spin {count: free units, or BUSY while a group changes it};
 * sleeping {count: free units, negative when groups queue; head: queue
 * places let through; tail: queue places taken}.
 */
#include "sync.h"

/* ------------------------------------------------------ spin semaphore */

/* The count word is its own lock: a group exchanges BUSY into it, and
 * whoever gets a value other than BUSY owns the word until it stores the
 * new count. One atomic per attempt, as the paper advises. */
#define BUSY 0xffffffffu

/* Takes a unit if one is free; else 0, with what the word held in seen
 * (0, or BUSY while another group changes it). */
static int try_take(volatile __global uint *count, uint *seen) {
  uint c = EXCHANGE(count, BUSY);
  *seen = c;
  if (c == BUSY) return 0;
  STORE(count, c ? c - 1 : 0u);
  return c != 0;
}

void weft__semaphore_spin_wait(__global weft_semaphore *s) {
  uint seen;
  while (!try_take(&s->word[0], &seen))
    spin_turn(&s->word[0], seen, WAIT_SEMAPHORE);
}

/* The same, but after each failure the group backs off for a random
 * number of turns in a window that doubles (back_off in sync.h). */
void weft__semaphore_backoff_wait(__global weft_semaphore *s) {
  uint seen;
  backoff b = backoff_start();
  while (!try_take(&s->word[0], &seen))
    back_off(&s->word[0], seen, WAIT_SEMAPHORE, &b);
}

/* A group holds the word only between two of its own atomics, so a post
 * waits for it briefly. */
void weft__semaphore_spin_post(__global weft_semaphore *s) {
  volatile __global uint *count = &s->word[0];
  uint c;
  while ((c = EXCHANGE(count, BUSY)) == BUSY)
    spin_turn(count, BUSY, WAIT_SEMAPHORE);
  STORE(count, c + 1);
}

/* -------------------------------------------------- sleeping semaphore */

/* A unit is free if the count was positive; else the group takes the next
 * place in the queue and sleeps until a post lets that place through.
 * Places are let through in order, so the groups that queue are served
 * first come, first served. The queue counters wrap around: places are
 * compared by their signed difference.
 *
 * Sleeping is the paper's: polling a word that only plain loads read
 * (head), no atomic per turn, here polling it at each turn. Parking in the
 * runtime instead would need a wake of every sleeper at each post (the
 * runtime wakes by word, and all sleep on head): with thousands queued,
 * that costs more than their polling, which a post does not pay for. */
void weft__semaphore_sleeping_wait(__global weft_semaphore *s) {
  volatile __global uint *count = &s->word[0], *head = &s->word[1];
  if ((int)FETCH_SUB(count, 1u) > 0) return;
  uint place = FETCH_ADD(&s->word[2], 1u);
  while ((int)(LOAD(head) - place) <= 0)
    spin_until(head, place + 1, WAIT_SEMAPHORE);
}

/* A negative count means a group has queued, or is about to: let the next
 * place through. Its group may still be taking its place; it then finds
 * the place already let through and goes on at once. */
void weft__semaphore_sleeping_post(__global weft_semaphore *s) {
  if ((int)FETCH_ADD(&s->word[0], 1u) < 0) FETCH_ADD(&s->word[1], 1u);
}
