/*
 * run.h: the steps of `weft run` shared by run.c (build and launch),
 * run_args.c (specs against the kernel's arguments) and run_output.c
 * (printing and saving buffers).
 */
#ifndef WEFT_TOOL_RUN_H
#define WEFT_TOOL_RUN_H

#include "run_options.h"
#include "weft/weft.h"

typedef struct run_state {
  const run_options *opt;
  weft_context *context;
  weft_program *program;
  weft_kernel *kernel;
  weft_buffer **buffers; /* one per argument, NULL where not a buffer */
} run_state;

/* Checks the specs and --out indexes against the kernel's arguments,
 * reporting every mismatch; 0, or an exit status. */
int run_args_check(run_state *run);

/* Creates and fills the buffers and sets every argument; 0, or an exit
 * status after reporting. Again after run_args_release: fresh buffers. */
int run_args_set(run_state *run);
void run_args_release(run_state *run);

/* Launches the kernel once, as the options say; *ms its wall time. 0, or
 * an exit status after reporting the failure (run.c). */
int run_launch(run_state *run, double *ms);

/* Before anything starts Weft: the schedule --seeds (random-deep) or
 * --explore (exhaustive) uses when WEFT_SCHEDULE is unset (run_sweep.c). */
void run_schedule_default(const run_options *opt);

/* --seeds (run_sweep.c): one launch per seed with the expectations
 * checked, stopping at the first seed that fails, which is printed with
 * the command that replays it; an exit status when the schedule Weft read
 * takes no seed. 0, or an exit status. */
int run_sweep(run_state *run);

/* --explore (run_sweep.c): one launch per interleaving until every one
 * has run or one fails, which is printed with the WEFT_SCHEDULE value that
 * replays it; an exit status when the schedule Weft read is not
 * exhaustive. 0, or an exit status. */
int run_explore(run_state *run);

/* --expect (run_expect_check.c): names to indexes, checked against the
 * kernel: each must be a buffer of scalars holding INDEX. 0, or an exit
 * status after reporting. */
int run_expect_resolve(run_state *run);

/* The number of expectations the buffers break now, each printed to
 * stderr with the value found; -1 after a failure to read a buffer. */
int run_expect_check(run_state *run);

/* Prints the first --print elements of every buffer argument, then writes
 * the --out files; 0, or an exit status after reporting. */
int run_show_results(run_state *run);

#endif /* WEFT_TOOL_RUN_H */
