/* test_cl_context.c: contexts: creation and its properties, creation by
 * device type, queries, reference counting, destructor callbacks, and the
 * notification callback that reports errors. */
#include <pthread.h>

#include "cl_support.h"

static cl_context create(const cl_context_properties *props, cl_uint n,
                         const cl_device_id *devices, cl_int *err) {
  *err = 12345;
  return clCreateContext(props, n, devices, NULL, NULL, err);
}

static cl_uint context_uint(cl_context c, cl_context_info param) {
  cl_uint v = 0;
  size_t size = 0;
  CL_CHECK(clGetContextInfo(c, param, sizeof v, &v, &size));
  CHECK_EQ(size, sizeof v);
  return v;
}

/* Checks CL_CONTEXT_PROPERTIES returns exactly the n entries given. */
static void check_properties(cl_context c, const cl_context_properties *props,
                             size_t n) {
  size_t size = 99;
  CL_CHECK(clGetContextInfo(c, CL_CONTEXT_PROPERTIES, 0, NULL, &size));
  CHECK_EQ(size, n * sizeof *props);
  if (!n) return;
  cl_context_properties got[16];
  CL_CHECK(clGetContextInfo(c, CL_CONTEXT_PROPERTIES, sizeof got, got, &size));
  CHECK_EQ(size, n * sizeof *props);
  for (size_t i = 0; i < n; i++) CHECK_EQ(got[i], props[i]);
}

/* -------------------------------------------------------------- create */

TEST(create_without_properties) {
  cl_device_id d = cl_weft_device();
  cl_int err;
  cl_context c = create(NULL, 1, &d, &err);
  CL_CHECK(err);
  CHECK(c != NULL);
  CHECK_EQ(context_uint(c, CL_CONTEXT_NUM_DEVICES), 1);
  CHECK_EQ(context_uint(c, CL_CONTEXT_REFERENCE_COUNT), 1);
  cl_device_id got = NULL;
  size_t size = 0;
  CL_CHECK(clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof got, &got, &size));
  CHECK_EQ(size, sizeof got);
  CHECK(got == d);
  /* NULL properties: none to return. */
  check_properties(c, NULL, 0);
  /* errcode_ret may be NULL. */
  cl_context c2 = clCreateContext(NULL, 1, &d, NULL, NULL, NULL);
  CHECK(c2 != NULL && c2 != c);
  CL_CHECK(clReleaseContext(c2));
  CL_CHECK(clReleaseContext(c));
}

TEST(create_with_platform_property) {
  cl_device_id d = cl_weft_device();
  cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)cl_weft_platform(), 0};
  cl_int err;
  cl_context c = create(props, 1, &d, &err);
  CL_CHECK(err);
  check_properties(c, props, 3);
  CL_CHECK(clReleaseContext(c));
}

TEST(create_with_interop_user_sync) {
  cl_device_id d = cl_weft_device();
  cl_context_properties props[] = {
      CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE, CL_CONTEXT_PLATFORM,
      (cl_context_properties)cl_weft_platform(), 0};
  cl_int err;
  cl_context c = create(props, 1, &d, &err);
  CL_CHECK(err);
  check_properties(c, props, 5);
  CL_CHECK(clReleaseContext(c));
}

/* An empty list (a lone 0) is returned as given. */
TEST(create_with_empty_properties) {
  cl_device_id d = cl_weft_device();
  cl_context_properties props[] = {0};
  cl_int err;
  cl_context c = create(props, 1, &d, &err);
  CL_CHECK(err);
  check_properties(c, props, 1);
  CL_CHECK(clReleaseContext(c));
}

TEST(create_invalid_platform) {
  cl_device_id d = cl_weft_device();
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)d, 0};
  cl_int err;
  CHECK(create(props, 1, &d, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PLATFORM);
}

TEST(create_unknown_property) {
  cl_device_id d = cl_weft_device();
  cl_context_properties props[] = {0x7777, 1, 0};
  cl_int err;
  CHECK(create(props, 1, &d, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROPERTY);
  /* A queue property is not a context property either. */
  cl_context_properties queue[] = {CL_QUEUE_PROPERTIES, 0, 0};
  CHECK(create(queue, 1, &d, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROPERTY);
}

TEST(create_duplicated_property) {
  cl_device_id d = cl_weft_device();
  cl_context_properties p = (cl_context_properties)cl_weft_platform();
  cl_context_properties props[] = {CL_CONTEXT_PLATFORM, p, CL_CONTEXT_PLATFORM, p, 0};
  cl_int err;
  CHECK(create(props, 1, &d, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROPERTY);
  cl_context_properties sync[] = {CL_CONTEXT_INTEROP_USER_SYNC, CL_TRUE,
                                  CL_CONTEXT_INTEROP_USER_SYNC, CL_FALSE, 0};
  CHECK(create(sync, 1, &d, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROPERTY);
}

/* A supported property with a value it cannot take (a cl_bool that is
 * neither CL_TRUE nor CL_FALSE): CL_INVALID_PROPERTY, as the CTS's
 * negative_create_context expects. */
TEST(create_bad_property_value) {
  cl_device_id d = cl_weft_device();
  cl_context_properties sync[] = {CL_CONTEXT_INTEROP_USER_SYNC, 7, 0};
  cl_int err;
  CHECK(create(sync, 1, &d, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROPERTY);
}

TEST(create_bad_device_lists) {
  cl_device_id d = cl_weft_device();
  cl_int err;
  CHECK(create(NULL, 0, &d, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  CHECK(create(NULL, 1, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  /* A context handle is not a device; neither is NULL in the list. */
  cl_context other = cl_weft_context();
  cl_device_id wrong[2] = {d, (cl_device_id)other};
  CHECK(create(NULL, 2, wrong, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_DEVICE);
  cl_device_id with_null[2] = {d, NULL};
  CHECK(create(NULL, 2, with_null, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_DEVICE);
  clReleaseContext(other);
}

/* Duplicate devices in the list are ignored. */
TEST(create_duplicate_devices) {
  cl_device_id d = cl_weft_device();
  cl_device_id twice[2] = {d, d};
  cl_int err;
  cl_context c = create(NULL, 2, twice, &err);
  CL_CHECK(err);
  CHECK_EQ(context_uint(c, CL_CONTEXT_NUM_DEVICES), 1);
  cl_device_id got[2] = {NULL, NULL};
  size_t size = 0;
  CL_CHECK(clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof got, got, &size));
  CHECK_EQ(size, sizeof(cl_device_id));
  CHECK(got[0] == d);
  CL_CHECK(clReleaseContext(c));
}

static void CL_CALLBACK ignore(const char *m, const void *i, size_t s, void *u) {
  (void)m, (void)i, (void)s, (void)u;
}

TEST(create_user_data_without_callback) {
  cl_device_id d = cl_weft_device();
  int data;
  cl_int err = 0;
  CHECK(clCreateContext(NULL, 1, &d, NULL, &data, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  /* With a callback, user data is fine. */
  cl_context c = clCreateContext(NULL, 1, &d, ignore, &data, &err);
  CL_CHECK(err);
  CL_CHECK(clReleaseContext(c));
}

/* ------------------------------------------------------------ by type */

static cl_context from_type(cl_device_type type, cl_int *err) {
  cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)cl_weft_platform(), 0};
  *err = 12345;
  return clCreateContextFromType(props, type, NULL, NULL, err);
}

TEST(create_from_type) {
  cl_device_id d = cl_weft_device();
  static const cl_device_type types[] = {CL_DEVICE_TYPE_CPU,
                                         CL_DEVICE_TYPE_DEFAULT,
                                         CL_DEVICE_TYPE_ALL};
  for (size_t i = 0; i < 3; i++) {
    cl_int err;
    cl_context c = from_type(types[i], &err);
    CL_CHECK(err);
    cl_device_id got = NULL, want = d;
    CL_CHECK(clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof got, &got, NULL));
    /* The default device is the CPU unless WEFT_DEVICE chose a GPU. */
    if (types[i] == CL_DEVICE_TYPE_CPU)
      CL_CHECK(clGetDeviceIDs(cl_weft_platform(), CL_DEVICE_TYPE_CPU, 1,
                              &want, NULL));
    CHECK(got == want);
    cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)cl_weft_platform(), 0};
    check_properties(c, props, 3);
    CL_CHECK(clReleaseContext(c));
  }
}

TEST(create_from_type_not_found) {
  cl_uint all = 0;
  CL_CHECK(clGetDeviceIDs(cl_weft_platform(), CL_DEVICE_TYPE_ALL, 0, NULL, &all));
  cl_int err;
  if (all == 1) { /* no CUDA GPU */
    CHECK(from_type(CL_DEVICE_TYPE_GPU, &err) == NULL);
    CL_CHECK_ERR(err, CL_DEVICE_NOT_FOUND);
  }
  CHECK(from_type(CL_DEVICE_TYPE_ACCELERATOR, &err) == NULL);
  CL_CHECK_ERR(err, CL_DEVICE_NOT_FOUND);
  CHECK(from_type(0, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_DEVICE_TYPE);
  /* The platform first: the loader routes by it. */
  cl_context_properties bad[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)cl_weft_platform(), 0x7777, 1, 0};
  CHECK(clCreateContextFromType(bad, CL_DEVICE_TYPE_CPU, NULL, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROPERTY);
  int data;
  cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, (cl_context_properties)cl_weft_platform(), 0};
  CHECK(clCreateContextFromType(props, CL_DEVICE_TYPE_CPU, NULL, &data, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
}

/* --------------------------------------------------------------- info */

TEST(info_errors) {
  cl_context c = cl_weft_context();
  cl_uint v;
  CL_CHECK_ERR(clGetContextInfo(c, 0x7777, sizeof v, &v, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof v - 1, &v,
                                NULL), CL_INVALID_VALUE);
  cl_device_id d;
  CL_CHECK_ERR(clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof d - 1, &d, NULL),
               CL_INVALID_VALUE);
  /* value NULL: the size only. */
  size_t size = 0;
  CL_CHECK(clGetContextInfo(c, CL_CONTEXT_DEVICES, 0, NULL, &size));
  CHECK_EQ(size, sizeof d);
  CL_CHECK_ERR(clGetContextInfo((cl_context)cl_weft_device(), CL_CONTEXT_NUM_DEVICES,
                                sizeof v, &v, NULL), CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clGetContextInfo(NULL, CL_CONTEXT_NUM_DEVICES, sizeof v, &v, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK(clReleaseContext(c));
}

/* ---------------------------------------------------------- references */

TEST(retain_release_counts) {
  cl_context c = cl_weft_context();
  CL_CHECK(clRetainContext(c));
  CL_CHECK(clRetainContext(c));
  CHECK_EQ(context_uint(c, CL_CONTEXT_REFERENCE_COUNT), 3);
  CL_CHECK(clReleaseContext(c));
  CHECK_EQ(context_uint(c, CL_CONTEXT_REFERENCE_COUNT), 2);
  CL_CHECK(clReleaseContext(c));
  CHECK_EQ(context_uint(c, CL_CONTEXT_REFERENCE_COUNT), 1);
  CL_CHECK(clReleaseContext(c));
  CL_CHECK_ERR(clRetainContext((cl_context)cl_weft_device()), CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clReleaseContext(NULL), CL_INVALID_CONTEXT);
}

/* Destructor callbacks: recorded in the order they run. */
typedef struct destructor_log {
  int order[8];
  int count;
  cl_context seen;
} destructor_log;

static destructor_log dlog;

static void CL_CALLBACK destructor_1(cl_context c, void *data) {
  dlog.order[dlog.count++] = 1;
  dlog.seen = c;
  CHECK(data == &dlog);
}
static void CL_CALLBACK destructor_2(cl_context c, void *data) {
  (void)c, (void)data;
  dlog.order[dlog.count++] = 2;
}
static void CL_CALLBACK destructor_3(cl_context c, void *data) {
  (void)c, (void)data;
  dlog.order[dlog.count++] = 3;
}

TEST(destructor_callbacks_reverse_order_at_last_release) {
  cl_context c = cl_weft_context();
  CL_CHECK(clSetContextDestructorCallback(c, destructor_1, &dlog));
  CL_CHECK(clSetContextDestructorCallback(c, destructor_2, NULL));
  CL_CHECK(clSetContextDestructorCallback(c, destructor_3, NULL));
  CL_CHECK(clRetainContext(c));
  CL_CHECK(clReleaseContext(c));
  CHECK_EQ(dlog.count, 0);
  CL_CHECK(clReleaseContext(c));
  CHECK_EQ(dlog.count, 3);
  CHECK_EQ(dlog.order[0], 3);
  CHECK_EQ(dlog.order[1], 2);
  CHECK_EQ(dlog.order[2], 1);
  CHECK(dlog.seen == c);
}

/* A buffer keeps its context: the destructor waits for the buffer. */
TEST(destructor_waits_for_objects) {
  cl_context c = cl_weft_context();
  CL_CHECK(clSetContextDestructorCallback(c, destructor_2, NULL));
  cl_mem m = cl_buffer(c, 64, NULL);
  CL_CHECK(clReleaseContext(c));
  CHECK_EQ(dlog.count, 0);
  cl_context owner = NULL;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof owner, &owner, NULL));
  CHECK(owner == c);
  CL_CHECK(clReleaseMemObject(m));
  CHECK_EQ(dlog.count, 1);
}

TEST(destructor_callback_errors) {
  cl_context c = cl_weft_context();
  CL_CHECK_ERR(clSetContextDestructorCallback(c, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clSetContextDestructorCallback((cl_context)cl_weft_device(),
                                              destructor_2, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK(clReleaseContext(c));
}

/* ------------------------------------------------------------- notify */

/* What the notification callback was told; it may run on any thread. */
typedef struct notes {
  pthread_mutex_t lock;
  char text[4096];
  int count;
  void *user_data;
} notes;

static notes received = {PTHREAD_MUTEX_INITIALIZER, "", 0, NULL};

static void CL_CALLBACK note(const char *message, const void *info, size_t size,
                             void *user_data) {
  (void)info, (void)size;
  pthread_mutex_lock(&received.lock);
  size_t used = strlen(received.text);
  snprintf(received.text + used, sizeof received.text - used, "%s\n", message);
  received.count++;
  received.user_data = user_data;
  pthread_mutex_unlock(&received.lock);
}

static cl_context noted_context(void) {
  cl_device_id d = cl_weft_device();
  cl_int err;
  cl_context c = clCreateContext(NULL, 1, &d, note, &received, &err);
  CL_CHECK(err);
  return c;
}

TEST(notify_on_build_failure) {
  cl_context c = noted_context();
  const char *source = "__kernel void k(__global int *a) { a[0] = nope; }\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(c, 1, &source, NULL, &err);
  CL_CHECK(err);
  CL_CHECK_ERR(clBuildProgram(p, 0, NULL, "", NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
  CHECK(received.count >= 1);
  CHECK(received.user_data == &received);
  CHECK_STR_CONTAINS(received.text, "nope");
  clReleaseProgram(p);
  clReleaseContext(c);
}

TEST(notify_on_kernel_crash) {
  cl_context c = noted_context();
  cl_command_queue q = cl_weft_queue(c, 0);
  cl_kernel k = cl_kernel_from(c,
      "__kernel void crasher(__global int *a) {\n"
      "  __global int *volatile p = 0;\n"
      "  if (get_global_id(0) == 5) p[get_global_id(0)] = 1;\n"
      "  a[get_global_id(0)] = 2;\n"
      "}\n", "crasher");
  cl_mem m = cl_buffer(c, 64 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global = 64;
  cl_event e;
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &e));
  CL_CHECK_ERR(clWaitForEvents(1, &e), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
  clFinish(q);
  pthread_mutex_lock(&received.lock);
  CHECK(received.count >= 1);
  CHECK_STR_CONTAINS(received.text, "crasher");
  pthread_mutex_unlock(&received.lock);
  clReleaseEvent(e);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  clReleaseContext(c);
}

/* A context without a callback just reports the error code. */
TEST(no_notify_is_fine) {
  cl_context c = cl_weft_context();
  const char *source = "__kernel void k() { nope; }\n";
  cl_int err;
  cl_program p = clCreateProgramWithSource(c, 1, &source, NULL, &err);
  CL_CHECK(err);
  CL_CHECK_ERR(clBuildProgram(p, 0, NULL, "", NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
  clReleaseProgram(p);
  clReleaseContext(c);
}

TEST_MAIN()
