/* executor.c: work-groups on worker threads, work-items on fibers after a
 * barrier (see executor.h). */
#include "backend/cpu/executor.h"

#include <assert.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "backend/cpu/executor_internal.h"
#include "backend/cpu/guarded.h"
#include "jit/jit.h"

/* Fiber stacks are separate mappings, so their tops share an offset within
 * a page, and the contexts saved there would all compete for the same few
 * L1 cache sets. Starting stack k a few cache lines lower spreads them. */
#define STACK_COLOURS 64
#define STACK_COLOUR_BYTES 64

/* ------------------------------------------------------------ reports */

void weft__executor_report(launch_state *l, int status, const char *fmt, ...) {
  pthread_mutex_lock(&l->lock);
  if (!l->status) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->msg->text, sizeof l->msg->text, fmt, ap);
    va_end(ap);
    l->status = status;
  }
  pthread_mutex_unlock(&l->lock);
  atomic_store(&l->failed, 1);
}

static void item_local_id(const cpu_group *g, unsigned k, uint64_t lid[3]) {
  lid[0] = k % g->ctx.local_size[0];
  lid[1] = k / g->ctx.local_size[0] % g->ctx.local_size[1];
  lid[2] = k / (g->ctx.local_size[0] * g->ctx.local_size[1]);
}

void weft__executor_describe_linear(const launch_state *l, uint64_t group,
                                    uint64_t k, char *out, size_t size) {
  const weft_launch_desc *d = l->desc;
  uint64_t wg[3], lid[3];
  for (int i = 0; i < 3; i++) {
    wg[i] = group % l->num_groups[i];
    group /= l->num_groups[i];
    lid[i] = k % d->local[i];
    k /= d->local[i];
  }
  weft__executor_format_item(d, wg, lid, out, size);
}

void weft__executor_format_item(const weft_launch_desc *d,
                                const uint64_t group[3], const uint64_t lid[3],
                                char *out, size_t size) {
  uint64_t gid[3];
  for (int k = 0; k < 3; k++)
    gid[k] = group[k] * d->local[k] + lid[k] + d->offset[k];
  char a[64], b[64], c[64];
  weft__format_ids(a, sizeof a, d->dims, gid);
  weft__format_ids(b, sizeof b, d->dims, lid);
  weft__format_ids(c, sizeof c, d->dims, group);
  snprintf(out, size, "work-item %s [local %s in work-group %s]", a, b, c);
}

void weft__executor_describe_item(const cpu_group *g, unsigned k, char *out,
                                  size_t size) {
  uint64_t lid[3];
  item_local_id(g, k, lid);
  weft__executor_format_item(g->launch->desc, g->ctx.group_id, lid, out, size);
}

void weft__executor_code_place(const weft_launch_desc *d, const void *pc,
                               char *out, size_t size) {
  snprintf(out, size, " at ");
  if (!pc || !weft__jit_code_line(d->binary, d->kernel->name, pc, out + 4,
                                  size - 4))
    out[0] = 0;
}

static void describe_site(const cpu_group *g, unsigned site, char *out,
                          size_t size) {
  const weft_binary *bin = g->launch->desc->binary;
  if (site < bin->num_sites && bin->sites[site].line)
    snprintf(out, size, "the barrier at line %u, column %u",
             bin->sites[site].line, bin->sites[site].column);
  else
    snprintf(out, size, "a barrier");
}

double weft__executor_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

_Noreturn void weft__executor_abort_group(cpu_group *g) {
  siglongjmp(g->worker->fault.recover, WEFT_JUMP_ABORT);
}

_Noreturn void weft__cpu_assert_failed(weft_wg_ctx *ctx, uint64_t lx,
                                       uint64_t ly, uint64_t lz,
                                       const char *condition, uint32_t site) {
  cpu_group *g = ctx->group;
  const weft_binary *bin = g->launch->desc->binary;
  unsigned k = (unsigned)(lx + ctx->local_size[0] *
                                   (ly + ctx->local_size[1] * lz));
  char item[256], where[64] = "";
  weft__executor_describe_item(g, k, item, sizeof item);
  if (site < bin->num_sites && bin->sites[site].line)
    snprintf(where, sizeof where, "program.cl:%u:%u: ", bin->sites[site].line,
             bin->sites[site].column);
  weft__executor_report(g->launch, WEFT_ECHECK,
                        "%skernel '%s': weft_assert(%s) failed in %s", where,
                        g->launch->desc->kernel->name, condition, item);
  weft__executor_abort_group(g);
}

/* Ends the group with a barrier divergence report. a and b are work-items;
 * what says how they differ. */
_Noreturn void weft__executor_diverged(cpu_group *g, unsigned a,
                                       unsigned site_a, const char *what,
                                       unsigned b, int b_site) {
  char item_a[256], item_b[256], where_a[64], where_b[64], group[64];
  weft__executor_describe_item(g, a, item_a, sizeof item_a);
  weft__executor_describe_item(g, b, item_b, sizeof item_b);
  describe_site(g, site_a, where_a, sizeof where_a);
  weft__format_ids(group, sizeof group, g->ctx.work_dim, g->ctx.group_id);
  if (b_site >= 0) describe_site(g, (unsigned)b_site, where_b, sizeof where_b);
  weft__executor_report(g->launch, WEFT_EBARRIER,
         "kernel '%s': barrier divergence in work-group %s: %s reached %s, "
         "but %s %s%s%s",
         g->launch->desc->kernel->name, group, item_a, where_a, item_b, what,
         b_site >= 0 ? " " : "", b_site >= 0 ? where_b : "");
  weft__executor_abort_group(g);
}

weft_text *weft__executor_output(weft_wg_ctx *ctx) {
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
      weft__stacks_contain(&w->own_stack, a) || weft__coop_stack_contains(g, a))
    return WEFT_ADDRESS_PRIVATE;
  return WEFT_ADDRESS_GLOBAL;
}

/* ------------------------------------------------------------- fibers */

weft_fiber *weft__executor_fiber_of(cpu_group *g, unsigned k) {
  return k ? &g->items[k].fiber : &g->main;
}

void weft__executor_switch_item(cpu_group *g, unsigned from, unsigned to) {
  g->cur = to;
  g->worker->executor->fibers->swap(weft__executor_fiber_of(g, from),
                                    weft__executor_fiber_of(g, to));
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
    weft__executor_diverged(g, 0, g->items[0].site,
                            "returned without reaching it", k, -1);
  g->done++;
  /* Work-items finish in order; the last one resumes the scheduler. */
  weft__executor_switch_item(g, k, k + 1 < g->num_items ? k + 1 : 0);
}

void weft__executor_enter_fibers(cpu_group *g) {
  cpu_worker *w = g->worker;
  const weft_fiber_ops *fibers = w->executor->fibers;
  for (unsigned k = 1; k < g->num_items; k++) {
    void *stack = weft__stacks_get(g->item_stacks, k - 1);
    if (!stack) {
      weft__executor_report(g->launch, WEFT_ESYS,
             "kernel '%s': cannot map a stack for work-item %u (%zu bytes "
             "each; lower WEFT_STACK_SIZE or the work-group size)",
             g->launch->desc->kernel->name, k, g->item_stacks->size);
      weft__executor_abort_group(g);
    }
    cpu_item *item = &g->items[k];
    item_local_id(g, k, item->range.lo);
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
  (void)flags; /* one thread runs the group: memory is already consistent */
  cpu_group *g = ctx->group;
  if (g->num_items == 1) return;
  if (g->replay) siglongjmp(g->worker->fault.recover, WEFT_JUMP_SKIP);
  unsigned k = (unsigned)(lx + ctx->local_size[0] * (ly + ctx->local_size[1] * lz));
  if (g->interleaved) {
    weft__interleave_barrier(g, k, site);
    return;
  }
  if (!ctx->fiber_mode) {
    /* Work-items run in order, so the first to arrive must be the first. */
    if (k != 0)
      weft__executor_diverged(g, k, site, "returned without reaching it", 0,
                              -1);
    weft__executor_enter_fibers(g);
    g->items[0].site = site;
    g->arrived = 1;
    weft__executor_switch_item(g, 0, 1);
    return;
  }
  if (g->done)
    weft__executor_diverged(g, k, site, "returned without reaching it", 0, -1);
  if (g->arrived && site != g->items[0].site)
    weft__executor_diverged(g, k, site, "waits at", 0, (int)g->items[0].site);
  g->items[k].site = site;
  g->arrived++;
  unsigned next = k + 1;
  if (next == g->num_items) {
    g->arrived = 0; /* all arrived: release them, in order */
    next = 0;
  }
  weft__executor_switch_item(g, k, next);
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
    weft__executor_diverged(g, other, site_got, "returned without reaching it",
                            first, -1);
  if (got == WEFT_STATE_RETURN)
    weft__executor_diverged(g, first, site_want, "returned without reaching it",
                            other, -1);
  weft__executor_diverged(g, other, site_got, "waits at", first,
                          (int)site_want);
}

/* ------------------------------------------------------------- groups */

void weft__executor_run_group(cpu_group *g, uint64_t index) {
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
  g->ctx.region_state = 0;
  weft__weak_reset(g);
  g->cur = g->arrived = g->done = 0;
  g->ctx.fiber_mode = 0;
  g->interleaved = 0;
  if (l->random && n > 1) {
    weft__interleave_run_group(g);
    weft__weak_drain_group(g);
    return;
  }
  d->kernel->entry(d->args, &g->ctx, &range);
  if (g->ctx.fiber_mode) {
    /* Item 0 has returned: the others resume from their barrier in turn,
     * and the last to return switches back here. */
    g->done = 1;
    weft__executor_switch_item(g, 0, 1);
    g->ctx.fiber_mode = 0;
  }
  weft__weak_drain_group(g);
}

/* After a fault with no fiber running, finds the faulting work-item by
 * running the group's items one at a time (they ran in this order before).
 * Without regions, an item that reaches a barrier is not it: the fault came
 * earlier. With regions, only the region that faulted is run again. */
static long replay(cpu_group *g) {
  cpu_worker *const w = g->worker;
  const weft_launch_desc *const d = g->launch->desc;
  volatile unsigned k;
  g->replay = 1;
  for (k = 0; k < g->num_items; k++) {
    int jump = sigsetjmp(w->fault.recover, 0);
    if (jump == WEFT_JUMP_FAULT) break;
    if (jump) continue;
    weft_wg_range range = {.state = g->ctx.region_state,
                           .single_region = 1};
    item_local_id(g, k, range.lo);
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
      weft__coop_guard_hit(g, addr))
    return 1;
  return a < w->stack_lo && a >= w->stack_lo - w->stack_guard;
}

static void report_fault(cpu_group *g) {
  cpu_worker *w = g->worker;
  const weft_launch_desc *d = g->launch->desc;
  int in_fiber = g->ctx.fiber_mode;
  /* A cooperative group is not re-run: its work-items may wait for other
   * groups, which have been abandoned. */
  int coop = (d->kernel->flags & WEFT_KERNEL_COOPERATIVE) != 0;
  long k = in_fiber ? (long)g->cur : coop ? -1 : replay(g);
  char where[256], group[64], what[160];
  if (k >= 0) {
    weft__executor_describe_item(g, (unsigned)k, where, sizeof where);
  } else {
    weft__format_ids(group, sizeof group, g->ctx.work_dim, g->ctx.group_id);
    snprintf(where, sizeof where, coop ? "work-group %s" :
             "work-group %s (the fault did not recur when its work-items "
             "were re-run one at a time)", group);
  }
  char line[160];
  weft__executor_code_place(d, w->fault.pc, line, sizeof line);
  /* The call's return address less one lies in the call. */
  if (!*line && w->runtime_caller)
    weft__executor_code_place(d, (const char *)w->runtime_caller - 1, line,
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
    weft__executor_report(
        g->launch, WEFT_ESTACK,
        "kernel '%s': stack overflow in %s%s%s: each work-item has a "
        "%zu-byte stack; raise it with WEFT_STACK_SIZE",
        d->kernel->name, where, frame, line, g->item_stacks->size);
  } else {
    weft__fault_describe(&w->fault, what, sizeof what);
    weft__executor_report(g->launch, WEFT_EKERNELFAULT,
                          "kernel '%s' crashed with %s in %s%s",
                          d->kernel->name, what, where, line);
  }
}

/* ------------------------------------------------------------ workers */

/* Region-scheduled groups' private memory, and a cooperative group's
 * memory: mapped, so that only the pages touched cost memory. */
static char *map_memory(size_t size) {
  void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

int weft__executor_reserve(char **mem, size_t *capacity, size_t size) {
  if (size <= *capacity) return 0;
  if (*mem) munmap(*mem, *capacity);
  *capacity = 0;
  if (!(*mem = map_memory(size))) return -1;
  *capacity = size;
  return 0;
}

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

size_t weft__executor_local_bytes(const weft_launch_desc *d) {
  size_t races = races_offset(d);
  if (races) return races + weft__check_races_local_bytes(d->local_mem_size);
  size_t shadow = shadow_offset(d);
  return shadow ? shadow + d->local_mem_size : d->local_mem_size;
}

int weft__executor_prepare_group(cpu_group *g, cpu_worker *w, launch_state *l,
                                 char *local_mem, char *private_mem,
                                 weft_stacks *item_stacks) {
  const weft_launch_desc *d = l->desc;
  const weft_fiber_ops *fibers = w->executor->fibers;
  unsigned items = (unsigned)(d->local[0] * d->local[1] * d->local[2]);
  int fibers_needed = (d->kernel->flags & WEFT_KERNEL_HAS_BARRIER) || l->random;
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
  g->ctx.group = g;
  return 0;
}

static int prepare_worker(cpu_worker *w, launch_state *l) {
  const weft_launch_desc *d = l->desc;
  size_t local_bytes = weft__executor_local_bytes(d);
  if (local_bytes > w->local_capacity) {
    free(w->local_mem);
    w->local_capacity = 0;
    if (posix_memalign((void **)&w->local_mem, WEFT_LOCAL_ALIGN, local_bytes))
      return WEFT_ENOMEM;
    w->local_capacity = local_bytes;
  }
  unsigned items = (unsigned)(d->local[0] * d->local[1] * d->local[2]);
  if ((d->kernel->flags & WEFT_KERNEL_REGIONS) &&
      weft__executor_reserve(&w->private_mem, &w->private_capacity,
              d->kernel->private_size * items))
    return WEFT_ENOMEM;
  return weft__executor_prepare_group(&w->group, w, l, w->local_mem,
                                      w->private_mem, &w->stacks);
}

static void run_groups(cpu_group *g) {
  launch_state *l = g->launch;
  while (!atomic_load_explicit(&l->failed, memory_order_relaxed)) {
    uint64_t first = atomic_fetch_add(&l->next, l->chunk);
    if (first >= l->total) break;
    uint64_t end = first + l->chunk < l->total ? first + l->chunk : l->total;
    for (uint64_t i = first; i < end; i++) weft__executor_run_group(g, i);
  }
}

/* One worker's share of a launch, on whatever thread and stack it has. */
static void run_worker(cpu_worker *const w, launch_state *const l) {
  if (w->init_error) {
    weft__executor_report(l, w->init_error,
                          "a worker thread could not be set up");
    return;
  }
  int coop = (l->desc->kernel->flags & WEFT_KERNEL_COOPERATIVE) != 0;
  if (!coop && prepare_worker(w, l)) {
    weft__executor_report(l, WEFT_ENOMEM, "out of memory for kernel '%s' "
                          "(local memory or work-item contexts)",
                          l->desc->kernel->name);
    return;
  }
  w->current = &w->group;
  int jump = sigsetjmp(w->fault.recover, 0);
  if (jump) {
    w->fault.armed = 0;
    if (jump == WEFT_JUMP_FAULT) report_fault(w->current);
    w->current->ctx.fiber_mode = 0;
    if (coop) weft__coop_failed(l);
    return;
  }
  w->fault.armed = 1;
  if (coop) weft__coop_run(w, l);
  else run_groups(&w->group);
  w->fault.armed = 0;
}

static void own_stack_main(void *arg) {
  cpu_worker *w = arg;
  run_worker(w, w->launch);
  w->executor->fibers->swap(&w->own_fiber, &w->caller);
}

/* Worker 0: the launching thread moves to worker 0's stack for the launch,
 * with worker 0's fault handling, and gets its own back afterwards. */
static void run_on_own_stack(cpu_worker *w, launch_state *l) {
  const weft_fiber_ops *fibers = w->executor->fibers;
  void *stack = weft__stacks_get(&w->own_stack, 0);
  if (!stack) {
    weft__executor_report(
        l, WEFT_ESYS, "cannot map a %zu-byte stack for the launching thread",
        w->own_stack.size);
    return;
  }
  weft_fault_saved saved;
  weft__fault_attach(&w->fault, &saved);
  w->launch = l;
  fibers->make(&w->own_fiber, stack, w->own_stack.size, own_stack_main, w);
  fibers->swap(&w->caller, &w->own_fiber);
  weft__fault_detach(&saved);
}

static void worker_job(void *arg, unsigned index) {
  launch_state *l = arg;
  cpu_worker *w = &l->executor->workers[index];
  if (index == 0) run_on_own_stack(w, l);
  else run_worker(w, l);
}

/* A pool thread, once, before its first job. */
static void worker_init(void *arg, unsigned index) {
  weft_executor *e = arg;
  cpu_worker *w = &e->workers[index];
  weft_fault_saved unused;
  w->init_error = weft__fault_init(&w->fault);
  if (!w->init_error) weft__fault_attach(&w->fault, &unused);
  pthread_attr_t attr;
  void *lo;
  size_t size;
  if (!pthread_getattr_np(pthread_self(), &attr)) {
    pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_getguardsize(&attr, &w->stack_guard);
    w->stack_lo = lo;
    w->stack_size = size;
    pthread_attr_destroy(&attr);
  }
}

/* Worker 0, which runs on whichever thread launches. */
static int init_worker0(weft_executor *e) {
  cpu_worker *w = &e->workers[0];
  weft__stacks_init(&w->own_stack, e->stack_size + WORKER_STACK_EXTRA);
  if (e->fibers->init(&w->own_fiber) || e->fibers->init(&w->caller))
    return WEFT_ENOMEM;
  return weft__fault_init(&w->fault);
}

int weft__executor_create(const weft_config *config, weft_executor **out) {
  weft_executor *e = calloc(1, sizeof *e);
  if (!e) return WEFT_ENOMEM;
  e->fibers = weft__fiber_ops(config->fiber);
  e->stack_size = config->stack_size;
  e->num_workers = config->num_threads;
  e->workers = calloc(e->num_workers, sizeof *e->workers);
  if (!e->workers) {
    free(e);
    return WEFT_ENOMEM;
  }
  e->resident_limit = config->resident_limit;
  e->spin_timeout = config->spin_timeout;
  e->config = config;
  e->schedule = config->schedule;
  e->seed = config->schedule_seed;
  e->depth = config->schedule_depth;
  e->weak = config->weak_memory;
  if (config->schedule == WEFT_SCHEDULE_EXHAUSTIVE &&
      weft__explore_create(config->explore_budget,
                           config->explore_preemptions,
                           config->explore_reduce && !config->weak_memory,
                           config->explore_replay, &e->explore)) {
    free(e->workers);
    free(e);
    return WEFT_ENOMEM;
  }
  e->timeout = config->timeout;
  pthread_mutex_init(&e->races_lock, NULL);
  pthread_mutex_init(&e->history_lock, NULL);
  for (unsigned i = 0; i < e->num_workers; i++) {
    e->workers[i].executor = e;
    weft__stacks_init(&e->workers[i].stacks, config->stack_size);
    if (e->fibers->init(&e->workers[i].sched)) {
      free(e->workers);
      free(e);
      return WEFT_ENOMEM;
    }
  }
  int rc = weft__fault_install();
  if (!rc) rc = init_worker0(e);
  if (!rc)
    rc = weft__pool_create(e->num_workers,
                           config->stack_size + WORKER_STACK_EXTRA,
                           worker_init, e, &e->pool);
  if (rc) {
    free(e->workers);
    free(e);
    return rc;
  }
  *out = e;
  return 0;
}

void weft__executor_destroy(weft_executor *e) {
  if (!e) return;
  weft__pool_destroy(e->pool);
  weft__watchdog_destroy(e);
  weft__coop_free_slots(e);
  weft__check_races_free(e);
  pthread_mutex_destroy(&e->races_lock);
  pthread_mutex_destroy(&e->history_lock);
  weft__explore_free(e->explore);
  for (unsigned i = 0; i < e->num_workers; i++) {
    cpu_worker *w = &e->workers[i];
    weft__stacks_fini(&w->stacks);
    weft__stacks_fini(&w->own_stack);
    e->fibers->fini(&w->own_fiber);
    e->fibers->fini(&w->caller);
    weft__fault_fini(&w->fault);
    for (unsigned k = 0; k < w->group.capacity; k++)
      e->fibers->fini(&w->group.items[k].fiber);
    e->fibers->fini(&w->group.main);
    free(w->group.items);
    weft__weak_free(&w->group);
    e->fibers->fini(&w->sched);
    free(w->local_mem);
    weft__text_free(&w->output);
    if (w->private_mem) munmap(w->private_mem, w->private_capacity);
  }
  free(e->workers);
  free(e);
}

void weft__executor_schedule_seed(weft_executor *e, unsigned long long seed) {
  e->seed = seed;
  e->launches = 0;
}

/* Mappings a resident group holds (its stack and the guard below it;
 * its local and private memory come from the heap: coop.c). */
#define MAPS_PER_GROUP 2

unsigned weft__executor_max_resident(const weft_executor *e) {
  if (e->resident_limit) return e->resident_limit;
  /* What the process can hold: three quarters of its mappings, the last
   * quarter left to the rest (libraries, threads, buffers: 32,000 groups
   * of one ran under the default 65,530 alone). */
  long maps = weft__map_count_limit();
  long groups = (maps - maps / 4) / MAPS_PER_GROUP;
  return groups < WEFT_MAX_RESIDENT_GROUPS ? (unsigned)groups
                                           : WEFT_MAX_RESIDENT_GROUPS;
}

unsigned weft__executor_threads(const weft_executor *e) {
  return e->num_workers;
}

int weft__executor_run(weft_executor *e, const weft_launch_desc *d,
                       weft_msg *msg) {
  launch_state l = {.executor = e, .desc = d, .total = 1, .msg = msg};
  for (int k = 0; k < 3; k++) {
    l.num_groups[k] = (d->global[k] + d->local[k] - 1) / d->local[k];
    l.total *= l.num_groups[k];
  }
  /* Several chunks per worker balance uneven groups; more cost atomics. */
  l.chunk = l.total / (16ull * e->num_workers);
  if (l.chunk == 0) l.chunk = 1;
  atomic_init(&l.next, 0);
  atomic_init(&l.failed, 0);
  pthread_mutex_init(&l.lock, NULL);
  int coop = (d->kernel->flags & WEFT_KERNEL_COOPERATIVE) != 0;
  weft__check_races_begin(&l); /* before any group is prepared */
  if (coop) weft__coop_begin(&l);
  weft__watchdog_begin(&l);
  weft__pool_run(e->pool, worker_job, &l);
  weft__watchdog_end(&l);
  weft__watchdog_report(&l);
  if (coop) {
    weft__coop_note_schedule(&l);
    weft__coop_end(&l);
  }
  weft__check_reports_finish(&l);
  weft__check_races_end(&l);
  /* printf output, whether the launch failed or not: what a kernel printed
   * before it crashed is what its author wants to see. */
  for (unsigned i = 0; i < e->num_workers; i++)
    weft__cpu_output_flush(&e->workers[i].output);
  pthread_mutex_destroy(&l.lock);
  return l.status;
}
