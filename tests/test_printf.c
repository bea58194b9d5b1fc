/* test_printf.c: printf in kernels. Every conversion against the host's C
 * printf for the same values, vectors, printf's return value, the order of
 * a work-item's lines, output around barriers, output that outlives a
 * crash, and more than the buffer holds. The test reads what Weft writes
 * to stdout by pointing file descriptor 1 at a temporary file. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <unistd.h>

#include "support.h"

static char captured[1 << 22];

/* Runs kernel k of source on global work-items (local NULL) with an int
 * buffer of n elements as argument 0 (initialised from init when given)
 * and returns what it printed; *status gets the launch's status, ints the
 * buffer afterwards. */
static const char *run(const char *source, const char *options, size_t global,
                       int *ints, size_t n, int *status) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *b = support_buffer(ctx, n * sizeof(int), ints);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  fflush(stdout);
  FILE *tmp = tmpfile();
  CHECK(tmp);
  int saved = dup(1);
  dup2(fileno(tmp), 1);
  *status = weft_kernel_launch(k, 1, NULL, &global, NULL);
  fflush(stdout);
  dup2(saved, 1);
  close(saved);
  rewind(tmp);
  size_t got = fread(captured, 1, sizeof captured - 1, tmp);
  captured[got] = 0;
  fclose(tmp);
  if (ints) CHECK_OK(weft_buffer_read(b, 0, n * sizeof(int), ints), b);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
  return captured;
}

/* One printf in one work-item: "__kernel void k(__global int *r) {
 * r[0] = printf(<call>); }". */
static const char *print(const char *call, int *result) {
  char source[2048];
  snprintf(source, sizeof source,
           "__kernel void k(__global int *r) { r[0] = printf(%s); }\n", call);
  int status, r[1] = {12345};
  const char *out = run(source, "-cl-std=CL1.2", 1, r, 1, &status);
  CHECK_OK(status, NULL);
  if (result) *result = r[0];
  return out;
}

static char expected[4096];

static const char *host(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *host(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(expected, sizeof expected, fmt, ap);
  va_end(ap);
  return expected;
}

#define SAME(call, ...)                                                      \
  do {                                                                       \
    int r_;                                                                  \
    const char *got_ = print(call, &r_);                                     \
    const char *want_ = host(__VA_ARGS__);                                   \
    if (strcmp(got_, want_))                                                 \
      FAIL("printf(%s) printed \"%s\", the host \"%s\"", call, got_, want_);   \
    CHECK_EQ(r_, 0);                                                         \
  } while (0)

TEST(integers) {
  SAME("\"%d|%i|%u\\n\", -2147483647 - 1, 2147483647, 4294967295u",
       "%d|%i|%u\n", INT_MIN, INT_MAX, 4294967295u);
  SAME("\"%x|%X|%o|%#x|%#o\\n\", 48879, 48879, 8, 255, 8",
       "%x|%X|%o|%#x|%#o\n", 48879, 48879, 8, 255, 8);
  SAME("\"[%5d][%-5d][%+d][% d][%05d][%.3d]\\n\", 42, 42, 42, 42, -42, 7",
       "[%5d][%-5d][%+d][% d][%05d][%.3d]\n", 42, 42, 42, 42, -42, 7);
  SAME("\"%hhd|%hhu|%hd|%hu\\n\", 300, -1, 70000, -1",
       "%hhd|%hhu|%hd|%hu\n", (signed char)300, (unsigned char)-1,
       (short)70000, (unsigned short)-1);
  SAME("\"%ld|%lu|%lx\\n\", (long)(-9223372036854775807L - 1), "
       "(ulong)18446744073709551615UL, (long)-1",
       "%ld|%lu|%lx\n", LONG_MIN, ULONG_MAX, -1L);
  SAME("\"%c%c%c|%%|%5c|\\n\", 'a', (char)66, 'c', 'z'",
       "%c%c%c|%%|%5c|\n", 'a', 66, 'c', 'z');
}

TEST(floats) {
  SAME("\"%f|%.3f|%10.2f|%-10.1f|\\n\", 3.14159265f, 1.0f / 3.0f, -2.5f, 1e3f",
       "%f|%.3f|%10.2f|%-10.1f|\n", 3.14159265f, 1.0f / 3.0f, -2.5f, 1e3f);
  SAME("\"%e|%E|%.2e|%g|%G|%g\\n\", 123456.789f, 1e-10f, 0.5f, 1e-5f, 1e20f, 100.0f",
       "%e|%E|%.2e|%g|%G|%g\n", 123456.789f, 1e-10f, 0.5f, 1e-5f, 1e20f,
       100.0f);
  SAME("\"%a|%A|%f|%f|%f|%f\\n\", 1.0f, -0.75f, INFINITY, -INFINITY, NAN, -0.0f",
       "%a|%A|%f|%f|%f|%f\n", 1.0f, -0.75f, INFINITY, -INFINITY, NAN, -0.0f);
  SAME("\"%.17g|%e\\n\", 0.1, 1e-310", "%.17g|%e\n", 0.1, 1e-310);
  SAME("\"%g\\n\", 1.17549435e-38f / 4", "%g\n", 1.17549435e-38f / 4);
}

TEST(strings_and_pointers) {
  SAME("\"[%s][%8s][%-8s][%.2s]\\n\", \"abc\", \"abc\", \"abc\", \"abc\"",
       "[%s][%8s][%-8s][%.2s]\n", "abc", "abc", "abc", "abc");
  int r;
  const char *out = print("\"%p\\n\", r", &r);
  CHECK_EQ(r, 0);
  CHECK(!strncmp(out, "0x", 2));
}

TEST(vectors) {
  SAME("\"%v4hlf\\n\", (float4)(1.5f, -2.0f, 3.25f, 1e9f)",
       "%f,%f,%f,%f\n", 1.5, -2.0, 3.25, 1e9);
  SAME("\"%v2hld|%v3hld\\n\", (int2)(-7, 8), (int3)(1, 2, 3)",
       "%d,%d|%d,%d,%d\n", -7, 8, 1, 2, 3);
  SAME("\"%v8hhx\\n\", (uchar8)(0, 1, 15, 16, 127, 128, 254, 255)",
       "%x,%x,%x,%x,%x,%x,%x,%x\n", 0, 1, 15, 16, 127, 128, 254, 255);
  SAME("\"%v4hd|%v2hu\\n\", (short4)(-32768, -1, 0, 32767), (ushort2)(0, 65535)",
       "%d,%d,%d,%d|%u,%u\n", -32768, -1, 0, 32767, 0, 65535);
  SAME("\"%v2lf|%v4ld\\n\", (double2)(0.25, -1e300), (long4)(1, -2, 3, -4)",
       "%f,%f|%d,%d,%d,%d\n", 0.25, -1e300, 1, -2, 3, -4);
  SAME("\"%#v16hlx\\n\", (uint16)(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)",
       "%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x,%#x\n",
       1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
  SAME("\"%8.3v2hle\\n\", (float2)(1.0f, 2.0f)", "%8.3e,%8.3e\n", 1.0, 2.0);
}

/* printf returns 0, or -1 when the format is invalid or does not match:
 * then it prints nothing. */
TEST(return_value) {
  int r;
  CHECK_EQ(strlen(print("\"%v5hld\\n\", (int4)(1)", &r)), 0);
  CHECK_EQ(r, -1);
  CHECK_EQ(strlen(print("\"%d %d\\n\", 1", &r)), 0);  /* too few arguments */
  CHECK_EQ(r, -1);
  CHECK_EQ(strlen(print("\"%d\\n\", 1.5f", &r)), 0);  /* not an integer */
  CHECK_EQ(r, -1);
  CHECK_EQ(strlen(print("\"%hld\\n\", 1", &r)), 0);   /* hl needs a vector */
  CHECK_EQ(r, -1);
  CHECK_EQ(strlen(print("\"%v4hlf\\n\", (int4)(1)", &r)), 0); /* kind */
  CHECK_EQ(r, -1);
  CHECK_STR_CONTAINS(print("\"no conversions\\n\"", &r), "no conversions");
  CHECK_EQ(r, 0);
}

/* Every work-item's lines come in its order, none lost. */
static void check_item_order(const char *out, int items, int lines) {
  int next[256] = {0}, total = 0;
  for (const char *p = out; *p; p = strchr(p, '\n') + 1) {
    int item, line;
    CHECK_EQ(sscanf(p, "item %d line %d", &item, &line), 2);
    CHECK(item >= 0 && item < items);
    CHECK_EQ(line, next[item]);
    next[item]++;
    total++;
  }
  CHECK_EQ(total, items * lines);
}

TEST(order_per_work_item) {
  const char *source =
      "__kernel void k(__global int *r) {\n"
      "  int i = get_global_id(0);\n"
      "  for (int l = 0; l < 3; l++) printf(\"item %d line %d\\n\", i, l);\n"
      "}\n";
  int status;
  check_item_order(run(source, "", 200, NULL, 1, &status), 200, 3);
  CHECK_OK(status, NULL);
}

/* Lines before and after a barrier: every work-item prints both, in
 * order, whether the kernel runs as regions or on fibers. */
TEST(around_barriers) {
  const char *source =
      "__kernel void k(__global int *r) {\n"
      "  int i = get_global_id(0);\n"
      "  printf(\"item %d line 0\\n\", i);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  printf(\"item %d line 1\\n\", i);\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  printf(\"item %d line 2\\n\", i);\n"
      "}\n";
  int status;
  check_item_order(run(source, "", 128, NULL, 1, &status), 128, 3);
  CHECK_OK(status, NULL);
}

/* Lines around global barriers: a group that waits may go on on another
 * worker thread, whose buffer is not the one it printed into first; its
 * lines still come in order. */
TEST(around_global_barriers) {
  const char *source =
      "__kernel void k(__global int *r) {\n"
      "  int i = get_global_id(0);\n"
      "  for (int l = 0; l < 4; l++) {\n"
      "    printf(\"item %d line %d\\n\", i, l);\n"
      "    weft_global_barrier();\n"
      "  }\n"
      "}\n";
  int status;
  check_item_order(run(source, "", 64, NULL, 1, &status), 64, 4);
  CHECK_OK(status, NULL);
}

/* What a kernel printed before it crashed still comes out. */
TEST(output_survives_a_crash) {
  const char *source =
      "__kernel void k(__global int *r) {\n"
      "  printf(\"before %d\\n\", (int)get_global_id(0));\n"
      "  if (get_global_id(0) == 3) *(__global int *)8 = 1;\n"
      "}\n";
  int status;
  const char *out = run(source, "", 4, NULL, 1, &status);
  CHECK_EQ(status, WEFT_EKERNELFAULT);
  CHECK_STR_CONTAINS(out, "before 3\n");
}

/* More than a worker's buffer holds (1 MiB): nothing lost. */
TEST(more_than_the_buffer) {
  const char *source =
      "__kernel void k(__global int *r) {\n"
      "  printf(\"item %d line 0 ......................................"
      "........................................................\\n\", "
      "(int)get_global_id(0));\n"
      "}\n";
  int status;
  const char *out = run(source, "", 20000, NULL, 1, &status);
  CHECK_OK(status, NULL);
  size_t lines = 0;
  for (const char *p = out; (p = strchr(p, '\n')); p++) lines++;
  CHECK_EQ(lines, 20000);
  CHECK(strlen(out) > (1u << 21));
}

TEST_MAIN()
