/* test_cl_buffer.c: buffers and sub-buffers: creation flags and sizes,
 * queries, host pointers, and every command that moves their bytes (read,
 * write, copy, fill, map, the rectangle forms, migrate), each checked
 * against the same operation done on the host; and the host access flags
 * those commands must honour. */
#include "cl_support.h"

typedef cl_env env;

static env setup(void) { return cl_env_open(); }
static void teardown(env *e) { cl_env_close(e); }

static cl_mem make(env *e, cl_mem_flags flags, size_t size, void *host) {
  cl_int err = 12345;
  cl_mem m = clCreateBuffer(e->ctx, flags, size, host, &err);
  if (err != CL_SUCCESS) FAIL("clCreateBuffer(0x%llx, %zu): %s",
                              (unsigned long long)flags, size, cl_error_name(err));
  CHECK(m != NULL);
  return m;
}

/* The error clCreateBuffer gives, checking it returns NULL then. */
static cl_int create_error(env *e, cl_mem_flags flags, size_t size, void *host) {
  cl_int err = 12345;
  cl_mem m = clCreateBuffer(e->ctx, flags, size, host, &err);
  if (err == CL_SUCCESS) clReleaseMemObject(m);
  else CHECK(m == NULL);
  return err;
}

/* Reads a buffer whatever its host access flags: through a copy. */
static void read_any(env *e, cl_mem m, size_t offset, size_t size, void *out) {
  cl_mem plain = make(e, 0, size, NULL);
  CL_CHECK(clEnqueueCopyBuffer(e->q, m, plain, offset, 0, size, 0, NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(e->q, plain, CL_TRUE, 0, size, out, 0, NULL, NULL));
  CL_CHECK(clReleaseMemObject(plain));
}

static cl_mem_flags mem_flags(cl_mem m) {
  cl_mem_flags f = 0;
  size_t size = 0;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof f, &f, &size));
  CHECK_EQ(size, sizeof f);
  return f;
}

static cl_uint mem_uint(cl_mem m, cl_mem_info param) {
  cl_uint v = 0;
  size_t size = 0;
  CL_CHECK(clGetMemObjectInfo(m, param, sizeof v, &v, &size));
  CHECK_EQ(size, sizeof v);
  return v;
}

static void *mem_host_ptr(cl_mem m) {
  void *p = (void *)1;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof p, &p, NULL));
  return p;
}

static size_t base_align(env *e) {
  cl_uint bits = 0;
  CL_CHECK(clGetDeviceInfo(e->dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits,
                           &bits, NULL));
  return bits / 8;
}

static void fill_pattern(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 31 + seed * 7 + 1);
}

/* Runs "a[i] = a[i] * 3 + i" over n ints of m. */
static void triple_plus_index(env *e, cl_mem m, size_t n) {
  cl_kernel k = cl_kernel_from(e->ctx,
      "__kernel void k(__global int *a) {\n"
      "  size_t i = get_global_id(0);\n"
      "  a[i] = a[i] * 3 + (int)i;\n"
      "}\n", "k");
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clEnqueueNDRangeKernel(e->q, k, 1, NULL, &n, NULL, 0, NULL, NULL));
  CL_CHECK(clFinish(e->q));
  CL_CHECK(clReleaseKernel(k));
}

#define ACCESS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOST_PTR_FLAGS (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)
#define HOST_ACCESS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)

/* ------------------------------------------------------------- create */

/* Every valid combination of access, host pointer and host access flags
 * creates a buffer that reports them and holds what it should. */
TEST(create_every_valid_flag_combination) {
  env e = setup();
  static const cl_mem_flags access[] = {0, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY,
                                        CL_MEM_READ_ONLY};
  static const cl_mem_flags host_ptr[] = {
      0, CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
      CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR};
  static const cl_mem_flags host_access[] = {0, CL_MEM_HOST_WRITE_ONLY,
                                             CL_MEM_HOST_READ_ONLY,
                                             CL_MEM_HOST_NO_ACCESS};
  enum { SIZE = 1000 };
  unsigned char data[SIZE], got[SIZE];
  for (size_t a = 0; a < 4; a++)
    for (size_t h = 0; h < 5; h++)
      for (size_t x = 0; x < 4; x++) {
        cl_mem_flags flags = access[a] | host_ptr[h] | host_access[x];
        fill_pattern(data, SIZE, (unsigned)(a * 20 + h * 4 + x));
        int given = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
        cl_mem m = make(&e, flags, SIZE, given ? data : NULL);
        /* Reported as given; no access flag means CL_MEM_READ_WRITE. */
        cl_mem_flags want = flags | (access[a] ? 0 : CL_MEM_READ_WRITE);
        if (mem_flags(m) != want)
          FAIL("flags 0x%llx reported as 0x%llx", (unsigned long long)flags,
               (unsigned long long)mem_flags(m));
        void *hp = mem_host_ptr(m);
        CHECK(hp == (flags & CL_MEM_USE_HOST_PTR ? (void *)data : NULL));
        size_t size = 0;
        CL_CHECK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL));
        CHECK_EQ(size, SIZE);
        if (given) {
          read_any(&e, m, 0, SIZE, got);
          CHECK(!memcmp(got, data, SIZE));
        }
        CL_CHECK(clReleaseMemObject(m));
      }
  teardown(&e);
}

TEST(create_invalid_flags) {
  env e = setup();
  char host[64];
  static const cl_mem_flags bad[] = {
      CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY,
      CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY,
      CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY,
      CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY,
      (cl_mem_flags)1 << 20, CL_MEM_SVM_FINE_GRAIN_BUFFER};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    if (create_error(&e, bad[i], 64, NULL) != CL_INVALID_VALUE)
      FAIL("flags 0x%llx accepted", (unsigned long long)bad[i]);
  /* USE_HOST_PTR excludes the other two host pointer flags. */
  CL_CHECK_ERR(create_error(&e, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, 64,
                            host), CL_INVALID_VALUE);
  CL_CHECK_ERR(create_error(&e, CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64,
                            host), CL_INVALID_VALUE);
  teardown(&e);
}

TEST(create_invalid_sizes) {
  env e = setup();
  cl_ulong max = 0;
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max,
                           &max, NULL));
  CL_CHECK_ERR(create_error(&e, 0, 0, NULL), CL_INVALID_BUFFER_SIZE);
  CL_CHECK_ERR(create_error(&e, CL_MEM_READ_ONLY, (size_t)max + 1, NULL),
               CL_INVALID_BUFFER_SIZE);
  CL_CHECK_ERR(create_error(&e, 0, SIZE_MAX, NULL), CL_INVALID_BUFFER_SIZE);
  /* Odd small sizes are fine. */
  static const size_t sizes[] = {1, 3, 7, 4097};
  for (size_t i = 0; i < 4; i++) {
    cl_mem m = make(&e, 0, sizes[i], NULL);
    unsigned char c = 0x5A, back = 0;
    CL_CHECK(clEnqueueWriteBuffer(e.q, m, CL_TRUE, sizes[i] - 1, 1, &c, 0, NULL, NULL));
    CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, sizes[i] - 1, 1, &back, 0, NULL, NULL));
    CHECK_EQ(back, 0x5A);
    CL_CHECK(clReleaseMemObject(m));
  }
  teardown(&e);
}

TEST(create_host_ptr_mismatch) {
  env e = setup();
  char host[64];
  CL_CHECK_ERR(create_error(&e, 0, 64, host), CL_INVALID_HOST_PTR);
  CL_CHECK_ERR(create_error(&e, CL_MEM_READ_WRITE, 64, host), CL_INVALID_HOST_PTR);
  CL_CHECK_ERR(create_error(&e, CL_MEM_ALLOC_HOST_PTR, 64, host), CL_INVALID_HOST_PTR);
  CL_CHECK_ERR(create_error(&e, CL_MEM_USE_HOST_PTR, 64, NULL), CL_INVALID_HOST_PTR);
  CL_CHECK_ERR(create_error(&e, CL_MEM_COPY_HOST_PTR, 64, NULL), CL_INVALID_HOST_PTR);
  CL_CHECK_ERR(create_error(&e, CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, 64,
                            NULL), CL_INVALID_HOST_PTR);
  teardown(&e);
}

TEST(create_invalid_context) {
  cl_int err = 0;
  char host[16];
  CHECK(clCreateBuffer((cl_context)cl_weft_device(), 0, 16, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_CONTEXT);
  CHECK(clCreateBuffer(NULL, CL_MEM_COPY_HOST_PTR, 16, host, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_CONTEXT);
}

/* COPY_HOST_PTR copies: later changes to the host memory are not seen. */
TEST(copy_host_ptr_copies) {
  env e = setup();
  int host[64], got[64];
  for (int i = 0; i < 64; i++) host[i] = i * i;
  cl_mem m = make(&e, CL_MEM_COPY_HOST_PTR, sizeof host, host);
  for (int i = 0; i < 64; i++) host[i] = -1;
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < 64; i++) CHECK_EQ(got[i], i * i);
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

/* USE_HOST_PTR: the buffer is the host memory; a kernel's writes land in
 * it, and a map returns a pointer into it. */
TEST(use_host_ptr_aliases_host_memory) {
  env e = setup();
  enum { N = 1024 };
  int *host = malloc(N * sizeof *host);
  for (int i = 0; i < N; i++) host[i] = i;
  cl_mem m = make(&e, CL_MEM_USE_HOST_PTR, N * sizeof *host, host);
  CHECK(mem_host_ptr(m) == host);
  triple_plus_index(&e, m, N);
  int *mapped = clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_READ, 16 * sizeof(int),
                                   64 * sizeof(int), 0, NULL, NULL, NULL);
  CHECK(mapped == host + 16);
  for (int i = 0; i < N; i++) CHECK_EQ(host[i], i * 3 + i);
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, mapped, 0, NULL, NULL));
  /* And host writes are what the next kernel reads. */
  for (int i = 0; i < N; i++) host[i] = 1;
  triple_plus_index(&e, m, N);
  for (int i = 0; i < N; i++) CHECK_EQ(host[i], 3 + i);
  CL_CHECK(clReleaseMemObject(m));
  free(host);
  teardown(&e);
}

TEST(create_with_properties) {
  env e = setup();
  cl_int err;
  cl_mem m = clCreateBufferWithProperties(e.ctx, NULL, 0, 64, NULL, &err);
  CL_CHECK(err);
  size_t size = 99;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, NULL, &size));
  CHECK_EQ(size, 0); /* NULL properties: none to return */
  CL_CHECK(clReleaseMemObject(m));
  /* An empty list is returned as given: one 0. */
  cl_mem_properties empty[] = {0};
  m = clCreateBufferWithProperties(e.ctx, empty, CL_MEM_READ_ONLY, 64, NULL, &err);
  CL_CHECK(err);
  cl_mem_properties got[4] = {7, 7, 7, 7};
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, sizeof got, got, &size));
  CHECK_EQ(size, sizeof(cl_mem_properties));
  CHECK_EQ(got[0], 0);
  CHECK_EQ(mem_flags(m), CL_MEM_READ_ONLY);
  CL_CHECK(clReleaseMemObject(m));
  /* Buffers made by clCreateBuffer have none. */
  m = make(&e, 0, 64, NULL);
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, NULL, &size));
  CHECK_EQ(size, 0);
  CL_CHECK(clReleaseMemObject(m));
  cl_mem_properties unknown[] = {0x7777, 1, 0};
  CHECK(clCreateBufferWithProperties(e.ctx, unknown, 0, 64, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_PROPERTY);
  /* The other checks still apply. */
  CHECK(clCreateBufferWithProperties(e.ctx, NULL, 0, 0, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_BUFFER_SIZE);
  teardown(&e);
}

/* --------------------------------------------------------------- info */

TEST(mem_object_info_every_param) {
  env e = setup();
  cl_mem m = make(&e, CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY, 256, NULL);
  cl_mem_object_type type = 0;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_MEM_OBJECT_BUFFER);
  CHECK_EQ(mem_flags(m), CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY);
  size_t size = 0, ret = 0;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, &ret));
  CHECK_EQ(size, 256);
  CHECK_EQ(ret, sizeof size);
  CHECK(mem_host_ptr(m) == NULL);
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 0);
  CHECK_EQ(mem_uint(m, CL_MEM_REFERENCE_COUNT), 1);
  cl_context c = NULL;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, &ret));
  CHECK(c == e.ctx);
  CHECK_EQ(ret, sizeof c);
  cl_mem parent = (cl_mem)1;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent,
                              &parent, NULL));
  CHECK(parent == NULL);
  size_t offset = 99;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  CHECK_EQ(offset, 0);
  cl_bool svm = CL_TRUE;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof svm, &svm, &ret));
  CHECK_EQ(svm, CL_FALSE);
  CHECK_EQ(ret, sizeof svm);
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, NULL, &ret));
  CHECK_EQ(ret, 0);
  /* Errors. */
  CL_CHECK_ERR(clGetMemObjectInfo(m, 0x7777, sizeof size, &size, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size - 1, &size, NULL),
               CL_INVALID_VALUE);
  /* An image query is not a memory object query. */
  CL_CHECK_ERR(clGetMemObjectInfo(m, CL_IMAGE_WIDTH, sizeof size, &size, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetMemObjectInfo((cl_mem)e.ctx, CL_MEM_SIZE, sizeof size, &size,
                                  NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clGetMemObjectInfo(NULL, CL_MEM_SIZE, sizeof size, &size, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

TEST(retain_release_counts) {
  env e = setup();
  cl_mem m = make(&e, 0, 64, NULL);
  CL_CHECK(clRetainMemObject(m));
  CL_CHECK(clRetainMemObject(m));
  CHECK_EQ(mem_uint(m, CL_MEM_REFERENCE_COUNT), 3);
  CL_CHECK(clReleaseMemObject(m));
  CHECK_EQ(mem_uint(m, CL_MEM_REFERENCE_COUNT), 2);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK_ERR(clRetainMemObject((cl_mem)e.q), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clReleaseMemObject(NULL), CL_INVALID_MEM_OBJECT);
  teardown(&e);
}

/* Destructor callbacks, recorded in the order they run. */
static int destructor_order[8], destructor_count;
static void *destructor_freed;

static void CL_CALLBACK destructor_a(cl_mem m, void *data) {
  (void)m;
  destructor_order[destructor_count++] = 1;
  /* The callback may free a USE_HOST_PTR buffer's memory. */
  destructor_freed = data;
  free(data);
}
static void CL_CALLBACK destructor_b(cl_mem m, void *data) {
  (void)m, (void)data;
  destructor_order[destructor_count++] = 2;
}

TEST(destructor_callbacks) {
  env e = setup();
  void *host = malloc(256);
  cl_mem m = make(&e, CL_MEM_USE_HOST_PTR, 256, host);
  CL_CHECK(clSetMemObjectDestructorCallback(m, destructor_a, host));
  CL_CHECK(clSetMemObjectDestructorCallback(m, destructor_b, NULL));
  CL_CHECK(clRetainMemObject(m));
  CL_CHECK(clReleaseMemObject(m));
  CHECK_EQ(destructor_count, 0);
  CL_CHECK(clReleaseMemObject(m));
  CHECK_EQ(destructor_count, 2);
  CHECK_EQ(destructor_order[0], 2); /* the last registered runs first */
  CHECK_EQ(destructor_order[1], 1);
  CHECK(destructor_freed == host);
  CL_CHECK_ERR(clSetMemObjectDestructorCallback((cl_mem)e.ctx, destructor_b, NULL),
               CL_INVALID_MEM_OBJECT);
  cl_mem other = make(&e, 0, 16, NULL);
  CL_CHECK_ERR(clSetMemObjectDestructorCallback(other, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK(clReleaseMemObject(other));
  teardown(&e);
}

/* A sub-buffer keeps its parent: the parent's destructor waits for it. */
TEST(destructor_waits_for_sub_buffers) {
  env e = setup();
  cl_mem parent = make(&e, 0, 4 * base_align(&e), NULL);
  CL_CHECK(clSetMemObjectDestructorCallback(parent, destructor_b, NULL));
  cl_buffer_region r = {base_align(&e), base_align(&e)};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  CL_CHECK(err);
  CL_CHECK(clReleaseMemObject(parent));
  CHECK_EQ(destructor_count, 0);
  int v = 42, back = 0;
  CL_CHECK(clEnqueueWriteBuffer(e.q, sub, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(e.q, sub, CL_TRUE, 0, sizeof v, &back, 0, NULL, NULL));
  CHECK_EQ(back, 42);
  CL_CHECK(clReleaseMemObject(sub));
  CHECK_EQ(destructor_count, 1);
  teardown(&e);
}

/* -------------------------------------------------------- sub-buffers */

static cl_mem sub_buffer(cl_mem parent, cl_mem_flags flags, size_t origin,
                         size_t size, cl_int *err) {
  cl_buffer_region r = {origin, size};
  *err = 12345;
  cl_mem m = clCreateSubBuffer(parent, flags, CL_BUFFER_CREATE_TYPE_REGION, &r, err);
  if (*err != CL_SUCCESS) CHECK(m == NULL);
  return m;
}

TEST(sub_buffer_queries_and_aliasing) {
  env e = setup();
  size_t align = base_align(&e);
  CHECK(align >= 1);
  size_t total = 4 * align;
  unsigned char *data = malloc(total), *got = malloc(total);
  fill_pattern(data, total, 3);
  cl_mem parent = make(&e, CL_MEM_COPY_HOST_PTR, total, data);
  cl_int err;
  cl_mem sub = sub_buffer(parent, 0, align, 2 * align, &err);
  CL_CHECK(err);
  cl_mem assoc = NULL;
  CL_CHECK(clGetMemObjectInfo(sub, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc,
                              &assoc, NULL));
  CHECK(assoc == parent);
  size_t offset = 0, size = 0;
  CL_CHECK(clGetMemObjectInfo(sub, CL_MEM_OFFSET, sizeof offset, &offset, NULL));
  CHECK_EQ(offset, align);
  CL_CHECK(clGetMemObjectInfo(sub, CL_MEM_SIZE, sizeof size, &size, NULL));
  CHECK_EQ(size, 2 * align);
  cl_mem_object_type type = 0;
  CL_CHECK(clGetMemObjectInfo(sub, CL_MEM_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_MEM_OBJECT_BUFFER);
  /* The sub-buffer sees the parent's bytes... */
  CL_CHECK(clEnqueueReadBuffer(e.q, sub, CL_TRUE, 0, 2 * align, got, 0, NULL, NULL));
  CHECK(!memcmp(got, data + align, 2 * align));
  /* ...and its writes are the parent's. */
  unsigned char patch[5] = {9, 8, 7, 6, 5};
  CL_CHECK(clEnqueueWriteBuffer(e.q, sub, CL_TRUE, 3, 5, patch, 0, NULL, NULL));
  memcpy(data + align + 3, patch, 5);
  CL_CHECK(clEnqueueReadBuffer(e.q, parent, CL_TRUE, 0, total, got, 0, NULL, NULL));
  CHECK(!memcmp(got, data, total));
  /* The sub-buffer holds a reference to its parent. */
  cl_uint refs = mem_uint(parent, CL_MEM_REFERENCE_COUNT);
  CHECK(refs >= 2);
  CL_CHECK(clReleaseMemObject(sub));
  CHECK_EQ(mem_uint(parent, CL_MEM_REFERENCE_COUNT), refs - 1);
  CL_CHECK(clReleaseMemObject(parent));
  free(data), free(got);
  teardown(&e);
}

/* A kernel writing through a sub-buffer writes the parent's bytes. */
TEST(sub_buffer_kernel_writes_parent) {
  env e = setup();
  size_t align = base_align(&e);
  size_t n = 3 * align / sizeof(int);
  int *data = malloc(n * sizeof *data), *got = malloc(n * sizeof *got);
  for (size_t i = 0; i < n; i++) data[i] = (int)i;
  cl_mem parent = make(&e, CL_MEM_COPY_HOST_PTR, n * sizeof(int), data);
  cl_int err;
  cl_mem sub = sub_buffer(parent, 0, align, align, &err);
  CL_CHECK(err);
  size_t sub_n = align / sizeof(int), first = align / sizeof(int);
  triple_plus_index(&e, sub, sub_n);
  CL_CHECK(clEnqueueReadBuffer(e.q, parent, CL_TRUE, 0, n * sizeof(int), got, 0,
                               NULL, NULL));
  for (size_t i = 0; i < n; i++) {
    int want = i >= first && i < first + sub_n ? (int)(i * 3 + (i - first)) : (int)i;
    CHECK_EQ(got[i], want);
  }
  CL_CHECK(clReleaseMemObject(sub));
  CL_CHECK(clReleaseMemObject(parent));
  free(data), free(got);
  teardown(&e);
}

TEST(sub_buffer_region_errors) {
  env e = setup();
  size_t align = base_align(&e);
  cl_mem parent = make(&e, 0, 4 * align, NULL);
  cl_int err;
  if (align > 1) {
    sub_buffer(parent, 0, align / 2, 16, &err);
    CL_CHECK_ERR(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
    sub_buffer(parent, 0, 1, 16, &err);
    CL_CHECK_ERR(err, CL_MISALIGNED_SUB_BUFFER_OFFSET);
  }
  sub_buffer(parent, 0, 0, 4 * align + 1, &err);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  sub_buffer(parent, 0, 4 * align, 1, &err);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  sub_buffer(parent, 0, 2 * align, SIZE_MAX - align, &err);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  sub_buffer(parent, 0, align, 0, &err);
  CL_CHECK_ERR(err, CL_INVALID_BUFFER_SIZE);
  /* The whole parent, and its last aligned piece, are fine. */
  cl_mem whole = sub_buffer(parent, 0, 0, 4 * align, &err);
  CL_CHECK(err);
  cl_mem last = sub_buffer(parent, 0, 3 * align, align, &err);
  CL_CHECK(err);
  /* A sub-buffer of a sub-buffer is refused. */
  sub_buffer(whole, 0, 0, 16, &err);
  CL_CHECK_ERR(err, CL_INVALID_MEM_OBJECT);
  cl_buffer_region r = {0, 16};
  CHECK(clCreateSubBuffer(parent, 0, 0x7777, &r, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  CHECK(clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  CHECK(clCreateSubBuffer((cl_mem)e.ctx, 0, CL_BUFFER_CREATE_TYPE_REGION, &r,
                          &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_MEM_OBJECT);
  CL_CHECK(clReleaseMemObject(last));
  CL_CHECK(clReleaseMemObject(whole));
  CL_CHECK(clReleaseMemObject(parent));
  teardown(&e);
}

/* What a sub-buffer does not say it inherits; what contradicts its parent
 * is refused (as the conformance suite computes it). */
TEST(sub_buffer_flags) {
  env e = setup();
  size_t align = base_align(&e);
  static const cl_mem_flags parents[] = {
      CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
      CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
      CL_MEM_WRITE_ONLY | CL_MEM_ALLOC_HOST_PTR, CL_MEM_HOST_READ_ONLY,
      CL_MEM_HOST_WRITE_ONLY | CL_MEM_READ_ONLY, CL_MEM_HOST_NO_ACCESS};
  static const cl_mem_flags subs[] = {
      0, CL_MEM_READ_WRITE, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY,
      CL_MEM_HOST_READ_ONLY, CL_MEM_HOST_WRITE_ONLY, CL_MEM_HOST_NO_ACCESS,
      CL_MEM_READ_ONLY | CL_MEM_HOST_READ_ONLY};
  unsigned char *host = malloc(4 * align);
  for (size_t p = 0; p < sizeof parents / sizeof *parents; p++) {
    cl_mem_flags pf = parents[p];
    int needs_ptr = (pf & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
    cl_mem parent = make(&e, pf, 4 * align, needs_ptr ? host : NULL);
    cl_mem_flags pa = pf & ACCESS ? pf & ACCESS : CL_MEM_READ_WRITE;
    for (size_t s = 0; s < sizeof subs / sizeof *subs; s++) {
      cl_mem_flags sf = subs[s];
      int ok = 1;
      if ((sf & CL_MEM_READ_WRITE) && pa != CL_MEM_READ_WRITE) ok = 0;
      if ((sf & CL_MEM_READ_ONLY) && pa == CL_MEM_WRITE_ONLY) ok = 0;
      if ((sf & CL_MEM_WRITE_ONLY) && pa == CL_MEM_READ_ONLY) ok = 0;
      if ((sf & CL_MEM_HOST_READ_ONLY) &&
          (pf & (CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_WRITE_ONLY)))
        ok = 0;
      if ((sf & CL_MEM_HOST_WRITE_ONLY) &&
          (pf & (CL_MEM_HOST_NO_ACCESS | CL_MEM_HOST_READ_ONLY)))
        ok = 0;
      cl_int err;
      cl_mem sub = sub_buffer(parent, sf, align, align, &err);
      if (!ok) {
        if (err != CL_INVALID_VALUE)
          FAIL("parent 0x%llx, sub 0x%llx: %s", (unsigned long long)pf,
               (unsigned long long)sf, cl_error_name(err));
        continue;
      }
      if (err != CL_SUCCESS)
        FAIL("parent 0x%llx, sub 0x%llx: %s", (unsigned long long)pf,
             (unsigned long long)sf, cl_error_name(err));
      cl_mem_flags want = sf | (pf & HOST_PTR_FLAGS);
      if (!(sf & ACCESS)) want |= pa;
      if (!(sf & HOST_ACCESS)) want |= pf & HOST_ACCESS;
      if (mem_flags(sub) != want)
        FAIL("parent 0x%llx, sub 0x%llx: flags 0x%llx, expected 0x%llx",
             (unsigned long long)pf, (unsigned long long)sf,
             (unsigned long long)mem_flags(sub), (unsigned long long)want);
      void *hp = mem_host_ptr(sub);
      CHECK(hp == (pf & CL_MEM_USE_HOST_PTR ? (void *)(host + align) : NULL));
      CL_CHECK(clReleaseMemObject(sub));
    }
    CL_CHECK(clReleaseMemObject(parent));
  }
  /* Host pointer flags, and contradictory flags, are never a sub-buffer's. */
  cl_mem parent = make(&e, 0, 4 * align, NULL);
  static const cl_mem_flags bad[] = {
      CL_MEM_USE_HOST_PTR, CL_MEM_ALLOC_HOST_PTR, CL_MEM_COPY_HOST_PTR,
      CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
      CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, (cl_mem_flags)1 << 20};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cl_int err;
    sub_buffer(parent, bad[i], 0, align, &err);
    if (err != CL_INVALID_VALUE)
      FAIL("sub-buffer flags 0x%llx: %s", (unsigned long long)bad[i],
           cl_error_name(err));
  }
  CL_CHECK(clReleaseMemObject(parent));
  free(host);
  teardown(&e);
}

/* ------------------------------------------------- read, write, copy */

TEST(read_write_offsets) {
  env e = setup();
  enum { N = 1000 };
  unsigned char want[N], got[N], part[N];
  memset(want, 0, N);
  cl_mem m = make(&e, 0, N, NULL);
  CL_CHECK(clEnqueueWriteBuffer(e.q, m, CL_TRUE, 0, N, want, 0, NULL, NULL));
  /* Writes at odd offsets and sizes, mirrored on the host. */
  static const size_t at[][2] = {{3, 100}, {0, 1}, {999, 1}, {511, 77}, {200, 600}};
  for (size_t i = 0; i < 5; i++) {
    fill_pattern(part, at[i][1], (unsigned)i);
    CL_CHECK(clEnqueueWriteBuffer(e.q, m, CL_FALSE, at[i][0], at[i][1], part, 0,
                                  NULL, NULL));
    CL_CHECK(clFinish(e.q)); /* part is reused */
    memcpy(want + at[i][0], part, at[i][1]);
  }
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, N, got, 0, NULL, NULL));
  CHECK(!memcmp(got, want, N));
  /* Reads at offsets. */
  memset(got, 0, N);
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 257, 333, got, 0, NULL, NULL));
  CHECK(!memcmp(got, want + 257, 333));
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

TEST(read_write_errors) {
  env e = setup();
  char buf[128];
  cl_mem m = make(&e, 0, 64, NULL);
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, 65, buf, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, m, CL_TRUE, 64, 1, buf, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, m, CL_TRUE, 1, SIZE_MAX, buf, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, 0, buf, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, 8, NULL, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueWriteBuffer(e.q, m, CL_TRUE, 60, 8, buf, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueWriteBuffer(e.q, m, CL_TRUE, 0, 8, NULL, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, (cl_mem)e.q, CL_TRUE, 0, 8, buf, 0, NULL,
                                   NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueWriteBuffer(e.q, NULL, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  /* A buffer of another context. */
  cl_context other = cl_weft_context();
  cl_mem foreign = cl_buffer(other, 64, NULL);
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, foreign, CL_TRUE, 0, 8, buf, 0, NULL, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, m, foreign, 0, 0, 8, 0, NULL, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK(clReleaseMemObject(foreign));
  CL_CHECK(clReleaseContext(other));
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

TEST(copy_buffers) {
  env e = setup();
  enum { N = 512 };
  unsigned char a[N], b[N], got[N];
  fill_pattern(a, N, 1);
  fill_pattern(b, N, 2);
  cl_mem ma = make(&e, CL_MEM_COPY_HOST_PTR, N, a);
  cl_mem mb = make(&e, CL_MEM_COPY_HOST_PTR, N, b);
  CL_CHECK(clEnqueueCopyBuffer(e.q, ma, mb, 5, 300, 201, 0, NULL, NULL));
  memcpy(b + 300, a + 5, 201);
  /* Within one buffer, ranges that do not overlap. */
  CL_CHECK(clEnqueueCopyBuffer(e.q, ma, ma, 0, 256, 256, 0, NULL, NULL));
  memcpy(a + 256, a, 256);
  CL_CHECK(clEnqueueReadBuffer(e.q, mb, CL_TRUE, 0, N, got, 0, NULL, NULL));
  CHECK(!memcmp(got, b, N));
  CL_CHECK(clEnqueueReadBuffer(e.q, ma, CL_TRUE, 0, N, got, 0, NULL, NULL));
  CHECK(!memcmp(got, a, N));
  /* Errors. */
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, ma, ma, 0, 100, 101, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, ma, ma, 10, 10, 1, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, ma, mb, 0, 500, 13, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, ma, mb, 500, 0, 13, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, ma, mb, 0, 0, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, ma, (cl_mem)e.ctx, 0, 0, 8, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK(clReleaseMemObject(ma));
  CL_CHECK(clReleaseMemObject(mb));
  teardown(&e);
}

/* Sub-buffers of one parent overlap in memory: copies between them (or
 * with the parent) that touch the same bytes are refused. */
TEST(copy_overlap_through_sub_buffers) {
  env e = setup();
  size_t align = base_align(&e);
  unsigned char *data = malloc(4 * align), *got = malloc(4 * align);
  fill_pattern(data, 4 * align, 5);
  cl_mem parent = make(&e, CL_MEM_COPY_HOST_PTR, 4 * align, data);
  cl_int err;
  cl_mem s1 = sub_buffer(parent, 0, 0, 2 * align, &err);
  CL_CHECK(err);
  cl_mem s2 = sub_buffer(parent, 0, align, 2 * align, &err);
  CL_CHECK(err);
  /* s1[align..] and s2[0..] are the same bytes. */
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, s1, s2, align, 0, 16, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
  CL_CHECK_ERR(clEnqueueCopyBuffer(e.q, parent, s2, align + 8, 0, 16, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
  /* Disjoint bytes copy fine, into the parent's memory. */
  CL_CHECK(clEnqueueCopyBuffer(e.q, s1, s2, 0, align, 16, 0, NULL, NULL));
  memcpy(data + 2 * align, data, 16);
  CL_CHECK(clEnqueueReadBuffer(e.q, parent, CL_TRUE, 0, 4 * align, got, 0, NULL, NULL));
  CHECK(!memcmp(got, data, 4 * align));
  CL_CHECK(clReleaseMemObject(s1));
  CL_CHECK(clReleaseMemObject(s2));
  CL_CHECK(clReleaseMemObject(parent));
  free(data), free(got);
  teardown(&e);
}

/* ---------------------------------------------------------------- fill */

TEST(fill_every_pattern_size) {
  env e = setup();
  enum { N = 2048 };
  unsigned char want[N], got[N], pattern[128];
  cl_mem m = make(&e, 0, N, NULL);
  for (size_t ps = 1; ps <= 128; ps *= 2) {
    fill_pattern(pattern, ps, (unsigned)ps);
    memset(want, 0xEE, N);
    CL_CHECK(clEnqueueWriteBuffer(e.q, m, CL_TRUE, 0, N, want, 0, NULL, NULL));
    /* An offset and a size that are multiples of the pattern, not of 256. */
    size_t offset = ps * 3, size = ps * 5;
    CL_CHECK(clEnqueueFillBuffer(e.q, m, pattern, ps, offset, size, 0, NULL, NULL));
    for (size_t i = 0; i < size; i++) want[offset + i] = pattern[i % ps];
    CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, N, got, 0, NULL, NULL));
    if (memcmp(got, want, N)) FAIL("pattern of %zu bytes", ps);
  }
  /* Fills longer than the CPU's block of patterns (4 KiB, stored past the
   * caches 16 bytes at a time from a 16-byte boundary), at offsets off
   * that boundary. */
  enum { BIG = 3 * 4096 + 1024 };
  unsigned char *big_want = malloc(BIG), *big_got = malloc(BIG);
  CHECK(big_want && big_got);
  cl_mem big = make(&e, 0, BIG, NULL);
  for (size_t ps = 1; ps <= 128; ps *= 2) {
    fill_pattern(pattern, ps, (unsigned)ps + 1);
    memset(big_want, 0xEE, BIG);
    CL_CHECK(clEnqueueWriteBuffer(e.q, big, CL_TRUE, 0, BIG, big_want, 0, NULL, NULL));
    size_t offset = ps * 3, size = (BIG - offset) / ps * ps - ps;
    CL_CHECK(clEnqueueFillBuffer(e.q, big, pattern, ps, offset, size, 0, NULL, NULL));
    for (size_t i = 0; i < size; i++) big_want[offset + i] = pattern[i % ps];
    CL_CHECK(clEnqueueReadBuffer(e.q, big, CL_TRUE, 0, BIG, big_got, 0, NULL, NULL));
    if (memcmp(big_got, big_want, BIG)) FAIL("a long fill, pattern of %zu bytes", ps);
  }
  CL_CHECK(clReleaseMemObject(big));
  free(big_want), free(big_got);
  /* The pattern is copied at enqueue: the caller may reuse it at once. */
  int value = 7;
  cl_event ev;
  CL_CHECK(clEnqueueFillBuffer(e.q, m, &value, sizeof value, 0, N, 0, NULL, &ev));
  value = 9;
  CL_CHECK(clWaitForEvents(1, &ev));
  CL_CHECK(clReleaseEvent(ev));
  int ints[N / sizeof(int)];
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, N, ints, 0, NULL, NULL));
  for (size_t i = 0; i < N / sizeof(int); i++) CHECK_EQ(ints[i], 7);
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

TEST(fill_errors) {
  env e = setup();
  unsigned char pattern[256] = {0};
  cl_mem m = make(&e, 0, 1024, NULL);
  static const size_t bad_sizes[] = {0, 3, 6, 12, 48, 96, 256};
  for (size_t i = 0; i < sizeof bad_sizes / sizeof *bad_sizes; i++)
    if (clEnqueueFillBuffer(e.q, m, pattern, bad_sizes[i], 0, 768, 0, NULL, NULL) !=
        CL_INVALID_VALUE)
      FAIL("pattern size %zu accepted", bad_sizes[i]);
  /* Misaligned to the pattern: the offset, then the size. */
  CL_CHECK_ERR(clEnqueueFillBuffer(e.q, m, pattern, 4, 2, 8, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueFillBuffer(e.q, m, pattern, 16, 16, 24, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueFillBuffer(e.q, m, NULL, 4, 0, 8, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueFillBuffer(e.q, m, pattern, 4, 1020, 8, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueFillBuffer(e.q, m, pattern, 4, 0, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueFillBuffer(e.q, (cl_mem)e.ctx, pattern, 4, 0, 8, 0, NULL,
                                   NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

/* ---------------------------------------------------------------- maps */

TEST(map_read_and_write) {
  env e = setup();
  enum { N = 256 };
  int data[N], got[N];
  for (int i = 0; i < N; i++) data[i] = i * 5;
  cl_mem m = make(&e, CL_MEM_COPY_HOST_PTR, sizeof data, data);
  cl_int err = 12345;
  int *r = clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_READ, 8 * sizeof(int),
                              100 * sizeof(int), 0, NULL, NULL, &err);
  CL_CHECK(err);
  for (int i = 0; i < 100; i++) CHECK_EQ(r[i], (i + 8) * 5);
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 1);
  /* A second mapping, for writing, of other bytes. */
  cl_event mapped;
  int *w = clEnqueueMapBuffer(e.q, m, CL_FALSE, CL_MAP_WRITE, 200 * sizeof(int),
                              56 * sizeof(int), 0, NULL, &mapped, &err);
  CL_CHECK(err);
  CL_CHECK(clWaitForEvents(1, &mapped));
  cl_command_type type = 0;
  CL_CHECK(clGetEventInfo(mapped, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_MAP_BUFFER);
  CL_CHECK(clReleaseEvent(mapped));
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 2);
  for (int i = 0; i < 56; i++) w[i] = -i;
  cl_event unmapped;
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, w, 0, NULL, &unmapped));
  CL_CHECK(clWaitForEvents(1, &unmapped));
  CL_CHECK(clGetEventInfo(unmapped, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_UNMAP_MEM_OBJECT);
  CL_CHECK(clReleaseEvent(unmapped));
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, r, 0, NULL, NULL));
  CL_CHECK(clFinish(e.q));
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 0);
  for (int i = 0; i < 56; i++) data[200 + i] = -i;
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < N; i++) CHECK_EQ(got[i], data[i]);
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

TEST(map_write_invalidate_region) {
  env e = setup();
  enum { N = 64 };
  int data[N], got[N];
  for (int i = 0; i < N; i++) data[i] = i;
  cl_mem m = make(&e, CL_MEM_COPY_HOST_PTR, sizeof data, data);
  cl_int err;
  int *w = clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION,
                              16 * sizeof(int), 16 * sizeof(int), 0, NULL, NULL, &err);
  CL_CHECK(err);
  for (int i = 0; i < 16; i++) w[i] = 1000 + i;
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, w, 0, NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  /* The region holds what was written; the rest is untouched. */
  for (int i = 0; i < N; i++)
    CHECK_EQ(got[i], i >= 16 && i < 32 ? 1000 + (i - 16) : i);
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

/* A kernel's results are visible through a map made after it. */
TEST(map_sees_kernel_results) {
  env e = setup();
  enum { N = 300 };
  int data[N];
  for (int i = 0; i < N; i++) data[i] = 2;
  cl_mem m = make(&e, CL_MEM_COPY_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, sizeof data, data);
  triple_plus_index(&e, m, N);
  cl_int err;
  int *r = clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                              sizeof data, 0, NULL, NULL, &err);
  CL_CHECK(err);
  for (int i = 0; i < N; i++) CHECK_EQ(r[i], 6 + i);
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, r, 0, NULL, NULL));
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

/* A map enqueued behind a write that has not run yet sees what the write
 * wrote (on a GPU the map's copy is read when the map runs, not when it
 * is enqueued). */
TEST(map_sees_earlier_commands) {
  env e = setup();
  cl_mem m = make(&e, CL_MEM_READ_WRITE, 64, NULL);
  cl_int err;
  cl_event gate = clCreateUserEvent(e.ctx, &err);
  CL_CHECK(err);
  unsigned char bytes[64];
  memset(bytes, 0x5a, sizeof bytes);
  CL_CHECK(clEnqueueWriteBuffer(e.q, m, CL_FALSE, 0, sizeof bytes, bytes, 1,
                                &gate, NULL));
  cl_event mapped;
  unsigned char *p = clEnqueueMapBuffer(e.q, m, CL_FALSE, CL_MAP_READ, 8, 16, 0,
                                        NULL, &mapped, &err);
  CL_CHECK(err);
  CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
  CL_CHECK(clWaitForEvents(1, &mapped));
  for (int i = 0; i < 16; i++) CHECK_EQ(p[i], 0x5a);
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, p, 0, NULL, NULL));
  CL_CHECK(clFinish(e.q));
  CL_CHECK(clReleaseEvent(mapped));
  CL_CHECK(clReleaseEvent(gate));
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

TEST(map_errors) {
  env e = setup();
  cl_mem m = make(&e, 0, 256, NULL);
  cl_int err;
  CHECK(clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_READ, 0, 0, 0, NULL, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  CHECK(clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_READ, 200, 57, 0, NULL, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  CHECK(clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION,
                           0, 16, 0, NULL, NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  CHECK(clEnqueueMapBuffer(e.q, m, CL_TRUE, (cl_map_flags)1 << 9, 0, 16, 0, NULL,
                           NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_VALUE);
  CHECK(clEnqueueMapBuffer(e.q, (cl_mem)e.ctx, CL_TRUE, CL_MAP_READ, 0, 16, 0, NULL,
                           NULL, &err) == NULL);
  CL_CHECK_ERR(err, CL_INVALID_MEM_OBJECT);
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 0);
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

/* Unmapping what was never mapped (or was unmapped already) is refused at
 * once, and changes nothing. */
TEST(unmap_errors) {
  env e = setup();
  cl_mem m = make(&e, 0, 256, NULL), other = make(&e, 0, 256, NULL);
  int local;
  CL_CHECK_ERR(clEnqueueUnmapMemObject(e.q, m, &local, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueUnmapMemObject(e.q, m, NULL, 0, NULL, NULL),
               CL_INVALID_VALUE);
  cl_int err;
  char *p = clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_WRITE, 16, 32, 0, NULL,
                               NULL, &err);
  CL_CHECK(err);
  /* Another buffer's mapping, and a pointer inside the mapping. */
  CL_CHECK_ERR(clEnqueueUnmapMemObject(e.q, other, p, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueUnmapMemObject(e.q, m, p + 4, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 1);
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, p, 0, NULL, NULL));
  CL_CHECK_ERR(clEnqueueUnmapMemObject(e.q, m, p, 0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK(clFinish(e.q));
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 0);
  /* The same range mapped twice is two mappings, unmapped one at a time. */
  char *p1 = clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
  CL_CHECK(err);
  char *p2 = clEnqueueMapBuffer(e.q, m, CL_TRUE, CL_MAP_READ, 0, 64, 0, NULL, NULL, &err);
  CL_CHECK(err);
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 2);
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, p1, 0, NULL, NULL));
  CL_CHECK(clEnqueueUnmapMemObject(e.q, m, p2, 0, NULL, NULL));
  CL_CHECK_ERR(clEnqueueUnmapMemObject(e.q, m, p1, 0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK(clFinish(e.q));
  CHECK_EQ(mem_uint(m, CL_MEM_MAP_COUNT), 0);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseMemObject(other));
  teardown(&e);
}

TEST(map_sub_buffer) {
  env e = setup();
  size_t align = base_align(&e);
  unsigned char *data = malloc(3 * align);
  fill_pattern(data, 3 * align, 9);
  cl_mem parent = make(&e, CL_MEM_COPY_HOST_PTR, 3 * align, data);
  cl_int err;
  cl_mem sub = sub_buffer(parent, 0, align, align, &err);
  CL_CHECK(err);
  unsigned char *p = clEnqueueMapBuffer(e.q, sub, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
                                        4, align - 4, 0, NULL, NULL, &err);
  CL_CHECK(err);
  CHECK(!memcmp(p, data + align + 4, align - 4));
  p[0] = 0xFF;
  CL_CHECK(clEnqueueUnmapMemObject(e.q, sub, p, 0, NULL, NULL));
  unsigned char back = 0;
  CL_CHECK(clEnqueueReadBuffer(e.q, parent, CL_TRUE, align + 4, 1, &back, 0, NULL, NULL));
  CHECK_EQ(back, 0xFF);
  CL_CHECK(clReleaseMemObject(sub));
  CL_CHECK(clReleaseMemObject(parent));
  free(data);
  teardown(&e);
}

/* ---------------------------------------------------------- rectangles */

/* The host's answer: copies region bytes x rows x slices between two
 * pitched layouts. */
static void host_rect(unsigned char *dst, const size_t *dst_origin, size_t dst_row,
                      size_t dst_slice, const unsigned char *src,
                      const size_t *src_origin, size_t src_row, size_t src_slice,
                      const size_t *region) {
  for (size_t z = 0; z < region[2]; z++)
    for (size_t y = 0; y < region[1]; y++)
      memcpy(dst + (dst_origin[2] + z) * dst_slice + (dst_origin[1] + y) * dst_row +
                 dst_origin[0],
             src + (src_origin[2] + z) * src_slice + (src_origin[1] + y) * src_row +
                 src_origin[0],
             region[0]);
}

TEST(rect_read_2d_and_3d) {
  env e = setup();
  enum { N = 4096 };
  unsigned char data[N], got[N], want[N];
  fill_pattern(data, N, 11);
  cl_mem m = make(&e, CL_MEM_COPY_HOST_PTR, N, data);
  /* 2D: 13 bytes x 7 rows from a buffer of 40-byte rows. */
  size_t b_origin[3] = {5, 3, 0}, h_origin[3] = {2, 1, 0}, region[3] = {13, 7, 1};
  memset(got, 0, N);
  memset(want, 0, N);
  CL_CHECK(clEnqueueReadBufferRect(e.q, m, CL_TRUE, b_origin, h_origin, region, 40,
                                   0, 20, 0, got, 0, NULL, NULL));
  host_rect(want, h_origin, 20, 20 * 7 + 20, data, b_origin, 40, 40 * 10, region);
  CHECK(!memcmp(got, want, N));
  /* 3D: 6 x 4 x 3 with slice pitches. */
  size_t b3[3] = {1, 2, 1}, h3[3] = {0, 1, 2}, r3[3] = {6, 4, 3};
  memset(got, 0, N);
  memset(want, 0, N);
  CL_CHECK(clEnqueueReadBufferRect(e.q, m, CL_TRUE, b3, h3, r3, 16, 128, 8, 48, got,
                                   0, NULL, NULL));
  host_rect(want, h3, 8, 48, data, b3, 16, 128, r3);
  CHECK(!memcmp(got, want, N));
  /* Pitches of 0: tightly packed (region[0], region[1] * row). */
  size_t zero[3] = {0, 0, 0};
  memset(got, 0, N);
  memset(want, 0, N);
  CL_CHECK(clEnqueueReadBufferRect(e.q, m, CL_TRUE, zero, zero, r3, 0, 0, 0, 0, got,
                                   0, NULL, NULL));
  host_rect(want, zero, 6, 24, data, zero, 6, 24, r3);
  CHECK(!memcmp(got, want, N));
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

TEST(rect_write_3d) {
  env e = setup();
  enum { N = 4096 };
  unsigned char data[N], host[N], got[N];
  fill_pattern(data, N, 12);
  fill_pattern(host, N, 13);
  cl_mem m = make(&e, CL_MEM_COPY_HOST_PTR, N, data);
  size_t b[3] = {3, 1, 2}, h[3] = {1, 2, 0}, r[3] = {9, 5, 4};
  CL_CHECK(clEnqueueWriteBufferRect(e.q, m, CL_TRUE, b, h, r, 24, 24 * 8, 12, 12 * 9,
                                    host, 0, NULL, NULL));
  host_rect(data, b, 24, 24 * 8, host, h, 12, 12 * 9, r);
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, N, got, 0, NULL, NULL));
  CHECK(!memcmp(got, data, N));
  CL_CHECK(clReleaseMemObject(m));
  teardown(&e);
}

TEST(rect_copy_2d_and_3d) {
  env e = setup();
  enum { N = 4096 };
  unsigned char a[N], b[N], got[N];
  fill_pattern(a, N, 14);
  fill_pattern(b, N, 15);
  cl_mem ma = make(&e, CL_MEM_COPY_HOST_PTR, N, a);
  cl_mem mb = make(&e, CL_MEM_COPY_HOST_PTR, N, b);
  size_t so[3] = {4, 2, 0}, dO[3] = {1, 5, 0}, r[3] = {10, 6, 1};
  CL_CHECK(clEnqueueCopyBufferRect(e.q, ma, mb, so, dO, r, 32, 0, 16, 0, 0, NULL, NULL));
  host_rect(b, dO, 16, 16 * 11, a, so, 32, 32 * 8, r);
  size_t so3[3] = {0, 1, 1}, do3[3] = {2, 0, 2}, r3[3] = {5, 3, 2};
  CL_CHECK(clEnqueueCopyBufferRect(e.q, ma, mb, so3, do3, r3, 8, 32, 10, 40, 0, NULL,
                                   NULL));
  host_rect(b, do3, 10, 40, a, so3, 8, 32, r3);
  CL_CHECK(clEnqueueReadBuffer(e.q, mb, CL_TRUE, 0, N, got, 0, NULL, NULL));
  CHECK(!memcmp(got, b, N));
  /* Within one buffer, rectangles whose bytes interleave but never meet. */
  size_t s1[3] = {0, 0, 0}, d1[3] = {8, 0, 0}, r1[3] = {8, 10, 1};
  CL_CHECK(clEnqueueCopyBufferRect(e.q, ma, ma, s1, d1, r1, 16, 0, 16, 0, 0, NULL, NULL));
  host_rect(a, d1, 16, 160, a, s1, 16, 160, r1);
  CL_CHECK(clEnqueueReadBuffer(e.q, ma, CL_TRUE, 0, N, got, 0, NULL, NULL));
  CHECK(!memcmp(got, a, N));
  CL_CHECK(clReleaseMemObject(ma));
  CL_CHECK(clReleaseMemObject(mb));
  teardown(&e);
}

TEST(rect_errors) {
  env e = setup();
  unsigned char host[4096];
  cl_mem m = make(&e, 0, 1024, NULL), m2 = make(&e, 0, 1024, NULL);
  size_t o[3] = {0, 0, 0}, r[3] = {16, 4, 2};
  /* Row pitch below the row, slice pitch below the rows or not a multiple. */
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, r, 15, 0, 0, 0, host,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, r, 16, 63, 0, 0, host,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, r, 32, 144, 0, 0, host,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, r, 0, 0, 8, 0, host,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueWriteBufferRect(e.q, m, CL_TRUE, o, o, r, 0, 0, 16, 40, host,
                                        0, NULL, NULL), CL_INVALID_VALUE);
  /* A zero in the region; NULL origin, region or pointer. */
  size_t flat[3] = {16, 0, 1};
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, flat, 0, 0, 0, 0, host,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, NULL, o, r, 0, 0, 0, 0, host,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, NULL, 0, 0, 0, 0, host,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, r, 0, 0, 0, 0, NULL,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  /* Out of the buffer: 64 x 4 x 5 rows of 64 > 1024 bytes. */
  size_t big[3] = {64, 4, 5};
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, big, 0, 0, 0, 0, host,
                                       0, NULL, NULL), CL_INVALID_VALUE);
  size_t late[3] = {1, 0, 0};
  CL_CHECK_ERR(clEnqueueWriteBufferRect(e.q, m, CL_TRUE, late, o, big, 0, 0, 0, 0,
                                        host, 0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueCopyBufferRect(e.q, m, m2, o, o, big, 0, 0, 0, 0, 0, NULL,
                                       NULL), CL_INVALID_VALUE);
  /* Within one buffer: overlapping rectangles, and differing pitches. */
  size_t s[3] = {0, 0, 0}, d[3] = {8, 1, 0}, r2[3] = {16, 4, 1};
  CL_CHECK_ERR(clEnqueueCopyBufferRect(e.q, m, m, s, d, r2, 32, 0, 32, 0, 0, NULL,
                                       NULL), CL_MEM_COPY_OVERLAP);
  size_t far[3] = {0, 16, 0};
  CL_CHECK_ERR(clEnqueueCopyBufferRect(e.q, m, m, s, far, r, 16, 64, 32, 128, 0,
                                       NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueCopyBufferRect(e.q, m, (cl_mem)e.ctx, s, far, r, 0, 0, 0, 0,
                                       0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseMemObject(m2));
  teardown(&e);
}

/* Pitches and origins whose offsets overflow size_t are refused by the
 * call, on the buffer's side and the host's (a pitch of 2^63 wrapped to a
 * small offset and passed before). */
TEST(rect_offsets_that_overflow) {
  env e = setup();
  unsigned char host[4096];
  cl_mem m = make(&e, 0, 1024, NULL), m2 = make(&e, 0, 1024, NULL);
  size_t o[3] = {0, 0, 0}, r[3] = {1, 2, 1}, huge = (size_t)1 << 63;
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, o, o, r, huge, 0, 0, 0,
                                       host, 0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueWriteBufferRect(e.q, m, CL_TRUE, o, o, r, 0, 0, huge, 0,
                                        host, 0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueCopyBufferRect(e.q, m, m2, o, o, r, huge, 0, 16, 0, 0,
                                       NULL, NULL), CL_INVALID_VALUE);
  size_t deep[3] = {0, 0, 2}, flat[3] = {16, 1, 1};
  CL_CHECK_ERR(clEnqueueReadBufferRect(e.q, m, CL_TRUE, deep, o, flat, 16, huge,
                                       0, 0, host, 0, NULL, NULL), CL_INVALID_VALUE);
  size_t wide[3] = {SIZE_MAX - 8, 0, 0};
  CL_CHECK_ERR(clEnqueueCopyBufferRect(e.q, m, m2, wide, o, flat, 0, 0, 0, 0, 0,
                                       NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK(clReleaseMemObject(m));
  CL_CHECK(clReleaseMemObject(m2));
  teardown(&e);
}

/* Rectangles of sub-buffers of one parent overlap as their bytes do. */
TEST(rect_copy_overlap_sub_buffers) {
  env e = setup();
  size_t align = base_align(&e);
  cl_mem parent = make(&e, 0, 4 * align, NULL);
  cl_int err;
  cl_mem s1 = sub_buffer(parent, 0, 0, 2 * align, &err);
  CL_CHECK(err);
  cl_mem s2 = sub_buffer(parent, 0, align, 2 * align, &err);
  CL_CHECK(err);
  size_t o[3] = {0, 0, 0}, at[3] = {align, 0, 0}, r[3] = {8, 1, 1};
  CL_CHECK_ERR(clEnqueueCopyBufferRect(e.q, s1, s2, at, o, r, 0, 0, 0, 0, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
  CL_CHECK(clEnqueueCopyBufferRect(e.q, s1, s2, o, at, r, 0, 0, 0, 0, 0, NULL, NULL));
  CL_CHECK(clFinish(e.q));
  CL_CHECK(clReleaseMemObject(s1));
  CL_CHECK(clReleaseMemObject(s2));
  CL_CHECK(clReleaseMemObject(parent));
  teardown(&e);
}

/* ------------------------------------------------------------- migrate */

TEST(migrate_mem_objects) {
  env e = setup();
  int data[32], got[32];
  for (int i = 0; i < 32; i++) data[i] = 100 - i;
  cl_mem a = make(&e, CL_MEM_COPY_HOST_PTR, sizeof data, data);
  cl_mem b = make(&e, 0, 64, NULL);
  cl_mem both[2] = {a, b};
  cl_event ev;
  CL_CHECK(clEnqueueMigrateMemObjects(e.q, 2, both, CL_MIGRATE_MEM_OBJECT_HOST, 0,
                                      NULL, &ev));
  CL_CHECK(clWaitForEvents(1, &ev));
  cl_command_type type = 0;
  CL_CHECK(clGetEventInfo(ev, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_MIGRATE_MEM_OBJECTS);
  CL_CHECK(clReleaseEvent(ev));
  CL_CHECK(clEnqueueMigrateMemObjects(e.q, 1, &a, 0, 0, NULL, NULL));
  /* Migration keeps the contents (without CONTENT_UNDEFINED). */
  CL_CHECK(clEnqueueReadBuffer(e.q, a, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int i = 0; i < 32; i++) CHECK_EQ(got[i], 100 - i);
  CL_CHECK(clEnqueueMigrateMemObjects(e.q, 1, &b, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                      0, NULL, NULL));
  /* Errors. */
  CL_CHECK_ERR(clEnqueueMigrateMemObjects(e.q, 0, both, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueMigrateMemObjects(e.q, 2, NULL, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueMigrateMemObjects(e.q, 1, &a, (cl_mem_migration_flags)1 << 5,
                                          0, NULL, NULL), CL_INVALID_VALUE);
  cl_mem bad[2] = {a, (cl_mem)e.ctx};
  CL_CHECK_ERR(clEnqueueMigrateMemObjects(e.q, 2, bad, 0, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  cl_context other = cl_weft_context();
  cl_mem foreign = cl_buffer(other, 16, NULL);
  CL_CHECK_ERR(clEnqueueMigrateMemObjects(e.q, 1, &foreign, 0, 0, NULL, NULL),
               CL_INVALID_CONTEXT);
  CL_CHECK(clReleaseMemObject(foreign));
  CL_CHECK(clReleaseContext(other));
  CL_CHECK(clReleaseMemObject(a));
  CL_CHECK(clReleaseMemObject(b));
  teardown(&e);
}

/* ---------------------------------------------------------- host access */

/* What each host access flag refuses, command by command: HOST_NO_ACCESS
 * every host read and write, HOST_READ_ONLY writes, HOST_WRITE_ONLY reads.
 * Device-side commands (copy, fill) stay allowed. */
static void check_host_access(env *e, cl_mem_flags host_flag, int may_read,
                              int may_write) {
  unsigned char buf[256] = {0};
  cl_mem m = make(e, host_flag, 256, NULL);
  cl_int want_read = may_read ? CL_SUCCESS : CL_INVALID_OPERATION;
  cl_int want_write = may_write ? CL_SUCCESS : CL_INVALID_OPERATION;
  size_t o[3] = {0, 0, 0}, r[3] = {8, 2, 1};
  CL_CHECK_ERR(clEnqueueReadBuffer(e->q, m, CL_TRUE, 0, 16, buf, 0, NULL, NULL),
               want_read);
  CL_CHECK_ERR(clEnqueueReadBufferRect(e->q, m, CL_TRUE, o, o, r, 0, 0, 0, 0, buf,
                                       0, NULL, NULL), want_read);
  CL_CHECK_ERR(clEnqueueWriteBuffer(e->q, m, CL_TRUE, 0, 16, buf, 0, NULL, NULL),
               want_write);
  CL_CHECK_ERR(clEnqueueWriteBufferRect(e->q, m, CL_TRUE, o, o, r, 0, 0, 0, 0, buf,
                                        0, NULL, NULL), want_write);
  static const cl_map_flags maps[] = {CL_MAP_READ, CL_MAP_WRITE,
                                      CL_MAP_WRITE_INVALIDATE_REGION};
  for (int i = 0; i < 3; i++) {
    cl_int want = i == 0 ? want_read : want_write;
    cl_int err;
    void *p = clEnqueueMapBuffer(e->q, m, CL_TRUE, maps[i], 0, 16, 0, NULL, NULL, &err);
    CL_CHECK_ERR(err, want);
    if (p) CL_CHECK(clEnqueueUnmapMemObject(e->q, m, p, 0, NULL, NULL));
    else CHECK(want != CL_SUCCESS);
  }
  /* A sub-buffer inherits the restriction. */
  cl_buffer_region region = {0, 64};
  cl_int err;
  cl_mem sub = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  CL_CHECK(err);
  CL_CHECK_ERR(clEnqueueReadBuffer(e->q, sub, CL_TRUE, 0, 16, buf, 0, NULL, NULL),
               want_read);
  CL_CHECK_ERR(clEnqueueWriteBuffer(e->q, sub, CL_TRUE, 0, 16, buf, 0, NULL, NULL),
               want_write);
  CL_CHECK(clReleaseMemObject(sub));
  /* Copy and fill are not host accesses. */
  int pattern = 0x01020304;
  CL_CHECK(clEnqueueFillBuffer(e->q, m, &pattern, sizeof pattern, 0, 256, 0, NULL, NULL));
  cl_mem plain = make(e, 0, 256, NULL);
  CL_CHECK(clEnqueueCopyBuffer(e->q, m, plain, 0, 0, 256, 0, NULL, NULL));
  CL_CHECK(clEnqueueCopyBuffer(e->q, plain, m, 0, 0, 256, 0, NULL, NULL));
  int got[64];
  CL_CHECK(clEnqueueReadBuffer(e->q, plain, CL_TRUE, 0, 256, got, 0, NULL, NULL));
  for (int i = 0; i < 64; i++) CHECK_EQ(got[i], pattern);
  CL_CHECK(clReleaseMemObject(plain));
  CL_CHECK(clReleaseMemObject(m));
}

TEST(host_no_access_enforced) {
  env e = setup();
  check_host_access(&e, CL_MEM_HOST_NO_ACCESS, 0, 0);
  teardown(&e);
}

TEST(host_read_only_enforced) {
  env e = setup();
  check_host_access(&e, CL_MEM_HOST_READ_ONLY, 1, 0);
  teardown(&e);
}

TEST(host_write_only_enforced) {
  env e = setup();
  check_host_access(&e, CL_MEM_HOST_WRITE_ONLY, 0, 1);
  teardown(&e);
}

TEST_MAIN()
