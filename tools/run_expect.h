/*
 * run_expect.h: `weft run --expect 'ARG[INDEX] OP VALUE'`, an oracle on a
 * buffer's element after the launch (ARG an argument's index or name; OP
 * one of == != <= >= < >), parsed with the command line (run_expect.c);
 * resolved and checked against a run by run_expect_check.c (run.h).
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

/* Parses one --expect; 0, or -1 with the reason in err. */
int run_expect_parse(const char *text, run_expect *e, char *err, size_t size);

/* OP as written ("<="). */
const char *run_expect_op_text(run_expect_op op);

#endif /* WEFT_TOOL_RUN_EXPECT_H */
