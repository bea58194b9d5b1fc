/*
 * bench_util.h: what `weft bench sync` and `weft bench probe` share
 * beyond bench/bench_lib.h (the clock, medians, CSV, messages, which the
 * benchmarks of bench/ use too): timing a point, plots, the device, and
 * building and launching their kernels with a loud stop on any failure (a
 * benchmark that goes on after an error would time doing nothing).
 */
#ifndef WEFT_TOOL_BENCH_UTIL_H
#define WEFT_TOOL_BENCH_UTIL_H

#include <stddef.h>

#include "bench_lib.h"
#include "device_choice.h"
#include "weft/weft.h"


/* How long to measure one point: at least repeat runs, and on until the
 * runs add up to min_seconds (short runs are noisy against the launch). */
typedef struct tool_timing {
  unsigned repeat;
  double min_seconds;
  /* The fastest run counts, not the median: for one group alone, where
   * everything else the machine does only adds time. */
  int fastest;
} tool_timing;

/* The median (or fastest) seconds of run(arg, ops) over the runs timing
 * asks for. With less_empty, less the same of run(arg, 0), the two
 * interleaved so that both see the same load: the time of the operations
 * alone, without the launch that surrounds them. */
double tool_median_seconds(double (*run)(void *arg, unsigned ops), void *arg,
                           unsigned ops, const tool_timing *timing,
                           int less_empty);

/* tool_median_seconds of *ops operations, with *ops raised fourfold until
 * they take TOOL_MIN_WORK seconds: less stands too little out of the
 * launch's noise (a lock+unlock takes ~10 ns, a launch ~30 us). */
#define TOOL_MIN_WORK 100e-6
double tool_measure(double (*run)(void *arg, unsigned ops), void *arg,
                    unsigned *ops, const tool_timing *timing, int less_empty);


/* Runs Debian's Python on bench/plot.py to draw csv_path's PNG beside it;
 * 0 on success, else a note is printed and -1 returned. */
int tool_plot(const char *cmd, const char *csv_path);

/* The context on the device --device chose (device 0 by default), made
 * at the first call; the device's description and its number of threads
 * (a GPU's multiprocessors). */
weft_context *tool_bench_context(void);
void tool_bench_device_info(weft_device_info *info);
unsigned tool_bench_threads(void);

/* Builds source; NULL when the build fails, with the log in *log
 * (malloc'd, the caller frees it). Other failures stop the program. */
weft_program *tool_bench_build(const char *source, const char *options,
                               char **log);

weft_kernel *tool_bench_kernel(weft_program *program, const char *name);
weft_buffer *tool_bench_buffer(size_t bytes, const void *init);
void tool_bench_read(weft_buffer *b, void *out, size_t bytes);

/* Sets argument i of k (a buffer, or a value of size bytes). */
void tool_bench_arg_buffer(weft_kernel *k, int i, weft_buffer *b);
void tool_bench_arg_value(weft_kernel *k, int i, const void *v, size_t size);

/* Whether the benchmarks run on a GPU. */
int tool_bench_on_gpu(void);

/* Launches groups work-groups of local work-items and returns the wall
 * time in seconds. */
double tool_bench_launch(weft_kernel *k, size_t groups, size_t local);

/* Stops the program with "weft bench: WHAT: <the error>" unless status is
 * 0; object is where the message lies (or NULL). */
void tool_bench_check(int status, const void *object, const char *what);



/* Parses the value text of option name of command cmd, a positive
 * decimal number of at most max: 0, or -1 after a usage error. */
int tool_parse_count(const char *cmd, const char *name, const char *text,
                     unsigned long max, unsigned *out);

/* The options the benchmark commands share: --quick, --plot, --csv PATH,
 * --ops N, --max-groups N, --repeat N, --min-time MS and --device D. */
typedef struct tool_bench_options {
  int quick, plot;
  unsigned ops, max_groups, repeat, min_ms;
  const char *csv;
} tool_bench_options;

/* What a command's own option parser says of argument name (value is the
 * next argument, or NULL): it took both, name is a flag of its own, name
 * is none of its options (or value is not one name takes), or -1 after a
 * usage error it printed (tool_parse_count's -1). */
enum {
  TOOL_OPTION_VALUE = 0,
  TOOL_OPTION_UNKNOWN = 1,
  TOOL_OPTION_FLAG = 2
};

/* Parses argv[1..argc) of command cmd into *common (zeroed first) and,
 * through own(o, name, value), the command's own options; then sets the
 * shared options' defaults, for a --quick run or a full one, where they
 * were not given, and checks --plot's need of --csv; --device goes to
 * tool_bench_context. 0, 1 for --help or -h, or -1 after a usage error. */
int tool_bench_parse_options(const char *cmd, int argc, char **argv,
                             tool_bench_options *common,
                             int (*own)(void *o, const char *name,
                                        const char *value),
                             void *o);

/* Adds g to the sorted list v of n (at most cap) numbers, once. */
void tool_add_sorted(unsigned *v, int *n, int cap, unsigned g);

#endif /* WEFT_TOOL_BENCH_UTIL_H */
