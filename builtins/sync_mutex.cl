/*
 * sync_mutex.cl: the mutexes of Stuart & Owens, "Efficient Synchronization
 * Primitives for GPUs" (2011): the spin lock (Algorithm 1), the spin lock
 * with backoff (Algorithm 2) and the fetch-and-add, or ticket, mutex
 * (Algorithm 3). sync.cl makes the first try, a compare-and-swap of word
 * 0 from 0 to HELD, for all of them; these are called when it failed.
 *
 * Layouts (uint words, word 3 the algorithm): spin and spin with backoff
 * {lock: HELD or 0}; ticket {lock: HELD while held, plus 2 for each group
 * that queues; next ticket; ticket whose turn it is}. All zero is
 * unlocked, and every unlock clears HELD.
 *
 * A group that waits polls the lock's word at every turn: the holder has
 * started (it took the lock), so it is among the groups that go on
 * meanwhile.
 */
#include "sync.h"

/* ----------------------------------------------------------- spin locks */

/* Algorithm 1: compare-and-swap 0 to HELD until it succeeds. */
void weft__mutex_spin_lock(__global weft_mutex *m) {
  while (!cas(&m->word[0], 0, HELD)) spin_turn(&m->word[0], HELD, WAIT_MUTEX);
}

/* Algorithm 2: the same, but each failure backs off for a while, in a
 * window that doubles, so that many waiters do not all retry at once. */
void weft__mutex_backoff_lock(__global weft_mutex *m) {
  backoff b = backoff_start();
  while (!cas(&m->word[0], 0, HELD))
    back_off(&m->word[0], HELD, WAIT_MUTEX, &b);
}

/* Every algorithm's but the CPU's native one (sync.cl). */
void weft__mutex_bit_unlock(__global weft_mutex *m) {
  RELEASE_AND(&m->word[0], ~HELD);
}

/* ------------------------------------------------------- ticket mutex */

/* A group in the queue counts 2 in the lock word. */
#define QUEUED 2u

/* Algorithm 3: one fetch-and-add takes a ticket; then only loads, until
 * the ticket before it has taken the lock and passed on the turn. Then
 * the group takes the lock as soon as it is free, and passes the turn on.
 * Groups are served in the order they took their tickets: the first try
 * of a group that comes later finds the lock word above 0 while any group
 * queues. Counters wrap around harmlessly: only equality is tested. */
void weft__mutex_ticket_lock(__global weft_mutex *m) {
  volatile __global uint *lock = &m->word[0], *turn = &m->word[2];
  FETCH_ADD(lock, QUEUED);
  uint ticket = FETCH_ADD(&m->word[1], 1u);
  while (LOAD(turn) != ticket) spin_until(turn, ticket, WAIT_MUTEX);
  /* Only the group whose turn it is takes HELD and leaves the queue. */
  for (uint c;;) {
    c = LOAD(lock);
    if (c & HELD) spin_turn(lock, c, WAIT_MUTEX);
    else if (cas(lock, c, c - QUEUED + HELD)) break;
  }
  STORE(turn, ticket + 1);
}
