/* cl_schedule.c: cl_weft_schedule's host functions (include/weft/
 * cl_weft.h), reached through clGetExtensionFunctionAddressForPlatform:
 * schedule exploration from an OpenCL program, in one process. The mode
 * is WEFT_SCHEDULE's (it decides how kernels are built); these set the
 * seed between launches, step an exhaustive exploration, and read what the
 * last launch's interleaving was. */
#include <string.h>

#include "api/cl_objects.h"
#include "api/cl_queue.h"
#include "weft/cl_weft.h"

typedef struct seed_set {
  cl_ulong seed;
} seed_set;

static cl_int run_seed(cl_command *c) {
  weft_schedule_seed(((seed_set *)c->payload)->seed);
  return CL_SUCCESS;
}

cl_int CL_API_CALL clEnqueueScheduleSeedWEFT(cl_command_queue q,
                                             cl_ulong seed, cl_uint n,
                                             const cl_event *wait,
                                             cl_event *event) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  cl_command *c = weft__cl_command_new(sizeof(seed_set));
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  ((seed_set *)c->payload)->seed = seed;
  c->run = run_seed;
  return weft__cl_enqueue(q, CL_COMMAND_MARKER, n, wait, event, c);
}

cl_int CL_API_CALL clScheduleNextWEFT(cl_command_queue q, cl_int *status) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!status) return CL_INVALID_VALUE;
  cl_int rc = clFinish(q);
  if (rc) return rc;
  int next = weft_schedule_next();
  if (next >= 0 || next == WEFT_ERANGE) {
    *status = next == WEFT_ERANGE ? CL_SCHEDULE_BUDGET_SPENT_WEFT
              : next            ? CL_SCHEDULE_MORE_WEFT
                                : CL_SCHEDULE_DONE_WEFT;
    return CL_SUCCESS;
  }
  weft__cl_notify(q->context,
                  next == WEFT_EINVAL
                      ? "clScheduleNextWEFT: WEFT_SCHEDULE is not "
                        "exhaustive[:BUDGET[:PREEMPTIONS[:full]]]"
                      : "clScheduleNextWEFT: the launch did not repeat the "
                        "decisions it was to replay");
  return CL_INVALID_OPERATION;
}

cl_int CL_API_CALL clGetScheduleInfoWEFT(cl_command_queue q, cl_uint param,
                                         size_t size, void *value,
                                         size_t *size_ret) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  cl_int rc = clFinish(q);
  if (rc) return rc;
  static _Thread_local char text[8192];
  if (param == CL_SCHEDULE_HISTORY_WEFT)
    weft_schedule_history(text, sizeof text);
  else if (param == CL_SCHEDULE_REPLAY_WEFT) {
    if (weft_schedule_replay(text, sizeof text, NULL)) text[0] = 0;
  } else
    return CL_INVALID_VALUE;
  size_t n = strlen(text) + 1;
  if (size_ret) *size_ret = n;
  if (!value) return CL_SUCCESS;
  if (size < n) return CL_INVALID_VALUE;
  memcpy(value, text, n);
  return CL_SUCCESS;
}
