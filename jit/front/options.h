/*
 * options.h: OpenCL build options ("-cl-std=CL3.0 -DN=4 -I dir") turned into
 * Clang cc1 arguments and the few settings the JIT itself acts on.
 */
#ifndef WEFT_JIT_OPTIONS_H
#define WEFT_JIT_OPTIONS_H

typedef struct weft_build_options {
  char **args;        /* cc1 arguments for the user's options */
  int num_args;
  int cl_version;     /* 100 * major + 10 * minor: 120, 300 */
  int optimize;       /* 0 under -cl-opt-disable */
  int debug;          /* -g: full debug information */
  unsigned check;     /* -cl-weft-check=...: WEFT_CHECK_* (kernel_abi.h) */
  int assertions;     /* -cl-weft-assert: weft_assert checks */
  int no_aggregate;   /* -cl-weft-no-aggregate: each atomic its own */
  int no_jam;         /* -cl-weft-no-jam: the CPU's work-items one by one */
  int no_stream;      /* -cl-weft-no-stream: the CPU's stores all plain */
} weft_build_options;

/* Defines __WEFT_ASSERT__ for the kernel header (weft_assert's checks) in
 * o's compiler arguments: 0, or WEFT_ENOMEM. */
int weft__options_define_assert(weft_build_options *o);

/* Parses options (NULL or "" gives the defaults). On an unknown or
 * malformed option returns WEFT_EOPTION and a malloc'd message in *error. */
int weft__options_parse(const char *options, weft_build_options *out,
                        char **error);
void weft__options_free(weft_build_options *options);

#endif
