/* bench_probe.c: `weft bench probe`: Stuart & Owens' memory-system probes
 * as kernels on Weft (volatile or atomic, reads or writes, contentious or
 * not, against the number of work-groups), the machine's class in their
 * abstraction, and the defaults file (weft.h's weft_sync_defaults_save). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_probe.h"
#include "tool.h"

#define CMD "bench probe"
#define INITIAL 7u /* every word's value before a run */

/* Work-item 0 of each group makes reps accesses to its word: words[0] for
 * all (stride 0) or one line each; acc keeps the reads alive. An atomic
 * read is a compare-and-swap that fails (the word is never ~0), which
 * returns the word: a read-modify-write, as on the paper's GPUs, where
 * atomic_add(p, 0) would compile to a fenced load on x86-64. */
/* clang-format off */
#define PROBE(name, body)                                                 \
  "__kernel void " name "(__global volatile uint *words, uint stride,\n"  \
  "    int reps, __global uint *sink) {\n"                                \
  "  if (get_local_id(0) != 0) return;\n"                                 \
  "  __global volatile uint *p = words + get_group_id(0) * stride;\n"     \
  "  uint acc = 0;\n"                                                     \
  "  for (int i = 0; i < reps; i++) " body ";\n"                          \
  "  sink[get_group_id(0) * STRIDE] = acc;\n"                             \
  "}\n"

static const char source[] =
    PROBE("volatile_read", "acc += *p")
    PROBE("volatile_write", "*p = (uint)i")
    PROBE("atomic_read", "acc += atomic_cmpxchg(p, ~0u, ~0u)")
    PROBE("atomic_write", "atomic_xchg(p, (uint)i)");
/* clang-format on */

static const char *const access_names[PROBE_ACCESSES] = {
    "volatile_read", "volatile_write", "atomic_read", "atomic_write"};

typedef struct probe_options {
  tool_bench_options common; /* --quick, --plot, --csv, --ops, ... */
  int write;
  unsigned reps, run_us;
  const char *output;
} probe_options;

/* ------------------------------------------------------------ one run */

typedef struct probe_run {
  weft_kernel *kernel;
  probe_access access;
  unsigned groups, stride;
} probe_run;

/* Stops the program when a word or a sum is not what the accesses make:
 * reads leave INITIAL and sum it reps times, writes leave reps - 1. */
static void check(const probe_run *r, const unsigned *words,
                  const unsigned *sink, int reps) {
  int writes =
      r->access == PROBE_VOLATILE_WRITE || r->access == PROBE_ATOMIC_WRITE;
  unsigned word = writes && reps ? (unsigned)reps - 1 : INITIAL;
  unsigned sum = writes ? 0 : INITIAL * (unsigned)reps;
  for (unsigned g = 0; g < r->groups; g++)
    if (words[(size_t)g * r->stride] != word ||
        sink[(size_t)g * SYNC_STRIDE] != sum)
      bench_die("probe %s: WRONG RESULT in group %u of %u: word %u "
                     "(expected %u), sum %u (expected %u)",
                     access_names[r->access], g, r->groups,
                     words[(size_t)g * r->stride], word,
                     sink[(size_t)g * SYNC_STRIDE], sum);
}

static double run_probe(void *arg, unsigned reps) {
  probe_run *r = arg;
  size_t n_words = (size_t)r->groups * (r->stride ? r->stride : 1);
  size_t n_sink = (size_t)r->groups * SYNC_STRIDE;
  unsigned *words = malloc(n_words * sizeof *words);
  unsigned *sink = malloc(n_sink * sizeof *sink);
  if (!words || !sink) bench_die("out of memory");
  for (size_t i = 0; i < n_words; i++) words[i] = INITIAL;
  weft_buffer *w = tool_bench_buffer(n_words * sizeof *words, words);
  weft_buffer *s = tool_bench_buffer(n_sink * sizeof *sink, NULL);
  int r_reps = (int)reps;
  tool_bench_arg_buffer(r->kernel, 0, w);
  tool_bench_arg_value(r->kernel, 1, &r->stride, sizeof r->stride);
  tool_bench_arg_value(r->kernel, 2, &r_reps, sizeof r_reps);
  tool_bench_arg_buffer(r->kernel, 3, s);
  double seconds = tool_bench_launch(r->kernel, r->groups, 1);
  tool_bench_read(w, words, n_words * sizeof *words);
  tool_bench_read(s, sink, n_sink * sizeof *sink);
  check(r, words, sink, r_reps);
  weft_buffer_release(w);
  weft_buffer_release(s);
  free(words);
  free(sink);
  return seconds;
}

/* --------------------------------------------------------- the probes */

/* Adds g to the sorted group counts, once. */
static void add_groups(probe_results *r, unsigned g) {
  tool_add_sorted(r->groups, &r->num_groups, PROBE_MAX_GROUPS, g);
}

/* 1, 2, 4, ... up to the most (8 x the threads), and the thread count;
 * --quick keeps 1 and the thread count. */
static void choose_groups(probe_results *r, const probe_options *o) {
  unsigned most = o->common.max_groups ? o->common.max_groups : 8 * r->threads;
  add_groups(r, 1);
  add_groups(r, r->threads);
  for (unsigned g = 2; g <= most && !o->common.quick; g *= 2)
    add_groups(r, g);
  for (int i = 0; i < r->num_groups; i++)
    if (r->groups[i] == r->threads) r->at_threads = i;
}

static void emit(const probe_results *r, probe_access a, int contentious, int i,
                 unsigned reps, double seconds) {
  double accesses = (double)r->groups[i] * reps;
  double rate = accesses / seconds;
  bench_csv_line("%s,%s,%u,%u,%.0f,%.6g,%.6g,%.6g", access_names[a],
                contentious ? "contentious" : "noncontentious", r->groups[i],
                r->threads, accesses, seconds, rate, 1e9 / rate);
  if (!(seconds > 0))
    bench_die("probe %s at %u groups: too fast to time against the "
                   "launch (raise --reps)",
                   access_names[a], r->groups[i]);
}

/* Accesses per group that keep one group busy for the time asked: long
 * enough that the groups of a launch overlap, which a thread's wake-up
 * (tens of microseconds) would prevent in a run of the paper's 1000.
 * Measured on one group: run->groups is left at 1 (the caller sets it
 * before each run of its own). */
static unsigned calibrate(probe_run *run, const probe_options *o,
                          const tool_timing *timing) {
  if (o->reps) return o->reps;
  unsigned reps = 1000;
  run->groups = 1;
  for (;;) {
    double s = tool_median_seconds(run_probe, run, reps, timing, 1);
    if (s * 1e6 >= o->run_us || reps >= 1u << 28) break;
    reps *= s * 1e6 * 16 < o->run_us ? 16 : 2;
  }
  return reps;
}

static void run_probes(probe_results *r, const probe_options *o,
                       const tool_timing *timing) {
  char *log;
  char options[64];
  snprintf(options, sizeof options, "-cl-std=CL3.0 -DSTRIDE=%d", SYNC_STRIDE);
  weft_program *program = tool_bench_build(source, options, &log);
  if (!program) bench_die("the probe kernels do not build:\n%s", log);
  for (int a = 0; a < PROBE_ACCESSES; a++) {
    probe_run run = {tool_bench_kernel(program, access_names[a]),
                     (probe_access)a, 1, 0};
    for (int contentious = 1; contentious >= 0; contentious--) {
      run.stride = contentious ? 0 : SYNC_STRIDE;
      unsigned reps = calibrate(&run, o, timing);
      for (int i = 0; i < r->num_groups; i++) {
        run.groups = r->groups[i];
        /* On a busy machine the launch's own time, taken off, can swamp a
         * point's (a test run beside other work had none left at 2
         * groups): more accesses then. */
        unsigned point_reps = reps;
        double s = tool_median_seconds(run_probe, &run, point_reps, timing, 1);
        for (int more = 0; !(s > 0) && more < 4; more++) {
          point_reps *= 4;
          s = tool_median_seconds(run_probe, &run, point_reps, timing, 1);
        }
        emit(r, (probe_access)a, contentious, i, point_reps, s);
        r->rate[a][contentious][i] = (double)run.groups * point_reps / s;
      }
    }
    weft_kernel_release(run.kernel);
  }
  weft_program_release(program);
}

/* The table, accesses per second by number of groups. */
static void print_table(const probe_results *r) {
  printf("Memory-system probes on %u threads: accesses/s, all groups "
         "together, by work-groups\n%-32s",
         r->threads, "");
  for (int i = 0; i < r->num_groups; i++) printf("%10u", r->groups[i]);
  putchar('\n');
  for (int a = 0; a < PROBE_ACCESSES; a++)
    for (int c = 1; c >= 0; c--) {
      printf("  %-15s %-14s", access_names[a],
             c ? "contentious" : "noncontentious");
      for (int i = 0; i < r->num_groups; i++)
        printf("%10.3g", r->rate[a][c][i]);
      putchar('\n');
    }
}

/* --------------------------------------------------------- the options */

static const char usage[] =
    "Usage: weft bench probe [OPTIONS]\n"
    "Stuart & Owens' memory-system probes as kernels (volatile or atomic,\n"
    "reads or writes, contentious or not, against the number of groups),\n"
    "the machine's class in their abstraction, and the implementation of\n"
    "each primitive to use by default, written to the defaults file\n"
    "(WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft or ~/.cache/weft, file\n"
    "sync-defaults) and printed.\n"
    "  --quick            shorter runs, 1 and T groups, a short contest\n"
    "  --reps N           accesses per group (default: as many as keep\n"
    "                     a group busy for --run-us)\n"
    "  --run-us US        a group's run, in microseconds (default 2000)\n"
    "  --max-groups N     the most groups (default 8 x the threads)\n"
    "  --ops N            operations per group in the contest (default 1000)\n"
    "  --repeat N         runs per point at least (default 5)\n"
    "  --min-time MS      runs per point until they add up to MS ms\n"
    "  --output PATH      write the defaults file there instead\n"
    "  --no-write         print the defaults, write no file\n"
    "  --csv PATH         write the probes' CSV to PATH\n"
    "  --plot             draw PATH's plot beside it (PATH.png)\n"
    "  --device DEVICE    where the probes run: an index (default 0, as\n"
    "                     weft run), cpu, cuda or cuda:N (a GPU's choice\n"
    "                     is printed, not written, but to --output)\n";

/* The options of this command alone (tool_bench_parse_options's own). */
static int own_option(void *arg, const char *name, const char *value) {
  probe_options *o = arg;
  if (!strcmp(name, "--no-write")) {
    o->write = 0;
    return TOOL_OPTION_FLAG;
  }
  if (!strcmp(name, "--reps"))
    return tool_parse_count(CMD, name, value, 1u << 28, &o->reps);
  if (!strcmp(name, "--run-us"))
    return tool_parse_count(CMD, name, value, 10000000, &o->run_us);
  if (!strcmp(name, "--output") && value) {
    o->output = value;
    return TOOL_OPTION_VALUE;
  }
  return TOOL_OPTION_UNKNOWN;
}

/* 0, 1 for --help, or -1 after a usage error. */
static int parse_options(int argc, char **argv, probe_options *o) {
  memset(o, 0, sizeof *o);
  o->write = 1;
  int rc = tool_bench_parse_options(CMD, argc, argv, &o->common, own_option, o);
  if (rc) return rc;
  if (!o->run_us) o->run_us = o->common.quick ? 500 : 2000;
  return 0;
}

/* ------------------------------------------------------- the defaults */

/* Writes the defaults where they belong, and says where. */
static int save_defaults(const weft_sync_defaults *d,
                         const probe_options *o) {
  if (!o->write) return 0;
  if (tool_bench_on_gpu() && !o->output) {
    /* The defaults file is the CPU device's. */
    printf("\n(a GPU's defaults are built into Weft, from bench/cuda's "
           "measurements:\n backend/cuda/cuda_program.c; no file written)\n");
    return 0;
  }
  const char *dir = weft_cache_dir();
  if (!o->output && !dir) {
    printf("\n(WEFT_CACHE_DIR is off: no file written)\n");
    return 0;
  }
  int rc = weft_sync_defaults_save(d, o->output);
  char where[4096];
  if (o->output)
    snprintf(where, sizeof where, "%s", o->output);
  else
    snprintf(where, sizeof where, "%s/" WEFT_SYNC_DEFAULTS_FILE, dir);
  if (rc) {
    tool_error(CMD, "cannot write '%s': %s", where,
               rc == WEFT_ESYS ? strerror(errno) : weft_strerror(rc));
    return -1;
  }
  printf("\nwritten to %s\n", where);
  return 0;
}

static int choose_defaults(const probe_results *r, const probe_options *o,
                           const tool_timing *timing) {
  probe_class c;
  char text[256];
  weft_device_info info;
  tool_bench_device_info(&info);
  probe_classify(r, &c);
  probe_print_class(&c, r->threads);
  snprintf(text, sizeof text,
           "atomics:%s(%.3gx) contention:%s(%.3gx) "
           "polling:%s(%.3gx) nearest:%s",
           c.atomics, c.atomic_cost, c.contended, c.contention, c.polls,
           c.polling, c.nearest);
  const char *choice[SYNC_PRIMITIVES] = {0};
  unsigned most = info.max_resident_groups < UINT_MAX
                      ? (unsigned)info.max_resident_groups
                      : UINT_MAX;
  probe_choose(timing, o->common.ops, r->threads, most, choice);
  weft_sync_defaults d = {r->threads, info.name, text,
                          choice[SYNC_MUTEX], choice[SYNC_SEMAPHORE],
                          choice[SYNC_BARRIER], choice[SYNC_GLOBAL_BARRIER]};
  if (!strcmp(c.contended, "untested(busy)"))
    printf("  (the machine is busy: its groups took turns, so the contest "
           "saw little\n  contention; run it again on an idle machine)\n");
  printf("\nDefaults%s:\n", tool_bench_on_gpu() ? "" : " (the defaults file)");
  char *file = NULL;
  if (weft_sync_defaults_text(&d, &file)) {
    tool_error(CMD, "the defaults chosen cannot be written (a bug)");
    return -1;
  }
  fputs(file, stdout);
  free(file);
  return save_defaults(&d, o);
}

int tool_bench_probe(int argc, char **argv) {
  probe_options o;
  int rc = parse_options(argc, argv, &o);
  if (rc) {
    if (rc > 0) fputs(usage, stdout);
    return rc > 0 ? TOOL_EXIT_OK : TOOL_EXIT_USAGE;
  }
  /* The fastest run of each point: a probe measures what the memory
   * system can do, and the machine's other work only takes from that (on
   * a busy machine it would also hide contention, the groups taking
   * turns on one thread). The contest takes medians. */
  tool_timing timing = {o.common.repeat, o.common.min_ms * 1e-3, 1};
  probe_results r = {0};
  r.threads = tool_bench_threads();
  choose_groups(&r, &o);
  /* The CSV goes to the file only: stdout is for people here. */
  if (o.common.csv)
    bench_csv_open(o.common.csv,
                   "probe,contention,groups,threads,"
                   "accesses,seconds,accesses_per_s,ns_per_access",
                   0);
  run_probes(&r, &o, &timing);
  bench_csv_close();
  print_table(&r);
  timing.fastest = 0;
  if (choose_defaults(&r, &o, &timing)) return TOOL_EXIT_FAILED;
  if (o.common.plot && tool_plot(CMD, o.common.csv)) return TOOL_EXIT_FAILED;
  return TOOL_EXIT_OK;
}
