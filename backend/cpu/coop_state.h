/*
 * coop_state.h: a cooperative launch's state (scheduler.h's cooperative
 * scheduler), owned by coop.c, which makes it when the launch begins and
 * frees it when it ends, and read by pct.c, the PCT schedule mode's part
 * of the scheduler, and resize.c, the part that kills and forks a
 * cooperative kernel's groups. No other file includes it.
 */
#ifndef WEFT_BACKEND_CPU_COOP_STATE_H
#define WEFT_BACKEND_CPU_COOP_STATE_H

#include <pthread.h>
#include <stdint.h>

#include "backend/cpu/executor_internal.h"
#include "base/lock.h"

/* A forked group that has not started yet (resize.c): its id, the fork
 * point it resumes after, and its work-items' transmit records (heap;
 * NULL: the kernel has none). */
typedef struct resize_start {
  uint64_t id;
  uint32_t site;
  unsigned char *records;
} resize_start;

/* A cooperative kernel's changing groups (WEFT_KERNEL_RESIZABLE;
 * resize.c), guarded by coop_lock; live is also read without it by the
 * launches that wait for its threads (share.c), live and arrived by its
 * groups that wait to be given back. */
typedef struct coop_resize {
  int on;
  _Alignas(8) uint64_t live; /* groups running: ids 0 to live - 1 */
  uint64_t max;              /* the most it may have at once */
  uint64_t initial;          /* the groups it starts with */
  resize_start *pending;     /* forks to start, the oldest at head */
  size_t head, count, capacity;
  size_t record_bytes;       /* a group's transmit records */
  /* The resizing barrier: groups arrived, the word they wait on, group
   * 0's records and site once it arrived. */
  uint64_t arrived;
  uint32_t generation;
  /* The groups that go on past an opening, by its new generation's
   * parity: a group late to look reads its own opening's. */
  uint64_t target[2];
  const unsigned char *records0;
  uint32_t site0;
} coop_resize;

struct coop_launch {
  /* All guarded by coop_lock, on a cache line of its own. Waiting groups
   * read running, num_ready, next_group and num_resident without it (a
   * hint whether to spin), wakers num_waiting (whether to take it),
   * groups waiting to be given back returned (resize.c). */
  _Alignas(64) weft_lock coop_lock;
  pthread_cond_t coop_changed; /* a group became ready or finished, or the
                                  launch failed */
  coop_slot *ready_head, *ready_tail;
  unsigned num_ready;
  int watching;                /* an idle thread watches polling groups */
  coop_slot *waiting;          /* parked (or parking) groups, oldest first */
  coop_slot **waiting_end;     /* its last link: appending costs O(1) */
  /* The word every listed group waits on; NULL when they wait on
   * different words, or none waits (so non-NULL says the list holds some). */
  const volatile uint32_t *waiting_on;
  coop_slot *resident;         /* every started, unfinished group */
  uint64_t next_group;         /* the next group index to start */
  /* The groups the launch starts in all: its own, or, for a cooperative
   * kernel, the first ones and every fork so far. */
  uint64_t starts;
  uint64_t finished;
  uint64_t returned;           /* finished without being killed */
  unsigned running, num_resident, limit;
  unsigned running_spinners;   /* running, and last stopped spinning */
  unsigned sleepers;           /* threads waiting on coop_changed */
  unsigned num_waiting;        /* groups in the waiting list */
  /* Groups that only spin (yield in polling loops) make no event: when
   * nothing else happens for spin_timeout, they wait for each other. */
  uint64_t events, spin_events, spin_settles;
  double spin_start;
  /* Under pct (pct.c), on its one thread: the step count, the steps
   * where the running work-item's priority drops (ascending), how many
   * dropped, the floor that yielding work-items go below, and the priority
   * of the next group to start (that of its best work-item); pct_base
   * fixes the work-items' first priorities. */
  uint64_t pct_base, pct_steps;
  uint64_t pct_rate;  /* without a DEPTH: a change point's chance * 2^64 */
  uint64_t pct_change[WEFT_PCT_DEPTH_MAX];
  unsigned pct_changes, pct_changed;
  int64_t pct_floor;
  uint64_t pct_next_group;
  int64_t pct_next_priority;
  /* Under exhaustive (coop.c): the work-item a decision at a schedule
   * point chose in another group (slot NULL: the next group to start),
   * and the group that last stopped to spin (not chosen again at once). */
  int explore_has_target;
  coop_slot *explore_target;
  unsigned explore_target_item;
  coop_slot *explore_spinner;
  coop_resize resize;
};

/* coop.c's, for resize.c: at a cooperative kernel's point, group g lets
 * a group that waits to run or to start have its thread (a yield that
 * counts as progress); with none, it goes on. Without it, groups forked
 * past the threads would wait for the forking group's end. */
void weft__coop_offer_thread(cpu_group *g);

#endif /* WEFT_BACKEND_CPU_COOP_STATE_H */
