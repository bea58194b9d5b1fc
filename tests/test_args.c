/* test_args.c: kernel arguments: validation errors, and every by-value type
 * reaching the kernel intact. */
#include "support.h"

static const char *mixed_source =
    "__kernel void k(__global int *out, __local int *tmp, int n) {\n"
    "  tmp[get_local_id(0)] = n;\n"
    "  out[get_global_id(0)] = tmp[get_local_id(0)];\n"
    "}\n";

TEST(index_out_of_range) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, mixed_source, "k");
  int v = 1;
  CHECK_FAILS(weft_kernel_set_arg_value(k, 3, &v, 4), WEFT_EARGINDEX, k,
              "kernel 'k' has 3 arguments; there is no argument 3");
  CHECK_FAILS(weft_kernel_set_arg_value(k, -1, &v, 4), WEFT_EARGINDEX, k,
              "no argument -1");
  CHECK_FAILS(weft_kernel_set_arg_local(k, 9, 16), WEFT_EARGINDEX, k, "9");
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(wrong_size) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, mixed_source, "k");
  long long v = 1;
  CHECK_FAILS(weft_kernel_set_arg_value(k, 2, &v, sizeof v), WEFT_EARGSIZE, k,
              "argument 2 ('int n') of kernel 'k' is 4 bytes, not 8");
  CHECK_FAILS(weft_kernel_set_arg_local(k, 1, 0), WEFT_EARGSIZE, k,
              "local memory size is 0");
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(wrong_kind) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, mixed_source, "k");
  weft_buffer *b = support_buffer(ctx, 64, NULL);
  int v = 1;
  CHECK_FAILS(weft_kernel_set_arg_value(k, 0, &v, 4), WEFT_EARGKIND, k,
              "argument 0 ('int* out') of kernel 'k' takes a buffer, not a value");
  CHECK_FAILS(weft_kernel_set_arg_buffer(k, 2, b), WEFT_EARGKIND, k,
              "takes a value, not a buffer");
  CHECK_FAILS(weft_kernel_set_arg_buffer(k, 1, b), WEFT_EARGKIND, k,
              "takes a local memory size, not a buffer");
  CHECK_FAILS(weft_kernel_set_arg_local(k, 0, 64), WEFT_EARGKIND, k,
              "takes a buffer, not a local memory size");
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(unset_argument) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, mixed_source, "k");
  weft_buffer *b = support_buffer(ctx, 64, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, 64), k);
  size_t global = 16;
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, NULL), WEFT_EARGUNSET, k,
              "argument 2 ('int n') of kernel 'k' is not set");
  int n = 5;
  CHECK_OK(weft_kernel_set_arg_value(k, 2, &n, 4), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  int r[16];
  CHECK_OK(weft_buffer_read(b, 0, sizeof r, r), b);
  for (int i = 0; i < 16; i++) CHECK_EQ(r[i], 5);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(null_arguments_and_handles) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, mixed_source, "k");
  CHECK_FAILS(weft_kernel_set_arg_value(k, 2, NULL, 4), WEFT_EINVAL, k,
              "NULL value");
  CHECK_EQ(weft_kernel_set_arg_value(NULL, 2, "x", 4), WEFT_EINVAL);
  CHECK_EQ(weft_kernel_set_arg_buffer(NULL, 0, NULL), WEFT_EINVAL);
  CHECK_EQ(weft_kernel_launch(NULL, 1, NULL, NULL, NULL), WEFT_EINVAL);
  CHECK_EQ(weft_kernel_arg_count(NULL), WEFT_EINVAL);
  /* A program is not a buffer. */
  CHECK_FAILS(weft_kernel_set_arg_buffer(k, 0, (weft_buffer *)ctx), WEFT_EINVAL,
              k, "not a buffer");
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(buffer_from_another_context) {
  weft_context *ctx = support_context(), *other = support_context();
  weft_kernel *k = support_kernel(ctx, mixed_source, "k");
  weft_buffer *b = support_buffer(other, 64, NULL);
  CHECK_FAILS(weft_kernel_set_arg_buffer(k, 0, b), WEFT_EINVAL, k,
              "belongs to another context");
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(other);
  weft_context_release(ctx);
}

/* A NULL buffer passes a NULL pointer, which the kernel can test. */
TEST(null_buffer_is_null_pointer) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(
      ctx,
      "__kernel void k(__global int *maybe, __global int *out) {\n"
      "  out[0] = maybe == 0 ? 11 : 22;\n"
      "}\n",
      "k");
  weft_buffer *out = support_buffer(ctx, 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, NULL), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, out), k);
  size_t one = 1;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &one, NULL), k);
  int r;
  CHECK_OK(weft_buffer_read(out, 0, 4, &r), out);
  CHECK_EQ(r, 11);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &one, NULL), k);
  CHECK_OK(weft_buffer_read(out, 0, 4, &r), out);
  CHECK_EQ(r, 22);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Every scalar type, a vector, a 3-vector and a struct, passed by value and
 * written back by the kernel, arrive with every byte intact. */
typedef struct {
  int a;
  float b;
  double c;
  char d;
} host_triple;

TEST(by_value_types) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "typedef struct { int a; float b; double c; char d; } triple;\n"
      "__kernel void k(__global double *out, char c, uchar uc, short s,\n"
      "                ushort us, int i, uint ui, long l, ulong ul, float f,\n"
      "                double d, float4 v, int3 v3, triple t) {\n"
      "  out[0] = c; out[1] = uc; out[2] = s; out[3] = us; out[4] = i;\n"
      "  out[5] = ui; out[6] = l; out[7] = ul; out[8] = f; out[9] = d;\n"
      "  out[10] = v.x + 10 * v.y + 100 * v.z + 1000 * v.w;\n"
      "  out[11] = v3.x + 10 * v3.y + 100 * v3.z;\n"
      "  out[12] = t.a; out[13] = t.b; out[14] = t.c; out[15] = t.d;\n"
      "}\n",
      NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *out = support_buffer(ctx, 16 * 8, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  signed char c = -100;
  unsigned char uc = 200;
  short s = -30000;
  unsigned short us = 60000;
  int i = -2000000000;
  unsigned ui = 4000000000u;
  long long l = -(1ll << 50);
  unsigned long long ul = 1ull << 52;
  float f = 1.5f;
  double d = 1e-300;
  float v[4] = {1, 2, 3, 4};
  int v3[4] = {5, 6, 7, 99};
  host_triple t = {-7, 0.25f, 3.5, 'x'};
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &c, 1), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 2, &uc, 1), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 3, &s, 2), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 4, &us, 2), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 5, &i, 4), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 6, &ui, 4), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 7, &l, 8), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 8, &ul, 8), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 9, &f, 4), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 10, &d, 8), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 11, v, 16), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 12, v3, 16), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 13, &t, sizeof t), k);
  size_t one = 1;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &one, NULL), k);
  double r[16];
  CHECK_OK(weft_buffer_read(out, 0, sizeof r, r), out);
  const double expected[16] = {-100, 200, -30000, 60000, -2000000000.0,
                               4000000000.0, -(double)(1ll << 50),
                               (double)(1ull << 52), 1.5, 1e-300, 4321, 765,
                               -7, 0.25, 3.5, 'x'};
  for (int j = 0; j < 16; j++)
    if (r[j] != expected[j]) FAIL("field %d: %g, expected %g", j, r[j], expected[j]);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* A clone keeps the values its kernel had, whatever is set afterwards. */
TEST(clone_keeps_its_values) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, mixed_source, "k"), *clone;
  weft_buffer *b = support_buffer(ctx, 64, NULL);
  int n = 3;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, 64), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 2, &n, 4), k);
  CHECK_OK(weft_kernel_clone(k, &clone), k);
  n = 9;
  CHECK_OK(weft_kernel_set_arg_value(k, 2, &n, 4), k);
  size_t global = 16;
  CHECK_OK(weft_kernel_launch(clone, 1, NULL, &global, NULL), clone);
  int r[16];
  CHECK_OK(weft_buffer_read(b, 0, sizeof r, r), b);
  CHECK_EQ(r[0], 3);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  CHECK_OK(weft_buffer_read(b, 0, sizeof r, r), b);
  CHECK_EQ(r[15], 9);
  weft_kernel_release(k);
  CHECK_OK(weft_kernel_launch(clone, 1, NULL, &global, NULL), clone);
  CHECK_OK(weft_buffer_read(b, 0, sizeof r, r), b);
  CHECK_EQ(r[15], 3);
  weft_kernel_release(clone);
  weft_buffer_release(b);
  weft_context_release(ctx);
}

TEST_MAIN()
