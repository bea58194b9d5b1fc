/*
 * run_expect.h: `weft run --expect 'ARG[INDEX] OP VALUE'`, an oracle on a
 * buffer's element after the launch (ARG an argument's index or name; OP
 * one of == != <= >= < >). Parsed with the command line, resolved against
 * the kernel's arguments once it is built, checked after each launch.
 */
#ifndef WEFT_TOOL_RUN_EXPECT_H
#define WEFT_TOOL_RUN_EXPECT_H

#include <stddef.h>

typedef enum run_expect_op {
  EXPECT_EQ, EXPECT_NE, EXPECT_LE, EXPECT_GE, EXPECT_LT, EXPECT_GT
} run_expect_op;

typedef struct run_expect {
  const char *text;     /* as written, for messages */
  const char *name;     /* ARG when a name (points into text), else NULL */
  size_t name_length;
  int arg;              /* ARG's index (resolved from name) */
  size_t element;       /* INDEX */
  run_expect_op op;
  long double value;    /* exact for every OpenCL scalar on x86-64 */
} run_expect;

struct run_state;

/* Parses one --expect; 0, or -1 with the reason in err. */
int run_expect_parse(const char *text, run_expect *e, char *err, size_t size);

/* Names to indexes, checked against the kernel: each must be a buffer of
 * scalars holding INDEX. 0, or an exit status after reporting. */
int run_expect_resolve(struct run_state *run);

/* The number of expectations the buffers break now, each printed to
 * stderr with the value found; -1 after a failure to read a buffer. */
int run_expect_check(struct run_state *run);

#endif /* WEFT_TOOL_RUN_EXPECT_H */
