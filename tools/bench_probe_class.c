/* bench_probe_class.c: the machine in Stuart & Owens' abstraction, from
 * the probes; and the default implementation of each primitive, from a
 * short contest between those this Weft has. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_probe.h"

/* The paper's two machines: contended atomics ~3x slower than volatile
 * accesses on Fermi (atomics served by its L2), ~90x on Tesla (no cache
 * for them). Above the geometric middle, a machine is nearer Tesla. */
#define NEAREST_SPLIT 16.4

void probe_classify(const probe_results *r, probe_class *c) {
  int i = r->at_threads;
  const double(*rate)[2][PROBE_MAX_GROUPS] = r->rate;
  c->atomic_cost =
      rate[PROBE_VOLATILE_WRITE][1][i] / rate[PROBE_ATOMIC_WRITE][1][i];
  c->atomic_cost_alone =
      rate[PROBE_VOLATILE_WRITE][0][i] / rate[PROBE_ATOMIC_WRITE][0][i];
  c->contention =
      rate[PROBE_ATOMIC_WRITE][0][i] / rate[PROBE_ATOMIC_WRITE][1][i];
  c->polling =
      rate[PROBE_VOLATILE_READ][1][i] / rate[PROBE_VOLATILE_READ][0][i];
  c->parallel =
      rate[PROBE_VOLATILE_READ][0][i] / rate[PROBE_VOLATILE_READ][0][0];
  c->atomics = c->atomic_cost_alone < 4    ? "cheap"
               : c->atomic_cost_alone < 30 ? "costly"
                                           : "very-costly";
  /* Perfectly serialized, T groups on one word run T times slower. */
  double serial = r->threads / 2.0 > 1.5 ? r->threads / 2.0 : 1.5;
  /* Contention and polling need groups that run at once. */
  const char *untested = r->threads < 2 ? "untested(one-thread)"
                         : c->parallel < 0.6 * r->threads ? "untested(busy)"
                                                          : NULL;
  c->contended = untested                  ? untested
                 : c->contention >= serial ? "serializes"
                                           : "scales";
  c->polls = untested ? untested : c->polling >= 0.5 ? "cached" : "uncached";
  c->nearest = c->atomic_cost >= NEAREST_SPLIT ? "Tesla" : "Fermi";
}

/* What each property means for the algorithms, after the paper. */
static const char *atomics_advice(const probe_class *c) {
  return strcmp(c->atomics, "cheap")
             ? "few atomics per operation (ticket mutex, sleeping semaphore, "
               "XF barrier)"
             : "atomics cost little: simple spin algorithms do";
}

static const char *polling_advice(const probe_class *c) {
  if (!strcmp(c->polls, "cached"))
    return "polling a read costs the holder little: wait on reads";
  if (!strcmp(c->polls, "uncached"))
    return "polling loads the memory system: back off while waiting";
  return "polling untested";
}

void probe_print_class(const probe_class *c, unsigned threads) {
  printf("\nThe machine in Stuart & Owens' abstraction (at %u groups, as "
         "many as threads):\n",
         threads);
  printf("  atomics     %-11s an atomic write costs %.3g volatile writes "
         "(%.3g on a contended word)\n",
         c->atomics, c->atomic_cost_alone, c->atomic_cost);
  printf("  contention  %-11s atomics on one shared word run %.3gx slower "
         "than on words of their own\n",
         c->contended, c->contention);
  if (!strcmp(c->polls, "untested(busy)"))
    printf("              (the %u groups ran %.2gx as fast as one: they "
           "took turns, the machine being\n              busy, so they "
           "met no contention; run it again when it is idle)\n",
           threads, c->parallel);
  printf("  polling     %-11s reading a word all groups read runs at %.3gx "
         "the rate of reading one's own\n",
         c->polls, c->polling);
  printf("  nearest     %-11s of the paper's machines (contended atomics "
         "~3x volatile on Fermi, ~90x on Tesla)\n",
         c->nearest);
  printf("  so          %s;\n              %s;\n              and on a "
         "CPU, groups beyond the %u threads take turns: a waiting group\n"
         "              must yield or park rather than spin\n",
         atomics_advice(c), polling_advice(c), threads);
}

/* ------------------------------------------------------------ contest */

/* The contest's groups: 1, threads and 16 times more; barriers no more
 * than can be resident (beyond, on a GPU or under WEFT_RESIDENT_GROUPS,
 * they would wait for groups that never start). */
static unsigned contest_groups(sync_primitive p, int point, unsigned threads,
                               unsigned most) {
  unsigned g = point == 0 ? 1 : point == 1 ? threads : 16 * threads;
  int barrier = p == SYNC_BARRIER || p == SYNC_GLOBAL_BARRIER;
  return barrier && g > most ? most : g;
}

/* The geometric mean of r's rates over the contest's points. */
static double score(sync_runner *r, const tool_timing *timing, unsigned ops,
                    unsigned threads, unsigned most) {
  const int counts[] = {1, 10};
  int n_counts = r->impl->primitive == SYNC_SEMAPHORE ? 2 : 1, n = 0;
  double log_sum = 0;
  for (int c = 0; c < n_counts; c++)
    for (int point = 0; point < 3; point++) {
      unsigned g = contest_groups(r->impl->primitive, point, threads, most);
      unsigned n_ops = ops;
      double s = sync_weft_seconds(r, counts[c], g, &n_ops, timing);
      double rate = sync_total_ops(r->impl->primitive, g, n_ops) / s;
      /* Too fast to time counts as fast, not as a failure. */
      log_sum += log(s > 0 ? rate : 1e12);
      n++;
    }
  return exp(log_sum / n);
}

/* Whether an implementation may be a default: not the Xiao-Feng barrier,
 * which needs 8 bytes per group more than the 16 of a weft_barrier that a
 * program sized for the default; it is chosen per object only. */
static int may_be_default(const sync_runner *r) {
  return strcmp(r->impl->name, "xiao_feng") != 0;
}

/* The best of p's implementations, or "native" if none builds. */
static const char *choose_one(sync_primitive p, const tool_timing *timing,
                              unsigned ops, unsigned threads, unsigned most) {
  sync_runner runners[16];
  int n = 0;
  for (unsigned i = 0; n < 16 && sync_runner_next(&runners[n], p, &i, NULL, 1);)
    if (may_be_default(&runners[n])) n++;
    else sync_runner_close(&runners[n]);
  const char *best = "native";
  double best_score = 0;
  for (int i = 0; i < n; i++) {
    double s = n > 1 ? score(&runners[i], timing, ops, threads, most) : 0;
    if (n > 1)
      printf("  %-15s %-12s %10.4g operations/s (geometric mean)\n",
             sync_primitive_name(p), runners[i].impl->name, s);
    if (i == 0 || s > best_score) {
      best = runners[i].impl->name;
      best_score = s;
    }
    sync_runner_close(&runners[i]);
  }
  if (n < 2)
    printf("  %-15s %-12s the only implementation\n", sync_primitive_name(p),
           best);
  return best;
}

void probe_choose(const tool_timing *timing, unsigned ops, unsigned threads,
                  unsigned most, const char *choice[SYNC_PRIMITIVES]) {
  printf("\nContest (1, %u and %u groups, %u operations each; semaphores "
         "at counts 1 and 10",
         threads, 16 * threads, ops);
  if (most < 16 * threads) printf("; barriers at most %u groups", most);
  printf("):\n");
  for (int p = 0; p < SYNC_PRIMITIVES; p++) {
    choice[p] = choose_one((sync_primitive)p, timing, ops, threads, most);
    fflush(stdout);
  }
}
