/* group.c: the group runner (scheduler.h): runs one work-group, its
 * work-items one after another in the work-group function, or on fibers
 * from the first barrier on (Clover's scheme), or interleaved at random
 * (interleave.c); barriers and their divergence; the work-item that
 * faulted, found by replaying the group; each group's memory. The
 * schedulers call it; it calls no scheduler. */
#include <assert.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/executor_internal.h"
#include "backend/cpu/guarded.h"
#include "jit/jit.h"

/* Fiber stacks are separate mappings, so their tops share an offset within
 * a page, and the contexts saved there would all compete for the same few
 * L1 cache sets. Starting stack k a few cache lines lower spreads them. */
#define STACK_COLOURS 64
#define STACK_COLOUR_BYTES 64

static void describe_site(const cpu_group *g, unsigned site, char *out,
                          size_t size) {
  const weft_binary *bin = g->launch->desc->binary;
  if (site < bin->num_sites && bin->sites[site].line)
    snprintf(out, size, "the barrier at line %u, column %u",
             bin->sites[site].line, bin->sites[site].column);
  else
    snprintf(out, size, "a barrier");
}

_Noreturn void weft__group_abort(cpu_group *g) {
  siglongjmp(g->worker->fault.recover, WEFT_JUMP_ABORT);
}

_Noreturn void weft__cpu_assert_failed(weft_wg_ctx *ctx, uint64_t lx,
                                       uint64_t ly, uint64_t lz,
                                       const char *condition, uint32_t site) {
  cpu_group *g = ctx->group;
  const weft_binary *bin = g->launch->desc->binary;
  unsigned k = weft__item_index(ctx, lx, ly, lz);
  char item[256], where[64] = "";
  weft__launch_describe_item(g, k, item, sizeof item);
  if (site < bin->num_sites && bin->sites[site].line)
    snprintf(where, sizeof where, "program.cl:%u:%u: ", bin->sites[site].line,
             bin->sites[site].column);
  weft__launch_report(g->launch, WEFT_ECHECK,
                      "%skernel '%s': weft_assert(%s) failed in %s", where,
                      g->launch->desc->kernel->name, condition, item);
  weft__group_abort(g);
}

/* Ends the group with a barrier divergence report. a and b are work-items;
 * what says how they differ. */
_Noreturn void weft__group_diverged(cpu_group *g, unsigned a,
                                    unsigned site_a, const char *what,
                                    unsigned b, int b_site) {
  char item_a[256], item_b[256], where_a[64], where_b[64], group[64];
  weft__launch_describe_item(g, a, item_a, sizeof item_a);
  weft__launch_describe_item(g, b, item_b, sizeof item_b);
  describe_site(g, site_a, where_a, sizeof where_a);
  weft__format_ids(group, sizeof group, g->ctx.work_dim, g->ctx.group_id);
  if (b_site >= 0) describe_site(g, (unsigned)b_site, where_b, sizeof where_b);
  weft__launch_report(g->launch, WEFT_EBARRIER,
         "kernel '%s': barrier divergence in work-group %s: %s reached %s, "
         "but %s %s%s%s",
         g->launch->desc->kernel->name, group, item_a, where_a, item_b, what,
         b_site >= 0 ? " " : "", b_site >= 0 ? where_b : "");
  weft__group_abort(g);
}

weft_text *weft__group_output(weft_wg_ctx *ctx) {
  return &((cpu_group *)ctx->group)->worker->output;
}

uint32_t weft__cpu_address_space(weft_wg_ctx *ctx, const void *p) {
  const char *a = p;
  if (a >= ctx->local_mem && a < ctx->local_mem + ctx->local_mem_size)
    return WEFT_ADDRESS_LOCAL;
  cpu_group *g = ctx->group;
  cpu_worker *w = g->worker;
  const weft_kernel_desc *k = g->launch->desc->kernel;
  size_t items = (size_t)(ctx->enqueued_local_size[0] *
                          ctx->enqueued_local_size[1] *
                          ctx->enqueued_local_size[2]);
  /* Private memory: a work-item's stack (the thread's, worker 0's own, or
   * a fiber's), or its data in a region-scheduled kernel. */
  if ((k->flags & WEFT_KERNEL_REGIONS) && a >= ctx->private_mem &&
      a < ctx->private_mem + k->private_size * items)
    return WEFT_ADDRESS_PRIVATE;
  if ((a >= w->stack_lo && a < w->stack_lo + w->stack_size) ||
      weft__stacks_contain(g->item_stacks, a) ||
      weft__stacks_contain(&w->own_stack, a) ||
      weft__stacks_contain(g->own_stack, a))
    return WEFT_ADDRESS_PRIVATE;
  return WEFT_ADDRESS_GLOBAL;
}

/* ------------------------------------------------------------- fibers */

weft_fiber *weft__group_fiber_of(cpu_group *g, unsigned k) {
  return k != g->first ? &g->items[k].fiber : &g->main;
}

void weft__group_switch_item(cpu_group *g, unsigned from, unsigned to) {
  g->cur = to;
  g->worker->executor->fibers->swap(weft__group_fiber_of(g, from),
                                    weft__group_fiber_of(g, to));
}

/* A work-item's fiber: run the kernel for it alone, then hand over. */
static void fiber_main(void *arg) {
  cpu_item *item = arg;
  cpu_group *g = item->group;
  const weft_launch_desc *d = g->launch->desc;
  d->kernel->entry(d->args, &g->ctx, &item->range);
  unsigned k = (unsigned)(item - g->items);
  if (g->interleaved) weft__interleave_returned(g, k); /* does not return */
  if (g->arrived)
    weft__group_diverged(g, 0, g->items[0].site,
                         "returned without reaching it", k, -1);
  g->done++;
  /* Work-items finish in order; the last one resumes the scheduler. */
  weft__group_switch_item(g, k, k + 1 < g->num_items ? k + 1 : 0);
}

void weft__group_enter_fibers(cpu_group *g) {
  cpu_worker *w = g->worker;
  const weft_fiber_ops *fibers = w->executor->fibers;
  for (unsigned k = g->first + 1; k < g->num_items; k++) {
    void *stack = weft__stacks_get(g->item_stacks, k - 1);
    if (!stack) {
      weft__launch_report(g->launch, WEFT_ESYS,
             "kernel '%s': cannot map a stack for work-item %u (%zu bytes "
             "each; lower WEFT_STACK_SIZE or the work-group size)",
             g->launch->desc->kernel->name, k, g->item_stacks->size);
      weft__group_abort(g);
    }
    cpu_item *item = &g->items[k];
    weft__group_local_id(g, k, item->range.lo);
    for (int d = 0; d < 3; d++) item->range.hi[d] = item->range.lo[d] + 1;
    item->group = g;
    size_t colour = (k % STACK_COLOURS) * STACK_COLOUR_BYTES;
    fibers->make(&item->fiber, stack, g->item_stacks->size - colour, fiber_main,
                 item);
  }
  g->ctx.fiber_mode = 1;
}

void weft__cpu_barrier(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                       uint64_t lz, uint32_t flags, uint32_t site) {
  /* One thread runs the group: memory is already consistent, whatever
   * the fences flags asks for; only the sub-group bit counts. */
  cpu_group *g = ctx->group;
  if (g->num_items == 1) return;
  if (g->replay) siglongjmp(g->worker->fault.recover, WEFT_JUMP_SKIP);
  unsigned k = weft__item_index(ctx, lx, ly, lz);
  if (flags & WEFT_BARRIER_SUB_GROUP) {
    weft__sub_group_barrier(g, k, site);
    return;
  }
  if (g->interleaved) {
    weft__interleave_barrier(g, k, site);
    return;
  }
  if (!ctx->fiber_mode) {
    /* Work-items run in order, so the first to arrive must be the first. */
    if (k != 0)
      weft__group_diverged(g, k, site, "returned without reaching it", 0,
                           -1);
    weft__group_enter_fibers(g);
    g->items[0].site = site;
    g->arrived = 1;
    weft__group_switch_item(g, 0, 1);
    return;
  }
  if (g->done)
    weft__group_diverged(g, k, site, "returned without reaching it", 0, -1);
  if (g->arrived && site != g->items[0].site)
    weft__group_diverged(g, k, site, "waits at", 0, (int)g->items[0].site);
  g->items[k].site = site;
  g->arrived++;
  unsigned next = k + 1;
  if (next == g->num_items) {
    g->arrived = 0; /* all arrived: release them, in order */
    next = 0;
  }
  weft__group_switch_item(g, k, next);
}

/* A region-scheduled group's work-items stopped at different states. The
 * first work-item's state is the reference; the first to differ is named. */
void weft__cpu_region_diverged(weft_wg_ctx *ctx, const int32_t *next) {
  cpu_group *g = ctx->group;
  const weft_kernel_desc *kernel = g->launch->desc->kernel;
  unsigned count = 0, first = 0, other = 0;
  uint32_t want = 0, got = 0;
  for (uint64_t z = 0; z < ctx->local_size[2]; z++)
    for (uint64_t y = 0; y < ctx->local_size[1]; y++)
      for (uint64_t x = 0; x < ctx->local_size[0]; x++, count++) {
        uint64_t i = x + ctx->enqueued_local_size[0] *
                             (y + ctx->enqueued_local_size[1] * z);
        uint32_t state = (uint32_t)next[i];
        if (count == 0) want = state;
        else if (state != want && !other) got = state, other = count;
      }
  assert(other != 0); /* the generated code found a difference */
  unsigned site_want = want == WEFT_STATE_RETURN ? 0 : kernel->state_sites[want];
  unsigned site_got = got == WEFT_STATE_RETURN ? 0 : kernel->state_sites[got];
  if (want == WEFT_STATE_RETURN)
    weft__group_diverged(g, other, site_got, "returned without reaching it",
                         first, -1);
  if (got == WEFT_STATE_RETURN)
    weft__group_diverged(g, first, site_want, "returned without reaching it",
                         other, -1);
  weft__group_diverged(g, other, site_got, "waits at", first,
                       (int)site_want);
}

/* ------------------------------------------------------------- groups */

/* The words a kernel's aggregated atomics count in start at 0 in each
 * group. The usual few (4 a shared counter) as one fixed-size store the
 * compiler makes inline: a memset call of a variable size cost 4% of a
 * compaction of groups of 256. */
static void zero_aggregate_words(cpu_group *g, unsigned words) {
  enum { FEW = 16 };
  _Static_assert(FEW <= WEFT_AGGREGATE_WORDS, "the context has the few");
  if (words <= FEW)
    memset(g->ctx.aggregate, 0, FEW * sizeof *g->ctx.aggregate);
  else
    memset(g->ctx.aggregate, 0, words * sizeof *g->ctx.aggregate);
}

void weft__group_run(cpu_group *g, uint64_t index) {
  const launch_state *l = g->launch;
  const weft_launch_desc *d = l->desc;
  uint64_t rest = index;
  unsigned n = 1;
  weft_wg_range range = {.lo = {0, 0, 0}, .hi = {1, 1, 1}, .state = 0};
  for (int k = 0; k < 3; k++) {
    uint64_t id = rest % l->num_groups[k];
    rest /= l->num_groups[k];
    uint64_t size = d->global[k] - id * d->local[k];
    if (size > d->local[k]) size = d->local[k];
    g->ctx.group_id[k] = id;
    g->ctx.local_size[k] = size;
    range.hi[k] = size;
    n *= (unsigned)size;
  }
  g->index = index;
  g->num_items = n;
  g->ctx.race_first = (uint32_t)(index * weft__check_races_per_group(l) + 1);
  /* A group's __local memory starts unwritten (check mode, uninit) and
   * unaccessed (races). */
  if (g->ctx.local_shadow)
    memset(g->ctx.local_mem + g->ctx.local_shadow, 0, d->local_mem_size);
  if (g->ctx.local_races)
    memset(g->ctx.local_mem + g->ctx.local_races, 0,
           weft__check_races_local_bytes(d->local_mem_size));
  if (d->kernel->flags & WEFT_KERNEL_AGGREGATES)
    zero_aggregate_words(g, d->kernel->aggregate_words);
  g->ctx.region_state = 0;
  weft__weak_reset(g);
  g->first = g->cur = g->arrived = g->done = 0;
  g->ctx.fiber_mode = 0;
  g->interleaved = 0;
  unsigned tail;
  if (n > 1 && weft__sub_group_rows(g, &tail)) {
    /* Its whole sub-groups side by side, then a last, partial one on
     * fibers. */
    range.hi[0] = tail;
    if (tail) d->kernel->entry(d->args, &g->ctx, &range);
    if (tail < n) weft__interleave_run_from(g, tail);
    weft__weak_drain_group(g);
    return;
  }
  if ((l->random || weft__sub_group_interleaves(l)) && n > 1) {
    weft__interleave_run_group(g);
    weft__weak_drain_group(g);
    return;
  }
  d->kernel->entry(d->args, &g->ctx, &range);
  if (g->ctx.fiber_mode) {
    /* Item 0 has returned: the others resume from their barrier in turn,
     * and the last to return switches back here. */
    g->done = 1;
    weft__group_switch_item(g, 0, 1);
    g->ctx.fiber_mode = 0;
  }
  weft__weak_drain_group(g);
}

/* Whether the group ran whole sub-groups side by side (jit/cpu/
 * workgroup.c's lanes_first, one call for the whole group from its start,
 * or its lanes regions; its x size a multiple of the width). */
static int ran_lanes(const cpu_group *g) {
  return (weft_cpu_sub_groups_jammed(g->launch->desc->kernel,
                                     g->ctx.enqueued_local_size[0],
                                     g->ctx.local_size[0]) &&
          !g->launch->random && !weft__sub_group_interleaves(g->launch)) ||
         weft__sub_group_rows(g, &(unsigned){0});
}

/* Whether group g runs as regions without whole sub-groups side by
 * side: not where its sub-groups meet on fibers then (a region kernel
 * whose work-group function runs the slots' way on fibers, jit/cpu/
 * build.c's split_slots). */
static int regions_unjammed(const cpu_group *g) {
  unsigned flags = g->launch->desc->kernel->flags;
  return (flags & WEFT_KERNEL_REGIONS) && !(flags & WEFT_KERNEL_SUB_GROUPS);
}

void weft__group_run_unjammed(cpu_group *g) {
  const weft_launch_desc *const d = g->launch->desc;
  if (regions_unjammed(g)) {
    weft_wg_range range = {.no_lanes = 1};
    for (int i = 0; i < 3; i++) range.hi[i] = g->ctx.local_size[i];
    d->kernel->entry(d->args, &g->ctx, &range);
  } else {
    weft__interleave_run_group(g);
  }
}

/* A group that faulted with whole sub-groups side by side runs again as
 * the kernel runs without them, whose work-items can be told apart: its
 * regions, after which replay() runs the faulting region's work-items
 * one at a time (-2), or its fibers, interleaved, where the fault names
 * its work-item at once (>= 0). -1: the fault did not recur. */
static long replay_unjammed(cpu_group *g) {
  cpu_worker *const w = g->worker;
  int regions = regions_unjammed(g);
  int jump = sigsetjmp(w->fault.recover, 0);
  if (jump) {
    w->fault.armed = 0;
    if (jump != WEFT_JUMP_FAULT) return -1;
    return regions ? -2 : (long)g->cur;
  }
  w->fault.armed = 1;
  weft__group_run_unjammed(g);
  w->fault.armed = 0;
  return -1;
}

/* After a fault with no fiber running, finds the faulting work-item by
 * running the group's items one at a time (they ran in this order before).
 * Without regions, an item that reaches a barrier is not it: the fault came
 * earlier. With regions, only the region that faulted is run again. */
static long replay(cpu_group *g) {
  cpu_worker *const w = g->worker;
  const weft_launch_desc *const d = g->launch->desc;
  volatile unsigned k;
  if (ran_lanes(g)) {
    long found = replay_unjammed(g);
    g->ctx.fiber_mode = 0;
    if (found != -2) return found;
  }
  g->replay = 1;
  for (k = 0; k < g->num_items; k++) {
    int jump = sigsetjmp(w->fault.recover, 0);
    if (jump == WEFT_JUMP_FAULT) break;
    if (jump) continue;
    weft_wg_range range = {.state = g->ctx.region_state,
                           .single_region = 1};
    weft__group_local_id(g, k, range.lo);
    for (int i = 0; i < 3; i++) range.hi[i] = range.lo[i] + 1;
    w->fault.armed = 1;
    d->kernel->entry(d->args, &g->ctx, &range);
    w->fault.armed = 0;
  }
  g->replay = 0;
  return k < g->num_items ? (long)k : -1;
}

static int is_stack_overflow(const cpu_group *g, const void *addr) {
  const cpu_worker *w = g->worker;
  const char *a = addr;
  if (weft__stacks_guard_hit(g->item_stacks, addr) >= 0 ||
      weft__stacks_guard_hit(&w->own_stack, addr) >= 0 ||
      weft__stacks_guard_hit(g->own_stack, addr) >= 0)
    return 1;
  return a < w->stack_lo && a >= w->stack_lo - w->stack_guard;
}

void weft__group_report_fault(cpu_group *g) {
  cpu_worker *w = g->worker;
  const weft_launch_desc *d = g->launch->desc;
  int in_fiber = g->ctx.fiber_mode;
  /* A cooperative group is not re-run: its work-items may wait for other
   * groups, which have been abandoned. */
  int coop = (d->kernel->flags & WEFT_KERNEL_COOPERATIVE) != 0;
  long k = in_fiber ? (long)g->cur : coop ? -1 : replay(g);
  char where[256], group[64], what[160];
  if (k >= 0) {
    weft__launch_describe_item(g, (unsigned)k, where, sizeof where);
  } else {
    weft__format_ids(group, sizeof group, g->ctx.work_dim, g->ctx.group_id);
    snprintf(where, sizeof where, coop ? "work-group %s" :
             "work-group %s (the fault did not recur when its work-items "
             "were re-run one at a time)", group);
  }
  char line[160];
  weft__launch_code_place(d, w->fault.pc, line, sizeof line);
  /* The call's return address less one lies in the call. */
  if (!*line && w->runtime_caller)
    weft__launch_code_place(d, (const char *)w->runtime_caller - 1, line,
                            sizeof line);
  w->runtime_caller = NULL; /* the fault left the runtime call midway */
  if (is_stack_overflow(g, w->fault.addr)) {
    /* Column 0 is a function's prologue: its frame did not fit. */
    size_t n = strlen(line);
    const char *frame = "";
    if (n > 2 && !strcmp(line + n - 2, ":0")) {
      line[n - 2] = 0;
      frame = ", making the frame of the function";
    }
    weft__launch_report(
        g->launch, WEFT_ESTACK,
        "kernel '%s': stack overflow in %s%s%s: each work-item has a "
        "%zu-byte stack; raise it with WEFT_STACK_SIZE",
        d->kernel->name, where, frame, line, g->item_stacks->size);
  } else {
    weft__fault_describe(&w->fault, what, sizeof what);
    weft__launch_report(g->launch, WEFT_EKERNELFAULT,
                        "kernel '%s' crashed with %s in %s%s",
                        d->kernel->name, what, where, line);
  }
}

/* ------------------------------------------------------------ workers */

static size_t align_local(size_t n) {
  return (n + WEFT_LOCAL_ALIGN - 1) / WEFT_LOCAL_ALIGN * WEFT_LOCAL_ALIGN;
}

/* Where a group's local memory's shadow starts (check mode's uninit
 * check), 0 for none. */
static size_t shadow_offset(const weft_launch_desc *d) {
  if (!(d->kernel->flags & WEFT_KERNEL_LOCAL_SHADOW)) return 0;
  return align_local(d->local_mem_size);
}

/* Where the records of its words' accesses start (races), 0 for none. */
static size_t races_offset(const weft_launch_desc *d) {
  if (!(d->kernel->flags & WEFT_KERNEL_RACES) || !d->local_mem_size) return 0;
  size_t shadow = shadow_offset(d);
  return shadow ? align_local(shadow + d->local_mem_size)
                : align_local(d->local_mem_size);
}

size_t weft__group_local_bytes(const weft_launch_desc *d) {
  size_t races = races_offset(d);
  if (races) return races + weft__check_races_local_bytes(d->local_mem_size);
  size_t shadow = shadow_offset(d);
  return shadow ? shadow + d->local_mem_size : d->local_mem_size;
}

int weft__group_prepare(cpu_group *g, cpu_worker *w, launch_state *l,
                        char *local_mem, char *private_mem,
                        weft_stacks *item_stacks) {
  const weft_launch_desc *d = l->desc;
  const weft_fiber_ops *fibers = w->executor->fibers;
  unsigned items = (unsigned)(d->local[0] * d->local[1] * d->local[2]);
  int fibers_needed = (d->kernel->flags & WEFT_KERNEL_HAS_BARRIER) ||
                      l->random || weft__sub_group_interleaves(l);
  if (fibers_needed && items > g->capacity) {
    cpu_item *grown = realloc(g->items, items * sizeof *grown);
    if (!grown) return WEFT_ENOMEM;
    memset(grown + g->capacity, 0, (items - g->capacity) * sizeof *grown);
    g->items = grown;
    for (; g->capacity < items; g->capacity++)
      if (fibers->init(&g->items[g->capacity].fiber)) return WEFT_ENOMEM;
  }
  if (fibers->init(&g->main)) return WEFT_ENOMEM;
  g->launch = l;
  g->worker = w;
  g->item_stacks = item_stacks;
  for (int k = 0; k < 3; k++) {
    g->ctx.enqueued_local_size[k] = d->local[k];
    g->ctx.global_size[k] = d->global[k];
    g->ctx.global_offset[k] = d->offset[k];
    g->ctx.num_groups[k] = l->num_groups[k];
  }
  g->ctx.work_dim = d->dims;
  g->ctx.local_mem = local_mem;
  g->ctx.local_mem_size = d->local_mem_size;
  g->ctx.private_mem = private_mem;
  g->ctx.launch_words = l->launch_words;
  g->ctx.arg_sizes = d->arg_sizes;
  g->ctx.stop = (const uint32_t *)&l->stop;
  g->ctx.local_shadow = shadow_offset(d);
  /* Without the launch's records (too large, no memory), none here. */
  g->ctx.local_races = l->races ? races_offset(d) : 0;
  g->ctx.arg_races = weft__check_races_args(l);
  g->ctx.races = l->races;
  g->ctx.arg_shadows = d->arg_shadows;
  g->ctx.stream_stores = (uint32_t)d->stream_stores;
  g->ctx.group = g;
  return 0;
}
