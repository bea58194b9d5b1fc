/*
 * support.h: shortcuts for tests that run kernels on the CPU device. Each
 * fails the test with Weft's message (and the build log) when a call fails.
 */
#ifndef WEFT_TESTS_SUPPORT_H
#define WEFT_TESTS_SUPPORT_H

#include "harness.h"
#include "weft/weft.h"

/* Fails the test unless expr returns 0, printing the object's message. */
#define CHECK_OK(expr, object)                                               \
  do {                                                                       \
    int rc_ = (expr);                                                        \
    if (rc_) FAIL("%s: %s: %s", #expr, weft_strerror(rc_), weft_errmsg(object)); \
  } while (0)

/* Checks that expr fails with code, and that the object's message says
 * what the test expects. */
#define CHECK_FAILS(expr, code, object, text)                                \
  do {                                                                       \
    int rc_ = (expr);                                                        \
    if (rc_ != (code))                                                       \
      FAIL("%s returned %s, expected %s (%s)", #expr, weft_strerror(rc_),    \
           weft_strerror(code), weft_errmsg(object));                        \
    CHECK_STR_CONTAINS(weft_errmsg(object), text);                           \
  } while (0)

/* The tests' device's (device 0's) information; fails the test, with
 * the message, when either query fails. */
weft_device_info support_device_info(void);

weft_context *support_context(void);

/* Builds source with options; fails the test (showing the log) on error. */
weft_program *support_build(weft_context *ctx, const char *source,
                            const char *options);

weft_kernel *support_kernel(weft_context *ctx, const char *source,
                            const char *name);

weft_buffer *support_buffer(weft_context *ctx, size_t size, const void *init);

/* A buffer of n ints, each fill; and b's first n ints read into out. */
weft_buffer *support_ints(weft_context *ctx, size_t n, int fill);
void support_read_ints(weft_buffer *b, int *out, size_t n);

/* Peak resident memory of this process, in KiB (VmHWM). */
long support_peak_rss_kib(void);

/* That the device still runs kernels after a failed launch: fills the
 * first n ints of b with value by a new kernel over n work-items in
 * groups of local, and checks them. */
void support_check_device_goes_on(weft_context *ctx, weft_buffer *b, size_t n,
                                  size_t local, int value);

/* That kernel "k" of source (one __global int * argument), run over 64
 * work-items in groups of local with WEFT_LOG=launch set, prints a
 * launch line holding how, crashes with a segmentation fault reported
 * with where, and leaves the device running. */
void support_check_fault(const char *source, size_t local, const char *how,
                         const char *where);

/* A kernel k(o, n) of depth nested loops (malloc'd source): LLVM's loop
 * passes take minutes over 400, what the build time limits are tested
 * with. */
char *support_nested_loops(int depth);

/* Random kernels (test_jam.c, test_sub_groups.c): the next number of a
 * cheap sequence (state not 0 after the first); and a malloc'd source
 * made of head (a printf format that takes two numbers: 1 to 1000 and 0
 * to 999), then 2 + n % lines statements of statement(out, size, seed),
 * each on its own indented line, then tail. */
unsigned support_random_next(unsigned *state);
typedef void (*support_statement)(char *out, size_t size, unsigned *seed);
char *support_random_kernel(const char *head, support_statement statement,
                            unsigned lines, const char *tail, unsigned seed);

/* Sends this process's stderr to a scratch file until support_stderr_end,
 * which puts it back and returns what was written there (a static
 * buffer, the first 4 KiB): for messages Weft prints rather than
 * returns. */
void support_stderr_begin(void);
const char *support_stderr_end(void);

/* The lines of the CPU's IR that WEFT_DUMP_IR=dir dumped for the n-th
 * program built (program-N.ll) that contain text. */
int support_dumped_ir_lines(const char *dir, int n, const char *text);

/* Removes a scratch folder a test made and everything in it (the kernel
 * cache may have written there), so tests leave nothing in /tmp. */
void support_remove_tree(const char *dir);

/* Makes dir (a mkdtemp template) a scratch folder and has WEFT_DUMP_IR
 * dump the CPU's IR there. Weft reads the variable when it starts, so
 * every later build of the process dumps there: support_dump_ir_end
 * (unsets it and removes the folder) comes after the test's last. */
void support_dump_ir_begin(char *dir);
void support_dump_ir_end(const char *dir);

#endif
