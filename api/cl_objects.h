/*
 * cl_objects.h: the OpenCL objects of Weft's ICD, each a thin wrapper around
 * a native handle (weft.h). Every object starts with the ICD dispatch table
 * pointer, as the cl_khr_icd loader requires, then a kind tag (so a wrong or
 * released handle is refused with the right CL_INVALID_* code) and a
 * reference count.
 */
#ifndef WEFT_API_CL_OBJECTS_H
#define WEFT_API_CL_OBJECTS_H

/* CL_TARGET_OPENCL_VERSION and the CL_USE_DEPRECATED_* macros come from
 * api/CMakeLists.txt: every API of every version is implemented. */
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "weft/weft.h"

extern const cl_icd_dispatch weft__cl_dispatch;

typedef enum cl_kind {
  CL_KIND_PLATFORM = 0x43504c01,
  CL_KIND_DEVICE,
  CL_KIND_CONTEXT,
  CL_KIND_QUEUE,
  CL_KIND_MEM,
  CL_KIND_PROGRAM,
  CL_KIND_KERNEL,
  CL_KIND_EVENT,
  CL_KIND_SAMPLER
} cl_kind;

/* The common start of every object. */
typedef struct cl_header {
  const cl_icd_dispatch *dispatch;
  uint32_t kind;
  atomic_int refs;
  /* A number no other object of the process had before: a handle kept
   * past its release (whose memory a new object may have taken) is known
   * by it. */
  uint32_t serial;
} cl_header;

/* A callback registered by the application, kept in a list. */
typedef struct cl_callback {
  struct cl_callback *next;
  void (*fn)(void);     /* cast back to the right type where it is called */
  void *user_data;
  cl_int status;        /* events: the status that fires it */
} cl_callback;

struct _cl_platform_id {
  cl_header h;
};

struct _cl_device_id {
  cl_header h;
  weft_device *native;
  weft_device_info info;
};

struct _cl_context {
  cl_header h;
  cl_device_id device;
  weft_context *native;
  cl_context_properties *properties; /* as given, for CL_CONTEXT_PROPERTIES */
  size_t num_properties;
  void (CL_CALLBACK *notify)(const char *, const void *, size_t, void *);
  void *notify_data;
  pthread_mutex_t lock;
  cl_callback *destructors;
};

/* A queue: the native queue that orders and runs its commands
 * (cl_queue.h), and what OpenCL asks of it. */
struct _cl_command_queue {
  cl_header h;
  cl_context context;
  cl_device_id device;
  cl_command_queue_properties properties;
  cl_queue_properties *given;   /* as given to ...WithProperties */
  size_t num_given;
  weft_queue *native;
};

struct _cl_mem {
  cl_header h;
  cl_context context;
  weft_buffer *native;
  cl_mem_object_type type;
  cl_mem_flags flags;
  size_t size;
  void *host_ptr;               /* as given (USE_HOST_PTR or COPY) */
  cl_mem parent;                /* sub-buffers */
  size_t offset;
  atomic_int map_count;
  pthread_mutex_t lock;
  cl_callback *destructors;
  cl_mem_properties *properties; /* as given, for CL_MEM_PROPERTIES */
  size_t num_properties;
  void **maps;                  /* pointers mapped and not yet unmapped */
  size_t num_maps, map_capacity; /* (under lock) */
  /* An image's format and description (cl_image.c), pitches those of its
   * storage; parent is a 1D buffer image's buffer. */
  cl_image_format format;
  cl_image_desc image;
  size_t element_size;
};

/* A sampler: its settings, which kernels get as CLK_* bits (cl_sampler.c). */
struct _cl_sampler {
  cl_header h;
  cl_context context;
  cl_bool normalized;
  cl_addressing_mode addressing;
  cl_filter_mode filter;
  cl_sampler_properties *properties; /* as given, for CL_SAMPLER_PROPERTIES */
  size_t num_properties;
};

/* The options of p's last build, compile or link (the native program's),
 * malloc'd; NULL when out of memory. */
char *weft__cl_program_options(cl_program p);

/* The bits a kernel's sampler argument takes (weft.h, WEFT_SAMPLER_*). */
unsigned weft__cl_sampler_bits(cl_sampler s);

struct _cl_program {
  cl_header h;
  cl_context context;
  weft_program *native;         /* its source and options are the native's */
  cl_build_status status;
  int from_binary;              /* made by clCreateProgramWithBinary */
  int linked;                   /* made by clLinkProgram */
  atomic_int num_kernels;
  pthread_mutex_t lock;
};

struct _cl_kernel {
  cl_header h;
  cl_program program;
  weft_kernel *native;
  /* The buffers clSetKernelArg was given, not retained (OpenCL lets the
   * application release them), with their serials, so that a launch
   * after such a release is refused. */
  cl_mem *buffers;
  uint32_t *serials;
  size_t *local_sizes;          /* bytes of each __local argument, 0 unset */
};

/* An event: the native one (cl_queue.h), and what OpenCL asks of it. */
struct _cl_event {
  cl_header h;
  cl_context context;
  cl_command_queue queue;       /* NULL for user events; retained */
  cl_command_type type;
  weft_event *native;
  /* A user event's callbacks (cl_event.c), freed with it: one that is
   * never set never calls them. */
  pthread_mutex_t lock;
  struct event_callback *callbacks;
};

/* Memory for an object of size bytes, zeroed; weft__cl_init makes it an
 * object. weft__cl_free (given the same size) keeps the memory of a
 * released object for the next object of that size instead of returning it
 * to the C library: a stale
 * handle, which the ICD loader dispatches through without a check, then
 * still finds the dispatch table and a kind that refuses it (0 while the
 * memory is free, another object's kind once reused), never freed memory. */
void *weft__cl_alloc(size_t size);
void weft__cl_free(void *object, size_t size);

/* Whether p is a live object of the kind. */
int weft__cl_is(const void *p, cl_kind kind);

/* Starts an object's header with one reference. */
void weft__cl_init(void *object, cl_kind kind);

void weft__cl_retain(void *object);

/* Drops a reference; 1 when it was the last (the caller frees). */
int weft__cl_release(void *object);

/* The CL error code for a native status. */
cl_int weft__cl_error(int status);

/* Copies a query's value out as clGet*Info specify: checks the size,
 * fills value and size_ret. */
cl_int weft__cl_info(const void *data, size_t data_size, size_t value_size,
                     void *value, size_t *size_ret);

/* Adds a destructor callback first in list (guarded by lock): they run
 * last registered first. */
cl_int weft__cl_push_callback(pthread_mutex_t *lock, cl_callback **list,
                              void (*fn)(void), void *user_data);

/* Tells the context's notification callback about an error, if set. */
void weft__cl_notify(cl_context context, const char *message);

/* The same for a failure the application could otherwise miss (a kernel
 * that crashed ends only its event's status): without a callback the
 * message goes to stderr. */
void weft__cl_report(cl_context context, const char *message);

/* Nanoseconds of the monotonic clock: the host timer's, which must be the
 * clock of profiling's times (weft_event_times, weft.h). */
cl_ulong weft__cl_now(void);

/* The work-group size multiple kernels on d run best with. */
size_t weft__cl_preferred_multiple(cl_device_id d);

/* The single platform. */
cl_platform_id weft__cl_platform(void);

/* Whether kernels can be made from p (CL_SUCCESS, or
 * CL_INVALID_PROGRAM_EXECUTABLE): it was built; or it was made from an
 * executable's binary and never built, which is then built now, as
 * clBuildProgram with no options would (cl_program.c). */
cl_int weft__cl_program_ready(cl_program p);
/* The platform's devices: the CPU, then each CUDA GPU (WEFT_DEVICE may
 * put a GPU first). */
cl_int weft__cl_devices(cl_device_id **devices, cl_uint *count);

/* cl_weft_sync's host function (weft/cl_weft.h), reached by name only
 * through clGetExtensionFunctionAddressForPlatform. */
cl_int CL_API_CALL clEnqueueInitSyncObjectWEFT(
    cl_command_queue queue, cl_mem buffer, size_t offset, cl_uint kind,
    cl_long param, cl_uint algorithm, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event);

/* cl_weft_schedule's host functions (weft/cl_weft.h; cl_schedule.c), by
 * name only too. */
cl_int CL_API_CALL clEnqueueScheduleSeedWEFT(cl_command_queue queue,
                                             cl_ulong seed,
                                             cl_uint num_events_in_wait_list,
                                             const cl_event *event_wait_list,
                                             cl_event *event);
cl_int CL_API_CALL clScheduleNextWEFT(cl_command_queue queue, cl_int *status);
cl_int CL_API_CALL clGetScheduleInfoWEFT(cl_command_queue queue,
                                         cl_uint param, size_t size,
                                         void *value, size_t *size_ret);

#endif
