/* test_cl_coexist.c: Weft and PoCL side by side in one process, both
 * reached only through the ICD loader (OCL_ICD_VENDORS=<build>/icd-with-pocl).
 * The same program is built and run on both, one after the other in both
 * orders, interleaved on live contexts, and from two threads at once; the
 * results must agree with each other and with the host. */
#include <pthread.h>
#include <stdint.h>

#include "cl_support.h"

#define POCL "Portable Computing Language"

/* Local memory, a barrier, an atomic and integer arithmetic: every
 * platform must give the same bits. Each group reverses its slice, mixes
 * it with a hash of the global id, and counts its odd results. */
static const char *source =
    "uint hash32(uint x) {\n"
    "  x ^= x >> 16; x *= 0x7feb352dU; x ^= x >> 15; x *= 0x846ca68bU;\n"
    "  return x ^ (x >> 16);\n"
    "}\n"
    "__kernel void advance(__global uint *a, __global uint *odd,\n"
    "                   __local uint *tile) {\n"
    "  size_t lid = get_local_id(0), n = get_local_size(0);\n"
    "  tile[lid] = a[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  uint v = tile[n - 1 - lid] + hash32((uint)get_global_id(0));\n"
    "  a[get_global_id(0)] = v;\n"
    "  if (v & 1) atomic_inc(odd);\n"
    "}\n";

enum { N = 4096, LOCAL = 64 };

static uint32_t hash32(uint32_t x) {
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

/* What one launch of advance does to a, on the host; returns the odd count. */
static uint32_t host_step(uint32_t *a) {
  uint32_t out[N], odd = 0;
  for (int i = 0; i < N; i++) {
    int group = i / LOCAL, lid = i % LOCAL;
    out[i] = a[group * LOCAL + LOCAL - 1 - lid] + hash32((uint32_t)i);
    odd += out[i] & 1;
  }
  memcpy(a, out, sizeof out);
  return odd;
}

/* One platform's objects: a context, a queue, the built kernel, buffers. */
typedef struct side {
  const char *name;
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue queue;
  cl_program program;
  cl_kernel kernel;
  cl_mem a, odd;
} side;

static cl_platform_id platform_named(const char *wanted) {
  cl_platform_id platforms[16];
  cl_uint n = 0;
  CL_CHECK(clGetPlatformIDs(16, platforms, &n));
  for (cl_uint i = 0; i < n && i < 16; i++) {
    char name[256] = "";
    CL_CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name,
                               name, NULL));
    if (!strcmp(name, wanted)) return platforms[i];
  }
  FAIL("no platform named \"%s\" among %u: OCL_ICD_VENDORS must name the "
       "build's icd-with-pocl/ folder, and pocl-opencl-icd be installed",
       wanted, n);
}

static void side_open(side *s, const char *name) {
  cl_int err;
  s->name = name;
  s->platform = platform_named(name);
  CL_CHECK(clGetDeviceIDs(s->platform, CL_DEVICE_TYPE_ALL, 1, &s->device,
                          NULL));
  s->ctx = clCreateContext(NULL, 1, &s->device, NULL, NULL, &err);
  CL_CHECK(err);
  s->queue = clCreateCommandQueueWithProperties(s->ctx, s->device, NULL, &err);
  CL_CHECK(err);
  s->program = clCreateProgramWithSource(s->ctx, 1, &source, NULL, &err);
  CL_CHECK(err);
  if (clBuildProgram(s->program, 1, &s->device, "", NULL, NULL)) {
    char log[8192] = "";
    clGetProgramBuildInfo(s->program, s->device, CL_PROGRAM_BUILD_LOG,
                          sizeof log, log, NULL);
    FAIL("the build failed on %s:\n%s", name, log);
  }
  s->kernel = clCreateKernel(s->program, "advance", &err);
  CL_CHECK(err);
  s->a = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, N * 4, NULL, &err);
  CL_CHECK(err);
  s->odd = clCreateBuffer(s->ctx, CL_MEM_READ_WRITE, 4, NULL, &err);
  CL_CHECK(err);
  CL_CHECK(clSetKernelArg(s->kernel, 0, sizeof s->a, &s->a));
  CL_CHECK(clSetKernelArg(s->kernel, 1, sizeof s->odd, &s->odd));
  CL_CHECK(clSetKernelArg(s->kernel, 2, LOCAL * 4, NULL));
}

static void side_close(side *s) {
  CL_CHECK(clReleaseMemObject(s->odd));
  CL_CHECK(clReleaseMemObject(s->a));
  CL_CHECK(clReleaseKernel(s->kernel));
  CL_CHECK(clReleaseProgram(s->program));
  CL_CHECK(clReleaseCommandQueue(s->queue));
  CL_CHECK(clReleaseContext(s->ctx));
}

/* Writes a, enqueues one step without waiting for it. */
static void side_start(side *s, const uint32_t *a) {
  uint32_t zero = 0;
  CL_CHECK(clEnqueueWriteBuffer(s->queue, s->a, CL_FALSE, 0, N * 4, a, 0,
                                NULL, NULL));
  CL_CHECK(clEnqueueWriteBuffer(s->queue, s->odd, CL_TRUE, 0, 4, &zero, 0,
                                NULL, NULL));
  size_t global = N, local = LOCAL;
  CL_CHECK(clEnqueueNDRangeKernel(s->queue, s->kernel, 1, NULL, &global,
                                  &local, 0, NULL, NULL));
}

/* Reads the step's results back (a blocking read waits for the kernel). */
static uint32_t side_finish(side *s, uint32_t *a) {
  uint32_t odd;
  CL_CHECK(clEnqueueReadBuffer(s->queue, s->a, CL_TRUE, 0, N * 4, a, 0, NULL,
                               NULL));
  CL_CHECK(clEnqueueReadBuffer(s->queue, s->odd, CL_TRUE, 0, 4, &odd, 0, NULL,
                               NULL));
  return odd;
}

static void start_values(uint32_t *a, uint32_t seed) {
  for (int i = 0; i < N; i++) a[i] = hash32((uint32_t)i * 2654435761u + seed);
}

static void check_step(side *s, const uint32_t *input, const uint32_t *got,
                       uint32_t got_odd) {
  uint32_t expected[N];
  memcpy(expected, input, sizeof expected);
  uint32_t odd = host_step(expected);
  for (int i = 0; i < N; i++)
    if (got[i] != expected[i])
      FAIL("%s: a[%d] == %u, expected %u", s->name, i, got[i], expected[i]);
  if (got_odd != odd) FAIL("%s: %u odd values, expected %u", s->name, got_odd,
                           odd);
}

/* Opens both platforms in the given order (each builds as it opens), runs
 * the first, then the second, then the first again. */
static void run_in_order(const char *first, const char *second) {
  side s[2];
  uint32_t in[N], out[N];
  side_open(&s[0], first);
  side_open(&s[1], second);
  for (int round = 0; round < 3; round++) {
    side *x = &s[round == 1];
    start_values(in, (uint32_t)round);
    side_start(x, in);
    check_step(x, in, out, side_finish(x, out));
  }
  side_close(&s[1]);
  side_close(&s[0]);
}

TEST(weft_then_pocl) { run_in_order("Weft", POCL); }

TEST(pocl_then_weft) { run_in_order(POCL, "Weft"); }

/* Both queues hold work at once; each platform's output is the other's
 * next input, so a platform that touched the other's memory shows. */
TEST(interleaved) {
  side weft, pocl;
  side_open(&pocl, POCL);
  side_open(&weft, "Weft");
  uint32_t a[N], b[N], out_a[N], out_b[N];
  start_values(a, 1);
  start_values(b, 2);
  for (int round = 0; round < 8; round++) {
    side *first = round % 2 ? &pocl : &weft, *second = round % 2 ? &weft : &pocl;
    side_start(first, a);
    side_start(second, b);
    uint32_t odd_b = side_finish(second, out_b);
    uint32_t odd_a = side_finish(first, out_a);
    check_step(first, a, out_a, odd_a);
    check_step(second, b, out_b, odd_b);
    memcpy(a, out_b, sizeof a);
    memcpy(b, out_a, sizeof b);
  }
  side_close(&weft);
  side_close(&pocl);
}

/* The loader dispatches each call by its object: queries on one
 * platform's objects answer for that platform. */
TEST(objects_answer_for_their_platform) {
  side weft, pocl;
  side_open(&weft, "Weft");
  side_open(&pocl, POCL);
  side *sides[2] = {&weft, &pocl};
  for (int i = 0; i < 2; i++) {
    cl_platform_id p;
    CL_CHECK(clGetDeviceInfo(sides[i]->device, CL_DEVICE_PLATFORM, sizeof p, &p,
                             NULL));
    CHECK(p == sides[i]->platform);
    cl_context c;
    CL_CHECK(clGetCommandQueueInfo(sides[i]->queue, CL_QUEUE_CONTEXT,
                                   sizeof c, &c, NULL));
    CHECK(c == sides[i]->ctx);
    CL_CHECK(clGetKernelInfo(sides[i]->kernel, CL_KERNEL_CONTEXT, sizeof c, &c,
                             NULL));
    CHECK(c == sides[i]->ctx);
    CL_CHECK(clGetMemObjectInfo(sides[i]->a, CL_MEM_CONTEXT, sizeof c, &c,
                                NULL));
    CHECK(c == sides[i]->ctx);
    char name[64] = "";
    CL_CHECK(clGetKernelInfo(sides[i]->kernel, CL_KERNEL_FUNCTION_NAME,
                             sizeof name, name, NULL));
    CHECK_STR_CONTAINS(name, "advance");
  }
  CHECK(weft.device != pocl.device);
  side_close(&pocl);
  side_close(&weft);
}

/* Each thread opens its platform (building at the same time as the other)
 * and runs the kernel; the two JITs (Weft's, PoCL's) work concurrently. */
static void *thread_main(void *arg) {
  side s;
  uint32_t in[N], out[N];
  side_open(&s, arg);
  for (int round = 0; round < 20; round++) {
    start_values(in, (uint32_t)round * 7);
    side_start(&s, in);
    check_step(&s, in, out, side_finish(&s, out));
  }
  side_close(&s);
  return NULL;
}

TEST(two_threads) {
  pthread_t threads[2];
  const char *names[2] = {"Weft", POCL};
  for (int i = 0; i < 2; i++)
    CHECK_EQ(pthread_create(&threads[i], NULL, thread_main, (void *)names[i]),
             0);
  for (int i = 0; i < 2; i++) CHECK_EQ(pthread_join(threads[i], NULL), 0);
}

TEST_MAIN()
