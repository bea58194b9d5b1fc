/* test_program_ir.c: programs as IR: separate compilation with embedded
 * headers, linking objects and libraries, binaries in and out, and the
 * errors of each. */
#include "support.h"

static const char *helper_unit =
    "int twice(int x) { return 2 * x; }\n";

static const char *kernel_unit =
    "int twice(int x);\n"
    "__kernel void k(__global int *a) {\n"
    "  a[get_global_id(0)] = twice(a[get_global_id(0)]) + OFFSET;\n"
    "}\n";

static weft_program *compiled(weft_context *ctx, const char *source,
                              const char *options) {
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, source, 0, &p), ctx);
  CHECK_OK(weft_program_compile(p, options, 0, NULL, NULL), p);
  CHECK_EQ(weft_program_get_binary_type(p), WEFT_BINARY_OBJECT);
  return p;
}

/* Runs k of p on {0..7} and checks a[i] == 2 * i + offset. */
static void check_runs(weft_context *ctx, weft_program *p, int offset) {
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  int data[8];
  for (int i = 0; i < 8; i++) data[i] = i;
  weft_buffer *b = support_buffer(ctx, sizeof data, data);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 8;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  CHECK_OK(weft_buffer_read(b, 0, sizeof data, data), b);
  for (int i = 0; i < 8; i++) CHECK_EQ(data[i], 2 * i + offset);
  weft_buffer_release(b);
  weft_kernel_release(k);
}

TEST(compile_and_link_two_units) {
  weft_context *ctx = support_context();
  weft_program *units[2] = {compiled(ctx, helper_unit, ""),
                            compiled(ctx, kernel_unit, "-DOFFSET=5")};
  /* Compiled objects have no kernels to run. */
  CHECK_FAILS(weft_program_kernel_count(units[1]), WEFT_ENOTBUILT, units[1],
              "not built");
  weft_program *linked;
  CHECK_OK(weft_program_link(ctx, 2, units, "", &linked), ctx);
  CHECK_EQ(weft_program_get_binary_type(linked), WEFT_BINARY_EXECUTABLE);
  CHECK_EQ(weft_program_kernel_count(linked), 1);
  check_runs(ctx, linked, 5);
  weft_program_release(linked);
  weft_program_release(units[0]);
  weft_program_release(units[1]);
  weft_context_release(ctx);
}

TEST(embedded_header) {
  weft_context *ctx = support_context();
  weft_program *p;
  CHECK_OK(weft_program_create(ctx,
                               "#include \"sub/offset.h\"\n"
                               "int twice(int x) { return x + x; }\n"
                               "__kernel void k(__global int *a) {\n"
                               "  a[get_global_id(0)] = twice(a[get_global_id(0)]) + OFFSET;\n"
                               "}\n", 0, &p), ctx);
  const char *names[] = {"sub/offset.h"};
  const char *sources[] = {"#define OFFSET 9\n"};
  CHECK_OK(weft_program_compile(p, "", 1, names, sources), p);
  weft_program *linked;
  CHECK_OK(weft_program_link(ctx, 1, &p, NULL, &linked), ctx);
  check_runs(ctx, linked, 9);
  weft_program_release(linked);
  /* Without the header, the include fails with its location. */
  CHECK_FAILS(weft_program_compile(p, "", 0, NULL, NULL), WEFT_EBUILD, p,
              "offset.h");
  CHECK_STR_CONTAINS(weft_program_build_log(p), "program.cl:1:10: fatal error");
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(library_then_executable) {
  weft_context *ctx = support_context();
  weft_program *helper = compiled(ctx, helper_unit, "");
  weft_program *lib;
  CHECK_OK(weft_program_link(ctx, 1, &helper, "-create-library", &lib), ctx);
  CHECK_EQ(weft_program_get_binary_type(lib), WEFT_BINARY_LIBRARY);
  weft_program *units[2] = {compiled(ctx, kernel_unit, "-DOFFSET=1"), lib};
  weft_program *exe;
  CHECK_OK(weft_program_link(ctx, 2, units, "-cl-fast-relaxed-math", &exe), ctx);
  check_runs(ctx, exe, 1);
  /* What each was made from and with: source for the compiled units
   * only; options as given to the last compile or link. */
  size_t length = 0;
  CHECK_STR_CONTAINS(weft_program_source(units[0], &length), "OFFSET");
  CHECK_EQ(length, strlen(kernel_unit));
  CHECK(weft_program_source(lib, &length) == NULL && length == 0);
  CHECK(weft_program_source(exe, NULL) == NULL);
  char options[32];
  CHECK_EQ(weft_program_options(units[0], options, sizeof options),
           (long)sizeof "-DOFFSET=1");
  CHECK(!strcmp(options, "-DOFFSET=1"));
  CHECK_EQ(weft_program_options(lib, options, sizeof options),
           (long)sizeof "-create-library");
  CHECK(!strcmp(options, "-create-library"));
  CHECK_EQ(weft_program_options(exe, NULL, 0),
           (long)sizeof "-cl-fast-relaxed-math");
  CHECK_EQ(weft_program_options(exe, options, 4), 22);
  CHECK(!strcmp(options, "-cl"));
  CHECK_EQ(weft_program_options(exe, NULL, 4), WEFT_EINVAL);
  CHECK_EQ(weft_program_options(NULL, options, 4), WEFT_EINVAL);
  weft_program *all[4] = {helper, units[0], lib, exe};
  for (int i = 0; i < 4; i++) weft_program_release(all[i]);
  weft_context_release(ctx);
}

TEST(link_errors) {
  weft_context *ctx = support_context();
  weft_program *a = compiled(ctx, helper_unit, "");
  weft_program *b = compiled(ctx, helper_unit, "");
  weft_program *pair[2] = {a, b};
  weft_program *out;
  /* A function defined twice. */
  CHECK_EQ(weft_program_link(ctx, 2, pair, "", &out), WEFT_EBUILD);
  CHECK(out);
  CHECK_STR_CONTAINS(weft_program_build_log(out), "twice");
  CHECK_EQ(weft_program_get_binary_type(out), WEFT_BINARY_NONE);
  weft_program_release(out);
  /* A function defined nowhere: the linked program fails to build. */
  weft_program *k = compiled(ctx, kernel_unit, "-DOFFSET=0");
  CHECK_EQ(weft_program_link(ctx, 1, &k, "", &out), WEFT_EBUILD);
  CHECK(out);
  CHECK_STR_CONTAINS(weft_program_build_log(out), "twice");
  weft_program_release(out);
  /* Options that are not link options. */
  CHECK_FAILS(weft_program_link(ctx, 1, &a, "-DX=1", &out), WEFT_EOPTION, ctx,
              "'-DX=1' is not a link option");
  /* Inputs must be compiled. */
  weft_program *raw;
  CHECK_OK(weft_program_create(ctx, helper_unit, 0, &raw), ctx);
  CHECK_FAILS(weft_program_link(ctx, 1, &raw, "", &out), WEFT_ENOTBUILT, ctx,
              "input 0 is not a compiled object");
  CHECK_FAILS(weft_program_link(ctx, 0, &raw, "", &out), WEFT_EINVAL, ctx,
              "nothing to link");
  weft_program_release(raw);
  weft_program_release(a);
  weft_program_release(b);
  weft_program_release(k);
  weft_context_release(ctx);
}

/* Binary in, binary out: an executable's binary builds without the front
 * end; an object's binary links. */
TEST(binary_round_trip) {
  weft_context *ctx = support_context();
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, "int twice(int x) { return 2 * x; }\n"
                                    "__kernel void k(__global int *a) {\n"
                                    "  a[get_global_id(0)] = twice(a[get_global_id(0)]) + OFFSET;\n"
                                    "}\n", 0, &p), ctx);
  void *bin;
  size_t size;
  CHECK_FAILS(weft_program_get_binary(p, &bin, &size), WEFT_ENOTBUILT, p,
              "no binary");
  CHECK_OK(weft_program_build(p, "-DOFFSET=3"), p);
  CHECK_OK(weft_program_get_binary(p, &bin, &size), p);
  weft_program *q;
  CHECK_OK(weft_program_create_binary(ctx, bin, size, &q), ctx);
  CHECK_EQ(weft_program_get_binary_type(q), WEFT_BINARY_NONE);
  CHECK_OK(weft_program_build(q, ""), q); /* -D was applied at compile */
  check_runs(ctx, q, 3);
  free(bin);
  /* A compiled object's binary can be linked. */
  weft_program *obj = compiled(ctx, helper_unit, "");
  CHECK_OK(weft_program_get_binary(obj, &bin, &size), obj);
  weft_program *obj2;
  CHECK_OK(weft_program_create_binary(ctx, bin, size, &obj2), ctx);
  CHECK_EQ(weft_program_get_binary_type(obj2), WEFT_BINARY_OBJECT);
  weft_program *units[2] = {obj2, compiled(ctx, kernel_unit, "-DOFFSET=2")};
  weft_program *exe;
  CHECK_OK(weft_program_link(ctx, 2, units, "", &exe), ctx);
  check_runs(ctx, exe, 2);
  free(bin);
  weft_program *all[6] = {p, q, obj, obj2, units[1], exe};
  for (int i = 0; i < 6; i++) weft_program_release(all[i]);
  weft_context_release(ctx);
}

TEST(bad_binaries) {
  weft_context *ctx = support_context();
  weft_program *p, *q;
  CHECK_OK(weft_program_create(ctx, helper_unit, 0, &p), ctx);
  CHECK_OK(weft_program_compile(p, "", 0, NULL, NULL), p);
  void *bin;
  size_t size;
  CHECK_OK(weft_program_get_binary(p, &bin, &size), p);
  CHECK_FAILS(weft_program_create_binary(ctx, "garbage", 7, &q), WEFT_EINVAL,
              ctx, "not a Weft program binary");
  CHECK_FAILS(weft_program_create_binary(ctx, bin, size - 10, &q), WEFT_EINVAL,
              ctx, "damaged");
  unsigned char *copy = malloc(size);
  memcpy(copy, bin, size);
  memcpy(copy + 16, "nvptx", 6); /* another device's target */
  CHECK_FAILS(weft_program_create_binary(ctx, copy, size, &q), WEFT_EINVAL, ctx,
              "another kind of device");
  /* Broken bitcode in a whole container: its checksum says so. */
  memcpy(copy, bin, size);
  memset(copy + size / 2, 0xff, size / 4);
  CHECK_FAILS(weft_program_create_binary(ctx, copy, size, &q), WEFT_EINVAL, ctx,
              "damaged");
  /* Another version's container is named as such. */
  memcpy(copy, bin, size);
  copy[8] = 1;
  CHECK_FAILS(weft_program_create_binary(ctx, copy, size, &q), WEFT_EINVAL, ctx,
              "another version of Weft");
  free(copy);
  free(bin);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* One-byte corruptions anywhere in a binary (LLVM's bitcode reader
 * crashed on some): every one is refused with WEFT_EINVAL, or, where it
 * changes nothing the checks see, builds; none crashes. */
TEST(corrupted_binaries_are_refused) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, "__kernel void k(__global int *a) {\n"
                                       "  a[get_global_id(0)] *= 3;\n"
                                       "}\n", NULL);
  void *bin;
  size_t size;
  CHECK_OK(weft_program_get_binary(p, &bin, &size), p);
  unsigned char *copy = malloc(size);
  unsigned seed = 1;
  int refused = 0;
  for (int i = 0; i < 200; i++) {
    memcpy(copy, bin, size);
    seed = seed * 1103515245u + 12345u;
    size_t at = (seed >> 8) % size;
    copy[at] ^= (unsigned char)(1 + (seed >> 24) % 255);
    weft_program *q;
    int rc = weft_program_create_binary(ctx, copy, size, &q);
    if (rc) {
      CHECK_EQ(rc, WEFT_EINVAL);
      refused++;
      continue;
    }
    /* Only the header's unchecked bytes (the target name's padding) may
     * change without a refusal. */
    CHECK(at < 64);
    weft_program_release(q);
  }
  CHECK(refused >= 190);
  free(copy);
  free(bin);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(compile_errors_and_rebuilds) {
  weft_context *ctx = support_context();
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, "int f(void) { return y; }\n", 0, &p), ctx);
  CHECK_FAILS(weft_program_compile(p, "", 0, NULL, NULL), WEFT_EBUILD, p,
              "compilation failed");
  CHECK_STR_CONTAINS(weft_program_build_log(p), "program.cl:1:22: error");
  CHECK_EQ(weft_program_get_binary_type(p), WEFT_BINARY_NONE);
  CHECK_FAILS(weft_program_compile(p, "-not-an-option", 0, NULL, NULL),
              WEFT_EOPTION, p, "-not-an-option");
  weft_program_release(p);
  /* A program from a binary has no source to compile. */
  weft_program *obj = compiled(ctx, helper_unit, "");
  void *bin;
  size_t size;
  CHECK_OK(weft_program_get_binary(obj, &bin, &size), obj);
  weft_program *q;
  CHECK_OK(weft_program_create_binary(ctx, bin, size, &q), ctx);
  CHECK_FAILS(weft_program_compile(q, "", 0, NULL, NULL), WEFT_EINVAL, q,
              "only a program made from source");
  free(bin);
  weft_program_release(q);
  weft_program_release(obj);
  weft_context_release(ctx);
}

TEST_MAIN()
