/* test_build.c: building programs: logs with line and column, options,
 * kernel lookup, argument descriptions. */
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "support.h"

static weft_program *create(weft_context *ctx, const char *source) {
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, source, 0, &p), ctx);
  return p;
}

/* Builds source, expecting code and a log that contains each of texts. */
static void check_build_fails(const char *source, const char *options, int code,
                              const char *const *texts) {
  weft_context *ctx = support_context();
  weft_program *p = create(ctx, source);
  CHECK_FAILS(weft_program_build(p, options), code, p, "");
  for (; *texts; texts++) CHECK_STR_CONTAINS(weft_program_build_log(p), *texts);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(syntax_error_has_line_and_column) {
  static const char *texts[] = {"program.cl:3:14: error: use of undeclared "
                                "identifier 'y'",
                                "program.cl:4:11: error: expected ';'", NULL};
  check_build_fails("__kernel void k(__global int *a) {\n"
                    "  int x = 1;\n"
                    "  a[0] = x + y;\n"
                    "  a[1] = 2\n"
                    "}\n",
                    NULL, WEFT_EBUILD, texts);
}

TEST(type_error_has_line_and_column) {
  static const char *texts[] = {"program.cl:2:", "error:", NULL};
  check_build_fails("__kernel void k(__global int *a) {\n"
                    "  int4 v = (float2)(1.0f, 2.0f);\n"
                    "  a[0] = v.x;\n"
                    "}\n",
                    NULL, WEFT_EBUILD, texts);
}

TEST(message_names_first_error) {
  weft_context *ctx = support_context();
  weft_program *p = create(ctx, "__kernel void k() { undefined_thing; }\n");
  CHECK_FAILS(weft_program_build(p, NULL), WEFT_EBUILD, p,
              "build failed: program.cl:1:21: error:");
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(warnings_in_log_of_successful_build) {
  weft_context *ctx = support_context();
  weft_program *p = create(ctx, "__kernel void k(__global int *a) {\n"
                                "  int ok = 1;\n"
                                "  int truncated = 3.7;\n"
                                "  a[0] = ok + truncated;\n"
                                "}\n");
  CHECK_OK(weft_program_build(p, NULL), p);
  CHECK_STR_CONTAINS(weft_program_build_log(p), "program.cl:3:");
  CHECK_STR_CONTAINS(weft_program_build_log(p), "warning:");
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(unknown_option) {
  static const char *texts[] = {"unknown build option '-fno-such-thing'", NULL};
  check_build_fails("__kernel void k() {}", "-DX=1 -fno-such-thing",
                    WEFT_EOPTION, texts);
}

TEST(bad_language_version) {
  static const char *texts[] = {"unsupported OpenCL C version in "
                                "'-cl-std=CL4.0'", NULL};
  check_build_fails("__kernel void k() {}", "-cl-std=CL4.0", WEFT_EOPTION,
                    texts);
}

TEST(option_missing_value) {
  static const char *texts[] = {"'-D' needs a value", NULL};
  check_build_fails("__kernel void k() {}", "-cl-mad-enable -D", WEFT_EOPTION,
                    texts);
}

TEST(undefined_function) {
  static const char *texts[] = {"program.cl:3:10: error: function 'helper' is "
                                "declared but never defined", NULL};
  check_build_fails("int helper(int);\n"
                    "__kernel void k(__global int *a) {\n"
                    "  a[0] = helper(a[1]);\n"
                    "}\n",
                    NULL, WEFT_EBUILD, texts);
}

/* A builtin the library lacks is named, demangled, with its location.
 * (Every builtin of the specification should exist: an overloadable
 * declaration stands for one here, as it has a builtin's mangled name.) */
TEST(missing_builtin_named) {
  static const char *texts[] = {"program.cl:3:10: error: call to "
                                "'not_a_builtin(int)', which Weft's builtin "
                                "library does not provide yet",
                                NULL};
  check_build_fails("int __attribute__((overloadable)) not_a_builtin(int);\n"
                    "__kernel void k(__global int *a) {\n"
                    "  a[0] = not_a_builtin(a[1]);\n"
                    "}\n",
                    NULL, WEFT_EBUILD, texts);
}

TEST(recursion_rejected) {
  static const char *texts[] = {"function 'fact' is recursive", NULL};
  check_build_fails("int fact(int n) { return n < 2 ? 1 : n * fact(n - 1); }\n"
                    "__kernel void k(__global int *a) { a[0] = fact(a[1]); }\n",
                    NULL, WEFT_EBUILD, texts);
}

/* A kernel may call another, but not itself, directly or through others:
 * a build error, not a launch that never ends. */
TEST(kernel_calling_itself_rejected) {
  static const char *direct[] = {"program.cl:2:19: error: kernel 'k' calls "
                                 "itself, which OpenCL C does not allow", NULL};
  check_build_fails("__kernel void k(__global int *a) {\n"
                    "  if (a[0] > 0) { k(a); }\n"
                    "}\n",
                    NULL, WEFT_EBUILD, direct);
  static const char *through[] = {"calls itself through other kernels", NULL};
  check_build_fails("__kernel void a(__global int *p);\n"
                    "__kernel void b(__global int *p) { if (p[0]) a(p); }\n"
                    "__kernel void a(__global int *p) { if (p[1]) b(p); }\n",
                    NULL, WEFT_EBUILD, through);
}

/* 10,000 nested ifs: some 16,000 frames of Clang's parser, and as deep in
 * O3 over check mode's blocks, built from an application thread with a
 * small stack; builds run on a stack of Weft's own (core/build_stack.c). */
static void *build_deep(void *arg) {
  weft_context *ctx = arg;
  size_t n = 10000, length = 0;
  char *source = malloc(64 + n * 10);
  CHECK(source);
  length += (size_t)sprintf(source, "__kernel void k(__global int *a) {\n");
  for (size_t i = 0; i < n; i++)
    length += (size_t)sprintf(source + length, "if (a[0]) ");
  sprintf(source + length, "a[1] = 1;\n}\n");
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, source, 0, &p), ctx);
  CHECK_OK(weft_program_build(p, NULL), p);
  weft_program_release(p);
  free(source);
  return NULL;
}

TEST(deep_nesting_builds_on_a_small_stack) {
  weft_context *ctx = support_context();
  pthread_attr_t attr;
  pthread_t thread;
  CHECK_EQ(pthread_attr_init(&attr), 0);
  CHECK_EQ(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
  CHECK_EQ(pthread_create(&thread, &attr, build_deep, ctx), 0);
  CHECK_EQ(pthread_join(thread, NULL), 0);
  pthread_attr_destroy(&attr);
  weft_context_release(ctx);
}

/* WEFT_BUILD_TIMEOUT: a build that runs past it fails, with a log that
 * says so, once the time is up (400 nested loops keep LLVM's loop passes
 * busy for minutes); the process builds and runs other programs after
 * it, while the abandoned build runs on in the background. */
TEST(build_timeout_ends_a_build) {
  setenv("WEFT_BUILD_TIMEOUT", "1", 1);
  weft_context *ctx = support_context();
  char *source = support_nested_loops(400);
  weft_program *p = create(ctx, source);
  free(source);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* (Under WEFT_BUILD_MEMORY the helper is stopped instead:
   * test_build_isolated.c.) */
  CHECK_FAILS(weft_program_build(p, NULL), WEFT_EBUILD, p,
              "build failed: error: the build ran past WEFT_BUILD_TIMEOUT (1 s) "
              "and was abandoned");
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  CHECK(waited >= 1 && waited < 10);
  CHECK_STR_CONTAINS(weft_program_build_log(p), "WEFT_BUILD_TIMEOUT (1 s)");
  weft_program_release(p);
  weft_buffer *o = support_ints(ctx, 4, 0);
  support_check_device_goes_on(ctx, o, 4, 4, 7);
  weft_buffer_release(o);
  weft_context_release(ctx);
}

/* Source that crashes Clang 19 (in typo correction, found by
 * tests/fuzz_build.c): a build error, not the end of the process, and
 * the next build works, on every device. */
TEST(compiler_crash_is_a_build_error) {
  weft_context *ctx = support_context();
  FILE *f = fopen(WEFT_SOURCE_DIR "/tests/fuzz_crashes/clang_typo_correction.cl", "rb");
  CHECK(f != NULL);
  static char source[65536];
  size_t n = fread(source, 1, sizeof source - 1, f);
  fclose(f);
  source[n] = 0;
  weft_program *p = create(ctx, source);
  CHECK_EQ(weft_program_build(p, NULL), WEFT_EBUILD);
  CHECK_STR_CONTAINS(weft_program_build_log(p), "error:");
  weft_program_release(p);
  p = support_build(ctx, "__kernel void k(__global int *a) { a[0] = 1; }\n", NULL);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* The predefined macros of OpenCL C 6.13.1: the device's OpenCL version,
 * the language's, the byte order; __FAST_RELAXED_MATH__ with its option;
 * __IMAGE_SUPPORT__ (every device has images). */
TEST(predefined_macros) {
  weft_context *ctx = support_context();
  static const char *source =
      "__kernel void store(__global int *o) {\n"
      "  o[0] = __OPENCL_VERSION__;\n"
      "  o[1] = __OPENCL_C_VERSION__;\n"
      "  o[2] = __ENDIAN_LITTLE__;\n"
      "#ifdef __FAST_RELAXED_MATH__\n"
      "  o[3] = 1;\n"
      "#endif\n"
      "#ifdef __IMAGE_SUPPORT__\n"
      "  o[4] = 1;\n"
      "#endif\n"
      "}\n";
  const char *options[2] = {"-cl-std=CL1.2", "-cl-std=CL3.0 -cl-fast-relaxed-math"};
  for (int i = 0; i < 2; i++) {
    weft_program *p = support_build(ctx, source, options[i]);
    weft_kernel *k;
    CHECK_OK(weft_kernel_create(p, "store", &k), p);
    weft_buffer *b = support_buffer(ctx, 5 * sizeof(int), NULL);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
    size_t one = 1;
    CHECK_OK(weft_kernel_launch(k, 1, NULL, &one, NULL), k);
    int got[5];
    CHECK_OK(weft_buffer_read(b, 0, sizeof got, got), b);
    CHECK_EQ(got[0], 300);
    CHECK_EQ(got[1], i ? 300 : 120);
    CHECK_EQ(got[2], 1);
    CHECK_EQ(got[3], i);
    CHECK_EQ(got[4], 1);
    weft_buffer_release(b);
    weft_kernel_release(k);
    weft_program_release(p);
  }
  weft_context_release(ctx);
}

/* Inline assembly: a build error with the line, not an abort in LLVM. */
TEST(inline_assembly_rejected) {
  CPU_ONLY("a GPU's PTX takes inline assembly");
  static const char *texts[] = {"program.cl:2:3: error: inline assembly is "
                                "not supported", NULL};
  check_build_fails("__kernel void k(__global int *a) {\n"
                    "  __asm__ volatile(\"nop\");\n"
                    "  a[0] = 1;\n"
                    "}\n",
                    NULL, WEFT_EBUILD, texts);
}

/* Images are the CPU's (test_image.c); pipes are nobody's. */
TEST(pipe_argument_rejected) {
  static const char *texts[] = {"pipe", NULL};
  check_build_fails("__kernel void k(__read_only pipe int p, __global int *a) "
                    "{ a[0] = 1; }\n",
                    "-cl-std=CL3.0", WEFT_EBUILD, texts);
}

/* Runs a one-work-item kernel that stores one int, and returns it. */
static int run_store(weft_context *ctx, weft_program *p) {
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "store", &k), p);
  weft_buffer *out = support_buffer(ctx, 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  size_t one = 1;
  int rc = weft_kernel_launch(k, 1, NULL, &one, &one);
  int value = -1;
  if (rc == 0) CHECK_OK(weft_buffer_read(out, 0, 4, &value), out);
  else FAIL("launch: %s", weft_errmsg(k));
  weft_buffer_release(out);
  weft_kernel_release(k);
  return value;
}

static const char *store_source =
    "#include \"weft_test_header.h\"\n"
    "__kernel void store(__global int *out) { *out = VALUE + FROM_HEADER; }\n";

TEST(defines_and_include_dirs) {
  char dir[] = "/tmp/weft-test-XXXXXX";
  CHECK(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/weft_test_header.h", dir);
  FILE *f = fopen(path, "w");
  CHECK(f);
  fputs("#define FROM_HEADER 1000\n", f);
  fclose(f);
  weft_context *ctx = support_context();
  char options[512];
  /* Attached and separate forms of -D and -I, and a quoted value. */
  snprintf(options, sizeof options, "-DVALUE=7 -I %s", dir);
  weft_program *p = support_build(ctx, store_source, options);
  CHECK_EQ(run_store(ctx, p), 1007);
  weft_program_release(p);
  snprintf(options, sizeof options, "-D 'VALUE=(3 * 5)' -I%s", dir);
  p = support_build(ctx, store_source, options);
  CHECK_EQ(run_store(ctx, p), 1015);
  weft_program_release(p);
  unlink(path);
  rmdir(dir);
  weft_context_release(ctx);
}

TEST(language_versions_and_math_options) {
  static const char *options[] = {
      "-cl-std=CL1.0", "-cl-std=CL1.1", "-cl-std=CL1.2", "-cl-std=CL2.0",
      "-cl-std=CL3.0", "-cl-fast-relaxed-math", "-cl-mad-enable -cl-no-signed-zeros",
      "-cl-opt-disable", "-cl-denorms-are-zero -cl-finite-math-only", "-w",
      "-cl-kernel-arg-info -cl-single-precision-constant", "-cl-strict-aliasing",
      "-cl-uniform-work-group-size -cl-fp32-correctly-rounded-divide-sqrt",
      "-cl-std=CL3.0 -cl-no-subgroup-ifp", NULL};
  weft_context *ctx = support_context();
  for (int i = 0; options[i]; i++) {
    weft_program *p = support_build(
        ctx,
        "__kernel void store(__global int *out) {\n"
        "  float x = sqrt(2.0f) * sqrt(2.0f);\n"
        "  *out = (int)(x + 0.5f) * 21;\n"
        "}\n",
        options[i]);
    CHECK_EQ(run_store(ctx, p), 42);
    weft_program_release(p);
  }
  weft_context_release(ctx);
}

TEST(kernel_names_in_source_order) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx,
                                  "void helper(void) {}\n"
                                  "__kernel void zeta(__global int *a) { a[0] = 1; }\n"
                                  "__kernel void alpha(__global int *a) { a[0] = 2; }\n"
                                  "kernel void mid(global int *a) { a[0] = 3; }\n",
                                  NULL);
  CHECK_EQ(weft_program_kernel_count(p), 3);
  CHECK(!strcmp(weft_program_kernel_name(p, 0), "zeta"));
  CHECK(!strcmp(weft_program_kernel_name(p, 1), "alpha"));
  CHECK(!strcmp(weft_program_kernel_name(p, 2), "mid"));
  CHECK(weft_program_kernel_name(p, 3) == NULL);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(program_without_kernels) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, "int helper(int x) { return x; }\n", NULL);
  CHECK_EQ(weft_program_kernel_count(p), 0);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(unknown_kernel_name) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx,
                                  "__kernel void one(__global int *a) {}\n"
                                  "__kernel void two(__global int *a) {}\n",
                                  NULL);
  weft_kernel *k;
  CHECK_FAILS(weft_kernel_create(p, "three", &k), WEFT_ENOKERNEL, p,
              "no kernel named 'three' in the program (it has: one, two)");
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(kernel_before_build) {
  weft_context *ctx = support_context();
  weft_program *p = create(ctx, "__kernel void k() {}\n");
  weft_kernel *k;
  CHECK_FAILS(weft_kernel_create(p, "k", &k), WEFT_ENOTBUILT, p, "not built");
  CHECK_FAILS(weft_program_kernel_count(p), WEFT_ENOTBUILT, p, "not built");
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(rebuild_after_failure_and_not_while_kernels_exist) {
  weft_context *ctx = support_context();
  weft_program *p = create(ctx, "__kernel void k(__global int *a) { a[0] = 1; }\n");
  CHECK_FAILS(weft_program_build(p, "-bogus"), WEFT_EOPTION, p, "-bogus");
  CHECK_OK(weft_program_build(p, NULL), p);
  CHECK_EQ(strlen(weft_program_build_log(p)), 0);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  CHECK_FAILS(weft_program_build(p, NULL), WEFT_EINVAL, p, "kernels made from it");
  weft_kernel_release(k);
  CHECK_OK(weft_program_build(p, "-cl-std=CL3.0"), p);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(argument_info) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "typedef struct { int a; float b; double c; } triple;\n"
      "__kernel void k(__global const float *restrict in, __local int *scratch,\n"
      "                __constant uint *table, float4 v, triple t, char c,\n"
      "                volatile __global int *flags) {}\n",
      NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  CHECK_EQ(weft_kernel_arg_count(k), 7);
  static const struct {
    weft_arg_kind kind;
    weft_address_space space;
    size_t size;
    const char *name, *type;
    unsigned qualifiers;
  } expected[] = {
      {WEFT_ARG_BUFFER, WEFT_ADDRESS_GLOBAL, 8, "in", "float*",
       WEFT_TYPE_CONST | WEFT_TYPE_RESTRICT},
      {WEFT_ARG_LOCAL, WEFT_ADDRESS_LOCAL, 8, "scratch", "int*", 0},
      {WEFT_ARG_BUFFER, WEFT_ADDRESS_CONSTANT, 8, "table", "uint*", WEFT_TYPE_CONST},
      {WEFT_ARG_VALUE, WEFT_ADDRESS_PRIVATE, 16, "v", "float4", 0},
      {WEFT_ARG_VALUE, WEFT_ADDRESS_PRIVATE, 16, "t", "triple", 0},
      {WEFT_ARG_VALUE, WEFT_ADDRESS_PRIVATE, 1, "c", "char", 0},
      {WEFT_ARG_BUFFER, WEFT_ADDRESS_GLOBAL, 8, "flags", "int*", WEFT_TYPE_VOLATILE},
  };
  for (int i = 0; i < 7; i++) {
    weft_arg_info info;
    CHECK_OK(weft_kernel_arg_info(k, i, &info), k);
    CHECK_EQ(info.kind, expected[i].kind);
    CHECK_EQ(info.address_space, expected[i].space);
    CHECK_EQ(info.size, expected[i].size);
    CHECK(!strcmp(info.name, expected[i].name));
    CHECK(!strcmp(info.type_name, expected[i].type));
    CHECK_EQ(info.type_qualifiers, expected[i].qualifiers);
  }
  weft_arg_info info;
  CHECK_FAILS(weft_kernel_arg_info(k, 7, &info), WEFT_EARGINDEX, k,
              "there is no argument 7");
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* A __constant table, and an OpenCL 2.0 program-scope global that keeps its
 * value from one launch to the next. */
TEST(program_scope_variables) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "__constant int table[4] = {10, 20, 30, 40};\n"
      "global int counter = 5;\n"
      "__kernel void k(__global int *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  out[i] = table[3 - i] + 1000 * atomic_add(&counter, 1);\n"
      "}\n",
      "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *out = support_buffer(ctx, 16, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  size_t global = 4, local = 4;
  int r[4], seen = 0;
  for (int launch = 0; launch < 2; launch++) {
    CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
    CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
    for (int i = 0; i < 4; i++) {
      CHECK_EQ(r[i] % 1000, 40 - 10 * i);
      seen |= 1 << (r[i] / 1000 - 5);
    }
  }
  CHECK_EQ(seen, 0xff); /* counter took 5..12 over both launches */
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(null_handles) {
  weft_program *p;
  weft_kernel *k;
  CHECK_EQ(weft_program_create(NULL, "x", 0, &p), WEFT_EINVAL);
  CHECK_EQ(weft_program_build(NULL, NULL), WEFT_EINVAL);
  CHECK_EQ(weft_kernel_create(NULL, "k", &k), WEFT_EINVAL);
  CHECK(!strcmp(weft_program_build_log(NULL), ""));
  CHECK(!strcmp(weft_errmsg(NULL), "not a Weft object"));
  weft_context *ctx = support_context();
  CHECK_FAILS(weft_program_create(ctx, NULL, 0, &p), WEFT_EINVAL, ctx,
              "NULL source");
  /* A context is not a program. */
  CHECK_EQ(weft_program_build((weft_program *)ctx, NULL), WEFT_EINVAL);
  weft_context_release(ctx);
}

TEST_MAIN()
