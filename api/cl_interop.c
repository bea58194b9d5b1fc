/* cl_interop.c: the graphics-sharing and device-fission entry points of the
 * dispatch table (cl_khr_gl_sharing, cl_khr_gl_event, cl_khr_egl_image,
 * cl_khr_egl_event, cl_ext_device_fission). Weft reports none of these
 * extensions, but the loader routes such calls here by their handle, so
 * each answers with the error the specification gives for an object that
 * cannot exist, never a crash. */
#include <CL/cl_egl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>

#include "api/cl_objects.h"

/* No context of Weft's was created from a GL or EGL share group: the
 * specification's error for that is CL_INVALID_CONTEXT either way. */
static void *no_shared_object(cl_int *errcode) {
  if (errcode) *errcode = CL_INVALID_CONTEXT;
  return NULL;
}

/* No memory object of Weft's came from GL or EGL. */
static cl_int no_shared_mem(cl_mem m) {
  return weft__cl_is(m, CL_KIND_MEM) ? CL_INVALID_GL_OBJECT
                                     : CL_INVALID_MEM_OBJECT;
}

static cl_int no_shared_objects(cl_command_queue q, cl_uint num,
                                const cl_mem *objects) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!num || !objects) return CL_INVALID_VALUE;
  return no_shared_mem(objects[0]);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateFromGLBuffer(cl_context c,
                                                     cl_mem_flags f,
                                                     cl_GLuint obj,
                                                     cl_int *errcode) {
  (void)c, (void)f, (void)obj;
  return no_shared_object(errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateFromGLTexture(
    cl_context c, cl_mem_flags f, cl_GLenum target, cl_GLint level,
    cl_GLuint texture, cl_int *errcode) {
  (void)c, (void)f, (void)target, (void)level, (void)texture;
  return no_shared_object(errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateFromGLTexture2D(
    cl_context c, cl_mem_flags f, cl_GLenum target, cl_GLint level,
    cl_GLuint texture, cl_int *errcode) {
  (void)c, (void)f, (void)target, (void)level, (void)texture;
  return no_shared_object(errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateFromGLTexture3D(
    cl_context c, cl_mem_flags f, cl_GLenum target, cl_GLint level,
    cl_GLuint texture, cl_int *errcode) {
  (void)c, (void)f, (void)target, (void)level, (void)texture;
  return no_shared_object(errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateFromGLRenderbuffer(cl_context c,
                                                           cl_mem_flags f,
                                                           cl_GLuint obj,
                                                           cl_int *errcode) {
  (void)c, (void)f, (void)obj;
  return no_shared_object(errcode);
}

CL_API_ENTRY cl_int CL_API_CALL clGetGLObjectInfo(cl_mem m,
                                                  cl_gl_object_type *type,
                                                  cl_GLuint *name) {
  (void)type, (void)name;
  return no_shared_mem(m);
}

CL_API_ENTRY cl_int CL_API_CALL clGetGLTextureInfo(cl_mem m,
                                                   cl_gl_texture_info param,
                                                   size_t size, void *value,
                                                   size_t *size_ret) {
  (void)param, (void)size, (void)value, (void)size_ret;
  return no_shared_mem(m);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueAcquireGLObjects(
    cl_command_queue q, cl_uint num, const cl_mem *objects, cl_uint n,
    const cl_event *wait, cl_event *event) {
  (void)n, (void)wait, (void)event;
  return no_shared_objects(q, num, objects);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReleaseGLObjects(
    cl_command_queue q, cl_uint num, const cl_mem *objects, cl_uint n,
    const cl_event *wait, cl_event *event) {
  (void)n, (void)wait, (void)event;
  return no_shared_objects(q, num, objects);
}

CL_API_ENTRY cl_int CL_API_CALL clGetGLContextInfoKHR(
    const cl_context_properties *props, cl_gl_context_info param, size_t size,
    void *value, size_t *size_ret) {
  (void)props, (void)param, (void)size, (void)value, (void)size_ret;
  /* No GL context can be associated with Weft's devices. */
  return CL_INVALID_OPERATION;
}

CL_API_ENTRY cl_event CL_API_CALL clCreateEventFromGLsyncKHR(cl_context c,
                                                             cl_GLsync sync,
                                                             cl_int *errcode) {
  (void)c, (void)sync;
  return no_shared_object(errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateFromEGLImageKHR(
    cl_context c, CLeglDisplayKHR display, CLeglImageKHR image, cl_mem_flags f,
    const cl_egl_image_properties_khr *props, cl_int *errcode) {
  (void)c, (void)display, (void)image, (void)f, (void)props;
  return no_shared_object(errcode);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueAcquireEGLObjectsKHR(
    cl_command_queue q, cl_uint num, const cl_mem *objects, cl_uint n,
    const cl_event *wait, cl_event *event) {
  (void)n, (void)wait, (void)event;
  return no_shared_objects(q, num, objects);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReleaseEGLObjectsKHR(
    cl_command_queue q, cl_uint num, const cl_mem *objects, cl_uint n,
    const cl_event *wait, cl_event *event) {
  (void)n, (void)wait, (void)event;
  return no_shared_objects(q, num, objects);
}

CL_API_ENTRY cl_event CL_API_CALL clCreateEventFromEGLSyncKHR(
    cl_context c, CLeglSyncKHR sync, CLeglDisplayKHR display, cl_int *errcode) {
  (void)c, (void)sync, (void)display;
  return no_shared_object(errcode);
}

/* cl_ext_device_fission: as clCreateSubDevices, no way to partition. */
CL_API_ENTRY cl_int CL_API_CALL clCreateSubDevicesEXT(
    cl_device_id d, const cl_device_partition_property_ext *props, cl_uint num,
    cl_device_id *out, cl_uint *num_out) {
  (void)props, (void)num, (void)out, (void)num_out;
  return weft__cl_is(d, CL_KIND_DEVICE) ? CL_INVALID_VALUE : CL_INVALID_DEVICE;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainDeviceEXT(cl_device_id d) {
  return clRetainDevice(d);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseDeviceEXT(cl_device_id d) {
  return clReleaseDevice(d);
}
