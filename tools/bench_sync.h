/*
 * bench_sync.h: the measurements behind `weft bench sync` and the contest
 * of `weft bench probe`: the primitives of cl_weft_sync
 * (include/weft/kernel.h), each implementation of them, and the same work
 * done with pthread_mutex, sem_t and pthread_barrier from C threads.
 *
 * An operation is a lock+unlock pair (mutex), a wait+post pair
 * (semaphore) or a barrier phase that every group passes (barriers). In a
 * kernel, work-item 0 of each group acts (the paper's master thread); the
 * others return, or meet it at the barriers.
 */
#ifndef WEFT_TOOL_BENCH_SYNC_H
#define WEFT_TOOL_BENCH_SYNC_H

#include "bench_util.h"
#include "weft/weft.h"

typedef enum sync_primitive {
  SYNC_MUTEX,
  SYNC_SEMAPHORE,
  SYNC_BARRIER,        /* a weft_barrier object over all groups */
  SYNC_GLOBAL_BARRIER, /* weft_global_barrier() */
  SYNC_PRIMITIVES
} sync_primitive;

/* How a kernel selects one implementation of a primitive. Add a line to
 * the table (bench_sync_kernels.c) when the builtins gain one. */
typedef struct sync_impl {
  sync_primitive primitive;
  /* As in the defaults file: the lowercase suffix of its constant in
   * include/weft/kernel.h (WEFT_MUTEX_TICKET: "ticket"). */
  const char *name;
  /* OpenCL C that initializes the object o (count: a semaphore's initial
   * value; groups: a barrier's), or NULL for the global barrier. */
  const char *init;
  const char *options;  /* build options that select it */
  const char *requires; /* a macro the build must know, or NULL */
} sync_impl;

extern const sync_impl sync_impls[];
extern const unsigned sync_num_impls;

/* "mutex", "semaphore", "barrier", "global_barrier". */
const char *sync_primitive_name(sync_primitive p);
/* The primitive of that name, or SYNC_PRIMITIVES. */
sync_primitive sync_primitive_named(const char *name);

/* The OpenCL C of p's kernels: "init" (but for the global barrier) and
 * "run"; it expects INIT(o, count, groups) and STRIDE defined before it. */
const char *sync_kernel_source(sync_primitive p);

/* Ints between two groups' phase words in the barrier kernels: 128
 * bytes, a line and the one the prefetcher pairs with it. */
#define SYNC_STRIDE 32

/* One implementation, built. */
typedef struct sync_runner {
  const sync_impl *impl;
  weft_program *program;
  weft_kernel *init, *run; /* init is NULL for the global barrier */
  size_t local;            /* work-items per group */
} sync_runner;

/* Builds the next implementation of p in the table from *index on (only
 * the one named only, unless it is NULL) for groups of local work-items,
 * and moves *index past it: 1 when one is ready, 0 when none is left.
 * Those this Weft lacks are skipped with a note. A kernel that fails to
 * build for another reason stops the program with its log. */
int sync_runner_next(sync_runner *r, sync_primitive p, unsigned *index,
                     const char *only, size_t local);
void sync_runner_close(sync_runner *r);
/* The implementations of p in the table (only the one named only, unless
 * it is NULL), for a count of what is to come. */
unsigned sync_impl_count(sync_primitive p, const char *only);

/* The seconds that groups groups doing *ops operations each take on
 * Weft, beyond what the same launch with no operations takes (the launch
 * and the start of each group), timed as tool_measure does (which may
 * raise *ops). count is a semaphore's initial value. Every run checks the
 * primitive's invariant (mutual exclusion, at most count inside, no group
 * out of a barrier phase early) and stops the program if it does not
 * hold. */
double sync_weft_seconds(sync_runner *r, int count, unsigned groups,
                         unsigned *ops, const tool_timing *timing);

/* The same with threads C threads on pthread_mutex, sem_t or
 * pthread_barrier, timed from the first thread's start to the last one's
 * end; at most SYNC_PTHREAD_MAX threads (the caller keeps to that). */
double sync_pthread_seconds(sync_primitive p, int count, unsigned threads,
                            unsigned *ops, const tool_timing *timing);

/* Operations a run of groups groups doing ops each makes: groups * ops,
 * or ops for barriers (one phase is one barrier for all). */
double sync_total_ops(sync_primitive p, unsigned groups, unsigned ops);

/* The most C threads sync_pthread_seconds may be asked for. */
#define SYNC_PTHREAD_MAX 1024u

#endif /* WEFT_TOOL_BENCH_SYNC_H */
