/* test_cl_schedule.c: cl_weft_schedule from an OpenCL program
 * (weft/cl_weft.h): a seed sweep in one process with
 * clEnqueueScheduleSeedWEFT, what the failing interleaving was
 * (clGetScheduleInfoWEFT), an exhaustive exploration stepped by
 * clScheduleNextWEFT, and their errors. Each test sets WEFT_SCHEDULE before
 * Weft starts. */
#include <stdlib.h>
#include <string.h>

#include "cl_support.h"
#include "weft/cl_weft.h"

static const char *source =
    "/* A test-then-set lock, and a compare-and-swap one. */\n"
    "__kernel void ttas(volatile __global atomic_int *lock,\n"
    "                   __global int *count) {\n"
    "  if (get_local_id(0) == 0) {\n"
    "    while (atomic_load(lock) != 0) {}\n"
    "    atomic_store(lock, 1);\n"
    "    int v = count[0];\n"
    "    count[0] = v + 1;\n"
    "    atomic_store(lock, 0);\n"
    "  }\n"
    "}\n"
    "__kernel void cas(volatile __global atomic_int *lock,\n"
    "                  __global int *count) {\n"
    "  if (get_local_id(0) == 0) {\n"
    "    int free = 0;\n"
    "    while (!atomic_compare_exchange_strong(lock, &free, 1)) free = 0;\n"
    "    int v = count[0];\n"
    "    count[0] = v + 1;\n"
    "    atomic_store(lock, 0);\n"
    "  }\n"
    "}\n";

static void *extension(const char *name) {
  void *f = clGetExtensionFunctionAddressForPlatform(cl_weft_platform(), name);
  if (!f) FAIL("%s not found", name);
  return f;
}

typedef struct lock_run {
  cl_env e;
  cl_kernel k;
  cl_mem lock, count;
  size_t groups;
} lock_run;

static lock_run open_run(const char *schedule, const char *kernel,
                         size_t groups) {
  setenv("WEFT_SCHEDULE", schedule, 1);
  lock_run r = {cl_env_open(), NULL, NULL, NULL, groups};
  cl_program p = cl_build(r.e.ctx, source, "-cl-std=CL3.0");
  cl_int rc;
  r.k = clCreateKernel(p, kernel, &rc);
  CL_CHECK(rc);
  clReleaseProgram(p);
  r.lock = cl_buffer(r.e.ctx, 4, NULL);
  r.count = cl_buffer(r.e.ctx, 4, NULL);
  CL_CHECK(clSetKernelArg(r.k, 0, sizeof r.lock, &r.lock));
  CL_CHECK(clSetKernelArg(r.k, 1, sizeof r.count, &r.count));
  return r;
}

static void close_run(lock_run *r) {
  clReleaseMemObject(r->lock);
  clReleaseMemObject(r->count);
  clReleaseKernel(r->k);
  cl_env_close(&r->e);
}

/* One launch on zeroed buffers: the counter it leaves. */
static int launch(lock_run *r) {
  int zero = 0, count;
  CL_CHECK(clEnqueueWriteBuffer(r->e.q, r->lock, CL_FALSE, 0, 4, &zero, 0,
                                NULL, NULL));
  CL_CHECK(clEnqueueWriteBuffer(r->e.q, r->count, CL_FALSE, 0, 4, &zero, 0,
                                NULL, NULL));
  size_t global = 2 * r->groups, local = 2;
  CL_CHECK(clEnqueueNDRangeKernel(r->e.q, r->k, 1, NULL, &global, &local, 0,
                                  NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(r->e.q, r->count, CL_TRUE, 0, 4, &count, 0,
                               NULL, NULL));
  return count;
}

TEST(seed_sweep_in_one_process) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  lock_run r = open_run("random-deep:0", "ttas", 8);
  clEnqueueScheduleSeedWEFT_fn seed_fn =
      (clEnqueueScheduleSeedWEFT_fn)extension("clEnqueueScheduleSeedWEFT");
  clGetScheduleInfoWEFT_fn info_fn =
      (clGetScheduleInfoWEFT_fn)extension("clGetScheduleInfoWEFT");
  cl_ulong caught = 0;
  int lost = 0;
  for (cl_ulong seed = 1; seed <= 200 && !caught; seed++) {
    CL_CHECK(seed_fn(r.e.q, seed, 0, NULL, NULL));
    int count = launch(&r);
    if (count != 8) caught = seed, lost = 8 - count;
  }
  if (!caught) FAIL("no seed of 200 broke the test-then-set lock");
  char history[8192];
  size_t n;
  CL_CHECK(info_fn(r.e.q, CL_SCHEDULE_HISTORY_WEFT, 0, NULL, &n));
  CHECK(n > 1 && n <= sizeof history);
  CL_CHECK(info_fn(r.e.q, CL_SCHEDULE_HISTORY_WEFT, sizeof history, history,
                   NULL));
  CHECK_STR_CONTAINS(history, "[local (0) in work-group (");
  CHECK_STR_CONTAINS(history, ": program.cl:");
  CL_CHECK_ERR(info_fn(r.e.q, CL_SCHEDULE_HISTORY_WEFT, 1, history, NULL),
               CL_INVALID_VALUE);
  /* The seed, set again, replays the same lost updates. */
  CL_CHECK(seed_fn(r.e.q, caught, 0, NULL, NULL));
  CHECK_EQ(8 - launch(&r), lost);
  /* Not exhaustive: no next interleaving, and no replay text. */
  clScheduleNextWEFT_fn next_fn =
      (clScheduleNextWEFT_fn)extension("clScheduleNextWEFT");
  cl_int status;
  CL_CHECK_ERR(next_fn(r.e.q, &status), CL_INVALID_OPERATION);
  CL_CHECK(info_fn(r.e.q, CL_SCHEDULE_REPLAY_WEFT, sizeof history, history,
                   NULL));
  CHECK_EQ(history[0], 0);
  close_run(&r);
}

/* Every interleaving of 3 groups within 2 preemptions: the
 * compare-and-swap lock passes them all; the test-then-set lock fails one,
 * named by its replay value. */
static cl_int explore(lock_run *r, int *failed, char *replay, size_t size) {
  clScheduleNextWEFT_fn next_fn =
      (clScheduleNextWEFT_fn)extension("clScheduleNextWEFT");
  clGetScheduleInfoWEFT_fn info_fn =
      (clGetScheduleInfoWEFT_fn)extension("clGetScheduleInfoWEFT");
  cl_int status = CL_SCHEDULE_MORE_WEFT, runs = 0;
  *failed = 0;
  while (status == CL_SCHEDULE_MORE_WEFT && !*failed) {
    runs++;
    if (launch(r) != 3) {
      *failed = runs;
      CL_CHECK(info_fn(r->e.q, CL_SCHEDULE_REPLAY_WEFT, size, replay, NULL));
    } else {
      CL_CHECK(next_fn(r->e.q, &status));
    }
  }
  if (!*failed) CHECK_EQ(status, CL_SCHEDULE_DONE_WEFT);
  return runs;
}

TEST(exhaustive_exploration_in_one_process) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  lock_run r = open_run("exhaustive", "cas", 3);
  char replay[256];
  int failed;
  cl_int runs = explore(&r, &failed, replay, sizeof replay);
  CHECK_EQ(failed, 0);
  CHECK(runs > 100);
  close_run(&r);
}

TEST(exhaustive_exploration_finds_the_broken_lock) {
  CPU_ONLY("schedule exploration (WEFT_SCHEDULE) is the CPU's; the GPU schedules in hardware");
  lock_run r = open_run("exhaustive", "ttas", 3);
  char replay[256];
  int failed;
  explore(&r, &failed, replay, sizeof replay);
  CHECK(failed > 1);
  CHECK(!strncmp(replay, "replay:", 7) && replay[7]);
  close_run(&r);
}

TEST(errors) {
  lock_run r = open_run("random:1", "cas", 2);
  clScheduleNextWEFT_fn next_fn =
      (clScheduleNextWEFT_fn)extension("clScheduleNextWEFT");
  clEnqueueScheduleSeedWEFT_fn seed_fn =
      (clEnqueueScheduleSeedWEFT_fn)extension("clEnqueueScheduleSeedWEFT");
  clGetScheduleInfoWEFT_fn info_fn =
      (clGetScheduleInfoWEFT_fn)extension("clGetScheduleInfoWEFT");
  cl_int status;
  char text[16];
  CL_CHECK_ERR(seed_fn(NULL, 1, 0, NULL, NULL), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(next_fn(NULL, &status), CL_INVALID_COMMAND_QUEUE);
  CL_CHECK_ERR(next_fn(r.e.q, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(info_fn(r.e.q, 0x1234, sizeof text, text, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(info_fn(NULL, CL_SCHEDULE_HISTORY_WEFT, sizeof text, text,
                       NULL), CL_INVALID_COMMAND_QUEUE);
  /* The seed command waits for an event like any command. */
  cl_event marker;
  CL_CHECK(seed_fn(r.e.q, 7, 0, NULL, &marker));
  CL_CHECK(clWaitForEvents(1, &marker));
  cl_command_type type;
  CL_CHECK(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof type, &type,
                          NULL));
  CHECK_EQ(type, CL_COMMAND_MARKER);
  clReleaseEvent(marker);
  close_run(&r);
}

TEST_MAIN()
