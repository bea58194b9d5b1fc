/* bench_util.c: the clock, medians, CSV, plots and Weft calls that the
 * bench subcommands share (see bench_util.h). */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "tool.h"

extern char **environ;

#define MAX_RUNS 4096

double tool_median_seconds(double (*run)(void *arg, unsigned ops), void *arg,
                           unsigned ops, const tool_timing *timing,
                           int less_empty) {
  double *with = malloc(2 * MAX_RUNS * sizeof *with),
         *without = with + MAX_RUNS;
  if (!with) bench_die("out of memory");
  double spent = 0;
  int n = 0;
  while (n < MAX_RUNS &&
         (n < (int)timing->repeat || spent < timing->min_seconds)) {
    without[n] = less_empty ? run(arg, 0) : 0;
    with[n] = run(arg, ops);
    spent += with[n++];
  }
  double seconds = timing->fastest
                       ? bench_least(with, n) - bench_least(without, n)
                       : bench_median(with, n) - bench_median(without, n);
  free(with);
  return seconds;
}

double tool_measure(double (*run)(void *arg, unsigned ops), void *arg,
                    unsigned *ops, const tool_timing *timing, int less_empty) {
  for (;;) {
    double s = tool_median_seconds(run, arg, *ops, timing, less_empty);
    if (s >= TOOL_MIN_WORK || *ops >= 1u << 24) return s;
    *ops *= 4;
  }
}

/* The plot script: installed, beside bin/ (share/weft/plot.py), or in the
 * source tree of this build. */
static const char *plot_script(void) {
  static char installed[4096 + sizeof WEFT_PLOT_SCRIPT_FROM_BIN + 1];
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    snprintf(installed, sizeof installed, "%s/%s", exe,
             WEFT_PLOT_SCRIPT_FROM_BIN);
    if (!access(installed, R_OK)) return installed;
  }
  return WEFT_PLOT_SCRIPT;
}

/* Debian's Python has matplotlib; a python3 earlier in PATH may not. */
int tool_plot(const char *cmd, const char *csv_path) {
  static const char python[] = "/usr/bin/python3";
  const char *script = plot_script();
  char *const argv[] = {(char *)python, (char *)script, (char *)csv_path,
                        NULL};
  pid_t pid;
  int status = 0;
  /* The script prints the PNG's path: after all this program printed (a
   * piped stdout is buffered, and the path came in the middle of it). */
  fflush(stdout);
  fflush(stderr);
  int rc = posix_spawn(&pid, python, NULL, NULL, argv, environ);
  if (!rc && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
      WEXITSTATUS(status) == 0)
    return 0;
  fprintf(stderr,
          "weft %s: no plot: '%s %s %s' failed (it needs "
          "matplotlib: apt-get install python3-matplotlib)\n",
          cmd, python, script, csv_path);
  return -1;
}

/* ----------------------------------------------------------------- Weft */

void tool_bench_check(int status, const void *object, const char *what) {
  if (status) exit(tool_report("bench", what, status, object));
}

/* The device --device chose (common_option sets it). */
static tool_device_choice bench_device = TOOL_DEVICE_DEFAULT;

weft_context *tool_bench_context(void) {
  static weft_context *ctx;
  if (ctx) return ctx;
  weft_device *device;
  char what[160];
  tool_describe_device(&bench_device, what, sizeof what);
  tool_bench_check(tool_find_device(&bench_device, &device), NULL, what);
  tool_bench_check(weft_context_create(device, &ctx), device, "a context");
  return ctx;
}

int tool_bench_on_gpu(void) {
  weft_device_info info;
  tool_bench_device_info(&info);
  return info.kind == WEFT_DEVICE_GPU;
}

void tool_bench_device_info(weft_device_info *info) {
  weft_device *device = weft_context_device(tool_bench_context());
  tool_bench_check(weft_device_info_get(device, info), device, "device info");
}

unsigned tool_bench_threads(void) {
  weft_device_info info;
  tool_bench_device_info(&info);
  return info.compute_units;
}

weft_program *tool_bench_build(const char *source, const char *options,
                               char **log) {
  weft_program *p;
  tool_bench_check(weft_program_create(tool_bench_context(), source, 0, &p),
                   tool_bench_context(), "creating a program");
  int rc = weft_program_build(p, options);
  if (rc == WEFT_EBUILD) {
    *log = strdup(weft_program_build_log(p));
    weft_program_release(p);
    return NULL;
  }
  tool_bench_check(rc, p, "building a benchmark kernel");
  *log = NULL;
  return p;
}

weft_kernel *tool_bench_kernel(weft_program *program, const char *name) {
  weft_kernel *k;
  tool_bench_check(weft_kernel_create(program, name, &k), program, name);
  return k;
}

weft_buffer *tool_bench_buffer(size_t bytes, const void *init) {
  weft_buffer *b;
  unsigned flags = init ? WEFT_MEM_COPY_HOST_PTR : 0;
  tool_bench_check(
      weft_buffer_create(tool_bench_context(), bytes, flags, (void *)init, &b),
      tool_bench_context(), "a buffer");
  return b;
}

void tool_bench_read(weft_buffer *b, void *out, size_t bytes) {
  tool_bench_check(weft_buffer_read(b, 0, bytes, out), b, "reading a buffer");
}

void tool_bench_arg_buffer(weft_kernel *k, int i, weft_buffer *b) {
  tool_bench_check(weft_kernel_set_arg_buffer(k, i, b), k, weft_kernel_name(k));
}

void tool_bench_arg_value(weft_kernel *k, int i, const void *v, size_t size) {
  tool_bench_check(weft_kernel_set_arg_value(k, i, v, size), k,
                   weft_kernel_name(k));
}

double tool_bench_launch(weft_kernel *k, size_t groups, size_t local) {
  size_t global = groups * local;
  double start = bench_seconds();
  tool_bench_check(weft_kernel_launch(k, 1, NULL, &global, &local), k,
                   weft_kernel_name(k));
  return bench_seconds() - start;
}

int tool_parse_count(const char *cmd, const char *name, const char *text,
                     unsigned long max, unsigned *out) {
  char *end = NULL;
  unsigned long v = 0;
  if (text && text[0] >= '0' && text[0] <= '9') {
    errno = 0;
    v = strtoul(text, &end, 10);
    if (*end || errno) v = 0;
  }
  if (v == 0 || v > max) {
    tool_usage_error(cmd, "%s '%s': expected a number from 1 to %lu", name,
                     text ? text : "", max);
    return -1;
  }
  *out = (unsigned)v;
  return 0;
}

/* The shared options that take a value, and the flags: as the
 * TOOL_OPTION_ answers of a command's own parser. */
static int common_option(const char *cmd, tool_bench_options *o,
                         const char *name, const char *value) {
  if (!strcmp(name, "--quick")) {
    o->quick = 1;
    return TOOL_OPTION_FLAG;
  }
  if (!strcmp(name, "--plot")) {
    o->plot = 1;
    return TOOL_OPTION_FLAG;
  }
  if (!strcmp(name, "--ops"))
    return tool_parse_count(cmd, name, value, 1u << 24, &o->ops);
  if (!strcmp(name, "--max-groups"))
    return tool_parse_count(cmd, name, value, 65536, &o->max_groups);
  if (!strcmp(name, "--repeat"))
    return tool_parse_count(cmd, name, value, 4096, &o->repeat);
  if (!strcmp(name, "--min-time"))
    return tool_parse_count(cmd, name, value, 60000, &o->min_ms);
  if (!strcmp(name, "--csv") && value) {
    o->csv = value;
    return TOOL_OPTION_VALUE;
  }
  if (!strcmp(name, "--device"))
    return tool_parse_device(cmd, value, &bench_device);
  return TOOL_OPTION_UNKNOWN;
}

int tool_bench_parse_options(const char *cmd, int argc, char **argv,
                             tool_bench_options *common,
                             int (*own)(void *o, const char *name,
                                        const char *value),
                             void *o) {
  bench_set_name("weft bench");
  memset(common, 0, sizeof *common);
  for (int i = 1; i < argc; i++) {
    const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) return 1;
    int rc = common_option(cmd, common, name, value);
    if (rc == TOOL_OPTION_UNKNOWN && own) rc = own(o, name, value);
    if (rc == TOOL_OPTION_UNKNOWN) {
      tool_usage_error(cmd, "'%s%s%s': unknown option or bad value", name,
                       value ? " " : "", value ? value : "");
      return -1;
    }
    if (rc < 0) return -1;
    if (rc == TOOL_OPTION_VALUE) i++;
  }
  if (common->plot && !common->csv) {
    tool_usage_error(cmd, "--plot draws the --csv file: give --csv PATH");
    return -1;
  }
  if (!common->ops) common->ops = common->quick ? 200 : 1000;
  if (!common->repeat) common->repeat = common->quick ? 3 : 5;
  if (!common->min_ms) common->min_ms = common->quick ? 5 : 20;
  return 0;
}

void tool_add_sorted(unsigned *v, int *n, int cap, unsigned g) {
  int i = 0;
  while (i < *n && v[i] < g) i++;
  if ((i < *n && v[i] == g) || *n == cap) return;
  memmove(&v[i + 1], &v[i], (size_t)(*n - i) * sizeof *v);
  v[i] = g;
  (*n)++;
}
