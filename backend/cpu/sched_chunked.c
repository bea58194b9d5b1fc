/* sched_chunked.c: the chunked scheduler (scheduler.h): workers take
 * chunks of group indexes from one counter and run each group to
 * completion on their own stack and memory. */
#include <stdatomic.h>

#include "backend/cpu/executor_internal.h"
#include "backend/cpu/reserve.h"
#include "backend/cpu/scheduler.h"

struct chunked_launch {
  uint64_t chunk;             /* group indexes a worker takes at once */
  atomic_uint_fast64_t next;  /* the first index no worker took */
};

_Static_assert(sizeof(chunked_launch) <= WEFT_SCHED_STATE_MAX,
               "the chunked state fits the launch's room for it");

static void chunked_begin(launch_state *l) {
  chunked_launch *c = (chunked_launch *)l->sched_state;
  /* Several chunks per worker balance uneven groups; more cost atomics. */
  c->chunk = l->total / (16ull * l->executor->num_workers);
  if (c->chunk == 0) c->chunk = 1;
  atomic_init(&c->next, 0);
  l->chunked = c;
}

/* The worker's group gets memory for this launch's groups: local memory,
 * and region-scheduled kernels' per-item data. */
static int chunked_prepare(cpu_worker *w, launch_state *l) {
  const weft_launch_desc *d = l->desc;
  if (weft__reserve_heap(&w->local_mem, &w->local_capacity,
                         weft__group_local_bytes(d)))
    return WEFT_ENOMEM;
  unsigned items = (unsigned)(d->local[0] * d->local[1] * d->local[2]);
  if ((d->kernel->flags & WEFT_KERNEL_REGIONS) &&
      weft__reserve(&w->private_mem, &w->private_capacity,
                    d->kernel->private_size * items))
    return WEFT_ENOMEM;
  return weft__group_prepare(&w->group, w, l, w->local_mem,
                             w->private_mem, &w->stacks);
}

static void chunked_run(cpu_worker *w, launch_state *l) {
  chunked_launch *c = l->chunked;
  cpu_group *g = &w->group;
  while (!atomic_load_explicit(&l->failed, memory_order_relaxed)) {
    uint64_t first = atomic_fetch_add(&c->next, c->chunk);
    if (first >= l->total) break;
    uint64_t end = first + c->chunk < l->total ? first + c->chunk : l->total;
    for (uint64_t i = first; i < end; i++) weft__group_run(g, i);
  }
}

/* The other workers see l->failed between groups. */
static void chunked_failed(launch_state *l) { (void)l; }

static void chunked_end(launch_state *l) { l->chunked = NULL; }

/* One group is work for one thread: an empty kernel's launch took 1.4 to
 * 14 us with the hand-off to a worker on a loaded two-core machine. */
static unsigned chunked_threads(const launch_state *l) {
  return l->total == 1 ? 1 : l->executor->num_workers;
}

const weft_scheduler weft__chunked_scheduler = {
    "chunked",      chunked_begin,  chunked_threads, chunked_prepare,
    chunked_run,    chunked_failed, chunked_end,
};
