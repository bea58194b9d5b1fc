/* bench_sync_weft.c: the sync kernels on Weft: building each
 * implementation, timed launches, and the check of each run's invariant. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_sync.h"
#include "bench_util.h"
#include "weft/kernel.h"

/* Clang's words for a name the headers do not declare, and ours for a
 * macro they do not define: the mark of an implementation this Weft does
 * not have. */
static int lacks_declaration(const char *log) {
  return log &&
         (strstr(log, "undeclared") || strstr(log, "implicit declaration") ||
          strstr(log, "not in this Weft"));
}

static weft_program *build(const sync_impl *impl, char **log) {
  char *source, *options, check[160] = "";
  if (impl->requires)
    snprintf(check, sizeof check,
             "#ifndef %s\n#error \"not in this Weft: %s\"\n#endif\n",
             impl->requires, impl->requires);
  if (asprintf(&source,
               "%s#define INIT(o, count, groups) %s\n#define STRIDE %d\n%s",
               check, impl->init ? impl->init : "", SYNC_STRIDE,
               sync_kernel_source(impl->primitive)) < 0 ||
      asprintf(&options, "-cl-std=CL3.0 %s", impl->options) < 0)
    bench_die("out of memory");
  weft_program *p = tool_bench_build(source, options, log);
  free(source);
  free(options);
  return p;
}

/* 1 when impl built, 0 when this Weft lacks it. */
static int open_one(sync_runner *r, const sync_impl *impl, size_t local) {
  char *log = NULL;
  weft_program *p = build(impl, &log);
  if (!p && lacks_declaration(log)) {
    free(log);
    return 0;
  }
  if (!p)
    bench_die("%s/%s: the benchmark kernel does not build:\n%s",
                   sync_primitive_name(impl->primitive), impl->name, log);
  memset(r, 0, sizeof *r);
  r->impl = impl;
  r->local = local;
  r->program = p;
  r->init = impl->init ? tool_bench_kernel(p, "init") : NULL;
  r->run = tool_bench_kernel(p, "run");
  return 1;
}

static int same_impl(const sync_impl *a, const sync_impl *b) {
  return a->primitive == b->primitive && !strcmp(a->name, b->name);
}

int sync_runner_next(sync_runner *r, sync_primitive p, unsigned *index,
                     const char *only, size_t local) {
  while (*index < sync_num_impls) {
    const sync_impl *first = &sync_impls[*index];
    unsigned end = *index + 1;
    while (end < sync_num_impls && same_impl(&sync_impls[end], first)) end++;
    int wanted = first->primitive == p && (!only || !strcmp(only, first->name));
    int opened = 0;
    for (unsigned i = *index; wanted && i < end && !opened; i++)
      opened = open_one(r, &sync_impls[i], local);
    *index = end;
    if (opened) return 1;
    if (wanted)
      bench_note("%s/%s: not in this Weft, skipped",
                      sync_primitive_name(p), first->name);
  }
  return 0;
}

unsigned sync_impl_count(sync_primitive p, const char *only) {
  unsigned n = 0;
  for (unsigned i = 0; i < sync_num_impls; i++)
    n += sync_impls[i].primitive == p &&
         (!only || !strcmp(only, sync_impls[i].name)) &&
         (!i || !same_impl(&sync_impls[i - 1], &sync_impls[i]));
  return n;
}

void sync_runner_close(sync_runner *r) {
  if (r->init) weft_kernel_release(r->init);
  if (r->run) weft_kernel_release(r->run);
  if (r->program) weft_program_release(r->program);
  memset(r, 0, sizeof *r);
}

double sync_total_ops(sync_primitive p, unsigned groups, unsigned ops) {
  int barrier = p == SYNC_BARRIER || p == SYNC_GLOBAL_BARRIER;
  return barrier ? (double)ops : (double)groups * ops;
}

/* ------------------------------------------------------------ one run */

/* The buffers of one run: the object, the counters or phase words, and
 * the barriers' count of early departures. */
typedef struct run_buffers {
  weft_buffer *object, *data, *bad;
  size_t data_ints;
} run_buffers;

/* A fresh object, initialized by the implementation's init kernel, with
 * room for a Xiao-Feng barrier's flags (two words a group). */
static weft_buffer *make_object(sync_runner *r, int count, unsigned groups) {
  if (!r->init) return NULL;
  weft_buffer *object = tool_bench_buffer(
      WEFT_BARRIER_SIZE(WEFT_BARRIER_XIAO_FENG, (size_t)groups), NULL);
  tool_bench_arg_buffer(r->init, 0, object);
  tool_bench_arg_value(r->init, 1, &count, sizeof count);
  tool_bench_arg_value(r->init, 2, &groups, sizeof groups);
  tool_bench_launch(r->init, 1, 1);
  return object;
}

static void set_args(sync_runner *r, run_buffers *b, int count, int ops,
                     int checked) {
  int i = 0;
  if (b->object) tool_bench_arg_buffer(r->run, i++, b->object);
  tool_bench_arg_buffer(r->run, i++, b->data);
  if (b->bad) tool_bench_arg_buffer(r->run, i++, b->bad);
  tool_bench_arg_value(r->run, i++, &ops, sizeof ops);
  if (r->impl->primitive != SYNC_SEMAPHORE) return;
  tool_bench_arg_value(r->run, i++, &count, sizeof count);
  tool_bench_arg_value(r->run, i, &checked, sizeof checked);
}

static void prepare(sync_runner *r, run_buffers *b, int count, unsigned groups,
                    unsigned ops, int checked) {
  sync_primitive p = r->impl->primitive;
  int barrier = p == SYNC_BARRIER || p == SYNC_GLOBAL_BARRIER;
  b->object = make_object(r, count, groups);
  b->data_ints = barrier ? (size_t)groups * SYNC_STRIDE : 3;
  b->data = tool_bench_buffer(b->data_ints * sizeof(int), NULL);
  b->bad = barrier ? tool_bench_buffer(sizeof(int), NULL) : NULL;
  set_args(r, b, count, (int)ops, checked);
}

/* Stops the program, naming the run, when the invariant did not hold. */
static void check(sync_runner *r, run_buffers *b, int count, unsigned groups,
                  unsigned ops) {
  const char *prim = sync_primitive_name(r->impl->primitive);
  int *d = malloc(b->data_ints * sizeof *d), bad = 0;
  if (!d) bench_die("out of memory");
  tool_bench_read(b->data, d, b->data_ints * sizeof *d);
  if (b->bad) tool_bench_read(b->bad, &bad, sizeof bad);
  long long want = (long long)groups * ops;
  const char *broken = NULL;
  switch (r->impl->primitive) {
  case SYNC_MUTEX:
    if (d[0] != want) broken = "mutual exclusion: the counter lost updates";
    break;
  case SYNC_SEMAPHORE:
    if (d[1])
      broken = "more groups than the count were inside at once";
    else if (d[0] || d[2] != want)
      broken = "waits and posts do not match";
    break;
  default:
    for (unsigned g = 0; g < groups && !bad; g++)
      bad = d[(size_t)g * SYNC_STRIDE] != (int)ops;
    if (bad) broken = "a group left a barrier phase before all arrived";
  }
  if (broken)
    bench_die("%s/%s: INVARIANT VIOLATED with %u groups, %u operations "
                   "each (count %d): %s (counters %d %d %d)",
                   prim, r->impl->name, groups, ops, count, broken, d[0], d[1],
                   d[2]);
  free(d);
}

/* A semaphore's run checks the count inside only when checked. */
static double run_once(sync_runner *r, int count, unsigned groups,
                       unsigned ops, int checked) {
  run_buffers b;
  prepare(r, &b, count, groups, ops, checked);
  double seconds = tool_bench_launch(r->run, groups, r->local);
  check(r, &b, count, groups, ops);
  if (b.object) weft_buffer_release(b.object);
  if (b.bad) weft_buffer_release(b.bad);
  weft_buffer_release(b.data);
  return seconds;
}

typedef struct run_args {
  sync_runner *r;
  int count;
  unsigned groups;
} run_args;

static double run_with(void *arg, unsigned ops) {
  run_args *a = arg;
  return run_once(a->r, a->count, a->groups, ops, 0);
}

/* The timed runs, then, for a semaphore of more than one group, one that
 * checks that no more than count groups were ever inside at once. */
double sync_weft_seconds(sync_runner *r, int count, unsigned groups,
                         unsigned *ops, const tool_timing *timing) {
  run_args a = {r, count, groups};
  double seconds = tool_measure(run_with, &a, ops, timing, 1);
  if (r->impl->primitive == SYNC_SEMAPHORE && groups > 1)
    run_once(r, count, groups, *ops, 1);
  return seconds;
}
