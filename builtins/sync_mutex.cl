/*
 * sync_mutex.cl: the mutexes of Stuart & Owens, "Efficient Synchronization
 * Primitives for GPUs" (2011): the spin lock (Algorithm 1), the spin lock
 * with backoff (Algorithm 2) and the fetch-and-add, or ticket, mutex
 * (Algorithm 3).
 *
 * Layouts (uint words, word 3 the algorithm): spin and spin with backoff
 * {locked}; ticket {next ticket, now serving}. All zero is unlocked.
 *
 * A group that waits polls the lock's word at every turn: the holder has
 * started (it took the lock), so it is among the groups that go on
 * meanwhile.
 */
#include "sync.h"

/* ----------------------------------------------------------- spin locks */

int weft__mutex_spin_trylock(__global weft_mutex *m) {
  return cas(&m->word[0], 0, 1);
}

/* Algorithm 1: compare-and-swap 0 to 1 until it succeeds. */
void weft__mutex_spin_lock(__global weft_mutex *m) {
  while (!cas(&m->word[0], 0, 1)) spin_turn(&m->word[0], 1, WAIT_MUTEX);
}

/* Algorithm 2: the same, but each failure backs off for a while, in a
 * window that doubles, so that many waiters do not all retry at once. */
void weft__mutex_backoff_lock(__global weft_mutex *m) {
  backoff b = backoff_start();
  while (!cas(&m->word[0], 0, 1))
    back_off(&m->word[0], 1, WAIT_MUTEX, &b);
}

void weft__mutex_spin_unlock(__global weft_mutex *m) {
  STORE(&m->word[0], 0u);
}

/* ------------------------------------------------------- ticket mutex */

/* Algorithm 3: one fetch-and-add takes a ticket; then only loads, until
 * the holder's unlock serves that ticket. Groups are served in the order
 * they took their tickets. Counters wrap around harmlessly: only equality
 * is tested. */
void weft__mutex_ticket_lock(__global weft_mutex *m) {
  volatile __global uint *serving = &m->word[1];
  uint ticket = FETCH_ADD(&m->word[0], 1u);
  while (LOAD(serving) != ticket) spin_until(serving, ticket, WAIT_MUTEX);
}

/* Takes the next ticket only if it would be served at once: no holder, no
 * waiter. */
int weft__mutex_ticket_trylock(__global weft_mutex *m) {
  uint serving = LOAD(&m->word[1]);
  return cas(&m->word[0], serving, serving + 1);
}

/* Only the holder writes "now serving": a load and a store suffice. */
void weft__mutex_ticket_unlock(__global weft_mutex *m) {
  STORE(&m->word[1], LOAD_RELAXED(&m->word[1]) + 1);
}
