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
 * status after reporting. */
int run_args_set(run_state *run);

/* Prints the first --print elements of every buffer argument, then writes
 * the --out files; 0, or an exit status after reporting. */
int run_show_results(run_state *run);

#endif /* WEFT_TOOL_RUN_H */
