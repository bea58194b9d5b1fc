/* bench_sync.c: `weft bench sync`: Stuart & Owens' figure of merit,
 * operations per second against the number of work-groups, for every
 * implementation of every cl_weft_sync primitive, beside pthreads doing
 * the same work; then each one's uncontended latency. CSV on stdout, a
 * summary on stderr, a PNG with --plot. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_sync.h"
#include "bench_util.h"
#include "tool.h"

#define CMD "bench sync"
#define MAX_GROUP_COUNTS 40

typedef struct sync_options {
  tool_bench_options common; /* --quick, --plot, --csv, --ops, ... */
  unsigned local, latency_ops;
  sync_primitive only; /* SYNC_PRIMITIVES: every one */
  const char *impl;
} sync_options;

/* What was measured: one CSV line, kept for the summary. */
typedef struct row {
  int latency;
  sync_primitive primitive;
  int count;
  const char *impl;
  unsigned groups, threads;
  double ops, seconds;
} row;

typedef struct bench {
  sync_options opt;
  tool_timing timing, alone; /* alone: the latencies' (the fastest run) */
  weft_device_info info; /* the device measured */
  int gpu;               /* it is a GPU */
  unsigned threads;      /* its threads (a GPU's multiprocessors) */
  /* The most groups, as a multiple of the threads: 64 on the CPU, 8 on a
   * GPU (as bench/cuda measures CUDA's own). */
  unsigned wide;
  unsigned groups[MAX_GROUP_COUNTS];
  int num_groups;
  row *rows;
  int num_rows, capacity;
  /* Progress on a terminal: the points to measure (at most), those done,
   * when it started. */
  int progress;
  unsigned points, done;
  double start;
} bench;

/* The primitives as the paper measures them: semaphores at four initial
 * values. */
static const struct {
  sync_primitive primitive;
  int count;
} cases[] = {
    {SYNC_MUTEX, 1},          {SYNC_SEMAPHORE, 1},   {SYNC_SEMAPHORE, 2},
    {SYNC_SEMAPHORE, 10},     {SYNC_SEMAPHORE, 120}, {SYNC_BARRIER, 0},
    {SYNC_GLOBAL_BARRIER, 0},
};

/* --------------------------------------------------------- the options */

/* The options of this command alone (tool_bench_parse_options's own). */
static int own_option(void *arg, const char *name, const char *value) {
  sync_options *o = arg;
  if (!strcmp(name, "--local"))
    return tool_parse_count(CMD, name, value, 4096, &o->local);
  if (!strcmp(name, "--latency-ops"))
    return tool_parse_count(CMD, name, value, 1u << 28, &o->latency_ops);
  if (!strcmp(name, "--only") && value &&
      (o->only = sync_primitive_named(value)) != SYNC_PRIMITIVES)
    return TOOL_OPTION_VALUE;
  if (!strcmp(name, "--impl") && value) {
    o->impl = value;
    return TOOL_OPTION_VALUE;
  }
  return TOOL_OPTION_UNKNOWN;
}

/* 0, 1 for --help, or -1 after a usage error. */
static int parse_options(int argc, char **argv, sync_options *o) {
  memset(o, 0, sizeof *o);
  o->only = SYNC_PRIMITIVES;
  int rc = tool_bench_parse_options(CMD, argc, argv, &o->common, own_option, o);
  if (rc) return rc;
  if (!o->local) o->local = 1;
  if (!o->latency_ops) o->latency_ops = o->common.quick ? 10000 : 200000;
  return 0;
}

/* 1, 2, 4, ... up to the most, with the thread count and `wide` times it
 * among them (on a GPU, every power of two times the multiprocessors, as
 * bench/cuda measures CUDA's own); --quick keeps 1, the threads and the
 * most. */
static void choose_groups(bench *b) {
  unsigned t = b->threads, w = b->wide, most = b->opt.common.max_groups;
  if (!most) most = w * t > 65536 ? 65536 : w * t;
  unsigned *v = b->groups, powers = b->gpu && most > 64 ? 64 : most;
  int *n = &b->num_groups, quick = b->opt.common.quick;
  *n = 0;
  tool_add_sorted(v, n, MAX_GROUP_COUNTS, 1);
  tool_add_sorted(v, n, MAX_GROUP_COUNTS, t <= most ? t : most);
  for (unsigned g = 2; g <= powers && !quick; g *= 2)
    tool_add_sorted(v, n, MAX_GROUP_COUNTS, g);
  for (unsigned k = 2; b->gpu && !quick && k < w && k * t <= most; k *= 2)
    tool_add_sorted(v, n, MAX_GROUP_COUNTS, k * t);
  if (!quick && w * t <= most) tool_add_sorted(v, n, MAX_GROUP_COUNTS, w * t);
  tool_add_sorted(v, n, MAX_GROUP_COUNTS, most);
}

/* --------------------------------------------------------- the results */

/* A line per point measured, with what is left, when stderr is a
 * terminal: "  mutex/ticket, 16 groups: 1.23e+06/s  [12/80, 0:41 left]". */
static void progress(bench *b, const row *r) {
  b->done++;
  if (!b->progress) return;
  double spent = bench_seconds() - b->start;
  unsigned left = b->points > b->done ? b->points - b->done : 0;
  double eta = b->done ? spent / b->done * left : 0;
  fprintf(stderr, "  %s/%s, %u group%s%s: %.3g%s  [%u/%u, %d:%02d left]\n",
          sync_primitive_name(r->primitive), r->impl, r->groups,
          r->groups == 1 ? "" : "s", r->latency ? " (latency)" : "",
          r->latency ? r->seconds / r->ops * 1e9 : r->ops / r->seconds,
          r->latency ? " ns" : "/s", b->done, b->points, (int)eta / 60,
          (int)eta % 60);
}

static int has_latency(sync_primitive p, int count);

/* The points the run will measure at most (some are skipped as they
 * come: barriers beyond the resident groups, pthreads beyond their
 * most). */
static unsigned count_points(const bench *b) {
  unsigned n = 0;
  for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
    sync_primitive p = cases[i].primitive;
    if (b->opt.only != SYNC_PRIMITIVES && b->opt.only != p) continue;
    unsigned impls = sync_impl_count(p, b->opt.impl) +
                     ((!b->opt.impl || !strcmp(b->opt.impl, "pthread")) &&
                      !b->gpu);
    n += impls * ((unsigned)b->num_groups +
                  (unsigned)has_latency(p, cases[i].count));
  }
  return n;
}

static void add_row(bench *b, row r) {
  if (b->num_rows == b->capacity) {
    b->capacity = b->capacity ? 2 * b->capacity : 64;
    b->rows = realloc(b->rows, (size_t)b->capacity * sizeof *b->rows);
    if (!b->rows) bench_die("out of memory");
  }
  b->rows[b->num_rows++] = r;
  char count[16] = "";
  if (r.primitive == SYNC_SEMAPHORE)
    snprintf(count, sizeof count, "%d", r.count);
  double rate = r.seconds > 0 ? r.ops / r.seconds : NAN;
  bench_csv_line("%s,%s,%s,%s,%u,%u,%.0f,%.6g,%.6g,%.6g",
                r.latency ? "latency" : "rate",
                sync_primitive_name(r.primitive), count, r.impl, r.groups,
                r.threads, r.ops, r.seconds, rate, 1e9 / rate);
  if (!(r.seconds > 0))
    bench_note("%s/%s at %u groups: no time left once "
                    "the launch is taken off: the machine is too noisy",
                    sync_primitive_name(r.primitive), r.impl, r.groups);
  progress(b, &r);
}

static const row *find(const bench *b, int latency, sync_primitive p,
                       const char *impl, unsigned groups) {
  for (int i = 0; i < b->num_rows; i++) {
    const row *r = &b->rows[i];
    if (r->latency == latency && r->primitive == p && r->groups == groups &&
        !strcmp(r->impl, impl) && (p != SYNC_SEMAPHORE || r->count == 1))
      return r;
  }
  return NULL;
}

/* ---------------------------------------------------------- measuring */

static int has_latency(sync_primitive p, int count) {
  return p == SYNC_MUTEX || (p == SYNC_SEMAPHORE && count == 1);
}

static void measure_weft(bench *b, sync_runner *r, int count) {
  sync_primitive p = r->impl->primitive;
  int barrier = p == SYNC_BARRIER || p == SYNC_GLOBAL_BARRIER;
  for (int i = 0; i < b->num_groups; i++) {
    unsigned g = b->groups[i], ops = b->opt.common.ops;
    /* On a GPU, groups beyond the resident ones would wait for groups
     * that never start. */
    if (barrier && g > b->info.max_resident_groups) {
      bench_note("%s/%s: not at %u groups, more than the %llu that "
                      "can be resident", sync_primitive_name(p),
                      r->impl->name, g,
                      (unsigned long long)b->info.max_resident_groups);
      continue;
    }
    double s = sync_weft_seconds(r, count, g, &ops, &b->timing);
    add_row(b, (row){0, p, count, r->impl->name, g, b->threads,
                     sync_total_ops(p, g, ops), s});
  }
  if (has_latency(p, count)) {
    unsigned ops = b->opt.latency_ops;
    double s = sync_weft_seconds(r, count, 1, &ops, &b->alone);
    add_row(b, (row){1, p, count, r->impl->name, 1, b->threads, ops, s});
  }
}

static void measure_pthread(bench *b, sync_primitive p, int count) {
  for (int i = 0; i < b->num_groups; i++) {
    unsigned g = b->groups[i], ops = b->opt.common.ops;
    if (g > SYNC_PTHREAD_MAX) continue;
    double s = sync_pthread_seconds(p, count, g, &ops, &b->timing);
    add_row(b,
            (row){0, p, count, "pthread", g, g, sync_total_ops(p, g, ops), s});
  }
  if (has_latency(p, count)) {
    unsigned ops = b->opt.latency_ops;
    double s = sync_pthread_seconds(p, count, 1, &ops, &b->alone);
    add_row(b, (row){1, p, count, "pthread", 1, 1, ops, s});
  }
}

static void measure_case(bench *b, sync_primitive p, int count) {
  sync_runner r;
  for (unsigned i = 0;
       sync_runner_next(&r, p, &i, b->opt.impl, b->opt.local);) {
    char what[64] = "";
    if (p == SYNC_SEMAPHORE) snprintf(what, sizeof what, " (count %d)", count);
    bench_note("%s/%s%s ...", sync_primitive_name(p), r.impl->name, what);
    measure_weft(b, &r, count);
    sync_runner_close(&r);
  }
  /* Beside a GPU, pthreads would time the host: bench/cuda holds the
   * GPU's own primitives. */
  if ((!b->opt.impl || !strcmp(b->opt.impl, "pthread")) && !b->gpu)
    measure_pthread(b, p, count);
}

/* ----------------------------------------------------------- summary */

static void summarize_latency(const bench *b, sync_primitive p) {
  const row *base = find(b, 1, p, "pthread", 1);
  for (int i = 0; i < b->num_rows; i++) {
    const row *r = &b->rows[i];
    if (!r->latency || r->primitive != p || !strcmp(r->impl, "pthread"))
      continue;
    double ns = r->seconds / r->ops * 1e9;
    fprintf(stderr, "  %-10s %-12s %8.1f ns", sync_primitive_name(p), r->impl,
            ns);
    if (base)
      fprintf(stderr, "   pthread %6.1f ns   %.2fx pthread's",
              base->seconds / base->ops * 1e9,
              ns / (base->seconds / base->ops * 1e9));
    fputc('\n', stderr);
  }
}

/* Each barrier (object or global) at that many groups, beside
 * pthread_barrier across as many threads, and across the Weft's threads. */
static void summarize_barrier(const bench *b, unsigned groups) {
  for (int i = 0; i < b->num_rows; i++) {
    const row *r = &b->rows[i];
    if (r->latency || r->groups != groups || !strcmp(r->impl, "pthread") ||
        (r->primitive != SYNC_BARRIER && r->primitive != SYNC_GLOBAL_BARRIER))
      continue;
    const row *base = find(b, 0, r->primitive, "pthread", groups);
    const row *same = find(b, 0, r->primitive, "pthread", b->threads);
    fprintf(stderr, "  %-14s %-12s %5u groups: %9.4g/s",
            sync_primitive_name(r->primitive), r->impl, groups,
            r->ops / r->seconds);
    if (base)
      fprintf(stderr, "   pthread_barrier, %u threads: %9.4g/s (%.2fx)", groups,
              base->ops / base->seconds,
              (r->ops / r->seconds) / (base->ops / base->seconds));
    if (same && groups != b->threads)
      fprintf(stderr, "; %u threads: %.4g/s", b->threads,
              same->ops / same->seconds);
    fputc('\n', stderr);
  }
}

/* Whether rows of these primitives were measured (latencies or rates). */
static int measured(const bench *b, int latency, sync_primitive p,
                    sync_primitive q) {
  for (int i = 0; i < b->num_rows; i++)
    if (b->rows[i].latency == latency &&
        (b->rows[i].primitive == p || b->rows[i].primitive == q) &&
        strcmp(b->rows[i].impl, "pthread"))
      return 1;
  return 0;
}

static void summarize(const bench *b) {
  fprintf(stderr, "\nweft " CMD " on %s: %u %s, %u operations per group, "
          "median of at least %u runs\n", b->info.name, b->threads,
          b->gpu ? "multiprocessors" : "threads", b->opt.common.ops,
          b->opt.common.repeat);
  /* Only the headers of what this run measured (--only, --impl). */
  if (measured(b, 1, SYNC_MUTEX, SYNC_SEMAPHORE)) {
    fprintf(stderr, "uncontended (one group; the fastest run), per "
                    "lock+unlock or wait+post:\n");
    summarize_latency(b, SYNC_MUTEX);
    summarize_latency(b, SYNC_SEMAPHORE);
  }
  if (measured(b, 0, SYNC_BARRIER, SYNC_GLOBAL_BARRIER)) {
    fprintf(stderr, "barriers per second, as many groups as threads and %u "
                    "times more:\n", b->wide);
    summarize_barrier(b, b->threads);
    summarize_barrier(b, b->wide * b->threads);
  }
}

/* --------------------------------------------------------------- main */

static const char usage[] =
    "Usage: weft bench sync [OPTIONS]\n"
    "Operations per second against the number of work-groups for each\n"
    "implementation of each cl_weft_sync primitive, beside pthreads, and\n"
    "each one's uncontended latency: CSV on stdout, a summary on stderr.\n"
    "  --quick            200 operations per group; 1, T and the most groups\n"
    "  --ops N            operations per group (default 1000; raised where\n"
    "                     they would take under 100 us, too short to time)\n"
    "  --max-groups N     the most groups (default 64 x the threads; on a\n"
    "                     GPU 8 x its multiprocessors)\n"
    "  --repeat N         runs per point at least; the median counts\n"
    "                     (default 5)\n"
    "  --min-time MS      runs per point until they add up to MS\n"
    "                     milliseconds (default 20)\n"
    "  --local N          work-items per group (default 1)\n"
    "  --latency-ops N    operations of the one-group latency runs\n"
    "                     (default 200000)\n"
    "  --only PRIMITIVE   mutex, semaphore, barrier or global_barrier\n"
    "  --impl NAME        only this implementation (or pthread)\n"
    "  --csv PATH         write the CSV to PATH too\n"
    "  --plot             draw PATH's plot beside it (PATH.png)\n"
    "  --device DEVICE    where the kernels run: an index (default 0, as\n"
    "                     weft run), cpu, cuda or cuda:N; pthreads run\n"
    "                     beside the CPU only\n";

int tool_bench_sync(int argc, char **argv) {
  bench b = {0};
  int rc = parse_options(argc, argv, &b.opt);
  if (rc) {
    if (rc > 0) fputs(usage, stdout);
    return rc > 0 ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
  }
  tool_bench_device_info(&b.info);
  b.gpu = b.info.kind == WEFT_DEVICE_GPU;
  b.threads = b.info.compute_units;
  b.wide = b.gpu ? 8 : 64;
  b.timing =
      (tool_timing){b.opt.common.repeat, b.opt.common.min_ms * 1e-3, 0};
  b.alone =
      (tool_timing){b.opt.common.repeat, b.opt.common.min_ms * 1e-3, 1};
  choose_groups(&b);
  b.progress = isatty(2);
  b.points = count_points(&b);
  b.start = bench_seconds();
  bench_csv_open(b.opt.common.csv,
                 "measure,primitive,init,impl,groups,"
                 "threads,ops,seconds,ops_per_s,ns_per_op",
                 1);
  for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++)
    if (b.opt.only == SYNC_PRIMITIVES || b.opt.only == cases[i].primitive)
      measure_case(&b, cases[i].primitive, cases[i].count);
  bench_csv_close();
  summarize(&b);
  free(b.rows);
  if (b.opt.common.plot && tool_plot(CMD, b.opt.common.csv))
    return TOOL_EXIT_FAILED;
  return TOOL_EXIT_OK;
}
