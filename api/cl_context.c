/* cl_context.c: contexts. A context has one device (Weft's devices each
 * have their own native context). */
#include <stdlib.h>
#include <string.h>

#include "api/cl_objects.h"

/* Checks properties (platform, interop sync; each at most once) and copies
 * them, for CL_CONTEXT_PROPERTIES. */
static cl_int read_properties(cl_context c,
                              const cl_context_properties *props) {
  if (!props) return CL_SUCCESS;
  size_t n = 0;
  int seen_platform = 0, seen_sync = 0;
  for (; props[n]; n += 2) {
    switch (props[n]) {
    case CL_CONTEXT_PLATFORM:
      if (seen_platform++) return CL_INVALID_PROPERTY;
      if ((cl_platform_id)props[n + 1] != weft__cl_platform())
        return CL_INVALID_PLATFORM;
      break;
    case CL_CONTEXT_INTEROP_USER_SYNC:
      /* A cl_bool: another value is an invalid value of the property. */
      if (seen_sync++ || (props[n + 1] != CL_TRUE && props[n + 1] != CL_FALSE))
        return CL_INVALID_PROPERTY;
      break;
    default:
      return CL_INVALID_PROPERTY;
    }
  }
  c->properties = malloc((n + 1) * sizeof *c->properties);
  if (!c->properties) return CL_OUT_OF_HOST_MEMORY;
  memcpy(c->properties, props, (n + 1) * sizeof *props);
  c->num_properties = n + 1;
  return CL_SUCCESS;
}

static void context_free(cl_context c) {
  if (c->native) weft_context_release(c->native);
  pthread_mutex_destroy(&c->lock);
  free(c->properties);
  weft__cl_free(c, sizeof *c);
}

CL_API_ENTRY cl_context CL_API_CALL clCreateContext(
    const cl_context_properties *props, cl_uint num_devices,
    const cl_device_id *devices,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
    void *user_data, cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_context c = NULL;
  if (!num_devices || !devices || (!notify && user_data)) rc = CL_INVALID_VALUE;
  for (cl_uint i = 0; !rc && i < num_devices; i++)
    if (!weft__cl_is(devices[i], CL_KIND_DEVICE) ||
        devices[i]->native != devices[0]->native)
      rc = CL_INVALID_DEVICE;
  if (!rc && !(c = weft__cl_alloc(sizeof *c))) rc = CL_OUT_OF_HOST_MEMORY;
  if (!rc) {
    weft__cl_init(c, CL_KIND_CONTEXT);
    pthread_mutex_init(&c->lock, NULL);
    c->device = devices[0];
    c->notify = notify;
    c->notify_data = user_data;
    rc = read_properties(c, props);
  }
  if (!rc) rc = weft__cl_error(weft_context_create(devices[0]->native, &c->native));
  if (rc && c) {
    context_free(c);
    c = NULL;
  }
  if (errcode) *errcode = rc;
  return c;
}

CL_API_ENTRY cl_context CL_API_CALL clCreateContextFromType(
    const cl_context_properties *props, cl_device_type type,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
    void *user_data, cl_int *errcode) {
  cl_device_id device;
  cl_int rc = clGetDeviceIDs(NULL, type, 1, &device, NULL);
  if (rc) {
    if (errcode) *errcode = rc;
    return NULL;
  }
  return clCreateContext(props, 1, &device, notify, user_data, errcode);
}

CL_API_ENTRY cl_int CL_API_CALL clRetainContext(cl_context c) {
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) return CL_INVALID_CONTEXT;
  weft__cl_retain(c);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseContext(cl_context c) {
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) return CL_INVALID_CONTEXT;
  if (!weft__cl_release(c)) return CL_SUCCESS;
  /* Destructor callbacks run last registered first. */
  for (cl_callback *cb = c->destructors, *next; cb; cb = next) {
    next = cb->next;
    ((void(CL_CALLBACK *)(cl_context, void *))cb->fn)(c, cb->user_data);
    free(cb);
  }
  context_free(c);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clSetContextDestructorCallback(
    cl_context c, void(CL_CALLBACK *fn)(cl_context, void *), void *user_data) {
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) return CL_INVALID_CONTEXT;
  if (!fn) return CL_INVALID_VALUE;
  return weft__cl_push_callback(&c->lock, &c->destructors,
                                (void (*)(void))fn, user_data);
}

CL_API_ENTRY cl_int CL_API_CALL clGetContextInfo(cl_context c,
                                                 cl_context_info param,
                                                 size_t size, void *value,
                                                 size_t *size_ret) {
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) return CL_INVALID_CONTEXT;
  cl_uint n;
  switch (param) {
  case CL_CONTEXT_REFERENCE_COUNT:
    n = (cl_uint)atomic_load(&c->h.refs);
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_CONTEXT_NUM_DEVICES:
    n = 1;
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_CONTEXT_DEVICES:
    return weft__cl_info(&c->device, sizeof c->device, size, value, size_ret);
  case CL_CONTEXT_PROPERTIES:
    return weft__cl_info(c->properties,
                         c->num_properties * sizeof *c->properties, size,
                         value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}
