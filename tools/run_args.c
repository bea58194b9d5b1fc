/* run_args.c: kernel-argument specs against the kernel's arguments, then
 * the buffers and values that set them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "tool.h"

/* "__global float *c" or "int n": an argument as its declaration reads. */
static void describe(const weft_arg_info *info, char *out, size_t size) {
  static const char *const spaces[] = {"", "__global ", "__constant ",
                                       "__local "};
  const char *type = info->type_name;
  size_t length = strlen(type);
  if (length && type[length - 1] == '*')
    snprintf(out, size, "%s%.*s *%s", spaces[info->address_space],
             (int)length - 1, type, info->name);
  else
    snprintf(out, size, "%s %s", type, info->name);
}

/* "saxpy(float a, __global float *x)": the kernel's whole signature. */
static void print_signature(weft_kernel *kernel, int count, FILE *out) {
  fprintf(out, "%s(", weft_kernel_name(kernel));
  for (int i = 0; i < count; i++) {
    weft_arg_info info;
    char text[256];
    if (weft_kernel_arg_info(kernel, i, &info)) continue;
    describe(&info, text, sizeof text);
    fprintf(out, "%s%s", i ? ", " : "", text);
  }
  fprintf(out, ")\n");
}

/* The spec form that fits the argument, for a hint: "float[N]". */
static void suggest(const weft_arg_info *info, char *out, size_t size) {
  size_t length = strcspn(info->type_name, "*");
  cltype type;
  int known = !cltype_parse(info->type_name, length, &type);
  if (info->kind == WEFT_ARG_LOCAL)
    snprintf(out, size, "local[BYTES]");
  else if (info->kind == WEFT_ARG_BUFFER && known)
    snprintf(out, size, "%.*s[N]", (int)length, info->type_name);
  else if (info->kind == WEFT_ARG_BUFFER)
    snprintf(out, size, "TYPE[N]");
  else
    snprintf(out, size, "%s=VALUE", known ? info->type_name : "TYPE");
}

static int kind_matches(weft_arg_kind kind, arg_spec_kind spec) {
  return (kind == WEFT_ARG_BUFFER && spec == ARG_SPEC_BUFFER) ||
         (kind == WEFT_ARG_LOCAL && spec == ARG_SPEC_LOCAL) ||
         (kind == WEFT_ARG_VALUE && spec == ARG_SPEC_VALUE);
}

/* What the spec gives, where it does not fit the argument, else NULL. A
 * by-value argument of a type the specs know must get the same kind of
 * number: a float's bits in an int argument are never what was meant. */
static const char *mismatch(const weft_arg_info *info, const arg_spec *spec,
                            char *out, size_t size) {
  static const char *const spec_kinds[] = {"a value", "a buffer",
                                           "local memory"};
  cltype type;
  if (!kind_matches(info->kind, spec->kind)) return spec_kinds[spec->kind];
  if (info->kind != WEFT_ARG_VALUE) return NULL;
  if (info->size != spec->bytes) {
    snprintf(out, size, "a value of %zu bytes", spec->bytes);
    return out;
  }
  if (cltype_parse(info->type_name, strlen(info->type_name), &type))
    return NULL;
  if (cltype_is_float(type.scalar) != cltype_is_float(spec->type.scalar))
    return cltype_is_float(spec->type.scalar) ? "a floating-point value"
                                              : "an integer value";
  if (type.width != spec->type.width) return "a vector of another width";
  return NULL;
}

/* A buffer of other elements than the kernel's pointer type may be meant
 * (reading floats as bytes), so it is only a warning. */
static void warn_elements(int index, const weft_arg_info *info,
                          const arg_spec *spec) {
  size_t length = strcspn(info->type_name, "*");
  cltype type;
  if (cltype_parse(info->type_name, length, &type) ||
      (type.scalar == spec->type.scalar && type.width == spec->type.width))
    return;
  char text[256], given[CLTYPE_NAME_MAX];
  describe(info, text, sizeof text);
  cltype_name(spec->type, given, sizeof given);
  tool_error("run", "warning: argument %d ('%s') points to %.*s, but '--arg "
             "%s' gives %s elements", index, text, (int)length,
             info->type_name, spec->text, given);
}

/* Checks one spec against its argument; 0, or -1 after reporting. */
static int check_one(weft_kernel *kernel, int index, const arg_spec *spec) {
  weft_arg_info info;
  char text[256], hint[64], given[64], kind[64];
  int rc = weft_kernel_arg_info(kernel, index, &info);
  if (rc) {
    tool_report("run", "reading the kernel's arguments", rc, kernel);
    return -1;
  }
  const char *problem = mismatch(&info, spec, given, sizeof given);
  if (!problem && info.kind == WEFT_ARG_BUFFER)
    warn_elements(index, &info, spec);
  if (!problem) return 0;
  describe(&info, text, sizeof text);
  suggest(&info, hint, sizeof hint);
  if (info.kind == WEFT_ARG_VALUE)
    snprintf(kind, sizeof kind, "a value of %zu bytes", info.size);
  else
    snprintf(kind, sizeof kind, "%s", info.kind == WEFT_ARG_BUFFER
                                          ? "a buffer" : "a __local pointer");
  tool_error("run", "argument %d ('%s') is %s, but '--arg %s' gives %s; "
             "write --arg %s", index, text, kind, spec->text, problem, hint);
  return -1;
}

/* --out must name a buffer argument. */
static int check_output(weft_kernel *kernel, int count, const run_output *o) {
  weft_arg_info info;
  if (o->index < count && !weft_kernel_arg_info(kernel, o->index, &info) &&
      info.kind == WEFT_ARG_BUFFER)
    return 0;
  tool_usage_error("run", "--out %d=%s: argument %d is not a buffer "
                   "argument of kernel '%s'", o->index, o->path, o->index,
                   weft_kernel_name(kernel));
  return -1;
}

int run_args_check(run_state *run) {
  const run_options *opt = run->opt;
  int count = weft_kernel_arg_count(run->kernel);
  if (count < 0) {
    tool_report("run", "counting the kernel's arguments", count, run->kernel);
    return TOOL_EXIT_FAILED;
  }
  if (count != opt->num_args) {
    tool_error("run", "kernel '%s' takes %d argument%s, but %d --arg "
               "option%s given; one --arg per argument, in order:",
               weft_kernel_name(run->kernel), count, count == 1 ? "" : "s",
               opt->num_args, opt->num_args == 1 ? " was" : "s were");
    fputs("  ", stderr);
    print_signature(run->kernel, count, stderr);
    return TOOL_EXIT_USAGE;
  }
  int bad = 0;
  for (int i = 0; i < count; i++)
    bad |= check_one(run->kernel, i, &opt->args[i]);
  for (int i = 0; i < opt->num_outputs; i++)
    bad |= check_output(run->kernel, count, &opt->outputs[i]);
  return bad ? TOOL_EXIT_USAGE : 0;
}

/* Creates argument index's buffer, filled as its spec says. */
static int make_buffer(run_state *run, int index) {
  const arg_spec *spec = &run->opt->args[index];
  char what[128], err[512];
  void *data;
  snprintf(what, sizeof what, "creating a %zu-byte buffer for argument %d",
           spec->bytes, index);
  unsigned flags = spec->init == ARG_INIT_UNDEFINED ? WEFT_MEM_UNDEFINED : 0;
  int rc = weft_buffer_create(run->context, spec->bytes, flags, NULL,
                              &run->buffers[index]);
  if (rc) {
    tool_report("run", what, rc, run->context);
    return TOOL_EXIT_FAILED;
  }
  weft_buffer *buffer = run->buffers[index];
  /* New buffers are zero-filled. */
  if (spec->init == ARG_INIT_ZERO || spec->init == ARG_INIT_UNDEFINED) return 0;
  rc = weft_buffer_map(buffer, 0, spec->bytes, WEFT_MAP_WRITE, &data);
  if (rc) {
    tool_report("run", "mapping a buffer to fill it", rc, buffer);
    return TOOL_EXIT_FAILED;
  }
  int filled = arg_spec_fill(spec, index, data, err, sizeof err);
  rc = weft_buffer_unmap(buffer, data);
  if (filled) {
    tool_error("run", "--arg '%s': %s", spec->text, err);
    return TOOL_EXIT_FAILED;
  }
  if (rc) tool_report("run", "unmapping a buffer", rc, buffer);
  return rc ? TOOL_EXIT_FAILED : 0;
}

static int set_one(run_state *run, int index) {
  const arg_spec *spec = &run->opt->args[index];
  int rc = 0;
  if (spec->kind == ARG_SPEC_BUFFER) {
    rc = make_buffer(run, index);
    if (rc) return rc;
    rc = weft_kernel_set_arg_buffer(run->kernel, index, run->buffers[index]);
  } else if (spec->kind == ARG_SPEC_LOCAL) {
    rc = weft_kernel_set_arg_local(run->kernel, index, spec->bytes);
  } else {
    rc = weft_kernel_set_arg_value(run->kernel, index, spec->value,
                                   spec->bytes);
  }
  if (!rc) return 0;
  char what[64];
  snprintf(what, sizeof what, "setting argument %d", index);
  tool_report("run", what, rc, run->kernel);
  return TOOL_EXIT_FAILED;
}

void run_args_release(run_state *run) {
  for (int i = 0; run->buffers && i < run->opt->num_args; i++)
    weft_buffer_release(run->buffers[i]);
  free(run->buffers);
  run->buffers = NULL;
}

int run_args_set(run_state *run) {
  int count = run->opt->num_args;
  run->buffers = calloc(count ? (size_t)count : 1, sizeof *run->buffers);
  if (!run->buffers) {
    tool_error("run", "out of memory");
    return TOOL_EXIT_FAILED;
  }
  for (int i = 0; i < count; i++) {
    int rc = set_one(run, i);
    if (rc) return rc;
  }
  return 0;
}
