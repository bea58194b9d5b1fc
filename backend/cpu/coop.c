/* coop.c: the cooperative scheduler, for kernels whose work-groups wait for
 * each other (WEFT_KERNEL_COOPERATIVE).
 *
 * Each started work-group runs on a fiber of its own (a "slot": stack,
 * local memory, private memory, work-item fibers), so it can stop in the
 * middle and let another group run on the same thread. That is the whole
 * forward-progress guarantee: a group that waits yields its thread instead
 * of burning it, so any number of groups waiting for each other completes
 * on any number of threads, one included.
 *
 * Groups are ready, running, parked (waiting on a word, as a futex waiter)
 * or done. Workers take ready groups from one queue (several at a time
 * when many are ready), start new ones while fewer than the limit are
 * resident, and sleep when there is nothing to run. A group about to wait
 * spins instead while its thread would find nothing else to run, as
 * threads in a barrier would. When no group runs and none can start or
 * stop polling (the word it polls is unchanged), the groups wait for each
 * other for ever: the launch fails with a report of what each waits for,
 * instead of hanging; so it does when only spinning groups are left and
 * nothing else happens for WEFT_SPIN_TIMEOUT.
 *
 * A group that stops is in a half-way state (PARKING, YIELDING, PREEMPTED,
 * FINISHING)
 * until the fiber switch has saved its context: only the scheduler, back
 * on the worker's stack, makes it ready or parked, so no other worker can
 * resume a context still being saved. A parking group joins the waiting
 * list only then, under the lock that wakers take, after a last look at
 * its word: a wake before that look is seen by it, one after it finds the
 * group in the list. */
#include <assert.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/coop_state.h"
#include "backend/cpu/executor_internal.h"
#include "backend/cpu/reserve.h"
#include "backend/cpu/resize.h"
#include "backend/cpu/scheduler.h"

typedef enum slot_state {
  SLOT_READY,
  SLOT_RUNNING,
  SLOT_YIELDING,   /* switching away, to be ready again (it spins) */
  SLOT_PREEMPTED,  /* switching away at a random schedule's whim */
  SLOT_PARKING,    /* switching away, to wait on word */
  SLOT_PARKED,
  SLOT_FINISHING,  /* its group returned; switching away for the last time */
} slot_state;

struct coop_slot {
  cpu_group group;
  weft_stacks stack;          /* the group's own fiber stack (one) */
  weft_stacks item_stacks;    /* its work-items' fibers, in fiber mode */
  char *local_mem, *private_mem;
  size_t local_capacity, private_capacity;
  char *transmit;             /* a cooperative kernel's records (resize.c) */
  size_t transmit_capacity;
  slot_state state;
  int spun;                   /* it last stopped at a yield */
  int preempted;              /* it last stopped at a schedule point */
  int polls;                  /* that yield was a poll of word */
  /* The highest ctx->yield_item its yields have seen, and whether the
   * last one went past it: a work-item later than any before reached a
   * polling loop, so one before it got out of its own (progress). */
  uint64_t yield_high;
  int advanced;
  volatile uint32_t *word;    /* what it waits on, parked or polling */
  uint32_t expected, what;    /* (expected: the value a poll saw) */
  const void *pc;             /* where its code last yielded, polled or
                               * waited */
  /* In the ready queue, the waiting list or the free list: a slot is in
   * one at most, and one link lets a wake move the whole waiting list to
   * the ready queue at once. */
  coop_slot *next;
  coop_slot *next_resident;   /* in the launch's resident list */
  coop_slot **prev_resident;  /* the link to it there: unlinking is O(1) */
};

static coop_slot *slot_of(weft_wg_ctx *ctx) {
  /* The group is the slot's first member. */
  return (coop_slot *)ctx->group;
}

/* --------------------------------------------------------------- slots */

/* A slot from the executor's free list, or a new one (coop_lock held). */
static coop_slot *take_slot(weft_executor *e) {
  coop_slot *s = e->free_slots;
  if (s) {
    e->free_slots = s->next;
    return s;
  }
  s = calloc(1, sizeof *s);
  if (!s) return NULL;
  weft__stacks_init(&s->stack, e->stack_size + WORKER_STACK_EXTRA);
  weft__stacks_init(&s->item_stacks, e->stack_size);
  return s;
}

static void free_slot(coop_slot *s, const weft_fiber_ops *fibers) {
  for (unsigned k = 0; k < s->group.capacity; k++)
    fibers->fini(&s->group.items[k].fiber);
  fibers->fini(&s->group.main);
  free(s->group.items);
  weft__weak_free(&s->group);
  weft__stacks_fini(&s->stack);
  weft__stacks_fini(&s->item_stacks);
  free(s->local_mem);
  free(s->private_mem);
  free(s->transmit);
  free(s);
}

void weft__coop_free_slots(weft_executor *e) {
  while (e->free_slots) {
    coop_slot *s = e->free_slots;
    e->free_slots = s->next;
    free_slot(s, e->fibers);
  }
}

/* ------------------------------------------------------ ready, waiting */

static void push_ready(launch_state *l, coop_slot *s) {
  s->state = SLOT_READY;
  s->next = NULL;
  if (l->coop->ready_tail) l->coop->ready_tail->next = s;
  else l->coop->ready_head = s;
  l->coop->ready_tail = s;
  l->coop->num_ready++;
}

static coop_slot *pop_ready(launch_state *l) {
  coop_slot *s = l->coop->ready_head;
  if (s) {
    l->coop->ready_head = s->next;
    if (!l->coop->ready_head) l->coop->ready_tail = NULL;
    l->coop->num_ready--;
  }
  return s;
}

/* Takes s out of the ready queue (coop_lock held). */
static void unlink_ready(launch_state *l, coop_slot *s) {
  assert(weft__lock_held(&l->coop->coop_lock));
  coop_slot **p = &l->coop->ready_head, *prev = NULL;
  while (*p != s) prev = *p, p = &(*p)->next;
  *p = s->next;
  if (l->coop->ready_tail == s) l->coop->ready_tail = prev;
  l->coop->num_ready--;
}

/* Whether running s could change anything: not if it polls a word that
 * still holds what it saw, or has not reached its target yet (it would
 * only poll again). */
static int can_progress(const coop_slot *s) {
  if (!s->polls) return 1;
  uint32_t v = __atomic_load_n(s->word, __ATOMIC_RELAXED);
  if (s->what & WEFT_POLL_REACH) return (int32_t)(v - s->expected) >= 0;
  return v != s->expected;
}

/* The first ready group that can progress, taken from the queue; the
 * groups before it go to its back. NULL when none can. */
static coop_slot *next_runnable(launch_state *l) {
  for (unsigned n = l->coop->num_ready; n; n--) {
    coop_slot *s = pop_ready(l);
    if (can_progress(s)) return s;
    push_ready(l, s);
  }
  return NULL;
}

static void link_resident(launch_state *l, coop_slot *s) {
  s->next_resident = l->coop->resident;
  if (l->coop->resident) l->coop->resident->prev_resident = &s->next_resident;
  s->prev_resident = &l->coop->resident;
  l->coop->resident = s;
}

static void unlink_resident(coop_slot *s) {
  *s->prev_resident = s->next_resident;
  if (s->next_resident) s->next_resident->prev_resident = s->prev_resident;
}

/* ------------------------------------------------------------- fibers */


/* Leaves the running group for its worker's scheduler (the state already
 * says why). What the group printed goes out first: it may go on on
 * another worker, into another buffer, and its lines must stay in order. */
static void switch_to_scheduler(coop_slot *s) {
  cpu_group *g = &s->group;
  weft__cpu_output_flush(&g->worker->output);
  g->worker->executor->fibers->swap(weft__group_fiber_of(g, g->cur),
                                    &g->worker->sched);
}

/* The group's own fiber: run the group, then leave for good. */
static void slot_main(void *arg) {
  coop_slot *s = arg;
  weft__group_run(&s->group, s->group.index);
  s->state = SLOT_FINISHING;
  switch_to_scheduler(s);
}

/* Starts group index in a slot (coop_lock held); NULL when out of memory
 * (the launch has failed then). */
static coop_slot *start_group(cpu_worker *w, launch_state *l, uint64_t index) {
  assert(weft__lock_held(&l->coop->coop_lock));
  const weft_launch_desc *d = l->desc;
  weft_executor *e = w->executor;
  unsigned items = (unsigned)(d->local[0] * d->local[1] * d->local[2]);
  coop_slot *s = take_slot(e);
  void *stack = s ? weft__stacks_get(&s->stack, 0) : NULL;
  if (!stack ||
      weft__reserve_heap(&s->local_mem, &s->local_capacity,
                   weft__group_local_bytes(d)) ||
      weft__reserve_heap(&s->transmit, &s->transmit_capacity,
                         d->kernel->transmit_size * items) ||
      ((d->kernel->flags & WEFT_KERNEL_REGIONS) &&
       weft__reserve_heap(&s->private_mem, &s->private_capacity,
                    d->kernel->private_size * items)) ||
      weft__group_prepare(&s->group, w, l, s->local_mem,
                          s->private_mem, &s->item_stacks)) {
    if (s) {
      s->next = e->free_slots;
      e->free_slots = s;
    }
    weft__launch_report(l, WEFT_ENOMEM, "out of memory for work-group %llu "
                        "of kernel '%s' (%u are resident)",
                        (unsigned long long)index, d->kernel->name,
                        l->coop->num_resident);
    return NULL;
  }
  s->group.ctx.transmit = (unsigned char *)s->transmit;
  weft__resize_start_group(l, &s->group, index, &s->group.index);
  s->group.cur = 0;
  s->group.own_stack = &s->stack;
  if (l->pct) weft__pct_start_group(&s->group);
  s->spun = 0;
  s->preempted = 0;
  s->polls = 0;
  s->yield_high = 0;
  s->advanced = 0;
  s->group.ctx.yield_item = 0;
  e->fibers->make(&s->group.main, stack, s->stack.size, slot_main, s);
  link_resident(l, s);
  l->coop->num_resident++;
  return s;
}

/* Runs s on worker w until it stops (coop_lock not held). */
static void resume(cpu_worker *w, coop_slot *s) {
  cpu_group *g = &s->group;
  g->worker = w;
  w->current = g;
  w->executor->fibers->swap(&w->sched, weft__group_fiber_of(g, g->cur));
  w->current = &w->group;
}

/* Parks s on its word, unless the word no longer holds what s expected
 * (coop_lock held). The count of waiters goes up before the look, and a
 * waker stores before it reads the count (weft__cpu_wake): either the look
 * sees the store, or the waker sees the count and takes the lock. */
static void park(launch_state *l, coop_slot *s) {
  assert(weft__lock_held(&l->coop->coop_lock));
  __atomic_fetch_add(&l->coop->num_waiting, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(s->word, __ATOMIC_SEQ_CST) != s->expected) {
    __atomic_fetch_sub(&l->coop->num_waiting, 1, __ATOMIC_RELAXED);
    push_ready(l, s);
    return;
  }
  s->state = SLOT_PARKED;
  /* Appended: wakes take the oldest waiters first. */
  if (!l->coop->waiting) l->coop->waiting_on = s->word;
  else if (l->coop->waiting_on != s->word) l->coop->waiting_on = NULL;
  s->next = NULL;
  *l->coop->waiting_end = s;
  l->coop->waiting_end = &s->next;
}

/* Moves the whole waiting list to the back of the ready queue, in O(1)
 * (coop_lock held): a barrier's release wakes every waiter, and walking
 * them, one cache miss each, held the lock that every thread needs (the
 * global barrier at 64 groups a thread went 12% faster without the walk).
 * Their states still say PARKED until a worker takes them from the queue
 * and sets it; the only other reader, report_deadlock, runs when no ready
 * group can go on, and these can. */
static unsigned wake_all_waiting(launch_state *l) {
  assert(weft__lock_held(&l->coop->coop_lock));
  /* Under the lock, num_waiting counts the listed groups exactly: park
   * counts itself and lists itself (or not) in one hold. */
  unsigned n = __atomic_load_n(&l->coop->num_waiting, __ATOMIC_RELAXED);
  coop_slot *last = (coop_slot *)((char *)l->coop->waiting_end -
                                  offsetof(coop_slot, next));
  if (l->coop->ready_tail) l->coop->ready_tail->next = l->coop->waiting;
  else l->coop->ready_head = l->coop->waiting;
  l->coop->ready_tail = last;
  l->coop->num_ready += n;
  l->coop->waiting = NULL;
  l->coop->waiting_end = &l->coop->waiting;
  l->coop->waiting_on = NULL;
  return n;
}

/* What happens to s once it has stopped (coop_lock held). */
static void settle(launch_state *l, coop_slot *s) {
  assert(weft__lock_held(&l->coop->coop_lock));
  s->preempted = s->state == SLOT_PREEMPTED;
  if (s->preempted) { /* neither progress nor spinning */
    push_ready(l, s);
    return;
  }
  s->spun = s->state == SLOT_YIELDING;
  /* PCT: a spinner goes below the others, whoever it waits for;
   * exhaustive: it is not chosen again at once. */
  if (l->pct && s->spun && !s->polls)
    weft__pct_spun(l, &s->group.items[s->group.cur]);
  if (s->spun && !s->polls) l->coop->explore_spinner = s;
  if (!s->spun || s->advanced) l->coop->events++;
  s->advanced = 0;
  switch (s->state) {
  case SLOT_YIELDING:
    push_ready(l, s);
    break;
  case SLOT_PARKING:
    park(l, s);
    break;
  case SLOT_FINISHING:
    unlink_resident(s);
    l->coop->num_resident--;
    l->coop->finished++;
    /* Read without the lock by groups waiting to be given back. */
    if (!s->group.ctx.coop_exit)
      __atomic_store_n(&l->coop->returned, l->coop->returned + 1,
                       __ATOMIC_RELAXED);
    s->next = l->executor->free_slots;
    l->executor->free_slots = s;
    break;
  default:
    break;
  }
}

/* ------------------------------------------------------------ deadlock */

/* "on a mutex at 0x...", or "on the launch's global barrier". */
static void describe_wait(const launch_state *l, const coop_slot *s, char *out,
                          size_t size) {
  const volatile uint32_t *w = s->word;
  if (w >= l->launch_words && w < l->launch_words + WEFT_LAUNCH_WORDS)
    snprintf(out, size, "weft_global_barrier()");
  else if (weft__resize_is_barrier_word(l, w))
    snprintf(out, size, "resizing_global_barrier()");
  else
    snprintf(out, size, "%s at %p", weft__wait_name(s->what), (const void *)w);
}

/* "work-group (3)", or the work-item that waits when the group's
 * work-items are interleaved: the others wait with it, as in lockstep. */
static void describe_waiter(const coop_slot *s, char *out, size_t size) {
  const cpu_group *g = &s->group;
  if (g->interleaved) {
    weft__launch_describe_item(g, g->cur, out, size);
    return;
  }
  char ids[64];
  weft__format_ids(ids, sizeof ids, g->ctx.work_dim, g->ctx.group_id);
  snprintf(out, size, "work-group %s", ids);
}

/* Every resident group waits and none can start: say who waits for what,
 * and what became of the others. */
static void report_deadlock(launch_state *l) {
  char text[WEFT_MSG_MAX / 2], wait[96], who[192], place[96];
  size_t used = 0;
  unsigned shown = 0;
  /* The lowest-numbered groups first. */
  coop_slot *first[6] = {0};
  for (coop_slot *s = l->coop->resident; s; s = s->next_resident) {
    coop_slot *c = s;
    for (int i = 0; i < 6 && c; i++)
      if (!first[i] || c->group.index < first[i]->group.index) {
        coop_slot *t = first[i];
        first[i] = c;
        c = t;
      }
  }
  for (int i = 0; i < 6 && first[i]; i++) {
    coop_slot *s = first[i];
    describe_waiter(s, who, sizeof who);
    if (s->state == SLOT_PARKED || s->polls)
      describe_wait(l, s, wait, sizeof wait);
    else snprintf(wait, sizeof wait, "memory it polls in a loop");
    /* The call's return address less one lies in the call. */
    weft__launch_code_place(l->desc, s->pc ? (const char *)s->pc - 1 : NULL,
                            place, sizeof place);
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "%s%s%s waits on %s", shown++ ? "; " : "", who,
                             place, wait);
    if (used >= sizeof text) break;
  }
  uint64_t unstarted = l->coop->starts - l->coop->next_group;
  const char *why =
      !unstarted ? ""
      : l->executor->config->resident_limit
          ? "; the others cannot start: WEFT_RESIDENT_GROUPS allows only "
            "that many resident, as a GPU's occupancy would"
          : "; the others cannot start";
  weft__launch_report(
      l, WEFT_EDEADLOCK,
      "kernel '%s': deadlock: %u work-groups wait and none can go on "
      "(%llu finished, %llu not started%s): %s%s",
      l->desc->kernel->name, l->coop->num_resident,
      (unsigned long long)l->coop->finished,
      (unsigned long long)unstarted, why, text,
      l->coop->num_resident > shown ? "; ..." : "");
}

/* Called when only spinning groups are left to run and none runs: 1 once
 * they have spun for spin_timeout with nothing else happening. Meanwhile
 * the thread is given up at every turn, so the spinning costs little. The
 * clock is read at every 1024th look only, the first of them starting the
 * count: a barrier's groups make events all the time, and a read at each
 * one took 5% of a 128-group global barrier's time on 2 threads. */
static int spun_out(launch_state *l) {
  /* A launch beside a cooperative kernel (share.c) may be the one that
   * changes what its groups poll: while one waits or runs, nothing is
   * stuck yet. */
  if (weft__share_demand(l->executor)) l->coop->events++;
  if (l->coop->events != l->coop->spin_events) {
    l->coop->spin_events = l->coop->events;
    l->coop->spin_settles = 0;
    l->coop->spin_start = 0;
    return 0;
  }
  if (++l->coop->spin_settles % 1024) return 0;
  sched_yield();
  double now = weft__launch_now();
  if (!l->coop->spin_start) l->coop->spin_start = now;
  return now - l->coop->spin_start > l->executor->spin_timeout;
}

/* ------------------------------------------------------ random schedule */

/* Whether the next group may start: there is one, and room for it. */
static int can_start_group(const launch_state *l) {
  return l->coop->next_group < l->coop->starts &&
         l->coop->num_resident < l->coop->limit;
}

/* The next group to run in a random schedule: any ready group that can
 * progress, or a new one, with equal chances (coop_lock held); NULL when
 * there is none. */
static coop_slot *pick_random(launch_state *l, int can_start, int *start) {
  assert(weft__lock_held(&l->coop->coop_lock));
  unsigned ready = 0;
  for (coop_slot *s = l->coop->ready_head; s; s = s->next)
    ready += can_progress(s);
  *start = 0;
  if (!ready && !can_start) return NULL;
  uint64_t r = weft__schedule_random(l) % (ready + (can_start ? 1 : 0));
  if (r == ready) {
    *start = 1;
    return NULL;
  }
  coop_slot **p = &l->coop->ready_head, *prev = NULL;
  for (;; prev = *p, p = &(*p)->next)
    if (can_progress(*p) && !r--) break;
  coop_slot *s = *p;
  *p = s->next;
  if (l->coop->ready_tail == s) l->coop->ready_tail = prev;
  l->coop->num_ready--;
  return s;
}

static void note_schedule(launch_state *l) {
  weft_executor *e = l->executor;
  if (!l->random || !l->status) return;
  size_t used = strlen(l->msg->text);
  if (e->explore) {
    char replay[WEFT_MSG_MAX / 4];
    unsigned long long runs;
    weft__explore_replay(e->explore, replay, sizeof replay, &runs);
    snprintf(l->msg->text + used, sizeof l->msg->text - used,
             " [schedule exhaustive, interleaving %llu%s: WEFT_SCHEDULE=%s "
             "replays it]", runs + 1, e->weak ? ", WEFT_MEMORY=weak" : "",
             replay);
    return;
  }
  char mode[64];
  weft__schedule_value(e->config, e->seed, mode, sizeof mode);
  snprintf(l->msg->text + used, sizeof l->msg->text - used,
           " [schedule %s%s, launch %llu of that seed: the same seed and "
           "launches reproduce it]", mode, e->weak ? ", WEFT_MEMORY=weak" : "",
           l->launch_number);
}

/* ---------------------------------------------------------- PCT schedule */

/* A ready group's priority (pct.c): its running work-item's, or, stopped
 * at a schedule point with its work-items interleaved, its best one's. */
static int64_t group_priority(const coop_slot *s) {
  const cpu_group *g = &s->group;
  if (s->preempted && g->interleaved)
    return g->items[weft__pct_best_item(g, UINT_MAX)].priority;
  return g->items[g->cur].priority;
}

/* The ready group that can progress with the highest priority, compared
 * with the next group to start when one can: returns that priority, with
 * *slot NULL when starting wins (coop_lock held, or the launch's only
 * thread). INT64_MIN: none. */
static int64_t best_ready(launch_state *l, int can_start, coop_slot **slot) {
  assert(l->random || weft__lock_held(&l->coop->coop_lock));
  int64_t best = can_start ? weft__pct_unstarted_priority(l) : INT64_MIN;
  *slot = NULL;
  for (coop_slot *s = l->coop->ready_head; s; s = s->next) {
    if (!can_progress(s)) continue;
    int64_t priority = group_priority(s);
    if (priority > best) best = priority, *slot = s;
  }
  return best;
}

/* The next group to run under PCT, taken from the ready queue, set to
 * resume at its best work-item; or NULL, with *start when the next group
 * to start wins (coop_lock held). */
static coop_slot *pick_pct(launch_state *l, int can_start, int *start) {
  assert(weft__lock_held(&l->coop->coop_lock));
  coop_slot *s;
  int64_t best = best_ready(l, can_start, &s);
  *start = best != INT64_MIN && !s;
  if (!s) return NULL;
  unlink_ready(l, s);
  cpu_group *g = &s->group;
  /* Its work-items' fibers all stopped in a switch, so any runnable one
   * can be resumed. */
  if (s->preempted && g->interleaved) g->cur = weft__pct_best_item(g, UINT_MAX);
  return s;
}

/* A schedule point under PCT: a step; then the best work-item runs, of
 * this group or another. */
static void pct_point(launch_state *l, coop_slot *s) {
  cpu_group *g = &s->group;
  weft__pct_step(l, &g->items[g->cur]);
  unsigned best = g->interleaved ? weft__pct_best_item(g, UINT_MAX) : g->cur;
  int can_start = can_start_group(l);
  coop_slot *other;
  if (best_ready(l, can_start, &other) > g->items[best].priority) {
    s->state = SLOT_PREEMPTED;
    switch_to_scheduler(s);
  } else if (best != g->cur) {
    weft__group_switch_item(g, g->cur, best);
  }
}

/* --------------------------------------------------- exhaustive schedule */

/* The most work-items a decision lists: exhaustive exploration is for
 * small launches; beyond this, the others are not among the choices. */
#define MAX_CANDIDATES 256

typedef struct candidate {
  coop_slot *slot;  /* NULL: the next group to start */
  unsigned item;
} candidate;

static unsigned add(candidate *c, unsigned n, coop_slot *s, unsigned item) {
  if (n < MAX_CANDIDATES) c[n++] = (candidate){s, item};
  return n;
}

/* The work-items of a ready group that could run: any runnable one if it
 * stopped at a schedule point with its work-items interleaved, else the
 * one it stopped in. */
static unsigned add_ready(candidate *c, unsigned n, coop_slot *s) {
  const cpu_group *g = &s->group;
  if (!(s->preempted && g->interleaved)) return add(c, n, s, g->cur);
  for (unsigned k = 0; k < g->num_items; k++)
    if (g->items[k].state == ITEM_RUNNABLE) n = add(c, n, s, k);
  return n;
}

/* What could run, in a fixed order: the running work-item of cur first
 * (if any), cur's other runnable work-items, the ready groups' in queue
 * order (skip's last, as a fair scheduler would: a spinner chosen again
 * at once would spin), then the next group to start. */
static unsigned candidates(launch_state *l, coop_slot *cur, coop_slot *skip,
                           int can_start, candidate *c) {
  unsigned n = 0;
  if (cur) {
    cpu_group *g = &cur->group;
    n = add(c, n, cur, g->cur);
    for (unsigned k = 0; g->interleaved && k < g->num_items; k++)
      if (k != g->cur && g->items[k].state == ITEM_RUNNABLE)
        n = add(c, n, cur, k);
  }
  for (coop_slot *s = l->coop->ready_head; s; s = s->next)
    if (s != skip && can_progress(s)) n = add_ready(c, n, s);
  if (can_start) n = add(c, n, NULL, 0);
  if (skip && !n && can_progress(skip)) n = add_ready(c, n, skip);
  return n;
}

/* A decision among n candidates under exhaustive (explore.c), which tells
 * them apart by work-item (the next group to start by its index). */
static unsigned explore_decide(launch_state *l, const candidate *c,
                               unsigned n, int preempting) {
  uint64_t ids[WEFT_EXPLORE_IDS];
  for (unsigned i = 0; i < n && i < WEFT_EXPLORE_IDS; i++)
    ids[i] = c[i].slot ? weft__explore_id(c[i].slot->group.index, c[i].item)
                       : weft__explore_id(l->coop->next_group, UINT32_MAX);
  return weft__explore_choose(l->executor->explore, n, ids, preempting);
}

/* The next group to run under exhaustive: the one a decision at a
 * schedule point chose, or a decision now among what could run; set to
 * resume at the chosen work-item. NULL, with *start when starting the
 * next group was chosen. */
static coop_slot *pick_explore(launch_state *l, int can_start, int *start) {
  candidate t;
  *start = 0;
  if (l->coop->explore_has_target) {
    l->coop->explore_has_target = 0;
    t = (candidate){l->coop->explore_target, l->coop->explore_target_item};
  } else {
    /* After a spin, the next in line runs, as no decision: a choice at
     * every turn of every polling loop would multiply the interleavings
     * by two or more per turn, for spins that change nothing. */
    candidate c[MAX_CANDIDATES];
    coop_slot *spinner = l->coop->explore_spinner;
    unsigned n = candidates(l, NULL, spinner, can_start, c);
    l->coop->explore_spinner = NULL;
    if (!n) return NULL;
    t = c[spinner ? 0 : explore_decide(l, c, n, 0)];
  }
  /* A group that goes on after a wait or a yield does what no schedule
   * point announced. One that starts touches nothing others see (its
   * first access comes with a schedule point), but when fewer groups fit
   * than the launch has, a start waits for a group's end. */
  if (t.slot ? !t.slot->preempted : l->coop->starts > l->coop->limit)
    weft__explore_opaque(l->executor->explore);
  if (!t.slot) {
    *start = 1;
    return NULL;
  }
  unlink_ready(l, t.slot);
  if (t.slot->preempted && t.slot->group.interleaved)
    t.slot->group.cur = t.item;
  return t.slot;
}

/* A decision at a schedule point: go on, switch to another work-item of
 * the group, or preempt the group for another. */
static void explore_point(launch_state *l, coop_slot *s) {
  cpu_group *g = &s->group;
  int can_start = can_start_group(l);
  candidate c[MAX_CANDIDATES];
  unsigned n = candidates(l, s, NULL, can_start, c);
  unsigned i = explore_decide(l, c, n, 1);
  if (!i) return;
  if (c[i].slot == s) {
    weft__group_switch_item(g, g->cur, c[i].item);
    return;
  }
  l->coop->explore_has_target = 1;
  l->coop->explore_target = c[i].slot;
  l->coop->explore_target_item = c[i].item;
  s->state = SLOT_PREEMPTED;
  switch_to_scheduler(s);
}

/* -------------------------------------------------------- the scheduler */

static void cpu_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Polls, without the lock, for a ready group or the launch's end, a
 * while. */
#define IDLE_SPINS 4096

static void wait_for_ready(launch_state *l) {
  for (int i = 0; i < IDLE_SPINS; i++) {
    if (__atomic_load_n(&l->coop->num_ready, __ATOMIC_RELAXED) ||
        __atomic_load_n(&l->coop->running, __ATOMIC_RELAXED) == 0 ||
        atomic_load_explicit(&l->failed, memory_order_relaxed))
      return;
    cpu_pause();
  }
}

/* Between two looks at polling groups none of which can go on: a few
 * pauses, so that a store by a running group is seen within a fraction
 * of a microsecond (a ticket mutex hands over at that pace), and the
 * thread given up every 16th time, for a machine with more threads than
 * cores. */
static void pause_a_while(unsigned idle) {
  if (idle % 16 == 0) {
    sched_yield();
    return;
  }
  for (int i = 0; i < 32; i++) cpu_pause();
}

/* A thread with nothing to run (coop_lock held, and held again on
 * return). */
static void wait_idle(launch_state *l, unsigned *idle) {
  assert(weft__lock_held(&l->coop->coop_lock));
  if (l->coop->num_ready && !l->coop->watching) {
    /* Pollers, whose words a running group may store to any time: one
     * idle thread watches them; the others sleep until a group stops, so
     * that their looks do not hold the lock the running need. */
    l->coop->watching = 1;
    weft__unlock(&l->coop->coop_lock);
    pause_a_while(++*idle);
    weft__lock(&l->coop->coop_lock);
    l->coop->watching = 0;
  } else if (!l->coop->num_ready && ++*idle <= 2) {
    /* A group that parks is often woken a few microseconds later (a
     * barrier's release): wait for it awake before sleeping, which would
     * cost a thread's wake-up, tens of microseconds. */
    weft__unlock(&l->coop->coop_lock);
    wait_for_ready(l);
    weft__lock(&l->coop->coop_lock);
  } else {
    l->coop->sleepers++;
    weft__lock_wait(&l->coop->coop_lock, &l->coop->coop_changed);
    l->coop->sleepers--;
  }
}

/* The most groups a thread takes from the ready queue at one hold of the
 * lock. When many groups wait to run (a barrier's release readies them
 * all), each thread takes its share, runs them one after the other and
 * settles them all at its next hold: the lock, which every thread needs,
 * changes hands once for several groups instead of once for each. */
#define BATCH 8

/* Up to BATCH - 1 more groups for a thread that took one, as many as its
 * share of the ready queue, from its head while the groups there are
 * plain ones (woken, not spinning or polling: they will run until they
 * stop again). They count as running from now (coop_lock held). */
static unsigned take_batch(launch_state *l, coop_slot **batch) {
  assert(weft__lock_held(&l->coop->coop_lock));
  unsigned share = l->coop->num_ready / l->executor->num_workers, n = 0;
  while (n < share && n < BATCH - 1 && l->coop->ready_head &&
         !l->coop->ready_head->spun && !l->coop->ready_head->polls) {
    batch[n] = pop_ready(l);
    batch[n++]->state = SLOT_RUNNING;
  }
  l->coop->running += n;
  return n;
}

/* Runs the n groups of batch, each until it stops, the worker knowing how
 * many wait after the one it runs; after a failure the rest are skipped
 * (coop_lock not held). */
static void run_batch(cpu_worker *w, launch_state *l, coop_slot **batch,
                      unsigned n) {
  for (unsigned i = 0; i < n; i++) {
    w->batch_left = n - 1 - i;
    if (!i || !atomic_load_explicit(&l->failed, memory_order_relaxed))
      resume(w, batch[i]);
  }
  w->batch_left = 0;
}

/* After a change the sleeping threads may act on (coop_lock held). */
static inline void wake_sleepers(launch_state *l) {
  assert(weft__lock_held(&l->coop->coop_lock));
  if (l->coop->sleepers) pthread_cond_broadcast(&l->coop->coop_changed);
}

static void coop_run(cpu_worker *w, launch_state *l) {
  /* A random schedule is one thread's: the interleaving is the seed's. */
  if (l->random && w != &l->executor->workers[0]) return;
  weft__lock(&l->coop->coop_lock);
  unsigned idle = 0; /* looks in a row that found nothing to run */
  for (;;) {
    if (atomic_load(&l->failed) || l->coop->finished == l->coop->starts)
      break;
    /* A group that only spins waits for another: start new groups before
     * running it again (the one it waits for may not have started). */
    int can_start = can_start_group(l);
    int start = 0;
    coop_slot *s;
    if (l->executor->explore) {
      s = pick_explore(l, can_start, &start);
    } else if (l->pct) {
      s = pick_pct(l, can_start, &start);
    } else if (l->random) {
      s = pick_random(l, can_start, &start);
    } else {
      s = l->coop->ready_head && !(can_start && l->coop->ready_head->spun)
              ? next_runnable(l)
              : NULL;
      start = !s && can_start;
    }
    /* A polling group chosen saw its word change: somebody made progress,
     * which the spin timeout must not take for a deadlock. */
    if (s && s->polls) l->coop->events++;
    if (start) {
      s = start_group(w, l, l->coop->next_group);
      if (!s) break;
      l->coop->next_group++;
    }
    if (s && idle) {
      idle = 0;
      wake_sleepers(l); /* another may watch now */
    }
    if (!s) {
      if (!l->coop->running) { /* nothing can change the polled words */
        report_deadlock(l);
        break;
      }
      wait_idle(l, &idle);
      continue;
    }
    /* Only spinners left, running or not: they may spin for ever. */
    if (s->spun && l->coop->running == l->coop->running_spinners &&
        !can_start && spun_out(l)) {
      push_ready(l, s);
      report_deadlock(l);
      break;
    }
    int spinner = s->spun;
    s->state = SLOT_RUNNING;
    l->coop->running++;
    l->coop->running_spinners += spinner;
    coop_slot *batch[BATCH] = {s};
    unsigned n = 1 + (l->random || spinner ? 0 : take_batch(l, batch + 1));
    weft__unlock(&l->coop->coop_lock);
    run_batch(w, l, batch, n);
    weft__lock(&l->coop->coop_lock);
    l->coop->running -= n;
    l->coop->running_spinners -= spinner;
    for (unsigned i = 0; i < n; i++) settle(l, batch[i]);
    wake_sleepers(l);
  }
  pthread_cond_broadcast(&l->coop->coop_changed);
  weft__unlock(&l->coop->coop_lock);
}

static void coop_failed(launch_state *l) {
  weft__lock(&l->coop->coop_lock);
  /* The faulting group is abandoned where it stopped. */
  if (l->coop->running) l->coop->running--;
  pthread_cond_broadcast(&l->coop->coop_changed);
  weft__unlock(&l->coop->coop_lock);
}

_Static_assert(sizeof(coop_launch) <= WEFT_SCHED_STATE_MAX,
               "the cooperative state fits the launch's room for it");

static void coop_begin(launch_state *l) {
  weft_executor *e = l->executor;
  l->coop = memset(l->sched_state, 0, sizeof *l->coop);
  /* Adaptive: a contended lock spins a little before it sleeps, as its
   * holders keep it for a fraction of a microsecond. */
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
  weft__lock_init(&l->coop->coop_lock, &attr);
  pthread_mutexattr_destroy(&attr);
  l->coop->sleepers = 0;
  l->coop->num_waiting = 0;
  pthread_cond_init(&l->coop->coop_changed, NULL);
  l->coop->ready_head = l->coop->ready_tail = NULL;
  l->coop->waiting = l->coop->resident = NULL;
  l->coop->num_ready = 0;
  l->coop->watching = 0;
  l->coop->waiting_end = &l->coop->waiting;
  l->coop->waiting_on = NULL;
  l->coop->next_group = l->coop->finished = l->coop->returned = 0;
  l->coop->starts = l->total;
  l->coop->running = l->coop->num_resident = 0;
  l->coop->limit = e->max_resident;
  l->random = e->schedule != WEFT_SCHEDULE_FIFO;
  l->launch_number = ++e->launches;
  l->rng = e->seed * 0x2545f4914f6cdd1dull + l->launch_number;
  l->pct = e->schedule == WEFT_SCHEDULE_PCT;
  if (l->pct) weft__pct_begin(l);
  if (l->random) weft__trace_begin(l);
  l->coop->explore_has_target = 0;
  l->coop->explore_spinner = NULL;
  if (e->explore) {
    weft__explore_begin(e->explore);
    weft__explore_memory_begin(l);
  }
  l->coop->events = 1;
  l->coop->spin_events = 0;
  l->coop->running_spinners = 0;
  weft__resize_begin(l);
  /* A global barrier needs every group resident at once: the launch's
   * checks (core/launch.c) refuse more. */
  assert(!(l->desc->kernel->flags & WEFT_KERNEL_GLOBAL_BARRIER) ||
         l->total <= l->coop->limit);
}

/* A slot group has all it needs from start_group. */
static int coop_prepare(cpu_worker *w, launch_state *l) {
  (void)w, (void)l;
  return 0;
}

/* Slots kept for later launches, per worker: enough for the groups a
 * launch usually has resident; the rest are unmapped when a launch ends,
 * so that one with tens of thousands of groups leaves nothing behind. */
#define SLOTS_KEPT_PER_WORKER 8

/* Groups still resident after a failure are dropped where they stopped;
 * their slots are kept for later launches, up to SLOTS_KEPT_PER_WORKER
 * per worker. */
static void coop_end(launch_state *l) {
  weft_executor *e = l->executor;
  note_schedule(l);
  if (l->random) weft__trace_finish(l);
  while (l->coop->resident) {
    coop_slot *s = l->coop->resident;
    l->coop->resident = s->next_resident;
    s->next = e->free_slots;
    e->free_slots = s;
  }
  unsigned kept = 0;
  for (coop_slot **link = &e->free_slots; *link;) {
    if (kept++ < SLOTS_KEPT_PER_WORKER * e->num_workers) {
      link = &(*link)->next;
      continue;
    }
    coop_slot *s = *link;
    *link = s->next;
    free_slot(s, e->fibers);
  }
  weft__resize_end(l);
  pthread_cond_destroy(&l->coop->coop_changed);
  weft__lock_destroy(&l->coop->coop_lock);
  l->coop = NULL;
}

/* Every thread, whatever the groups: the scheduler counts them (idle
 * threads, sleepers, deadlock). */
static unsigned coop_threads(const launch_state *l) {
  return l->executor->num_workers;
}

const weft_scheduler weft__coop_scheduler = {
    "cooperative", coop_begin,  coop_threads, coop_prepare,
    coop_run,      coop_failed, coop_end,
};

/* ------------------------------------------------- calls from kernels */

/* At a schedule point, under PCT the best work-item runs; under a random
 * schedule, one time in four another work-item of the group runs, one in
 * four another group. */
void weft__cpu_sched_point(weft_wg_ctx *ctx, const void *p, uint32_t info) {
  coop_slot *s = slot_of(ctx);
  launch_state *l = s->group.launch;
  if (!l->random) return;
  weft__trace_step(l, &s->group, __builtin_return_address(0));
  if (l->executor->explore) {
    explore_point(l, s);
    /* Running again, in the step that makes the access. */
    uint64_t name;
    if (info && !weft__explore_memory_name(l, &s->group, p, &name))
      weft__explore_access(l->executor->explore, name, info);
    else
      weft__explore_opaque(l->executor->explore);
    return;
  }
  if (l->executor->weak) weft__weak_drift(&s->group, l);
  if (l->pct) {
    pct_point(l, s);
    return;
  }
  uint64_t r = weft__schedule_random(l) % 4;
  if (r == 1 && s->group.interleaved) weft__interleave_point(&s->group);
  if (r != 0) return;
  s->state = SLOT_PREEMPTED;
  switch_to_scheduler(s);
}

void weft__coop_offer_thread(cpu_group *g) {
  coop_slot *s = (coop_slot *)g; /* the group is the slot's first member */
  launch_state *l = g->launch;
  /* A random schedule switches at its own points, on its one thread. */
  if (l->random) return;
  if (!__atomic_load_n(&l->coop->num_ready, __ATOMIC_RELAXED) &&
      __atomic_load_n(&l->coop->next_group, __ATOMIC_RELAXED) ==
          __atomic_load_n(&l->coop->starts, __ATOMIC_RELAXED))
    return;
  /* As a yield, so that the scheduler starts the forks before it runs
   * this group again, but one that counts as progress (no spin: a
   * kernel that only passes its points for a long time is no deadlock). */
  s->advanced = 1;
  s->pc = __builtin_return_address(0);
  s->state = SLOT_YIELDING;
  switch_to_scheduler(s);
}

/* Under exhaustive exploration: the step under way waits, wakes or looks
 * at a word, which no schedule point named (explore.c keeps every step
 * that does apart from every other). */
static void explore_unnamed(coop_slot *s) {
  weft_explore *x = s->group.launch->executor->explore;
  if (x) weft__explore_opaque(x);
}

void weft__cpu_yield(weft_wg_ctx *ctx) {
  coop_slot *s = slot_of(ctx);
  /* A group whose sub-groups progress by themselves (sub_group.c) lets
   * its next work-item run; going round, it yields first, then that one
   * runs. */
  unsigned then = UINT_MAX;
  if (s->group.interleaved && !s->group.launch->random &&
      weft__sub_group_yield(&s->group, &then))
    return;
  explore_unnamed(s);
  if (ctx->yield_item > s->yield_high) {
    s->yield_high = ctx->yield_item;
    s->advanced = 1;
  }
  s->pc = __builtin_return_address(0);
  s->state = SLOT_YIELDING;
  switch_to_scheduler(s);
  if (then != UINT_MAX) weft__group_switch_item(&s->group, s->group.cur, then);
}

void weft__cpu_poll(weft_wg_ctx *ctx, volatile uint32_t *word, uint32_t seen,
                    uint32_t what) {
  coop_slot *s = slot_of(ctx);
  explore_unnamed(s);
  s->word = word;
  s->expected = seen;
  s->what = what;
  s->pc = __builtin_return_address(0);
  s->polls = 1;
  s->state = SLOT_YIELDING;
  switch_to_scheduler(s);
  s->polls = 0;
}

/* Pauses before a group parks, as musl's waits spin before the futex.
 * While another group could change the word (one runs, or one is ready or
 * can start) and the threads without a group can take every group that
 * waits to run, parking would free this thread for nothing: the word is
 * polled instead, for up to WAIT_SPIN_SECONDS (the same on a 16-core
 * machine from 50 us to 1 ms). A barrier's groups, one per thread, then
 * see the release without parking, waking and taking the scheduler's lock
 * in turn, as threads spinning in a barrier would. Once groups outnumber
 * the threads, a waiting group parks at once, for its thread to run
 * another. The counts are read without the lock: only a hint. */
#define WAIT_SPIN_SECONDS 100e-6

static int worth_spinning(launch_state *l) {
  /* Every worker comes for work, even one not in the scheduler yet (a
   * pool thread wakes in tens of microseconds). */
  unsigned running = __atomic_load_n(&l->coop->running, __ATOMIC_RELAXED);
  unsigned threads = l->executor->num_workers;
  unsigned idle = threads > running ? threads - running : 0;
  uint64_t unstarted = __atomic_load_n(&l->coop->starts, __ATOMIC_RELAXED) -
                       __atomic_load_n(&l->coop->next_group, __ATOMIC_RELAXED);
  unsigned room = l->coop->limit - __atomic_load_n(&l->coop->num_resident,
                                             __ATOMIC_RELAXED);
  uint64_t pending = __atomic_load_n(&l->coop->num_ready, __ATOMIC_RELAXED) +
                     (unstarted < room ? unstarted : room);
  return (running >= 2 || pending) && pending <= idle;
}

static int changes_soon(launch_state *l, volatile uint32_t *word,
                        uint32_t expected) {
  double deadline = 0;
  for (unsigned i = 1;; i++) {
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != expected) return 1;
    if (!worth_spinning(l)) return 0;
    /* The clock is read now and then: a pause takes from a few to a
     * hundred and forty cycles, depending on the processor. */
    if (i % 64 == 0) {
      double now = weft__launch_now();
      if (!deadline) deadline = now + WAIT_SPIN_SECONDS;
      else if (now > deadline) return 0;
      /* Past the first few microseconds, the thread is offered at each
       * look at the clock: on a machine with more threads than cores, the
       * group this one waits for may need it. */
      else if (i >= 4096) sched_yield();
    }
    cpu_pause();
  }
}

void weft__cpu_wait(weft_wg_ctx *ctx, volatile uint32_t *word,
                    uint32_t expected, uint32_t what) {
  coop_slot *s = slot_of(ctx);
  explore_unnamed(s);
  s->pc = __builtin_return_address(0);
  launch_state *l = s->group.launch;
  /* Groups of this thread's batch (take_batch) run only after this one:
   * it parks for them, without spinning. */
  if (l->random || s->group.worker->batch_left
          ? __atomic_load_n(word, __ATOMIC_ACQUIRE) != expected
          : changes_soon(l, word, expected))
    return;
  s->state = SLOT_PARKING;
  s->word = word;
  s->expected = expected;
  s->what = what;
  switch_to_scheduler(s);
}

void weft__cpu_wake(weft_wg_ctx *ctx, volatile uint32_t *word, uint32_t count) {
  explore_unnamed(slot_of(ctx));
  launch_state *l = slot_of(ctx)->group.launch;
  /* The caller's store first, then the count of waiters (see park): with
   * none, as when a barrier's groups all spun, the lock is left alone. */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (!__atomic_load_n(&l->coop->num_waiting, __ATOMIC_RELAXED)) return;
  weft__lock(&l->coop->coop_lock);
  unsigned woke = 0;
  if (l->coop->waiting_on == word &&
      count >= __atomic_load_n(&l->coop->num_waiting, __ATOMIC_RELAXED)) {
    woke = wake_all_waiting(l);
  } else {
    /* Oldest waiters first: the list is in the order they came. */
    for (coop_slot **p = &l->coop->waiting; *p && count;) {
      coop_slot *s = *p;
      if (s->word != word) {
        p = &s->next;
        continue;
      }
      *p = s->next;
      if (!*p) l->coop->waiting_end = p;
      push_ready(l, s);
      woke++;
      count--;
    }
    if (!l->coop->waiting) l->coop->waiting_on = NULL;
  }
  __atomic_fetch_sub(&l->coop->num_waiting, woke, __ATOMIC_RELAXED);
  l->coop->events++;
  if (woke) wake_sleepers(l);
  weft__unlock(&l->coop->coop_lock);
}
