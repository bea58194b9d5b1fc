/*
 * weak_memory.c: WEFT_MEMORY=weak, a store buffer per work-group, so that
 * a kernel relying on an order its fences do not give fails here as it may
 * on a GPU.
 *
 * Generated code (jit/cpu/weak_memory.c) hands every plain store to global (or
 * generic) memory to weft__cpu_weak_store, which keeps it in the group's
 * buffer instead of memory; plain loads go through weft__cpu_weak_load,
 * which reads memory and lays the group's own buffered stores over it (a
 * group sees its own stores at once). The buffer drains to memory:
 *   - all of it before a release (a release or sequentially consistent
 *     atomic or fence: OpenCL 1.x atomics are such), a barrier, a wait, a
 *     yield or poll (the group stops: what it waits for may need its
 *     stores), a call the code cannot see into, and when a work-item
 *     returns (after a schedule point, so that another group may run
 *     first);
 *   - the entries a relaxed atomic touches, before it (coherence);
 *   - one entry at random at a schedule point, one time in four;
 *   - the oldest entry, when the buffer is full.
 * So a relaxed store, or one with no fence before it, can be seen by other
 * groups before the stores that came before it: a flag published before
 * its data, a lock released by a relaxed store. Stores to different
 * locations drain in any order (PSO); to one location, in order (an entry
 * holds the newest value of its bytes). Loads and atomics are never
 * delayed or reordered: this is a store-buffer model, not the whole
 * OpenCL 2.0 model (README says what it finds).
 */
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/executor_internal.h"

/* Entries per group, and the bytes of the widest access kept (double16);
 * wider ones are written at once, after what they overlap. */
#define WEAK_ENTRIES 64
#define WEAK_MAX_BYTES 128

typedef struct weak_entry {
  char *addr;
  uint32_t size;
  unsigned char data[WEAK_MAX_BYTES];
} weak_entry;

struct weft_store_buffer {
  unsigned count;
  weak_entry e[WEAK_ENTRIES];   /* oldest first */
};

static int overlaps(const weak_entry *e, const char *p, uint64_t size) {
  return e->addr < p + size && p < e->addr + e->size;
}

/* Writes entry i to memory and removes it, keeping the others' order. */
static void drain_one(weft_store_buffer *b, unsigned i) {
  memcpy(b->e[i].addr, b->e[i].data, b->e[i].size);
  memmove(&b->e[i], &b->e[i + 1], (b->count - i - 1) * sizeof *b->e);
  b->count--;
}

/* Drains the entries overlapping [p, p + size), oldest first; all of them
 * when p is NULL. */
static void drain(weft_store_buffer *b, const char *p, uint64_t size) {
  if (!b) return;
  for (unsigned i = 0; i < b->count;)
    if (!p || overlaps(&b->e[i], p, size)) drain_one(b, i);
    else i++;
}

static cpu_group *group_of(weft_wg_ctx *ctx) { return ctx->group; }

/* A store into g's buffer (or memory: see weft__cpu_weak_store). */
static void store(cpu_group *g, void *p, const void *value, uint64_t size) {
  if (!g->weak && size <= WEAK_MAX_BYTES) g->weak = calloc(1, sizeof *g->weak);
  weft_store_buffer *b = g->weak;
  char *at = p;
  /* A store that cannot be made faults here, at its line, not when it
   * drains: its first and last bytes are written with themselves, by
   * atomic operations that no other thread's store can be lost to. */
  __atomic_fetch_or(at, 0, __ATOMIC_RELAXED);
  __atomic_fetch_or(at + size - 1, 0, __ATOMIC_RELAXED);
  if (!b || size > WEAK_MAX_BYTES) { /* no room for a buffer: no delay */
    drain(b, at, size);
    memcpy(at, value, size);
    return;
  }
  for (unsigned i = 0; i < b->count; i++)
    if (b->e[i].addr == at && b->e[i].size == size) {
      memcpy(b->e[i].data, value, size);
      return;
    }
  drain(b, at, size);
  if (b->count == WEAK_ENTRIES) drain_one(b, 0);
  weak_entry *e = &b->e[b->count++];
  e->addr = at;
  e->size = (uint32_t)size;
  memcpy(e->data, value, size);
}

void weft__cpu_weak_store(weft_wg_ctx *ctx, void *p, const void *value,
                          uint64_t size) {
  cpu_group *g = group_of(ctx);
  g->worker->runtime_caller = __builtin_return_address(0);
  store(g, p, value, size);
  g->worker->runtime_caller = NULL;
}

void weft__cpu_weak_load(weft_wg_ctx *ctx, const void *p, void *out,
                         uint64_t size) {
  const char *at = p;
  cpu_group *g = group_of(ctx);
  g->worker->runtime_caller = __builtin_return_address(0);
  memcpy(out, at, size);
  g->worker->runtime_caller = NULL;
  weft_store_buffer *b = g->weak;
  for (unsigned i = 0; b && i < b->count; i++) {
    const weak_entry *e = &b->e[i];
    if (!overlaps(e, at, size)) continue;
    const char *lo = e->addr > at ? e->addr : at;
    const char *hi = e->addr + e->size < at + size ? e->addr + e->size
                                                   : at + size;
    memcpy((char *)out + (lo - at), e->data + (lo - e->addr),
           (size_t)(hi - lo));
  }
}

void weft__cpu_weak_drain(weft_wg_ctx *ctx, const void *p, uint64_t size) {
  drain(group_of(ctx)->weak, p, size);
}

void weft__cpu_weak_exit(weft_wg_ctx *ctx) {
  cpu_group *g = group_of(ctx);
  if (!g->weak || !g->weak->count) return;
  /* Before the stores become visible, another group may run. */
  if (g->launch->random &&
      (g->launch->desc->kernel->flags & WEFT_KERNEL_COOPERATIVE))
    weft__cpu_sched_point(ctx, NULL, 0);
  drain(g->weak, NULL, 0);
}

void weft__weak_drift(cpu_group *g, launch_state *l) {
  weft_store_buffer *b = g->weak;
  if (!b || !b->count || weft__schedule_random(l) % 4) return;
  drain_one(b, (unsigned)(weft__schedule_random(l) % b->count));
}

void weft__weak_drain_group(cpu_group *g) { drain(g->weak, NULL, 0); }

void weft__weak_reset(cpu_group *g) {
  if (g->weak) g->weak->count = 0;
}

void weft__weak_free(cpu_group *g) {
  free(g->weak);
  g->weak = NULL;
}
