/* cl_program.c: programs: from source or binary, build, compile, link, and
 * their queries, over the native programs. A program binary is the LLVM
 * bitcode the front end made (weft_program_get_binary), so a program made
 * from one is built without running Clang again; compiled objects and
 * libraries are bitcode too, linked as LLVM modules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cl_objects.h"

/* A program object around native (taken over), or NULL with *rc set. */
static cl_program program_wrap(cl_context c, weft_program *native,
                               cl_int *rc) {
  cl_program p = weft__cl_alloc(sizeof *p);
  if (!p) {
    weft_program_release(native);
    *rc = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  weft__cl_init(p, CL_KIND_PROGRAM);
  pthread_mutex_init(&p->lock, NULL);
  p->context = c;
  p->native = native;
  p->status = CL_BUILD_NONE;
  clRetainContext(c);
  *rc = CL_SUCCESS;
  return p;
}

static cl_program program_new(cl_context c, const char *source, size_t length,
                              cl_int *rc) {
  weft_program *native = NULL;
  *rc = weft__cl_error(weft_program_create(c->native, source, length, &native));
  return *rc ? NULL : program_wrap(c, native, rc);
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(
    cl_context c, cl_uint count, const char **strings, const size_t *lengths,
    cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_program p = NULL;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else if (!count || !strings) rc = CL_INVALID_VALUE;
  size_t total = 0;
  for (cl_uint i = 0; !rc && i < count; i++) {
    if (!strings[i]) rc = CL_INVALID_VALUE;
    else total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
  }
  char *source = rc ? NULL : malloc(total + 1);
  if (!rc && !source) rc = CL_OUT_OF_HOST_MEMORY;
  if (!rc) {
    size_t at = 0;
    for (cl_uint i = 0; i < count; i++) {
      size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
      memcpy(source + at, strings[i], n);
      at += n;
    }
    source[at] = 0;
    p = program_new(c, source, total, &rc);
    free(source);
  }
  if (errcode) *errcode = rc;
  return p;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context c, cl_uint num_devices, const cl_device_id *devices,
    const size_t *lengths, const unsigned char **binaries, cl_int *status,
    cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_program p = NULL;
  weft_program *native = NULL;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else if (!num_devices || !devices || !lengths || !binaries)
    rc = CL_INVALID_VALUE;
  for (cl_uint i = 0; !rc && i < num_devices; i++)
    if (devices[i] != c->device) rc = CL_INVALID_DEVICE;
  for (cl_uint i = 0; !rc && i < num_devices; i++)
    if (!binaries[i] || !lengths[i]) rc = CL_INVALID_VALUE;
  /* Weft's contexts have one device: a list names it once. */
  if (!rc && num_devices != 1) rc = CL_INVALID_DEVICE;
  if (!rc && weft_program_create_binary(c->native, binaries[0], lengths[0],
                                        &native)) {
    weft__cl_notify(c, weft_errmsg(c->native));
    rc = CL_INVALID_BINARY;
  }
  if (status)
    for (cl_uint i = 0; i < num_devices && devices; i++) status[i] = rc;
  if (!rc) p = program_wrap(c, native, &rc);
  if (!rc) p->from_binary = 1;
  if (errcode) *errcode = rc;
  return p;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithIL(cl_context c,
                                                          const void *il,
                                                          size_t length,
                                                          cl_int *errcode) {
  (void)il;
  (void)length;
  /* CL_DEVICE_IL_VERSION is empty: no SPIR-V. */
  if (errcode)
    *errcode = weft__cl_is(c, CL_KIND_CONTEXT) ? CL_INVALID_OPERATION
                                               : CL_INVALID_CONTEXT;
  return NULL;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(
    cl_context c, cl_uint num_devices, const cl_device_id *devices,
    const char *names, cl_int *errcode) {
  (void)num_devices;
  (void)devices;
  (void)names;
  /* CL_DEVICE_BUILT_IN_KERNELS is empty. */
  if (errcode)
    *errcode = weft__cl_is(c, CL_KIND_CONTEXT) ? CL_INVALID_VALUE
                                               : CL_INVALID_CONTEXT;
  return NULL;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainProgram(cl_program p) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  weft__cl_retain(p);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseProgram(cl_program p) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  if (!weft__cl_release(p)) return CL_SUCCESS;
  if (p->native) weft_program_release(p->native);
  cl_context c = p->context;
  pthread_mutex_destroy(&p->lock);
  weft__cl_free(p, sizeof *p);
  clReleaseContext(c);
  return CL_SUCCESS;
}

/* The devices a build names: none (all of the context's) or ours. */
static cl_int check_devices(cl_program p, cl_uint n, const cl_device_id *list) {
  if (!n != !list) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < n; i++)
    if (list[i] != p->context->device) return CL_INVALID_DEVICE;
  return CL_SUCCESS;
}

/* Runs a native build or compile on p with options; the status and log
 * stay on it. */
static cl_int build(cl_program p, const char *options, int compile,
                    cl_uint num_headers, const char **names,
                    const char **sources) {
  if (atomic_load(&p->num_kernels)) return CL_INVALID_OPERATION;
  pthread_mutex_lock(&p->lock);
  p->status = CL_BUILD_IN_PROGRESS;
  int rc = compile ? weft_program_compile(p->native, options, num_headers,
                                          names, sources)
                   : weft_program_build(p->native, options);
  p->status = rc ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
  pthread_mutex_unlock(&p->lock);
  if (rc) weft__cl_notify(p->context, weft_errmsg(p->native));
  /* Kernels of the program made natively still exist. (Copies held by
   * launches still queued do not count: they keep the old executable.) */
  if (rc == WEFT_EINVAL && !compile) return CL_INVALID_OPERATION;
  if (rc == WEFT_EOPTION)
    return compile ? CL_INVALID_COMPILER_OPTIONS : CL_INVALID_BUILD_OPTIONS;
  if (rc == WEFT_EBUILD)
    return compile ? CL_COMPILE_PROGRAM_FAILURE : CL_BUILD_PROGRAM_FAILURE;
  return weft__cl_error(rc);
}

/* A program made from an executable's binary holds one already (in IR:
 * the device still compiles it to machine code), unless building it
 * failed. */
static int executable_binary(cl_program p) {
  return p->from_binary && p->status != CL_BUILD_ERROR &&
         weft_program_get_binary_type(p->native) == WEFT_BINARY_NONE;
}

cl_int weft__cl_program_ready(cl_program p) {
  if (p->status == CL_BUILD_SUCCESS) return CL_SUCCESS;
  if (p->status != CL_BUILD_NONE || !executable_binary(p))
    return CL_INVALID_PROGRAM_EXECUTABLE;
  return build(p, NULL, 0, 0, NULL, NULL) ? CL_INVALID_PROGRAM_EXECUTABLE
                                          : CL_SUCCESS;
}

typedef void(CL_CALLBACK *program_notify)(cl_program, void *);

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint n,
                                               const cl_device_id *devices,
                                               const char *options,
                                               program_notify notify,
                                               void *user_data) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_int rc = check_devices(p, n, devices);
  if (!rc && !notify && user_data) rc = CL_INVALID_VALUE;
  /* A linked program is built by the link. */
  if (!rc && p->linked) rc = CL_INVALID_OPERATION;
  if (!rc && p->from_binary &&
      weft_program_get_binary_type(p->native) != WEFT_BINARY_NONE &&
      weft_program_get_binary_type(p->native) != WEFT_BINARY_EXECUTABLE)
    rc = CL_INVALID_BINARY; /* an object or library binary: link it */
  if (rc) return rc;
  rc = build(p, options, 0, 0, NULL, NULL);
  /* The build is done when clBuildProgram returns; tell the callback. */
  if (notify) notify(p, user_data);
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clCompileProgram(
    cl_program p, cl_uint n, const cl_device_id *devices, const char *options,
    cl_uint num_headers, const cl_program *headers, const char **names,
    program_notify notify, void *user_data) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_int rc = check_devices(p, n, devices);
  if (!rc && (!num_headers != !headers || (num_headers && !names) ||
              (!notify && user_data)))
    rc = CL_INVALID_VALUE;
  if (!rc && (p->from_binary || p->linked)) rc = CL_INVALID_OPERATION;
  const char **sources = calloc(num_headers + 1, sizeof *sources);
  if (!rc && !sources) rc = CL_OUT_OF_HOST_MEMORY;
  for (cl_uint i = 0; !rc && i < num_headers; i++) {
    if (!weft__cl_is(headers[i], CL_KIND_PROGRAM)) rc = CL_INVALID_PROGRAM;
    else if (!names[i]) rc = CL_INVALID_VALUE;
    else if (!(sources[i] = weft_program_source(headers[i]->native, NULL)))
      sources[i] = "";
  }
  if (!rc) rc = build(p, options, 1, num_headers, names, sources);
  free(sources);
  if (notify && rc != CL_INVALID_VALUE) notify(p, user_data);
  return rc;
}

CL_API_ENTRY cl_program CL_API_CALL clLinkProgram(
    cl_context c, cl_uint n, const cl_device_id *devices, const char *options,
    cl_uint num_inputs, const cl_program *inputs, program_notify notify,
    void *user_data, cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_program p = NULL;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else if (!num_inputs || !inputs || !n != !devices || (!notify && user_data))
    rc = CL_INVALID_VALUE;
  for (cl_uint i = 0; !rc && i < n; i++)
    if (devices[i] != c->device) rc = CL_INVALID_DEVICE;
  weft_program **natives = rc ? NULL : calloc(num_inputs, sizeof *natives);
  if (!rc && !natives) rc = CL_OUT_OF_HOST_MEMORY;
  for (cl_uint i = 0; !rc && i < num_inputs; i++) {
    if (!weft__cl_is(inputs[i], CL_KIND_PROGRAM) || inputs[i]->context != c)
      rc = CL_INVALID_PROGRAM;
    else if (weft_program_get_binary_type(inputs[i]->native) != WEFT_BINARY_OBJECT &&
             weft_program_get_binary_type(inputs[i]->native) != WEFT_BINARY_LIBRARY)
      rc = CL_INVALID_OPERATION;
    else natives[i] = inputs[i]->native;
  }
  weft_program *native = NULL;
  int status = rc ? 0 : weft_program_link(c->native, num_inputs, natives,
                                          options, &native);
  free(natives);
  if (!rc && status == WEFT_EOPTION) rc = CL_INVALID_LINKER_OPTIONS;
  else if (!rc && status && !native) rc = weft__cl_error(status);
  if (!rc && status) weft__cl_notify(c, weft_errmsg(c->native));
  if (native) {
    cl_int wrap_rc;
    p = program_wrap(c, native, &wrap_rc);
    if (!p) rc = wrap_rc;
  }
  if (p) {
    p->linked = 1;
    p->status = status ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
    /* A failed link still returns the program, for its log. */
    if (status) rc = CL_LINK_PROGRAM_FAILURE;
    if (notify) notify(p, user_data);
  }
  if (errcode) *errcode = rc;
  return p;
}

CL_API_ENTRY cl_int CL_API_CALL clUnloadCompiler(void) { return CL_SUCCESS; }

CL_API_ENTRY cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id p) {
  return p == weft__cl_platform() ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

CL_API_ENTRY cl_int CL_API_CALL clSetProgramReleaseCallback(
    cl_program p, program_notify notify, void *user_data) {
  (void)notify;
  (void)user_data;
  /* No program-scope global destructors to run. */
  return weft__cl_is(p, CL_KIND_PROGRAM) ? CL_INVALID_OPERATION
                                         : CL_INVALID_PROGRAM;
}

CL_API_ENTRY cl_int CL_API_CALL clSetProgramSpecializationConstant(
    cl_program p, cl_uint id, size_t size, const void *value) {
  (void)id;
  (void)size;
  (void)value;
  /* Only programs made from IL have specialization constants, and Weft
   * takes no IL. */
  return weft__cl_is(p, CL_KIND_PROGRAM) ? CL_INVALID_OPERATION
                                         : CL_INVALID_PROGRAM;
}

/* "a;b;c" */
static size_t kernel_names(cl_program p, char *out, size_t size) {
  int n = weft_program_kernel_count(p->native);
  size_t used = 0;
  if (size) out[0] = 0;
  for (int i = 0; i < n; i++) {
    const char *name = weft_program_kernel_name(p->native, i);
    size_t len = strlen(name) + (i > 0);
    if (out && used + len < size)
      sprintf(out + used, "%s%s", i ? ";" : "", name);
    used += len;
  }
  return used + 1;
}

/* CL_PROGRAM_BINARY_SIZES and CL_PROGRAM_BINARIES (an array of one
 * pointer the caller allocated); no binary yet gives size 0 and copies
 * nothing, as the specification says. */
static cl_int binary_info(cl_program p, cl_program_info param, size_t size,
                          void *value, size_t *size_ret) {
  void *binary = NULL;
  size_t length = 0;
  if (weft_program_get_binary_type(p->native) != WEFT_BINARY_NONE &&
      weft_program_get_binary(p->native, &binary, &length))
    return CL_OUT_OF_HOST_MEMORY;
  cl_int rc = CL_SUCCESS;
  if (param == CL_PROGRAM_BINARY_SIZES) {
    rc = weft__cl_info(&length, sizeof length, size, value, size_ret);
  } else if (value && size < sizeof(unsigned char *)) {
    rc = CL_INVALID_VALUE;
  } else {
    unsigned char *to = value ? ((unsigned char **)value)[0] : NULL;
    if (to && length) memcpy(to, binary, length);
    if (size_ret) *size_ret = sizeof(unsigned char *);
  }
  free(binary);
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramInfo(cl_program p,
                                                 cl_program_info param,
                                                 size_t size, void *value,
                                                 size_t *size_ret) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_uint n;
  size_t count;
  cl_bool no = CL_FALSE;
  const char *s;
  size_t length = 0;
  int built = weft_program_get_binary_type(p->native) == WEFT_BINARY_EXECUTABLE;
  switch (param) {
  case CL_PROGRAM_REFERENCE_COUNT:
    n = (cl_uint)atomic_load(&p->h.refs);
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_PROGRAM_CONTEXT:
    return weft__cl_info(&p->context, sizeof p->context, size, value, size_ret);
  case CL_PROGRAM_NUM_DEVICES:
    n = 1;
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_PROGRAM_DEVICES:
    return weft__cl_info(&p->context->device, sizeof p->context->device, size,
                         value, size_ret);
  case CL_PROGRAM_SOURCE:
    /* "" for a program not made from source. */
    s = weft_program_source(p->native, &length);
    return weft__cl_info(s ? s : "", s ? length + 1 : 1, size, value,
                         size_ret);
  case CL_PROGRAM_IL:
    return weft__cl_info(NULL, 0, size, value, size_ret);
  case CL_PROGRAM_BINARY_SIZES:
  case CL_PROGRAM_BINARIES:
    return binary_info(p, param, size, value, size_ret);
  case CL_PROGRAM_NUM_KERNELS:
    if (!built) return CL_INVALID_PROGRAM_EXECUTABLE;
    count = (size_t)weft_program_kernel_count(p->native);
    return weft__cl_info(&count, sizeof count, size, value, size_ret);
  case CL_PROGRAM_KERNEL_NAMES: {
    if (!built) return CL_INVALID_PROGRAM_EXECUTABLE;
    size_t need = kernel_names(p, NULL, 0);
    if (value && size < need) return CL_INVALID_VALUE;
    if (value) kernel_names(p, value, size);
    if (size_ret) *size_ret = need;
    return CL_SUCCESS;
  }
  case CL_PROGRAM_SCOPE_GLOBAL_CTORS_PRESENT:
  case CL_PROGRAM_SCOPE_GLOBAL_DTORS_PRESENT:
    return weft__cl_info(&no, sizeof no, size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}

static cl_program_binary_type binary_type(cl_program p) {
  if (executable_binary(p)) return CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  switch (weft_program_get_binary_type(p->native)) {
  case WEFT_BINARY_OBJECT: return CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
  case WEFT_BINARY_LIBRARY: return CL_PROGRAM_BINARY_TYPE_LIBRARY;
  case WEFT_BINARY_EXECUTABLE: return CL_PROGRAM_BINARY_TYPE_EXECUTABLE;
  default: return CL_PROGRAM_BINARY_TYPE_NONE;
  }
}

char *weft__cl_program_options(cl_program p) {
  long n = weft_program_options(p->native, NULL, 0);
  char *copy = n > 0 ? malloc((size_t)n) : NULL;
  if (copy) weft_program_options(p->native, copy, (size_t)n);
  return copy;
}

/* The native program's options, as clGetProgramBuildInfo answers. */
static cl_int build_options(cl_program p, size_t size, void *value,
                            size_t *size_ret) {
  char *copy = weft__cl_program_options(p);
  if (!copy) return CL_OUT_OF_HOST_MEMORY;
  cl_int rc = weft__cl_info(copy, strlen(copy) + 1, size, value, size_ret);
  free(copy);
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramBuildInfo(
    cl_program p, cl_device_id d, cl_program_build_info param, size_t size,
    void *value, size_t *size_ret) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  if (d != p->context->device) return CL_INVALID_DEVICE;
  const char *s;
  cl_program_binary_type type;
  size_t globals = 0;
  switch (param) {
  case CL_PROGRAM_BUILD_STATUS:
    return weft__cl_info(&p->status, sizeof p->status, size, value, size_ret);
  case CL_PROGRAM_BUILD_OPTIONS:
    return build_options(p, size, value, size_ret);
  case CL_PROGRAM_BUILD_LOG:
    s = weft_program_build_log(p->native);
    return weft__cl_info(s, strlen(s) + 1, size, value, size_ret);
  case CL_PROGRAM_BINARY_TYPE:
    type = binary_type(p);
    return weft__cl_info(&type, sizeof type, size, value, size_ret);
  case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
    /* 0 before a build, as a program without variables has. */
    if (p->status == CL_BUILD_SUCCESS)
      weft_program_global_variables_size(p->native, &globals);
    return weft__cl_info(&globals, sizeof globals, size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}
