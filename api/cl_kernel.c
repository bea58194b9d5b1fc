/* cl_kernel.c: kernels, their arguments and queries, and NDRange launches.
 * A launch runs on a clone of the native kernel made when it is enqueued,
 * so clSetKernelArg after clEnqueueNDRangeKernel does not change it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cl_memory.h"
#include "api/cl_queue.h"

static cl_kernel kernel_new(cl_program p, weft_kernel *native, cl_int *rc) {
  cl_kernel k = weft__cl_alloc(sizeof *k);
  int n = native ? weft_kernel_arg_count(native) : 0;
  size_t slots = n > 0 ? (size_t)n : 1;
  if (k) k->buffers = calloc(slots, sizeof *k->buffers);
  if (k) k->serials = calloc(slots, sizeof *k->serials);
  if (k) k->local_sizes = calloc(slots, sizeof *k->local_sizes);
  if (!k || !k->buffers || !k->serials || !k->local_sizes) {
    if (k) {
      free(k->buffers);
      free(k->serials);
      free(k->local_sizes);
    }
    weft__cl_free(k, sizeof *k);
    weft_kernel_release(native);
    *rc = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  weft__cl_init(k, CL_KIND_KERNEL);
  k->program = p;
  k->native = native;
  clRetainProgram(p);
  atomic_fetch_add(&p->num_kernels, 1);
  *rc = CL_SUCCESS;
  return k;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program p,
                                                  const char *name,
                                                  cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_kernel k = NULL;
  weft_kernel *native = NULL;
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) rc = CL_INVALID_PROGRAM;
  else if (!name) rc = CL_INVALID_VALUE;
  else if ((rc = weft__cl_program_ready(p))) {
    /* not built, and not made from an executable's binary */
  } else {
    rc = weft__cl_error(weft_kernel_create(p->native, name, &native));
  }
  if (!rc) k = kernel_new(p, native, &rc);
  if (errcode) *errcode = rc;
  return k;
}

CL_API_ENTRY cl_int CL_API_CALL clCreateKernelsInProgram(cl_program p,
                                                         cl_uint num,
                                                         cl_kernel *kernels,
                                                         cl_uint *num_ret) {
  if (!weft__cl_is(p, CL_KIND_PROGRAM)) return CL_INVALID_PROGRAM;
  cl_int ready = weft__cl_program_ready(p);
  if (ready) return ready;
  cl_uint n = (cl_uint)weft_program_kernel_count(p->native);
  if (kernels && num < n) return CL_INVALID_VALUE;
  for (cl_uint i = 0; kernels && i < n; i++) {
    cl_int rc;
    kernels[i] = clCreateKernel(p, weft_program_kernel_name(p->native, (int)i), &rc);
    if (rc) {
      while (i--) clReleaseKernel(kernels[i]);
      return rc;
    }
  }
  if (num_ret) *num_ret = n;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_kernel CL_API_CALL clCloneKernel(cl_kernel source,
                                                 cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_kernel k = NULL;
  weft_kernel *native = NULL;
  if (!weft__cl_is(source, CL_KIND_KERNEL)) rc = CL_INVALID_KERNEL;
  else rc = weft__cl_error(weft_kernel_clone(source->native, &native));
  if (!rc) k = kernel_new(source->program, native, &rc);
  int n = k ? weft_kernel_arg_count(k->native) : 0;
  for (int i = 0; i < n; i++) {
    k->buffers[i] = source->buffers[i];
    k->serials[i] = source->serials[i];
    k->local_sizes[i] = source->local_sizes[i];
  }
  if (errcode) *errcode = rc;
  return k;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainKernel(cl_kernel k) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  weft__cl_retain(k);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseKernel(cl_kernel k) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  if (!weft__cl_release(k)) return CL_SUCCESS;
  weft_kernel_release(k->native);
  cl_program p = k->program;
  atomic_fetch_sub(&p->num_kernels, 1);
  free(k->buffers);
  free(k->serials);
  free(k->local_sizes);
  weft__cl_free(k, sizeof *k);
  clReleaseProgram(p);
  return CL_SUCCESS;
}

/* A buffer argument is not retained: the application may release the
 * buffer while it is set (its destructor callbacks then run), and a launch
 * after that is refused (check_buffers_alive). Launches enqueued before
 * hold their buffers (snapshot). */
static cl_int set_buffer(cl_kernel k, cl_uint i, size_t size, const void *value) {
  if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
  cl_mem m = value ? *(const cl_mem *)value : NULL;
  if (m && !weft__cl_is(m, CL_KIND_MEM)) return CL_INVALID_MEM_OBJECT;
  if (m && m->context != k->program->context) return CL_INVALID_MEM_OBJECT;
  cl_int rc = weft__cl_error(
      weft_kernel_set_arg_buffer(k->native, (int)i, m ? m->native : NULL));
  if (rc) return rc;
  k->buffers[i] = m;
  k->serials[i] = m ? m->h.serial : 0;
  return CL_SUCCESS;
}

/* An image: held like a buffer argument (not retained; a launch after its
 * release is refused). */
static cl_int set_image(cl_kernel k, cl_uint i, size_t size, const void *value) {
  if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
  cl_mem m = value ? *(const cl_mem *)value : NULL;
  if (!weft__cl_is(m, CL_KIND_MEM) || !weft__cl_is_image_type(m->type) ||
      m->context != k->program->context)
    return CL_INVALID_MEM_OBJECT;
  if (weft_kernel_set_arg_image(k->native, (int)i, m->native)) {
    weft__cl_notify(k->program->context, weft_errmsg(k->native));
    return CL_INVALID_ARG_VALUE;
  }
  k->buffers[i] = m;
  k->serials[i] = m->h.serial;
  return CL_SUCCESS;
}

static cl_int set_sampler(cl_kernel k, cl_uint i, size_t size, const void *value) {
  if (size != sizeof(cl_sampler)) return CL_INVALID_ARG_SIZE;
  cl_sampler s = value ? *(const cl_sampler *)value : NULL;
  if (!weft__cl_is(s, CL_KIND_SAMPLER) || s->context != k->program->context)
    return CL_INVALID_SAMPLER;
  return weft__cl_error(weft_kernel_set_arg_sampler(k->native, (int)i,
                                                    weft__cl_sampler_bits(s)));
}

/* An SVM pointer: any address inside an SVM allocation of the context. */
CL_API_ENTRY cl_int CL_API_CALL clSetKernelArgSVMPointer(cl_kernel k, cl_uint i,
                                                         const void *ptr) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  weft_arg_info info;
  if (weft_kernel_arg_info(k->native, (int)i, &info)) return CL_INVALID_ARG_INDEX;
  if (info.kind != WEFT_ARG_BUFFER) return CL_INVALID_ARG_VALUE;
  if (weft_kernel_set_arg_svm(k->native, (int)i, ptr)) {
    weft__cl_notify(k->program->context, weft_errmsg(k->native));
    return CL_INVALID_ARG_VALUE;
  }
  /* The argument no longer holds a buffer. */
  k->buffers[i] = NULL;
  return CL_SUCCESS;
}

/* Every SVM allocation is reachable from every kernel on the CPU, so the
 * list of pointers a kernel uses indirectly needs no action. */
CL_API_ENTRY cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel k,
                                                    cl_kernel_exec_info param,
                                                    size_t size,
                                                    const void *value) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  if (!value || !size) return CL_INVALID_VALUE;
  switch (param) {
  case CL_KERNEL_EXEC_INFO_SVM_PTRS:
    return size % sizeof(void *) ? CL_INVALID_VALUE : CL_SUCCESS;
  case CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
    if (size != sizeof(cl_bool)) return CL_INVALID_VALUE;
    /* Fine-grained system SVM is not a capability of the device. */
    return *(const cl_bool *)value ? CL_INVALID_OPERATION : CL_SUCCESS;
  default:
    return CL_INVALID_VALUE;
  }
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel k, cl_uint i,
                                               size_t size, const void *value) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  weft_arg_info info;
  if (weft_kernel_arg_info(k->native, (int)i, &info)) return CL_INVALID_ARG_INDEX;
  switch (info.kind) {
  case WEFT_ARG_BUFFER:
    return set_buffer(k, i, size, value);
  case WEFT_ARG_IMAGE:
    return set_image(k, i, size, value);
  case WEFT_ARG_SAMPLER:
    return set_sampler(k, i, size, value);
  case WEFT_ARG_LOCAL: {
    if (value) return CL_INVALID_ARG_VALUE;
    if (!size) return CL_INVALID_ARG_SIZE;
    cl_int rc = weft__cl_error(weft_kernel_set_arg_local(k->native, (int)i, size));
    if (!rc) k->local_sizes[i] = size; /* for CL_KERNEL_LOCAL_MEM_SIZE */
    return rc;
  }
  default:
    if (!value) return CL_INVALID_ARG_VALUE;
    if (size != info.size) return CL_INVALID_ARG_SIZE;
    return weft__cl_error(weft_kernel_set_arg_value(k->native, (int)i, value, size));
  }
}

/* The kernel's attributes as OpenCL C spells them, space-separated. */
static void attributes_text(cl_kernel k, char *out, size_t size) {
  weft_kernel_attributes a;
  size_t used = 0;
  out[0] = 0;
  if (weft_kernel_get_attributes(k->native, &a)) return;
  if (a.reqd_local_size[0])
    used += (size_t)snprintf(out, size, "reqd_work_group_size(%zu,%zu,%zu)",
                             a.reqd_local_size[0], a.reqd_local_size[1],
                             a.reqd_local_size[2]);
  if (a.local_size_hint[0] && used < size)
    used += (size_t)snprintf(out + used, size - used,
                             "%swork_group_size_hint(%zu,%zu,%zu)",
                             used ? " " : "", a.local_size_hint[0],
                             a.local_size_hint[1], a.local_size_hint[2]);
  if (a.vec_type_hint[0] && used < size)
    snprintf(out + used, size - used, "%svec_type_hint(%s)", used ? " " : "",
             a.vec_type_hint);
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelInfo(cl_kernel k, cl_kernel_info param,
                                                size_t size, void *value,
                                                size_t *size_ret) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  const char *name = weft_kernel_name(k->native);
  cl_uint n;
  switch (param) {
  case CL_KERNEL_FUNCTION_NAME:
    return weft__cl_info(name, strlen(name) + 1, size, value, size_ret);
  case CL_KERNEL_NUM_ARGS:
    n = (cl_uint)weft_kernel_arg_count(k->native);
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_KERNEL_REFERENCE_COUNT:
    n = (cl_uint)atomic_load(&k->h.refs);
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_KERNEL_CONTEXT:
    return weft__cl_info(&k->program->context, sizeof(cl_context), size, value,
                         size_ret);
  case CL_KERNEL_PROGRAM:
    return weft__cl_info(&k->program, sizeof k->program, size, value, size_ret);
  case CL_KERNEL_ATTRIBUTES: {
    char text[160];
    attributes_text(k, text, sizeof text);
    return weft__cl_info(text, strlen(text) + 1, size, value, size_ret);
  }
  default:
    return CL_INVALID_VALUE;
  }
}

/* Whether the program's last build asked for -cl-kernel-arg-info. */
static int arg_info_kept(cl_program p) {
  char *options = weft__cl_program_options(p);
  if (!options) return 0;
  int kept = strstr(options, "-cl-kernel-arg-info") != NULL;
  free(options);
  return kept;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelArgInfo(cl_kernel k, cl_uint i,
                                                   cl_kernel_arg_info param,
                                                   size_t size, void *value,
                                                   size_t *size_ret) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  weft_arg_info info;
  if (weft_kernel_arg_info(k->native, (int)i, &info)) return CL_INVALID_ARG_INDEX;
  /* Argument information is kept only when asked for at build time. */
  if (!arg_info_kept(k->program)) return CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
  static const cl_kernel_arg_address_qualifier spaces[] = {
      CL_KERNEL_ARG_ADDRESS_PRIVATE, CL_KERNEL_ARG_ADDRESS_GLOBAL,
      CL_KERNEL_ARG_ADDRESS_CONSTANT, CL_KERNEL_ARG_ADDRESS_LOCAL};
  static const cl_kernel_arg_access_qualifier accesses[] = {
      CL_KERNEL_ARG_ACCESS_NONE, CL_KERNEL_ARG_ACCESS_READ_ONLY,
      CL_KERNEL_ARG_ACCESS_WRITE_ONLY, CL_KERNEL_ARG_ACCESS_READ_WRITE};
  cl_kernel_arg_access_qualifier access = accesses[info.access & 3];
  /* A sampler is a value to OpenCL (Clang passes it as a pointer). */
  cl_kernel_arg_address_qualifier space =
      info.kind == WEFT_ARG_SAMPLER ? CL_KERNEL_ARG_ADDRESS_PRIVATE
                                    : spaces[info.address_space];
  cl_kernel_arg_type_qualifier qualifiers = 0;
  if (info.type_qualifiers & WEFT_TYPE_CONST) qualifiers |= CL_KERNEL_ARG_TYPE_CONST;
  if (info.type_qualifiers & WEFT_TYPE_RESTRICT) qualifiers |= CL_KERNEL_ARG_TYPE_RESTRICT;
  if (info.type_qualifiers & WEFT_TYPE_VOLATILE) qualifiers |= CL_KERNEL_ARG_TYPE_VOLATILE;
  switch (param) {
  case CL_KERNEL_ARG_ADDRESS_QUALIFIER:
    return weft__cl_info(&space, sizeof space, size, value, size_ret);
  case CL_KERNEL_ARG_ACCESS_QUALIFIER:
    return weft__cl_info(&access, sizeof access, size, value, size_ret);
  case CL_KERNEL_ARG_TYPE_NAME:
    return weft__cl_info(info.type_name, strlen(info.type_name) + 1, size,
                         value, size_ret);
  case CL_KERNEL_ARG_TYPE_QUALIFIER:
    return weft__cl_info(&qualifiers, sizeof qualifiers, size, value, size_ret);
  case CL_KERNEL_ARG_NAME:
    return weft__cl_info(info.name, strlen(info.name) + 1, size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}

/* The __local memory a launch takes: the kernel's own variables and the
 * __local arguments set so far, laid out as the launch places them (each
 * after the previous one, WEFT_LOCAL_ALIGN apart). It exceeds
 * CL_DEVICE_LOCAL_MEM_SIZE exactly when the launch would fail for it. */
static cl_ulong local_mem_used(cl_kernel k) {
  const size_t align = 128; /* WEFT_LOCAL_ALIGN (jit/kernel_abi.h) */
  cl_ulong total = weft_kernel_local_mem_size(k->native);
  int n = weft_kernel_arg_count(k->native);
  for (int i = 0; i < n; i++)
    if (k->local_sizes[i])
      total = (total + align - 1) / align * align + k->local_sizes[i];
  return total;
}

CL_API_ENTRY cl_int CL_API_CALL clGetKernelWorkGroupInfo(
    cl_kernel k, cl_device_id d, cl_kernel_work_group_info param, size_t size,
    void *value, size_t *size_ret) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  if (d && d != k->program->context->device) return CL_INVALID_DEVICE;
  d = k->program->context->device;
  weft_kernel_attributes attributes;
  weft_kernel_get_attributes(k->native, &attributes);
  size_t *sizes = attributes.reqd_local_size;
  cl_ulong bytes;
  size_t n;
  switch (param) {
  case CL_KERNEL_WORK_GROUP_SIZE:
    /* A kernel that requires a size runs with no other. */
    n = sizes[0] ? sizes[0] * sizes[1] * sizes[2] : d->info.max_work_group_size;
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_KERNEL_COMPILE_WORK_GROUP_SIZE:
    return weft__cl_info(sizes, sizeof attributes.reqd_local_size, size, value,
                         size_ret);
  case CL_KERNEL_LOCAL_MEM_SIZE:
    bytes = local_mem_used(k);
    return weft__cl_info(&bytes, sizeof bytes, size, value, size_ret);
  case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
    n = weft__cl_preferred_multiple(d);
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_KERNEL_PRIVATE_MEM_SIZE:
    bytes = d->info.stack_size;
    return weft__cl_info(&bytes, sizeof bytes, size, value, size_ret);
  case CL_KERNEL_SPILL_MEM_SIZE_INTEL:
    /* cl_intel_required_subgroup_size: private memory beyond registers.
     * Weft's work-items keep theirs on their stack (the private size
     * above), never in a separate spill area. */
    bytes = 0;
    return weft__cl_info(&bytes, sizeof bytes, size, value, size_ret);
  case CL_KERNEL_GLOBAL_WORK_SIZE:
    return CL_INVALID_VALUE; /* only for custom devices and built-in kernels */
  default:
    return CL_INVALID_VALUE;
  }
}

/* The most work-items a launch of a kernel with these attributes may
 * have in a group on d. */
static size_t kernel_group_limit(const weft_kernel_attributes *attributes,
                                 cl_device_id d) {
  const size_t *sizes = attributes->reqd_local_size;
  return sizes[0] ? sizes[0] * sizes[1] * sizes[2] : d->info.max_work_group_size;
}

/* The work-items of a local size given as input (1 to 3 size_t), or 0
 * where the input is no such thing. */
static size_t input_items(size_t in_size, const void *in) {
  if (!in || !in_size || in_size % sizeof(size_t) ||
      in_size > 3 * sizeof(size_t))
    return 0;
  const size_t *local = in;
  size_t n = 1;
  for (size_t i = 0; i < in_size / sizeof(size_t); i++) n *= local[i];
  return n;
}

/* Sub-groups are width consecutive work-items of a group (the kernel's
 * intel_reqd_sub_group_size, else the device's sub_group_size;
 * builtins/sub_groups.cl), the last one smaller. */
CL_API_ENTRY cl_int CL_API_CALL clGetKernelSubGroupInfo(
    cl_kernel k, cl_device_id d, cl_kernel_sub_group_info param,
    size_t in_size, const void *in, size_t size, void *value, size_t *size_ret) {
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  if (d && d != k->program->context->device) return CL_INVALID_DEVICE;
  d = k->program->context->device;
  weft_kernel_attributes attributes;
  weft_kernel_get_attributes(k->native, &attributes);
  size_t width = attributes.sub_group_size ? attributes.sub_group_size
                                           : d->info.sub_group_size;
  size_t limit = kernel_group_limit(&attributes, d);
  size_t n, local[3] = {0, 0, 0};
  switch (param) {
  case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE:
  case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE:
    if (!(n = input_items(in_size, in))) return CL_INVALID_VALUE;
    n = param == CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE ? (n + width - 1) / width
        : n < width ? n : width;
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT:
    /* Groups of count full sub-groups along x; zeros where none fits. The
     * answer's size says how many dimensions are asked for. */
    if (!in || in_size != sizeof(size_t) ||
        (value && (!size || size % sizeof(size_t) || size > sizeof local)))
      return CL_INVALID_VALUE;
    n = *(const size_t *)in * width;
    local[0] = n && n <= limit ? n : 0;
    if (local[0]) local[1] = local[2] = 1;
    return weft__cl_info(local, value ? size : sizeof local, size, value,
                         size_ret);
  case CL_KERNEL_MAX_NUM_SUB_GROUPS:
    n = (limit + width - 1) / width;
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
    n = 0; /* no attribute sets it */
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL:
    n = attributes.sub_group_size;
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}

/* ------------------------------------------------------------ launches */

typedef struct launch {
  weft_kernel *kernel;   /* a clone, with the arguments as enqueued */
  cl_mem *buffers;       /* the buffer arguments as enqueued, retained */
  int num_buffers;
  cl_uint dims;
  size_t offset[3], global[3], local[3];
  int has_offset, has_local;
} launch;

/* A GPU may leave the launch in flight (WEFT_IN_FLIGHT): the queue lets
 * the next launch go at once and settles later (settle_launch). */
static cl_int run_launch(cl_command *c) {
  launch *l = (launch *)c->payload;
  int rc = weft_kernel_start(l->kernel, l->dims, l->has_offset ? l->offset : NULL,
                             l->global, l->has_local ? l->local : NULL);
  if (rc == WEFT_IN_FLIGHT) return WEFT_IN_FLIGHT;
  if (rc) weft__cl_report(c->queue->context, weft_errmsg(l->kernel));
  return weft__cl_error(rc);
}

static cl_int settle_launch(cl_command *c, int status, const char *msg) {
  if (status) weft__cl_report(c->queue->context, msg);
  return weft__cl_error(status);
}

static void finish_launch(cl_command *c) {
  launch *l = (launch *)c->payload;
  if (l->kernel) weft_kernel_release(l->kernel);
  for (int i = 0; i < l->num_buffers; i++)
    if (l->buffers[i]) clReleaseMemObject(l->buffers[i]);
  free(l->buffers);
}

/* The clone, and the buffers it points into, held until the launch ends. */
static int snapshot(launch *l, cl_kernel k) {
  int n = weft_kernel_arg_count(k->native);
  l->buffers = calloc(n > 0 ? (size_t)n : 1, sizeof *l->buffers);
  if (!l->buffers || weft_kernel_clone(k->native, &l->kernel)) return -1;
  l->num_buffers = n;
  for (int i = 0; i < n; i++)
    if ((l->buffers[i] = k->buffers[i])) clRetainMemObject(l->buffers[i]);
  return 0;
}

/* A launch may not use a buffer released since clSetKernelArg set it:
 * its memory is gone (or another buffer's, the handle being reused). */
static cl_int check_buffers_alive(cl_command_queue q, cl_kernel k) {
  int n = weft_kernel_arg_count(k->native);
  for (int i = 0; i < n; i++) {
    cl_mem m = k->buffers[i];
    if (!m || (weft__cl_is(m, CL_KIND_MEM) && m->h.serial == k->serials[i]))
      continue;
    weft_arg_info info;
    char text[512];
    weft_kernel_arg_info(k->native, i, &info);
    snprintf(text, sizeof text, "kernel '%s': argument %d ('%s %s') is a buffer "
             "released (clReleaseMemObject) after clSetKernelArg set it: set "
             "the argument again", weft_kernel_name(k->native), i,
             info.type_name, info.name);
    weft__cl_notify(q->context, text);
    return CL_INVALID_KERNEL_ARGS;
  }
  return CL_SUCCESS;
}

/* The CL error for an NDRange the native checks refuse. */
static cl_int launch_error(int status, const size_t *local) {
  if (status == WEFT_EGLOBALSIZE) return CL_INVALID_GLOBAL_WORK_SIZE;
  if (status == WEFT_EGROUPSIZE)
    return local ? CL_INVALID_WORK_GROUP_SIZE : CL_INVALID_GLOBAL_WORK_SIZE;
  return weft__cl_error(status);
}

/* What OpenCL words apart from the native checks: a side larger than
 * CL_DEVICE_MAX_WORK_ITEM_SIZES, and an offset that overflows. */
static cl_int check_range(cl_device_id d, cl_uint dims, const size_t *offset,
                          const size_t *global, const size_t *local) {
  for (cl_uint i = 0; i < dims; i++) {
    if (offset && global[i] > SIZE_MAX - offset[i]) return CL_INVALID_GLOBAL_OFFSET;
    if (local && local[i] > d->info.max_work_item_sizes[i])
      return CL_INVALID_WORK_ITEM_SIZE;
  }
  return CL_SUCCESS;
}

static int is_empty(cl_uint dims, const size_t *global) {
  for (cl_uint i = 0; i < dims; i++)
    if (!global[i]) return 1;
  return 0;
}

/* Since OpenCL 2.1 a global size of 0 is no error: the command runs
 * nothing and completes once its wait list has. The arguments must still
 * be set, as for any launch (checked on a one-item range). */
static cl_int enqueue_empty(cl_command_queue q, cl_kernel k, cl_command_type type,
                            cl_uint n, const cl_event *wait, cl_event *event) {
  static const size_t one[3] = {1, 1, 1};
  int status = weft_kernel_check_launch(k->native, 1, NULL, one, NULL);
  if (status) {
    weft__cl_notify(q->context, weft_errmsg(k->native));
    return weft__cl_error(status);
  }
  cl_command *c = weft__cl_command_new(0);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  return weft__cl_enqueue(q, type, n, wait, event, c);
}

/* What every NDRange checks first: its handles, its dimensions, and that
 * no buffer argument was released. */
static cl_int check_ndrange(cl_command_queue q, cl_kernel k, cl_uint dims) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!weft__cl_is(k, CL_KIND_KERNEL)) return CL_INVALID_KERNEL;
  if (k->program->context != q->context) return CL_INVALID_CONTEXT;
  if (dims < 1 || dims > 3) return CL_INVALID_WORK_DIMENSION;
  return check_buffers_alive(q, k);
}

/* A non-empty range's native checks (whose refusal the context's
 * callback hears). */
static cl_int check_native(cl_command_queue q, cl_kernel k, cl_uint dims,
                           const size_t *offset, const size_t *global,
                           const size_t *local) {
  int status = weft_kernel_check_launch(k->native, dims, offset, global, local);
  if (!status) return CL_SUCCESS;
  weft__cl_notify(q->context, weft_errmsg(k->native));
  return launch_error(status, local);
}

static cl_int enqueue_kernel(cl_command_queue q, cl_kernel k, cl_command_type type,
                             cl_uint dims, const size_t *offset,
                             const size_t *global, const size_t *local,
                             cl_uint n, const cl_event *wait, cl_event *event) {
  cl_int rc = check_ndrange(q, k, dims);
  if (rc) return rc;
  /* OpenCL 2.1 and later: no global size, like a zero in one, is an
   * empty launch that completes once its wait list has. */
  if (!global) return enqueue_empty(q, k, type, n, wait, event);
  rc = check_range(q->device, dims, offset, global, local);
  if (rc) return rc;
  if (is_empty(dims, global)) return enqueue_empty(q, k, type, n, wait, event);
  rc = check_native(q, k, dims, offset, global, local);
  if (rc) return rc;
  cl_command *c = weft__cl_command_new(sizeof(launch));
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  launch *l = (launch *)c->payload;
  c->run = run_launch;
  c->settled = settle_launch;
  c->finish = finish_launch;
  if (snapshot(l, k)) {
    finish_launch(c);
    free(c);
    return CL_OUT_OF_HOST_MEMORY;
  }
  l->dims = dims;
  l->has_offset = offset != NULL;
  l->has_local = local != NULL;
  for (cl_uint d = 0; d < dims; d++) {
    l->global[d] = global[d];
    if (offset) l->offset[d] = offset[d];
    if (local) l->local[d] = local[d];
  }
  return weft__cl_enqueue(q, type, n, wait, event, c);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
    const size_t *global, const size_t *local, cl_uint n, const cl_event *wait,
    cl_event *event) {
  return enqueue_kernel(q, k, CL_COMMAND_NDRANGE_KERNEL, dims, offset, global,
                        local, n, wait, event);
}

/* cl_khr_suggested_local_work_size: the local size a launch without one
 * would run with (Weft's choice, or the kernel's required size), after
 * the checks that launch would pass. */
CL_API_ENTRY cl_int CL_API_CALL clGetKernelSuggestedLocalWorkSizeKHR(
    cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
    const size_t *global, size_t *suggested) {
  cl_int rc = check_ndrange(q, k, dims);
  if (rc) return rc;
  if (!global || is_empty(dims, global)) return CL_INVALID_GLOBAL_WORK_SIZE;
  if (!suggested) return CL_INVALID_VALUE;
  rc = check_range(q->device, dims, offset, global, NULL);
  if (!rc) rc = check_native(q, k, dims, offset, global, NULL);
  if (rc) return rc;
  return weft__cl_error(
      weft_kernel_suggest_local_size(k->native, dims, global, suggested));
}

/* A task is a one-item NDRange; its event says it was a task. */
CL_API_ENTRY cl_int CL_API_CALL clEnqueueTask(cl_command_queue q, cl_kernel k,
                                              cl_uint n, const cl_event *wait,
                                              cl_event *event) {
  static const size_t one[1] = {1};
  return enqueue_kernel(q, k, CL_COMMAND_TASK, 1, NULL, one, one, n, wait, event);
}
