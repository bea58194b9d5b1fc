/* cl_unsupported.c: the OpenCL features the device reports it does not
 * have (images, samplers, pipes, native kernels), answering with the
 * errors the specification gives for that case rather than crashing. */
#include <stddef.h>

#include "api/cl_objects.h"

static void *no_object(cl_context c, cl_int *errcode) {
  if (errcode)
    *errcode = weft__cl_is(c, CL_KIND_CONTEXT) ? CL_INVALID_OPERATION
                                               : CL_INVALID_CONTEXT;
  return NULL;
}

static cl_int no_queue_op(cl_command_queue q) {
  return weft__cl_is(q, CL_KIND_QUEUE) ? CL_INVALID_MEM_OBJECT
                                       : CL_INVALID_COMMAND_QUEUE;
}

/* ---- images: CL_DEVICE_IMAGE_SUPPORT is CL_FALSE */

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage(cl_context c, cl_mem_flags f,
                                              const cl_image_format *fmt,
                                              const cl_image_desc *desc,
                                              void *host, cl_int *errcode) {
  (void)f, (void)fmt, (void)desc, (void)host;
  return no_object(c, errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImageWithProperties(
    cl_context c, const cl_mem_properties *p, cl_mem_flags f,
    const cl_image_format *fmt, const cl_image_desc *desc, void *host,
    cl_int *errcode) {
  (void)p, (void)f, (void)fmt, (void)desc, (void)host;
  return no_object(c, errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage2D(cl_context c, cl_mem_flags f,
                                                const cl_image_format *fmt,
                                                size_t w, size_t h, size_t pitch,
                                                void *host, cl_int *errcode) {
  (void)f, (void)fmt, (void)w, (void)h, (void)pitch, (void)host;
  return no_object(c, errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context c, cl_mem_flags f,
                                                const cl_image_format *fmt,
                                                size_t w, size_t h, size_t d,
                                                size_t row, size_t slice,
                                                void *host, cl_int *errcode) {
  (void)f, (void)fmt, (void)w, (void)h, (void)d, (void)row, (void)slice,
      (void)host;
  return no_object(c, errcode);
}

static int is_image_type(cl_mem_object_type t) {
  return t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
         t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE3D ||
         t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

/* A valid question with an empty answer: no format is supported. */
CL_API_ENTRY cl_int CL_API_CALL clGetSupportedImageFormats(
    cl_context c, cl_mem_flags f, cl_mem_object_type t, cl_uint n,
    cl_image_format *formats, cl_uint *num) {
  const cl_mem_flags known =
      CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY |
      CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR |
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS |
      CL_MEM_KERNEL_READ_AND_WRITE;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) return CL_INVALID_CONTEXT;
  if ((f & ~known) || !is_image_type(t) || (!n && formats))
    return CL_INVALID_VALUE;
  if (num) *num = 0;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetImageInfo(cl_mem m, cl_image_info p,
                                               size_t s, void *v, size_t *r) {
  (void)m, (void)p, (void)s, (void)v, (void)r;
  return CL_INVALID_MEM_OBJECT; /* no image objects exist */
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadImage(
    cl_command_queue q, cl_mem m, cl_bool b, const size_t *o, const size_t *r,
    size_t row, size_t slice, void *p, cl_uint n, const cl_event *w,
    cl_event *e) {
  (void)m, (void)b, (void)o, (void)r, (void)row, (void)slice, (void)p, (void)n,
      (void)w, (void)e;
  return no_queue_op(q);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(
    cl_command_queue q, cl_mem m, cl_bool b, const size_t *o, const size_t *r,
    size_t row, size_t slice, const void *p, cl_uint n, const cl_event *w,
    cl_event *e) {
  (void)m, (void)b, (void)o, (void)r, (void)row, (void)slice, (void)p, (void)n,
      (void)w, (void)e;
  return no_queue_op(q);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImage(
    cl_command_queue q, cl_mem s, cl_mem d, const size_t *so, const size_t *dO,
    const size_t *r, cl_uint n, const cl_event *w, cl_event *e) {
  (void)s, (void)d, (void)so, (void)dO, (void)r, (void)n, (void)w, (void)e;
  return no_queue_op(q);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
    cl_command_queue q, cl_mem s, cl_mem d, const size_t *so, const size_t *r,
    size_t off, cl_uint n, const cl_event *w, cl_event *e) {
  (void)s, (void)d, (void)so, (void)r, (void)off, (void)n, (void)w, (void)e;
  return no_queue_op(q);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferToImage(
    cl_command_queue q, cl_mem s, cl_mem d, size_t off, const size_t *dO,
    const size_t *r, cl_uint n, const cl_event *w, cl_event *e) {
  (void)s, (void)d, (void)off, (void)dO, (void)r, (void)n, (void)w, (void)e;
  return no_queue_op(q);
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapImage(
    cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f, const size_t *o,
    const size_t *r, size_t *row, size_t *slice, cl_uint n, const cl_event *w,
    cl_event *e, cl_int *errcode) {
  (void)m, (void)b, (void)f, (void)o, (void)r, (void)row, (void)slice, (void)n,
      (void)w, (void)e;
  if (errcode) *errcode = no_queue_op(q);
  return NULL;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillImage(
    cl_command_queue q, cl_mem m, const void *color, const size_t *o,
    const size_t *r, cl_uint n, const cl_event *w, cl_event *e) {
  (void)m, (void)color, (void)o, (void)r, (void)n, (void)w, (void)e;
  return no_queue_op(q);
}

/* ---- samplers: only for images */

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSampler(cl_context c, cl_bool n,
                                                    cl_addressing_mode a,
                                                    cl_filter_mode f,
                                                    cl_int *errcode) {
  (void)n, (void)a, (void)f;
  return no_object(c, errcode);
}

CL_API_ENTRY cl_sampler CL_API_CALL clCreateSamplerWithProperties(
    cl_context c, const cl_sampler_properties *p, cl_int *errcode) {
  (void)p;
  return no_object(c, errcode);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainSampler(cl_sampler s) {
  (void)s;
  return CL_INVALID_SAMPLER;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseSampler(cl_sampler s) {
  (void)s;
  return CL_INVALID_SAMPLER;
}

CL_API_ENTRY cl_int CL_API_CALL clGetSamplerInfo(cl_sampler s,
                                                 cl_sampler_info p, size_t n,
                                                 void *v, size_t *r) {
  (void)s, (void)p, (void)n, (void)v, (void)r;
  return CL_INVALID_SAMPLER;
}

/* ---- pipes: CL_DEVICE_PIPE_SUPPORT is CL_FALSE */

CL_API_ENTRY cl_mem CL_API_CALL clCreatePipe(cl_context c, cl_mem_flags f,
                                             cl_uint packet, cl_uint max,
                                             const cl_pipe_properties *p,
                                             cl_int *errcode) {
  (void)f, (void)packet, (void)max, (void)p;
  return no_object(c, errcode);
}

CL_API_ENTRY cl_int CL_API_CALL clGetPipeInfo(cl_mem m, cl_pipe_info p,
                                              size_t s, void *v, size_t *r) {
  (void)m, (void)p, (void)s, (void)v, (void)r;
  return CL_INVALID_MEM_OBJECT;
}

/* ---- native kernels: CL_EXEC_NATIVE_KERNEL is not a capability */

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNativeKernel(
    cl_command_queue q, void(CL_CALLBACK *fn)(void *), void *args,
    size_t size, cl_uint num_mem, const cl_mem *mem, const void **loc,
    cl_uint n, const cl_event *w, cl_event *e) {
  (void)fn, (void)args, (void)size, (void)num_mem, (void)mem, (void)loc,
      (void)n, (void)w, (void)e;
  return weft__cl_is(q, CL_KIND_QUEUE) ? CL_INVALID_OPERATION
                                       : CL_INVALID_COMMAND_QUEUE;
}
