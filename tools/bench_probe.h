/*
 * bench_probe.h: `weft bench probe`: Stuart & Owens' memory-system probes
 * run as kernels on Weft, the machine classified in their abstraction,
 * and the default implementation of each primitive chosen for it.
 */
#ifndef WEFT_TOOL_BENCH_PROBE_H
#define WEFT_TOOL_BENCH_PROBE_H

#include "bench_sync.h"

/* What a probe does: work-item 0 of each group accesses a word reps
 * times; every group the same word (contentious) or one of its own. */
typedef enum probe_access {
  PROBE_VOLATILE_READ,
  PROBE_VOLATILE_WRITE,
  PROBE_ATOMIC_READ,  /* a failing atomic_cmpxchg: a read-modify-write */
  PROBE_ATOMIC_WRITE, /* atomic_xchg */
  PROBE_ACCESSES
} probe_access;

/* The measurements: accesses per second, all groups together, for each
 * access, contentious or not, and each group count. */
#define PROBE_MAX_GROUPS 24
typedef struct probe_results {
  unsigned threads;
  unsigned groups[PROBE_MAX_GROUPS];
  int num_groups;
  int at_threads; /* the index of groups == threads */
  double rate[PROBE_ACCESSES][2][PROBE_MAX_GROUPS]; /* [.][contentious] */
} probe_results;

/* The machine in the paper's terms: how much an atomic costs beside a
 * volatile access, how much contention on one word costs, and whether
 * polling a word that others poll stays in the cache. Each is a ratio of
 * throughputs with as many groups as threads, and a word for it. */
typedef struct probe_class {
  double atomic_cost;       /* volatile / atomic, contentious writes */
  double atomic_cost_alone; /* the same, noncontentious */
  double contention;        /* noncontentious / contentious atomics */
  double polling;           /* contentious / noncontentious volatile reads */
  /* T groups' noncontentious volatile reads over one group's: about T
   * when the groups ran at once; near 1 when they took turns (a busy
   * machine), which leaves contention untested. */
  double parallel;
  const char *atomics, *contended, *polls, *nearest;
} probe_class;

void probe_classify(const probe_results *r, probe_class *c);

/* Prints the classification and what it means for the algorithms. */
void probe_print_class(const probe_class *c, unsigned threads);

/* The implementation to use for each primitive: the one with the best
 * geometric mean of operations per second over 1 group, as many groups
 * as threads, and 16 times more (semaphores at counts 1 and 10; barriers
 * at most the most groups that can be resident). A primitive with one
 * implementation gets it unmeasured. */
void probe_choose(const tool_timing *timing, unsigned ops, unsigned threads,
                  unsigned most, const char *choice[SYNC_PRIMITIVES]);

#endif /* WEFT_TOOL_BENCH_PROBE_H */
