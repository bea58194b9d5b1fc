/*
 * tool.h: what the files of the `weft` command line share: the subcommands
 * and the way they report failures.
 *
 * Exit codes: 0 success, 1 the work failed (a build error, a failing Weft
 * call, a file that cannot be read or written), 2 the command line is wrong
 * (an unknown option, a malformed spec, specs that do not fit the kernel).
 */
#ifndef WEFT_TOOL_H
#define WEFT_TOOL_H

#include <stdio.h>

#define TOOL_EXIT_OK 0
#define TOOL_EXIT_FAILED 1
#define TOOL_EXIT_USAGE 2

/* The subcommands: argv[0] is the subcommand's name. */
int tool_info(int argc, char **argv);
int tool_run(int argc, char **argv);
int tool_bench(int argc, char **argv);
int tool_ptx(int argc, char **argv);
/* The benchmarks under `weft bench`: argv[0] is "sync" or "probe". */
int tool_bench_sync(int argc, char **argv);
int tool_bench_probe(int argc, char **argv);

/* The whole file at path, NUL-terminated (malloc'd); NULL with errno set
 * (read_file.c). */
char *tool_read_file(const char *path);

/* help.c: the whole help (the commands, run's grammar, the exit status
 * and the environment); one command's ("run", "info", "ptx", "bench",
 * "help"), 0 or -1 for no such command; "weft VERSION (...)". */
void tool_print_usage(FILE *out);
int tool_print_help(const char *command, FILE *out);
void tool_print_version(FILE *out);

/* Prints "weft CMD: WHAT: <weft_strerror(rc)>: <weft_errmsg(object)>" to
 * stderr, leaving out the last part when the object has no message, and
 * returns TOOL_EXIT_FAILED for the caller to return in turn. */
int tool_report(const char *cmd, const char *what, int rc,
                const void *object);

/* Prints "weft CMD: MESSAGE" and a hint to run --help, for usage errors. */
void tool_usage_error(const char *cmd, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints "weft CMD: MESSAGE" to stderr. */
void tool_error(const char *cmd, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* WEFT_TOOL_H */
