/* test_cl_queue.c: command queues, events, markers and barriers, user
 * events, callbacks, profiling, and execution across queues. */
#include <pthread.h>

#include "cl_support.h"

static const char *scale_source =
    "__kernel void scale(__global int *a, int f) {\n"
    "  a[get_global_id(0)] *= f;\n"
    "}\n";

TEST(in_order_kernel_and_read) {
  cl_context ctx = cl_weft_context();
  cl_command_queue q = cl_weft_queue(ctx, 0);
  cl_kernel k = cl_kernel_from(ctx, scale_source, "scale");
  int host[256];
  for (int i = 0; i < 256; i++) host[i] = i;
  cl_mem m = cl_buffer(ctx, sizeof host, host);
  int f = 3;
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, sizeof f, &f));
  size_t global = 256;
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  /* Changing the argument after the enqueue does not change that launch. */
  f = 5;
  CL_CHECK(clSetKernelArg(k, 1, sizeof f, &f));
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof host, host, 0, NULL,
                               NULL));
  for (int i = 0; i < 256; i++) CHECK_EQ(host[i], 15 * i);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}

TEST_MAIN()
