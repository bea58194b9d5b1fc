/* cl_common.c: what every part of the ICD uses (see cl_objects.h). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/cl_objects.h"

/* Free memory of released objects, one list per object size (there are
 * as many sizes as kinds of objects). The link lives after the header, so
 * the dispatch pointer and the kind stay as they were. */
typedef struct free_list {
  size_t size;
  void *head;
} free_list;

#define MAX_SIZES 16
static free_list free_lists[MAX_SIZES];
static pthread_mutex_t free_lock = PTHREAD_MUTEX_INITIALIZER;

static void **link_of(void *object) {
  return (void **)((char *)object + sizeof(cl_header));
}

/* The list for size; adds it if there is room (the caller holds the lock). */
static free_list *list_for(size_t size) {
  for (int i = 0; i < MAX_SIZES; i++) {
    if (free_lists[i].size == size) return &free_lists[i];
    if (!free_lists[i].size) {
      free_lists[i].size = size;
      return &free_lists[i];
    }
  }
  return NULL;
}

void *weft__cl_alloc(size_t size) {
  assert(size >= sizeof(cl_header) + sizeof(void *));
  pthread_mutex_lock(&free_lock);
  free_list *list = list_for(size);
  void *object = list ? list->head : NULL;
  if (object) list->head = *link_of(object);
  pthread_mutex_unlock(&free_lock);
  if (!object) return calloc(1, size);
  /* The header stays until weft__cl_init: the kind is 0 until then. */
  memset((char *)object + sizeof(cl_header), 0, size - sizeof(cl_header));
  return object;
}

void weft__cl_free(void *object, size_t size) {
  if (!object) return;
  ((cl_header *)object)->kind = 0;
  pthread_mutex_lock(&free_lock);
  free_list *list = list_for(size);
  if (list) {
    *link_of(object) = list->head;
    list->head = object;
  }
  pthread_mutex_unlock(&free_lock);
  if (!list) free(object); /* not expected: fewer sizes than kinds */
}

int weft__cl_is(const void *p, cl_kind kind) {
  return p && ((const cl_header *)p)->dispatch == &weft__cl_dispatch &&
         ((const cl_header *)p)->kind == (uint32_t)kind;
}

void weft__cl_init(void *object, cl_kind kind) {
  static atomic_uint serials;
  cl_header *h = object;
  h->dispatch = &weft__cl_dispatch;
  h->kind = kind;
  h->serial = atomic_fetch_add(&serials, 1) + 1;
  atomic_init(&h->refs, 1);
}

void weft__cl_retain(void *object) {
  atomic_fetch_add_explicit(&((cl_header *)object)->refs, 1,
                            memory_order_relaxed);
}

int weft__cl_release(void *object) {
  cl_header *h = object;
  /* acq_rel: whoever frees sees every write made through other references. */
  if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1)
    return 0;
  h->kind = 0; /* a stale handle is refused from now on */
  return 1;
}

cl_int weft__cl_error(int status) {
  switch (status) {
  case WEFT_OK: return CL_SUCCESS;
  case WEFT_ENOMEM: return CL_OUT_OF_HOST_MEMORY;
  case WEFT_EBUILD: return CL_BUILD_PROGRAM_FAILURE;
  case WEFT_EOPTION: return CL_INVALID_BUILD_OPTIONS;
  case WEFT_ENOTBUILT: return CL_INVALID_PROGRAM_EXECUTABLE;
  case WEFT_ENOKERNEL: return CL_INVALID_KERNEL_NAME;
  case WEFT_EARGINDEX: return CL_INVALID_ARG_INDEX;
  case WEFT_EARGSIZE: return CL_INVALID_ARG_SIZE;
  case WEFT_EARGKIND: return CL_INVALID_ARG_VALUE;
  case WEFT_EARGUNSET: return CL_INVALID_KERNEL_ARGS;
  case WEFT_EWORKDIM: return CL_INVALID_WORK_DIMENSION;
  case WEFT_EGLOBALSIZE: return CL_INVALID_GLOBAL_WORK_SIZE;
  case WEFT_EGROUPSIZE: return CL_INVALID_WORK_GROUP_SIZE;
  case WEFT_ELOCALMEM: return CL_OUT_OF_RESOURCES;
  /* A kernel that crashed ends its event with this status; the message
   * goes to the context's notification callback. */
  case WEFT_EKERNELFAULT:
  case WEFT_ESTACK:
  case WEFT_EBARRIER:
  case WEFT_ESYS:
  case WEFT_EDEADLOCK:
  case WEFT_ECHECK:
  case WEFT_ETIMEOUT:
  case WEFT_ELAUNCH: return CL_OUT_OF_RESOURCES;
  case WEFT_ENODEV: return CL_DEVICE_NOT_FOUND;
  case WEFT_EWAITLIST: return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
  case WEFT_EOVERLAP: return CL_MEM_COPY_OVERLAP;
  default: return CL_INVALID_VALUE;
  }
}

cl_int weft__cl_info(const void *data, size_t data_size, size_t value_size,
                     void *value, size_t *size_ret) {
  if (value && value_size < data_size) return CL_INVALID_VALUE;
  if (value && data_size) memcpy(value, data, data_size);
  if (size_ret) *size_ret = data_size;
  return CL_SUCCESS;
}

cl_int weft__cl_push_callback(pthread_mutex_t *lock, cl_callback **list,
                              void (*fn)(void), void *user_data) {
  cl_callback *cb = calloc(1, sizeof *cb);
  if (!cb) return CL_OUT_OF_HOST_MEMORY;
  cb->fn = fn;
  cb->user_data = user_data;
  pthread_mutex_lock(lock);
  cb->next = *list;
  *list = cb;
  pthread_mutex_unlock(lock);
  return CL_SUCCESS;
}

void weft__cl_notify(cl_context context, const char *message) {
  if (context && context->notify)
    context->notify(message, NULL, 0, context->notify_data);
}

void weft__cl_report(cl_context context, const char *message) {
  if (context && context->notify) weft__cl_notify(context, message);
  else fprintf(stderr, "weft: %s\n", message);
}

cl_ulong weft__cl_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (cl_ulong)t.tv_sec * 1000000000u + (cl_ulong)t.tv_nsec;
}
