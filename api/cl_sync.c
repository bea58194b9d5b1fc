/* cl_sync.c: cl_weft_sync's host function, clEnqueueInitSyncObjectWEFT
 * (include/weft/cl_weft.h), reached through
 * clGetExtensionFunctionAddressForPlatform: a command that writes a fresh
 * mutex, semaphore or barrier into a buffer, ordered in its queue like a
 * write. It is weft_sync_object_init run by the queue. */
#include <stdio.h>

#include "api/cl_objects.h"
#include "api/cl_queue.h"
#include "weft/cl_weft.h"

/* The kinds pass through to the native API as they are. */
_Static_assert(CL_SYNC_MUTEX_WEFT == WEFT_SYNC_MUTEX &&
                   CL_SYNC_SEMAPHORE_WEFT == WEFT_SYNC_SEMAPHORE &&
                   CL_SYNC_BARRIER_WEFT == WEFT_SYNC_BARRIER,
               "cl_weft.h and weft.h number the kinds alike");

typedef struct sync_init {
  cl_mem buffer; /* retained */
  size_t offset;
  int kind;
  long long param;
  unsigned algorithm;
} sync_init;

static cl_int run_init(cl_command *c) {
  sync_init *s = (sync_init *)c->payload;
  int rc = weft_sync_object_init(s->buffer->native, s->offset, s->kind,
                                 s->param, s->algorithm);
  if (!rc) return CL_SUCCESS;
  weft__cl_notify(c->queue->context, weft_errmsg(s->buffer->native));
  return weft__cl_error(rc);
}

static void finish_init(cl_command *c) {
  clReleaseMemObject(((sync_init *)c->payload)->buffer);
}

/* Arguments a valid command needs, checked before it is queued; the
 * context's callback hears why one is refused. */
static cl_int check(cl_command_queue q, cl_mem m, size_t offset, cl_uint kind,
                    cl_long param, cl_uint algorithm) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!weft__cl_is(m, CL_KIND_MEM) || m->type != CL_MEM_OBJECT_BUFFER)
    return CL_INVALID_MEM_OBJECT;
  if (m->context != q->context) return CL_INVALID_CONTEXT;
  if (m->flags & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS))
    return CL_INVALID_OPERATION;
  size_t bytes;
  char why[160];
  if (weft_sync_object_size((int)kind, param, algorithm, &bytes))
    snprintf(why, sizeof why, "clEnqueueInitSyncObjectWEFT: kind %u, "
             "param %lld, algorithm %u: no such object", kind,
             (long long)param, algorithm);
  else if (offset % 4)
    snprintf(why, sizeof why, "clEnqueueInitSyncObjectWEFT: offset %zu is "
             "not a multiple of 4", offset);
  else if (offset > m->size || bytes > m->size - offset)
    snprintf(why, sizeof why, "clEnqueueInitSyncObjectWEFT: the object's "
             "%zu bytes at offset %zu overrun the %zu-byte buffer", bytes,
             offset, m->size);
  else
    return CL_SUCCESS;
  weft__cl_notify(q->context, why);
  return CL_INVALID_VALUE;
}

cl_int CL_API_CALL clEnqueueInitSyncObjectWEFT(
    cl_command_queue q, cl_mem m, size_t offset, cl_uint kind, cl_long param,
    cl_uint algorithm, cl_uint n, const cl_event *wait, cl_event *event) {
  cl_int rc = check(q, m, offset, kind, param, algorithm);
  if (rc) return rc;
  cl_command *c = weft__cl_command_new(sizeof(sync_init));
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  sync_init *s = (sync_init *)c->payload;
  *s = (sync_init){m, offset, (int)kind, param, algorithm};
  clRetainMemObject(m);
  c->run = run_init;
  c->finish = finish_init;
  return weft__cl_enqueue(q, CL_COMMAND_WRITE_BUFFER, n, wait, event, c);
}
