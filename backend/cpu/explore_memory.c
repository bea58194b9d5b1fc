/*
 * explore_memory.c: where a schedule point's access lands, in terms that
 * stay the same from launch to launch, for exhaustive exploration's
 * partial-order reduction (explore.c compares a step of this launch with
 * steps of earlier launches, whose buffers may have been elsewhere: a
 * program gives each launch fresh buffers).
 *
 * A buffer argument's bytes are named by the argument and the offset; the
 * arguments whose bytes overlap (one buffer passed twice, sub-buffers of
 * one) by the first of them, offsets from the lowest byte, so that an
 * access through either is seen to touch the same bytes. A group's
 * __local memory is named by the group and the offset. Anything else (a
 * program-scope variable, memory reached through a pointer stored in a
 * buffer) has no such name: its step is taken to depend on every other.
 */
#include "backend/cpu/executor_internal.h"

/* Names: the argument (plus one) or, for __local memory, the group (with
 * the top bit) above, the offset below (up to 2^40 bytes). */
#define OFFSET_BITS 40
#define LOCAL_NAME (1ull << 63)

void weft__explore_memory_begin(launch_state *l) {
  const weft_launch_desc *d = l->desc;
  unsigned n = 0;
  for (unsigned i = 0; i < d->kernel->num_args; i++) {
    const weft_arg_desc *a = &d->kernel->args[i];
    if (a->kind != WEFT_ARG_BUFFER || a->address_space == WEFT_ADDRESS_LOCAL)
      continue;
    uintptr_t lo = (uintptr_t)*(void *const *)d->args[i];
    size_t size = d->arg_sizes ? d->arg_sizes[i] : 0;
    if (!lo || !size || size >= 1ull << OFFSET_BITS) continue;
    if (n == WEFT_EXPLORE_BUFFERS) break; /* the rest: no name */
    l->explore_mem[n++] = (explore_range){lo, lo + size, i + 1, lo};
  }
  /* Overlapping ranges take the first argument's name and the lowest
   * start, until nothing changes (a handful of arguments: quadratic is
   * fine). */
  for (int changed = 1; changed;) {
    changed = 0;
    for (unsigned i = 0; i < n; i++)
      for (unsigned j = i + 1; j < n; j++) {
        explore_range *a = &l->explore_mem[i], *b = &l->explore_mem[j];
        if (a->lo >= b->hi || b->lo >= a->hi ||
            (a->name == b->name && a->origin == b->origin))
          continue;
        a->name = b->name = a->name < b->name ? a->name : b->name;
        a->origin = b->origin = a->origin < b->origin ? a->origin : b->origin;
        changed = 1;
      }
  }
  l->explore_mem_n = n;
}

int weft__explore_memory_name(const launch_state *l, const cpu_group *g,
                              const void *p, uint64_t *name) {
  uintptr_t at = (uintptr_t)p;
  uintptr_t local = (uintptr_t)g->ctx.local_mem;
  if (local && at >= local && at - local < g->ctx.local_mem_size) {
    *name = LOCAL_NAME | g->index << OFFSET_BITS | (at - local);
    return 0;
  }
  for (unsigned i = 0; i < l->explore_mem_n; i++) {
    const explore_range *r = &l->explore_mem[i];
    if (at >= r->lo && at < r->hi) {
      *name = (uint64_t)r->name << OFFSET_BITS | (at - r->origin);
      return 0;
    }
  }
  return -1;
}
