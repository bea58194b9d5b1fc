/* test_cl_queue.c: command queues, events, markers and barriers, user
 * events, callbacks, profiling, out-of-order execution, execution across
 * queues and from several host threads. */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <CL/cl_ext.h>

#include "cl_support.h"

static const char *source =
    "__kernel void scale(__global int *a, int f) {\n"
    "  a[get_global_id(0)] *= f;\n"
    "}\n"
    "__kernel void add(__global int *a, __global const int *b) {\n"
    "  a[get_global_id(0)] += b[get_global_id(0)];\n"
    "}\n"
    "__kernel void spin(volatile __global int *flag) {\n"
    "  while (flag[0] == 0) {}\n"
    "  flag[1] = 7;\n"
    "}\n"
    "__kernel void busy(__global float *a, int n) {\n"
    "  float x = a[get_global_id(0)];\n"
    "  for (int i = 0; i < n; i++) x = x * 0.999f + 1.0f;\n"
    "  a[get_global_id(0)] = x;\n"
    "}\n"
    "__kernel void crash(__global int *a) {\n"
    "  if (get_global_id(0) == 5) *(__global int *)0 = 1;\n"
    "  a[get_global_id(0)] = 1;\n"
    "}\n";

#define N 256

typedef struct fixture {
  cl_context ctx;
  cl_program prog;
} fixture;

static fixture setup(void) {
  fixture f;
  f.ctx = cl_weft_context();
  f.prog = cl_build(f.ctx, source, "");
  return f;
}

static void teardown(fixture *f) {
  clReleaseProgram(f->prog);
  clReleaseContext(f->ctx);
}

static cl_kernel kernel(fixture *f, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(f->prog, name, &err);
  CL_CHECK(err);
  return k;
}

static cl_int status_of(cl_event e) {
  cl_int s;
  CL_CHECK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s,
                          NULL));
  return s;
}

static cl_event user_event(cl_context ctx) {
  cl_int err;
  cl_event u = clCreateUserEvent(ctx, &err);
  CL_CHECK(err);
  return u;
}

static void pause_ms(int ms) {
  struct timespec t = {0, ms * 1000000L};
  nanosleep(&t, NULL);
}

/* Enqueues a[i] *= factor on q after the events of the wait list. */
static cl_event enqueue_scale(cl_command_queue q, cl_kernel k, cl_mem m,
                              int factor, cl_uint n, const cl_event *wait) {
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, sizeof factor, &factor));
  size_t global = N;
  cl_event e;
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, n, wait, &e));
  return e;
}

/* cl_khr_create_command_queue: OpenCL 1.2 programs make queues with
 * properties through the platform; the queue has them, and what
 * clCreateCommandQueueWithProperties refuses it refuses too. */
TEST(create_queue_with_properties_khr) {
  clCreateCommandQueueWithPropertiesKHR_fn create =
      (clCreateCommandQueueWithPropertiesKHR_fn)
          clGetExtensionFunctionAddressForPlatform(
              cl_weft_platform(), "clCreateCommandQueueWithPropertiesKHR");
  CHECK(create != NULL);
  cl_context ctx = cl_weft_context();
  cl_queue_properties_khr props[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, 0};
  cl_int err = CL_INVALID_VALUE;
  cl_command_queue q = create(ctx, cl_weft_device(), props, &err);
  CL_CHECK(err);
  cl_command_queue_properties got = 0;
  CL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof got, &got, NULL));
  CHECK_EQ(got, props[1]);
  CL_CHECK(clFinish(q));
  CL_CHECK(clReleaseCommandQueue(q));
  cl_queue_properties_khr unknown[] = {0x7777, 1, 0};
  CHECK(create(ctx, cl_weft_device(), unknown, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_VALUE);
  CHECK(create(ctx, NULL, props, &err) == NULL);
  CHECK_EQ(err, CL_INVALID_DEVICE);
  CL_CHECK(clReleaseContext(ctx));
}

TEST(in_order_kernel_and_read) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  cl_kernel k = kernel(&f, "scale");
  int host[N];
  for (int i = 0; i < N; i++) host[i] = i;
  cl_mem m = cl_buffer(f.ctx, sizeof host, host);
  /* Arguments changed after an enqueue do not change that launch. */
  clReleaseEvent(enqueue_scale(q, k, m, 3, 0, NULL));
  clReleaseEvent(enqueue_scale(q, k, m, 5, 0, NULL));
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof host, host, 0, NULL,
                               NULL));
  for (int i = 0; i < N; i++) CHECK_EQ(host[i], 15 * i);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  teardown(&f);
}

/* A diamond of kernels (A; then B and C; then D) gives the same result on
 * an out-of-order queue, gated by a user event, as on an in-order one. */
static void diamond(fixture *f, cl_command_queue_properties props, int *out) {
  cl_command_queue q = cl_weft_queue(f->ctx, props);
  cl_kernel ks = kernel(f, "scale"), ka = kernel(f, "add");
  int init[N];
  for (int i = 0; i < N; i++) init[i] = i + 1;
  cl_mem x = cl_buffer(f->ctx, sizeof init, init);
  cl_mem y = cl_buffer(f->ctx, sizeof init, init);
  cl_event gate = user_event(f->ctx);
  cl_event a = enqueue_scale(q, ks, x, 2, 1, &gate);      /* x = 2x */
  cl_event b = enqueue_scale(q, ks, y, 3, 1, &a);         /* y = 3y */
  cl_event c = enqueue_scale(q, ks, x, 5, 1, &a);         /* x = 10x */
  cl_event bc[2] = {b, c};
  CL_CHECK(clSetKernelArg(ka, 0, sizeof x, &x));
  CL_CHECK(clSetKernelArg(ka, 1, sizeof y, &y));
  size_t global = N;
  cl_event d;
  CL_CHECK(clEnqueueNDRangeKernel(q, ka, 1, NULL, &global, NULL, 2, bc, &d));
  pause_ms(20);
  CHECK(status_of(a) > CL_RUNNING); /* nothing ran before the gate opened */
  CHECK(status_of(d) > CL_RUNNING);
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clWaitForEvents(1, &d));
  CL_CHECK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, N * sizeof *out, out, 0, NULL,
                               NULL));
  cl_event all[5] = {gate, a, b, c, d};
  for (int i = 0; i < 5; i++) {
    CHECK_EQ(status_of(all[i]), CL_COMPLETE);
    clReleaseEvent(all[i]);
  }
  clReleaseMemObject(x);
  clReleaseMemObject(y);
  clReleaseKernel(ks);
  clReleaseKernel(ka);
  clReleaseCommandQueue(q);
}

TEST(out_of_order_graph_matches_in_order) {
  fixture f = setup();
  int in_order[N], out_of_order[N];
  diamond(&f, 0, in_order);
  diamond(&f, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, out_of_order);
  for (int i = 0; i < N; i++) {
    CHECK_EQ(in_order[i], 13 * (i + 1));
    CHECK_EQ(out_of_order[i], in_order[i]);
  }
  teardown(&f);
}

/* Out of order, a command whose wait list is not met does not hold back
 * the commands enqueued after it. */
TEST(out_of_order_runs_ready_commands_first) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_kernel k1 = kernel(&f, "scale"), k2 = kernel(&f, "scale");
  int ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  cl_mem x = cl_buffer(f.ctx, sizeof ones, ones);
  cl_mem y = cl_buffer(f.ctx, sizeof ones, ones);
  cl_event gate = user_event(f.ctx);
  cl_event held = enqueue_scale(q, k1, x, 2, 1, &gate);
  cl_event free_to_run = enqueue_scale(q, k2, y, 3, 0, NULL);
  CL_CHECK(clWaitForEvents(1, &free_to_run));
  CHECK(status_of(held) > CL_RUNNING);
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clFinish(q));
  CHECK_EQ(status_of(held), CL_COMPLETE);
  int out[N];
  CL_CHECK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  CHECK_EQ(out[N - 1], 2);
  clReleaseEvent(gate);
  clReleaseEvent(held);
  clReleaseEvent(free_to_run);
  clReleaseMemObject(x);
  clReleaseMemObject(y);
  clReleaseKernel(k1);
  clReleaseKernel(k2);
  clReleaseCommandQueue(q);
  teardown(&f);
}

/* In order, a later command waits for an earlier one held by its wait
 * list. */
TEST(in_order_waits_for_earlier_commands) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  cl_kernel k = kernel(&f, "scale");
  int ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  cl_mem x = cl_buffer(f.ctx, sizeof ones, ones);
  cl_event gate = user_event(f.ctx);
  cl_event first = enqueue_scale(q, k, x, 2, 1, &gate);
  cl_event second = enqueue_scale(q, k, x, 3, 0, NULL);
  pause_ms(20);
  CHECK(status_of(first) > CL_RUNNING);
  CHECK(status_of(second) > CL_RUNNING);
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clWaitForEvents(1, &second));
  CHECK_EQ(status_of(first), CL_COMPLETE);
  int out[N];
  CL_CHECK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  CHECK_EQ(out[0], 6);
  clReleaseEvent(gate);
  clReleaseEvent(first);
  clReleaseEvent(second);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  teardown(&f);
}

/* A read on one queue waits for a kernel on another through its event. */
TEST(dependencies_across_queues) {
  fixture f = setup();
  cl_command_queue q1 = cl_weft_queue(f.ctx, 0);
  cl_command_queue q2 = cl_weft_queue(f.ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_kernel k = kernel(&f, "scale");
  int init[N];
  for (int i = 0; i < N; i++) init[i] = i;
  cl_mem x = cl_buffer(f.ctx, sizeof init, init);
  cl_event gate = user_event(f.ctx);
  cl_event scaled = enqueue_scale(q1, k, x, 4, 1, &gate);
  int out[N];
  cl_event read;
  CL_CHECK(clEnqueueReadBuffer(q2, x, CL_FALSE, 0, sizeof out, out, 1, &scaled,
                               &read));
  pause_ms(20);
  CHECK(status_of(read) > CL_RUNNING);
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clWaitForEvents(1, &read));
  for (int i = 0; i < N; i++) CHECK_EQ(out[i], 4 * i);
  clReleaseEvent(gate);
  clReleaseEvent(scaled);
  clReleaseEvent(read);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  clReleaseCommandQueue(q1);
  clReleaseCommandQueue(q2);
  teardown(&f);
}

/* A failed event in a wait list fails the command (and what waits on it),
 * without running it. */
TEST(failed_wait_list_event_fails_command) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  cl_kernel k = kernel(&f, "scale");
  int ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  cl_mem x = cl_buffer(f.ctx, sizeof ones, ones);
  cl_event gate = user_event(f.ctx);
  cl_event scaled = enqueue_scale(q, k, x, 9, 1, &gate);
  CL_CHECK(clSetUserEventStatus(gate, -42));
  CL_CHECK_ERR(clWaitForEvents(1, &scaled),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK_EQ(status_of(scaled), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  int out[N];
  CL_CHECK_ERR(clEnqueueReadBuffer(q, x, CL_TRUE, 0, sizeof out, out, 1,
                                   &scaled, NULL),
               CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  /* The kernel never ran; a read without the failed event succeeds. */
  CL_CHECK(clEnqueueReadBuffer(q, x, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  CHECK_EQ(out[0], 1);
  clReleaseEvent(gate);
  clReleaseEvent(scaled);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  teardown(&f);
}

typedef struct callback_log {
  pthread_mutex_t lock;
  int order[8];
  int count;
} callback_log;

static void CL_CALLBACK record(cl_event e, cl_int status, void *data) {
  (void)e;
  callback_log *log = data;
  pthread_mutex_lock(&log->lock);
  if (log->count < 8) log->order[log->count++] = status;
  pthread_mutex_unlock(&log->lock);
}

TEST(event_callbacks_fire_once_in_order) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  cl_kernel k = kernel(&f, "scale");
  cl_mem x = cl_buffer(f.ctx, N * sizeof(int), NULL);
  cl_event gate = user_event(f.ctx);
  cl_event e = enqueue_scale(q, k, x, 2, 1, &gate);
  callback_log log = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
  CL_CHECK(clSetEventCallback(e, CL_COMPLETE, record, &log));
  CL_CHECK(clSetEventCallback(e, CL_RUNNING, record, &log));
  CL_CHECK(clSetEventCallback(e, CL_SUBMITTED, record, &log)); /* already */
  CL_CHECK_ERR(clSetEventCallback(e, CL_QUEUED, record, &log), CL_INVALID_VALUE);
  CL_CHECK_ERR(clSetEventCallback(e, CL_COMPLETE, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clFinish(q));
  /* Callbacks may run just after the status changes: give them a moment. */
  for (int i = 0; i < 500 && log.count < 3; i++) pause_ms(1);
  CHECK_EQ(log.count, 3);
  CHECK_EQ(log.order[0], CL_SUBMITTED);
  CHECK_EQ(log.order[1], CL_RUNNING);
  CHECK_EQ(log.order[2], CL_COMPLETE);
  /* Registered after completion: called at once. */
  CL_CHECK(clSetEventCallback(e, CL_COMPLETE, record, &log));
  CHECK_EQ(log.count, 4);
  clReleaseEvent(gate);
  clReleaseEvent(e);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  teardown(&f);
}

TEST(failed_event_callback_gets_the_error) {
  fixture f = setup();
  cl_event u = user_event(f.ctx);
  callback_log log = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
  CL_CHECK(clSetEventCallback(u, CL_COMPLETE, record, &log));
  CL_CHECK(clSetUserEventStatus(u, -5));
  CHECK_EQ(log.count, 1);
  CHECK_EQ(log.order[0], -5);
  clReleaseEvent(u);
  teardown(&f);
}

static void CL_CALLBACK context_gone(cl_context c, void *flag) {
  (void)c;
  *(int *)flag = 1;
}

/* A user event is the application's: any negative status it sets is the
 * one reported; and released without being set, its callbacks are
 * dropped, holding nothing (its context goes when released). */
TEST(user_event_status_and_dropped_callbacks) {
  cl_context ctx = cl_weft_context();
  cl_event u = user_event(ctx);
  callback_log log = {PTHREAD_MUTEX_INITIALIZER, {0}, 0};
  CL_CHECK(clSetEventCallback(u, CL_COMPLETE, record, &log));
  cl_uint refs;
  CL_CHECK(clGetEventInfo(u, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  CHECK_EQ(refs, 1);
  CL_CHECK(clSetUserEventStatus(u, -26));
  cl_int status;
  CL_CHECK(clGetEventInfo(u, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status,
                          &status, NULL));
  CHECK_EQ(status, -26);
  CHECK_EQ(log.count, 1);
  CHECK_EQ(log.order[0], -26);
  clReleaseEvent(u);
  cl_event never = user_event(ctx);
  CL_CHECK(clSetEventCallback(never, CL_COMPLETE, record, &log));
  int gone = 0;
  CL_CHECK(clSetContextDestructorCallback(ctx, context_gone, &gone));
  clReleaseEvent(never);
  clReleaseContext(ctx);
  CHECK_EQ(gone, 1);
  CHECK_EQ(log.count, 1);
}

static cl_ulong profile(cl_event e, cl_profiling_info what) {
  cl_ulong t;
  CL_CHECK(clGetEventProfilingInfo(e, what, sizeof t, &t, NULL));
  return t;
}

TEST(profiling_times_are_ordered_and_real) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, CL_QUEUE_PROFILING_ENABLE);
  cl_kernel k = kernel(&f, "busy");
  cl_mem a = cl_buffer(f.ctx, 1024 * sizeof(float), NULL);
  int n = 20000;
  CL_CHECK(clSetKernelArg(k, 0, sizeof a, &a));
  CL_CHECK(clSetKernelArg(k, 1, sizeof n, &n));
  size_t global = 1024;
  cl_event e;
  cl_ulong before;
  CL_CHECK(clGetHostTimer(cl_weft_device(), &before));
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &e));
  CL_CHECK(clWaitForEvents(1, &e));
  cl_ulong after;
  CL_CHECK(clGetHostTimer(cl_weft_device(), &after));
  cl_ulong queued = profile(e, CL_PROFILING_COMMAND_QUEUED);
  cl_ulong submit = profile(e, CL_PROFILING_COMMAND_SUBMIT);
  cl_ulong start = profile(e, CL_PROFILING_COMMAND_START);
  cl_ulong end = profile(e, CL_PROFILING_COMMAND_END);
  cl_ulong complete = profile(e, CL_PROFILING_COMMAND_COMPLETE);
  CHECK(before <= queued);
  CHECK(queued <= submit && submit <= start && start < end && end <= complete);
  CHECK(complete <= after);
  /* 20M dependent multiply-adds take well over 100 us on any CPU; on a
   * GPU, 1024 work-items run at once, and a chain of 20000 takes 20000
   * cycles at least: over 10 us (an H200 took under 100 us). */
  CHECK(end - start > (harness_on_gpu() ? 10000u : 100000u));
  CL_CHECK_ERR(clGetEventProfilingInfo(e, 0x1234, sizeof end, &end, NULL),
               CL_INVALID_VALUE);
  clReleaseEvent(e);
  /* Without profiling there is nothing to report. */
  cl_command_queue plain = cl_weft_queue(f.ctx, 0);
  CL_CHECK(clEnqueueNDRangeKernel(plain, k, 1, NULL, &global, NULL, 0, NULL, &e));
  CL_CHECK(clWaitForEvents(1, &e));
  CL_CHECK_ERR(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end,
                                       &end, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
  clReleaseEvent(e);
  cl_event u = user_event(f.ctx);
  CL_CHECK_ERR(clGetEventProfilingInfo(u, CL_PROFILING_COMMAND_END, sizeof end,
                                       &end, NULL),
               CL_PROFILING_INFO_NOT_AVAILABLE);
  clSetUserEventStatus(u, CL_COMPLETE);
  clReleaseEvent(u);
  clReleaseMemObject(a);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  clReleaseCommandQueue(plain);
  teardown(&f);
}

/* Out of order: a marker without a wait list completes after everything
 * before it; a barrier also holds back what comes after it. */
TEST(out_of_order_markers_and_barriers) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  cl_kernel k1 = kernel(&f, "scale"), k2 = kernel(&f, "scale");
  int ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  cl_mem x = cl_buffer(f.ctx, sizeof ones, ones);
  cl_mem y = cl_buffer(f.ctx, sizeof ones, ones);
  cl_event gate = user_event(f.ctx);
  cl_event held = enqueue_scale(q, k1, x, 2, 1, &gate);
  cl_event marker, barrier;
  CL_CHECK(clEnqueueMarkerWithWaitList(q, 0, NULL, &marker));
  CL_CHECK(clEnqueueBarrierWithWaitList(q, 0, NULL, &barrier));
  cl_event after = enqueue_scale(q, k2, y, 3, 0, NULL);
  pause_ms(20);
  CHECK(status_of(marker) > CL_RUNNING);
  CHECK(status_of(barrier) > CL_RUNNING);
  CHECK(status_of(after) > CL_RUNNING);
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clWaitForEvents(1, &after));
  CHECK_EQ(status_of(marker), CL_COMPLETE);
  CHECK_EQ(status_of(barrier), CL_COMPLETE);
  cl_command_type type;
  CL_CHECK(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_MARKER);
  CL_CHECK(clGetEventInfo(barrier, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_BARRIER);
  cl_event list[5] = {gate, held, marker, barrier, after};
  for (int i = 0; i < 5; i++) clReleaseEvent(list[i]);
  clReleaseMemObject(x);
  clReleaseMemObject(y);
  clReleaseKernel(k1);
  clReleaseKernel(k2);
  clReleaseCommandQueue(q);
  teardown(&f);
}

/* The deprecated 1.1 forms still order. */
TEST(marker_barrier_wait_for_events_1_1) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  cl_event gate = user_event(f.ctx), marker;
  CL_CHECK(clEnqueueWaitForEvents(q, 1, &gate));
  CL_CHECK(clEnqueueBarrier(q));
  CL_CHECK(clEnqueueMarker(q, &marker));
  CL_CHECK_ERR(clEnqueueMarker(q, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueWaitForEvents(q, 0, NULL), CL_INVALID_VALUE);
  pause_ms(10);
  CHECK(status_of(marker) > CL_RUNNING);
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clFinish(q));
  CHECK_EQ(status_of(marker), CL_COMPLETE);
  clReleaseEvent(gate);
  clReleaseEvent(marker);
  clReleaseCommandQueue(q);
  teardown(&f);
}

/* Enqueue returns at once and the queue runs without clFlush: the kernel
 * spins until the host, after the enqueue returned, writes its flag. */
TEST(enqueue_returns_before_the_kernel_ends) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  cl_kernel k = kernel(&f, "spin");
  volatile int flag[2] = {0, 0};
  cl_int err;
  cl_mem m = clCreateBuffer(f.ctx, CL_MEM_USE_HOST_PTR, sizeof flag,
                            (void *)flag, &err);
  CL_CHECK(err);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  cl_event e;
  CL_CHECK(clEnqueueTask(q, k, 0, NULL, &e));
  pause_ms(20);
  CHECK(status_of(e) != CL_COMPLETE);
  flag[0] = 1;
  CL_CHECK(clWaitForEvents(1, &e));
  CHECK_EQ(flag[1], 7);
  clReleaseEvent(e);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  teardown(&f);
}

/* Releasing a queue with commands still waiting lets them finish. */
TEST(release_queue_with_pending_commands) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  cl_kernel k = kernel(&f, "scale");
  int ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  cl_mem x = cl_buffer(f.ctx, sizeof ones, ones);
  cl_event gate = user_event(f.ctx);
  cl_event e = enqueue_scale(q, k, x, 6, 1, &gate);
  int out[N] = {0};
  cl_event read;
  CL_CHECK(clEnqueueReadBuffer(q, x, CL_FALSE, 0, sizeof out, out, 0, NULL, &read));
  CL_CHECK(clReleaseCommandQueue(q));
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clWaitForEvents(1, &read));
  CHECK_EQ(out[N - 1], 6);
  clReleaseEvent(gate);
  clReleaseEvent(e);
  clReleaseEvent(read);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  teardown(&f);
}

/* The threads this process has now. */
static long threads_now(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[128];
  long n = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "Threads:", 8)) n = atol(line + 8);
  if (f) fclose(f);
  CHECK(n > 0);
  return n;
}

/* Queues share a bounded set of threads: 3000 queues, each with a
 * kernel waiting for one user event, all ready at once when it
 * completes, run on at most 64 threads more than the process had (before:
 * a thread per queue, and launches refused past 32,000 queues). */
TEST(queues_share_bounded_threads) {
  enum { QUEUES = 3000 };
  fixture f = setup();
  cl_kernel k = kernel(&f, "scale");
  int ones[N];
  for (int i = 0; i < N; i++) ones[i] = 1;
  cl_mem x = cl_buffer(f.ctx, sizeof ones, ones);
  cl_event gate = user_event(f.ctx);
  long before = threads_now();
  cl_command_queue *queues = calloc(QUEUES, sizeof *queues);
  cl_event *done = calloc(QUEUES, sizeof *done);
  CHECK(queues && done);
  for (int i = 0; i < QUEUES; i++) {
    queues[i] = cl_weft_queue(f.ctx, 0);
    done[i] = enqueue_scale(queues[i], k, x, 1, 1, &gate);
  }
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clWaitForEvents(QUEUES, done));
  long peak = threads_now();
  CHECK(peak <= before + 64);
  for (int i = 0; i < QUEUES; i++) {
    CHECK_EQ(status_of(done[i]), CL_COMPLETE);
    CL_CHECK(clReleaseEvent(done[i]));
    CL_CHECK(clReleaseCommandQueue(queues[i]));
  }
  free(done);
  free(queues);
  clReleaseEvent(gate);
  clReleaseMemObject(x);
  clReleaseKernel(k);
  teardown(&f);
}

typedef struct worker {
  fixture *f;
  cl_command_queue q; /* shared, or NULL for a queue of its own */
  int id;
  int ok;
} worker;

/* Each thread has its own kernel object and buffer (OpenCL allows sharing
 * everything but a kernel's arguments). */
static void *work(void *arg) {
  worker *w = arg;
  cl_command_queue q = w->q ? w->q : cl_weft_queue(w->f->ctx, 0);
  cl_kernel k = kernel(w->f, "scale");
  int data[N];
  for (int i = 0; i < N; i++) data[i] = i + w->id;
  cl_mem m = cl_buffer(w->f->ctx, sizeof data, data);
  int expect = 1;
  /* Each launch waits for the thread's previous one: on an out-of-order
   * queue nothing else orders them. */
  cl_event last = NULL;
  for (int round = 0; round < 100; round++) {
    int factor = round % 3 == 0 ? -1 : 1;
    cl_event e = enqueue_scale(q, k, m, factor, last ? 1 : 0, last ? &last : NULL);
    if (last) clReleaseEvent(last);
    last = e;
    expect *= factor;
  }
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof data, data, 1, &last,
                               NULL));
  clReleaseEvent(last);
  w->ok = 1;
  for (int i = 0; i < N; i++) w->ok &= data[i] == expect * (i + w->id);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  if (!w->q) clReleaseCommandQueue(q);
  return NULL;
}

static void run_threads(fixture *f, cl_command_queue shared) {
  pthread_t threads[4];
  worker w[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (worker){f, shared, i, 0};
    CHECK_EQ(pthread_create(&threads[i], NULL, work, &w[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(threads[i], NULL);
    CHECK(w[i].ok);
  }
}

TEST(host_threads_with_own_queues) {
  fixture f = setup();
  run_threads(&f, NULL);
  teardown(&f);
}

TEST(host_threads_sharing_a_queue) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  run_threads(&f, q);
  CL_CHECK(clFinish(q));
  clReleaseCommandQueue(q);
  teardown(&f);
}

TEST(host_threads_sharing_an_out_of_order_queue) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  run_threads(&f, q);
  CL_CHECK(clFinish(q));
  clReleaseCommandQueue(q);
  teardown(&f);
}

typedef struct notice {
  char text[1024];
  int count;
} notice;

static void CL_CALLBACK notify(const char *text, const void *info, size_t size,
                               void *data) {
  (void)info, (void)size;
  notice *n = data;
  snprintf(n->text, sizeof n->text, "%s", text);
  n->count++;
}

/* A kernel that crashes ends its event with an error; the context's
 * callback names the kernel and the work-item; the queue goes on. */
/* The fixture with a context whose notifications go to n. */
static fixture notified_setup(notice *n) {
  cl_device_id d = cl_weft_device();
  cl_int err;
  fixture f;
  f.ctx = clCreateContext(NULL, 1, &d, notify, n, &err);
  CL_CHECK(err);
  f.prog = cl_build(f.ctx, source, "");
  return f;
}

TEST(crash_fails_the_event_and_the_queue_goes_on) {
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  notice n = {"", 0};
  fixture f = notified_setup(&n);
  cl_context ctx = f.ctx;
  cl_kernel crash = kernel(&f, "crash");
  cl_command_queue q = cl_weft_queue(ctx, 0);
  cl_mem m = cl_buffer(ctx, 64 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(crash, 0, sizeof m, &m));
  size_t global = 64, local = 8;
  cl_event e;
  CL_CHECK(clEnqueueNDRangeKernel(q, crash, 1, NULL, &global, &local, 0, NULL, &e));
  CHECK(clWaitForEvents(1, &e) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(status_of(e) < 0);
  CHECK_EQ(n.count, 1);
  CHECK_STR_CONTAINS(n.text, "kernel 'crash'");
  CHECK_STR_CONTAINS(n.text, "work-item (5)");
  clReleaseEvent(e);
  int out[64];
  CL_CHECK(clEnqueueFillBuffer(q, m, &(int){3}, sizeof(int), 0, sizeof out, 0,
                               NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  CHECK_EQ(out[63], 3);
  clReleaseMemObject(m);
  clReleaseKernel(crash);
  clReleaseCommandQueue(q);
  teardown(&f);
}

/* A long chain of launches, each after the one before in order and every
 * other one also naming its event: on a GPU they are left in flight and
 * end together (core/queue.h), with the same results and every event
 * complete, started in order. */
TEST(chains_of_launches) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, CL_QUEUE_PROFILING_ENABLE);
  cl_kernel ks = kernel(&f, "scale"), ka = kernel(&f, "add");
  int host[N], ones[N];
  for (int i = 0; i < N; i++) host[i] = i, ones[i] = 1;
  cl_mem m = cl_buffer(f.ctx, sizeof host, host);
  cl_mem b = cl_buffer(f.ctx, sizeof ones, ones);
  CL_CHECK(clSetKernelArg(ka, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(ka, 1, sizeof b, &b));
  enum { LAUNCHES = 64 };
  cl_event e[LAUNCHES];
  size_t global = N;
  for (int i = 0; i < LAUNCHES; i++) {
    cl_uint n = i % 2 && i ? 1 : 0;
    if (i % 8 == 7)
      e[i] = enqueue_scale(q, ks, m, 2, n, n ? &e[i - 1] : NULL);
    else
      CL_CHECK(clEnqueueNDRangeKernel(q, ka, 1, NULL, &global, NULL, n,
                                      n ? &e[i - 1] : NULL, &e[i]));
  }
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof host, host, 0, NULL,
                               NULL));
  /* Eight rounds of "add 1 seven times, then double". */
  for (int i = 0; i < N; i++) {
    long long want = i;
    for (int r = 0; r < LAUNCHES / 8; r++) want = (want + 7) * 2;
    CHECK_EQ(host[i], want);
  }
  cl_ulong last_start = 0;
  for (int i = 0; i < LAUNCHES; i++) {
    CHECK_EQ(status_of(e[i]), CL_COMPLETE);
    cl_ulong start = profile(e[i], CL_PROFILING_COMMAND_START);
    CHECK(start >= last_start);
    CHECK(profile(e[i], CL_PROFILING_COMMAND_END) >= start);
    last_start = start;
    clReleaseEvent(e[i]);
  }
  clReleaseMemObject(m);
  clReleaseMemObject(b);
  clReleaseKernel(ks);
  clReleaseKernel(ka);
  clReleaseCommandQueue(q);
  teardown(&f);
}

/* A GPU fault among launches left in flight: the settle finds it, fails
 * their events and names every kernel that was in flight, the faulting
 * one among them. */
TEST(gpu_fault_among_launches_in_flight) {
  if (!harness_on_gpu()) SKIP("the CPU runs each launch to its end");
  notice n = {"", 0};
  fixture f = notified_setup(&n);
  cl_context ctx = f.ctx;
  cl_kernel crash = kernel(&f, "crash"), scale = kernel(&f, "scale");
  cl_command_queue q = cl_weft_queue(ctx, 0);
  cl_mem m = cl_buffer(ctx, N * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(crash, 0, sizeof m, &m));
  size_t global = 64;
  cl_event e[3];
  e[0] = enqueue_scale(q, scale, m, 2, 0, NULL);
  CL_CHECK(clEnqueueNDRangeKernel(q, crash, 1, NULL, &global, NULL, 0, NULL,
                                  &e[1]));
  e[2] = enqueue_scale(q, scale, m, 3, 0, NULL);
  CHECK(clWaitForEvents(1, &e[2]) == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  CHECK(status_of(e[1]) < 0);
  CHECK(status_of(e[2]) < 0);
  CHECK(n.count >= 1);
  CHECK_STR_CONTAINS(n.text, "'crash'");
  CHECK_STR_CONTAINS(n.text, "on the GPU");
  for (int i = 0; i < 3; i++) clReleaseEvent(e[i]);
  clReleaseMemObject(m);
  clReleaseKernel(crash);
  clReleaseKernel(scale);
  clReleaseCommandQueue(q);
  teardown(&f);
}

TEST(queue_info_and_properties) {
  fixture f = setup();
  cl_device_id d = cl_weft_device();
  cl_queue_properties props[] = {CL_QUEUE_PROPERTIES,
                                 CL_QUEUE_PROFILING_ENABLE |
                                     CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                 0};
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(f.ctx, d, props, &err);
  CL_CHECK(err);
  cl_context c;
  CL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, NULL));
  CHECK(c == f.ctx);
  cl_device_id dev;
  CL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL));
  CHECK(dev == d);
  cl_command_queue_properties p;
  CL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof p, &p, NULL));
  CHECK_EQ(p, props[1]);
  cl_queue_properties given[3];
  size_t size;
  CL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof given,
                                 given, &size));
  CHECK_EQ(size, sizeof props);
  CHECK_EQ(given[1], props[1]);
  cl_uint refs;
  CL_CHECK(clRetainCommandQueue(q));
  CL_CHECK(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof refs, &refs,
                                 NULL));
  CHECK_EQ(refs, 2);
  CL_CHECK(clReleaseCommandQueue(q));
  CL_CHECK_ERR(clGetCommandQueueInfo(q, 0x7777, sizeof refs, &refs, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, 1, &c, NULL),
               CL_INVALID_VALUE);
  CL_CHECK(clFlush(q));
  CL_CHECK(clReleaseCommandQueue(q));
  /* Old-style creation, and bad properties. */
  q = clCreateCommandQueue(f.ctx, d, CL_QUEUE_PROFILING_ENABLE, &err);
  CL_CHECK(err);
  CL_CHECK(clReleaseCommandQueue(q));
  CHECK(!clCreateCommandQueue(f.ctx, d, (cl_command_queue_properties)1 << 40, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_queue_properties unknown[] = {0x9999, 1, 0};
  CHECK(!clCreateCommandQueueWithProperties(f.ctx, d, unknown, &err));
  CHECK_EQ(err, CL_INVALID_VALUE);
  cl_queue_properties on_device[] = {CL_QUEUE_PROPERTIES,
                                     CL_QUEUE_ON_DEVICE |
                                         CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                                     0};
  CHECK(!clCreateCommandQueueWithProperties(f.ctx, d, on_device, &err));
  CHECK_EQ(err, CL_INVALID_QUEUE_PROPERTIES);
  CHECK(!clCreateCommandQueueWithProperties(NULL, d, NULL, &err));
  CHECK_EQ(err, CL_INVALID_CONTEXT);
  CHECK(!clCreateCommandQueueWithProperties(f.ctx, NULL, NULL, &err));
  CHECK_EQ(err, CL_INVALID_DEVICE);
  CL_CHECK_ERR(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clFlush(NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(clRetainCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE);
  teardown(&f);
}

TEST(event_info_and_user_event_rules) {
  fixture f = setup();
  cl_command_queue q = cl_weft_queue(f.ctx, 0);
  cl_event u = user_event(f.ctx);
  CHECK_EQ(status_of(u), CL_SUBMITTED);
  cl_command_queue none;
  CL_CHECK(clGetEventInfo(u, CL_EVENT_COMMAND_QUEUE, sizeof none, &none, NULL));
  CHECK(none == NULL);
  cl_command_type type;
  CL_CHECK(clGetEventInfo(u, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_USER);
  cl_context c;
  CL_CHECK(clGetEventInfo(u, CL_EVENT_CONTEXT, sizeof c, &c, NULL));
  CHECK(c == f.ctx);
  CL_CHECK_ERR(clSetUserEventStatus(u, 1), CL_INVALID_VALUE);
  CL_CHECK(clSetUserEventStatus(u, CL_COMPLETE));
  CL_CHECK_ERR(clSetUserEventStatus(u, CL_COMPLETE), CL_INVALID_OPERATION);
  cl_event marker;
  CL_CHECK(clEnqueueMarkerWithWaitList(q, 1, &u, &marker));
  CL_CHECK(clWaitForEvents(1, &marker));
  CL_CHECK(clGetEventInfo(marker, CL_EVENT_COMMAND_QUEUE, sizeof none, &none, NULL));
  CHECK(none == q);
  CL_CHECK_ERR(clSetUserEventStatus(marker, CL_COMPLETE), CL_INVALID_EVENT);
  cl_uint refs;
  CL_CHECK(clRetainEvent(marker));
  CL_CHECK(clGetEventInfo(marker, CL_EVENT_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  CHECK_EQ(refs, 2);
  CL_CHECK(clReleaseEvent(marker));
  CL_CHECK_ERR(clGetEventInfo(marker, 0x5555, sizeof refs, &refs, NULL),
               CL_INVALID_VALUE);
  /* Wait lists: length and list must agree, events must be valid and of
   * the queue's context. */
  CL_CHECK_ERR(clEnqueueMarkerWithWaitList(q, 1, NULL, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
  CL_CHECK_ERR(clEnqueueMarkerWithWaitList(q, 0, &u, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
  cl_event bogus = (cl_event)q;
  CL_CHECK_ERR(clEnqueueMarkerWithWaitList(q, 1, &bogus, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
  cl_context other = cl_weft_context();
  cl_event foreign = user_event(other);
  CL_CHECK_ERR(clEnqueueMarkerWithWaitList(q, 1, &foreign, NULL),
               CL_INVALID_CONTEXT);
  cl_event pair[2] = {u, foreign};
  CL_CHECK_ERR(clWaitForEvents(2, pair), CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clWaitForEvents(0, pair), CL_INVALID_VALUE);
  CL_CHECK_ERR(clWaitForEvents(1, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clWaitForEvents(1, &bogus), CL_INVALID_EVENT);
  CHECK(!clCreateUserEvent(NULL, NULL));
  CL_CHECK(clSetUserEventStatus(foreign, CL_COMPLETE));
  clReleaseEvent(foreign);
  clReleaseContext(other);
  clReleaseEvent(marker);
  clReleaseEvent(u);
  clReleaseCommandQueue(q);
  teardown(&f);
}

TEST_MAIN()
