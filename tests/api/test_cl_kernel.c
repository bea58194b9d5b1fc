/* test_cl_kernel.c: kernels: creation, arguments and their validation,
 * queries (kernel, argument, work-group), clones, NDRange launches and
 * their validation (each work-item's ids checked one by one), tasks, and a
 * kernel that crashes. */
#include <pthread.h>
#include <stdint.h>

#include <CL/cl_ext.h>

#include "cl_support.h"

typedef cl_env env;

static env setup(void) { return cl_env_open(); }
static void teardown(env *e) { cl_env_close(e); }

static cl_program build(env *e, const char *source, const char *options) {
  return cl_build(e->ctx, source, options);
}

static cl_kernel kernel(cl_program p, const char *name) {
  cl_int err = 12345;
  cl_kernel k = clCreateKernel(p, name, &err);
  if (err != CL_SUCCESS) FAIL("clCreateKernel(%s): %s", name, cl_error_name(err));
  return k;
}

static cl_uint kernel_uint(cl_kernel k, cl_kernel_info param) {
  cl_uint v = 0;
  size_t size = 0;
  CL_CHECK(clGetKernelInfo(k, param, sizeof v, &v, &size));
  CHECK_EQ(size, sizeof v);
  return v;
}

static void kernel_name(cl_kernel k, char *out, size_t size) {
  size_t ret = 0;
  CL_CHECK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, size, out, &ret));
  CHECK_EQ(ret, strlen(out) + 1);
}

static void read_ints(env *e, cl_mem m, int *out, size_t n) {
  CL_CHECK(clEnqueueReadBuffer(e->q, m, CL_TRUE, 0, n * sizeof(int), out, 0, NULL,
                               NULL));
}

static const char *three_kernels =
    "int helper(int x) { return x + 1; }\n"
    "__kernel void first(__global int *a) { a[0] = helper(1); }\n"
    "__kernel void second(__global int *a, int v) { a[1] = v; }\n"
    "__kernel void third() { }\n";

/* ---------------------------------------------------------- creation */

TEST(create_kernel_errors) {
  env e = setup();
  cl_program p = build(&e, three_kernels, "");
  cl_int err;
  CHECK(clCreateKernel(p, "fourth", &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
  /* A function that is not a kernel is not a kernel name. */
  CHECK(clCreateKernel(p, "helper", &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
  CHECK(clCreateKernel(p, "", &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_KERNEL_NAME);
  CHECK(clCreateKernel(p, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  CHECK(clCreateKernel((cl_program)e.ctx, "first", &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROGRAM);
  /* Not built, and failed to build: no executable. */
  cl_program unbuilt = clCreateProgramWithSource(e.ctx, 1, &three_kernels, NULL, &err);
  CL_CHECK(err);
  CHECK(clCreateKernel(unbuilt, "first", &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE);
  const char *broken = "__kernel void first(__global int *a) { a[0] = ; }\n";
  cl_program failed = clCreateProgramWithSource(e.ctx, 1, &broken, NULL, &err);
  CL_CHECK(err);
  CL_CHECK_ERR(clBuildProgram(failed, 0, NULL, "", NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
  CHECK(clCreateKernel(failed, "first", &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE);
  /* errcode_ret may be NULL. */
  cl_kernel k = clCreateKernel(p, "second", NULL);
  CHECK(k != NULL);
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(failed));
  CL_CHECK(clReleaseProgram(unbuilt));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* The binary of a program (CL_PROGRAM_BINARIES), as a new program. */
static cl_program from_binary(env *e, cl_program p) {
  size_t size = 0;
  CL_CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size,
                            NULL));
  unsigned char *bytes = malloc(size);
  CHECK(bytes != NULL);
  CL_CHECK(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bytes, &bytes,
                            NULL));
  const unsigned char *in = bytes;
  cl_int err, status;
  cl_program b = clCreateProgramWithBinary(e->ctx, 1, &e->dev, &size, &in,
                                           &status, &err);
  CL_CHECK(err);
  CL_CHECK(status);
  free(bytes);
  return b;
}

static cl_program_binary_type binary_type(env *e, cl_program p) {
  cl_program_binary_type t = 0;
  CL_CHECK(clGetProgramBuildInfo(p, e->dev, CL_PROGRAM_BINARY_TYPE, sizeof t,
                                 &t, NULL));
  return t;
}

/* A program made from an executable's binary is an executable (the CTS's
 * program_binary_type), and kernels come from it without clBuildProgram
 * (piglit's clcreateprogramwithbinary), built then as clBuildProgram with
 * no options would; an object's binary still needs a link. */
TEST(kernel_from_an_executable_binary) {
  env e = setup();
  cl_program p = build(&e, three_kernels, "");
  cl_program b = from_binary(&e, p);
  CHECK_EQ(binary_type(&e, b), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  cl_build_status status = CL_BUILD_SUCCESS;
  CL_CHECK(clGetProgramBuildInfo(b, e.dev, CL_PROGRAM_BUILD_STATUS,
                                 sizeof status, &status, NULL));
  CHECK_EQ(status, CL_BUILD_NONE);
  cl_kernel k = kernel(b, "second");
  int zero[2] = {0, 0}, got[2];
  cl_mem m = cl_buffer(e.ctx, sizeof zero, zero);
  int v = 42;
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, sizeof v, &v));
  size_t one = 1;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
  read_ints(&e, m, got, 2);
  CHECK_EQ(got[1], 42);
  CL_CHECK(clGetProgramBuildInfo(b, e.dev, CL_PROGRAM_BUILD_STATUS,
                                 sizeof status, &status, NULL));
  CHECK_EQ(status, CL_BUILD_SUCCESS);
  CHECK_EQ(binary_type(&e, b), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
  CL_CHECK(clReleaseKernel(k));
  /* A launch still queued (behind a user event) keeps the executable it
   * was enqueued with: once its kernel is released the program may be
   * rebuilt (piglit's clcreateprogramwithbinary does), and the launch
   * then runs the old executable, as kernels of the new one run theirs. */
  cl_int err;
  cl_kernel queued = kernel(b, "second");
  int later = 43;
  CL_CHECK(clSetKernelArg(queued, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(queued, 1, sizeof later, &later));
  cl_event gate = clCreateUserEvent(e.ctx, &err);
  CL_CHECK(err);
  CL_CHECK(clEnqueueNDRangeKernel(e.q, queued, 1, NULL, &one, NULL, 1, &gate,
                                  NULL));
  CL_CHECK_ERR(clBuildProgram(b, 0, NULL, NULL, NULL, NULL),
               CL_INVALID_OPERATION); /* its kernel object still exists */
  CL_CHECK(clReleaseKernel(queued));
  CL_CHECK(clBuildProgram(b, 0, NULL, NULL, NULL, NULL));
  CL_CHECK(clBuildProgram(b, 0, NULL, "-DAGAIN", NULL, NULL));
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clFinish(e.q));
  CL_CHECK(clReleaseEvent(gate));
  read_ints(&e, m, got, 2);
  CHECK_EQ(got[1], 43);
  cl_kernel rebuilt = kernel(b, "second");
  int newest = 44;
  CL_CHECK(clSetKernelArg(rebuilt, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(rebuilt, 1, sizeof newest, &newest));
  CL_CHECK(clEnqueueNDRangeKernel(e.q, rebuilt, 1, NULL, &one, NULL, 0, NULL, NULL));
  read_ints(&e, m, got, 2);
  CHECK_EQ(got[1], 44);
  CL_CHECK(clReleaseKernel(rebuilt));
  /* A compiled object's binary: no kernels before a link. */
  cl_program src = clCreateProgramWithSource(e.ctx, 1, &three_kernels, NULL,
                                             &err);
  CL_CHECK(err);
  CL_CHECK(clCompileProgram(src, 0, NULL, "", 0, NULL, NULL, NULL, NULL));
  cl_program object = from_binary(&e, src);
  CHECK_EQ(binary_type(&e, object), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
  CHECK(clCreateKernel(object, "first", &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROGRAM_EXECUTABLE);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseProgram(object));
  CL_CHECK(clReleaseProgram(src));
  CL_CHECK(clReleaseProgram(b));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

TEST(create_kernels_in_program) {
  env e = setup();
  cl_program p = build(&e, three_kernels, "");
  cl_uint n = 0;
  CL_CHECK(clCreateKernelsInProgram(p, 0, NULL, &n));
  CHECK_EQ(n, 3);
  cl_kernel ks[4] = {NULL, NULL, NULL, NULL};
  cl_uint again = 0;
  CL_CHECK(clCreateKernelsInProgram(p, 4, ks, &again));
  CHECK_EQ(again, 3);
  CHECK(ks[3] == NULL);
  /* Each of the three kernels, once. */
  int seen[3] = {0, 0, 0};
  static const char *const names[] = {"first", "second", "third"};
  for (int i = 0; i < 3; i++) {
    char name[32];
    kernel_name(ks[i], name, sizeof name);
    for (int j = 0; j < 3; j++) seen[j] += !strcmp(name, names[j]);
    CHECK_EQ(kernel_uint(ks[i], CL_KERNEL_REFERENCE_COUNT), 1);
  }
  CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
  /* The kernels work. */
  cl_mem m = cl_buffer(e.ctx, 2 * sizeof(int), NULL);
  int v = 77;
  for (int i = 0; i < 3; i++) {
    char name[32];
    kernel_name(ks[i], name, sizeof name);
    if (!strcmp(name, "third")) continue;
    CL_CHECK(clSetKernelArg(ks[i], 0, sizeof m, &m));
    if (!strcmp(name, "second")) CL_CHECK(clSetKernelArg(ks[i], 1, sizeof v, &v));
    CL_CHECK(clEnqueueTask(e.q, ks[i], 0, NULL, NULL));
  }
  int out[2];
  read_ints(&e, m, out, 2);
  CHECK_EQ(out[0], 2);
  CHECK_EQ(out[1], 77);
  for (int i = 0; i < 3; i++) CL_CHECK(clReleaseKernel(ks[i]));
  /* Too little room; no executable. */
  CL_CHECK_ERR(clCreateKernelsInProgram(p, 2, ks, NULL), CL_INVALID_VALUE);
  cl_int err;
  cl_program unbuilt = clCreateProgramWithSource(e.ctx, 1, &three_kernels, NULL, &err);
  CL_CHECK(err);
  CL_CHECK_ERR(clCreateKernelsInProgram(unbuilt, 4, ks, &n),
               CL_INVALID_PROGRAM_EXECUTABLE);
  CL_CHECK_ERR(clCreateKernelsInProgram((cl_program)m, 4, ks, &n), CL_INVALID_PROGRAM);
  CL_CHECK(clReleaseProgram(unbuilt));
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* A kernel keeps its program: released by the application, the program
 * still counts the kernel and serves it. */
/* CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE: the bytes of the
 * program's own __global variables (the CTS's progvar tests): 0 for none,
 * and not the builtins'. */
TEST(global_variable_total_size) {
  env e = setup();
  static const char *with =
      "__global int table[16384];\n"
      "__global float4 v = (float4)(1, 2, 3, 4);\n"
      "__constant int c[8] = {1};\n"
      "__kernel void k(__global int *a) { a[0] = table[a[1]] + (int)v.x + c[0]; }\n";
  static const char *without = "__kernel void k(__global int *a) { a[0] = 1; }\n";
  const char *sources[2] = {with, without};
  const size_t want[2] = {16384 * 4 + 16, 0};
  for (int i = 0; i < 2; i++) {
    cl_program p = cl_build(e.ctx, sources[i], "-cl-std=CL2.0");
    size_t total = 1;
    CL_CHECK(clGetProgramBuildInfo(p, e.dev, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE,
                                   sizeof total, &total, NULL));
    CHECK_EQ(total, want[i]);
    CL_CHECK(clReleaseProgram(p));
  }
  teardown(&e);
}

TEST(kernel_keeps_program) {
  env e = setup();
  cl_program p = build(&e, three_kernels, "");
  cl_kernel k = kernel(p, "second");
  cl_program got = NULL;
  CL_CHECK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof got, &got, NULL));
  CHECK(got == p);
  CL_CHECK(clReleaseProgram(p));
  cl_mem m = cl_buffer(e.ctx, 2 * sizeof(int), NULL);
  int v = 5;
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, sizeof v, &v));
  CL_CHECK(clEnqueueTask(e.q, k, 0, NULL, NULL));
  int out[2];
  read_ints(&e, m, out, 2);
  CHECK_EQ(out[1], 5);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

/* ---------------------------------------------------------- arguments */

static const char *args_source =
    "typedef struct { int a; float b; char c; long d; } mixed;\n"
    "__kernel void args(__global int *out, int i, float4 v, mixed s,\n"
    "                   __local float *scratch, __constant int *table,\n"
    "                   long l, char c, __global int *maybe) {\n"
    "  scratch[get_local_id(0)] = v.w;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_global_id(0) != 0) return;\n"
    "  out[0] = i;\n"
    "  out[1] = (int)(v.x + v.y * 10 + v.z * 100 + scratch[0] * 1000);\n"
    "  out[2] = s.a; out[3] = (int)s.b; out[4] = s.c; out[5] = (int)(s.d >> 32);\n"
    "  out[6] = table[0] + table[1];\n"
    "  out[7] = (int)(l >> 40); out[8] = c;\n"
    "  out[9] = maybe == 0 ? 1 : 2;\n"
    "}\n";

typedef struct {
  cl_int a;
  cl_float b;
  cl_char c;
  cl_long d;
} mixed;

/* Sets every argument of "args" validly. */
static void set_all_args(env *e, cl_kernel k, cl_mem out, cl_mem table) {
  (void)e;
  cl_int i = 41;
  cl_float4 v = {{1, 2, 3, 4}};
  mixed s = {7, 8.5f, 9, (cl_long)3 << 32};
  cl_long l = (cl_long)5 << 40;
  cl_char c = -3;
  CL_CHECK(clSetKernelArg(k, 0, sizeof out, &out));
  CL_CHECK(clSetKernelArg(k, 1, sizeof i, &i));
  CL_CHECK(clSetKernelArg(k, 2, sizeof v, &v));
  CL_CHECK(clSetKernelArg(k, 3, sizeof s, &s));
  CL_CHECK(clSetKernelArg(k, 4, 16 * sizeof(float), NULL));
  CL_CHECK(clSetKernelArg(k, 5, sizeof table, &table));
  CL_CHECK(clSetKernelArg(k, 6, sizeof l, &l));
  CL_CHECK(clSetKernelArg(k, 7, sizeof c, &c));
  CL_CHECK(clSetKernelArg(k, 8, sizeof(cl_mem), NULL)); /* a NULL buffer */
}

TEST(set_arg_values_arrive) {
  env e = setup();
  cl_program p = build(&e, args_source, "");
  cl_kernel k = kernel(p, "args");
  CHECK_EQ(kernel_uint(k, CL_KERNEL_NUM_ARGS), 9);
  cl_mem out = cl_buffer(e.ctx, 10 * sizeof(int), NULL);
  int table_data[2] = {100, 23};
  cl_mem table = clCreateBuffer(e.ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                sizeof table_data, table_data, NULL);
  set_all_args(&e, k, out, table);
  size_t global = 16, local = 16;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  int got[10];
  read_ints(&e, out, got, 10);
  CHECK_EQ(got[0], 41);
  CHECK_EQ(got[1], 1 + 20 + 300 + 4000);
  CHECK_EQ(got[2], 7);
  CHECK_EQ(got[3], 8);
  CHECK_EQ(got[4], 9);
  CHECK_EQ(got[5], 3);
  CHECK_EQ(got[6], 123);
  CHECK_EQ(got[7], 5);
  CHECK_EQ(got[8], -3);
  CHECK_EQ(got[9], 1);
  /* A buffer where NULL was: the kernel sees a pointer. So does a pointer
   * to a NULL cl_mem, which is NULL again. */
  CL_CHECK(clSetKernelArg(k, 8, sizeof out, &out));
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  read_ints(&e, out, got, 10);
  CHECK_EQ(got[9], 2);
  cl_mem none = NULL;
  CL_CHECK(clSetKernelArg(k, 8, sizeof none, &none));
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  read_ints(&e, out, got, 10);
  CHECK_EQ(got[9], 1);
  CL_CHECK(clReleaseMemObject(out));
  CL_CHECK(clReleaseMemObject(table));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

TEST(set_arg_errors) {
  env e = setup();
  cl_program p = build(&e, args_source, "");
  cl_kernel k = kernel(p, "args");
  cl_mem out = cl_buffer(e.ctx, 64, NULL);
  cl_int i = 1;
  cl_short sh = 1;
  cl_float4 v = {{0}};
  mixed s = {0, 0, 0, 0};
  /* Index out of range. */
  CL_CHECK_ERR(clSetKernelArg(k, 9, sizeof i, &i), CL_INVALID_ARG_INDEX);
  CL_CHECK_ERR(clSetKernelArg(k, 1000, sizeof i, &i), CL_INVALID_ARG_INDEX);
  /* Sizes: scalar, vector, struct, buffer. */
  CL_CHECK_ERR(clSetKernelArg(k, 1, sizeof sh, &sh), CL_INVALID_ARG_SIZE);
  CL_CHECK_ERR(clSetKernelArg(k, 1, 8, &v), CL_INVALID_ARG_SIZE);
  CL_CHECK_ERR(clSetKernelArg(k, 2, 3 * sizeof(cl_float), &v), CL_INVALID_ARG_SIZE);
  CL_CHECK_ERR(clSetKernelArg(k, 2, 2 * sizeof v, &v), CL_INVALID_ARG_SIZE);
  CL_CHECK_ERR(clSetKernelArg(k, 3, sizeof s - 1, &s), CL_INVALID_ARG_SIZE);
  CL_CHECK_ERR(clSetKernelArg(k, 3, sizeof s + 8, &s), CL_INVALID_ARG_SIZE);
  CL_CHECK_ERR(clSetKernelArg(k, 0, 4, &out), CL_INVALID_ARG_SIZE);
  CL_CHECK_ERR(clSetKernelArg(k, 7, 2, &sh), CL_INVALID_ARG_SIZE);
  /* NULL for a value. */
  CL_CHECK_ERR(clSetKernelArg(k, 1, sizeof i, NULL), CL_INVALID_ARG_VALUE);
  CL_CHECK_ERR(clSetKernelArg(k, 3, sizeof s, NULL), CL_INVALID_ARG_VALUE);
  /* __local: a size, never a value; never 0. */
  float f[4];
  CL_CHECK_ERR(clSetKernelArg(k, 4, sizeof f, f), CL_INVALID_ARG_VALUE);
  CL_CHECK_ERR(clSetKernelArg(k, 4, 0, NULL), CL_INVALID_ARG_SIZE);
  /* Not a memory object where one is expected. */
  cl_context not_mem = e.ctx;
  CL_CHECK_ERR(clSetKernelArg(k, 0, sizeof not_mem, &not_mem), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clSetKernelArg(k, 5, sizeof(cl_mem), &k), CL_INVALID_MEM_OBJECT);
  /* A buffer of another context. */
  cl_context other = cl_weft_context();
  cl_mem foreign = cl_buffer(other, 64, NULL);
  CL_CHECK_ERR(clSetKernelArg(k, 0, sizeof foreign, &foreign), CL_INVALID_MEM_OBJECT);
  /* Not a kernel. */
  CL_CHECK_ERR(clSetKernelArg((cl_kernel)out, 1, sizeof i, &i), CL_INVALID_KERNEL);
  CL_CHECK(clReleaseMemObject(foreign));
  CL_CHECK(clReleaseContext(other));
  CL_CHECK(clReleaseMemObject(out));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* A failed clSetKernelArg leaves the argument as it was. */
TEST(set_arg_failure_keeps_value) {
  env e = setup();
  cl_program p = build(&e, three_kernels, "");
  cl_kernel k = kernel(p, "second");
  cl_mem m = cl_buffer(e.ctx, 2 * sizeof(int), NULL);
  int v = 12;
  cl_short bad = 99;
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, sizeof v, &v));
  CL_CHECK_ERR(clSetKernelArg(k, 1, sizeof bad, &bad), CL_INVALID_ARG_SIZE);
  CL_CHECK(clEnqueueTask(e.q, k, 0, NULL, NULL));
  int out[2];
  read_ints(&e, m, out, 2);
  CHECK_EQ(out[1], 12);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

TEST(unset_args_refused_at_enqueue) {
  env e = setup();
  cl_program p = build(&e, three_kernels, "");
  cl_kernel k = kernel(p, "second");
  size_t global = 1;
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, NULL, 0, NULL, NULL),
               CL_INVALID_KERNEL_ARGS);
  cl_mem m = cl_buffer(e.ctx, 8, NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK_ERR(clEnqueueTask(e.q, k, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
  int v = 1;
  CL_CHECK(clSetKernelArg(k, 1, sizeof v, &v));
  CL_CHECK(clEnqueueTask(e.q, k, 0, NULL, NULL));
  /* A kernel without arguments needs none. */
  cl_kernel none = kernel(p, "third");
  CL_CHECK(clEnqueueTask(e.q, none, 0, NULL, NULL));
  CL_CHECK(clReleaseKernel(none));
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

static void CL_CALLBACK count_destructor(cl_mem m, void *data) {
  (void)m;
  ++*(int *)data;
}

/* What contexts made with note were told. */
typedef struct notes {
  pthread_mutex_t lock;
  char text[4096];
} notes;

static notes received = {PTHREAD_MUTEX_INITIALIZER, ""};

static void CL_CALLBACK note(const char *message, const void *info, size_t size,
                             void *user_data) {
  (void)info, (void)size, (void)user_data;
  pthread_mutex_lock(&received.lock);
  size_t used = strlen(received.text);
  snprintf(received.text + used, sizeof received.text - used, "%s\n", message);
  pthread_mutex_unlock(&received.lock);
}

/* clSetKernelArg does not keep a buffer: released, it is destroyed at
 * once (the CTS's retain_mem_object_set_kernel_arg waits for its
 * destructor). A launch enqueued before the release still has it; one
 * after is refused with a message, even when a new buffer took the
 * released one's handle. */
TEST(arg_buffer_released) {
  cl_device_id d = cl_weft_device();
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &d, note, NULL, &err);
  CL_CHECK(err);
  cl_command_queue q = clCreateCommandQueueWithProperties(c, d, NULL, &err);
  CL_CHECK(err);
  cl_program p = cl_build(c, three_kernels, "");
  cl_kernel k = kernel(p, "second");
  cl_mem m = cl_buffer(c, 2 * sizeof(int), NULL);
  int v = 31, destroyed = 0;
  CL_CHECK(clSetMemObjectDestructorCallback(m, count_destructor, &destroyed));
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, sizeof v, &v));
  cl_event ran;
  CL_CHECK(clEnqueueTask(q, k, 0, NULL, &ran));
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clWaitForEvents(1, &ran));
  CL_CHECK(clReleaseEvent(ran));
  CL_CHECK(clFinish(q));
  CHECK_EQ(destroyed, 1);
  CL_CHECK_ERR(clEnqueueTask(q, k, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
  CHECK_STR_CONTAINS(received.text, "kernel 'second': argument 0 ('int* a') is a buffer "
                            "released (clReleaseMemObject) after clSetKernelArg "
                            "set it: set the argument again");
  cl_mem reused = cl_buffer(c, 2 * sizeof(int), NULL);
  CL_CHECK_ERR(clEnqueueTask(q, k, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
  CL_CHECK(clSetKernelArg(k, 0, sizeof reused, &reused));
  CL_CHECK(clEnqueueTask(q, k, 0, NULL, NULL));
  int out[2];
  CL_CHECK(clEnqueueReadBuffer(q, reused, CL_TRUE, 0, sizeof out, out, 0, NULL,
                               NULL));
  CHECK_EQ(out[1], 31);
  CL_CHECK(clReleaseMemObject(reused));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  CL_CHECK(clReleaseCommandQueue(q));
  CL_CHECK(clReleaseContext(c));
}

/* ------------------------------------------------------------- queries */

/* CL_KERNEL_ATTRIBUTES names each attribute as written (the CTS's
 * kernel_attributes): vec_type_hint with its type's OpenCL C name, signed
 * or unsigned, scalar or vector. */
TEST(kernel_attributes_text) {
  env e = setup();
  static const char *const hints[] = {"uchar2", "ushort3", "uint4", "float8",
                                      "ulong16", "double2", "int", "char4",
                                      "short16"};
  for (size_t i = 0; i < sizeof hints / sizeof *hints; i++) {
    char source[256], want[64], attributes[160] = "";
    snprintf(source, sizeof source,
             "__attribute__((work_group_size_hint(1,1,1)))\n"
             "__attribute__((vec_type_hint(%s)))\n"
             "__attribute__((reqd_work_group_size(1,1,1)))\n"
             "__kernel void k() {}\n", hints[i]);
    cl_program p = build(&e, source, "");
    cl_kernel k = kernel(p, "k");
    CL_CHECK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof attributes,
                             attributes, NULL));
    snprintf(want, sizeof want, "vec_type_hint(%s)", hints[i]);
    CHECK_STR_CONTAINS(attributes, want);
    CHECK_STR_CONTAINS(attributes, "work_group_size_hint(1,1,1)");
    CHECK_STR_CONTAINS(attributes, "reqd_work_group_size(1,1,1)");
    CL_CHECK(clReleaseKernel(k));
    CL_CHECK(clReleaseProgram(p));
  }
  teardown(&e);
}

TEST(kernel_info_every_param) {
  env e = setup();
  cl_program p = build(&e, three_kernels, "");
  cl_kernel k = kernel(p, "second");
  char name[32];
  kernel_name(k, name, sizeof name);
  CHECK(!strcmp(name, "second"));
  CHECK_EQ(kernel_uint(k, CL_KERNEL_NUM_ARGS), 2);
  CHECK_EQ(kernel_uint(k, CL_KERNEL_REFERENCE_COUNT), 1);
  CL_CHECK(clRetainKernel(k));
  CHECK_EQ(kernel_uint(k, CL_KERNEL_REFERENCE_COUNT), 2);
  CL_CHECK(clReleaseKernel(k));
  cl_context c = NULL;
  size_t size = 0;
  CL_CHECK(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof c, &c, &size));
  CHECK(c == e.ctx);
  CHECK_EQ(size, sizeof c);
  cl_program got = NULL;
  CL_CHECK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof got, &got, &size));
  CHECK(got == p);
  char attributes[64] = "x";
  CL_CHECK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof attributes, attributes,
                           &size));
  CHECK(!strcmp(attributes, ""));
  CHECK_EQ(size, 1);
  /* Errors. */
  CL_CHECK_ERR(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, 3, name, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelInfo(k, 0x7777, sizeof name, name, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelInfo((cl_kernel)p, CL_KERNEL_NUM_ARGS, sizeof name, name,
                               NULL), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clGetKernelInfo(NULL, CL_KERNEL_NUM_ARGS, sizeof name, name, NULL),
               CL_INVALID_KERNEL);
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* A required work-group size is reported, enforced and used. */
TEST(kernel_reqd_work_group_size) {
  env e = setup();
  cl_program p = build(&e,
      "__kernel __attribute__((reqd_work_group_size(4, 2, 1)))\n"
      "void fixed(__global int *out) {\n"
      "  out[get_global_id(0) + 8 * get_global_id(1)] = get_local_size(0) * 10 +\n"
      "                                                   get_local_size(1);\n"
      "}\n", "");
  cl_kernel k = kernel(p, "fixed");
  size_t reqd[3] = {0, 0, 0};
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                    sizeof reqd, reqd, NULL));
  CHECK(reqd[0] == 4 && reqd[1] == 2 && reqd[2] == 1);
  char attributes[128] = "";
  CL_CHECK(clGetKernelInfo(k, CL_KERNEL_ATTRIBUTES, sizeof attributes, attributes,
                           NULL));
  CHECK_STR_CONTAINS(attributes, "reqd_work_group_size(4,2,1)");
  cl_mem m = cl_buffer(e.ctx, 64 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global[2] = {8, 8}, other[2] = {2, 2};
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 2, NULL, global, other, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
  /* No local size given: the required one is used. */
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 2, NULL, global, NULL, 0, NULL, NULL));
  int out[64];
  read_ints(&e, m, out, 64);
  for (int i = 0; i < 64; i++) CHECK_EQ(out[i], 42);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

static const char *arg_info_source =
    "typedef struct { int x; } pair_t;\n"
    "__kernel void info(__global const float4 *restrict in,\n"
    "                   __global volatile uint *flags,\n"
    "                   __local int *scratch,\n"
    "                   __constant short *table,\n"
    "                   int count, pair_t pair, __global pair_t *pairs,\n"
    "                   __global void *raw) {\n"
    "  flags[0] = (uint)in[0].x + count + pair.x + pairs[0].x + table[0];\n"
    "  scratch[0] = 0; (void)raw;\n"
    "}\n";

typedef struct expected_arg {
  cl_kernel_arg_address_qualifier address;
  const char *type;
  cl_kernel_arg_type_qualifier qualifiers;
  const char *name;
} expected_arg;

TEST(kernel_arg_info_with_option) {
  env e = setup();
  cl_program p = build(&e, arg_info_source, "-cl-kernel-arg-info");
  cl_kernel k = kernel(p, "info");
  static const expected_arg want[] = {
      {CL_KERNEL_ARG_ADDRESS_GLOBAL, "float4*",
       CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT, "in"},
      {CL_KERNEL_ARG_ADDRESS_GLOBAL, "uint*", CL_KERNEL_ARG_TYPE_VOLATILE, "flags"},
      {CL_KERNEL_ARG_ADDRESS_LOCAL, "int*", CL_KERNEL_ARG_TYPE_NONE, "scratch"},
      /* A __constant pointer is reported const. */
      {CL_KERNEL_ARG_ADDRESS_CONSTANT, "short*", CL_KERNEL_ARG_TYPE_CONST, "table"},
      {CL_KERNEL_ARG_ADDRESS_PRIVATE, "int", CL_KERNEL_ARG_TYPE_NONE, "count"},
      {CL_KERNEL_ARG_ADDRESS_PRIVATE, "pair_t", CL_KERNEL_ARG_TYPE_NONE, "pair"},
      {CL_KERNEL_ARG_ADDRESS_GLOBAL, "pair_t*", CL_KERNEL_ARG_TYPE_NONE, "pairs"},
      {CL_KERNEL_ARG_ADDRESS_GLOBAL, "void*", CL_KERNEL_ARG_TYPE_NONE, "raw"}};
  CHECK_EQ(kernel_uint(k, CL_KERNEL_NUM_ARGS), 8);
  for (cl_uint i = 0; i < 8; i++) {
    cl_kernel_arg_address_qualifier address = 0;
    cl_kernel_arg_access_qualifier access = 0;
    cl_kernel_arg_type_qualifier qualifiers = 99;
    char type[64], name[64];
    size_t size = 0;
    CL_CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address,
                                &address, &size));
    CHECK_EQ(size, sizeof address);
    CL_CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access,
                                &access, &size));
    CHECK_EQ(size, sizeof access);
    CL_CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof qualifiers,
                                &qualifiers, &size));
    CHECK_EQ(size, sizeof qualifiers);
    CL_CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type,
                                &size));
    CHECK_EQ(size, strlen(type) + 1);
    CL_CHECK(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof name, name, &size));
    CHECK_EQ(size, strlen(name) + 1);
    if (address != want[i].address || access != CL_KERNEL_ARG_ACCESS_NONE ||
        qualifiers != want[i].qualifiers || strcmp(type, want[i].type) ||
        strcmp(name, want[i].name))
      FAIL("argument %u: address 0x%x access 0x%x qualifiers 0x%llx type '%s' "
           "name '%s'; expected 0x%x, NONE, 0x%llx, '%s', '%s'", i, address, access,
           (unsigned long long)qualifiers, type, name, want[i].address,
           (unsigned long long)want[i].qualifiers, want[i].type, want[i].name);
  }
  char small[2];
  CL_CHECK_ERR(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof small, small, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelArgInfo(k, 8, CL_KERNEL_ARG_NAME, sizeof small, small, NULL),
               CL_INVALID_ARG_INDEX);
  CL_CHECK_ERR(clGetKernelArgInfo(k, 0, 0x7777, sizeof small, small, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelArgInfo((cl_kernel)p, 0, CL_KERNEL_ARG_NAME, sizeof small,
                                  small, NULL), CL_INVALID_KERNEL);
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

TEST(kernel_arg_info_without_option) {
  env e = setup();
  cl_program p = build(&e, arg_info_source, "");
  cl_kernel k = kernel(p, "info");
  char name[64];
  static const cl_kernel_arg_info params[] = {
      CL_KERNEL_ARG_ADDRESS_QUALIFIER, CL_KERNEL_ARG_ACCESS_QUALIFIER,
      CL_KERNEL_ARG_TYPE_NAME, CL_KERNEL_ARG_TYPE_QUALIFIER, CL_KERNEL_ARG_NAME};
  for (int i = 0; i < 5; i++)
    CL_CHECK_ERR(clGetKernelArgInfo(k, 0, params[i], sizeof name, name, NULL),
                 CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
  CL_CHECK_ERR(clGetKernelArgInfo(k, 8, CL_KERNEL_ARG_NAME, sizeof name, name, NULL),
               CL_INVALID_ARG_INDEX);
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

static const char *local_source =
    "__kernel void tiles(__global float *out, __local float *extra) {\n"
    "  __local float tile[64];\n"
    "  __local int counts[8];\n"
    "  size_t l = get_local_id(0);\n"
    "  tile[l] = (float)l; extra[l] = 2.0f * l;\n"
    "  if (l < 8) counts[l] = (int)l;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = tile[63 - l] + extra[63 - l] + counts[l % 8];\n"
    "}\n";

TEST(kernel_work_group_info_every_param) {
  env e = setup();
  cl_program p = build(&e, local_source, "");
  cl_kernel k = kernel(p, "tiles");
  size_t device_max = 0;
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof device_max,
                           &device_max, NULL));
  size_t wg = 0, size = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                    &wg, &size));
  CHECK_EQ(size, sizeof wg);
  CHECK(wg >= 64 && wg <= device_max);
  size_t compile[3] = {9, 9, 9};
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                    sizeof compile, compile, &size));
  CHECK_EQ(size, sizeof compile);
  CHECK(compile[0] == 0 && compile[1] == 0 && compile[2] == 0);
  /* The kernel's own __local arrays: 64 floats and 8 ints at least. */
  cl_ulong local = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof local,
                                    &local, &size));
  CHECK_EQ(size, sizeof local);
  CHECK(local >= 64 * sizeof(float) + 8 * sizeof(int));
  /* A __local argument set adds its size. */
  CL_CHECK(clSetKernelArg(k, 1, 1000, NULL));
  cl_ulong with_arg = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_LOCAL_MEM_SIZE,
                                    sizeof with_arg, &with_arg, NULL));
  CHECK(with_arg >= local + 1000);
  size_t multiple = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                    sizeof multiple, &multiple, &size));
  CHECK_EQ(size, sizeof multiple);
  CHECK(multiple >= 1);
  cl_ulong private_mem = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_PRIVATE_MEM_SIZE,
                                    sizeof private_mem, &private_mem, &size));
  CHECK_EQ(size, sizeof private_mem);
  /* NULL device: the one device of the kernel's context. */
  size_t again = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof again,
                                    &again, NULL));
  CHECK_EQ(again, wg);
  /* Only custom devices and built-in kernels have a global work size. */
  size_t global[3];
  CL_CHECK_ERR(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_GLOBAL_WORK_SIZE,
                                        sizeof global, global, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelWorkGroupInfo(k, e.dev, 0x7777, sizeof global, global, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_WORK_GROUP_SIZE, 4, global,
                                        NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelWorkGroupInfo(k, (cl_device_id)e.ctx, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof wg, &wg, NULL), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clGetKernelWorkGroupInfo((cl_kernel)e.ctx, e.dev, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof wg, &wg, NULL), CL_INVALID_KERNEL);
  /* And the kernel runs as its queries say. */
  cl_mem out = cl_buffer(e.ctx, 128 * sizeof(float), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof out, &out));
  CL_CHECK(clSetKernelArg(k, 1, 64 * sizeof(float), NULL));
  size_t n = 128, l = 64;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &n, &l, 0, NULL, NULL));
  float got[128];
  CL_CHECK(clEnqueueReadBuffer(e.q, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < 128; i++) {
    int li = i % 64;
    CHECK_EQ((int)got[i], (63 - li) * 3 + li % 8);
  }
  CL_CHECK(clReleaseMemObject(out));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* A kernel's __local variables and __local arguments together must fit. */
TEST(local_memory_limit_counts_kernel_variables) {
  env e = setup();
  cl_program p = build(&e, local_source, "");
  cl_kernel k = kernel(p, "tiles");
  cl_ulong device_local = 0, own = 0;
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof device_local,
                           &device_local, NULL));
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof own,
                                    &own, NULL));
  cl_mem out = cl_buffer(e.ctx, 64 * sizeof(float), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof out, &out));
  /* The whole device's worth as an argument, on top of the variables. */
  CL_CHECK(clSetKernelArg(k, 1, (size_t)device_local, NULL));
  cl_ulong total = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof total,
                                    &total, NULL));
  CHECK(total > device_local);
  size_t n = 64, l = 64;
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &n, &l, 0, NULL, NULL),
               CL_OUT_OF_RESOURCES);
  /* What the query says is left does fit. */
  CL_CHECK(clSetKernelArg(k, 1, (size_t)(device_local - ((own + 127) / 128 * 128)), NULL));
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof total,
                                    &total, NULL));
  CHECK(total <= device_local);
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &n, &l, 0, NULL, NULL));
  CL_CHECK(clFinish(e.q));
  CL_CHECK(clReleaseMemObject(out));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* ---------------------------------------------------------------- clone */

TEST(clone_kernel) {
  env e = setup();
  cl_program p = build(&e, three_kernels, "");
  cl_kernel k = kernel(p, "second");
  cl_mem m1 = cl_buffer(e.ctx, 2 * sizeof(int), NULL);
  cl_mem m2 = cl_buffer(e.ctx, 2 * sizeof(int), NULL);
  int v = 10;
  CL_CHECK(clSetKernelArg(k, 0, sizeof m1, &m1));
  CL_CHECK(clSetKernelArg(k, 1, sizeof v, &v));
  cl_int err;
  cl_kernel c = clCloneKernel(k, &err);
  CL_CHECK(err);
  CHECK(c != k);
  char name[32];
  kernel_name(c, name, sizeof name);
  CHECK(!strcmp(name, "second"));
  CHECK_EQ(kernel_uint(c, CL_KERNEL_REFERENCE_COUNT), 1);
  cl_program cp = NULL;
  CL_CHECK(clGetKernelInfo(c, CL_KERNEL_PROGRAM, sizeof cp, &cp, NULL));
  CHECK(cp == p);
  /* The clone has the arguments... */
  CL_CHECK(clEnqueueTask(e.q, c, 0, NULL, NULL));
  int out[2];
  read_ints(&e, m1, out, 2);
  CHECK_EQ(out[1], 10);
  /* ...then each changes alone. */
  v = 20;
  CL_CHECK(clSetKernelArg(k, 1, sizeof v, &v));
  CL_CHECK(clSetKernelArg(k, 0, sizeof m2, &m2));
  CL_CHECK(clEnqueueTask(e.q, c, 0, NULL, NULL));
  CL_CHECK(clEnqueueTask(e.q, k, 0, NULL, NULL));
  read_ints(&e, m1, out, 2);
  CHECK_EQ(out[1], 10);
  read_ints(&e, m2, out, 2);
  CHECK_EQ(out[1], 20);
  v = 30;
  CL_CHECK(clSetKernelArg(c, 1, sizeof v, &v));
  CL_CHECK(clEnqueueTask(e.q, c, 0, NULL, NULL));
  CL_CHECK(clEnqueueTask(e.q, k, 0, NULL, NULL));
  read_ints(&e, m1, out, 2);
  CHECK_EQ(out[1], 30);
  read_ints(&e, m2, out, 2);
  CHECK_EQ(out[1], 20);
  /* The clone outlives its source. */
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clEnqueueTask(e.q, c, 0, NULL, NULL));
  CL_CHECK(clFinish(e.q));
  CL_CHECK(clReleaseKernel(c));
  CHECK(clCloneKernel((cl_kernel)m1, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_KERNEL);
  CL_CHECK(clReleaseMemObject(m1));
  CL_CHECK(clReleaseMemObject(m2));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* A clone of a kernel with __local and unset arguments: copied as they
 * are. */
TEST(clone_kernel_local_and_unset_args) {
  env e = setup();
  cl_program p = build(&e, local_source, "");
  cl_kernel k = kernel(p, "tiles");
  CL_CHECK(clSetKernelArg(k, 1, 64 * sizeof(float), NULL));
  cl_int err;
  cl_kernel c = clCloneKernel(k, &err);
  CL_CHECK(err);
  cl_ulong a = 0, b = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof a, &a,
                                    NULL));
  CL_CHECK(clGetKernelWorkGroupInfo(c, e.dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof b, &b,
                                    NULL));
  CHECK_EQ(a, b);
  size_t n = 64, l = 64;
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, c, 1, NULL, &n, &l, 0, NULL, NULL),
               CL_INVALID_KERNEL_ARGS);
  cl_mem out = cl_buffer(e.ctx, 64 * sizeof(float), NULL);
  CL_CHECK(clSetKernelArg(c, 0, sizeof out, &out));
  CL_CHECK(clEnqueueNDRangeKernel(e.q, c, 1, NULL, &n, &l, 0, NULL, NULL));
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &n, &l, 0, NULL, NULL),
               CL_INVALID_KERNEL_ARGS);
  CL_CHECK(clFinish(e.q));
  CL_CHECK(clReleaseMemObject(out));
  CL_CHECK(clReleaseKernel(c));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* ------------------------------------------------------------ launches */

/* Each work-item writes its ids: 12 ints per item at its linear global
 * index (offsets subtracted). */
static const char *ids_source =
    "__kernel void ids(__global int *out) {\n"
    "  uint d = get_work_dim();\n"
    "  size_t x = get_global_id(0) - get_global_offset(0);\n"
    "  size_t y = get_global_id(1) - get_global_offset(1);\n"
    "  size_t z = get_global_id(2) - get_global_offset(2);\n"
    "  size_t i = x + get_global_size(0) * (y + get_global_size(1) * z);\n"
    "  __global int *o = out + 12 * i;\n"
    "  o[0] = (int)d;\n"
    "  o[1] = (int)get_global_id(0); o[2] = (int)get_global_id(1);\n"
    "  o[3] = (int)get_global_id(2);\n"
    "  o[4] = (int)get_local_id(0); o[5] = (int)get_local_id(1);\n"
    "  o[6] = (int)get_local_id(2);\n"
    "  o[7] = (int)get_group_id(0); o[8] = (int)get_group_id(1);\n"
    "  o[9] = (int)get_group_id(2);\n"
    "  o[10] = (int)(get_local_size(0) * 10000 + get_local_size(1) * 100 +\n"
    "               get_local_size(2));\n"
    "  o[11] = (int)(get_num_groups(0) * 10000 + get_num_groups(1) * 100 +\n"
    "               get_num_groups(2));\n"
    "}\n";

/* Runs ids over the range and checks every work-item's ids; local may be
 * NULL (then any local size that divides is accepted, checked for
 * consistency). */
static void check_ids(env *e, cl_kernel k, cl_uint dims, const size_t *offset,
                      const size_t *global, const size_t *local) {
  size_t g[3] = {1, 1, 1}, o[3] = {0, 0, 0}, l[3] = {1, 1, 1};
  for (cl_uint d = 0; d < dims; d++) {
    g[d] = global[d];
    if (offset) o[d] = offset[d];
    if (local) l[d] = local[d];
  }
  size_t items = g[0] * g[1] * g[2];
  cl_mem m = cl_buffer(e->ctx, 12 * items * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clEnqueueNDRangeKernel(e->q, k, dims, offset, global, local, 0, NULL, NULL));
  int *out = malloc(12 * items * sizeof(int));
  read_ints(e, m, out, 12 * items);
  if (!local) { /* the local size Weft chose: the same for all, dividing */
    l[0] = (size_t)(out[10] / 10000);
    l[1] = (size_t)(out[10] / 100 % 100);
    l[2] = (size_t)(out[10] % 100);
    for (int d = 0; d < 3; d++) CHECK(l[d] >= 1 && g[d] % l[d] == 0);
  }
  for (size_t z = 0; z < g[2]; z++)
    for (size_t y = 0; y < g[1]; y++)
      for (size_t x = 0; x < g[0]; x++) {
        const int *v = out + 12 * (x + g[0] * (y + g[1] * z));
        size_t id[3] = {x, y, z};
        if (v[0] != (int)dims) FAIL("item (%zu,%zu,%zu): work_dim %d", x, y, z, v[0]);
        for (int d = 0; d < 3; d++) {
          if (v[1 + d] != (int)(id[d] + o[d]) || v[4 + d] != (int)(id[d] % l[d]) ||
              v[7 + d] != (int)(id[d] / l[d]))
            FAIL("item (%zu,%zu,%zu) dimension %d: global %d local %d group %d",
                 x, y, z, d, v[1 + d], v[4 + d], v[7 + d]);
        }
        CHECK_EQ(v[10], (int)(l[0] * 10000 + l[1] * 100 + l[2]));
        CHECK_EQ(v[11], (int)(g[0] / l[0] * 10000 + g[1] / l[1] * 100 + g[2] / l[2]));
      }
  free(out);
  CL_CHECK(clReleaseMemObject(m));
}

TEST(ndrange_1d_ids) {
  env e = setup();
  cl_kernel k = cl_kernel_from(e.ctx, ids_source, "ids");
  size_t g = 96, l = 8, off = 1000;
  check_ids(&e, k, 1, NULL, &g, &l);
  check_ids(&e, k, 1, &off, &g, &l);
  check_ids(&e, k, 1, NULL, &g, NULL);
  size_t prime = 97; /* no divisor but 1 and itself */
  check_ids(&e, k, 1, &off, &prime, NULL);
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

TEST(ndrange_2d_ids) {
  env e = setup();
  cl_kernel k = cl_kernel_from(e.ctx, ids_source, "ids");
  size_t g[2] = {12, 10}, l[2] = {4, 5}, off[2] = {3, 70};
  check_ids(&e, k, 2, NULL, g, l);
  check_ids(&e, k, 2, off, g, l);
  check_ids(&e, k, 2, off, g, NULL);
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

TEST(ndrange_3d_ids) {
  env e = setup();
  cl_kernel k = cl_kernel_from(e.ctx, ids_source, "ids");
  size_t g[3] = {6, 4, 10}, l[3] = {3, 2, 5}, off[3] = {1, 2, 3};
  check_ids(&e, k, 3, NULL, g, l);
  check_ids(&e, k, 3, off, g, l);
  check_ids(&e, k, 3, NULL, g, NULL);
  size_t odd[3] = {7, 5, 3};
  check_ids(&e, k, 3, off, odd, NULL);
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

TEST(enqueue_task) {
  env e = setup();
  cl_kernel k = cl_kernel_from(e.ctx, ids_source, "ids");
  cl_mem m = cl_buffer(e.ctx, 12 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  cl_event ev;
  CL_CHECK(clEnqueueTask(e.q, k, 0, NULL, &ev));
  CL_CHECK(clWaitForEvents(1, &ev));
  cl_command_type type = 0;
  CL_CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_TASK);
  CL_CHECK(clReleaseEvent(ev));
  int out[12];
  read_ints(&e, m, out, 12);
  CHECK_EQ(out[0], 1);
  for (int i = 1; i < 10; i++) CHECK_EQ(out[i], 0);
  CHECK_EQ(out[10], 10101);
  CHECK_EQ(out[11], 10101);
  CL_CHECK_ERR(clEnqueueTask(e.q, (cl_kernel)m, 0, NULL, NULL), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clEnqueueTask((cl_command_queue)m, k, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

TEST(ndrange_errors) {
  env e = setup();
  cl_kernel k = cl_kernel_from(e.ctx, ids_source, "ids");
  cl_mem m = cl_buffer(e.ctx, 12 * 4096 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t g[3] = {16, 16, 16}, l[3] = {4, 4, 4};
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 0, NULL, g, l, 0, NULL, NULL),
               CL_INVALID_WORK_DIMENSION);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 4, NULL, g, l, 0, NULL, NULL),
               CL_INVALID_WORK_DIMENSION);
  /* No global size: an empty launch (OpenCL 2.1 on), whose event
   * completes (the CTS's zero_sized_enqueue). */
  cl_event empty;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, NULL, NULL, 0, NULL, &empty));
  CL_CHECK(clWaitForEvents(1, &empty));
  cl_int status;
  CL_CHECK(clGetEventInfo(empty, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                          &status, NULL));
  CHECK_EQ(status, CL_COMPLETE);
  CL_CHECK(clReleaseEvent(empty));
  /* A local size that does not divide, or is 0. */
  size_t three = 3, zero = 0;
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, NULL, g, &three, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, NULL, g, &zero, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
  size_t bad2[2] = {4, 3};
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 2, NULL, g, bad2, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
  /* One side beyond CL_DEVICE_MAX_WORK_ITEM_SIZES. */
  size_t items[3];
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items,
                           NULL));
  size_t big_g[3] = {2 * (items[0] + 1), 1, 1}, big_l[3] = {items[0] + 1, 1, 1};
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, NULL, big_g, big_l, 0, NULL, NULL),
               CL_INVALID_WORK_ITEM_SIZE);
  /* Each side within, the group beyond CL_KERNEL_WORK_GROUP_SIZE. */
  size_t wg = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                    NULL));
  size_t side = 1;
  while (side * side <= wg) side *= 2;
  if (side <= items[0] && side <= items[1]) {
    size_t sq_g[2] = {side, side}, sq_l[2] = {side, side};
    CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 2, NULL, sq_g, sq_l, 0, NULL, NULL),
                 CL_INVALID_WORK_GROUP_SIZE);
  }
  /* An offset that overflows with the size. */
  size_t off[1] = {SIZE_MAX - 4};
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, off, g, NULL, 0, NULL, NULL),
               CL_INVALID_GLOBAL_OFFSET);
  /* Handles. */
  CL_CHECK_ERR(clEnqueueNDRangeKernel((cl_command_queue)k, k, 1, NULL, g, NULL, 0, NULL,
                                      NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, (cl_kernel)m, 1, NULL, g, NULL, 0, NULL, NULL),
               CL_INVALID_KERNEL);
  cl_context other = cl_weft_context();
  cl_command_queue other_q = cl_weft_queue(other, 0);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(other_q, k, 1, NULL, g, NULL, 0, NULL, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, NULL, g, NULL, 1, NULL, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
  CL_CHECK(clReleaseCommandQueue(other_q));
  CL_CHECK(clReleaseContext(other));
  /* Nothing ran. */
  CL_CHECK(clFinish(e.q));
  int first[12];
  read_ints(&e, m, first, 12);
  for (int i = 0; i < 12; i++) CHECK_EQ(first[i], 0);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

/* The largest group a kernel reports runs, in 1D. */
TEST(ndrange_kernel_work_group_size_runs) {
  env e = setup();
  cl_kernel k = cl_kernel_from(e.ctx, ids_source, "ids");
  size_t wg = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, e.dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                    NULL));
  size_t g = 2 * wg;
  check_ids(&e, k, 1, NULL, &g, &wg);
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

/* cl_khr_suggested_local_work_size, found through the platform. */
static clGetKernelSuggestedLocalWorkSizeKHR_fn suggest_fn(void) {
  clGetKernelSuggestedLocalWorkSizeKHR_fn f =
      (clGetKernelSuggestedLocalWorkSizeKHR_fn)
          clGetExtensionFunctionAddressForPlatform(
              cl_weft_platform(), "clGetKernelSuggestedLocalWorkSizeKHR");
  CHECK(f != NULL);
  return f;
}

static const char *local_size_source =
    "__kernel void sizes(__global int *out) {\n"
    "  if (get_global_id(0) + get_global_id(1) + get_global_id(2) == 0)\n"
    "    for (int d = 0; d < 3; d++) out[d] = (int)get_local_size(d);\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(4, 2, 1)))\n"
    "void fixed(__global int *out) { out[0] = 0; }\n";

/* The suggestion is the local size a launch without one runs with, in
 * every dimension count and for sizes that are primes, odd or even; a
 * kernel's required size is suggested as it is. */
TEST(suggested_local_size_is_what_runs) {
  env e = setup();
  clGetKernelSuggestedLocalWorkSizeKHR_fn suggest = suggest_fn();
  cl_program p = build(&e, local_size_source, "");
  cl_kernel k = kernel(p, "sizes"), fixed = kernel(p, "fixed");
  cl_mem m = cl_buffer(e.ctx, 3 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(fixed, 0, sizeof m, &m));
  static const size_t globals[][3] = {
      {1, 1, 1}, {113, 1, 1}, {1024, 1, 1}, {96, 12, 1}, {7, 64, 3},
      {4096, 3, 2}, {257, 113, 5}};
  for (size_t i = 0; i < sizeof globals / sizeof *globals; i++) {
    cl_uint dims = globals[i][2] > 1 ? 3 : globals[i][1] > 1 ? 2 : 1;
    size_t local[3] = {1, 1, 1};
    CL_CHECK(suggest(e.q, k, dims, NULL, globals[i], local));
    CL_CHECK(clEnqueueNDRangeKernel(e.q, k, dims, NULL, globals[i], NULL, 0,
                                    NULL, NULL));
    int ran[3];
    read_ints(&e, m, ran, 3);
    for (cl_uint d = 0; d < 3; d++) {
      CHECK_EQ((size_t)ran[d], local[d]);
      CHECK_EQ(globals[i][d] % local[d], 0);
    }
  }
  size_t global[2] = {8, 8}, local[2] = {0, 0};
  CL_CHECK(suggest(e.q, fixed, 2, NULL, global, local));
  CHECK(local[0] == 4 && local[1] == 2);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseKernel(fixed));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* What the extension names as errors. */
TEST(suggested_local_size_errors) {
  env e = setup();
  clGetKernelSuggestedLocalWorkSizeKHR_fn suggest = suggest_fn();
  cl_program p = build(&e, local_size_source, "");
  cl_kernel k = kernel(p, "sizes");
  size_t global[3] = {64, 1, 1}, local[3], zero[1] = {0};
  CL_CHECK_ERR(suggest(e.q, k, 1, NULL, global, local), CL_INVALID_KERNEL_ARGS);
  cl_mem m = cl_buffer(e.ctx, 3 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK_ERR(suggest(NULL, k, 1, NULL, global, local),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(suggest(e.q, NULL, 1, NULL, global, local), CL_INVALID_KERNEL);
  CL_CHECK_ERR(suggest(e.q, k, 0, NULL, global, local),
               CL_INVALID_WORK_DIMENSION);
  CL_CHECK_ERR(suggest(e.q, k, 4, NULL, global, local),
               CL_INVALID_WORK_DIMENSION);
  CL_CHECK_ERR(suggest(e.q, k, 1, NULL, NULL, local),
               CL_INVALID_GLOBAL_WORK_SIZE);
  CL_CHECK_ERR(suggest(e.q, k, 1, NULL, zero, local),
               CL_INVALID_GLOBAL_WORK_SIZE);
  CL_CHECK_ERR(suggest(e.q, k, 1, NULL, global, NULL), CL_INVALID_VALUE);
  size_t offset[1] = {SIZE_MAX};
  CL_CHECK_ERR(suggest(e.q, k, 1, offset, global, local),
               CL_INVALID_GLOBAL_OFFSET);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  CL_CHECK(clReleaseProgram(p));
  teardown(&e);
}

/* OpenCL 2.1 and later: a global size of 0 runs nothing, successfully,
 * after its wait list, and completes its event. */
TEST(ndrange_zero_size_is_a_no_op) {
  env e = setup();
  cl_kernel k = cl_kernel_from(e.ctx, ids_source, "ids");
  cl_mem m = cl_buffer(e.ctx, 12 * 64 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t zero = 0, g2[2] = {4, 0}, g3[3] = {4, 4, 0};
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &zero, NULL, 0, NULL, NULL));
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 2, NULL, g2, NULL, 0, NULL, NULL));
  cl_int err;
  cl_event gate = clCreateUserEvent(e.ctx, &err);
  CL_CHECK(err);
  cl_event ev;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 3, NULL, g3, NULL, 1, &gate, &ev));
  cl_int status = 0;
  CL_CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                          &status, NULL));
  CHECK(status > CL_COMPLETE); /* waiting for the gate */
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clWaitForEvents(1, &ev));
  CL_CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                          &status, NULL));
  CHECK_EQ(status, CL_COMPLETE);
  int out[12 * 64];
  read_ints(&e, m, out, 12 * 64);
  for (int i = 0; i < 12 * 64; i++) CHECK_EQ(out[i], 0);
  /* Unset arguments are still an error. */
  cl_kernel fresh = cl_kernel_from(e.ctx, ids_source, "ids");
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, fresh, 1, NULL, &zero, NULL, 0, NULL, NULL),
               CL_INVALID_KERNEL_ARGS);
  CL_CHECK(clReleaseKernel(fresh));
  CL_CHECK(clReleaseEvent(ev));
  CL_CHECK(clReleaseEvent(gate));
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

/* ---------------------------------------------------------------- crash */

static const char *crash_source =
    "__kernel void null_writer(__global int *a, int victim) {\n"
    "  __global int *volatile p = 0;\n"
    "  if ((int)get_global_id(0) == victim) p[get_global_id(0)] = 1;\n"
    "  a[get_global_id(0)] = 2;\n"
    "}\n";

/* A kernel writing through NULL: its event ends with a negative status,
 * what waits on it fails, the context is told which kernel and which
 * work-item, and the queue goes on working. */
TEST(kernel_crash_reported) {
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  cl_device_id d = cl_weft_device();
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &d, note, NULL, &err);
  CL_CHECK(err);
  env e = {ctx, cl_weft_queue(ctx, 0), d};
  cl_kernel k = cl_kernel_from(ctx, crash_source, "null_writer");
  cl_mem m = cl_buffer(ctx, 64 * sizeof(int), NULL);
  int victim = 37;
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, sizeof victim, &victim));
  size_t global = 64, local = 16;
  cl_event crashed;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL, &crashed));
  CL_CHECK_ERR(clWaitForEvents(1, &crashed), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  cl_int status = 0;
  CL_CHECK(clGetEventInfo(crashed, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                          &status, NULL));
  CHECK(status < 0);
  /* A blocking read that waits for the crashed kernel fails. */
  int out[64];
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, sizeof out, out, 1, &crashed,
                                   NULL), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  pthread_mutex_lock(&received.lock);
  CHECK_STR_CONTAINS(received.text, "null_writer");
  CHECK_STR_CONTAINS(received.text, "work-item (37)");
  pthread_mutex_unlock(&received.lock);
  /* The queue, the kernel and the device still work. */
  victim = -1;
  CL_CHECK(clSetKernelArg(k, 1, sizeof victim, &victim));
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  for (int i = 0; i < 64; i++) CHECK_EQ(out[i], 2);
  CL_CHECK(clReleaseEvent(crashed));
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseKernel(k));
  teardown(&e);
}

TEST_MAIN()
