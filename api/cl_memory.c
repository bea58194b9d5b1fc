/* cl_memory.c: buffers, sub-buffers, and the commands that move their
 * bytes (read, write, copy, fill, map, their rect forms, migrate). */
#include <stdlib.h>
#include <string.h>

#include "api/cl_memory.h"
#include "api/cl_queue.h"

#define ACCESS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOST_PTR (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define HOST_ACCESS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
#define SUB_BUFFER_ALIGN 128 /* CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes */

static int more_than_one(cl_mem_flags bits) { return (bits & (bits - 1)) != 0; }

cl_int weft__cl_check_mem_flags(cl_mem_flags flags) {
  if (flags & ~(ACCESS | HOST_PTR | HOST_ACCESS)) return CL_INVALID_VALUE;
  if (more_than_one(flags & ACCESS) || more_than_one(flags & HOST_ACCESS))
    return CL_INVALID_VALUE;
  if ((flags & CL_MEM_USE_HOST_PTR) &&
      (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

unsigned weft__cl_native_mem_flags(cl_mem_flags flags) {
  unsigned f = 0;
  if (flags & CL_MEM_READ_ONLY) f |= WEFT_MEM_READ_ONLY;
  if (flags & CL_MEM_WRITE_ONLY) f |= WEFT_MEM_WRITE_ONLY;
  if (flags & CL_MEM_USE_HOST_PTR) f |= WEFT_MEM_USE_HOST_PTR;
  if (flags & CL_MEM_COPY_HOST_PTR) f |= WEFT_MEM_COPY_HOST_PTR;
  return f;
}

cl_mem weft__cl_mem_new(cl_context c, cl_mem_flags flags, size_t size) {
  cl_mem m = weft__cl_alloc(sizeof *m);
  if (!m) return NULL;
  weft__cl_init(m, CL_KIND_MEM);
  pthread_mutex_init(&m->lock, NULL);
  m->context = c;
  m->type = CL_MEM_OBJECT_BUFFER;
  m->flags = flags;
  m->size = size;
  clRetainContext(c);
  return m;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context c, cl_mem_flags flags,
                                               size_t size, void *host_ptr,
                                               cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_mem m = NULL;
  cl_ulong max = 0;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) rc = CL_INVALID_CONTEXT;
  else rc = weft__cl_check_mem_flags(flags);
  if (!rc) clGetDeviceInfo(c->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max,
                           &max, NULL);
  if (!rc && (size == 0 || size > max)) rc = CL_INVALID_BUFFER_SIZE;
  if (!rc && !host_ptr != !(flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    rc = CL_INVALID_HOST_PTR;
  if (!rc && !(m = weft__cl_mem_new(c, flags ? flags : CL_MEM_READ_WRITE, size)))
    rc = CL_OUT_OF_HOST_MEMORY;
  if (!rc) {
    /* READ_WRITE is the default the queries report. */
    if (!(flags & ACCESS)) m->flags |= CL_MEM_READ_WRITE;
    m->host_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) ? host_ptr
                                                                       : NULL;
    /* OpenCL leaves a new buffer's contents undefined. */
    unsigned undefined = host_ptr ? 0 : WEFT_MEM_UNDEFINED;
    int status = weft_buffer_create(c->native, size,
                                    weft__cl_native_mem_flags(flags) | undefined, host_ptr,
                                    &m->native);
    if (status) {
      weft__cl_notify(c, weft_errmsg(c->native));
      rc = status == WEFT_ENOMEM ? CL_MEM_OBJECT_ALLOCATION_FAILURE
                                 : weft__cl_error(status);
      clReleaseMemObject(m);
      m = NULL;
    }
  }
  if (errcode) *errcode = rc;
  return m;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBufferWithProperties(
    cl_context c, const cl_mem_properties *props, cl_mem_flags flags,
    size_t size, void *host_ptr, cl_int *errcode) {
  /* OpenCL 3.0 defines no buffer properties for a device like this one. */
  if (props && props[0] && weft__cl_is(c, CL_KIND_CONTEXT)) {
    if (errcode) *errcode = CL_INVALID_PROPERTY;
    return NULL;
  }
  return weft__cl_mem_keep_properties(
      clCreateBuffer(c, flags, size, host_ptr, errcode), props, errcode);
}

cl_mem weft__cl_mem_keep_properties(cl_mem m, const cl_mem_properties *props,
                                    cl_int *errcode) {
  /* A list given (only the terminating 0 can be) is returned as given. */
  if (m && props && !(m->properties = calloc(1, sizeof *m->properties))) {
    clReleaseMemObject(m);
    if (errcode) *errcode = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  if (m && props) m->num_properties = 1;
  return m;
}

static cl_int check_sub_flags(cl_mem parent, cl_mem_flags *flags) {
  cl_mem_flags f = *flags;
  if (weft__cl_check_mem_flags(f) || (f & HOST_PTR)) return CL_INVALID_VALUE;
  cl_mem_flags p = parent->flags;
  if ((p & CL_MEM_WRITE_ONLY) && (f & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY)))
    return CL_INVALID_VALUE;
  if ((p & CL_MEM_READ_ONLY) && (f & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY)))
    return CL_INVALID_VALUE;
  if ((p & CL_MEM_HOST_WRITE_ONLY) && (f & CL_MEM_HOST_READ_ONLY))
    return CL_INVALID_VALUE;
  if ((p & CL_MEM_HOST_READ_ONLY) && (f & CL_MEM_HOST_WRITE_ONLY))
    return CL_INVALID_VALUE;
  if ((p & CL_MEM_HOST_NO_ACCESS) &&
      (f & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY)))
    return CL_INVALID_VALUE;
  /* What is not given is inherited. */
  if (!(f & ACCESS)) f |= p & ACCESS;
  if (!(f & HOST_ACCESS)) f |= p & HOST_ACCESS;
  f |= p & HOST_PTR;
  *flags = f;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem parent,
                                                  cl_mem_flags flags,
                                                  cl_buffer_create_type type,
                                                  const void *info,
                                                  cl_int *errcode) {
  cl_int rc = CL_SUCCESS;
  cl_mem m = NULL;
  const cl_buffer_region *r = info;
  if (!weft__cl_is(parent, CL_KIND_MEM) || parent->parent ||
      weft__cl_check_is_buffer(parent))
    rc = CL_INVALID_MEM_OBJECT;
  else if (type != CL_BUFFER_CREATE_TYPE_REGION || !r) rc = CL_INVALID_VALUE;
  else if (r->size == 0) rc = CL_INVALID_BUFFER_SIZE;
  else if (r->origin > parent->size || r->size > parent->size - r->origin)
    rc = CL_INVALID_VALUE;
  else if (r->origin % SUB_BUFFER_ALIGN) rc = CL_MISALIGNED_SUB_BUFFER_OFFSET;
  else rc = check_sub_flags(parent, &flags);
  if (!rc && !(m = weft__cl_mem_new(parent->context, flags, r->size)))
    rc = CL_OUT_OF_HOST_MEMORY;
  if (!rc) {
    m->parent = parent;
    m->offset = r->origin;
    m->host_ptr = parent->host_ptr ? (char *)parent->host_ptr + r->origin : NULL;
    clRetainMemObject(parent);
    rc = weft__cl_error(weft_buffer_create_sub(parent->native, r->origin,
                                               r->size, weft__cl_native_mem_flags(flags & ACCESS),
                                               &m->native));
    if (rc) {
      clReleaseMemObject(m);
      m = NULL;
    }
  }
  if (errcode) *errcode = rc;
  return m;
}

CL_API_ENTRY cl_int CL_API_CALL clRetainMemObject(cl_mem m) {
  if (!weft__cl_is(m, CL_KIND_MEM)) return CL_INVALID_MEM_OBJECT;
  weft__cl_retain(m);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem m) {
  if (!weft__cl_is(m, CL_KIND_MEM)) return CL_INVALID_MEM_OBJECT;
  if (!weft__cl_release(m)) return CL_SUCCESS;
  /* Destructor callbacks run last registered first, before the memory
   * goes (a USE_HOST_PTR buffer's host memory may be freed by them). */
  for (cl_callback *cb = m->destructors, *next; cb; cb = next) {
    next = cb->next;
    ((void(CL_CALLBACK *)(cl_mem, void *))cb->fn)(m, cb->user_data);
    free(cb);
  }
  if (m->native) weft_buffer_release(m->native);
  if (m->parent) clReleaseMemObject(m->parent);
  cl_context c = m->context;
  pthread_mutex_destroy(&m->lock);
  free(m->properties);
  free(m->maps);
  weft__cl_free(m, sizeof *m);
  clReleaseContext(c);
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clSetMemObjectDestructorCallback(
    cl_mem m, void(CL_CALLBACK *fn)(cl_mem, void *), void *user_data) {
  if (!weft__cl_is(m, CL_KIND_MEM)) return CL_INVALID_MEM_OBJECT;
  if (!fn) return CL_INVALID_VALUE;
  return weft__cl_push_callback(&m->lock, &m->destructors,
                                (void (*)(void))fn, user_data);
}

CL_API_ENTRY cl_int CL_API_CALL clGetMemObjectInfo(cl_mem m, cl_mem_info param,
                                                   size_t size, void *value,
                                                   size_t *size_ret) {
  if (!weft__cl_is(m, CL_KIND_MEM)) return CL_INVALID_MEM_OBJECT;
  cl_uint n;
  switch (param) {
  case CL_MEM_TYPE:
    return weft__cl_info(&m->type, sizeof m->type, size, value, size_ret);
  case CL_MEM_FLAGS:
    return weft__cl_info(&m->flags, sizeof m->flags, size, value, size_ret);
  case CL_MEM_SIZE:
    return weft__cl_info(&m->size, sizeof m->size, size, value, size_ret);
  case CL_MEM_HOST_PTR: {
    void *p = m->flags & CL_MEM_USE_HOST_PTR ? m->host_ptr : NULL;
    return weft__cl_info(&p, sizeof p, size, value, size_ret);
  }
  case CL_MEM_MAP_COUNT:
    n = (cl_uint)atomic_load(&m->map_count);
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_MEM_REFERENCE_COUNT:
    n = (cl_uint)atomic_load(&m->h.refs);
    return weft__cl_info(&n, sizeof n, size, value, size_ret);
  case CL_MEM_CONTEXT:
    return weft__cl_info(&m->context, sizeof m->context, size, value, size_ret);
  case CL_MEM_ASSOCIATED_MEMOBJECT:
    return weft__cl_info(&m->parent, sizeof m->parent, size, value, size_ret);
  case CL_MEM_OFFSET:
    return weft__cl_info(&m->offset, sizeof m->offset, size, value, size_ret);
  case CL_MEM_USES_SVM_POINTER: {
    /* A USE_HOST_PTR buffer over SVM memory (a sub-buffer: its parent's). */
    cl_mem root = m->parent ? m->parent : m;
    cl_bool uses = (root->flags & CL_MEM_USE_HOST_PTR) &&
                   !weft_svm_find(m->context->native, root->host_ptr, NULL, NULL);
    return weft__cl_info(&uses, sizeof uses, size, value, size_ret);
  }
  case CL_MEM_PROPERTIES:
    return weft__cl_info(m->properties, m->num_properties * sizeof *m->properties,
                         size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
}

/* ------------------------------------------------------------ commands */

typedef struct transfer {
  cl_mem src, dst;            /* retained; one may be NULL */
  size_t src_offset, dst_offset, size;
  void *host;                 /* the host side, for reads and writes */
  unsigned char pattern[128];
  size_t pattern_size;
  /* Rectangles: origins are (x bytes, y rows, z slices). */
  size_t src_origin[3], dst_origin[3], region[3];
  size_t src_row, src_slice, dst_row, dst_slice;
} transfer;

static void transfer_finish(cl_command *c) {
  transfer *t = (transfer *)c->payload;
  if (t->src) clReleaseMemObject(t->src);
  if (t->dst) clReleaseMemObject(t->dst);
}

/* Checks the queue, the memory object and its range. */
static cl_int check_mem(cl_command_queue q, cl_mem m, size_t offset,
                        size_t size) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!weft__cl_is(m, CL_KIND_MEM)) return CL_INVALID_MEM_OBJECT;
  if (m->context != q->context) return CL_INVALID_CONTEXT;
  if (size == 0 || offset > m->size || size > m->size - offset)
    return CL_INVALID_VALUE;
  return CL_SUCCESS;
}

/* The same for a buffer's commands, which take no image. */
static cl_int check_buffer(cl_command_queue q, cl_mem m, size_t offset,
                           size_t size) {
  cl_int rc = check_mem(q, m, offset, size);
  return rc ? rc : weft__cl_check_is_buffer(m);
}

int weft__cl_is_image_type(cl_mem_object_type t) {
  return t == CL_MEM_OBJECT_IMAGE1D || t == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
         t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE3D ||
         t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

cl_int weft__cl_check_is_buffer(cl_mem m) {
  return weft__cl_is(m, CL_KIND_MEM) && weft__cl_is_image_type(m->type)
             ? CL_INVALID_MEM_OBJECT
             : CL_SUCCESS;
}

static cl_command *transfer_new(cl_mem src, cl_mem dst) {
  cl_command *c = weft__cl_command_new(sizeof(transfer));
  if (!c) return NULL;
  transfer *t = (transfer *)c->payload;
  t->src = src;
  t->dst = dst;
  if (src) clRetainMemObject(src);
  if (dst) clRetainMemObject(dst);
  c->finish = transfer_finish;
  return c;
}

/* A native failure ends the command; the message goes to the context. */
static cl_int native(cl_command *c, int status, const void *object) {
  if (!status) return CL_SUCCESS;
  weft__cl_notify(c->queue->context, weft_errmsg(object));
  return weft__cl_error(status);
}

static cl_int run_read(cl_command *c) {
  transfer *t = (transfer *)c->payload;
  return native(c, weft_buffer_read(t->src->native, t->src_offset, t->size,
                                    t->host), t->src->native);
}

static cl_int run_write(cl_command *c) {
  transfer *t = (transfer *)c->payload;
  return native(c, weft_buffer_write(t->dst->native, t->dst_offset, t->size,
                                     t->host), t->dst->native);
}

static cl_int run_copy(cl_command *c) {
  transfer *t = (transfer *)c->payload;
  return native(c, weft_buffer_copy(t->src->native, t->src_offset,
                                    t->dst->native, t->dst_offset, t->size),
                t->dst->native);
}

static cl_int run_fill(cl_command *c) {
  transfer *t = (transfer *)c->payload;
  return native(c, weft_buffer_fill(t->dst->native, t->pattern, t->pattern_size,
                                    t->dst_offset, t->size), t->dst->native);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(
    cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset, size_t size,
    void *ptr, cl_uint n, const cl_event *wait, cl_event *event) {
  cl_int rc = check_buffer(q, m, offset, size);
  if (rc) return rc;
  if (!ptr) return CL_INVALID_VALUE;
  if (m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS))
    return CL_INVALID_OPERATION;
  cl_command *c = transfer_new(m, NULL);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  transfer *t = (transfer *)c->payload;
  t->src_offset = offset;
  t->size = size;
  t->host = ptr;
  c->run = run_read;
  return weft__cl_enqueue_maybe_blocking(q, CL_COMMAND_READ_BUFFER, blocking, n,
                                         wait, event, c);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(
    cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset, size_t size,
    const void *ptr, cl_uint n, const cl_event *wait, cl_event *event) {
  cl_int rc = check_buffer(q, m, offset, size);
  if (rc) return rc;
  if (!ptr) return CL_INVALID_VALUE;
  if (m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS))
    return CL_INVALID_OPERATION;
  cl_command *c = transfer_new(NULL, m);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  transfer *t = (transfer *)c->payload;
  t->dst_offset = offset;
  t->size = size;
  t->host = (void *)ptr;
  c->run = run_write;
  return weft__cl_enqueue_maybe_blocking(q, CL_COMMAND_WRITE_BUFFER, blocking, n,
                                         wait, event, c);
}

/* The buffer whose memory a buffer or sub-buffer is. */
static cl_mem root_of(cl_mem m) { return m->parent ? m->parent : m; }

/* Whether two byte ranges of buffers overlap in memory. */
static int overlaps(cl_mem a, size_t a_off, cl_mem b, size_t b_off, size_t size) {
  if (root_of(a) != root_of(b)) return 0;
  size_t x = a->offset + a_off, y = b->offset + b_off;
  return x < y + size && y < x + size;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(
    cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
    size_t dst_offset, size_t size, cl_uint n, const cl_event *wait,
    cl_event *event) {
  cl_int rc = check_buffer(q, src, src_offset, size);
  if (!rc) rc = check_buffer(q, dst, dst_offset, size);
  if (rc) return rc;
  if (overlaps(src, src_offset, dst, dst_offset, size)) return CL_MEM_COPY_OVERLAP;
  cl_command *c = transfer_new(src, dst);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  transfer *t = (transfer *)c->payload;
  t->src_offset = src_offset;
  t->dst_offset = dst_offset;
  t->size = size;
  c->run = run_copy;
  return weft__cl_enqueue(q, CL_COMMAND_COPY_BUFFER, n, wait, event, c);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(
    cl_command_queue q, cl_mem m, const void *pattern, size_t pattern_size,
    size_t offset, size_t size, cl_uint n, const cl_event *wait,
    cl_event *event) {
  cl_int rc = check_buffer(q, m, offset, size);
  if (rc) return rc;
  if (!pattern || pattern_size == 0 || pattern_size > 128 ||
      (pattern_size & (pattern_size - 1)) || offset % pattern_size ||
      size % pattern_size)
    return CL_INVALID_VALUE;
  cl_command *c = transfer_new(NULL, m);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  transfer *t = (transfer *)c->payload;
  memcpy(t->pattern, pattern, pattern_size); /* the caller may reuse it now */
  t->pattern_size = pattern_size;
  t->dst_offset = offset;
  t->size = size;
  c->run = run_fill;
  return weft__cl_enqueue(q, CL_COMMAND_FILL_BUFFER, n, wait, event, c);
}

/* ---------------------------------------------------------------- maps */

/* Records a pointer handed out by a map, so that an unmap of anything else
 * is refused when it is enqueued. */
static int add_map(cl_mem m, void *ptr) {
  pthread_mutex_lock(&m->lock);
  if (m->num_maps == m->map_capacity) {
    size_t capacity = m->map_capacity ? 2 * m->map_capacity : 4;
    void **grown = realloc(m->maps, capacity * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&m->lock);
      return 0;
    }
    m->maps = grown;
    m->map_capacity = capacity;
  }
  m->maps[m->num_maps++] = ptr;
  pthread_mutex_unlock(&m->lock);
  return 1;
}

/* Forgets one mapping of ptr; 0 if there is none to forget. */
static int remove_map(cl_mem m, void *ptr) {
  pthread_mutex_lock(&m->lock);
  size_t i = 0;
  while (i < m->num_maps && m->maps[i] != ptr) i++;
  int found = i < m->num_maps;
  if (found) m->maps[i] = m->maps[--m->num_maps];
  pthread_mutex_unlock(&m->lock);
  return found;
}

/* Host and device share memory on the CPU: a mapping is a pointer into the
 * buffer, valid at once; the command only orders it after earlier ones.
 * On a GPU a mapping is a copy, which the command reads again when it runs
 * (after the commands before it), unless the map invalidates the range. */
CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(
    cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
    size_t offset, size_t size, cl_uint n, const cl_event *wait,
    cl_event *event, cl_int *errcode) {
  if (weft__cl_check_is_buffer(m)) {
    if (errcode) *errcode = CL_INVALID_MEM_OBJECT;
    return NULL;
  }
  return weft__cl_enqueue_map(q, m, CL_COMMAND_MAP_BUFFER, blocking, flags,
                              offset, size, n, wait, event, errcode);
}

static cl_int run_map(cl_command *c) {
  transfer *t = (transfer *)c->payload;
  return native(c, weft_buffer_map_refresh(t->src->native, t->host),
                t->src->native);
}

void *weft__cl_enqueue_map(cl_command_queue q, cl_mem m, cl_command_type type,
                           cl_bool blocking, cl_map_flags flags, size_t offset,
                           size_t size, cl_uint n, const cl_event *wait,
                           cl_event *event, cl_int *errcode) {
  cl_int rc = check_mem(q, m, offset, size);
  const cl_map_flags known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if (!rc && (flags & ~known)) rc = CL_INVALID_VALUE;
  if (!rc && (flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
      (flags & (CL_MAP_READ | CL_MAP_WRITE)))
    rc = CL_INVALID_VALUE;
  if (!rc && (flags & CL_MAP_READ) &&
      (m->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
    rc = CL_INVALID_OPERATION;
  if (!rc && (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) &&
      (m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
    rc = CL_INVALID_OPERATION;
  void *ptr = NULL;
  unsigned native_map = (flags & CL_MAP_READ ? WEFT_MAP_READ : 0) |
                        (flags & ~CL_MAP_READ ? WEFT_MAP_WRITE : 0);
  if (!rc) rc = weft__cl_error(weft_buffer_map(m->native, offset, size,
                                               native_map ? native_map : WEFT_MAP_READ,
                                               &ptr));
  cl_command *c = rc ? NULL : transfer_new(m, NULL);
  if (!rc && !c) rc = CL_OUT_OF_HOST_MEMORY;
  if (c && !(flags & CL_MAP_WRITE_INVALIDATE_REGION)) {
    ((transfer *)c->payload)->host = ptr;
    c->run = run_map;
  }
  if (!rc && !add_map(m, ptr)) {
    transfer_finish(c);
    free(c);
    rc = CL_OUT_OF_HOST_MEMORY;
  }
  if (!rc) {
    rc = weft__cl_enqueue_maybe_blocking(q, type, blocking, n, wait, event, c);
    if (rc) remove_map(m, ptr);
  }
  if (!rc) atomic_fetch_add(&m->map_count, 1);
  else if (ptr) weft_buffer_unmap(m->native, ptr);
  if (errcode) *errcode = rc;
  return rc ? NULL : ptr;
}

static cl_int run_unmap(cl_command *c) {
  transfer *t = (transfer *)c->payload;
  int status = weft_buffer_unmap(t->src->native, t->host);
  if (!status) atomic_fetch_sub(&t->src->map_count, 1);
  return native(c, status, t->src->native);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(
    cl_command_queue q, cl_mem m, void *ptr, cl_uint n, const cl_event *wait,
    cl_event *event) {
  cl_int rc = check_mem(q, m, 0, m && weft__cl_is(m, CL_KIND_MEM) ? m->size : 1);
  if (rc) return rc;
  if (!ptr) return CL_INVALID_VALUE;
  rc = weft__cl_check_wait_list(q->context, n, wait);
  if (rc) return rc;
  /* Only a pointer a map of this buffer returned, once per map. */
  if (!remove_map(m, ptr)) return CL_INVALID_VALUE;
  cl_command *c = transfer_new(m, NULL);
  if (!c) {
    add_map(m, ptr);
    return CL_OUT_OF_HOST_MEMORY;
  }
  ((transfer *)c->payload)->host = ptr;
  c->run = run_unmap;
  rc = weft__cl_enqueue(q, CL_COMMAND_UNMAP_MEM_OBJECT, n, wait, event, c);
  if (rc) add_map(m, ptr);
  return rc;
}

/* ---------------------------------------------------------- rectangles */

/* Pitches of 0 mean "tightly packed", as the specification says. */
static void default_pitches(const size_t *region, size_t *row, size_t *slice) {
  if (!*row) *row = region[0];
  if (!*slice) *slice = region[1] * *row;
}

/* A side of a rect command as the native API takes it. */
static weft_rect side(const size_t *origin, size_t row, size_t slice) {
  weft_rect r = {{origin[0], origin[1], origin[2]}, row, slice};
  return r;
}

/* Moves the rectangle (weft_buffer_*_rect); host is one end when the
 * other is NULL. */
static cl_int rect_run(cl_command *c, int kind) {
  transfer *t = (transfer *)c->payload;
  weft_rect s = side(t->src_origin, t->src_row, t->src_slice),
            d = side(t->dst_origin, t->dst_row, t->dst_slice);
  int status;
  if (kind == CL_COMMAND_READ_BUFFER_RECT)
    status = weft_buffer_read_rect(t->src->native, &s, t->host, &d, t->region);
  else if (kind == CL_COMMAND_WRITE_BUFFER_RECT)
    status = weft_buffer_write_rect(t->dst->native, &d, t->host, &s, t->region);
  else
    status = weft_buffer_copy_rect(t->src->native, &s, t->dst->native, &d,
                                   t->region);
  return status ? native(c, status, t->src ? t->src->native : t->dst->native)
                : CL_SUCCESS;
}

static cl_int run_read_rect(cl_command *c) {
  return rect_run(c, CL_COMMAND_READ_BUFFER_RECT);
}
static cl_int run_write_rect(cl_command *c) {
  return rect_run(c, CL_COMMAND_WRITE_BUFFER_RECT);
}
static cl_int run_copy_rect(cl_command *c) {
  return rect_run(c, CL_COMMAND_COPY_BUFFER_RECT);
}

/* Fills a rect command's geometry; the buffer is src (read), dst (write).
 * The rectangles are checked as weft_buffer_check_rect does, and a copy
 * within one buffer by OpenCL's rule on its pitches too. */
static cl_int rect_setup(transfer *t, const size_t *src_origin,
                         const size_t *dst_origin, const size_t *region,
                         size_t src_row, size_t src_slice, size_t dst_row,
                         size_t dst_slice) {
  if (!src_origin || !dst_origin || !region) return CL_INVALID_VALUE;
  memcpy(t->src_origin, src_origin, sizeof t->src_origin);
  memcpy(t->dst_origin, dst_origin, sizeof t->dst_origin);
  memcpy(t->region, region, sizeof t->region);
  t->src_row = src_row;
  t->src_slice = src_slice;
  t->dst_row = dst_row;
  t->dst_slice = dst_slice;
  weft_rect s = side(src_origin, src_row, src_slice),
            d = side(dst_origin, dst_row, dst_slice);
  int status = weft_buffer_check_rect(t->src ? t->src->native : NULL, &s,
                                      t->dst ? t->dst->native : NULL, &d,
                                      region);
  if (status && status != WEFT_EOVERLAP) return weft__cl_error(status);
  /* As the specification words it: both pitches differ. */
  default_pitches(region, &src_row, &src_slice);
  default_pitches(region, &dst_row, &dst_slice);
  if (t->src && t->src == t->dst && src_slice != dst_slice &&
      src_row != dst_row)
    return CL_INVALID_VALUE;
  return weft__cl_error(status);
}

/* The host access flags a read (no dst) or write (no src) must respect. */
static cl_int check_host_access(cl_mem src, cl_mem dst) {
  if (!dst && (src->flags & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS)))
    return CL_INVALID_OPERATION;
  if (!src && (dst->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)))
    return CL_INVALID_OPERATION;
  return CL_SUCCESS;
}

cl_int weft__cl_enqueue_rect(cl_command_queue q, cl_command_type type,
                             cl_mem src, cl_mem dst, cl_bool blocking,
                             const size_t *src_origin, const size_t *dst_origin,
                             const size_t *region, size_t src_row,
                             size_t src_slice, size_t dst_row, size_t dst_slice,
                             void *host, cl_uint n, const cl_event *wait,
                             cl_event *event) {
  cl_int rc = src ? check_mem(q, src, 0, 1) : CL_SUCCESS;
  if (!rc && dst) rc = check_mem(q, dst, 0, 1);
  if (!rc && (!src || !dst) && !host) rc = CL_INVALID_VALUE;
  if (!rc && (!src || !dst)) rc = check_host_access(src, dst);
  if (rc) return rc;
  cl_command *c = transfer_new(src, dst);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  transfer *t = (transfer *)c->payload;
  t->host = host;
  rc = rect_setup(t, src_origin, dst_origin, region, src_row, src_slice,
                  dst_row, dst_slice);
  if (rc) {
    transfer_finish(c);
    free(c);
    return rc;
  }
  c->run = !dst ? run_read_rect : !src ? run_write_rect : run_copy_rect;
  return weft__cl_enqueue_maybe_blocking(q, type, blocking, n, wait, event, c);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBufferRect(
    cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *buffer_origin,
    const size_t *host_origin, const size_t *region, size_t buffer_row,
    size_t buffer_slice, size_t host_row, size_t host_slice, void *ptr,
    cl_uint n, const cl_event *wait, cl_event *event) {
  if (weft__cl_check_is_buffer(m)) return CL_INVALID_MEM_OBJECT;
  return weft__cl_enqueue_rect(q, CL_COMMAND_READ_BUFFER_RECT, m, NULL, blocking,
                      buffer_origin, host_origin, region, buffer_row,
                      buffer_slice, host_row, host_slice, ptr, n, wait, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBufferRect(
    cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *buffer_origin,
    const size_t *host_origin, const size_t *region, size_t buffer_row,
    size_t buffer_slice, size_t host_row, size_t host_slice, const void *ptr,
    cl_uint n, const cl_event *wait, cl_event *event) {
  if (weft__cl_check_is_buffer(m)) return CL_INVALID_MEM_OBJECT;
  return weft__cl_enqueue_rect(q, CL_COMMAND_WRITE_BUFFER_RECT, NULL, m, blocking,
                      host_origin, buffer_origin, region, host_row, host_slice,
                      buffer_row, buffer_slice, (void *)ptr, n, wait, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferRect(
    cl_command_queue q, cl_mem src, cl_mem dst, const size_t *src_origin,
    const size_t *dst_origin, const size_t *region, size_t src_row,
    size_t src_slice, size_t dst_row, size_t dst_slice, cl_uint n,
    const cl_event *wait, cl_event *event) {
  if (weft__cl_check_is_buffer(src) || weft__cl_check_is_buffer(dst))
    return CL_INVALID_MEM_OBJECT;
  return weft__cl_enqueue_rect(q, CL_COMMAND_COPY_BUFFER_RECT, src, dst, CL_FALSE,
                      src_origin, dst_origin, region, src_row, src_slice,
                      dst_row, dst_slice, NULL, n, wait, event);
}

/* One device, memory shared with the host: nothing to migrate, but the
 * command still orders. */
CL_API_ENTRY cl_int CL_API_CALL clEnqueueMigrateMemObjects(
    cl_command_queue q, cl_uint num, const cl_mem *objects,
    cl_mem_migration_flags flags, cl_uint n, const cl_event *wait,
    cl_event *event) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!num || !objects) return CL_INVALID_VALUE;
  if (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num; i++) {
    if (!weft__cl_is(objects[i], CL_KIND_MEM)) return CL_INVALID_MEM_OBJECT;
    if (objects[i]->context != q->context) return CL_INVALID_CONTEXT;
  }
  cl_command *c = weft__cl_command_new(0);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  return weft__cl_enqueue(q, CL_COMMAND_MIGRATE_MEM_OBJECTS, n, wait, event, c);
}
