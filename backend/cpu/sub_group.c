/* sub_group.c: barriers of a sub-group (sub_group_barrier() and the
 * sub-group functions of builtins/sub_groups.cl), on the group runner's
 * fibers (group.c) and interleaved (interleave.c).
 *
 * A sub-group is WEFT_CPU_SUB_GROUP_SIZE work-items of consecutive local
 * linear ids (ctx.sub_group_size). A kernel that has sub-group barriers
 * runs on fibers from its start (jit/cpu/workitem.c), work-items in
 * order: at a sub-group barrier a work-item hands over to the next of its
 * sub-group, and the last to arrive releases them from the first, while
 * the other sub-groups are ahead at a work-group barrier, behind, or
 * done. The sub-group's state is kept in its first work-item's record
 * (lead). Work-items of one sub-group that part ways (one at a sub-group
 * barrier, another at a work-group barrier, at another sub-group barrier
 * or returned) are reported as a divergence. A cooperative kernel's
 * groups run interleaved instead (below). */
#include <assert.h>
#include <limits.h>

#include "backend/cpu/executor_internal.h"

/* The first work-item of k's sub-group, and one past its last. */
static unsigned first_of(const cpu_group *g, unsigned k) {
  return k - k % g->ctx.sub_group_size;
}

static unsigned end_of(const cpu_group *g, unsigned k) {
  unsigned end = first_of(g, k) + g->ctx.sub_group_size;
  return end < g->num_items ? end : g->num_items;
}

void weft__sub_group_reset(cpu_group *g) {
  for (unsigned k = 0; k < g->num_items; k++) {
    g->items[k].sub_arrived = 0;
    g->items[k].sub_gone = 0;
  }
}

/* Work-item k came to a sub-group barrier at site: a member of its
 * sub-group that returned makes it a divergence. */
static void check_none_gone(cpu_group *g, unsigned k, unsigned site) {
  const cpu_item *lead = &g->items[first_of(g, k)];
  if (lead->sub_gone)
    weft__group_diverged(g, k, site, "returned without reaching it",
                         lead->sub_gone - 1, -1);
}

/* Work-item k left its sub-group's company (what: "returned without
 * reaching it", or "waits at" a work-group barrier at site): members
 * waiting at a sub-group barrier make it a divergence. */
static void check_none_waiting(cpu_group *g, unsigned k, const char *what,
                               int site) {
  unsigned first = first_of(g, k);
  const cpu_item *lead = &g->items[first];
  if (lead->sub_arrived)
    weft__group_diverged(g, first, lead->sub_site, what, k, site);
}

/* Interleaved: k's sub-group's members at a sub-group barrier. */
static unsigned waiting_members(cpu_group *g, unsigned k, unsigned site) {
  unsigned n = 0;
  for (unsigned i = first_of(g, k), end = end_of(g, k); i < end; i++) {
    const cpu_item *m = &g->items[i];
    if (m->state == ITEM_AT_BARRIER)
      weft__group_diverged(g, k, site, "waits at", i, (int)m->site);
    if (m->state == ITEM_AT_SUB_BARRIER && m->site != site)
      weft__group_diverged(g, k, site, "waits at", i, (int)m->site);
    n += m->state == ITEM_AT_SUB_BARRIER;
  }
  return n;
}

static void interleaved_barrier(cpu_group *g, unsigned k, unsigned site) {
  check_none_gone(g, k, site);
  unsigned first = first_of(g, k), end = end_of(g, k);
  unsigned waiting = waiting_members(g, k, site);
  g->items[k].site = site;
  if (waiting + 1 < end - first) {
    g->items[k].state = ITEM_AT_SUB_BARRIER;
    g->items[first].sub_arrived = 1;
    g->items[first].sub_site = site;
    weft__group_switch_item(g, k, weft__interleave_pick(g, UINT_MAX));
    return;
  }
  /* All arrived: all go on, this one first (it is running). */
  g->items[first].sub_arrived = 0;
  for (unsigned i = first; i < end; i++) g->items[i].state = ITEM_RUNNABLE;
}

void weft__sub_group_barrier(cpu_group *g, unsigned k, unsigned site) {
  unsigned first = first_of(g, k), end = end_of(g, k);
  if (end - first == 1) return;
  if (g->interleaved) {
    interleaved_barrier(g, k, site);
    return;
  }
  /* The kernel's first barrier, at its start, put the group on fibers. */
  assert(g->ctx.fiber_mode);
  check_none_gone(g, k, site);
  cpu_item *lead = &g->items[first];
  /* In order: the members before k wait here. */
  if (lead->sub_arrived != k - first)
    weft__group_diverged(g, k, site, "waits at", first,
                         (int)g->items[first].site);
  if (lead->sub_arrived && site != lead->sub_site)
    weft__group_diverged(g, k, site, "waits at", first, (int)lead->sub_site);
  lead->sub_site = site;
  g->items[k].site = site;
  if (++lead->sub_arrived < end - first) {
    weft__group_switch_item(g, k, k + 1);
    return;
  }
  lead->sub_arrived = 0; /* all arrived: release them, in order */
  weft__group_switch_item(g, k, first);
}

void weft__sub_group_leaves(cpu_group *g, unsigned k, unsigned site) {
  if (g->num_items == 1) return;
  check_none_waiting(g, k, "waits at", (int)site);
}

void weft__sub_group_returned(cpu_group *g, unsigned k) {
  if (g->num_items == 1) return;
  check_none_waiting(g, k, "returned without reaching it", -1);
  cpu_item *lead = &g->items[first_of(g, k)];
  if (!lead->sub_gone) lead->sub_gone = k + 1;
}

/* -------------------------------------------------- forward progress */

/* Sub-groups make independent forward progress: one that polls memory
 * (a yield point, jit/cpu/yield_points.c) lets the group's others run.
 * A cooperative kernel's groups with sub-group barriers run interleaved
 * (interleave.c), their work-items in turn; at a yield the next runnable
 * one runs, and going round the group yields to the other groups first. */
int weft__sub_group_interleaves(const launch_state *l) {
  const unsigned both = WEFT_KERNEL_SUB_GROUPS | WEFT_KERNEL_COOPERATIVE;
  return (l->desc->kernel->flags & both) == both;
}

int weft__sub_group_yield(cpu_group *g, unsigned *then) {
  unsigned next = weft__interleave_next(g, g->cur);
  *then = UINT_MAX;
  if (next == UINT_MAX) return 0;
  if (next > g->cur) {
    weft__group_switch_item(g, g->cur, next);
    return 1;
  }
  *then = next;
  return 0;
}
