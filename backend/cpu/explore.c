/*
 * explore.c: WEFT_SCHEDULE=exhaustive[:BUDGET[:PREEMPTIONS]], every
 * interleaving of a launch with at most PREEMPTIONS preemptions, one per
 * launch, depth first (iterative context bounding: Musuvathi and Qadeer,
 * "Iterative Context Bounding for Systematic Testing of Multithreaded
 * Programs", PLDI 2007); and WEFT_SCHEDULE=replay:CHOICES, one of them.
 *
 * A launch under it is a series of decisions (coop.c, interleave.c): at
 * each, the scheduler lists the work-items that could run, the running one
 * first when it still can (so that choosing another is a preemption), and
 * asks weft__explore_choose which. The first launch takes the first every
 * time: no preemption, each work-item running until it waits or returns.
 * After a launch, weft__explore_next turns the deepest decision that has
 * an alternative left, within the preemption bound, to that alternative,
 * and keeps the decisions before it: the next launch replays them, then
 * takes the first again. When no decision has an alternative left, every
 * interleaving within the bound has run. A decision is made only at a
 * schedule point (a shared access, an atomic, a barrier, a wait) or where
 * a work-item stops, so interleavings that differ only between two
 * schedule points are one. There is no partial-order reduction: two
 * interleavings that differ in the order of independent accesses both run.
 *
 * The state is the executor's; one thread runs such a launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/executor_internal.h"

struct weft_explore {
  unsigned long long budget, runs;
  unsigned bound;
  int replay_only;          /* replay:CHOICES: one interleaving, no next */
  uint32_t *prefix;         /* the decisions to replay, then the first */
  unsigned prefix_len, prefix_cap;
  /* The last launch's decisions: what was chosen among how many, and
   * whether choosing other than the first was a preemption. */
  uint32_t *chosen, *count;
  unsigned char *preempts;
  unsigned len, cap;
  int diverged;             /* a replayed choice did not exist */
};

int weft__explore_create(unsigned long long budget, unsigned bound,
                         const char *replay, weft_explore **out) {
  weft_explore *x = calloc(1, sizeof *x);
  if (!x) return WEFT_ENOMEM;
  x->budget = budget;
  x->bound = bound;
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
    x->replay_only = 1;
  }
  if (replay) x->replay_only = 1;
  *out = x;
  return 0;
}

void weft__explore_free(weft_explore *x) {
  if (!x) return;
  free(x->prefix);
  free(x->chosen);
  free(x->count);
  free(x->preempts);
  free(x);
}

void weft__explore_begin(weft_explore *x) {
  x->len = 0;
  x->diverged = 0;
}

/* Room for decision x->len; 0, or -1 (then nothing more is recorded, and
 * the exploration ends after this launch). */
static int room(weft_explore *x) {
  if (x->len < x->cap) return 0;
  unsigned cap = x->cap ? 2 * x->cap : 256;
  uint32_t *chosen = realloc(x->chosen, cap * sizeof *chosen);
  if (chosen) x->chosen = chosen;
  uint32_t *count = realloc(x->count, cap * sizeof *count);
  if (count) x->count = count;
  unsigned char *preempts = realloc(x->preempts, cap);
  if (preempts) x->preempts = preempts;
  if (!chosen || !count || !preempts) return -1;
  x->cap = cap;
  return 0;
}

unsigned weft__explore_choose(weft_explore *x, unsigned count,
                              int preempting) {
  if (count <= 1) return 0; /* no choice: not a decision */
  unsigned choice = x->len < x->prefix_len ? x->prefix[x->len] : 0;
  if (choice >= count) {
    x->diverged = 1;
    choice = 0;
  }
  if (room(x)) {
    x->diverged = 1;
    return choice;
  }
  x->chosen[x->len] = choice;
  x->count[x->len] = count;
  x->preempts[x->len] = (unsigned char)(preempting != 0);
  x->len++;
  return choice;
}

int weft__explore_next(weft_explore *x) {
  x->runs++;
  if (x->diverged) return WEFT_ELAUNCH;
  if (x->replay_only) return 0;
  /* Preemptions made before each decision. */
  unsigned used = 0;
  for (unsigned i = 0; i < x->len; i++)
    used += x->preempts[i] && x->chosen[i];
  for (unsigned i = x->len; i-- > 0;) {
    used -= x->preempts[i] && x->chosen[i];
    if (x->chosen[i] + 1 >= x->count[i] ||
        used + x->preempts[i] > x->bound)
      continue;
    if (x->runs >= x->budget) return WEFT_ERANGE;
    if (i + 1 > x->prefix_cap) {
      uint32_t *grown = realloc(x->prefix, (i + 1) * sizeof *grown);
      if (!grown) return WEFT_ENOMEM;
      x->prefix = grown;
      x->prefix_cap = i + 1;
    }
    memcpy(x->prefix, x->chosen, i * sizeof *x->prefix);
    x->prefix[i] = x->chosen[i] + 1;
    x->prefix_len = i + 1;
    return 1;
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
