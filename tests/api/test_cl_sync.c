/* test_cl_sync.c: cl_weft_sync from an OpenCL program (weft/cl_weft.h):
 * clEnqueueInitSyncObjectWEFT, found through
 * clGetExtensionFunctionAddressForPlatform, writes objects that kernels
 * then use, ordered in the queue like a write; its errors. */
#include <string.h>

#include "cl_support.h"
#include "weft/cl_weft.h"
#include "weft/kernel.h"

static clEnqueueInitSyncObjectWEFT_fn init_fn(void) {
  clEnqueueInitSyncObjectWEFT_fn f =
      (clEnqueueInitSyncObjectWEFT_fn)clGetExtensionFunctionAddressForPlatform(
          cl_weft_platform(), "clEnqueueInitSyncObjectWEFT");
  if (!f) FAIL("clEnqueueInitSyncObjectWEFT not found");
  return f;
}

/* c[0] inside now, c[1] most inside at once, c[2] entries; the lock
 * guards a plain counter, c[3]. */
static const char *source =
    "__kernel void use(__global uchar *objects, __global int *c) {\n"
    "  __global weft_mutex *m = (__global weft_mutex *)(objects + 16);\n"
    "  __global weft_semaphore *s = (__global weft_semaphore *)(objects + 48);\n"
    "  __global weft_barrier *b = (__global weft_barrier *)(objects + 64);\n"
    "  weft_semaphore_wait_group(s);\n"
    "  if (get_local_id(0) == 0) {\n"
    "    atomic_max(&c[1], atomic_inc(&c[0]) + 1);\n"
    "    atomic_dec(&c[0]);\n"
    "    atomic_inc(&c[2]);\n"
    "  }\n"
    "  weft_semaphore_post_group(s);\n"
    "  weft_mutex_lock_group(m);\n"
    "  if (get_local_id(0) == 0) c[3] = c[3] + 1;\n"
    "  weft_mutex_unlock_group(m);\n"
    "  weft_barrier_wait(b);\n"
    "  if (c[3] != get_num_groups(0)) c[4] = 1;\n"
    "}\n";

/* Objects written by the extension, each with an algorithm of the paper,
 * behind an event the launch waits on. */
TEST(init_objects_then_use_them) {
  clEnqueueInitSyncObjectWEFT_fn init = init_fn();
  cl_context ctx = cl_weft_context();
  cl_command_queue q =
      cl_weft_queue(ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
  size_t groups = 12, local = 2, global = groups * local;
  size_t size = 64 + WEFT_BARRIER_SIZE(WEFT_BARRIER_XIAO_FENG, groups);
  unsigned char *junk = malloc(size);
  memset(junk, 0x5a, size);
  cl_mem objects = cl_buffer(ctx, size, junk);
  int zeros[5] = {0};
  cl_mem counts = cl_buffer(ctx, sizeof zeros, zeros);
  cl_event done[3];
  CL_CHECK(init(q, objects, 16, CL_SYNC_MUTEX_WEFT, 0, WEFT_MUTEX_TICKET, 0,
                NULL, &done[0]));
  CL_CHECK(init(q, objects, 48, CL_SYNC_SEMAPHORE_WEFT, 3,
                WEFT_SEMAPHORE_SLEEPING, 0, NULL, &done[1]));
  CL_CHECK(init(q, objects, 64, CL_SYNC_BARRIER_WEFT, (cl_long)groups,
                WEFT_BARRIER_XIAO_FENG, 0, NULL, &done[2]));
  cl_kernel k = cl_kernel_from(ctx, source, "use");
  CL_CHECK(clSetKernelArg(k, 0, sizeof objects, &objects));
  CL_CHECK(clSetKernelArg(k, 1, sizeof counts, &counts));
  cl_event ran;
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 3, done,
                                  &ran));
  int got[5];
  CL_CHECK(clEnqueueReadBuffer(q, counts, CL_TRUE, 0, sizeof got, got, 1,
                               &ran, NULL));
  CHECK_EQ(got[0], 0);
  CHECK(got[1] >= 1 && got[1] <= 3);
  CHECK_EQ(got[2], (int)groups);
  CHECK_EQ(got[3], (int)groups);
  CHECK_EQ(got[4], 0);
  /* The words weft/kernel.h gives; the bytes around them untouched. */
  unsigned words[16];
  CL_CHECK(clEnqueueReadBuffer(q, objects, CL_TRUE, 0, sizeof words, words, 0,
                               NULL, NULL));
  CHECK_EQ(words[0], 0x5a5a5a5au);
  CHECK_EQ(words[3], 0x5a5a5a5au);
  /* Free, and every ticket drawn (the lock word counts them in 2s)
   * served. */
  CHECK_EQ(words[4] & 1, 0);
  CHECK_EQ(words[4] >> 1, words[6]);
  CHECK_EQ(words[5], 0);
  CHECK_EQ(words[7], WEFT_MUTEX_TICKET);
  CHECK_EQ(words[8], 0x5a5a5a5au);
  CHECK_EQ(words[12], 3 + groups); /* given: the count and a post each */
  CHECK_EQ(words[13], groups);     /* drawn: a wait each */
  CHECK_EQ(words[15], WEFT_SEMAPHORE_SLEEPING);
  for (int i = 0; i < 3; i++) clReleaseEvent(done[i]);
  clReleaseEvent(ran);
  clReleaseKernel(k);
  clReleaseMemObject(objects);
  clReleaseMemObject(counts);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  free(junk);
}

/* Wrong arguments get the right codes, and nothing is written. */
TEST(init_errors) {
  clEnqueueInitSyncObjectWEFT_fn init = init_fn();
  cl_env e = cl_env_open();
  int ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  cl_mem m = cl_buffer(e.ctx, sizeof ones, ones);
  CL_CHECK_ERR(init(NULL, m, 0, CL_SYNC_MUTEX_WEFT, 0, 0, 0, NULL, NULL),
               CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(init(e.q, NULL, 0, CL_SYNC_MUTEX_WEFT, 0, 0, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(init(e.q, m, 0, 0, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(init(e.q, m, 0, 4, 0, 0, 0, NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(init(e.q, m, 0, CL_SYNC_MUTEX_WEFT, 0, WEFT_MUTEX_TICKET + 1, 0,
                    NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(init(e.q, m, 0, CL_SYNC_SEMAPHORE_WEFT, -1, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(init(e.q, m, 0, CL_SYNC_BARRIER_WEFT, 0, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(init(e.q, m, 2, CL_SYNC_MUTEX_WEFT, 0, 0, 0, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(init(e.q, m, 20, CL_SYNC_MUTEX_WEFT, 0, 0, 0, NULL, NULL),
               CL_INVALID_VALUE); /* 16 bytes from 20 overrun 32 */
  /* A Xiao-Feng barrier for 2 groups takes 32 bytes: it fits; for 3, not. */
  CL_CHECK(init(e.q, m, 0, CL_SYNC_BARRIER_WEFT, 2, WEFT_BARRIER_XIAO_FENG, 0,
                NULL, NULL));
  CL_CHECK_ERR(init(e.q, m, 0, CL_SYNC_BARRIER_WEFT, 3, WEFT_BARRIER_XIAO_FENG,
                    0, NULL, NULL), CL_INVALID_VALUE);
  cl_event bogus = (cl_event)m;
  CL_CHECK_ERR(init(e.q, m, 0, CL_SYNC_MUTEX_WEFT, 0, 0, 1, &bogus, NULL),
               CL_INVALID_EVENT_WAIT_LIST);
  int got[8];
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, sizeof got, got, 0, NULL,
                               NULL));
  int want[8] = {0, 0, 2, WEFT_BARRIER_XIAO_FENG, 0, 0, 0, 0};
  for (int i = 0; i < 8; i++) CHECK_EQ(got[i], want[i]);
  clReleaseMemObject(m);
  cl_env_close(&e);
}

TEST_MAIN()
