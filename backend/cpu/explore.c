/*
 * explore.c: WEFT_SCHEDULE=exhaustive[:BUDGET[:PREEMPTIONS[:full]]], every
 * interleaving of a launch with at most PREEMPTIONS preemptions, one per
 * launch, depth first (iterative context bounding: Musuvathi and Qadeer,
 * "Iterative Context Bounding for Systematic Testing of Multithreaded
 * Programs", PLDI 2007), less those that only reorder independent steps
 * (sleep sets: Godefroid, "Partial-Order Methods for the Verification of
 * Concurrent Systems", 1996); and WEFT_SCHEDULE=replay:CHOICES, one of
 * them.
 *
 * A launch under it is a series of decisions (coop.c, interleave.c): at
 * each, the scheduler lists the work-items that could run, the running one
 * first when it still can (so that choosing another is a preemption), and
 * asks weft__explore_choose which. A step is what runs from one call to
 * the next: the chosen work-item's access at its schedule point
 * (weft__explore_access) and its private work up to the next one, or
 * something this file cannot see (a wait, a wake, a group's start:
 * weft__explore_opaque). Two steps are independent when neither is opaque
 * and they touch no common byte that one of them writes; then running
 * them in either order ends in the same state. But a work-item's return
 * in an interleaved group is followed by a decision among that group's
 * work-items only (interleave.c): such a step (weft__explore_holds_group)
 * kept the other groups from running next, and depends on their steps,
 * else a launch could block on a sleeper whose reordering no decision
 * offered.
 *
 * After a launch, weft__explore_next turns the deepest decision that has
 * an alternative left, within the preemption bound, to that alternative,
 * and keeps the decisions before it: the next launch replays them, then
 * takes the first allowed choice at every new decision. When no decision
 * has an alternative left, every interleaving within the bound has run.
 *
 * Sleep sets: once the subtree under choosing u at a decision is done, u
 * sleeps in its later siblings' subtrees (its step there would be the one
 * already tried, as long as only steps independent of it ran) and wakes
 * at the first step that depends on it. A sleeping work-item is not
 * chosen; a launch where every one that could run sleeps repeats, up to
 * the order of independent steps, one that ran already: it goes on with
 * the first, and none of its later decisions is explored further (a
 * "blocked" run). The steps of the tried siblings are kept with their
 * decision (done), since a run replays the decisions, not the steps; the
 * sleep set of every later decision is computed again from them. Exact
 * for exhaustive exploration; with a preemption bound, an interleaving
 * whose only equivalents need more preemptions than it may be left out
 * (Coons, Musuvathi and McKinley, "Bounded Partial-Order Reduction",
 * OOPSLA 2013). Off under WEFT_MEMORY=weak (a store buffer drains at
 * points no step names) and with ":full".
 *
 * The state is the executor's; one thread runs such a launch.
 */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/executor_internal.h"

/* What a step touched: up to two byte ranges, or anything (opaque). A
 * step has one schedule point's access at most; the second is slack. */
#define STEP_RANGES 2
typedef struct footprint {
  int opaque;
  int holds;  /* it ended where only its group's work-items may go on */
  unsigned n;
  uint64_t lo[STEP_RANGES], hi[STEP_RANGES]; /* explore_memory.c's names */
  unsigned char write[STEP_RANGES];
} footprint;

/* A work-item asleep (or a tried sibling): its id and the step it took. */
typedef struct sleeper {
  uint64_t id;
  footprint step;
} sleeper;

typedef struct sleep_set {
  sleeper *v;
  unsigned n, cap;
} sleep_set;

/* A step's id when the chosen work-item's was not given: never asleep,
 * and opaque when it ends. */
#define UNKNOWN_ID UINT64_MAX

struct weft_explore {
  unsigned long long budget, runs, blocked_runs;
  unsigned bound;
  int reduce;               /* sleep sets on */
  int replay_only;          /* replay:CHOICES: one interleaving, no next */
  uint32_t *prefix;         /* the decisions to replay, then the first */
  unsigned prefix_len, prefix_cap;
  /* The last launch's decisions: what was chosen among how many, whether
   * choosing other than the first was a preemption, which of the first 64
   * slept, and the chosen's id and step. */
  uint32_t *chosen, *count;
  unsigned char *preempts;
  uint64_t *asleep, *ids;
  footprint *steps;
  unsigned len, cap;
  /* Per decision of the prefix: the siblings tried before its choice.
   * Kept from launch to launch, cleared past a decision turned. */
  sleep_set *done;
  unsigned done_cap;
  int diverged;             /* a replayed choice did not exist */
  /* This launch: the preemptions so far, the decision from which on it
   * is a repeat (UINT_MAX while it is not: see first_choice), the sleep
   * set, and the step under way (its decision, -1 for none, or
   * in_step 0 before the first). */
  unsigned used;
  unsigned blocked_at;
  sleep_set sleep;
  int in_step;
  long step_decision;
  uint64_t step_id;
  footprint step;
};

int weft__explore_create(unsigned long long budget, unsigned bound,
                         int reduce, const char *replay,
                         weft_explore **out) {
  weft_explore *x = calloc(1, sizeof *x);
  if (!x) return WEFT_ENOMEM;
  x->budget = budget;
  x->bound = bound;
  x->reduce = reduce && !replay;
  /* "POS=CHOICE,..." (the decisions not the first), as weft__explore_replay
   * writes them; config.c checked the form. */
  for (const char *p = replay; p && *p;) {
    unsigned long pos = strtoul(p, (char **)&p, 10);
    unsigned long choice = strtoul(p + 1, (char **)&p, 10);
    if (*p == ',') p++;
    if (pos >= x->prefix_cap) {
      unsigned cap = (unsigned)pos + 64;
      uint32_t *grown = realloc(x->prefix, cap * sizeof *grown);
      if (!grown) {
        weft__explore_free(x);
        return WEFT_ENOMEM;
      }
      memset(grown + x->prefix_cap, 0, (cap - x->prefix_cap) * sizeof *grown);
      x->prefix = grown;
      x->prefix_cap = cap;
    }
    x->prefix[pos] = (uint32_t)choice;
    if (pos + 1 > x->prefix_len) x->prefix_len = (unsigned)pos + 1;
  }
  if (replay) x->replay_only = 1;
  *out = x;
  return 0;
}

void weft__explore_free(weft_explore *x) {
  if (!x) return;
  for (unsigned i = 0; i < x->done_cap; i++) free(x->done[i].v);
  free(x->done);
  free(x->sleep.v);
  free(x->prefix);
  free(x->chosen);
  free(x->count);
  free(x->preempts);
  free(x->asleep);
  free(x->ids);
  free(x->steps);
  free(x);
}

void weft__explore_begin(weft_explore *x) {
  x->len = 0;
  x->diverged = 0;
  x->used = 0;
  x->blocked_at = UINT_MAX;
  x->sleep.n = 0;
  x->in_step = 0;
}

/* ------------------------------------------------------------- steps */

static void step_add(footprint *f, uint64_t lo, uint64_t hi, int write) {
  if (f->opaque) return;
  if (f->n == STEP_RANGES) {
    f->opaque = 1;
    return;
  }
  f->lo[f->n] = lo;
  f->hi[f->n] = hi;
  f->write[f->n] = (unsigned char)write;
  f->n++;
}

/* Whether step a of work-item ia and b of ib may run in either order
 * with the same result, and either could have run first. */
static int independent(const footprint *a, uint64_t ia, const footprint *b,
                       uint64_t ib) {
  if (a->opaque || b->opaque) return 0;
  if ((a->holds || b->holds) && ia >> 32 != ib >> 32) return 0;
  for (unsigned i = 0; i < a->n; i++)
    for (unsigned j = 0; j < b->n; j++)
      if ((a->write[i] || b->write[j]) && a->lo[i] < b->hi[j] &&
          b->lo[j] < a->hi[i])
        return 0;
  return 1;
}

/* Adds a sleeper; without memory it is left out, which only explores
 * more. */
static void sleep_add(sleep_set *s, uint64_t id, const footprint *step) {
  if (id == UNKNOWN_ID) return;
  if (s->n == s->cap) {
    unsigned cap = s->cap ? 2 * s->cap : 8;
    sleeper *grown = realloc(s->v, cap * sizeof *grown);
    if (!grown) return;
    s->v = grown;
    s->cap = cap;
  }
  s->v[s->n++] = (sleeper){id, *step};
}

static int sleep_has(const sleep_set *s, uint64_t id) {
  for (unsigned i = 0; i < s->n; i++)
    if (s->v[i].id == id) return 1;
  return 0;
}

/* The step under way has ended: kept with its decision, and the sleepers
 * it depends on wake (the one that ran among them). */
static void finish_step(weft_explore *x) {
  if (!x->in_step) return;
  x->in_step = 0;
  if (x->step_id == UNKNOWN_ID) x->step.opaque = 1;
  if (x->step_decision >= 0) x->steps[x->step_decision] = x->step;
  unsigned kept = 0;
  for (unsigned i = 0; i < x->sleep.n; i++)
    if (x->sleep.v[i].id != x->step_id &&
        independent(&x->sleep.v[i].step, x->sleep.v[i].id, &x->step,
                    x->step_id))
      x->sleep.v[kept++] = x->sleep.v[i];
  x->sleep.n = kept;
}

static void begin_step(weft_explore *x, long decision, uint64_t id) {
  x->in_step = 1;
  x->step_decision = decision;
  x->step_id = id;
  memset(&x->step, 0, sizeof x->step);
}

void weft__explore_access(weft_explore *x, uint64_t name, uint32_t info) {
  if (!x->in_step) return; /* before the first decision nothing sleeps */
  uint32_t size = info & WEFT_SCHED_SIZE;
  if (!size || !(info & (WEFT_SCHED_READ | WEFT_SCHED_WRITE)))
    x->step.opaque = 1;
  else
    step_add(&x->step, name, name + size, (info & WEFT_SCHED_WRITE) != 0);
}

void weft__explore_opaque(weft_explore *x) { x->step.opaque = 1; }

void weft__explore_holds_group(weft_explore *x) { x->step.holds = 1; }

/* --------------------------------------------------------- decisions */

/* Room for decision x->len; 0, or -1 (then nothing more is recorded, and
 * the exploration ends after this launch). */
static int grow(void *array, unsigned cap, size_t size) {
  void *grown = realloc(*(void **)array, cap * size);
  if (!grown) return -1;
  *(void **)array = grown;
  return 0;
}

static int room(weft_explore *x) {
  if (x->len < x->cap) return 0;
  unsigned cap = x->cap ? 2 * x->cap : 256;
  if (grow(&x->chosen, cap, sizeof *x->chosen) ||
      grow(&x->count, cap, sizeof *x->count) ||
      grow(&x->preempts, cap, 1) ||
      grow(&x->asleep, cap, sizeof *x->asleep) ||
      grow(&x->ids, cap, sizeof *x->ids) ||
      grow(&x->steps, cap, sizeof *x->steps))
    return -1;
  x->cap = cap;
  return 0;
}

/* A new decision's choice: the first candidate awake that the bound
 * allows; none (all asleep, or only preemptions past the bound left):
 * the launch has blocked, and goes on with the first. */
static unsigned first_choice(weft_explore *x, unsigned count,
                             uint64_t asleep, int preempting) {
  if (x->blocked_at != UINT_MAX) return 0;
  for (unsigned c = 0; c < count; c++) {
    if (c < WEFT_EXPLORE_IDS && (asleep >> c & 1)) continue;
    if (c && preempting && x->used >= x->bound) break;
    return c;
  }
  x->blocked_at = x->len;
  return 0;
}

unsigned weft__explore_choose(weft_explore *x, unsigned count,
                              const uint64_t *ids, int preempting) {
  finish_step(x);
  if (count <= 1) { /* no choice: not a decision, but a step */
    /* The only one that can run sleeps: this launch repeats another. */
    if (count && x->reduce && x->blocked_at == UINT_MAX &&
        sleep_has(&x->sleep, ids[0]))
      x->blocked_at = x->len;
    begin_step(x, -1, count ? ids[0] : UNKNOWN_ID);
    return 0;
  }
  unsigned known = count < WEFT_EXPLORE_IDS ? count : WEFT_EXPLORE_IDS;
  uint64_t asleep = 0;
  for (unsigned i = 0; x->reduce && i < known; i++)
    if (sleep_has(&x->sleep, ids[i])) asleep |= 1ull << i;
  unsigned choice;
  if (x->len < x->prefix_len) {
    choice = x->prefix[x->len];
    if (choice >= count) {
      x->diverged = 1;
      choice = 0;
    }
  } else {
    choice = first_choice(x, count, asleep, preempting);
  }
  if (room(x)) {
    x->diverged = 1;
    begin_step(x, -1, UNKNOWN_ID);
    return choice;
  }
  unsigned j = x->len++;
  x->chosen[j] = choice;
  x->count[j] = count;
  x->preempts[j] = (unsigned char)(preempting != 0);
  x->asleep[j] = asleep;
  x->ids[j] = choice < known ? ids[choice] : UNKNOWN_ID;
  x->used += preempting && choice;
  /* The siblings tried before it sleep from here until a step they
   * depend on. */
  for (unsigned i = 0; x->reduce && j < x->done_cap && i < x->done[j].n; i++)
    sleep_add(&x->sleep, x->done[j].v[i].id, &x->done[j].v[i].step);
  begin_step(x, j, x->ids[j]);
  return choice;
}

/* The next choice at decision i of the last launch, used preemptions
 * made before it: an awake candidate after the chosen, within the bound;
 * 0 for none. */
static unsigned next_choice(const weft_explore *x, unsigned i,
                            unsigned used) {
  if (i >= x->blocked_at || (x->preempts[i] && used >= x->bound)) return 0;
  for (unsigned c = x->chosen[i] + 1; c < x->count[i]; c++)
    if (c >= WEFT_EXPLORE_IDS || !(x->asleep[i] >> c & 1)) return c;
  return 0;
}

/* Decision i turns: what it chose is a sibling tried; the decisions after
 * it are forgotten. 0, or WEFT_ENOMEM. */
static int turn(weft_explore *x, unsigned i, unsigned choice) {
  if (i + 1 > x->prefix_cap) {
    if (grow(&x->prefix, i + 1, sizeof *x->prefix)) return WEFT_ENOMEM;
    x->prefix_cap = i + 1;
  }
  if (x->reduce && i >= x->done_cap) {
    unsigned cap = i + 64;
    if (grow(&x->done, cap, sizeof *x->done)) return WEFT_ENOMEM;
    memset(x->done + x->done_cap, 0, (cap - x->done_cap) * sizeof *x->done);
    x->done_cap = cap;
  }
  for (unsigned k = i + 1; k < x->done_cap; k++) x->done[k].n = 0;
  if (x->reduce) sleep_add(&x->done[i], x->ids[i], &x->steps[i]);
  memcpy(x->prefix, x->chosen, i * sizeof *x->prefix);
  x->prefix[i] = choice;
  x->prefix_len = i + 1;
  return 0;
}

int weft__explore_next(weft_explore *x) {
  finish_step(x);
  x->runs++;
  x->blocked_runs += x->blocked_at != UINT_MAX;
  if (x->diverged) return WEFT_ELAUNCH;
  if (x->replay_only) return 0;
  /* Preemptions made before each decision. */
  unsigned used = 0;
  for (unsigned i = 0; i < x->len; i++)
    used += x->preempts[i] && x->chosen[i];
  for (unsigned i = x->len; i-- > 0;) {
    used -= x->preempts[i] && x->chosen[i];
    unsigned choice = next_choice(x, i, used);
    if (!choice) continue;
    if (x->runs >= x->budget) return WEFT_ERANGE;
    return turn(x, i, choice) ? WEFT_ENOMEM : 1;
  }
  return 0;
}

int weft__executor_schedule_next(weft_executor *e) {
  return e->explore ? weft__explore_next(e->explore) : WEFT_EINVAL;
}

int weft__executor_schedule_replay(weft_executor *e, char *out, size_t size,
                                   unsigned long long *explored) {
  if (!e->explore) return WEFT_EINVAL;
  weft__explore_replay(e->explore, out, size, explored);
  return 0;
}

int weft__executor_schedule_counts(weft_executor *e, unsigned long long *runs,
                                   unsigned long long *repeats) {
  if (!e->explore) return WEFT_EINVAL;
  if (runs) *runs = e->explore->runs;
  if (repeats) *repeats = e->explore->blocked_runs;
  return 0;
}

void weft__explore_replay(const weft_explore *x, char *out, size_t size,
                          unsigned long long *runs) {
  size_t used = (size_t)snprintf(out, size, "replay:");
  const char *sep = "";
  for (unsigned i = 0; i < x->len && used < size; i++) {
    if (!x->chosen[i]) continue;
    used += (size_t)snprintf(out + used, size - used, "%s%u=%u", sep, i,
                             x->chosen[i]);
    sep = ",";
  }
  if (runs) *runs = x->runs;
}
