/* run_expect_check.c: --expect against a run (run.h): resolved against
 * the kernel's arguments once it is built, checked after each launch. */
#include <stdio.h>
#include <string.h>

#include "run.h"
#include "tool.h"

/* The argument named, or -1. */
static int find_arg(weft_kernel *kernel, int count, const run_expect *e) {
  for (int i = 0; i < count; i++) {
    weft_arg_info info;
    if (!weft_kernel_arg_info(kernel, i, &info) &&
        strlen(info.name) == e->name_length &&
        !strncmp(info.name, e->name, e->name_length))
      return i;
  }
  return -1;
}

/* One expectation against the kernel and the specs; 0, or -1 after a
 * usage error. */
static int resolve_one(run_state *run, run_expect *e) {
  const run_options *opt = run->opt;
  int count = weft_kernel_arg_count(run->kernel);
  if (e->name) e->arg = find_arg(run->kernel, count, e);
  const char *problem = NULL;
  char why[160];
  if (e->arg < 0 || e->arg >= count) {
    problem = "names no argument of the kernel";
  } else if (opt->args[e->arg].kind != ARG_SPEC_BUFFER) {
    problem = "names an argument that is not a buffer";
  } else if (opt->args[e->arg].type.width != 1) {
    problem = "names a buffer of vectors: give the kernel a scalar view";
  } else if (e->element >= opt->args[e->arg].count) {
    snprintf(why, sizeof why, "is past the buffer's end (%zu elements)",
             opt->args[e->arg].count);
    problem = why;
  }
  if (!problem) return 0;
  tool_usage_error("run", "--expect '%s' %s", e->text, problem);
  return -1;
}

int run_expect_resolve(run_state *run) {
  int bad = 0;
  for (int i = 0; i < run->opt->num_expects; i++)
    bad |= resolve_one(run, &run->opt->expects[i]);
  return bad ? TOOL_EXIT_USAGE : 0;
}

/* Element i of a buffer of scalar, as a long double (exact). */
static long double element_value(cltype_scalar scalar, const void *data,
                                 size_t i) {
  switch (scalar) {
  case CLTYPE_CHAR: return ((const signed char *)data)[i];
  case CLTYPE_UCHAR: return ((const unsigned char *)data)[i];
  case CLTYPE_SHORT: return ((const short *)data)[i];
  case CLTYPE_USHORT: return ((const unsigned short *)data)[i];
  case CLTYPE_INT: return ((const int *)data)[i];
  case CLTYPE_UINT: return ((const unsigned *)data)[i];
  case CLTYPE_LONG: return ((const long long *)data)[i];
  case CLTYPE_ULONG: return ((const unsigned long long *)data)[i];
  case CLTYPE_FLOAT: return ((const float *)data)[i];
  case CLTYPE_DOUBLE: return ((const double *)data)[i];
  }
  return 0;
}

static int holds(run_expect_op op, long double a, long double b) {
  switch (op) {
  case EXPECT_EQ: return a == b;
  case EXPECT_NE: return a != b;
  case EXPECT_LE: return a <= b;
  case EXPECT_GE: return a >= b;
  case EXPECT_LT: return a < b;
  case EXPECT_GT: return a > b;
  }
  return 0;
}

/* 1 when e is broken (and says so), 0 when it holds, -1 on failure. */
static int check_one(run_state *run, const run_expect *e) {
  const arg_spec *spec = &run->opt->args[e->arg];
  size_t size = cltype_size(spec->type);
  unsigned char bytes[CLTYPE_MAX_SIZE];
  int rc = weft_buffer_read(run->buffers[e->arg], e->element * size, size,
                            bytes);
  if (rc) {
    tool_report("run", "reading a buffer to check --expect", rc,
                run->buffers[e->arg]);
    return -1;
  }
  if (holds(e->op, element_value(spec->type.scalar, bytes, 0), e->value))
    return 0;
  fprintf(stderr, "weft run: expectation '%s' broken: element %zu of "
          "argument %d is ", e->text, e->element, e->arg);
  cltype_print(spec->type, bytes, stderr);
  fprintf(stderr, ", not %s %Lg\n", run_expect_op_text(e->op), e->value);
  return 1;
}

int run_expect_check(run_state *run) {
  int broken = 0;
  for (int i = 0; i < run->opt->num_expects; i++) {
    int rc = check_one(run, &run->opt->expects[i]);
    if (rc < 0) return -1;
    broken += rc;
  }
  return broken;
}
