/*
 * schedule_trace.c: under a schedule mode (WEFT_SCHEDULE), what the last
 * stretches of a launch's interleaving were: which work-item ran, from
 * which schedule point to which, oldest first. The seed replays a failure;
 * this says what happened around it (weft_schedule_history(), and
 * `weft run --seeds` prints it for the failing seed).
 *
 * A stretch is a run of schedule points by one work-item with no other
 * between them. The launch keeps the last TRACE_MAX in a ring (one thread
 * runs a schedule mode's launch), and at its end they are written out as
 * text, with their source lines, into the executor's history.
 */
#include <stdio.h>
#include <string.h>

#include "backend/cpu/executor_internal.h"

void weft__trace_begin(launch_state *l) {
  l->trace_total = 0;
}

void weft__trace_step(launch_state *l, const cpu_group *g, const void *pc) {
  if (l->trace_total) {
    trace_stretch *last = &l->trace[(l->trace_total - 1) % TRACE_MAX];
    if (last->group == g->index && last->item == g->cur) {
      last->last_pc = pc;
      last->steps++;
      return;
    }
  }
  trace_stretch *t = &l->trace[l->trace_total++ % TRACE_MAX];
  *t = (trace_stretch){g->index, g->cur, pc, pc, 1};
}

/* "program.cl:5:9" of the schedule point a return address comes back
 * to (the call lies at it less one), or "?". */
static void place(const launch_state *l, const void *pc, char *out,
                  size_t size) {
  char text[128];
  weft__launch_code_place(l->desc, (const char *)pc - 1, text, sizeof text);
  /* code_place writes " at program.cl:5:9", or nothing. */
  snprintf(out, size, "%s", *text ? text + 4 : "?");
}

void weft__trace_finish(launch_state *l) {
  weft_executor *e = l->executor;
  char text[WEFT_HISTORY_MAX], who[256], from[128], to[128];
  size_t used = 0;
  uint64_t first = l->trace_total > TRACE_MAX ? l->trace_total - TRACE_MAX : 0;
  text[0] = 0;
  if (first)
    used += (size_t)snprintf(text, sizeof text, "(%llu earlier stretches)\n",
                             (unsigned long long)first);
  for (uint64_t i = first; i < l->trace_total && used < sizeof text; i++) {
    const trace_stretch *t = &l->trace[i % TRACE_MAX];
    weft__launch_describe_linear(l, t->group, t->item, who, sizeof who);
    place(l, t->first_pc, from, sizeof from);
    place(l, t->last_pc, to, sizeof to);
    if (t->steps == 1)
      used += (size_t)snprintf(text + used, sizeof text - used,
                               "%s: %s, 1 step\n", who, from);
    else
      used += (size_t)snprintf(text + used, sizeof text - used,
                               "%s: %s to %s, %u steps\n", who, from, to,
                               t->steps);
  }
  pthread_mutex_lock(&e->history_lock);
  memcpy(e->history, text, sizeof text);
  pthread_mutex_unlock(&e->history_lock);
}

void weft__executor_schedule_history(weft_executor *e, char *out,
                                     size_t size) {
  pthread_mutex_lock(&e->history_lock);
  snprintf(out, size, "%s", e->history);
  pthread_mutex_unlock(&e->history_lock);
}
