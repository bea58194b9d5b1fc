/* run.c: `weft run`: build a file, set the arguments from their specs,
 * launch the kernel once and show the buffers (or, with --seeds, once per
 * seed: run_sweep.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run.h"
#include "tool.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Weft names every source "program.cl" in its build log; the user knows
 * the file by the path they gave, so diagnostics are printed with that. A
 * #line directive cannot do it: the log ignores them. */
static void print_naming_file(const char *text, const char *path) {
  static const char name[] = "program.cl:";
  const size_t length = sizeof name - 1;
  for (const char *p; (p = strstr(text, name)); text = p + length) {
    fwrite(text, 1, (size_t)(p - text), stderr);
    if (isdigit((unsigned char)p[length]))
      fprintf(stderr, "%s:", path);
    else
      fputs(name, stderr);
  }
  fputs(text, stderr);
}

/* Creates the context and the program and builds it; prints the build log
 * (warnings on success, errors on failure). */
static int build(run_state *run, double *ms) {
  const run_options *opt = run->opt;
  weft_device *device;
  char what[128];
  tool_describe_device(&opt->device, what, sizeof what);
  int rc = tool_find_device(&opt->device, &device);
  if (rc) return tool_report("run", what, rc, NULL);
  rc = weft_context_create(device, &run->context);
  if (rc) return tool_report("run", "creating a context", rc, device);
  char *source = tool_read_file(opt->file);
  if (!source) {
    tool_error("run", "cannot read '%s': %s", opt->file, strerror(errno));
    return TOOL_EXIT_FAILED;
  }
  rc = weft_program_create(run->context, source, 0, &run->program);
  free(source);
  if (rc) return tool_report("run", "creating the program", rc, run->context);
  double start = now_ms();
  rc = weft_program_build(run->program, opt->build_options);
  *ms = now_ms() - start;
  print_naming_file(weft_program_build_log(run->program), opt->file);
  if (!rc) return 0;
  fprintf(stderr, "weft run: building %s: %s: ", opt->file, weft_strerror(rc));
  print_naming_file(weft_errmsg(run->program), opt->file);
  fputc('\n', stderr);
  return TOOL_EXIT_FAILED;
}

/* The kernel named by --kernel, or the program's only one. */
static int pick_kernel(run_state *run) {
  const char *name = run->opt->kernel;
  int count = weft_program_kernel_count(run->program);
  if (count < 0)
    return tool_report("run", "listing the kernels", count, run->program);
  if (!name && count == 0) {
    tool_error("run", "%s has no kernels", run->opt->file);
    return TOOL_EXIT_FAILED;
  }
  if (!name && count > 1) {
    fprintf(stderr, "weft run: %s has %d kernels; choose one with --kernel:",
            run->opt->file, count);
    for (int i = 0; i < count; i++)
      fprintf(stderr, " %s", weft_program_kernel_name(run->program, i));
    fputc('\n', stderr);
    return TOOL_EXIT_USAGE;
  }
  if (!name) name = weft_program_kernel_name(run->program, 0);
  int rc = weft_kernel_create(run->program, name, &run->kernel);
  return rc ? tool_report("run", "choosing the kernel", rc, run->program) : 0;
}

int run_launch(run_state *run, double *ms) {
  const run_options *opt = run->opt;
  char what[256];
  double start = now_ms();
  int rc = weft_kernel_launch(run->kernel, opt->dims,
                              opt->has_offset ? opt->offset : NULL,
                              opt->global, opt->has_local ? opt->local : NULL);
  *ms = now_ms() - start;
  snprintf(what, sizeof what, "running kernel '%s'",
           weft_kernel_name(run->kernel));
  return rc ? tool_report("run", what, rc, run->kernel) : 0;
}

static void release(run_state *run) {
  run_args_release(run);
  weft_kernel_release(run->kernel);
  weft_program_release(run->program);
  weft_context_release(run->context);
}

/* Each step runs only if the ones before it succeeded; whatever was made
 * is released on every path. */
static int run_steps(const run_options *opt) {
  run_state run = {.opt = opt};
  double build_ms = 0, run_ms = 0;
  int status = build(&run, &build_ms);
  if (!status) status = pick_kernel(&run);
  if (!status) status = run_args_check(&run);
  if (!status) status = run_expect_resolve(&run);
  if (!status && (opt->has_seeds || opt->explore)) {
    status = opt->explore ? run_explore(&run) : run_sweep(&run);
    release(&run);
    return status;
  }
  if (!status) status = run_args_set(&run);
  if (!status) status = run_launch(&run, &run_ms);
  if (!status) status = run_show_results(&run);
  if (!status && opt->time)
    printf("build: %.3f ms\nrun: %.3f ms\n", build_ms, run_ms);
  if (!status && run_expect_check(&run)) status = TOOL_EXIT_FAILED;
  release(&run);
  return status;
}

int tool_run(int argc, char **argv) {
  run_options opt;
  int status = run_options_parse(argc, argv, &opt);
  if (!status && opt.help) tool_print_help("run", stdout);
  else if (!status) {
    run_schedule_default(&opt);
    status = run_steps(&opt);
  }
  run_options_free(&opt);
  return status;
}
