/* cl_histogram.c: a 256-bin histogram of 4 MiB of pseudo-random bytes,
 * written only against CL/cl.h, so it runs on any OpenCL platform the ICD
 * loader lists. Each work-group counts its share into a __local histogram
 * with atomic_inc, waits at a barrier, then adds its counts to the global
 * histogram with atomic_add. The result is checked against the host.
 * Usage: OCL_ICD_VENDORS=build/icd build/examples/cl_histogram [PLATFORM]
 * PLATFORM is a platform name (default "Weft"). The output is the same on
 * every correct platform: the platform and device names go to stderr. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *source =
    "__kernel void histogram(__global const uchar *data, uint n,\n"
    "                        __global uint *bins) {\n"
    "  __local uint local_bins[256];\n"
    "  for (uint i = get_local_id(0); i < 256; i += get_local_size(0))\n"
    "    local_bins[i] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint i = get_global_id(0); i < n; i += get_global_size(0))\n"
    "    atomic_inc(&local_bins[data[i]]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint i = get_local_id(0); i < 256; i += get_local_size(0))\n"
    "    if (local_bins[i]) atomic_add(&bins[i], local_bins[i]);\n"
    "}\n";

static const char *error_name(cl_int err) {
  switch (err) {
#define NAME(code) case code: return #code;
    NAME(CL_DEVICE_NOT_FOUND) NAME(CL_OUT_OF_RESOURCES) NAME(CL_INVALID_VALUE)
    NAME(CL_OUT_OF_HOST_MEMORY) NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_INVALID_PLATFORM)
    NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT) NAME(CL_INVALID_KERNEL)
    NAME(CL_INVALID_COMMAND_QUEUE) NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_PROGRAM) NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    NAME(CL_INVALID_KERNEL_NAME) NAME(CL_INVALID_ARG_INDEX)
    NAME(CL_INVALID_ARG_VALUE) NAME(CL_INVALID_ARG_SIZE)
    NAME(CL_INVALID_KERNEL_ARGS) NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_GLOBAL_WORK_SIZE) NAME(CL_INVALID_OPERATION)
#undef NAME
    /* CL_PLATFORM_NOT_FOUND_KHR (cl_ext.h): the loader found no platform. */
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "an unknown OpenCL error";
  }
}

/* Every call is checked; a failure names the call and the error. */
#define CHECK(call)                                                         \
  do {                                                                      \
    cl_int err_ = (call);                                                   \
    if (err_ != CL_SUCCESS) {                                               \
      fprintf(stderr, "cl_histogram: %s failed: %s (%d)\n", #call,          \
              error_name(err_), err_);                                      \
      exit(1);                                                              \
    }                                                                       \
  } while (0)

enum { N = (4 << 20) + 12345, GROUPS = 64, LOCAL = 128 };

int main(int argc, char **argv) {
  const char *wanted = argc > 1 ? argv[1] : "Weft";
  cl_platform_id platforms[16], platform = NULL;
  cl_uint count = 0;
  CHECK(clGetPlatformIDs(16, platforms, &count));
  for (cl_uint i = 0; i < count && i < 16 && !platform; i++) {
    char name[256];
    CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name,
                            NULL));
    if (!strcmp(name, wanted)) platform = platforms[i];
  }
  if (!platform) {
    fprintf(stderr, "cl_histogram: no OpenCL platform named \"%s\" among %u "
            "(is OCL_ICD_VENDORS set?)\n", wanted, count);
    return 1;
  }
  cl_device_id device;
  char device_name[256];
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
  CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name,
                        device_name, NULL));
  fprintf(stderr, "cl_histogram: on %s, %s\n", wanted, device_name);
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err);
  cl_command_queue queue =
      clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
  CHECK(err);
  cl_program program = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  CHECK(err);
  if (clBuildProgram(program, 1, &device, "", NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log,
                          log, NULL);
    fprintf(stderr, "cl_histogram: the build failed:\n%s\n", log);
    return 1;
  }
  cl_kernel kernel = clCreateKernel(program, "histogram", &err);
  CHECK(err);

  /* xorshift32 bytes; the smaller of two makes the bins uneven (low bytes
   * are more frequent), so a bin counted in the wrong place shows. */
  unsigned char *data = malloc(N);
  unsigned host_bins[256] = {0}, bins[256] = {0};
  if (!data) return fputs("cl_histogram: out of memory\n", stderr), 1;
  unsigned x = 2463534242u;
  for (size_t i = 0; i < N; i++) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;
    unsigned char a = x >> 24, b = x >> 16;
    data[i] = a < b ? a : b;
    host_bins[data[i]]++;
  }

  cl_mem data_buf = clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, N, data, &err);
  CHECK(err);
  cl_mem bins_buf =
      clCreateBuffer(ctx, CL_MEM_COPY_HOST_PTR, sizeof bins, bins, &err);
  CHECK(err);
  cl_uint n = N;
  CHECK(clSetKernelArg(kernel, 0, sizeof data_buf, &data_buf));
  CHECK(clSetKernelArg(kernel, 1, sizeof n, &n));
  CHECK(clSetKernelArg(kernel, 2, sizeof bins_buf, &bins_buf));
  size_t global = GROUPS * LOCAL, local = LOCAL;
  CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0,
                               NULL, NULL));
  CHECK(clEnqueueReadBuffer(queue, bins_buf, CL_TRUE, 0, sizeof bins, bins, 0,
                            NULL, NULL));

  unsigned long long total = 0, checksum = 0;
  for (int i = 0; i < 256; i++) {
    if (bins[i] != host_bins[i]) {
      fprintf(stderr, "cl_histogram: bin %d holds %u, expected %u\n", i,
              bins[i], host_bins[i]);
      return 1;
    }
    total += bins[i];
    checksum = checksum * 1000003u + bins[i];
  }
  printf("histogram of %llu bytes: checksum %016llx\n", total, checksum);
  printf("bins 0, 1, 64, 128, 254, 255: %u %u %u %u %u %u\n", bins[0],
         bins[1], bins[64], bins[128], bins[254], bins[255]);

  clReleaseMemObject(bins_buf), clReleaseMemObject(data_buf);
  clReleaseKernel(kernel), clReleaseProgram(program);
  clReleaseCommandQueue(queue), clReleaseContext(ctx);
  free(data);
  return 0;
}
