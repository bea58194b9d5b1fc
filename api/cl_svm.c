/* cl_svm.c: coarse-grained shared virtual memory (CL_DEVICE_SVM_COARSE_
 * GRAIN_BUFFER) over the native SVM allocations, and its commands. On the
 * CPU the host and kernels share the memory itself: maps, unmaps and
 * migrations only take their place in the queue's order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/cl_queue.h"

#define ACCESS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)

/* clSVMAlloc reports no error code: a refusal is NULL, and the context's
 * callback hears why. */
CL_API_ENTRY void *CL_API_CALL clSVMAlloc(cl_context c, cl_svm_mem_flags flags,
                                          size_t size, cl_uint alignment) {
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) return NULL;
  cl_svm_mem_flags access = flags & ACCESS;
  /* One access flag at most; fine-grained buffers and atomics are not a
   * capability of the device. */
  if (flags & ~ACCESS || (access & (access - 1))) return NULL;
  void *p = NULL;
  if (weft_svm_alloc(c->native, size, alignment, &p)) {
    weft__cl_notify(c, weft_errmsg(c->native));
    return NULL;
  }
  return p;
}

CL_API_ENTRY void CL_API_CALL clSVMFree(cl_context c, void *p) {
  if (weft__cl_is(c, CL_KIND_CONTEXT) && weft_svm_free(c->native, p))
    weft__cl_notify(c, weft_errmsg(c->native));
}

/* ------------------------------------------------------------ commands */

typedef void(CL_CALLBACK *svm_free_fn)(cl_command_queue, cl_uint, void *[],
                                       void *);

typedef struct svm_op {
  void *dst;
  const void *src;
  size_t size;
  unsigned char pattern[128];
  size_t pattern_size;
  void **pointers;            /* clEnqueueSVMFree's, copied */
  cl_uint num_pointers;
  svm_free_fn free_fn;
  void *user_data;
} svm_op;

static cl_int run_memcpy(cl_command *c) {
  svm_op *op = (svm_op *)c->payload;
  memcpy(op->dst, op->src, op->size);
  return CL_SUCCESS;
}

static cl_int run_fill(cl_command *c) {
  svm_op *op = (svm_op *)c->payload;
  for (size_t at = 0; at < op->size; at += op->pattern_size)
    memcpy((char *)op->dst + at, op->pattern, op->pattern_size);
  return CL_SUCCESS;
}

static cl_int run_free(cl_command *c) {
  svm_op *op = (svm_op *)c->payload;
  if (op->free_fn) {
    op->free_fn(c->queue, op->num_pointers, op->pointers, op->user_data);
    return CL_SUCCESS;
  }
  for (cl_uint i = 0; i < op->num_pointers; i++)
    clSVMFree(c->queue->context, op->pointers[i]);
  return CL_SUCCESS;
}

static void finish_free(cl_command *c) { free(((svm_op *)c->payload)->pointers); }

/* A command with an svm_op payload, or NULL. */
static cl_command *op_new(cl_int (*run)(cl_command *)) {
  cl_command *c = weft__cl_command_new(sizeof(svm_op));
  if (c) c->run = run;
  return c;
}

/* Enqueues c (which may be NULL: out of memory), blocking if asked. */
static cl_int submit(cl_command_queue q, cl_command_type type, cl_bool blocking,
                     cl_uint n, const cl_event *wait, cl_event *event,
                     cl_command *c) {
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  return weft__cl_enqueue_maybe_blocking(q, type, blocking, n, wait, event, c);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMFree(
    cl_command_queue q, cl_uint num, void *pointers[], svm_free_fn fn,
    void *user_data, cl_uint n, const cl_event *wait, cl_event *event) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!num != !pointers) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num; i++)
    if (!pointers[i]) return CL_INVALID_VALUE;
  cl_command *c = op_new(run_free);
  svm_op *op = c ? (svm_op *)c->payload : NULL;
  if (op && !(op->pointers = malloc((num ? num : 1) * sizeof *op->pointers))) {
    free(c);
    c = NULL;
  }
  if (op && c) {
    memcpy(op->pointers, pointers, num * sizeof *pointers);
    op->num_pointers = num;
    op->free_fn = fn;
    op->user_data = user_data;
    c->finish = finish_free;
  }
  return submit(q, CL_COMMAND_SVM_FREE, CL_FALSE, n, wait, event, c);
}

/* Whether [a, a + size) and [b, b + size) share a byte. */
static int overlap(const void *a, const void *b, size_t size) {
  const char *x = a, *y = b;
  return x < y + size && y < x + size;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemcpy(
    cl_command_queue q, cl_bool blocking, void *dst, const void *src,
    size_t size, cl_uint n, const cl_event *wait, cl_event *event) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!dst || !src) return CL_INVALID_VALUE;
  if (overlap(dst, src, size)) return CL_MEM_COPY_OVERLAP;
  cl_command *c = op_new(run_memcpy);
  if (c) *(svm_op *)c->payload = (svm_op){.dst = dst, .src = src, .size = size};
  return submit(q, CL_COMMAND_SVM_MEMCPY, blocking, n, wait, event, c);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMemFill(
    cl_command_queue q, void *ptr, const void *pattern, size_t pattern_size,
    size_t size, cl_uint n, const cl_event *wait, cl_event *event) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!ptr || !pattern || !pattern_size || pattern_size > 128 ||
      (pattern_size & (pattern_size - 1)) ||
      (uintptr_t)ptr % pattern_size || size % pattern_size)
    return CL_INVALID_VALUE;
  cl_command *c = op_new(run_fill);
  if (c) {
    svm_op *op = (svm_op *)c->payload;
    op->dst = ptr;
    op->size = size;
    op->pattern_size = pattern_size;
    memcpy(op->pattern, pattern, pattern_size); /* the caller may reuse it */
  }
  return submit(q, CL_COMMAND_SVM_MEMFILL, CL_FALSE, n, wait, event, c);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue q,
                                                cl_bool blocking,
                                                cl_map_flags flags, void *ptr,
                                                size_t size, cl_uint n,
                                                const cl_event *wait,
                                                cl_event *event) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  const cl_map_flags known =
      CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
  if (!ptr || !size || (flags & ~known) ||
      ((flags & CL_MAP_WRITE_INVALIDATE_REGION) &&
       (flags & (CL_MAP_READ | CL_MAP_WRITE))))
    return CL_INVALID_VALUE;
  return submit(q, CL_COMMAND_SVM_MAP, blocking, n, wait, event, op_new(NULL));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue q, void *ptr,
                                                  cl_uint n,
                                                  const cl_event *wait,
                                                  cl_event *event) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!ptr) return CL_INVALID_VALUE;
  return submit(q, CL_COMMAND_SVM_UNMAP, CL_FALSE, n, wait, event, op_new(NULL));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueSVMMigrateMem(
    cl_command_queue q, cl_uint num, const void **pointers, const size_t *sizes,
    cl_mem_migration_flags flags, cl_uint n, const cl_event *wait,
    cl_event *event) {
  (void)sizes;
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!num || !pointers) return CL_INVALID_VALUE;
  for (cl_uint i = 0; i < num; i++)
    if (!pointers[i]) return CL_INVALID_VALUE;
  if (flags & ~(CL_MIGRATE_MEM_OBJECT_HOST |
                CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED))
    return CL_INVALID_VALUE;
  return submit(q, CL_COMMAND_SVM_MIGRATE_MEM, CL_FALSE, n, wait, event,
                op_new(NULL));
}
