/*
 * interleave.c: under a random schedule (WEFT_SCHEDULE=random...), the
 * work-items of a cooperative work-group run as fibers that switch at
 * random at the schedule's points, instead of one after another; so do,
 * in turn where they stop, those of a kernel whose sub-groups meet on
 * fibers (sub_group.c).
 *
 * OpenCL promises the work-items of a group no forward progress toward
 * each other outside barriers, and a GPU running them in lockstep gives
 * none: while one of them waits, its whole group waits. So does a group
 * here (a wait parks the group's fiber, whichever work-item called it).
 * A kernel where a work-item waits for another of its own group, such as a
 * mutex that every work-item takes, then deadlocks as it would on such a
 * GPU, and the report names the work-item that waits; run one after
 * another, the work-items would never have been inside together.
 */
#include <assert.h>
#include <limits.h>

#include "backend/cpu/executor_internal.h"

/* Under exhaustive, the decision among the count runnable work-items other
 * than except (explore.c tells them apart by their ids). Only the group's
 * own work-items are offered here: a return does not give the thread to
 * another group, so the step that ended in it kept the other groups from
 * running next (explore.c then takes it to depend on their steps). */
static unsigned explore_pick(weft_explore *x, const cpu_group *g,
                             unsigned except, unsigned count) {
  weft__explore_holds_group(x);
  uint64_t ids[WEFT_EXPLORE_IDS];
  unsigned n = 0;
  for (unsigned k = 0; k < g->num_items && n < WEFT_EXPLORE_IDS; k++)
    if (g->items[k].state == ITEM_RUNNABLE && k != except)
      ids[n++] = weft__explore_id(g->index, k);
  return weft__explore_choose(x, count, ids, 0);
}

/* The first runnable work-item after the running one, going round,
 * other than except; UINT_MAX: none. */
unsigned weft__interleave_next(const cpu_group *g, unsigned except) {
  for (unsigned i = 1; i <= g->num_items; i++) {
    unsigned k = (g->cur + i) % g->num_items;
    if (g->items[k].state == ITEM_RUNNABLE && k != except) return k;
  }
  return UINT_MAX;
}

/* A random runnable work-item other than except (UINT_MAX: any); under
 * PCT, the one with the highest priority; under exhaustive, the one the
 * decision chooses; without a random schedule (a kernel whose sub-groups
 * meet, sub_group.c), the next in turn. */
unsigned weft__interleave_pick(cpu_group *g, unsigned except) {
  if (!g->launch->random) {
    unsigned k = weft__interleave_next(g, except);
    assert(k != UINT_MAX);
    return k;
  }
  if (g->launch->pct) return weft__pct_best_item(g, except);
  unsigned count = 0;
  for (unsigned k = 0; k < g->num_items; k++)
    count += g->items[k].state == ITEM_RUNNABLE && k != except;
  /* Some work-item can always run: a barrier that all reached releases
   * them, and the last to return does not pick. */
  assert(count > 0);
  weft_explore *x = g->launch->executor->explore;
  unsigned r = x ? explore_pick(x, g, except, count)
                 : (unsigned)(weft__schedule_random(g->launch) % count);
  for (unsigned k = 0;; k++)
    if (g->items[k].state == ITEM_RUNNABLE && k != except && r-- == 0)
      return k;
}

void weft__interleave_run_from(cpu_group *g, unsigned from) {
  const weft_launch_desc *d = g->launch->desc;
  assert(from < g->num_items);
  g->first = g->cur = from;
  g->done = from;
  weft__group_enter_fibers(g);
  for (unsigned k = 0; k < g->num_items; k++)
    g->items[k].state = k < from ? ITEM_DONE : ITEM_RUNNABLE;
  cpu_item *first = &g->items[from];
  weft__group_local_id(g, from, first->range.lo);
  for (int i = 0; i < 3; i++) first->range.hi[i] = first->range.lo[i] + 1;
  first->range.state = first->range.single_region = first->range.no_lanes = 0;
  g->interleaved = 1;
  d->kernel->entry(d->args, &g->ctx, &first->range);
  weft__interleave_returned(g, from);
  g->interleaved = 0;
  g->ctx.fiber_mode = 0;
  g->first = 0;
}

void weft__interleave_run_group(cpu_group *g) { weft__interleave_run_from(g, 0); }

void weft__interleave_returned(cpu_group *g, unsigned k) {
  if (g->arrived)
    weft__group_diverged(g, g->first_arrived,
                         g->items[g->first_arrived].site,
                         "returned without reaching it", k, -1);
  g->items[k].state = ITEM_DONE;
  g->done++;
  weft__sub_group_stopped(g, k);
  if (g->done == g->num_items) {
    /* The first runs on the group's own stack: it returns last. */
    if (k != g->first) weft__group_switch_item(g, k, g->first);
    return;
  }
  /* The first waits here until the last of the others comes back. */
  weft__group_switch_item(g, k, weft__interleave_pick(g, k));
}

void weft__interleave_barrier(cpu_group *g, unsigned k, unsigned site) {
  if (g->done) {
    unsigned gone = 0;
    while (g->items[gone].state != ITEM_DONE) gone++;
    weft__group_diverged(g, k, site, "returned without reaching it", gone,
                         -1);
  }
  if (g->arrived && site != g->items[g->first_arrived].site)
    weft__group_diverged(g, k, site, "waits at", g->first_arrived,
                         (int)g->items[g->first_arrived].site);
  if (!g->arrived) g->first_arrived = k;
  g->items[k].site = site;
  g->items[k].state = ITEM_AT_BARRIER;
  weft__sub_group_stopped(g, k);
  if (++g->arrived < g->num_items) {
    weft__group_switch_item(g, k, weft__interleave_pick(g, UINT_MAX));
    return;
  }
  /* All arrived: all go on, this one first (it is running). */
  g->arrived = 0;
  for (unsigned i = 0; i < g->num_items; i++)
    g->items[i].state = ITEM_RUNNABLE;
}

void weft__interleave_point(cpu_group *g) {
  unsigned next = weft__interleave_pick(g, UINT_MAX);
  if (next != g->cur) weft__group_switch_item(g, g->cur, next);
}
