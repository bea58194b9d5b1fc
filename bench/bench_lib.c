/* bench_lib.c: the clock, medians, CSV and messages every benchmark
 * shares (see bench_lib.h). */
#include "bench_lib.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double *sorted_copy(const double *v, int n) {
  double *sorted = malloc((size_t)n * sizeof *sorted);
  if (!sorted) bench_die("out of memory");
  memcpy(sorted, v, (size_t)n * sizeof *sorted);
  qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
  return sorted;
}

double bench_median(const double *v, int n) {
  double *sorted = sorted_copy(v, n);
  double m = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  free(sorted);
  return m;
}

double bench_percentile(const double *v, int n, double p) {
  double *sorted = sorted_copy(v, n);
  int rank = (int)(p / 100.0 * n + 0.5) - 1; /* nearest rank */
  double x = sorted[rank < 0 ? 0 : rank >= n ? n - 1 : rank];
  free(sorted);
  return x;
}

double bench_least(const double *v, int n) {
  double least = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] < least) least = v[i];
  return least;
}

/* ------------------------------------------------------------ messages */

static const char *name;

void bench_set_name(const char *n) { name = n; }

static void say(const char *fmt, va_list ap) {
  fprintf(stderr, "%s: ", name ? name : program_invocation_short_name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void bench_note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say(fmt, ap);
  va_end(ap);
}

void bench_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  say(fmt, ap);
  va_end(ap);
  exit(1);
}

/* ------------------------------------------------------------------ CSV */

static FILE *csv_file;
static int csv_echo;

void bench_csv_open(const char *path, const char *header, int echo) {
  csv_echo = echo;
  if (path && !(csv_file = fopen(path, "w")))
    bench_die("cannot create '%s': %s", path, strerror(errno));
  bench_csv_line("%s", header);
}

void bench_csv_line(const char *fmt, ...) {
  va_list ap;
  if (csv_echo) {
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
  }
  if (!csv_file) return;
  va_start(ap, fmt);
  vfprintf(csv_file, fmt, ap);
  va_end(ap);
  fputc('\n', csv_file);
  fflush(csv_file);
}

void bench_csv_close(void) {
  if (csv_file && fclose(csv_file))
    bench_die("cannot finish the CSV file: %s", strerror(errno));
  csv_file = NULL;
  csv_echo = 0;
}
