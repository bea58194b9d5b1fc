/* cl_unsupported.c: the OpenCL features the device reports it does not
 * have (pipes, native kernels), answering with the
 * errors the specification gives for that case rather than crashing. */
#include <stddef.h>

#include "api/cl_objects.h"

static void *no_object(cl_context c, cl_int *errcode) {
  if (errcode)
    *errcode = weft__cl_is(c, CL_KIND_CONTEXT) ? CL_INVALID_OPERATION
                                               : CL_INVALID_CONTEXT;
  return NULL;
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
