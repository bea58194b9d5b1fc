/*
 * sync_barrier.cl: barriers between work-groups: the two-stage atomic
 * barrier of Stuart & Owens (2011) and the decentralized barrier of Xiao
 * & Feng, "Inter-block GPU communication via fast barrier
 * synchronization" (2010).
 *
 * Layouts (uint words, word 3 the algorithm): two-stage {count 1,
 * count 2, groups}; Xiao-Feng {0, 0, groups}, then arrived[groups],
 * released[groups].
 *
 * A barrier waits for groups that may not have started yet, which a yield
 * would not let start: waiters park, and whoever releases them wakes them.
 */
#include "sync.h"

/* ------------------------------------------------------------ two-stage */

/* One stage: every group adds itself to the count; the last of n resets
 * it to 0 and wakes the others, which wait for the reset. */
static void stage(volatile __global uint *count, uint n) {
  if (FETCH_ADD(count, 1u) == n - 1) {
    STORE(count, 0u);
    __weft_wake(count, WAKE_ALL);
    return;
  }
  uint c;
  while ((c = LOAD(count)) != 0) __weft_wait(count, c, WAIT_BARRIER);
}

/* A group that leaves the first stage early cannot count itself into the
 * first stage of the barrier's next use before every group has left it:
 * the second stage lets no group through before all have arrived there.
 * The same holds of the second stage with respect to the first. */
void weft__barrier_two_stage_arrive(volatile __global uint *counts, uint n) {
  stage(&counts[0], n);
  stage(&counts[1], n);
}

/* ------------------------------------------------------------ Xiao-Feng */

/* A flag holds the number of uses of the barrier its group has arrived at
 * (arrived[]) or been released from (released[]), in 31 bits; the top bit
 * says that the one group that waits on the flag has parked, so that the
 * one group that raises it knows to wake it. */
#define PARKED 0x80000000u

static uint flag_value(uint flag) { return flag & ~PARKED; }

/* Waits until flag holds goal. */
static void await_flag(volatile __global uint *flag, uint goal) {
  for (;;) {
    uint f = LOAD(flag);
    if (flag_value(f) == goal) return;
    if (!(f & PARKED) && !cas(flag, f, f | PARKED)) continue;
    __weft_wait(flag, f | PARKED, WAIT_BARRIER);
  }
}

static void raise_flag(volatile __global uint *flag, uint goal) {
  if (EXCHANGE(flag, goal) & PARKED) __weft_wake(flag, WAKE_ALL);
}

static uint group_linear_id(void) {
  return (uint)((get_group_id(2) * get_num_groups(1) + get_group_id(1)) *
                    get_num_groups(0) +
                get_group_id(0));
}

/* Group 0's work-items share the polling of the others' arrival flags
 * and the raising of their release flags (on a GPU they run at once). */
static void master(volatile __global uint *arrived,
                   volatile __global uint *released, uint n, uint goal) {
  uint items = (uint)(get_local_size(0) * get_local_size(1) *
                      get_local_size(2));
  uint first = (uint)get_local_linear_id();
  /* Group 0 waits on no flag, but its flags count the uses too. */
  if (first == 0) {
    STORE(&arrived[0], goal);
    STORE(&released[0], goal);
  }
  for (uint j = 1 + first; j < n; j += items) await_flag(&arrived[j], goal);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  for (uint j = 1 + first; j < n; j += items) raise_flag(&released[j], goal);
}

/* Each group's goal is one more than its own arrival flag, which only it
 * writes: every work-item reads it before the barrier, and work-item 0
 * raises it after. */
void __attribute__((convergent))
weft__barrier_xiao_feng_wait(__global weft_barrier *b) {
  uint n = LOAD(&b->word[2]), id = group_linear_id();
  volatile __global uint *arrived = (__global uint *)(b + 1);
  volatile __global uint *released = arrived + n;
  uint goal = flag_value(flag_value(LOAD(&arrived[id])) + 1);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (id == 0) {
    master(arrived, released, n, goal);
  } else if (get_local_linear_id() == 0) {
    raise_flag(&arrived[id], goal);
    await_flag(&released[id], goal);
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
}
