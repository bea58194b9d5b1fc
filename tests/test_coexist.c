/* test_coexist.c: Weft and PoCL (another LLVM and Clang, through the OpenCL
 * ICD loader) in one process. Both build and run a kernel, in either order. */
#include <CL/cl.h>

#include "support.h"

static const char *source =
    "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }\n";

static void run_on_pocl(void) {
  cl_platform_id platforms[8];
  cl_uint n = 0;
  CHECK_EQ(clGetPlatformIDs(8, platforms, &n), CL_SUCCESS);
  cl_platform_id pocl = NULL;
  for (cl_uint i = 0; i < n && i < 8; i++) {
    char name[256] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    if (strstr(name, "Portable Computing Language")) pocl = platforms[i];
  }
  if (!pocl) FAIL("no PoCL platform: install pocl-opencl-icd (scripts/install-deps.sh)");
  cl_device_id dev;
  CHECK_EQ(clGetDeviceIDs(pocl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), CL_SUCCESS);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK_EQ(err, CL_SUCCESS);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  CHECK_EQ(err, CL_SUCCESS);
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  CHECK_EQ(clBuildProgram(p, 1, &dev, "", NULL, NULL), CL_SUCCESS);
  cl_kernel k = clCreateKernel(p, "twice", &err);
  CHECK_EQ(err, CL_SUCCESS);
  int host[64];
  for (int i = 0; i < 64; i++) host[i] = i;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  CHECK_EQ(err, CL_SUCCESS);
  CHECK_EQ(clSetKernelArg(k, 0, sizeof buf, &buf), CL_SUCCESS);
  size_t global = 64;
  CHECK_EQ(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL),
           CL_SUCCESS);
  CHECK_EQ(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL,
                               NULL),
           CL_SUCCESS);
  for (int i = 0; i < 64; i++) CHECK_EQ(host[i], 2 * i);
  clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}

static void run_on_weft(void) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "twice");
  int host[64];
  for (int i = 0; i < 64; i++) host[i] = i;
  weft_buffer *b = support_buffer(ctx, sizeof host, host);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 64;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  CHECK_OK(weft_buffer_read(b, 0, sizeof host, host), b);
  for (int i = 0; i < 64; i++) CHECK_EQ(host[i], 2 * i);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST(weft_then_pocl) {
  run_on_weft();
  run_on_pocl();
  run_on_weft();
}

TEST(pocl_then_weft) {
  run_on_pocl();
  run_on_weft();
  run_on_pocl();
}

TEST_MAIN()
