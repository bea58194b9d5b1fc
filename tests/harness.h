/*
 * harness.h: a small test framework, libuv style. A test file defines tests
 * with TEST(name) and ends with TEST_MAIN(). CTest runs every test in its own
 * process ("test_barrier in_loop") under a timeout, so a crash or a hang
 * fails one test, not the suite. tests/CMakeLists.txt finds the TEST lines.
 */
#ifndef WEFT_TESTS_HARNESS_H
#define WEFT_TESTS_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct harness_test {
  const char *name;
  void (*run)(void);
} harness_test;

#define HARNESS_MAX_TESTS 256
extern harness_test harness_tests[HARNESS_MAX_TESTS];
extern int harness_count;

#define TEST(name)                                                           \
  static void test_##name(void);                                             \
  __attribute__((constructor)) static void register_##name(void) {           \
    harness_tests[harness_count++] = (harness_test){#name, test_##name};     \
  }                                                                          \
  static void test_##name(void)

#define FAIL(...)                                                            \
  do {                                                                       \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                          \
    fprintf(stderr, __VA_ARGS__);                                            \
    fprintf(stderr, "\n");                                                   \
    exit(1);                                                                 \
  } while (0)

/* Ends the test as skipped (CTest's SKIP_RETURN_CODE), saying why. */
#define HARNESS_SKIP 77
#define SKIP(...)                                                            \
  do {                                                                       \
    printf("skipped: ");                                                     \
    printf(__VA_ARGS__);                                                     \
    printf("\n");                                                            \
    exit(HARNESS_SKIP);                                                      \
  } while (0)

/* Whether WEFT_DEVICE puts a GPU first, making it the tests' device (it
 * fails where there is none). Read from the environment, not the
 * device: a test may set what Weft reads when it starts after asking. */
int harness_on_gpu(void);
/* Whether the test runs in check mode (its .checked variant,
 * WEFT_CHECK set and not off): every work-item runs on its own there. */
int harness_check_mode(void);
/* Whether kernels with barriers run on fibers rather than as regions
 * (the .fibers and .ucontext variants, WEFT_BARRIER=fibers). */
int harness_barriers_on_fibers(void);
/* Whether WEFT_SUB_GROUP_SIZE sets the CPU's sub-group width (else it is
 * the host's vector's). */
int harness_sub_group_size_set(void);

/* Skips the test on a GPU: what it checks is the CPU device's own (a
 * crash report naming the work-item, schedule exploration, ...). */
#define CPU_ONLY(why)                                                        \
  do {                                                                       \
    if (harness_on_gpu()) SKIP("on the GPU: %s", why);                       \
  } while (0)

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) FAIL("check failed: %s", #cond);                            \
  } while (0)

#define CHECK_EQ(a, b)                                                       \
  do {                                                                       \
    long long a_ = (long long)(a), b_ = (long long)(b);                      \
    if (a_ != b_) FAIL("%s == %lld, expected %s == %lld", #a, a_, #b, b_);   \
  } while (0)

#define CHECK_STR_CONTAINS(haystack, needle)                                 \
  do {                                                                       \
    const char *h_ = (haystack);                                             \
    if (!h_ || !strstr(h_, needle))                                          \
      FAIL("expected \"%s\" in: %s", needle, h_ ? h_ : "(null)");            \
  } while (0)

int harness_main(int argc, char **argv);

#define TEST_MAIN()                                                          \
  harness_test harness_tests[HARNESS_MAX_TESTS];                             \
  int harness_count;                                                         \
  int main(int argc, char **argv) { return harness_main(argc, argv); }

#endif
