/* cl_queue.c: command queues over the native ones (cl_queue.h), their
 * queries, flush and finish, markers and barriers. */
#include <stdlib.h>
#include <string.h>

#include "api/cl_queue.h"

/* ------------------------------------------------------------- queues */

static cl_int check_properties(cl_device_id d, cl_command_queue_properties p) {
  cl_command_queue_properties supported;
  clGetDeviceInfo(d, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, sizeof supported,
                  &supported, NULL);
  const cl_command_queue_properties known =
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE |
      CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT;
  if (p & ~known) return CL_INVALID_VALUE;
  if (p & ~supported) return CL_INVALID_QUEUE_PROPERTIES;
  return CL_SUCCESS;
}

static cl_command_queue queue_new(cl_context c, cl_device_id d,
                                  cl_command_queue_properties props,
                                  const cl_queue_properties *given,
                                  cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_command_queue q = NULL;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else if (!weft__cl_is(d, CL_KIND_DEVICE) || d != c->device)
    rc = CL_INVALID_DEVICE;
  else rc = check_properties(d, props);
  if (!rc && !(q = weft__cl_alloc(sizeof *q))) rc = CL_OUT_OF_HOST_MEMORY;
  unsigned flags = props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
                       ? WEFT_QUEUE_OUT_OF_ORDER
                       : 0;
  if (!rc && weft_queue_create(c->native, flags, &q->native))
    rc = CL_OUT_OF_HOST_MEMORY;
  size_t n = 0;
  while (!rc && given && given[n]) n += 2;
  if (!rc && given && !(q->given = malloc((n + 1) * sizeof *q->given)))
    rc = CL_OUT_OF_HOST_MEMORY;
  if (rc) {
    if (q) weft_queue_release(q->native);
    weft__cl_free(q, sizeof *q);
    if (errcode) *errcode = rc;
    return NULL;
  }
  if (given) {
    memcpy(q->given, given, (n + 1) * sizeof *given);
    q->num_given = n + 1;
  }
  weft__cl_init(q, CL_KIND_QUEUE);
  q->context = c;
  q->device = d;
  q->properties = props;
  clRetainContext(c);
  if (errcode) *errcode = CL_SUCCESS;
  return q;
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(
    cl_context c, cl_device_id d, cl_command_queue_properties props,
    cl_int *errcode) {
  return queue_new(c, d, props, NULL, errcode);
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
    cl_context c, cl_device_id d, const cl_queue_properties *given,
    cl_int *errcode) {
  cl_command_queue_properties props = 0;
  for (size_t i = 0; given && given[i]; i += 2) {
    if (given[i] == CL_QUEUE_PROPERTIES) {
      props = (cl_command_queue_properties)given[i + 1];
    } else if (given[i] != CL_QUEUE_SIZE) {
      if (errcode) *errcode = CL_INVALID_VALUE;
      return NULL;
    }
  }
  /* CL_QUEUE_SIZE only applies to device queues, which Weft lacks. */
  for (size_t i = 0; given && given[i]; i += 2)
    if (given[i] == CL_QUEUE_SIZE && !(props & CL_QUEUE_ON_DEVICE)) {
      if (errcode) *errcode = CL_INVALID_VALUE;
      return NULL;
    }
  return queue_new(c, d, props, given, errcode);
}

/* cl_khr_create_command_queue: OpenCL 2.0's function for 1.2 programs,
 * the same properties. */
_Static_assert(sizeof(cl_queue_properties_khr) == sizeof(cl_queue_properties),
               "the extension's properties are OpenCL 2.0's");
CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithPropertiesKHR(
    cl_context c, cl_device_id d, const cl_queue_properties_khr *given,
    cl_int *errcode) {
  return clCreateCommandQueueWithProperties(
      c, d, (const cl_queue_properties *)given, errcode);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainCommandQueue(cl_command_queue q) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  weft__cl_retain(q);
  return CL_SUCCESS;
}

/* The last reference: every command is done (each holds one, as each of
 * its events does): the native queue ends once its own commands have. */
CL_API_ENTRY cl_int CL_API_CALL clReleaseCommandQueue(cl_command_queue q) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!weft__cl_release(q)) return CL_SUCCESS;
  cl_context c = q->context;
  weft_queue_release(q->native);
  free(q->given);
  weft__cl_free(q, sizeof *q);
  clReleaseContext(c);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue q,
                                                      cl_command_queue_info param,
                                                      size_t size, void *value,
                                                      size_t *size_ret) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  cl_uint refs;
  cl_command_queue none = NULL;
  switch (param) {
  case CL_QUEUE_CONTEXT:
    return weft__cl_info(&q->context, sizeof q->context, size, value, size_ret);
  case CL_QUEUE_DEVICE:
    return weft__cl_info(&q->device, sizeof q->device, size, value, size_ret);
  case CL_QUEUE_REFERENCE_COUNT:
    refs = (cl_uint)atomic_load(&q->h.refs);
    return weft__cl_info(&refs, sizeof refs, size, value, size_ret);
  case CL_QUEUE_PROPERTIES:
    return weft__cl_info(&q->properties, sizeof q->properties, size, value,
                         size_ret);
  case CL_QUEUE_PROPERTIES_ARRAY:
    return weft__cl_info(q->given, q->num_given * sizeof *q->given, size,
                         value, size_ret);
  case CL_QUEUE_DEVICE_DEFAULT:
    return weft__cl_info(&none, sizeof none, size, value, size_ret);
  case CL_QUEUE_SIZE:
    return CL_INVALID_COMMAND_QUEUE; /* only for device queues */
  default:
    return CL_INVALID_VALUE;
  }
}

CL_API_ENTRY cl_int CL_API_CALL clFlush(cl_command_queue q) {
  return weft__cl_is(q, CL_KIND_QUEUE) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE;
}

CL_API_ENTRY cl_int CL_API_CALL clFinish(cl_command_queue q) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  weft_queue_finish(q->native);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clSetCommandQueueProperty(
    cl_command_queue q, cl_command_queue_properties props, cl_bool enable,
    cl_command_queue_properties *old) {
  (void)props;
  (void)enable;
  (void)old;
  /* Removed from OpenCL after 1.0; properties are fixed at creation. */
  return weft__cl_is(q, CL_KIND_QUEUE) ? CL_INVALID_OPERATION
                                       : CL_INVALID_COMMAND_QUEUE;
}

CL_API_ENTRY cl_int CL_API_CALL clSetDefaultDeviceCommandQueue(
    cl_context c, cl_device_id d, cl_command_queue q) {
  (void)d;
  (void)q;
  /* No device-side queues. */
  return weft__cl_is(c, CL_KIND_CONTEXT) ? CL_INVALID_OPERATION
                                         : CL_INVALID_CONTEXT;
}

/* ------------------------------------------------- markers, barriers */

/* A marker or barrier needs no work of its own: its prerequisites (its
 * wait list, or else what the queue's order adds: weft_enqueue) make it
 * ready, and it is done once it is. */
static cl_int enqueue_empty(cl_command_queue q, cl_command_type type,
                            cl_uint n, const cl_event *wait, cl_event *event) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  cl_command *c = weft__cl_command_new(0);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  return weft__cl_enqueue(q, type, n, wait, event, c);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarkerWithWaitList(cl_command_queue q,
                                                            cl_uint n,
                                                            const cl_event *wait,
                                                            cl_event *event) {
  return enqueue_empty(q, CL_COMMAND_MARKER, n, wait, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrierWithWaitList(cl_command_queue q,
                                                             cl_uint n,
                                                             const cl_event *wait,
                                                             cl_event *event) {
  return enqueue_empty(q, CL_COMMAND_BARRIER, n, wait, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueMarker(cl_command_queue q,
                                                cl_event *event) {
  if (!event) return CL_INVALID_VALUE;
  return enqueue_empty(q, CL_COMMAND_MARKER, 0, NULL, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueBarrier(cl_command_queue q) {
  return enqueue_empty(q, CL_COMMAND_BARRIER, 0, NULL, NULL);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWaitForEvents(cl_command_queue q,
                                                       cl_uint n,
                                                       const cl_event *list) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!n || !list) return CL_INVALID_VALUE;
  /* The 1.1 function names its errors apart from wait lists'. */
  cl_int rc = weft__cl_check_wait_list(q->context, n, list);
  if (rc == CL_INVALID_EVENT_WAIT_LIST) return CL_INVALID_EVENT;
  if (rc) return rc;
  return enqueue_empty(q, CL_COMMAND_BARRIER, n, list, NULL);
}
