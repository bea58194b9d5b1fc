/* test_cl_svm.c: coarse-grained shared virtual memory: allocations, the
 * SVM commands, kernels following pointers the host wrote, buffers over
 * SVM, and the errors of each. */
#include <stdint.h>

#include "cl_support.h"

static const char *source =
    "typedef struct node { __global struct node *next; int value; } node;\n"
    "/* Sums a list the host linked with its own pointers. */\n"
    "__kernel void walk(__global node *head, __global int *out) {\n"
    "  int sum = 0;\n"
    "  for (__global node *n = head; n; n = n->next) sum += n->value;\n"
    "  out[get_global_id(0)] = sum;\n"
    "}\n"
    "__kernel void twice(__global int *a) { a[get_global_id(0)] *= 2; }\n";

typedef struct node {
  struct node *next;
  int value;
} node;

static cl_kernel kernel(cl_env *e, const char *name) {
  cl_program p = cl_build(e->ctx, source, "-cl-std=CL3.0");
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  CL_CHECK(err);
  clReleaseProgram(p);
  return k;
}

TEST(kernel_follows_host_pointers) {
  cl_env e = cl_env_open();
  node *list = clSVMAlloc(e.ctx, CL_MEM_READ_WRITE, 10 * sizeof(node), 0);
  int *out = clSVMAlloc(e.ctx, CL_MEM_READ_WRITE, 4 * sizeof(int), 0);
  CHECK(list && out);
  CHECK_EQ((uintptr_t)list % 128, 0);
  CL_CHECK(clEnqueueSVMMap(e.q, CL_TRUE, CL_MAP_WRITE, list, 10 * sizeof(node),
                           0, NULL, NULL));
  for (int i = 0; i < 10; i++) {
    list[i].value = i + 1;
    list[i].next = i < 9 ? &list[i + 1] : NULL;
  }
  CL_CHECK(clEnqueueSVMUnmap(e.q, list, 0, NULL, NULL));
  cl_kernel k = kernel(&e, "walk");
  CL_CHECK(clSetKernelArgSVMPointer(k, 0, &list[2])); /* inside: allowed */
  CL_CHECK(clSetKernelArgSVMPointer(k, 1, out));
  CL_CHECK(clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof list,
                               &list));
  size_t global = 4;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CL_CHECK(clEnqueueSVMMap(e.q, CL_TRUE, CL_MAP_READ, out, 4 * sizeof(int), 0,
                           NULL, NULL));
  for (int i = 0; i < 4; i++) CHECK_EQ(out[i], 52); /* 3 + ... + 10 */
  CL_CHECK(clEnqueueSVMUnmap(e.q, out, 0, NULL, NULL));
  CL_CHECK(clFinish(e.q));
  clReleaseKernel(k);
  clSVMFree(e.ctx, list);
  clSVMFree(e.ctx, out);
  cl_env_close(&e);
}

TEST(memcpy_fill_and_migrate) {
  cl_env e = cl_env_open();
  int *a = clSVMAlloc(e.ctx, 0, 256 * sizeof(int), 4096);
  int *b = clSVMAlloc(e.ctx, CL_MEM_READ_ONLY, 256 * sizeof(int), 0);
  CHECK(a && b);
  CHECK_EQ((uintptr_t)a % 4096, 0);
  for (int i = 0; i < 256; i++) CHECK_EQ(a[i], 0); /* zero-filled */
  int pattern[2] = {7, -7};
  CL_CHECK(clEnqueueSVMMemFill(e.q, a, pattern, sizeof pattern, 256 * sizeof(int),
                               0, NULL, NULL));
  cl_event copied;
  CL_CHECK(clEnqueueSVMMemcpy(e.q, CL_FALSE, b, a, 256 * sizeof(int), 0, NULL,
                              &copied));
  const void *both[2] = {a, b};
  CL_CHECK(clEnqueueSVMMigrateMem(e.q, 2, both, NULL, CL_MIGRATE_MEM_OBJECT_HOST,
                                  1, &copied, NULL));
  int host[256];
  CL_CHECK(clEnqueueSVMMemcpy(e.q, CL_TRUE, host, b, sizeof host, 0, NULL, NULL));
  for (int i = 0; i < 256; i++) CHECK_EQ(host[i], i % 2 ? -7 : 7);
  cl_command_type type;
  CL_CHECK(clGetEventInfo(copied, CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_COMMAND_SVM_MEMCPY);
  clReleaseEvent(copied);
  /* Errors: overlap, NULL, misaligned or odd-sized fills. */
  CL_CHECK_ERR(clEnqueueSVMMemcpy(e.q, CL_TRUE, a + 1, a, 16, 0, NULL, NULL),
               CL_MEM_COPY_OVERLAP);
  CL_CHECK_ERR(clEnqueueSVMMemcpy(e.q, CL_TRUE, NULL, a, 16, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueSVMMemFill(e.q, (char *)a + 4, pattern, 8, 16, 0, NULL,
                                   NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueSVMMemFill(e.q, a, pattern, 8, 12, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueSVMMemFill(e.q, a, pattern, 3, 12, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueSVMMap(e.q, CL_TRUE, CL_MAP_READ, a, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueSVMUnmap(e.q, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueSVMMigrateMem(e.q, 0, both, NULL, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  clSVMFree(e.ctx, a);
  clSVMFree(e.ctx, b);
  cl_env_close(&e);
}

typedef struct freed {
  int calls;
  cl_uint count;
  void *first;
} freed;

static void CL_CALLBACK record_free(cl_command_queue q, cl_uint n, void *p[],
                                    void *data) {
  (void)q;
  freed *f = data;
  f->calls++;
  f->count = n;
  f->first = p[0];
  for (cl_uint i = 0; i < n; i++) free(p[i]); /* they came from malloc */
}

static void CL_CALLBACK ignore(const char *t, const void *i, size_t s, void *d) {
  (void)t, (void)i, (void)s, (void)d;
}

/* clEnqueueSVMFree frees in queue order, or hands the pointers to the
 * application's callback. */
TEST(enqueued_free) {
  cl_env e = cl_env_open();
  void *p[2] = {clSVMAlloc(e.ctx, 0, 64, 0), clSVMAlloc(e.ctx, 0, 64, 0)};
  cl_event done;
  CL_CHECK(clEnqueueSVMFree(e.q, 2, p, NULL, NULL, 0, NULL, &done));
  CL_CHECK(clWaitForEvents(1, &done));
  clReleaseEvent(done);
  /* Freed: no longer an SVM pointer a kernel may take. */
  cl_kernel k = kernel(&e, "twice");
  CL_CHECK_ERR(clSetKernelArgSVMPointer(k, 0, p[0]), CL_INVALID_ARG_VALUE);
  void *mine[1] = {malloc(16)};
  freed f = {0, 0, NULL};
  CL_CHECK(clEnqueueSVMFree(e.q, 1, mine, record_free, &f, 0, NULL, NULL));
  CL_CHECK(clFinish(e.q));
  CHECK_EQ(f.calls, 1);
  CHECK_EQ(f.count, 1);
  CHECK(f.first == mine[0]);
  CL_CHECK_ERR(clEnqueueSVMFree(e.q, 1, NULL, NULL, NULL, 0, NULL, NULL),
               CL_INVALID_VALUE);
  clReleaseKernel(k);
  cl_env_close(&e);
}

/* A buffer over SVM memory (CL_MEM_USE_HOST_PTR) says so, and is the same
 * memory. */
TEST(buffer_over_svm) {
  cl_env e = cl_env_open();
  int *a = clSVMAlloc(e.ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), 0);
  for (int i = 0; i < 64; i++) a[i] = i;
  cl_int err;
  cl_mem m = clCreateBuffer(e.ctx, CL_MEM_USE_HOST_PTR, 64 * sizeof(int), a, &err);
  CL_CHECK(err);
  cl_bool uses = CL_FALSE;
  CL_CHECK(clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses, NULL));
  CHECK(uses == CL_TRUE);
  cl_buffer_region r = {128, 64};
  cl_mem sub = clCreateSubBuffer(m, 0, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  CL_CHECK(err);
  CL_CHECK(clGetMemObjectInfo(sub, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses,
                              NULL));
  CHECK(uses == CL_TRUE);
  cl_kernel k = kernel(&e, "twice");
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global = 64;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  /* Then as an SVM pointer, replacing the buffer argument. */
  CL_CHECK(clSetKernelArgSVMPointer(k, 0, a + 32));
  global = 32;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CL_CHECK(clFinish(e.q));
  for (int i = 0; i < 64; i++) CHECK_EQ(a[i], i < 32 ? 2 * i : 4 * i);
  clReleaseKernel(k);
  clReleaseMemObject(sub);
  clReleaseMemObject(m);
  clSVMFree(e.ctx, a);
  cl_env_close(&e);
}

TEST(allocation_rules) {
  cl_env e = cl_env_open();
  cl_context quiet = clCreateContext(NULL, 1, &e.dev, ignore, NULL, NULL);
  CHECK(clSVMAlloc(quiet, 0, 0, 0) == NULL);                  /* size 0 */
  CHECK(clSVMAlloc(quiet, 0, 64, 3) == NULL);                 /* alignment */
  CHECK(clSVMAlloc(quiet, 0, 64, 8192) == NULL);              /* too aligned */
  CHECK(clSVMAlloc(quiet, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, 0) == NULL);
  CHECK(clSVMAlloc(quiet, CL_MEM_USE_HOST_PTR, 64, 0) == NULL);
  cl_ulong max;
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max, &max,
                           NULL));
  CHECK(clSVMAlloc(quiet, 0, (size_t)max + 1, 0) == NULL);
  CHECK(clSVMAlloc(NULL, 0, 64, 0) == NULL);
  /* Memory of one context is not another's. */
  void *p = clSVMAlloc(quiet, 0, 64, 0);
  CHECK(p);
  cl_kernel k = kernel(&e, "twice");
  CL_CHECK_ERR(clSetKernelArgSVMPointer(k, 0, p), CL_INVALID_ARG_VALUE);
  CL_CHECK(clSetKernelArgSVMPointer(k, 0, NULL));
  clSVMFree(quiet, (char *)p + 8); /* not a start: refused, nothing freed */
  clSVMFree(quiet, p);
  clSVMFree(quiet, NULL);
  /* What the application leaves goes with the context. */
  CHECK(clSVMAlloc(quiet, 0, 1 << 20, 0));
  clReleaseKernel(k);
  clReleaseContext(quiet);
  cl_env_close(&e);
}

TEST_MAIN()
