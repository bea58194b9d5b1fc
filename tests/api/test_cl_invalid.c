/* test_cl_invalid.c: every entry point given a NULL handle, a handle of
 * the wrong kind (a cl_mem passed as a cl_kernel...) or a released one
 * answers with the CL_INVALID_* code the specification gives, and never
 * crashes; and the features the device reports absent (images, samplers,
 * pipes, SVM, IL, native kernels, subgroups, device queues, GL sharing)
 * answer with the specification's error. */
/* Every entry point, the deprecated ones included (tests/api/CMakeLists.txt
 * asks for the 1.0 to 2.0 ones). */
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>

#include "cl_support.h"

/* One valid object of every kind. */
typedef struct objects {
  cl_platform_id platform;
  cl_device_id device;
  cl_context ctx;
  cl_command_queue q;
  cl_mem buffer;
  cl_program program;
  cl_kernel kernel;
  cl_event event;        /* a completed marker */
} objects;

static const char *source =
    "__kernel void k(__global int *a, int v) { a[get_global_id(0)] = v; }\n";

static objects make_objects(void) {
  objects o;
  o.platform = cl_weft_platform();
  o.device = cl_weft_device();
  o.ctx = cl_weft_context();
  o.q = cl_weft_queue(o.ctx, 0);
  o.buffer = cl_buffer(o.ctx, 256, NULL);
  o.program = cl_build(o.ctx, source, "");
  cl_int err;
  o.kernel = clCreateKernel(o.program, "k", &err);
  CL_CHECK(err);
  CL_CHECK(clEnqueueMarkerWithWaitList(o.q, 0, NULL, &o.event));
  CL_CHECK(clWaitForEvents(1, &o.event));
  return o;
}

static void free_objects(objects *o) {
  CL_CHECK(clFinish(o->q));
  CL_CHECK(clReleaseEvent(o->event));
  CL_CHECK(clReleaseKernel(o->kernel));
  CL_CHECK(clReleaseProgram(o->program));
  CL_CHECK(clReleaseMemObject(o->buffer));
  CL_CHECK(clReleaseCommandQueue(o->q));
  CL_CHECK(clReleaseContext(o->ctx));
}

/* For calls that return an object and set an error code. */
#define CHECK_CREATE_ERR(call, code)                                         \
  do {                                                                       \
    err = 12345;                                                             \
    if ((call) != NULL) FAIL("%s returned an object", #call);                \
    CL_CHECK_ERR(err, code);                                                 \
  } while (0)

/* Where the specification allows either of two codes. */
#define CHECK_ERR_EITHER(expr, a, b)                                         \
  do {                                                                       \
    cl_int rc_ = (expr);                                                     \
    if (rc_ != (a) && rc_ != (b))                                            \
      FAIL("%s returned %s, expected %s or %s", #expr, cl_error_name(rc_),   \
           cl_error_name(a), cl_error_name(b));                              \
  } while (0)

static void CL_CALLBACK context_destructor(cl_context c, void *d) { (void)c, (void)d; }
static void CL_CALLBACK mem_destructor(cl_mem m, void *d) { (void)m, (void)d; }
static void CL_CALLBACK program_notify(cl_program p, void *d) { (void)p, (void)d; }
static void CL_CALLBACK event_notify(cl_event e, cl_int s, void *d) {
  (void)e, (void)s, (void)d;
}
static void CL_CALLBACK native_fn(void *args) { (void)args; }
static void CL_CALLBACK svm_free_fn(cl_command_queue q, cl_uint n, void *p[], void *d) {
  (void)q, (void)n, (void)p, (void)d;
}

/* ------------------------------------------------------- wrong kinds */

TEST(wrong_platform) {
  objects o = make_objects();
  cl_platform_id p = (cl_platform_id)o.buffer;
  char text[64];
  cl_device_id d;
  cl_uint n;
  CL_CHECK_ERR(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof text, text, NULL),
               CL_INVALID_PLATFORM);
  CL_CHECK_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, &n), CL_INVALID_PLATFORM);
  CL_CHECK_ERR(clUnloadPlatformCompiler(p), CL_INVALID_PLATFORM);
  cl_int err;
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)p, 0};
  CHECK_CREATE_ERR(clCreateContext(props, 1, &o.device, NULL, NULL, &err),
                   CL_INVALID_PLATFORM);
  CHECK_CREATE_ERR(clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, NULL, NULL, &err),
                   CL_INVALID_PLATFORM);
  free_objects(&o);
}

TEST(wrong_device) {
  objects o = make_objects();
  cl_device_id d = (cl_device_id)o.buffer;
  char text[64];
  cl_ulong t1, t2;
  cl_int err;
  CL_CHECK_ERR(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof text, text, NULL),
               CL_INVALID_DEVICE);
  const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_device_id out[2];
  cl_uint n;
  CL_CHECK_ERR(clCreateSubDevices(d, props, 2, out, &n), CL_INVALID_DEVICE);
  const cl_device_partition_property_ext ext_props[] = {CL_DEVICE_PARTITION_EQUALLY_EXT,
                                                        1, 0};
  CL_CHECK_ERR(clCreateSubDevicesEXT(d, ext_props, 2, out, &n), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clRetainDevice(d), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clReleaseDevice(d), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clRetainDeviceEXT(d), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clReleaseDeviceEXT(d), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clGetDeviceAndHostTimer(d, &t1, &t2), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clGetHostTimer(d, &t1), CL_INVALID_DEVICE);
  CHECK_CREATE_ERR(clCreateContext(NULL, 1, &d, NULL, NULL, &err), CL_INVALID_DEVICE);
  CHECK_CREATE_ERR(clCreateCommandQueue(o.ctx, d, 0, &err), CL_INVALID_DEVICE);
  CHECK_CREATE_ERR(clCreateCommandQueueWithProperties(o.ctx, d, NULL, &err),
                   CL_INVALID_DEVICE);
  size_t size;
  CL_CHECK_ERR(clGetKernelWorkGroupInfo(o.kernel, d, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof size, &size, NULL), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clGetKernelSubGroupInfo(o.kernel, d, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
                                       NULL, sizeof size, &size, NULL),
               CL_INVALID_DEVICE);
  free_objects(&o);
}

/* The program entry points that take a device list. */
TEST(wrong_device_in_program_calls) {
  objects o = make_objects();
  cl_device_id d = (cl_device_id)o.buffer;
  cl_int err;
  char text[64];
  CL_CHECK_ERR(clBuildProgram(o.program, 1, &d, "", NULL, NULL), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clCompileProgram(o.program, 1, &d, "", 0, NULL, NULL, NULL, NULL),
               CL_INVALID_DEVICE);
  CL_CHECK_ERR(clGetProgramBuildInfo(o.program, d, CL_PROGRAM_BUILD_LOG, sizeof text,
                                     text, NULL), CL_INVALID_DEVICE);
  size_t length = 4;
  const unsigned char *binary = (const unsigned char *)"abcd";
  CHECK_CREATE_ERR(clCreateProgramWithBinary(o.ctx, 1, &d, &length, &binary, NULL,
                                             &err), CL_INVALID_DEVICE);
  free_objects(&o);
}

TEST(wrong_device_in_built_in_kernels) {
  objects o = make_objects();
  cl_device_id d = (cl_device_id)o.buffer;
  cl_int err;
  /* No device has a kernel "k" built in either: both errors apply. */
  err = 12345;
  CHECK(clCreateProgramWithBuiltInKernels(o.ctx, 1, &d, "k", &err) == NULL);
  CHECK_ERR_EITHER(err, CL_INVALID_DEVICE, CL_INVALID_VALUE);
  free_objects(&o);
}

TEST(wrong_device_in_link) {
  objects o = make_objects();
  cl_device_id d = (cl_device_id)o.buffer;
  cl_int err;
  CHECK_CREATE_ERR(clLinkProgram(o.ctx, 1, &d, "", 1, &o.program, NULL, NULL, &err),
                   CL_INVALID_DEVICE);
  free_objects(&o);
}

TEST(wrong_context) {
  objects o = make_objects();
  cl_context c = (cl_context)o.buffer;
  cl_int err;
  cl_uint n;
  CL_CHECK_ERR(clRetainContext(c), CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clReleaseContext(c), CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clSetContextDestructorCallback(c, context_destructor, NULL),
               CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateCommandQueue(c, o.device, 0, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateCommandQueueWithProperties(c, o.device, NULL, &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateBuffer(c, 0, 16, NULL, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateBufferWithProperties(c, NULL, 0, 16, NULL, &err),
                   CL_INVALID_CONTEXT);
  cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc = {0};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = desc.image_height = 4;
  CHECK_CREATE_ERR(clCreateImage(c, 0, &format, &desc, NULL, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateImageWithProperties(c, NULL, 0, &format, &desc, NULL, &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateImage2D(c, 0, &format, 4, 4, 0, NULL, &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateImage3D(c, 0, &format, 4, 4, 4, 0, 0, NULL, &err),
                   CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clGetSupportedImageFormats(c, 0, CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n),
               CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateSampler(c, CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST,
                                   &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateSamplerWithProperties(c, NULL, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreatePipe(c, 0, 4, 4, NULL, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateProgramWithSource(c, 1, &source, NULL, &err),
                   CL_INVALID_CONTEXT);
  size_t length = 4;
  const unsigned char *binary = (const unsigned char *)"abcd";
  CHECK_CREATE_ERR(clCreateProgramWithBinary(c, 1, &o.device, &length, &binary, NULL,
                                             &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateProgramWithIL(c, binary, length, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateProgramWithBuiltInKernels(c, 1, &o.device, "k", &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clLinkProgram(c, 0, NULL, "", 1, &o.program, NULL, NULL, &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateUserEvent(c, &err), CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clSetDefaultDeviceCommandQueue(c, o.device, o.q), CL_INVALID_CONTEXT);
  CHECK(clSVMAlloc(c, CL_MEM_READ_WRITE, 64, 0) == NULL);
  clSVMFree(c, NULL); /* nothing to free, nothing to crash on */
  CHECK_CREATE_ERR(clCreateFromGLBuffer(c, 0, 1, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateFromGLTexture(c, 0, 0, 0, 1, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateFromGLRenderbuffer(c, 0, 1, &err), CL_INVALID_CONTEXT);
  free_objects(&o);
}

TEST(wrong_queue) {
  objects o = make_objects();
  cl_command_queue q = (cl_command_queue)o.buffer;
  cl_mem m = o.buffer;
  char host[256];
  cl_uint u;
  cl_int err;
  size_t origin[3] = {0, 0, 0}, region[3] = {4, 1, 1}, one = 1;
  int pattern = 0;
  CL_CHECK_ERR(clRetainCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clReleaseCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof u, &u, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clFlush(q), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clFinish(q), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 4, host, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, 4, host, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueCopyBuffer(q, m, m, 0, 128, 4, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueFillBuffer(q, m, &pattern, 4, 0, 4, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueReadBufferRect(q, m, CL_TRUE, origin, origin, region, 0, 0, 0,
                                       0, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueWriteBufferRect(q, m, CL_TRUE, origin, origin, region, 0, 0, 0,
                                        0, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  size_t far[3] = {128, 0, 0};
  CL_CHECK_ERR(clEnqueueCopyBufferRect(q, m, m, origin, far, region, 0, 0, 0, 0, 0,
                                       NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  CHECK_CREATE_ERR(clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL,
                                      &err), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueUnmapMemObject(q, m, host, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueMigrateMemObjects(q, 1, &m, 0, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(q, o.kernel, 1, NULL, &one, NULL, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueTask(q, o.kernel, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueNativeKernel(q, native_fn, NULL, 0, 0, NULL, NULL, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  cl_event ev;
  CL_CHECK_ERR(clEnqueueMarker(q, &ev), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueMarkerWithWaitList(q, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueBarrier(q), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueBarrierWithWaitList(q, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueWaitForEvents(q, 1, &o.event), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueReadImage(q, m, CL_TRUE, origin, region, 0, 0, host, 0, NULL,
                                  NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueWriteImage(q, m, CL_TRUE, origin, region, 0, 0, host, 0, NULL,
                                   NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueCopyImage(q, m, m, origin, origin, region, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueCopyImageToBuffer(q, m, m, origin, region, 0, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueCopyBufferToImage(q, m, m, 0, origin, region, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  size_t row, slice;
  CHECK_CREATE_ERR(clEnqueueMapImage(q, m, CL_TRUE, CL_MAP_READ, origin, region, &row,
                                     &slice, 0, NULL, NULL, &err),
                   CL_INVALID_COMMAND_QUEUE);
  float color[4] = {0};
  CL_CHECK_ERR(clEnqueueFillImage(q, m, color, origin, region, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  void *ptrs[1] = {host};
  CL_CHECK_ERR(clEnqueueSVMFree(q, 1, ptrs, svm_free_fn, NULL, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueSVMMemcpy(q, CL_TRUE, host, host + 8, 4, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueSVMMemFill(q, host, &pattern, 4, 4, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, host, 4, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueSVMUnmap(q, host, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  const void *cptrs[1] = {host};
  CL_CHECK_ERR(clEnqueueSVMMigrateMem(q, 1, cptrs, NULL, 0, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueAcquireGLObjects(q, 1, &m, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueReleaseGLObjects(q, 1, &m, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  /* Without device queues, either error describes the call. */
  CHECK_ERR_EITHER(clSetDefaultDeviceCommandQueue(o.ctx, o.device, q),
                   CL_INVALID_COMMAND_QUEUE, CL_INVALID_OPERATION);
  free_objects(&o);
}

TEST(wrong_mem) {
  objects o = make_objects();
  cl_mem m = (cl_mem)o.kernel, good = o.buffer;
  char host[256];
  size_t size;
  cl_int err;
  size_t origin[3] = {0, 0, 0}, region[3] = {4, 1, 1};
  int pattern = 0;
  CL_CHECK_ERR(clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clSetMemObjectDestructorCallback(m, mem_destructor, NULL),
               CL_INVALID_MEM_OBJECT);
  cl_buffer_region r = {0, 16};
  CHECK_CREATE_ERR(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err),
                   CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clGetImageInfo(m, CL_IMAGE_WIDTH, sizeof size, &size, NULL),
               CL_INVALID_MEM_OBJECT);
  cl_uint u;
  CL_CHECK_ERR(clGetPipeInfo(m, CL_PIPE_PACKET_SIZE, sizeof u, &u, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueReadBuffer(o.q, m, CL_TRUE, 0, 4, host, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueWriteBuffer(o.q, m, CL_TRUE, 0, 4, host, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueCopyBuffer(o.q, m, good, 0, 0, 4, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueCopyBuffer(o.q, good, m, 0, 0, 4, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueFillBuffer(o.q, m, &pattern, 4, 0, 4, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueReadBufferRect(o.q, m, CL_TRUE, origin, origin, region, 0, 0,
                                       0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueWriteBufferRect(o.q, m, CL_TRUE, origin, origin, region, 0, 0,
                                        0, 0, host, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueCopyBufferRect(o.q, good, m, origin, origin, region, 0, 0, 0,
                                       0, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  CHECK_CREATE_ERR(clEnqueueMapBuffer(o.q, m, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL,
                                      &err), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueUnmapMemObject(o.q, m, host, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueMigrateMemObjects(o.q, 1, &m, 0, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clSetKernelArg(o.kernel, 0, sizeof m, &m), CL_INVALID_MEM_OBJECT);
  /* Image commands given a non-image. */
  CL_CHECK_ERR(clEnqueueReadImage(o.q, m, CL_TRUE, origin, region, 0, 0, host, 0, NULL,
                                  NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clGetGLObjectInfo(m, NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clGetGLTextureInfo(m, CL_GL_TEXTURE_TARGET, sizeof u, &u, NULL),
               CL_INVALID_MEM_OBJECT);
  free_objects(&o);
}

TEST(wrong_program) {
  objects o = make_objects();
  cl_program p = (cl_program)o.buffer;
  char text[64];
  cl_int err;
  cl_uint n;
  cl_kernel ks[2];
  CL_CHECK_ERR(clRetainProgram(p), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clReleaseProgram(p), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clBuildProgram(p, 0, NULL, "", NULL, NULL), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clCompileProgram(p, 0, NULL, "", 0, NULL, NULL, NULL, NULL),
               CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof text, text, NULL),
               CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clGetProgramBuildInfo(p, o.device, CL_PROGRAM_BUILD_LOG, sizeof text,
                                     text, NULL), CL_INVALID_PROGRAM);
  CHECK_CREATE_ERR(clCreateKernel(p, "k", &err), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clCreateKernelsInProgram(p, 2, ks, &n), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clSetProgramReleaseCallback(p, program_notify, NULL), CL_INVALID_PROGRAM);
  int v = 0;
  CL_CHECK_ERR(clSetProgramSpecializationConstant(p, 0, sizeof v, &v),
               CL_INVALID_PROGRAM);
  CHECK_CREATE_ERR(clLinkProgram(o.ctx, 0, NULL, "", 1, &p, NULL, NULL, &err),
                   CL_INVALID_PROGRAM);
  free_objects(&o);
}

TEST(wrong_kernel) {
  objects o = make_objects();
  cl_kernel k = (cl_kernel)o.buffer;
  char text[64];
  size_t size, one = 1;
  cl_int err;
  int v = 0;
  CL_CHECK_ERR(clRetainKernel(k), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clReleaseKernel(k), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clSetKernelArg(k, 1, sizeof v, &v), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof text, text, NULL),
               CL_INVALID_KERNEL);
  CL_CHECK_ERR(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_NAME, sizeof text, text, NULL),
               CL_INVALID_KERNEL);
  CL_CHECK_ERR(clGetKernelWorkGroupInfo(k, o.device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof size, &size, NULL), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clGetKernelSubGroupInfo(k, o.device, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
                                       NULL, sizeof size, &size, NULL),
               CL_INVALID_KERNEL);
  CHECK_CREATE_ERR(clCloneKernel(k, &err), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clSetKernelArgSVMPointer(k, 0, NULL), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, 0, NULL),
               CL_INVALID_KERNEL);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(o.q, k, 1, NULL, &one, NULL, 0, NULL, NULL),
               CL_INVALID_KERNEL);
  CL_CHECK_ERR(clEnqueueTask(o.q, k, 0, NULL, NULL), CL_INVALID_KERNEL);
  free_objects(&o);
}

TEST(wrong_event) {
  objects o = make_objects();
  cl_event e = (cl_event)o.buffer;
  cl_int status;
  cl_ulong t;
  char host[16];
  CL_CHECK_ERR(clRetainEvent(e), CL_INVALID_EVENT);
  CL_CHECK_ERR(clReleaseEvent(e), CL_INVALID_EVENT);
  CL_CHECK_ERR(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                              &status, NULL), CL_INVALID_EVENT);
  CL_CHECK_ERR(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL),
               CL_INVALID_EVENT);
  CL_CHECK_ERR(clSetEventCallback(e, CL_COMPLETE, event_notify, NULL), CL_INVALID_EVENT);
  CL_CHECK_ERR(clSetUserEventStatus(e, CL_COMPLETE), CL_INVALID_EVENT);
  CL_CHECK_ERR(clWaitForEvents(1, &e), CL_INVALID_EVENT);
  /* In a wait list, a bad event makes the list invalid. */
  cl_event list[2] = {o.event, e};
  CL_CHECK_ERR(clWaitForEvents(2, list), CL_INVALID_EVENT);
  CL_CHECK_ERR(clEnqueueMarkerWithWaitList(o.q, 2, list, NULL), CL_INVALID_EVENT_WAIT_LIST);
  CL_CHECK_ERR(clEnqueueBarrierWithWaitList(o.q, 1, &e, NULL), CL_INVALID_EVENT_WAIT_LIST);
  CL_CHECK_ERR(clEnqueueReadBuffer(o.q, o.buffer, CL_TRUE, 0, 4, host, 1, &e, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
  int v = 3;
  CL_CHECK(clSetKernelArg(o.kernel, 0, sizeof o.buffer, &o.buffer));
  CL_CHECK(clSetKernelArg(o.kernel, 1, sizeof v, &v));
  size_t one = 1;
  CL_CHECK_ERR(clEnqueueNDRangeKernel(o.q, o.kernel, 1, NULL, &one, NULL, 1, &e, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
  /* A command's event is not a user event. */
  CL_CHECK_ERR(clSetUserEventStatus(o.event, CL_COMPLETE), CL_INVALID_EVENT);
  free_objects(&o);
}

/* clEnqueueWaitForEvents takes an event list, not a wait list: its error
 * for a bad event is CL_INVALID_EVENT. */
TEST(wrong_event_in_enqueue_wait_for_events) {
  objects o = make_objects();
  cl_event e = (cl_event)o.buffer;
  CL_CHECK_ERR(clEnqueueWaitForEvents(o.q, 1, &e), CL_INVALID_EVENT);
  CL_CHECK_ERR(clEnqueueWaitForEvents(o.q, 0, NULL), CL_INVALID_VALUE);
  free_objects(&o);
}

TEST(wrong_sampler) {
  objects o = make_objects();
  cl_sampler s = (cl_sampler)o.buffer;
  cl_uint u;
  CL_CHECK_ERR(clRetainSampler(s), CL_INVALID_SAMPLER);
  CL_CHECK_ERR(clReleaseSampler(s), CL_INVALID_SAMPLER);
  CL_CHECK_ERR(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof u, &u, NULL),
               CL_INVALID_SAMPLER);
  free_objects(&o);
}

/* The objects given wrong handles are unharmed. */
TEST(wrong_handles_leave_objects_intact) {
  objects o = make_objects();
  cl_uint refs = 0;
  CL_CHECK_ERR(clReleaseKernel((cl_kernel)o.buffer), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clReleaseMemObject((cl_mem)o.kernel), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clReleaseContext((cl_context)o.q), CL_INVALID_CONTEXT);
  CL_CHECK(clGetMemObjectInfo(o.buffer, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  CHECK_EQ(refs, 1);
  CL_CHECK(clGetKernelInfo(o.kernel, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  CHECK_EQ(refs, 1);
  int v = 9, got[4];
  size_t n = 4;
  CL_CHECK(clSetKernelArg(o.kernel, 0, sizeof o.buffer, &o.buffer));
  CL_CHECK(clSetKernelArg(o.kernel, 1, sizeof v, &v));
  CL_CHECK(clEnqueueNDRangeKernel(o.q, o.kernel, 1, NULL, &n, NULL, 0, NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(o.q, o.buffer, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < 4; i++) CHECK_EQ(got[i], 9);
  free_objects(&o);
}

/* ---------------------------------------------------------- NULL handles */

/* NULL is refused with the code for the kind expected (by the loader, or
 * by Weft where the loader passes it on). */
TEST(null_handles) {
  objects o = make_objects();
  char text[64];
  cl_int err;
  size_t one = 1;
  int v = 0;
  CL_CHECK_ERR(clGetDeviceInfo(NULL, CL_DEVICE_NAME, sizeof text, text, NULL),
               CL_INVALID_DEVICE);
  CL_CHECK_ERR(clRetainContext(NULL), CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clGetContextInfo(NULL, CL_CONTEXT_NUM_DEVICES, sizeof text, text, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clRetainCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clRetainMemObject(NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clRetainProgram(NULL), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clBuildProgram(NULL, 0, NULL, "", NULL, NULL), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clRetainKernel(NULL), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clSetKernelArg(NULL, 0, sizeof v, &v), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clRetainEvent(NULL), CL_INVALID_EVENT);
  CL_CHECK_ERR(clGetEventInfo(NULL, CL_EVENT_REFERENCE_COUNT, sizeof text, text, NULL),
               CL_INVALID_EVENT);
  CL_CHECK_ERR(clRetainSampler(NULL), CL_INVALID_SAMPLER);
  CHECK_CREATE_ERR(clCreateBuffer(NULL, 0, 16, NULL, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateKernel(NULL, "k", &err), CL_INVALID_PROGRAM);
  CHECK_CREATE_ERR(clCreateProgramWithSource(NULL, 1, &source, NULL, &err),
                   CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clEnqueueReadBuffer(NULL, o.buffer, CL_TRUE, 0, 4, text, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  /* NULL where a second handle is expected: Weft's to refuse. */
  CL_CHECK_ERR(clEnqueueReadBuffer(o.q, NULL, CL_TRUE, 0, 4, text, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueCopyBuffer(o.q, o.buffer, NULL, 0, 0, 4, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(o.q, NULL, 1, NULL, &one, NULL, 0, NULL, NULL),
               CL_INVALID_KERNEL);
  CL_CHECK_ERR(clGetKernelWorkGroupInfo(NULL, o.device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof text, text, NULL), CL_INVALID_KERNEL);
  cl_event null_event = NULL;
  CL_CHECK_ERR(clEnqueueMarkerWithWaitList(o.q, 1, &null_event, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
  CHECK_CREATE_ERR(clCreateCommandQueueWithProperties(o.ctx, NULL, NULL, &err),
                   CL_INVALID_DEVICE);
  free_objects(&o);
}

/* ------------------------------------------------------ released handles */

/* After its last release a handle is refused like any invalid one: the
 * object's memory still holds a header with no kind. */
TEST(released_context) {
  cl_context c = cl_weft_context();
  CL_CHECK(clReleaseContext(c));
  cl_uint n;
  cl_int err;
  CL_CHECK_ERR(clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clRetainContext(c), CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clReleaseContext(c), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateBuffer(c, 0, 16, NULL, &err), CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateProgramWithSource(c, 1, &source, NULL, &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateCommandQueueWithProperties(c, cl_weft_device(), NULL, &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateUserEvent(c, &err), CL_INVALID_CONTEXT);
}

TEST(released_mem) {
  objects o = make_objects();
  cl_mem m = cl_buffer(o.ctx, 64, NULL);
  CL_CHECK(clReleaseMemObject(m));
  size_t size;
  char host[16];
  cl_int err;
  CL_CHECK_ERR(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clReleaseMemObject(m), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clRetainMemObject(m), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueReadBuffer(o.q, m, CL_TRUE, 0, 4, host, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueCopyBuffer(o.q, o.buffer, m, 0, 0, 4, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clSetKernelArg(o.kernel, 0, sizeof m, &m), CL_INVALID_MEM_OBJECT);
  cl_buffer_region r = {0, 16};
  CHECK_CREATE_ERR(clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err),
                   CL_INVALID_MEM_OBJECT);
  free_objects(&o);
}

TEST(released_kernel) {
  objects o = make_objects();
  cl_int err;
  cl_kernel k = clCreateKernel(o.program, "k", &err);
  CL_CHECK(err);
  CL_CHECK(clReleaseKernel(k));
  int v = 0;
  size_t one = 1;
  char text[16];
  CL_CHECK_ERR(clSetKernelArg(k, 1, sizeof v, &v), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof text, text, NULL),
               CL_INVALID_KERNEL);
  CL_CHECK_ERR(clEnqueueNDRangeKernel(o.q, k, 1, NULL, &one, NULL, 0, NULL, NULL),
               CL_INVALID_KERNEL);
  CHECK_CREATE_ERR(clCloneKernel(k, &err), CL_INVALID_KERNEL);
  CL_CHECK_ERR(clReleaseKernel(k), CL_INVALID_KERNEL);
  free_objects(&o);
}

TEST(released_program) {
  objects o = make_objects();
  cl_program p = cl_build(o.ctx, source, "");
  CL_CHECK(clReleaseProgram(p));
  char text[16];
  cl_int err;
  CL_CHECK_ERR(clGetProgramInfo(p, CL_PROGRAM_SOURCE, sizeof text, text, NULL),
               CL_INVALID_PROGRAM);
  CHECK_CREATE_ERR(clCreateKernel(p, "k", &err), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clBuildProgram(p, 0, NULL, "", NULL, NULL), CL_INVALID_PROGRAM);
  CL_CHECK_ERR(clReleaseProgram(p), CL_INVALID_PROGRAM);
  free_objects(&o);
}

TEST(released_queue) {
  objects o = make_objects();
  cl_command_queue q = cl_weft_queue(o.ctx, 0);
  CL_CHECK(clReleaseCommandQueue(q));
  char host[16];
  CL_CHECK_ERR(clFinish(q), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clEnqueueReadBuffer(q, o.buffer, CL_TRUE, 0, 4, host, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clReleaseCommandQueue(q), CL_INVALID_COMMAND_QUEUE);
  free_objects(&o);
}

TEST(released_event) {
  objects o = make_objects();
  cl_int err;
  cl_event e = clCreateUserEvent(o.ctx, &err);
  CL_CHECK(err);
  CL_CHECK(clReleaseEvent(e));
  cl_int status;
  CL_CHECK_ERR(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                              &status, NULL), CL_INVALID_EVENT);
  CL_CHECK_ERR(clSetUserEventStatus(e, CL_COMPLETE), CL_INVALID_EVENT);
  CL_CHECK_ERR(clEnqueueMarkerWithWaitList(o.q, 1, &e, NULL), CL_INVALID_EVENT_WAIT_LIST);
  CL_CHECK_ERR(clReleaseEvent(e), CL_INVALID_EVENT);
  free_objects(&o);
}

/* ------------------------------------------------- unsupported features */

/* Bad questions about images are errors and a buffer is no image, on
 * every device (test_cl_image.c tests the images themselves). */
TEST(image_errors) {
  objects o = make_objects();
  cl_bool images = CL_FALSE;
  CL_CHECK(clGetDeviceInfo(o.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images,
                           NULL));
  CHECK(images == CL_TRUE);
  cl_int err;
  /* Formats for every type and access. */
  static const cl_mem_object_type types[] = {
      CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_MEM_OBJECT_IMAGE2D,
      CL_MEM_OBJECT_IMAGE3D, CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_MEM_OBJECT_IMAGE2D_ARRAY};
  static const cl_mem_flags flags[] = {CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
                                       CL_MEM_READ_WRITE, CL_MEM_KERNEL_READ_AND_WRITE};
  for (int t = 0; t < 6; t++)
    for (int f = 0; f < 4; f++) {
      cl_uint n = 99;
      CL_CHECK(clGetSupportedImageFormats(o.ctx, flags[f], types[t], 0, NULL, &n));
      CHECK(n >= 40);
    }
  cl_image_format formats[4];
  cl_uint n;
  CL_CHECK_ERR(clGetSupportedImageFormats(o.ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_BUFFER,
                                          4, formats, &n), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetSupportedImageFormats(o.ctx, CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D,
                                          0, formats, &n), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetSupportedImageFormats(o.ctx, (cl_mem_flags)1 << 30,
                                          CL_MEM_OBJECT_IMAGE2D, 4, formats, &n),
               CL_INVALID_VALUE);
  /* A buffer is no image. */
  size_t size, origin[3] = {0, 0, 0}, region[3] = {1, 1, 1}, row, slice;
  char host[64];
  float color[4] = {0};
  CL_CHECK_ERR(clGetImageInfo(o.buffer, CL_IMAGE_WIDTH, sizeof size, &size, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueReadImage(o.q, o.buffer, CL_TRUE, origin, region, 0, 0, host, 0,
                                  NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueWriteImage(o.q, o.buffer, CL_TRUE, origin, region, 0, 0, host,
                                   0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueCopyImage(o.q, o.buffer, o.buffer, origin, origin, region, 0,
                                  NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueCopyImageToBuffer(o.q, o.buffer, o.buffer, origin, region, 0, 0,
                                          NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueCopyBufferToImage(o.q, o.buffer, o.buffer, 0, origin, region, 0,
                                          NULL, NULL), CL_INVALID_MEM_OBJECT);
  CHECK_CREATE_ERR(clEnqueueMapImage(o.q, o.buffer, CL_TRUE, CL_MAP_READ, origin, region,
                                     &row, &slice, 0, NULL, NULL, &err),
                   CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueFillImage(o.q, o.buffer, color, origin, region, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  free_objects(&o);
}

/* Samplers exist where images do. */
TEST(samplers_only_with_images) {
  objects o = make_objects();
  cl_bool images = CL_TRUE;
  CL_CHECK(clGetDeviceInfo(o.device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images,
                           NULL));
  cl_int err;
  cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE, 0};
  cl_sampler s = clCreateSamplerWithProperties(o.ctx, props, &err);
  CL_CHECK_ERR(err, images ? CL_SUCCESS : CL_INVALID_OPERATION);
  CHECK(!s == !images);
  if (s) clReleaseSampler(s);
  s = clCreateSampler(o.ctx, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
  CL_CHECK_ERR(err, images ? CL_SUCCESS : CL_INVALID_OPERATION);
  if (s) clReleaseSampler(s);
  free_objects(&o);
}

TEST(pipes_unsupported) {
  objects o = make_objects();
  cl_int err;
  CHECK_CREATE_ERR(clCreatePipe(o.ctx, CL_MEM_HOST_NO_ACCESS, 4, 4, NULL, &err),
                   CL_INVALID_OPERATION);
  cl_uint u;
  CL_CHECK_ERR(clGetPipeInfo(o.buffer, CL_PIPE_PACKET_SIZE, sizeof u, &u, NULL),
               CL_INVALID_MEM_OBJECT);
  free_objects(&o);
}

/* SVM exists only coarse-grained: what needs more is refused, and bad
 * pointers and sizes are errors, not crashes (test_cl_svm.c has the rest). */
TEST(svm_beyond_coarse_grain) {
  objects o = make_objects();
  CHECK(clSVMAlloc(o.ctx, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, 64,
                   0) == NULL);
  CHECK(clSVMAlloc(o.ctx, CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS, 64,
                   0) == NULL);
  void *bogus0 = (void *)0xDEADBEEF;
  CL_CHECK_ERR(clSetKernelArgSVMPointer(o.kernel, 0, bogus0), CL_INVALID_ARG_VALUE);
  CL_CHECK_ERR(clSetKernelArgSVMPointer(o.kernel, 99, NULL), CL_INVALID_ARG_INDEX);
  cl_bool fine = CL_TRUE;
  CL_CHECK_ERR(clSetKernelExecInfo(o.kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                                   sizeof fine, &fine), CL_INVALID_OPERATION);
  fine = CL_FALSE;
  CL_CHECK(clSetKernelExecInfo(o.kernel, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                               sizeof fine, &fine));
  /* Not an SVM parameter at all. */
  CL_CHECK_ERR(clSetKernelExecInfo(o.kernel, 0x7777, sizeof fine, &fine),
               CL_INVALID_VALUE);
  cl_bool uses = CL_TRUE;
  CL_CHECK(clGetMemObjectInfo(o.buffer, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses,
                              NULL));
  CHECK(uses == CL_FALSE);
  free_objects(&o);
}

TEST(il_programs_unsupported) {
  objects o = make_objects();
  cl_int err;
  cl_uint bogus = 0x07230203; /* the SPIR-V magic number */
  CHECK_CREATE_ERR(clCreateProgramWithIL(o.ctx, &bogus, sizeof bogus, &err),
                   CL_INVALID_OPERATION);
  size_t size = 99;
  CL_CHECK(clGetProgramInfo(o.program, CL_PROGRAM_IL, 0, NULL, &size));
  CHECK_EQ(size, 0);
  free_objects(&o);
}

/* Specialization constants exist only in IL programs: with no IL support
 * the call is an invalid operation (as the conformance suite checks). */
TEST(specialization_constants_unsupported) {
  objects o = make_objects();
  cl_uint value = 42;
  CL_CHECK_ERR(clSetProgramSpecializationConstant(o.program, 0, sizeof value, &value),
               CL_INVALID_OPERATION);
  free_objects(&o);
}

TEST(built_in_kernels_unsupported) {
  objects o = make_objects();
  cl_int err;
  CHECK_CREATE_ERR(clCreateProgramWithBuiltInKernels(o.ctx, 1, &o.device, "nothing",
                                                     &err), CL_INVALID_VALUE);
  free_objects(&o);
}

TEST(native_kernels_unsupported) {
  objects o = make_objects();
  cl_device_exec_capabilities caps = 0;
  CL_CHECK(clGetDeviceInfo(o.device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps,
                           &caps, NULL));
  CHECK(!(caps & CL_EXEC_NATIVE_KERNEL));
  int args = 0;
  CL_CHECK_ERR(clEnqueueNativeKernel(o.q, native_fn, &args, sizeof args, 0, NULL, NULL,
                                     0, NULL, NULL), CL_INVALID_OPERATION);
  free_objects(&o);
}

/* Sub-group queries: the answers for the device's sub-group width, and
 * CL_INVALID_VALUE for a missing or malformed input. */
TEST(sub_group_info) {
  objects o = make_objects();
  cl_uint most;
  CL_CHECK(clGetDeviceInfo(o.device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof most,
                           &most, NULL));
  size_t max_group, n = 0, width = 0, local[2] = {100, 3}, got[3];
  CL_CHECK(clGetKernelWorkGroupInfo(o.kernel, o.device, CL_KERNEL_WORK_GROUP_SIZE,
                                    sizeof max_group, &max_group, NULL));
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, o.device,
                                   CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                   sizeof local, local, sizeof width, &width, NULL));
  CHECK(width == 4 || width == 8 || width == 16 || width == 32);
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, NULL,
                                   CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                   sizeof local, local, sizeof n, &n, NULL));
  CHECK_EQ(n, (300 + width - 1) / width);
  local[0] = 5;
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, NULL,
                                   CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                   sizeof(size_t), local, sizeof n, &n, NULL));
  CHECK_EQ(n, width < 5 ? width : 5); /* groups of 5: one sub-group at 8 up */
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, NULL, CL_KERNEL_MAX_NUM_SUB_GROUPS,
                                   0, NULL, sizeof n, &n, NULL));
  CHECK_EQ(n, (max_group + width - 1) / width);
  CHECK(n <= most); /* most: with the smallest sub-groups a kernel may ask for */
  size_t count = 3;
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, NULL,
                                   CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                   sizeof count, &count, sizeof got, got, NULL));
  CHECK(got[0] == 3 * width && got[1] == 1 && got[2] == 1);
  count = most + 1; /* no group holds that many */
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, NULL,
                                   CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                   sizeof count, &count, 2 * sizeof(size_t), got,
                                   NULL));
  CHECK(got[0] == 0 && got[1] == 0);
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, NULL, CL_KERNEL_COMPILE_NUM_SUB_GROUPS,
                                   0, NULL, sizeof n, &n, NULL));
  CHECK_EQ(n, 0);
  /* No local size, one of four dimensions, a count of the wrong size. */
  CL_CHECK_ERR(clGetKernelSubGroupInfo(o.kernel, NULL,
                                       CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, 0,
                                       NULL, sizeof n, &n, NULL),
               CL_INVALID_VALUE);
  size_t four[4] = {1, 1, 1, 1};
  CL_CHECK_ERR(clGetKernelSubGroupInfo(o.kernel, NULL,
                                       CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                       sizeof four, four, sizeof n, &n, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelSubGroupInfo(o.kernel, NULL,
                                       CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                                       sizeof(int), &count, sizeof got, got, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelSubGroupInfo(o.kernel, NULL, 0x7777, 0, NULL,
                                       sizeof n, &n, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetKernelSubGroupInfo(NULL, NULL, CL_KERNEL_MAX_NUM_SUB_GROUPS,
                                       0, NULL, sizeof n, &n, NULL),
               CL_INVALID_KERNEL);
  free_objects(&o);
}

/* cl_intel_required_subgroup_size: the device's sizes, and a kernel that
 * asks for each has sub-groups of it in every query; one it lacks does
 * not build, saying why. */
TEST(required_sub_group_size_info) {
  objects o = make_objects();
  char extensions[4096];
  CL_CHECK(clGetDeviceInfo(o.device, CL_DEVICE_EXTENSIONS, sizeof extensions,
                           extensions, NULL));
  CHECK(strstr(extensions, "cl_intel_required_subgroup_size"));
  size_t sizes[32], bytes;
  CL_CHECK(clGetDeviceInfo(o.device, CL_DEVICE_SUB_GROUP_SIZES_INTEL,
                           sizeof sizes, sizes, &bytes));
  size_t count = bytes / sizeof *sizes, default_width = 0;
  CHECK(count >= 1 && bytes % sizeof *sizes == 0);
  cl_uint most;
  CL_CHECK(clGetDeviceInfo(o.device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof most,
                           &most, NULL));
  size_t local[1] = {256}, n;
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, NULL,
                                   CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                   sizeof local, local, sizeof default_width,
                                   &default_width, NULL));
  for (size_t i = 0; i < count; i++) {
    CHECK(sizes[i] && (sizes[i] & (sizes[i] - 1)) == 0);
    CHECK(i == 0 || sizes[i] > sizes[i - 1]);
    char text[256];
    snprintf(text, sizeof text,
             "__attribute__((intel_reqd_sub_group_size(%zu)))\n"
             "__kernel void w(__global int *a) { a[0] = get_sub_group_size(); }\n",
             sizes[i]);
    cl_kernel w = cl_kernel_from(o.ctx, text, "w");
    CL_CHECK(clGetKernelSubGroupInfo(w, NULL, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL,
                                     0, NULL, sizeof n, &n, NULL));
    CHECK_EQ(n, sizes[i]);
    CL_CHECK(clGetKernelSubGroupInfo(w, NULL, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                     sizeof local, local, sizeof n, &n, NULL));
    CHECK_EQ(n, sizes[i]);
    CL_CHECK(clGetKernelSubGroupInfo(w, NULL, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                     sizeof local, local, sizeof n, &n, NULL));
    CHECK_EQ(n, 256 / sizes[i]);
    CL_CHECK(clGetKernelSubGroupInfo(w, NULL, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0,
                                     NULL, sizeof n, &n, NULL));
    CHECK(n <= most);
    if (i == 0) CHECK(n == most || sizes[0] > default_width);
    cl_ulong spill = 1;
    CL_CHECK(clGetKernelWorkGroupInfo(w, o.device, CL_KERNEL_SPILL_MEM_SIZE_INTEL,
                                      sizeof spill, &spill, NULL));
    CHECK_EQ(spill, 0);
    CL_CHECK(clReleaseKernel(w));
  }
  /* Without the attribute: 0. */
  CL_CHECK(clGetKernelSubGroupInfo(o.kernel, NULL,
                                   CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0, NULL,
                                   sizeof n, &n, NULL));
  CHECK_EQ(n, 0);
  /* A size the device lacks (64 is none's): the build fails, naming it. */
  const char *too_wide =
      "__attribute__((intel_reqd_sub_group_size(64)))\n"
      "__kernel void w(__global int *a) { a[0] = 1; }\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(o.ctx, 1, &too_wide, NULL, &err);
  CL_CHECK(err);
  CL_CHECK_ERR(clBuildProgram(p, 1, &o.device, "", NULL, NULL),
               CL_BUILD_PROGRAM_FAILURE);
  char log[1024];
  CL_CHECK(clGetProgramBuildInfo(p, o.device, CL_PROGRAM_BUILD_LOG, sizeof log,
                                 log, NULL));
  CHECK_STR_CONTAINS(log, "kernel 'w': intel_reqd_sub_group_size(64) is not a "
                          "sub-group size of");
  CL_CHECK(clReleaseProgram(p));
  free_objects(&o);
}

TEST(device_queues_unsupported) {
  objects o = make_objects();
  CL_CHECK_ERR(clSetDefaultDeviceCommandQueue(o.ctx, o.device, o.q), CL_INVALID_OPERATION);
  cl_uint size;
  CL_CHECK_ERR(clGetCommandQueueInfo(o.q, CL_QUEUE_SIZE, sizeof size, &size, NULL),
               CL_INVALID_COMMAND_QUEUE);
  cl_command_queue def = (cl_command_queue)1;
  CL_CHECK(clGetCommandQueueInfo(o.q, CL_QUEUE_DEVICE_DEFAULT, sizeof def, &def, NULL));
  CHECK(def == NULL);
  free_objects(&o);
}

TEST(program_release_callback_unsupported) {
  objects o = make_objects();
  CL_CHECK_ERR(clSetProgramReleaseCallback(o.program, program_notify, NULL),
               CL_INVALID_OPERATION);
  cl_bool present = CL_TRUE;
  CL_CHECK(clGetProgramInfo(o.program, CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT,
                            sizeof present, &present, NULL));
  CHECK(present == CL_FALSE);
  free_objects(&o);
}

/* No context comes from GL: GL calls on Weft's objects fail cleanly. */
TEST(gl_sharing_unsupported) {
  objects o = make_objects();
  cl_int err;
  CHECK_CREATE_ERR(clCreateFromGLBuffer(o.ctx, CL_MEM_READ_WRITE, 1, &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateFromGLTexture(o.ctx, CL_MEM_READ_WRITE, 0x0DE1, 0, 1, &err),
                   CL_INVALID_CONTEXT);
  CHECK_CREATE_ERR(clCreateFromGLRenderbuffer(o.ctx, CL_MEM_READ_WRITE, 1, &err),
                   CL_INVALID_CONTEXT);
  cl_gl_object_type type;
  cl_GLuint name;
  CL_CHECK_ERR(clGetGLObjectInfo(o.buffer, &type, &name), CL_INVALID_GL_OBJECT);
  CHECK_ERR_EITHER(clEnqueueAcquireGLObjects(o.q, 1, &o.buffer, 0, NULL, NULL),
                   CL_INVALID_GL_OBJECT, CL_INVALID_CONTEXT);
  CHECK_ERR_EITHER(clEnqueueReleaseGLObjects(o.q, 1, &o.buffer, 0, NULL, NULL),
                   CL_INVALID_GL_OBJECT, CL_INVALID_CONTEXT);
  free_objects(&o);
}

TEST_MAIN()
