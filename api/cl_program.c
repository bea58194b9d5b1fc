/* cl_program.c: programs: from source or binary, build, compile, link, and
 * their queries.
 *
 * A program binary is, for now, Weft's tag followed by the source: loading
 * one builds that source again. clCompileProgram checks a unit by building
 * it; clLinkProgram builds the units' sources as one. (Both are interim: the
 * JIT keeps no per-unit LLVM modules yet.) */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/cl_objects.h"

#define BINARY_TAG "WEFT-OPENCL-SOURCE-1\n"

static cl_program program_new(cl_context c, char *source, cl_int *rc) {
  cl_program p = calloc(1, sizeof *p);
  if (!p) {
    free(source);
    *rc = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  weft__cl_init(p, CL_KIND_PROGRAM);
  pthread_mutex_init(&p->lock, NULL);
  p->context = c;
  p->source = source;
  p->status = CL_BUILD_NONE;
  clRetainContext(c);
  *rc = weft__cl_error(weft_program_create(c->native, source, strlen(source),
                                           &p->native));
  if (*rc) {
    clReleaseProgram(p);
    return NULL;
  }
  return p;
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
    p = program_new(c, source, &rc);
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
  size_t tag = strlen(BINARY_TAG);
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else if (num_devices != 1 || !devices || !lengths || !binaries)
    rc = CL_INVALID_VALUE;
  else if (devices[0] != c->device) rc = CL_INVALID_DEVICE;
  else if (!binaries[0] || !lengths[0]) rc = CL_INVALID_VALUE;
  else if (lengths[0] < tag || memcmp(binaries[0], BINARY_TAG, tag))
    rc = CL_INVALID_BINARY;
  if (status) status[0] = rc;
  if (!rc) {
    char *source = strndup((const char *)binaries[0] + tag, lengths[0] - tag);
    if (!source) rc = CL_OUT_OF_HOST_MEMORY;
    else p = program_new(c, source, &rc);
  }
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
  free(p->source);
  free(p->options);
  free(p);
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

/* Builds p's native program with options; the status and log stay on it. */
static cl_int build(cl_program p, const char *options, cl_build_status *status) {
  if (atomic_load(&p->num_kernels)) return CL_INVALID_OPERATION;
  pthread_mutex_lock(&p->lock);
  free(p->options);
  p->options = strdup(options ? options : "");
  p->status = CL_BUILD_IN_PROGRESS;
  int rc = weft_program_build(p->native, options);
  p->status = rc ? CL_BUILD_ERROR : CL_BUILD_SUCCESS;
  if (status) *status = p->status;
  pthread_mutex_unlock(&p->lock);
  if (rc) weft__cl_notify(p->context, weft_errmsg(p->native));
  return weft__cl_error(rc);
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
  if (rc) return rc;
  rc = build(p, options, NULL);
  /* The build is done when clBuildProgram returns; tell the callback. */
  if (notify) notify(p, user_data);
  return rc;
}

/* Writes embedded headers under a new directory, for -I. */
static cl_int write_headers(cl_uint n, const cl_program *headers,
                            const char **names, char *dir) {
  if (!mkdtemp(dir)) return CL_OUT_OF_RESOURCES;
  for (cl_uint i = 0; i < n; i++) {
    if (!weft__cl_is(headers[i], CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
    if (!names || !names[i]) return CL_INVALID_VALUE;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    for (char *slash = strchr(path + strlen(dir) + 1, '/'); slash;
         slash = strchr(slash + 1, '/')) {
      *slash = 0;
      mkdir(path, 0700);
      *slash = '/';
    }
    FILE *f = fopen(path, "w");
    if (!f) return CL_OUT_OF_RESOURCES;
    fputs(headers[i]->source, f);
    fclose(f);
  }
  return CL_SUCCESS;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

CL_API_ENTRY cl_int CL_API_CALL clCompileProgram(
    cl_program p, cl_uint n, const cl_device_id *devices, const char *options,
    cl_uint num_headers, const cl_program *headers, const char **names,
    program_notify notify, void *user_data) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_int rc = check_devices(p, n, devices);
  if (!rc && (!num_headers != !headers || (!notify && user_data)))
    rc = CL_INVALID_VALUE;
  if (rc) return rc;
  char dir[] = "/tmp/weft-headers-XXXXXX";
  char *with_dir = NULL;
  if (num_headers) {
    rc = write_headers(num_headers, headers, names, dir);
    if (!rc && asprintf(&with_dir, "%s -I %s", options ? options : "", dir) < 0)
      rc = CL_OUT_OF_HOST_MEMORY;
  }
  if (!rc) rc = build(p, with_dir ? with_dir : options, NULL);
  if (num_headers) nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
  free(with_dir);
  if (notify) notify(p, user_data);
  return rc;
}

/* Link options OpenCL defines that building a whole program does not take. */
static char *link_options(const char *options) {
  char *out = strdup(options ? options : "");
  static const char *const drop[] = {"-create-library", "-enable-link-options"};
  for (size_t i = 0; out && i < 2; i++) {
    char *at;
    while ((at = strstr(out, drop[i])))
      memset(at, ' ', strlen(drop[i]));
  }
  return out;
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
  size_t total = 1;
  for (cl_uint i = 0; !rc && i < num_inputs; i++) {
    if (!weft__cl_is(inputs[i], CL_KIND_PROGRAM)) rc = CL_INVALID_PROGRAM;
    else if (inputs[i]->status != CL_BUILD_SUCCESS) rc = CL_INVALID_OPERATION;
    else total += strlen(inputs[i]->source) + 64;
  }
  char *source = rc ? NULL : malloc(total);
  if (!rc && !source) rc = CL_OUT_OF_HOST_MEMORY;
  if (!rc) {
    size_t at = 0;
    for (cl_uint i = 0; i < num_inputs; i++)
      at += (size_t)sprintf(source + at, "#line 1 \"unit-%u.cl\"\n%s\n", i,
                            inputs[i]->source);
    p = program_new(c, source, &rc);
  }
  if (p) {
    char *opts = link_options(options);
    rc = opts ? build(p, opts, NULL) : CL_OUT_OF_HOST_MEMORY;
    free(opts);
    if (rc == CL_BUILD_PROGRAM_FAILURE) rc = CL_LINK_PROGRAM_FAILURE;
    if (notify) notify(p, user_data);
  }
  if (errcode) *errcode = rc;
  /* A failed link still returns the program, for its log. */
  return rc == CL_SUCCESS || rc == CL_LINK_PROGRAM_FAILURE ? p : NULL;
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
  /* Only programs made from IL have specialization constants. */
  return weft__cl_is(p, CL_KIND_PROGRAM) ? CL_INVALID_PROGRAM
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

static cl_int binary_info(cl_program p, cl_program_info param, size_t size,
                          void *value, size_t *size_ret) {
  size_t length = strlen(BINARY_TAG) + strlen(p->source);
  if (param == CL_PROGRAM_BINARY_SIZES)
    return weft__cl_info(&length, sizeof length, size, value, size_ret);
  /* CL_PROGRAM_BINARIES: an array of one pointer the caller allocated. */
  if (value && size < sizeof(unsigned char *)) return CL_INVALID_VALUE;
  if (value && ((unsigned char **)value)[0]) {
    unsigned char *to = ((unsigned char **)value)[0];
    memcpy(to, BINARY_TAG, strlen(BINARY_TAG));
    memcpy(to + strlen(BINARY_TAG), p->source, strlen(p->source));
  }
  if (size_ret) *size_ret = sizeof(unsigned char *);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetProgramInfo(cl_program p,
                                                 cl_program_info param,
                                                 size_t size, void *value,
                                                 size_t *size_ret) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_uint n;
  size_t count;
  cl_bool no = CL_FALSE;
  int built = p->status == CL_BUILD_SUCCESS;
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
    return weft__cl_info(p->source, strlen(p->source) + 1, size, value, size_ret);
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
    s = p->options ? p->options : "";
    return weft__cl_info(s, strlen(s) + 1, size, value, size_ret);
  case CL_PROGRAM_BUILD_LOG:
    s = weft_program_build_log(p->native);
    return weft__cl_info(s, strlen(s) + 1, size, value, size_ret);
  case CL_PROGRAM_BINARY_TYPE:
    type = p->status == CL_BUILD_SUCCESS ? CL_PROGRAM_BINARY_TYPE_EXECUTABLE
                                         : CL_PROGRAM_BINARY_TYPE_NONE;
    return weft__cl_info(&type, sizeof type, size, value, size_ret);
  case CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE:
    return weft__cl_info(&globals, sizeof globals, size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}
