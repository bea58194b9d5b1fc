/*
 * scheduler.h: how a launch's work-groups reach the workers. The executor
 * (executor.c) makes the launch and the workers; a scheduler hands out
 * the groups, which the group runner (group.c) runs one at a time. Two
 * schedulers, each owning its state (launch_state's chunked or coop):
 *   - chunked (sched_chunked.c), for kernels whose groups never wait for
 *     each other: each worker takes chunks of group indexes and runs them
 *     to completion on its own stack, one after another;
 *   - cooperative (coop.c), for WEFT_KERNEL_COOPERATIVE kernels: each
 *     group has a fiber of its own and stops where it waits for others,
 *     for the worker to run another; schedule modes (random, PCT,
 *     exhaustive) interleave them.
 */
#ifndef WEFT_BACKEND_CPU_SCHEDULER_H
#define WEFT_BACKEND_CPU_SCHEDULER_H

#include "backend/cpu/executor_internal.h"

struct weft_scheduler {
  const char *name;
  /* Sets the scheduler's state up for launch l (in l->sched_state),
   * before any worker runs. */
  void (*begin)(launch_state *l);
  /* The threads l can use: 1 (the caller runs it alone, no worker woken:
   * a hand-off would only add to its latency) or every worker. */
  unsigned (*threads)(const launch_state *l);
  /* Readies worker w for l before its share runs (memory for its
   * groups): 0, or WEFT_ENOMEM. */
  int (*prepare)(cpu_worker *w, launch_state *l);
  /* Runs worker w's share of l; a fault in a group jumps out of it to
   * w's recovery point, after which failed is called. */
  void (*run)(cpu_worker *w, launch_state *l);
  /* After a fault in a group of worker w's: lets the other workers stop. */
  void (*failed)(launch_state *l);
  /* After every worker has returned: adds to the launch's message what
   * reproduces it, and ends the state. */
  void (*end)(launch_state *l);
};

extern const weft_scheduler weft__chunked_scheduler;
extern const weft_scheduler weft__coop_scheduler;

#endif /* WEFT_BACKEND_CPU_SCHEDULER_H */
