/* test_build_isolated.c: builds under WEFT_BUILD_MEMORY run in a helper
 * process (core/build_isolated.h), which is stopped at either limit; the
 * process that asked goes on building and running programs, and no
 * helper or compiler thread outlives its build. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec;
}

/* Every helper was waited for: this process has no child left. */
static void no_child_left(void) {
  CHECK_EQ(waitpid(-1, NULL, WNOHANG), -1);
  CHECK_EQ(errno, ECHILD);
}

/* A new kernel builds (through the helper) and runs: the process goes on
 * after a build was stopped (support.h's check, over 16 ints). */
static void builds_and_runs(weft_context *ctx) {
  weft_buffer *o = support_ints(ctx, 16, 0);
  support_check_device_goes_on(ctx, o, 16, 4, 7);
  weft_buffer_release(o);
}

/* 2^25 tokens from 26 macros: Clang's preprocessor takes gigabytes. */
static char *macro_bomb(void) {
  char *source = malloc(4096), *at = source;
  CHECK(source != NULL);
  at += sprintf(at, "#define A0 1+\n");
  for (int i = 1; i <= 25; i++)
    at += sprintf(at, "#define A%d A%d A%d\n", i, i - 1, i - 1);
  sprintf(at, "__kernel void k(__global int *o) { o[0] = A25 1; }\n");
  return source;
}

/* A build past WEFT_BUILD_MEMORY fails with a log that says so, soon
 * (the helper's memory is looked at every 20 ms); build errors keep their
 * line and column; the next build works. */
TEST(memory_limit_stops_a_build) {
  setenv("WEFT_BUILD_MEMORY", "256M", 1);
  weft_context *ctx = support_context();
  char *source = macro_bomb();
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, source, 0, &p), ctx);
  free(source);
  double t0 = now();
  CHECK_FAILS(weft_program_build(p, NULL), WEFT_EBUILD, p,
              "build failed: error: the build used more than "
              "WEFT_BUILD_MEMORY (256 MiB) and was stopped");
  CHECK(now() - t0 < 30);
  weft_program_release(p);
  no_child_left();
  CHECK_OK(weft_program_create(ctx, "__kernel void k(__global int *o) {\n"
                                    "  o[0] = nothing_here;\n}\n", 0, &p), ctx);
  CHECK_FAILS(weft_program_build(p, NULL), WEFT_EBUILD, p, "nothing_here");
  CHECK_STR_CONTAINS(weft_program_build_log(p),
                     "program.cl:2:10: error: use of undeclared identifier");
  weft_program_release(p);
  builds_and_runs(ctx);
  no_child_left();
  weft_context_release(ctx);
}

/* With a memory limit, WEFT_BUILD_TIMEOUT stops the helper too: nothing
 * runs on in the background (400 nested loops keep LLVM's loop passes
 * busy for minutes; an abandoned thread would spend this process's CPU
 * time after the call returned). The limit holds for the build after it
 * too (it is read once a process): 5 s, as a helper starting and building
 * a one-line kernel for the GPU took more than 1 s on a 16-core machine
 * running 16 tests at once. */
TEST(time_limit_stops_the_helper) {
  setenv("WEFT_BUILD_MEMORY", "4G", 1);
  setenv("WEFT_BUILD_TIMEOUT", "5", 1);
  weft_context *ctx = support_context();
  char *source = support_nested_loops(400);
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, source, 0, &p), ctx);
  free(source);
  double t0 = now();
  CHECK_FAILS(weft_program_build(p, NULL), WEFT_EBUILD, p,
              "build failed: error: the build ran past WEFT_BUILD_TIMEOUT "
              "(5 s) and was stopped");
  double waited = now() - t0;
  CHECK(waited >= 5 && waited < 15);
  weft_program_release(p);
  no_child_left();
  double cpu = cpu_seconds();
  usleep(500 * 1000);
  CHECK(cpu_seconds() - cpu < 0.2);
  builds_and_runs(ctx);
  weft_context_release(ctx);
}

/* Separate compilation and linking (a build from IR) go through the
 * helper as builds from source do, errors and headers included. */
TEST(compile_and_link_in_the_helper) {
  setenv("WEFT_BUILD_MEMORY", "2G", 1);
  weft_context *ctx = support_context();
  weft_program *unit;
  CHECK_OK(weft_program_create(ctx,
                               "#include \"offset.h\"\n"
                               "__kernel void k(__global int *a) {\n"
                               "  a[get_global_id(0)] += OFFSET;\n}\n", 0,
                               &unit), ctx);
  const char *names[] = {"offset.h"}, *sources[] = {"#define OFFSET 5\n"};
  CHECK_OK(weft_program_compile(unit, "", 1, names, sources), unit);
  CHECK_EQ(weft_program_get_binary_type(unit), WEFT_BINARY_OBJECT);
  CHECK_FAILS(weft_program_compile(unit, "", 0, NULL, NULL), WEFT_EBUILD,
              unit, "offset.h");
  CHECK_STR_CONTAINS(weft_program_build_log(unit),
                     "program.cl:1:10: fatal error");
  CHECK_OK(weft_program_compile(unit, "", 1, names, sources), unit);
  weft_program *linked;
  CHECK_OK(weft_program_link(ctx, 1, &unit, NULL, &linked), ctx);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(linked, "k", &k), linked);
  weft_buffer *a = support_ints(ctx, 8, 0);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, a), k);
  size_t global = 8;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  int got[8];
  support_read_ints(a, got, 8);
  for (int i = 0; i < 8; i++) CHECK_EQ(got[i], 5);
  weft_buffer_release(a);
  weft_kernel_release(k);
  weft_program_release(linked);
  weft_program_release(unit);
  no_child_left();
  weft_context_release(ctx);
}

/* The helper builds with the settings Weft started with: a setting the
 * application changes afterwards (here WEFT_CHECK, which changes the code
 * a build makes) does not reach it, so its result is this build's. */
TEST(helper_keeps_the_settings_weft_started_with) {
  setenv("WEFT_BUILD_MEMORY", "2G", 1);
  weft_context *ctx = support_context();
  setenv("WEFT_CHECK", "all", 1);
  setenv("WEFT_SCHEDULE", "pct:3", 1);
  builds_and_runs(ctx);
  no_child_left();
  weft_context_release(ctx);
}

TEST_MAIN()
