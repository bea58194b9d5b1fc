/*
 * run_options.h: the command line of `weft run`, parsed and checked on its
 * own, before anything is built (the grammar is in weft.c's help text).
 */
#ifndef WEFT_TOOL_RUN_OPTIONS_H
#define WEFT_TOOL_RUN_OPTIONS_H

#include <stddef.h>

#include "arg_spec.h"
#include "device_choice.h"
#include "run_expect.h"

/* --out INDEX=PATH */
typedef struct run_output {
  int index;
  const char *path;
} run_output;

typedef struct run_options {
  int help;                  /* --help: print the usage and stop */
  const char *file;
  const char *kernel;        /* NULL: the program's only kernel */
  const char *build_options; /* NULL: none */
  tool_device_choice device; /* --device (TOOL_DEVICE_DEFAULT) */
  unsigned dims;             /* components of --global */
  size_t global[3];
  size_t local[3];
  size_t offset[3];
  int has_local;
  int has_offset;
  unsigned local_dims;       /* components of --local and --offset, which */
  unsigned offset_dims;      /* must match those of --global */
  size_t print;              /* elements printed per buffer; SIZE_MAX: all */
  int time;                  /* --time */
  int num_args;
  arg_spec *args;
  int num_outputs;
  run_output *outputs;
  int num_expects;           /* --expect, checked after each launch */
  run_expect *expects;
  int has_seeds;             /* --seeds A..B: one launch per seed */
  unsigned long long seed_first, seed_last;
  unsigned shard, shards;    /* --shard I/N: seeds first+I, +N, ... */
  int explore;               /* --explore: every interleaving in turn */
  int argc;                  /* the command line, for the replay */
  char **argv;
} run_options;

/* Parses argv (argv[0] is "run") into opt. Returns 0, or an exit status
 * after printing why the command line is wrong. opt points into argv and
 * must be freed with run_options_free either way. */
int run_options_parse(int argc, char **argv, run_options *opt);
void run_options_free(run_options *opt);

#endif /* WEFT_TOOL_RUN_OPTIONS_H */
