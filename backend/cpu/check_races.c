/* check_races.c: check mode's race check on the CPU (jit/cpu/check_races.c
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
 *   - the other work-item's group synchronized after its access, and this
 *     one's group synchronized after that access too (launch-wide counts:
 *     each work-item's and each group's last synchronization is kept).
 * The second rule is what a lock's release and acquire look like, also
 * when one work-item of each group takes the lock for all and a barrier
 * passes the order on (cl_weft_sync's group functions); it sees no order
 * where there is none, but may take a near miss for order (README:
 * Debugging kernels). Records are replaced, never merged across
 * work-items, so a lost record only hides a race, never invents one.
 *
 * __local records follow the group's local memory (group.c makes the
 * room and clears it for each group; one thread runs a group at a time).
 * Buffer records are mapped per argument, so that only the words touched
 * cost memory, and kept under striped spin locks: groups on other threads
 * touch them too. The executor keeps them from one launch to the next
 * (mapping and first touching them is most of their cost; they grow as
 * weft__reserve grows memory kept between groups); the count
 * never goes back, so a record older than the launch's first tick is of an
 * earlier launch, and no record needs clearing. */
#include <inttypes.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend/cpu/executor_internal.h"
#include "backend/cpu/reserve.h"

/* One access recorded: work-item, bytes, site, barriers, synchronization. */
typedef struct race_slot {
  uint32_t item;   /* 1 + the work-item's index in the launch; 0: none */
  uint32_t tick;   /* when: access_tick() */
  uint32_t epoch;  /* barriers its work-item had passed */
  uint16_t site;   /* its check site, or NO_SITE */
  uint8_t mask;    /* the word's bytes it touched */
  uint8_t unused;
} race_slot;

typedef struct race_cell {
  race_slot write;
  race_slot read[2];
} race_cell;

/* Generated code reads __local records (kernel_abi.h). */
_Static_assert(sizeof(race_slot) == WEFT_RACE_SLOT, "slot layout");
_Static_assert(sizeof(race_cell) == WEFT_RACE_CELL, "cell layout");
_Static_assert(offsetof(race_cell, read) == WEFT_RACE_SLOT, "cell layout");
_Static_assert(offsetof(race_slot, item) == WEFT_RACE_SLOT_ITEM, "slot layout");
_Static_assert(offsetof(race_slot, epoch) == WEFT_RACE_SLOT_EPOCH, "slot layout");
_Static_assert(offsetof(race_slot, mask) == WEFT_RACE_SLOT_MASK, "slot layout");

#define WORD 4u
#define NO_SITE 0xffffu
#define STRIPES 4096u

struct race_records {
  uint64_t per_group;            /* work-items in a full group */
  uint32_t first_tick;           /* the launch's: older records are stale */
  unsigned capacity;             /* entries of args and arg_bytes */
  race_cell **args;              /* per argument: its buffer's, or NULL */
  size_t *arg_bytes;             /* their mappings' sizes */
  _Atomic uint32_t *last_sync;   /* per work-item: its last synchronization */
  size_t last_sync_bytes;
  _Atomic uint32_t *group_sync;  /* per group: its work-items' last one */
  size_t group_sync_bytes;
  _Atomic uint32_t ticks;        /* the count behind every tick */
  _Atomic int synced;            /* a synchronization in this launch yet */
  atomic_flag stripes[STRIPES];  /* buffer records' locks */
};

/* The access being made. Its group's work-items are those numbered
 * first_item to first_item + per_group - 1. */
typedef struct race_access {
  uint32_t item, first_item;
  uint32_t tick, epoch;
  uint16_t site;
  int write;
  int synced;         /* last_sync found yet */
  uint32_t last_sync; /* its work-item's or group's last synchronization */
} race_access;

/* ------------------------------------------------------------ memory */

static size_t cells_bytes(uint64_t bytes) {
  return (bytes + WORD - 1) / WORD * sizeof(race_cell);
}

size_t weft__check_races_local_bytes(size_t local_mem_size) {
  return cells_bytes(local_mem_size);
}

/* Records for each buffer argument the launch checks (NULL for others). */
static int map_args(race_records *r, const weft_launch_desc *d) {
  unsigned n = d->kernel->num_args;
  if (n > r->capacity) {
    race_cell **args = realloc(r->args, n * sizeof *args);
    if (args) r->args = args;
    size_t *bytes = realloc(r->arg_bytes, n * sizeof *bytes);
    if (bytes) r->arg_bytes = bytes;
    if (!args || !bytes) return -1;
    memset(r->args + r->capacity, 0, (n - r->capacity) * sizeof *args);
    memset(r->arg_bytes + r->capacity, 0, (n - r->capacity) * sizeof *bytes);
    r->capacity = n;
  }
  for (unsigned i = 0; i < n; i++) {
    const weft_arg_desc *a = &d->kernel->args[i];
    if (a->kind == WEFT_ARG_VALUE || a->kind == WEFT_ARG_LOCAL ||
        a->address_space != WEFT_ADDRESS_GLOBAL || !d->arg_sizes[i])
      continue;
    if (weft__reserve((char **)&r->args[i], &r->arg_bytes[i],
                      cells_bytes(d->arg_sizes[i])))
      return -1;
  }
  return 0;
}

static void free_records(race_records *r) {
  for (unsigned i = 0; r->args && i < r->capacity; i++)
    if (r->args[i]) munmap(r->args[i], r->arg_bytes[i]);
  if (r->last_sync) munmap((void *)r->last_sync, r->last_sync_bytes);
  if (r->group_sync) munmap((void *)r->group_sync, r->group_sync_bytes);
  free(r->args);
  free(r->arg_bytes);
  free(r);
}

/* The records a launch uses: those kept from the last launch (mapped and
 * touched already, which is most of what they cost), or new ones. Past
 * 2^30 ticks they start again, long before the counts wrap. */
static race_records *take_records(weft_executor *e) {
  pthread_mutex_lock(&e->races_lock);
  race_records *r = e->races_kept;
  e->races_kept = NULL;
  pthread_mutex_unlock(&e->races_lock);
  if (r && atomic_load(&r->ticks) > (1u << 29)) {
    free_records(r);
    r = NULL;
  }
  if (!r && (r = calloc(1, sizeof *r))) {
    for (unsigned i = 0; i < STRIPES; i++) atomic_flag_clear(&r->stripes[i]);
    atomic_init(&r->ticks, 0);
  }
  return r;
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
  race_records *r = take_records(l->executor);
  if (!r ||
      weft__reserve((char **)&r->last_sync, &r->last_sync_bytes,
                    l->total * per_group * sizeof *r->last_sync) ||
      weft__reserve((char **)&r->group_sync, &r->group_sync_bytes,
                    l->total * sizeof *r->group_sync) ||
      map_args(r, d)) {
    if (r) free_records(r);
    fprintf(stderr, "weft: kernel '%s': no race check for this launch: out "
            "of memory for its records\n", d->kernel->name);
    return;
  }
  r->per_group = per_group;
  atomic_store(&r->synced, 0);
  /* Every record and synchronization so far is older than this. */
  r->first_tick = 2 * (atomic_fetch_add(&r->ticks, 1) + 1);
  l->races = r;
}

void weft__check_races_end(launch_state *l) {
  race_records *r = l->races;
  l->races = NULL;
  if (!r) return;
  weft_executor *e = l->executor;
  pthread_mutex_lock(&e->races_lock);
  race_records *old = e->races_kept;
  e->races_kept = r;
  pthread_mutex_unlock(&e->races_lock);
  if (old) free_records(old);
}

void weft__check_races_free(weft_executor *e) {
  if (e->races_kept) free_records(e->races_kept);
  e->races_kept = NULL;
}

void *const *weft__check_races_args(const launch_state *l) {
  return l->races ? (void *const *)l->races->args : NULL;
}

uint64_t weft__check_races_per_group(const launch_state *l) {
  return l->races ? l->races->per_group : 0;
}

/* ----------------------------------------------------------- deciding */

static uint64_t group_of(const race_records *r, uint32_t item) {
  return (item - 1) / r->per_group;
}

/* a came after b (counts wrap). */
static int after(uint32_t a, uint32_t b) {
  return (int32_t)(a - b) > 0;
}

/* The last synchronization of item or of its group, whichever came
 * later. */
static uint32_t sync_of(race_records *r, uint32_t item) {
  uint32_t own = atomic_load_explicit(&r->last_sync[item - 1], memory_order_relaxed);
  uint32_t group = atomic_load_explicit(&r->group_sync[group_of(r, item)],
                                        memory_order_relaxed);
  return after(group, own) ? group : own;
}

/* Whether item is of m's group (no division: this runs per access). */
static int same_group(const race_records *r, const race_access *m,
                      uint32_t item) {
  return item - m->first_item < r->per_group;
}

/* Whether slot s's access comes before m's for want of a conflict: none
 * (or one of an earlier launch), the same work-item, or a barrier
 * between. */
static int plainly_ordered(const race_records *r, const race_slot *s,
                           const race_access *m) {
  return !s->item || s->item == m->item || after(r->first_tick, s->tick) ||
         (s->epoch != m->epoch && same_group(r, m, s->item));
}

/* Whether slot s's access, if any, comes before m's: plainly, or by
 * synchronization after it on both sides. */
static int ordered(race_records *r, const race_slot *s, race_access *m) {
  if (plainly_ordered(r, s, m)) return 1;
  if (!after(sync_of(r, s->item), s->tick)) return 0;
  if (!m->synced) {
    m->last_sync = sync_of(r, m->item);
    m->synced = 1;
  }
  return after(m->last_sync, s->tick);
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

/* The reader slot m's read goes in: its own, a free or plainly ordered
 * one, or else the second (the record it held is lost: a race missed,
 * never one made up). */
static race_slot *reader_slot(const race_records *r, race_cell *c,
                              const race_access *m) {
  for (int i = 0; i < 2; i++)
    if (c->read[i].item == m->item) return &c->read[i];
  for (int i = 0; i < 2; i++)
    if (plainly_ordered(r, &c->read[i], m)) return &c->read[i];
  return &c->read[1];
}

/* Checks m's access of bytes mask of cell c against its records, then
 * records it: 1 with *other filled when it races. */
static int check_cell(race_records *r, race_cell *c, race_access *m,
                      uint8_t mask, race_slot *other) {
  int races = 0;
  if ((c->write.mask & mask) && !ordered(r, &c->write, m)) {
    *other = c->write;
    races = 1;
  }
  if (!m->write) {
    /* Two other work-items' reads of these bytes that nothing has
     * ordered yet: any later write races with one of them, so this read
     * need not be recorded (a tile that a whole group reads). */
    race_slot *slot = reader_slot(r, c, m);
    if (slot->item != m->item && (c->read[0].mask & mask) == mask &&
        !plainly_ordered(r, &c->read[0], m) && slot == &c->read[1] &&
        (c->read[1].mask & mask) == mask && !plainly_ordered(r, &c->read[1], m))
      return races;
    record(slot, m, mask);
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
  weft__launch_describe_linear(l, group_of(l->races, item),
                               (item - 1) % l->races->per_group, out, size);
}

/* ---------------------------------------------------------- generated */

/* The records of the access's memory, or NULL when they are not kept
 * or the access falls outside them (the memory check's to report). */
static race_cell *cells_of(const weft_wg_ctx *ctx, uint32_t what,
                           uint64_t cell, uint64_t size) {
  char *cells;
  uint64_t limit;
  if (what & WEFT_RACE_LOCAL) {
    cells = ctx->local_races ? ctx->local_mem + ctx->local_races : NULL;
    limit = ctx->local_mem_size;
  } else {
    unsigned arg = what >> WEFT_RACE_ARG_SHIFT;
    cells = ctx->arg_races[arg];
    limit = ctx->arg_sizes[arg];
  }
  if (!cells || cell > limit || size > limit - cell) return NULL;
  return (race_cell *)cells;
}

/* The tick of an access by item: the count now, doubled (a
 * synchronization's stamp is the count doubled, plus one). The count goes
 * up only where the item itself stamped a synchronization at the count it
 * reads: its access is then later than its synchronization, and must say
 * so. (Another work-item of its group that did only makes the access look
 * synchronized after: a race missed, never one made up.) Synchronizing
 * alone writes nothing shared, so atomics do not contend on the count. */
static uint32_t access_tick(race_records *r, uint32_t item) {
  uint32_t count = atomic_load_explicit(&r->ticks, memory_order_relaxed);
  /* Before any synchronization, none to be later than (and no load of
   * the work-item's word, for kernels that never synchronize). */
  if (!atomic_load_explicit(&r->synced, memory_order_relaxed))
    return 2 * count;
  uint32_t mine = atomic_load_explicit(&r->last_sync[item - 1],
                                       memory_order_relaxed);
  if (mine == 2 * count + 1)
    count = atomic_fetch_add_explicit(&r->ticks, 1, memory_order_relaxed) + 1;
  return 2 * count;
}

static void report_race(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                        uint64_t lz, uint32_t site, int64_t offset,
                        uint64_t size, race_records *r, const race_access *m,
                        const race_slot *other) {
  uint64_t k = weft__item_index(ctx, lx, ly, lz);
  weft_race_other o = {.item = other->item,
                       .site = other->site == NO_SITE ? -1 : other->site,
                       .same_group = same_group(r, m, other->item)};
  weft__check_record(ctx->group, (unsigned)k, site, offset, size, &o);
}

/* Work-item (lx, ly, lz) of ctx's group's number in the records. */
static uint32_t item_of(const weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                        uint64_t lz) {
  const uint64_t *n = ctx->enqueued_local_size;
  return (uint32_t)(ctx->race_first + lx + n[0] * (ly + n[1] * lz));
}

void weft__cpu_race_access(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                           uint64_t lz, uint32_t site, uint32_t what,
                           int64_t offset, uint64_t cell, uint64_t size,
                           uint32_t epoch) {
  race_records *r = ctx->races;
  race_cell *cells = r && size ? cells_of(ctx, what, cell, size) : NULL;
  if (!cells) return;
  race_access m = {.item = item_of(ctx, lx, ly, lz),
                   .first_item = ctx->race_first,
                   .site = site < NO_SITE ? (uint16_t)site : NO_SITE,
                   .epoch = epoch,
                   .write = (what & WEFT_RACE_WRITE) != 0};
  m.tick = access_tick(r, m.item);
  int shared = !(what & WEFT_RACE_LOCAL);
  race_slot other, ignored;
  int races = 0;
  for (uint64_t w = cell / WORD; w * WORD < cell + size; w++) {
    if (shared) lock(r, w);
    races |= check_cell(r, &cells[w], &m, mask_of(w, cell, cell + size),
                        races ? &ignored : &other);
    if (shared) unlock(r, w);
  }
  if (races) report_race(ctx, lx, ly, lz, site, offset, size, r, &m, &other);
}

void weft__cpu_race_sync(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                         uint64_t lz) {
  race_records *r = ctx->races;
  if (!r) return;
  cpu_group *g = ctx->group;
  uint32_t count = atomic_load_explicit(&r->ticks, memory_order_relaxed);
  uint32_t item = item_of(ctx, lx, ly, lz);
  atomic_store_explicit(&r->last_sync[item - 1], 2 * count + 1,
                        memory_order_relaxed);
  atomic_store_explicit(&r->group_sync[g->index], 2 * count + 1,
                        memory_order_relaxed);
  if (!atomic_load_explicit(&r->synced, memory_order_relaxed))
    atomic_store_explicit(&r->synced, 1, memory_order_relaxed);
}
