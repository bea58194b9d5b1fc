/*
 * bench_lib.h: what every benchmark shares, the programs of bench/ and
 * `weft bench` alike: the clock, medians, CSV output as it is measured,
 * and progress notes and fatal errors on stderr, under the program's name.
 *
 * A failure stops the program with a message: a benchmark that goes on
 * after an error would time doing nothing.
 */
#ifndef WEFT_BENCH_LIB_H
#define WEFT_BENCH_LIB_H

/* Seconds on the monotonic clock. */
double bench_seconds(void);

/* The median of n values (n > 0), and the least; v is left as it was. */
double bench_median(const double *v, int n);
double bench_least(const double *v, int n);
/* The p-th percentile of v[0..n) (nearest rank; p from 0 to 100). */
double bench_percentile(const double *v, int n, double p);

/* The name notes and errors start with ("weft bench"); by default the
 * program's own. */
void bench_set_name(const char *name);

/* A progress line on stderr: stdout holds only results. */
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A message on stderr, then exit status 1. */
_Noreturn void bench_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Opens the CSV, whose first line is header: the file path unless it is
 * NULL, and stdout too with echo. A file that cannot be created stops the
 * program. */
void bench_csv_open(const char *path, const char *header, int echo);

/* Writes one line (without its newline) where the CSV goes, at once: a
 * long run shows its progress, and a failure half-way keeps what was
 * measured. Nothing before the CSV is opened. */
void bench_csv_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Closes the file; one that cannot be finished stops the program. */
void bench_csv_close(void);

#endif
