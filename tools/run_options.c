/* run_options.c: parsing the command line of `weft run`. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_options.h"
#include "tool.h"

/* The options that take a value, as "--name VALUE" or "--name=VALUE". */
static const char *const valued[] = {"--kernel", "--global", "--local",
                                     "--offset", "--options", "--device",
                                     "--print", "--out", "--arg",
                                     "--expect", "--seeds", "--shard"};

/* Reads a decimal number that fits in a size_t; 0 or -1. */
static int parse_size(const char *text, size_t length, size_t *out) {
  char copy[32];
  if (length == 0 || length >= sizeof copy || text[0] < '0' || text[0] > '9')
    return -1;
  memcpy(copy, text, length);
  copy[length] = 0;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(copy, &end, 10);
  if (*end || errno || v > SIZE_MAX) return -1;
  *out = (size_t)v;
  return 0;
}

/* Reads "X[,Y[,Z]]"; min is the smallest allowed component. */
static int parse_sizes(const char *option, const char *text, size_t min,
                       size_t sizes[3], unsigned *dims) {
  unsigned n = 0;
  const char *p = text;
  for (;;) {
    size_t length = strcspn(p, ",");
    if (n == 3 || parse_size(p, length, &sizes[n]) || sizes[n] < min) {
      tool_usage_error("run", "%s '%s': expected 1 to 3 %s numbers "
                       "separated by commas", option, text,
                       min ? "positive" : "non-negative");
      return -1;
    }
    n++;
    if (!p[length]) break;
    p += length + 1;
  }
  *dims = n;
  return 0;
}

static int parse_print(const char *text, size_t *print) {
  if (!strcmp(text, "all")) {
    *print = SIZE_MAX;
    return 0;
  }
  if (!parse_size(text, strlen(text), print)) return 0;
  tool_usage_error("run", "--print '%s': expected a count or 'all'", text);
  return -1;
}

/* "--out INDEX=PATH" */
static int parse_output(const char *text, run_output *out) {
  size_t length = strcspn(text, "=");
  size_t index;
  if (text[length] != '=' || !text[length + 1] ||
      parse_size(text, length, &index) || index > INT32_MAX) {
    tool_usage_error("run", "--out '%s': expected INDEX=PATH, e.g. "
                     "--out 2=result.bin", text);
    return -1;
  }
  out->index = (int)index;
  out->path = text + length + 1;
  return 0;
}

/* "--seeds A..B" or "--seeds N" */
static int parse_seeds(const char *text, run_options *opt) {
  const char *dots = strstr(text, "..");
  size_t first = dots ? (size_t)(dots - text) : strlen(text);
  size_t a, b;
  if (parse_size(text, first, &a) ||
      (dots ? parse_size(dots + 2, strlen(dots + 2), &b) : (b = a, 0)) ||
      b < a) {
    tool_usage_error("run", "--seeds '%s': expected A..B (A <= B) or one "
                     "seed N, e.g. --seeds 1..100", text);
    return -1;
  }
  opt->has_seeds = 1;
  opt->seed_first = a;
  opt->seed_last = b;
  return 0;
}

/* "--shard I/N": the I-th of N shares of the seeds, I from 0. */
static int parse_shard(const char *text, run_options *opt) {
  size_t slash = strcspn(text, "/");
  size_t i, n;
  if (!text[slash] || parse_size(text, slash, &i) ||
      parse_size(text + slash + 1, strlen(text + slash + 1), &n) || n == 0 ||
      i >= n || n > UINT32_MAX) {
    tool_usage_error("run", "--shard '%s': expected I/N with 0 <= I < N, "
                     "e.g. --shard 0/4", text);
    return -1;
  }
  opt->shard = (unsigned)i;
  opt->shards = (unsigned)n;
  return 0;
}

static int parse_expect(const char *text, run_expect *e) {
  char err[256];
  if (!run_expect_parse(text, e, err, sizeof err)) return 0;
  tool_usage_error("run", "--expect '%s': %s", text, err);
  return -1;
}

static int parse_arg(const char *text, arg_spec *spec, int index) {
  char err[256];
  if (!arg_spec_parse(text, spec, err, sizeof err)) return 0;
  tool_usage_error("run", "--arg '%s' (argument %d): %s", text, index, err);
  return -1;
}

/* Applies one option that takes a value; 0 or -1 after reporting. */
static int apply(run_options *opt, const char *name, const char *value) {
  if (!strcmp(name, "--kernel")) {
    opt->kernel = value;
  } else if (!strcmp(name, "--options")) {
    opt->build_options = value;
  } else if (!strcmp(name, "--device")) {
    return tool_parse_device("run", value, &opt->device);
  } else if (!strcmp(name, "--print")) {
    return parse_print(value, &opt->print);
  } else if (!strcmp(name, "--global")) {
    return parse_sizes(name, value, 1, opt->global, &opt->dims);
  } else if (!strcmp(name, "--local")) {
    opt->has_local = 1;
    return parse_sizes(name, value, 1, opt->local, &opt->local_dims);
  } else if (!strcmp(name, "--offset")) {
    opt->has_offset = 1;
    return parse_sizes(name, value, 0, opt->offset, &opt->offset_dims);
  } else if (!strcmp(name, "--out")) {
    return parse_output(value, &opt->outputs[opt->num_outputs++]);
  } else if (!strcmp(name, "--expect")) {
    return parse_expect(value, &opt->expects[opt->num_expects++]);
  } else if (!strcmp(name, "--seeds")) {
    return parse_seeds(value, opt);
  } else if (!strcmp(name, "--shard")) {
    return parse_shard(value, opt);
  } else {
    int index = opt->num_args++;
    return parse_arg(value, &opt->args[index], index);
  }
  return 0;
}

static int is_valued(const char *name) {
  for (size_t i = 0; i < sizeof valued / sizeof *valued; i++)
    if (!strcmp(name, valued[i])) return 1;
  return 0;
}

/* Handles argv[*i], moving *i past a separate value; 0 or -1. */
static int parse_one(run_options *opt, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
    opt->help = 1;
  } else if (!strcmp(arg, "--time")) {
    opt->time = 1;
  } else if (!strcmp(arg, "--explore")) {
    opt->explore = 1;
  } else if (arg[0] == '-' && arg[1]) {
    char name[16];
    size_t length = strcspn(arg, "=");
    snprintf(name, sizeof name, "%.*s", (int)length, arg);
    if (length >= sizeof name || !is_valued(name)) {
      tool_usage_error("run", "unknown option '%s'", arg);
      return -1;
    }
    if (!arg[length] && *i + 1 == argc) {
      tool_usage_error("run", "%s needs a value", name);
      return -1;
    }
    return apply(opt, name, arg[length] ? arg + length + 1 : argv[++*i]);
  } else if (opt->file) {
    tool_usage_error("run", "one FILE only, but got '%s' and '%s'", opt->file,
                     arg);
    return -1;
  } else {
    opt->file = arg;
  }
  return 0;
}

/* What must hold once every option is read. */
static int check(const run_options *opt) {
  const char *problem = NULL;
  if (!opt->file) problem = "no FILE.cl given";
  else if (!opt->dims) problem = "--global X[,Y[,Z]] is required";
  else if (opt->has_local && opt->local_dims != opt->dims)
    problem = "--local must have as many components as --global";
  else if (opt->has_offset && opt->offset_dims != opt->dims)
    problem = "--offset must have as many components as --global";
  else if (opt->shards && !opt->has_seeds)
    problem = "--shard shares out the seeds of --seeds A..B: give --seeds";
  else if (opt->explore && opt->has_seeds)
    problem = "--explore runs every interleaving, --seeds some: give one";
  if (problem) tool_usage_error("run", "%s", problem);
  return problem ? -1 : 0;
}

int run_options_parse(int argc, char **argv, run_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->device = TOOL_DEVICE_DEFAULT;
  opt->print = 16;
  opt->shards = 0;
  opt->argc = argc;
  opt->argv = argv;
  /* No option appears more often than there are words to hold it. */
  opt->args = calloc((size_t)argc, sizeof *opt->args);
  opt->outputs = calloc((size_t)argc, sizeof *opt->outputs);
  opt->expects = calloc((size_t)argc, sizeof *opt->expects);
  if (!opt->args || !opt->outputs || !opt->expects) {
    tool_error("run", "out of memory");
    return TOOL_EXIT_FAILED;
  }
  for (int i = 1; i < argc && !opt->help; i++)
    if (parse_one(opt, argc, argv, &i)) return TOOL_EXIT_USAGE;
  if (!opt->help && check(opt)) return TOOL_EXIT_USAGE;
  return 0;
}

void run_options_free(run_options *opt) {
  free(opt->args);
  free(opt->outputs);
  free(opt->expects);
  opt->args = NULL;
  opt->outputs = NULL;
  opt->expects = NULL;
}
