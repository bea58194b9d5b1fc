/*
 * pct.c: the PCT schedule (WEFT_SCHEDULE=pct:SEED[:DEPTH]), after
 * Burckhardt, Kothari, Musuvathi and Nagarakatte, "A Randomized Scheduler
 * with Probabilistic Guarantees of Finding Bugs" (ASPLOS 2010).
 *
 * Every work-item gets a random priority when its group starts, and at
 * each schedule point (every shared access, atomic, barrier and wait: see
 * jit/cpu/sched_points.c) the runnable work-item with the highest priority runs,
 * across groups. At DEPTH - 1 steps drawn from the seed, the running
 * work-item's priority drops below every first priority (the i-th change
 * point to DEPTH - i). A bug that needs DEPTH orderings among the steps
 * then shows with a known chance per seed, where random switches need luck
 * at every step: PCT proves at least 1/(n k^(DEPTH-1)) for n threads and k
 * steps when the change points are uniform over the k steps.
 *
 * k is not known before the run, and a seed must replay alone, so the
 * change points cannot come from earlier runs: each is drawn log-uniform
 * over 1 to 2^20 steps, which puts it at step s with a chance of about
 * 1/(14 s); the bound becomes about 1/(n (14 k)^(DEPTH-1)).
 *
 * Without a DEPTH (pct:SEED), the depth is not fixed either: each seed
 * draws a rate r, log-uniform from 2^-20 to 1/4, and every step is a change
 * point with chance r, the n-th dropping to just below the (n-1)-th. Seeds
 * of high rates switch often, as random ones do; seeds of low rates keep
 * PCT's few, far-apart changes.
 *
 * A work-item that spins (a yield in a polling loop) goes below every
 * other, the ones that spin before it included, so that whoever it waits
 * for runs, as a fair scheduler would (strict priorities would let it spin
 * for ever). One thread runs a PCT launch, as a random one.
 */
#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "backend/cpu/coop_state.h"
#include "backend/cpu/executor_internal.h"

/* First priorities lie in [2^61, 2^62): above those of change points
 * (1 to DEPTH - 1, or below RATE_PRIORITY) and of spinners (0 and
 * below). */
#define FIRST_PRIORITY (1ll << 61)
#define LOG2_MAX_STEPS 20
/* Without a DEPTH: the n-th change point's priority, RATE_PRIORITY - n,
 * and the highest chance of a change point at a step, 2^-MIN_LOG2_RATE. */
#define RATE_PRIORITY (1ll << 60)
#define MIN_LOG2_RATE 2

static uint64_t mix(uint64_t z) { return weft__mix64(z + WEFT_GOLDEN_GAMMA); }

static int64_t first_priority(const launch_state *l, uint64_t group,
                              unsigned k) {
  uint64_t h = mix(l->coop->pct_base ^ mix(group * 0x100000001b3ull + k));
  return FIRST_PRIORITY | (int64_t)(h >> 3);
}

static int by_step(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* A uniform double in [0, 1), from 53 random bits. */
static double uniform(launch_state *l) {
  return (double)(weft__schedule_random(l) >> 11) / 9007199254740992.0;
}

void weft__pct_begin(launch_state *l) {
  unsigned depth = l->executor->depth;
  assert(depth <= WEFT_PCT_DEPTH_MAX);
  l->coop->pct_base = weft__schedule_random(l);
  l->coop->pct_steps = 0;
  l->coop->pct_changed = 0;
  l->coop->pct_floor = 0;
  l->coop->pct_next_group = UINT64_MAX;
  if (!depth) {
    /* Each step a change point with chance 2^-x, x uniform in [2, 20]. */
    l->coop->pct_changes = 0;
    l->coop->pct_rate = (uint64_t)(exp2(64 - (MIN_LOG2_RATE +
                                         uniform(l) * (LOG2_MAX_STEPS -
                                                       MIN_LOG2_RATE))));
    return;
  }
  l->coop->pct_changes = depth - 1;
  for (unsigned i = 0; i < l->coop->pct_changes; i++)
    l->coop->pct_change[i] = (uint64_t)exp2(uniform(l) * LOG2_MAX_STEPS);
  qsort(l->coop->pct_change, l->coop->pct_changes,
        sizeof *l->coop->pct_change, by_step);
}

static unsigned items_per_group(const launch_state *l) {
  const weft_launch_desc *d = l->desc;
  return (unsigned)(d->local[0] * d->local[1] * d->local[2]);
}

/* (g->num_items is set only when the group runs.) */
void weft__pct_start_group(cpu_group *g) {
  unsigned items = items_per_group(g->launch);
  assert(items <= g->capacity);
  for (unsigned k = 0; k < items; k++)
    g->items[k].priority = first_priority(g->launch, g->index, k);
}

void weft__pct_step(launch_state *l, cpu_item *item) {
  uint64_t step = ++l->coop->pct_steps;
  if (!l->executor->depth) {
    if (weft__schedule_random(l) < l->coop->pct_rate)
      item->priority = RATE_PRIORITY - (int64_t)++l->coop->pct_changed;
    return;
  }
  /* Two change points may fall on one step: the lower priority wins. */
  while (l->coop->pct_changed < l->coop->pct_changes &&
         l->coop->pct_change[l->coop->pct_changed] <= step) {
    l->coop->pct_changed++;
    item->priority = (int64_t)(l->coop->pct_changes + 1 - l->coop->pct_changed);
  }
}

void weft__pct_spun(launch_state *l, cpu_item *item) {
  item->priority = l->coop->pct_floor--;
}

unsigned weft__pct_best_item(const cpu_group *g, unsigned except) {
  unsigned best = UINT_MAX;
  for (unsigned k = 0; k < g->num_items; k++)
    if (g->items[k].state == ITEM_RUNNABLE && k != except &&
        (best == UINT_MAX || g->items[k].priority > g->items[best].priority))
      best = k;
  assert(best != UINT_MAX);
  return best;
}

int64_t weft__pct_unstarted_priority(launch_state *l) {
  if (l->coop->pct_next_group != l->coop->next_group) {
    unsigned items = items_per_group(l);
    int64_t best = INT64_MIN;
    for (unsigned k = 0; k < items; k++) {
      int64_t p = first_priority(l, l->coop->next_group, k);
      if (p > best) best = p;
    }
    l->coop->pct_next_group = l->coop->next_group;
    l->coop->pct_next_priority = best;
  }
  return l->coop->pct_next_priority;
}
