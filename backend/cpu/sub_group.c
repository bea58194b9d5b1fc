/* sub_group.c: where a sub-group's work-items meet (sub_group_barrier(),
 * the sub-group functions of builtins/sub_groups.cl), on the group
 * runner's interleaved fibers (interleave.c).
 *
 * A sub-group is the kernel's width of consecutive local linear ids (its
 * intel_reqd_sub_group_size, else the device's: the host's vector in
 * 32-bit lanes, or WEFT_SUB_GROUP_SIZE). A kernel whose
 * sub-groups meet where not every work-item passes
 * (jit/cpu/sub_group_cuts.c leaves the others to regions) runs its
 * groups interleaved: every work-item on a fiber, switching where
 * it stops (a barrier, a meeting point, its end), in turn without a
 * random schedule. Two kinds of meeting:
 *  - a sub-group barrier (the uniform functions) waits for every
 *    work-item of the sub-group that has not returned; members that part
 *    ways (one returned or at a work-group barrier while others wait, or
 *    two at different ones) are reported as a divergence;
 *  - a converge point (the non-uniform functions) is met by whichever
 *    members come: once none of the sub-group runs, those stopped at the
 *    earliest converge site (sites are numbered in program order: a loop's
 *    body before what follows it) go on together, knowing who came (the
 *    active mask), while the others stay where they stopped. So members
 *    that took different branches meet again after them, as a GPU's
 *    threads reconverge.
 * The sub-group settles (settle()) each time one of its members stops. */
#include <assert.h>
#include <limits.h>
#include <setjmp.h>

#include "backend/common/report_text.h"
#include "backend/cpu/executor_internal.h"
#include "backend/cpu/kernel_calls.h"

/* The kernel's sub-group width (weft_kernel_desc.sub_group_width). */
static unsigned width_of(const cpu_group *g) {
  return weft_cpu_sub_group_width(g->launch->desc->kernel);
}

/* The first work-item of k's sub-group, and one past its last. */
static unsigned first_of(const cpu_group *g, unsigned k) {
  return k - k % width_of(g);
}

static unsigned end_of(const cpu_group *g, unsigned k) {
  unsigned end = first_of(g, k) + width_of(g);
  return end < g->num_items ? end : g->num_items;
}

/* The members stopped at the earliest converge site go on; their mask. */
static int release_converged(cpu_group *g, unsigned first, unsigned end) {
  unsigned site = UINT_MAX;
  for (unsigned i = first; i < end; i++)
    if (g->items[i].state == ITEM_AT_CONVERGE && g->items[i].site < site)
      site = g->items[i].site;
  if (site == UINT_MAX) return 0;
  uint32_t mask = 0;
  for (unsigned i = first; i < end; i++)
    if (g->items[i].state == ITEM_AT_CONVERGE && g->items[i].site == site)
      mask |= 1u << (i - first);
  for (unsigned i = first; i < end; i++)
    if (mask >> (i - first) & 1) {
      g->items[i].state = ITEM_RUNNABLE;
      g->items[i].sub_mask = mask;
    }
  return 1;
}

/* Members at a sub-group barrier go on once every member that has not
 * returned waits there; any that returned or waits elsewhere is a
 * divergence. */
static void release_barrier(cpu_group *g, unsigned first, unsigned end) {
  unsigned at = UINT_MAX;
  for (unsigned i = first; i < end; i++)
    if (g->items[i].state == ITEM_AT_SUB_BARRIER) {
      if (at == UINT_MAX) at = i;
      else if (g->items[i].site != g->items[at].site)
        weft__group_diverged(g, i, g->items[i].site, "waits at", at,
                             (int)g->items[at].site);
    }
  if (at == UINT_MAX) return;
  for (unsigned i = first; i < end; i++) {
    if (g->items[i].state == ITEM_DONE)
      weft__group_diverged(g, at, g->items[at].site,
                           "returned without reaching it", i, -1);
    if (g->items[i].state == ITEM_AT_BARRIER)
      weft__group_diverged(g, at, g->items[at].site, "waits at", i,
                           (int)g->items[i].site);
  }
  for (unsigned i = first; i < end; i++) g->items[i].state = ITEM_RUNNABLE;
}

/* Once none of k's sub-group runs: a converge point's members go on, or
 * else a sub-group barrier's. */
static void settle(cpu_group *g, unsigned k) {
  unsigned first = first_of(g, k), end = end_of(g, k);
  for (unsigned i = first; i < end; i++)
    if (g->items[i].state == ITEM_RUNNABLE) return;
  if (!release_converged(g, first, end)) release_barrier(g, first, end);
}

/* Work-item k stopped at site (state): what runs next. */
static void stop(cpu_group *g, unsigned k, int state, unsigned site) {
  assert(g->interleaved);
  g->items[k].state = state;
  g->items[k].site = site;
  settle(g, k);
  if (g->items[k].state == ITEM_RUNNABLE) return; /* it goes on first */
  weft__group_switch_item(g, k, weft__interleave_pick(g, UINT_MAX));
}

void weft__sub_group_barrier(cpu_group *g, unsigned k, unsigned site) {
  stop(g, k, ITEM_AT_SUB_BARRIER, site);
}

uint32_t weft__cpu_sub_group_converge(weft_wg_ctx *ctx, uint64_t lx,
                                      uint64_t ly, uint64_t lz,
                                      uint32_t site) {
  cpu_group *g = ctx->group;
  if (g->num_items == 1) return 1;
  if (g->replay) siglongjmp(g->worker->fault.recover, WEFT_JUMP_SKIP);
  unsigned k = weft__item_index(ctx, lx, ly, lz);
  stop(g, k, ITEM_AT_CONVERGE, site);
  return g->items[k].sub_mask;
}

void weft__sub_group_stopped(cpu_group *g, unsigned k) {
  /* Other kernels interleave under random schedules, without meetings;
   * these do where their groups run interleaved, as a launch of groups
   * that are not whole sub-groups runs them, and as one that is runs a
   * group again to tell its work-items apart (a fault, lanes parted). */
  if ((g->launch->desc->kernel->flags & WEFT_KERNEL_SUB_GROUPS) &&
      g->num_items > 1)
    settle(g, k);
}

/* Whole sub-groups side by side found a sub-group that parted ways at a
 * function all its work-items must reach (jit/cpu/jam_sub_groups.c
 * checks, where a branch or a loop lets only some lanes come). They
 * cannot tell which work-items: the group runs again without them, where
 * the slots' barrier (on fibers) or the region's end (where its
 * sub-group barriers are cut into work-group ones) reports the two
 * work-items and the line, and aborts the group. What the group wrote
 * before is written again: the launch fails either way. Should the
 * parting not recur (the group read what it had itself changed), the
 * group is reported without them. */
_Noreturn void weft__cpu_lanes_parted(weft_wg_ctx *ctx) {
  cpu_group *g = ctx->group;
  g->ctx.region_state = 0;
  g->cur = g->arrived = g->done = 0;
  g->ctx.fiber_mode = 0;
  g->interleaved = 0;
  if (g->capacity >= g->num_items) weft__group_run_unjammed(g);
  char group[64];
  weft__format_ids(group, sizeof group, g->ctx.work_dim, g->ctx.group_id);
  weft__launch_report(g->launch, WEFT_EBARRIER,
                      "kernel '%s': barrier divergence in work-group %s: "
                      "some work-items of a sub-group called a sub-group "
                      "function that all of them must reach and others did "
                      "not (found with whole sub-groups side by side; not "
                      "again when the group ran without them)",
                      g->launch->desc->kernel->name, group);
  weft__group_abort(g);
}

/* -------------------------------------------------- forward progress */

/* Sub-groups make independent forward progress: one that polls memory
 * (a yield point, jit/cpu/yield_points.c) lets the group's others run.
 * At a yield the next runnable work-item runs; going round, the group
 * yields to the other groups first. */
int weft__sub_group_interleaves(const launch_state *l) {
  const weft_launch_desc *d = l->desc;
  /* Whole sub-groups side by side need no fibers (their work-group
   * function runs them jammed, jit/cpu/jam_sub_groups.c). */
  return (d->kernel->flags & WEFT_KERNEL_SUB_GROUPS) &&
         !weft_cpu_sub_groups_jammed(d->kernel, d->local[0], d->global[0]);
}

int weft__sub_group_rows(const cpu_group *g, unsigned *tail) {
  const launch_state *l = g->launch;
  const weft_kernel_desc *k = l->desc->kernel;
  if (l->random || !(k->flags & WEFT_KERNEL_SUB_GROUPS) ||
      !weft_cpu_sub_groups_rows(k, l->desc->local) ||
      weft_cpu_sub_groups_jammed(k, l->desc->local[0], l->desc->global[0]))
    return 0;
  uint64_t x = g->ctx.local_size[0], w = weft_cpu_sub_group_width(k);
  *tail = x % w ? (unsigned)(x - x % w) : g->num_items;
  return 1;
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
