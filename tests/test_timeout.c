/* test_timeout.c: a kernel that runs too long is ended, not waited for:
 * WEFT_TIMEOUT (and check mode, whose loops get the same stop points)
 * ends the launch with WEFT_ETIMEOUT and names the work-items still
 * running and the loop's line; the process and the device go on. SIGQUIT
 * prints where a running kernel's work-items are and lets it go on. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "support.h"

static const char *endless =
    "__kernel void k(__global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i == 5)\n"
    "    for (;;) {}\n"
    "  out[i] = 1;\n"
    "}\n";

/* The kernel ends after the limit with where work-item 5 was. */
static void expect_timeout(const char *options) {
  CPU_ONLY("the CPU device's stop points");
  setenv("WEFT_TIMEOUT", "0.5", 1);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, endless, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *out = support_buffer(ctx, 16 * sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  size_t global = 16, local = 16;
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), WEFT_ETIMEOUT, k,
              "kernel 'k' ran past its time limit of 0.5 s (WEFT_TIMEOUT) and "
              "was ended; still running: work-item (5) [local (5) in "
              "work-group (0)] in the loop at program.cl:4:5");
  support_check_device_goes_on(ctx, out, global, local, 7);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(endless_loop_is_ended) { expect_timeout(NULL); }

/* Check mode puts the stop points in by itself (the option alone). */
TEST(check_mode_has_stop_points) { expect_timeout("-cl-weft-check=memory"); }

/* Every group in a loop is named, each by the work-item it was running. */
TEST(every_running_group_is_named) {
  CPU_ONLY("the CPU device's stop points");
  setenv("WEFT_TIMEOUT", "0.5", 1);
  setenv("WEFT_NUM_THREADS", "2", 1);
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void k(__global int *out) {\n"
                                  "  while (out[0] == 0) {}\n"
                                  "}\n", "k");
  weft_buffer *out = support_buffer(ctx, sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  size_t global = 8, local = 4;
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), WEFT_ETIMEOUT, k,
              "in the loop at program.cl:2:3");
  CHECK_STR_CONTAINS(weft_errmsg(k), "[local (0) in work-group (0)]");
  CHECK_STR_CONTAINS(weft_errmsg(k), "[local (0) in work-group (1)]");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

static void *send_quit(void *arg) {
  (void)arg;
  usleep(300 * 1000);
  kill(getpid(), SIGQUIT);
  return NULL;
}

/* SIGQUIT during a long launch: where the work-item is, on stderr, and
 * the launch finishes with the right result. */
TEST(sigquit_says_where_and_goes_on) {
  CPU_ONLY("the CPU device's stop points");
  setenv("WEFT_TIMEOUT", "60", 1);
  setenv("WEFT_NUM_THREADS", "1", 1);
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void k(__global uint *out, uint n) {\n"
                                  "  uint s = 0;\n"
                                  "  for (uint j = 0; j < n; j++)\n"
                                  "    s = s * 31 + j;\n"
                                  "  out[get_global_id(0)] = s;\n"
                                  "}\n", "k");
  weft_buffer *out = support_buffer(ctx, sizeof(unsigned), NULL);
  unsigned n = 1u << 30, want = 0;
  for (unsigned j = 0; j < n; j++) want = want * 31 + j;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &n, sizeof n), k);
  support_stderr_begin();
  pthread_t quitter;
  CHECK_EQ(pthread_create(&quitter, NULL, send_quit, NULL), 0);
  size_t global = 1;
  int rc = weft_kernel_launch(k, 1, NULL, &global, NULL);
  pthread_join(quitter, NULL);
  const char *text = support_stderr_end();
  CHECK_OK(rc, k);
  CHECK_STR_CONTAINS(text, "weft: SIGQUIT: kernel 'k' is running: work-item "
                           "(0) [local (0) in work-group (0)] in the loop at "
                           "program.cl:3:3");
  unsigned got;
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, &got), out);
  CHECK_EQ(got, want);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST_MAIN()
