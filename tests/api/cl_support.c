/* cl_support.c: see cl_support.h. */
#include "cl_support.h"

#include <stdlib.h>

const char *cl_error_name(cl_int code) {
  static char unknown[32];
  switch (code) {
#define NAME(c) case c: return #c;
    NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE)
    NAME(CL_COMPILER_NOT_AVAILABLE) NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY)
    NAME(CL_PROFILING_INFO_NOT_AVAILABLE) NAME(CL_MEM_COPY_OVERLAP)
    NAME(CL_IMAGE_FORMAT_MISMATCH) NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_MAP_FAILURE)
    NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    NAME(CL_COMPILE_PROGRAM_FAILURE) NAME(CL_LINKER_NOT_AVAILABLE)
    NAME(CL_LINK_PROGRAM_FAILURE) NAME(CL_DEVICE_PARTITION_FAILED)
    NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) NAME(CL_INVALID_VALUE)
    NAME(CL_INVALID_DEVICE_TYPE) NAME(CL_INVALID_PLATFORM)
    NAME(CL_INVALID_DEVICE) NAME(CL_INVALID_CONTEXT)
    NAME(CL_INVALID_QUEUE_PROPERTIES) NAME(CL_INVALID_COMMAND_QUEUE)
    NAME(CL_INVALID_HOST_PTR) NAME(CL_INVALID_MEM_OBJECT)
    NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR) NAME(CL_INVALID_IMAGE_SIZE)
    NAME(CL_INVALID_SAMPLER) NAME(CL_INVALID_BINARY)
    NAME(CL_INVALID_BUILD_OPTIONS) NAME(CL_INVALID_PROGRAM)
    NAME(CL_INVALID_PROGRAM_EXECUTABLE) NAME(CL_INVALID_KERNEL_NAME)
    NAME(CL_INVALID_KERNEL_DEFINITION) NAME(CL_INVALID_KERNEL)
    NAME(CL_INVALID_ARG_INDEX) NAME(CL_INVALID_ARG_VALUE)
    NAME(CL_INVALID_ARG_SIZE) NAME(CL_INVALID_KERNEL_ARGS)
    NAME(CL_INVALID_WORK_DIMENSION) NAME(CL_INVALID_WORK_GROUP_SIZE)
    NAME(CL_INVALID_WORK_ITEM_SIZE) NAME(CL_INVALID_GLOBAL_OFFSET)
    NAME(CL_INVALID_EVENT_WAIT_LIST) NAME(CL_INVALID_EVENT)
    NAME(CL_INVALID_OPERATION) NAME(CL_INVALID_GL_OBJECT)
    NAME(CL_INVALID_BUFFER_SIZE) NAME(CL_INVALID_MIP_LEVEL)
    NAME(CL_INVALID_GLOBAL_WORK_SIZE) NAME(CL_INVALID_PROPERTY)
    NAME(CL_INVALID_IMAGE_DESCRIPTOR) NAME(CL_INVALID_COMPILER_OPTIONS)
    NAME(CL_INVALID_LINKER_OPTIONS) NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
    NAME(CL_INVALID_PIPE_SIZE) NAME(CL_INVALID_DEVICE_QUEUE)
    NAME(CL_INVALID_SPEC_ID) NAME(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
#undef NAME
  default:
    snprintf(unknown, sizeof unknown, "error %d", code);
    return unknown;
  }
}

cl_platform_id cl_weft_platform(void) {
  cl_platform_id platforms[16];
  cl_uint n = 0;
  CL_CHECK(clGetPlatformIDs(16, platforms, &n));
  for (cl_uint i = 0; i < n && i < 16; i++) {
    char name[64] = "";
    CL_CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name,
                               name, NULL));
    if (!strcmp(name, "Weft")) return platforms[i];
  }
  FAIL("no platform named Weft among %u: is OCL_ICD_VENDORS set to the "
       "build's icd/ folder?", n);
}

cl_device_id cl_weft_device(void) {
  cl_device_id d;
  CL_CHECK(clGetDeviceIDs(cl_weft_platform(), CL_DEVICE_TYPE_DEFAULT, 1, &d, NULL));
  return d;
}

cl_context cl_weft_context(void) {
  cl_device_id d = cl_weft_device();
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
  CL_CHECK(err);
  return c;
}

cl_command_queue cl_weft_queue(cl_context ctx, cl_command_queue_properties p) {
  cl_device_id d;
  CL_CHECK(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof d, &d, NULL));
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, p, 0};
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, d, props, &err);
  CL_CHECK(err);
  return q;
}

cl_env cl_env_open(void) {
  cl_env e;
  e.ctx = cl_weft_context();
  e.q = cl_weft_queue(e.ctx, 0);
  e.dev = cl_weft_device();
  return e;
}

void cl_env_close(cl_env *e) {
  CL_CHECK(clFinish(e->q));
  CL_CHECK(clReleaseCommandQueue(e->q));
  CL_CHECK(clReleaseContext(e->ctx));
}

cl_program cl_build(cl_context ctx, const char *source, const char *options) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  CL_CHECK(err);
  if (clBuildProgram(p, 0, NULL, options, NULL, NULL) != CL_SUCCESS) {
    cl_device_id d;
    CL_CHECK(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof d, &d, NULL));
    char log[8192] = "";
    clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    FAIL("build failed:\n%s", log);
  }
  return p;
}

cl_kernel cl_kernel_from(cl_context ctx, const char *source, const char *name) {
  cl_program p = cl_build(ctx, source, "");
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  CL_CHECK(err);
  clReleaseProgram(p); /* the kernel keeps it */
  return k;
}

cl_mem cl_buffer(cl_context ctx, size_t size, const void *init) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, init ? CL_MEM_COPY_HOST_PTR : 0, size,
                            (void *)init, &err);
  CL_CHECK(err);
  return m;
}
