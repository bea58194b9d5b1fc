/* resize.c: a cooperative kernel's work-groups (cl_weft_cooperative_kernels,
 * WEFT_KERNEL_RESIZABLE) killed and forked while it runs, on the
 * cooperative scheduler (coop.c), whose lock guards all of it.
 *
 * The groups running are numbered 0 to live - 1. A launch starts with as
 * many as the policy wants (at most its own group count and the resident
 * limit: max). At offer_kill only the group with the highest id, never
 * group 0, may end, so the ids stay dense (a lower one to end waits there
 * while a launch waits for the threads: wait_while_doomed); request_fork
 * adds groups numbered on from live, which start (coop.c's start_group)
 * after the fork point with the forking group's transmit records; at the
 * resizing barrier the last group to arrive sets the count for all: those
 * numbered past it end, new ones start after it with group 0's records.
 *
 * The policy (WEFT_RESIZE): "threads" keeps as many groups as the device
 * has worker threads for, "churn" kills at every offer that may and forks
 * every group it may at every request (a resizing barrier alternates
 * between one group and all), and a WEFT_SCHEDULE mode draws each choice
 * from its seed. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/coop_state.h"
#include "backend/cpu/executor_internal.h"
#include "backend/cpu/resize.h"

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* The groups the device has threads for: its own, less what other
 * launches ask for meanwhile (share.c), one at least. */
static uint64_t wanted(const launch_state *l) {
  unsigned threads = l->executor->num_workers,
           demand = weft__share_demand(l->executor);
  uint64_t left = demand < threads ? threads - demand : 1;
  return min_u64(l->coop->resize.max, left);
}

static int churn(const launch_state *l) {
  return l->executor->config->resize == WEFT_RESIZE_CHURN;
}

static void set_live(coop_resize *r, uint64_t live) {
  __atomic_store_n(&r->live, live, __ATOMIC_RELAXED);
}

/* Whether the group with the highest id ends at its offer (coop_lock
 * held). */
static int kill_now(launch_state *l) {
  const coop_resize *r = &l->coop->resize;
  if (l->random) return weft__schedule_random(l) % 2;
  return churn(l) || r->live > wanted(l);
}

/* How many groups a request forks (coop_lock held). */
static uint64_t forks_now(launch_state *l) {
  const coop_resize *r = &l->coop->resize;
  uint64_t room = r->max - r->live;
  if (l->random) return weft__schedule_random(l) % (room + 1);
  if (churn(l)) return room;
  uint64_t want = wanted(l);
  return want > r->live ? want - r->live : 0;
}

/* The groups that go on past a resizing barrier (coop_lock held). */
static uint64_t barrier_target(launch_state *l) {
  const coop_resize *r = &l->coop->resize;
  if (l->random) return 1 + weft__schedule_random(l) % r->max;
  if (churn(l)) return r->live > 1 ? 1 : r->max;
  return wanted(l);
}

void weft__resize_begin(launch_state *l) {
  coop_resize *r = &l->coop->resize;
  const weft_kernel_desc *k = l->desc->kernel;
  memset(r, 0, sizeof *r);
  if (!(k->flags & WEFT_KERNEL_RESIZABLE)) return;
  r->on = 1;
  r->max = min_u64(l->total, l->coop->limit);
  r->initial = l->random ? 1 + weft__schedule_random(l) % r->max : wanted(l);
  set_live(r, r->initial);
  l->coop->starts = r->initial;
  r->record_bytes = k->transmit_size * l->desc->local[0];
}

void weft__resize_end(launch_state *l) {
  coop_resize *r = &l->coop->resize;
  for (size_t i = r->head; i < r->head + r->count; i++)
    free(r->pending[i].records);
  free(r->pending);
  r->pending = NULL;
}

/* Room for one more pending start (coop_lock held): 0, or WEFT_ENOMEM. */
static int grow_pending(coop_resize *r) {
  if (!r->count) r->head = 0;
  if (r->head + r->count < r->capacity) return 0;
  if (r->head) {
    memmove(r->pending, r->pending + r->head, r->count * sizeof *r->pending);
    r->head = 0;
    return 0;
  }
  size_t capacity = r->capacity ? 2 * r->capacity : 16;
  resize_start *grown = realloc(r->pending, capacity * sizeof *grown);
  if (!grown) return WEFT_ENOMEM;
  r->pending = grown;
  r->capacity = capacity;
  return 0;
}

/* Forks n groups resuming after site with a copy of records (coop_lock
 * held); fewer when memory runs out (a kernel runs on with fewer groups,
 * as when the device has no more to give). The threads asleep wake to
 * start them. */
static void fork_groups(launch_state *l, uint64_t n, uint32_t site,
                        const unsigned char *records) {
  coop_resize *r = &l->coop->resize;
  assert(r->live + n <= r->max);
  uint64_t made = 0;
  for (; made < n; made++) {
    if (grow_pending(r)) break;
    unsigned char *copy = NULL;
    if (r->record_bytes && records) {
      if (!(copy = malloc(r->record_bytes))) break;
      memcpy(copy, records, r->record_bytes);
    }
    r->pending[r->head + r->count++] =
        (resize_start){r->live + made, site, copy};
  }
  if (!made) return;
  set_live(r, r->live + made);
  l->coop->starts += made;
  l->coop->events++;
  if (l->coop->sleepers) pthread_cond_broadcast(&l->coop->coop_changed);
}

/* The count of groups g's kernel sees until its next point. */
static void note_count(cpu_group *g, uint64_t groups) {
  g->ctx.num_groups[0] = groups;
  g->ctx.global_size[0] = groups * g->ctx.enqueued_local_size[0];
}

void weft__resize_start_group(launch_state *l, cpu_group *g, uint64_t index,
                              uint64_t *id) {
  coop_resize *r = &l->coop->resize;
  assert(weft__lock_held(&l->coop->coop_lock));
  g->ctx.resume_site = 0;
  g->ctx.coop_exit = 0;
  *id = index;
  if (!r->on) return;
  note_count(g, r->live);
  if (index < r->initial) return;
  /* The launch's own groups first, then the forks in the order made. */
  assert(r->count && index - r->initial < l->coop->starts);
  resize_start *s = &r->pending[r->head++];
  r->count--;
  *id = s->id;
  g->ctx.resume_site = s->site;
  if (s->records) memcpy(g->ctx.transmit, s->records, r->record_bytes);
  free(s->records);
}

/* When every group running has arrived at the resizing barrier (coop_lock
 * held): sets how many go on, forks the new ones, opens it. 1 when it
 * opened (the caller wakes the waiters, without the lock). */
static int open_barrier(launch_state *l) {
  coop_resize *r = &l->coop->resize;
  if (!r->arrived || r->arrived < r->live) return 0;
  uint64_t target = barrier_target(l);
  if (target > r->live) fork_groups(l, target - r->live, r->site0, r->records0);
  else set_live(r, target);
  uint32_t opened_as = r->generation + 1;
  __atomic_store_n(&r->target[opened_as & 1], r->live, __ATOMIC_RELAXED);
  __atomic_store_n(&r->arrived, 0, __ATOMIC_RELAXED);
  r->records0 = NULL;
  __atomic_store_n(&r->generation, opened_as, __ATOMIC_RELEASE);
  return 1;
}

/* A group to be given back at its offer, not the highest yet: its id, and
 * the groups that had returned from the kernel (not killed) when it came. */
typedef struct doomed {
  launch_state *l;
  uint64_t id, returned;
} doomed;

/* Whether the group still waits for those above it (read without
 * coop_lock: each a hint the wait looks at again). It stops when a group
 * returned from the kernel (it may have been above it: this one may never
 * be the highest), or one arrived at a resizing barrier (it waits for
 * this one). */
static int still_doomed(const void *arg) {
  const doomed *d = arg;
  const launch_state *l = d->l;
  const coop_resize *r = &l->coop->resize;
  return !atomic_load_explicit(&l->failed, memory_order_relaxed) &&
         __atomic_load_n(&l->coop->returned, __ATOMIC_RELAXED) ==
             d->returned &&
         __atomic_load_n(&r->live, __ATOMIC_RELAXED) > d->id + 1 &&
         d->id >= wanted(l) && !__atomic_load_n(&r->arrived, __ATOMIC_RELAXED);
}

/* Group id, to be given back but not the highest, waits at its offer for
 * the groups above it to end while a launch waits for the threads
 * (share.c): those above end at their offers, and each below ends the
 * moment its turn comes, so all are given back within about one offer
 * interval, not one interval each (bench_coop_kernels' periodic kernel,
 * asking 15 threads of 16 on the H200 host's Xeon, waited 7.4-8.1 ms for
 * them, median, without this wait; 2.0-3.5 ms with it). A group waiting
 * to run has the thread meanwhile. When the launch stops waiting (it has
 * its threads, or the gather bound passed) the group goes on. Not under
 * churn or a random schedule, which kill at their own pace. */
static void wait_while_doomed(launch_state *l, cpu_group *g, uint64_t id) {
  if (l->random || churn(l)) return;
  doomed d = {l, id, __atomic_load_n(&l->coop->returned, __ATOMIC_RELAXED)};
  while (still_doomed(&d)) {
    weft__coop_offer_thread(g);
    if (!weft__share_await(l->executor, still_doomed, &d)) return;
  }
}

static void offer_kill(launch_state *l, cpu_group *g) {
  coop_resize *r = &l->coop->resize;
  uint64_t id = g->ctx.group_id[0];
  wait_while_doomed(l, g, id);
  weft__lock(&l->coop->coop_lock);
  int opened = 0;
  if (id && id + 1 == r->live && kill_now(l)) {
    set_live(r, id);
    g->ctx.coop_exit = 1;
    l->coop->events++;
    /* The groups at a resizing barrier no longer wait for this one. */
    opened = open_barrier(l);
  }
  note_count(g, r->live);
  weft__unlock(&l->coop->coop_lock);
  if (opened) weft__cpu_wake(&g->ctx, &r->generation, UINT32_MAX);
  if (g->ctx.coop_exit) weft__share_changed(l->executor);
  else weft__coop_offer_thread(g);
}

static void request_fork(launch_state *l, cpu_group *g, uint32_t site) {
  weft__lock(&l->coop->coop_lock);
  uint64_t n = forks_now(l);
  if (n) fork_groups(l, n, site, g->ctx.transmit);
  note_count(g, l->coop->resize.live);
  weft__unlock(&l->coop->coop_lock);
  weft__coop_offer_thread(g);
}

static void resizing_barrier(launch_state *l, cpu_group *g, uint32_t site) {
  coop_resize *r = &l->coop->resize;
  uint64_t id = g->ctx.group_id[0];
  weft__lock(&l->coop->coop_lock);
  uint32_t generation = r->generation;
  __atomic_store_n(&r->arrived, r->arrived + 1, __ATOMIC_RELAXED);
  if (!id) {
    r->records0 = g->ctx.transmit;
    r->site0 = site;
  }
  int opened = open_barrier(l);
  weft__unlock(&l->coop->coop_lock);
  /* A group waiting at its offer to be given back comes here instead:
   * this barrier waits for it. */
  weft__share_changed(l->executor);
  if (opened) weft__cpu_wake(&g->ctx, &r->generation, UINT32_MAX);
  while (__atomic_load_n(&r->generation, __ATOMIC_ACQUIRE) == generation)
    weft__cpu_wait(&g->ctx, &r->generation, generation, WEFT_WAIT_BARRIER);
  /* The opening that let it go set its target in its slot before the
   * generation; a later opening than that one, before this group even
   * looked, went without it: that one killed it. The one after uses the
   * other slot, so the target read is this opening's unless a later one
   * is seen. */
  uint32_t opened_as = generation + 1;
  uint64_t target = __atomic_load_n(&r->target[opened_as & 1], __ATOMIC_RELAXED);
  uint64_t live = __atomic_load_n(&r->live, __ATOMIC_RELAXED);
  int later = __atomic_load_n(&r->generation, __ATOMIC_ACQUIRE) != opened_as;
  g->ctx.coop_exit = later || id >= target;
  note_count(g, later ? live : target);
  if (g->ctx.coop_exit) weft__share_changed(l->executor);
}

void weft__cpu_coop_point(weft_wg_ctx *ctx, uint32_t kind, uint32_t site) {
  cpu_group *g = ctx->group;
  launch_state *l = g->launch;
  assert(l->coop && l->coop->resize.on);
  ctx->coop_exit = 0;
  switch (kind) {
  case WEFT__POINT_OFFER_KILL:
    offer_kill(l, g);
    break;
  case WEFT__POINT_REQUEST_FORK:
    request_fork(l, g, site);
    break;
  case WEFT__POINT_RESIZING_BARRIER:
    resizing_barrier(l, g, site);
    break;
  default:
    assert(!"a fork point of unknown kind");
  }
}

/* Without the lock: a kernel may ask in its inner loops, and the answer
 * is a hint that the next point acts on (a random schedule's one thread
 * draws from its sequence without it too). */
uint32_t weft__cpu_query_kill(weft_wg_ctx *ctx) {
  cpu_group *g = ctx->group;
  launch_state *l = g->launch;
  if (!l->coop || !l->coop->resize.on) return 0;
  uint64_t live = __atomic_load_n(&l->coop->resize.live, __ATOMIC_RELAXED);
  uint64_t keep = churn(l) ? 1 : wanted(l);
  if (l->random) keep = weft__schedule_random(l) % 2 ? 1 : live;
  return live > keep ? (uint32_t)min_u64(live - keep, UINT32_MAX) : 0;
}

int weft__resize_gathered(const launch_state *l) {
  if (!l->coop || !l->coop->resize.on) return 1;
  return __atomic_load_n(&l->coop->resize.live, __ATOMIC_RELAXED) <= wanted(l);
}

int weft__resize_is_barrier_word(const launch_state *l,
                                 const volatile uint32_t *word) {
  return l->coop && word == &l->coop->resize.generation;
}
