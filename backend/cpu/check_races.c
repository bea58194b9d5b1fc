/* check_races.c: check mode's race check on the CPU (jit/check_races.c
 * says which accesses and operations generated code reports here).
 *
 * Each 4-byte word of a group's __local memory and of a launch's buffer
 * arguments has a record of its last write and of its last two readers:
 * for each, the work-item, the bytes of the word it touched, its check
 * site (for the report's second line), the barriers it had passed, and
 * the launch's synchronization count at the time. An access races with a
 * recorded one of another work-item, touching a byte of it, one of the two
 * a write, unless
 *   - both are of one group and a barrier came between (their barrier
 *     counts differ), or
 *   - the other work-item synchronized after its access and this one
 *     synchronized after that access too (launch-wide counts: each
 *     work-item's last synchronization is kept).
 * The second rule is what a lock's release and acquire look like; it
 * sees no order where there is none, but may take a near miss for order
 * (README: Debugging kernels). Records are replaced, never merged across
 * work-items, so a lost record only hides a race, never invents one.
 *
 * __local records follow the group's local memory (executor.c makes the
 * room and clears it for each group; one thread runs a group at a time).
 * Buffer records are the launch's, mapped per argument so that only the
 * words touched cost memory, and kept under striped spin locks: groups on
 * other threads touch them too. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend/cpu/executor_internal.h"

/* One access recorded: work-item, bytes, site, barriers, synchronization. */
typedef struct race_slot {
  uint32_t item;   /* 1 + the work-item's index in the launch; 0: none */
  uint32_t tick;   /* the launch's synchronization count at the access */
  uint16_t site;   /* its check site, or NO_SITE */
  uint16_t epoch;  /* barriers its work-item had passed (mod 2^16) */
  uint8_t mask;    /* the word's bytes it touched */
  uint8_t unused[3];
} race_slot;

typedef struct race_cell {
  race_slot write;
  race_slot read[2];
} race_cell;

#define WORD 4u
#define NO_SITE 0xffffu
#define STRIPES 4096u

struct race_records {
  uint64_t per_group;            /* work-items in a full group */
  unsigned num_args;
  race_cell **args;              /* per argument: its buffer's, or NULL */
  size_t *arg_bytes;             /* their mappings' sizes */
  _Atomic uint32_t *last_sync;   /* per work-item: its last synchronization */
  size_t last_sync_bytes;
  _Atomic uint32_t ticks;        /* synchronizations in the launch */
  atomic_flag stripes[STRIPES];  /* buffer records' locks */
};

/* The access being made. */
typedef struct race_access {
  uint32_t item;
  uint64_t group;
  uint32_t tick, last_sync;
  uint16_t site, epoch;
  int write;
} race_access;

/* ------------------------------------------------------------ memory */

static void *map_zeroed(size_t bytes) {
  void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static size_t cells_bytes(uint64_t bytes) {
  return (bytes + WORD - 1) / WORD * sizeof(race_cell);
}

size_t weft__check_races_local_bytes(size_t local_mem_size) {
  return cells_bytes(local_mem_size);
}

/* Records for each buffer argument the launch checks (NULL for others). */
static int map_args(race_records *r, const weft_launch_desc *d) {
  r->num_args = d->kernel->num_args;
  r->args = calloc(r->num_args ? r->num_args : 1, sizeof *r->args);
  r->arg_bytes = calloc(r->num_args ? r->num_args : 1, sizeof *r->arg_bytes);
  if (!r->args || !r->arg_bytes) return -1;
  for (unsigned i = 0; i < r->num_args; i++) {
    const weft_arg_desc *a = &d->kernel->args[i];
    if (a->kind == WEFT_ARG_VALUE || a->kind == WEFT_ARG_LOCAL ||
        a->address_space != WEFT_ADDRESS_GLOBAL || !d->arg_sizes[i])
      continue;
    r->arg_bytes[i] = cells_bytes(d->arg_sizes[i]);
    if (!(r->args[i] = map_zeroed(r->arg_bytes[i]))) return -1;
  }
  return 0;
}

static void free_records(race_records *r) {
  for (unsigned i = 0; r->args && i < r->num_args; i++)
    if (r->args[i]) munmap(r->args[i], r->arg_bytes[i]);
  if (r->last_sync) munmap((void *)r->last_sync, r->last_sync_bytes);
  free(r->args);
  free(r->arg_bytes);
  free(r);
}

void weft__check_races_begin(launch_state *l) {
  const weft_launch_desc *d = l->desc;
  if (!(d->kernel->flags & WEFT_KERNEL_RACES)) return;
  uint64_t per_group = d->local[0] * d->local[1] * d->local[2];
  if (l->total > (UINT32_MAX - 1) / per_group) {
    fprintf(stderr, "weft: kernel '%s': no race check for this launch: it "
            "has more than %" PRIu32 " work-items\n", d->kernel->name,
            UINT32_MAX - 1);
    return;
  }
  race_records *r = calloc(1, sizeof *r);
  if (!r) goto out_of_memory;
  r->per_group = per_group;
  r->last_sync_bytes = l->total * per_group * sizeof *r->last_sync;
  r->last_sync = map_zeroed(r->last_sync_bytes);
  for (unsigned i = 0; i < STRIPES; i++) atomic_flag_clear(&r->stripes[i]);
  if (!r->last_sync || map_args(r, d)) goto out_of_memory;
  l->races = r;
  return;
out_of_memory:
  if (r) free_records(r);
  fprintf(stderr, "weft: kernel '%s': no race check for this launch: out of "
          "memory for its records\n", d->kernel->name);
}

void weft__check_races_end(launch_state *l) {
  if (l->races) free_records(l->races);
  l->races = NULL;
}

void *const *weft__check_races_args(const launch_state *l) {
  return l->races ? (void *const *)l->races->args : NULL;
}

/* ----------------------------------------------------------- deciding */

static uint32_t item_of(const cpu_group *g, uint64_t lx, uint64_t ly,
                        uint64_t lz) {
  const uint64_t *n = g->ctx.enqueued_local_size;
  return (uint32_t)(g->index * g->launch->races->per_group + lx +
                    n[0] * (ly + n[1] * lz) + 1);
}

static uint64_t group_of(const race_records *r, uint32_t item) {
  return (item - 1) / r->per_group;
}

/* a came after b (counts wrap). */
static int after(uint32_t a, uint32_t b) {
  return (int32_t)(a - b) > 0;
}

/* Whether slot s's access, if any, comes before m's: none, the same
 * work-item, a barrier between, or synchronization after it by both. */
static int ordered(race_records *r, const race_slot *s, const race_access *m) {
  if (!s->item || s->item == m->item) return 1;
  if (group_of(r, s->item) == m->group && s->epoch != m->epoch) return 1;
  uint32_t theirs = atomic_load_explicit(&r->last_sync[s->item - 1],
                                         memory_order_relaxed);
  return after(theirs, s->tick) && after(m->last_sync, s->tick);
}

/* Records m's access of the word's bytes mask in s: added to the slot's
 * bytes when it is the same work-item's, between the same barriers and
 * synchronizations; otherwise in its place. */
static void record(race_slot *s, const race_access *m, uint8_t mask) {
  if (s->item == m->item && s->epoch == m->epoch && s->tick == m->tick) {
    s->mask |= mask;
    s->site = m->site;
    return;
  }
  *s = (race_slot){.item = m->item, .tick = m->tick, .site = m->site,
                   .epoch = m->epoch, .mask = mask};
}

/* The reader slot m's read goes in: its own, a free or ordered one, or
 * else the second (the record it held is lost). */
static race_slot *reader_slot(race_records *r, race_cell *c,
                              const race_access *m) {
  for (int i = 0; i < 2; i++)
    if (c->read[i].item == m->item) return &c->read[i];
  for (int i = 0; i < 2; i++)
    if (ordered(r, &c->read[i], m)) return &c->read[i];
  return &c->read[1];
}

/* Checks m's access of bytes mask of cell c against its records, then
 * records it: 1 with *other filled when it races. */
static int check_cell(race_records *r, race_cell *c, const race_access *m,
                      uint8_t mask, race_slot *other) {
  int races = 0;
  if ((c->write.mask & mask) && !ordered(r, &c->write, m)) {
    *other = c->write;
    races = 1;
  }
  if (!m->write) {
    record(reader_slot(r, c, m), m, mask);
    return races;
  }
  for (int i = 0; i < 2 && !races; i++)
    if ((c->read[i].mask & mask) && !ordered(r, &c->read[i], m)) {
      *other = c->read[i];
      races = 1;
    }
  record(&c->write, m, mask);
  return races;
}

static void lock(race_records *r, uint64_t word) {
  while (atomic_flag_test_and_set_explicit(&r->stripes[word % STRIPES],
                                           memory_order_acquire))
    ;
}

static void unlock(race_records *r, uint64_t word) {
  atomic_flag_clear_explicit(&r->stripes[word % STRIPES], memory_order_release);
}

/* Bytes [from, to) of the access, as a mask of word w's bytes. */
static uint8_t mask_of(uint64_t w, uint64_t from, uint64_t to) {
  uint64_t lo = w * WORD > from ? w * WORD : from;
  uint64_t hi = (w + 1) * WORD < to ? (w + 1) * WORD : to;
  return (uint8_t)(((1u << (hi - lo)) - 1) << (lo - w * WORD));
}

/* ---------------------------------------------------------- reporting */

void weft__check_races_describe(const launch_state *l, uint32_t item,
                                char *out, size_t size) {
  const weft_launch_desc *d = l->desc;
  uint64_t group = group_of(l->races, item), k = (item - 1) % l->races->per_group;
  uint64_t gid[3], lid[3], wg[3];
  for (int i = 0; i < 3; i++) {
    wg[i] = group % l->num_groups[i];
    group /= l->num_groups[i];
    lid[i] = k % d->local[i];
    k /= d->local[i];
    gid[i] = wg[i] * d->local[i] + lid[i] + d->offset[i];
  }
  char a[64], b[64], c[64];
  weft__format_ids(a, sizeof a, d->dims, gid);
  weft__format_ids(b, sizeof b, d->dims, lid);
  weft__format_ids(c, sizeof c, d->dims, wg);
  snprintf(out, size, "work-item %s [local %s in work-group %s]", a, b, c);
}

/* ---------------------------------------------------------- generated */

void weft__cpu_race_access(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                           uint64_t lz, uint32_t site, int64_t offset,
                           uint64_t cell, uint64_t size, uint32_t epoch) {
  cpu_group *g = ctx->group;
  launch_state *l = g->launch;
  race_records *r = l->races;
  if (!r || !size) return;
  const weft_check_site *s = &l->desc->binary->check_sites[site];
  int shared = s->space != WEFT_ADDRESS_LOCAL;
  race_cell *cells = shared ? r->args[s->arg]
                            : ctx->local_races
                                  ? (race_cell *)(ctx->local_mem + ctx->local_races)
                                  : NULL;
  uint64_t limit = shared ? ctx->arg_sizes[s->arg] : ctx->local_mem_size;
  /* Outside its object: the memory check's to report, nothing to record. */
  if (!cells || cell > limit || size > limit - cell) return;
  race_access m = {.item = item_of(g, lx, ly, lz),
                   .tick = atomic_load_explicit(&r->ticks, memory_order_relaxed),
                   .site = site < NO_SITE ? (uint16_t)site : NO_SITE,
                   .epoch = (uint16_t)epoch,
                   .write = (s->access & WEFT_ACCESS_WRITE) != 0};
  m.group = group_of(r, m.item);
  m.last_sync = atomic_load_explicit(&r->last_sync[m.item - 1], memory_order_relaxed);
  race_slot other;
  int races = 0;
  for (uint64_t w = cell / WORD; w * WORD < cell + size; w++) {
    if (shared) lock(r, w);
    int here = check_cell(r, &cells[w], &m, mask_of(w, cell, cell + size),
                          races ? &(race_slot){0} : &other);
    if (shared) unlock(r, w);
    races |= here;
  }
  if (!races) return;
  uint64_t k = lx + ctx->local_size[0] * (ly + ctx->local_size[1] * lz);
  weft_race_other o = {.item = other.item,
                       .site = other.site == NO_SITE ? -1 : other.site,
                       .same_group = group_of(r, other.item) == m.group};
  weft__check_record(g, (unsigned)k, site, offset, size, &o);
}

void weft__cpu_race_sync(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                         uint64_t lz) {
  cpu_group *g = ctx->group;
  race_records *r = g->launch->races;
  if (!r) return;
  uint32_t tick = atomic_fetch_add_explicit(&r->ticks, 1, memory_order_relaxed) + 1;
  atomic_store_explicit(&r->last_sync[item_of(g, lx, ly, lz) - 1], tick,
                        memory_order_relaxed);
}
