/* cuda_watchdog.c: deadlocks on the GPU reported instead of hanging (see
 * cuda_device.h).
 *
 * A GPU has no runtime between its blocks to notice that they all wait:
 * each wait (builtins/nvptx/target.cl) watches itself. A work-item whose
 * word has not changed for WEFT_SPIN_TIMEOUT seconds gives up: the first
 * to do so in a launch writes who it is and what it waited on into the
 * device's record, which lives in host memory the GPU writes through, and
 * every one that gives up exits. The launch then ends; the host finds the
 * record tripped and reports a deadlock. The context survives (nothing
 * faulted), so the device goes on working. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/common/report_text.h"
#include "backend/cuda/cuda_device.h"
#include "jit/jit.h"
#include "weft/weft.h"

/* One page, registered with the driver. */
#define RECORD_BYTES 4096

/* target.cl's mirror: eight uints, then two ulongs. */
_Static_assert(sizeof(weft_gpu_watchdog_record) == 48,
               "builtins/nvptx/target.cl lays the record out alike");

void weft__cuda_watchdog_start(cuda_device *gpu) {
  const weft_cuda_api *api = gpu->api;
  void *record = aligned_alloc(RECORD_BYTES, RECORD_BYTES);
  CUdeviceptr address = 0;
  if (!record) return;
  memset(record, 0, RECORD_BYTES);
  int ok = api->cuCtxSetCurrent(gpu->context) == CUDA_SUCCESS &&
           api->cuMemHostRegister(record, RECORD_BYTES,
                                  CU_MEMHOSTREGISTER_DEVICEMAP |
                                      CU_MEMHOSTREGISTER_PORTABLE) ==
               CUDA_SUCCESS;
  if (ok && api->cuMemHostGetDevicePointer(&address, record, 0) != CUDA_SUCCESS) {
    api->cuMemHostUnregister(record);
    ok = 0;
  }
  /* Without a record the waits are not watched: they wait for ever, as
   * on any GPU. */
  if (!ok) {
    free(record);
    return;
  }
  gpu->watchdog = record;
  gpu->watchdog_address = address;
}

CUdeviceptr weft__cuda_watchdog_arm(cuda_device *gpu, CUmodule module) {
  CUdeviceptr global = 0;
  size_t bytes = 0;
  if (gpu->api->cuModuleGetGlobal(&global, &bytes, module,
                                  WEFT_PTX_WATCHDOG) != CUDA_SUCCESS ||
      bytes < 3 * sizeof(uint64_t))
    return 0;
  double seconds = gpu->config->spin_timeout;
  uint64_t words[3] = {gpu->watchdog_address,
                       gpu->watchdog ? (uint64_t)(seconds * 1e9) : 0, 0};
  if (gpu->api->cuMemcpyHtoD(global, words, sizeof words) != CUDA_SUCCESS)
    return 0;
  return global;
}

/* The record's ids, widened as the reports' ids are. */
static void format_ids(char *out, size_t size, unsigned dims,
                       const volatile uint32_t ids[3]) {
  uint64_t v[3] = {ids[0], ids[1], ids[2]};
  weft__format_ids(out, size, dims, v);
}

int weft__cuda_watchdog_check(cuda_device *gpu, CUdeviceptr global,
                              CUdeviceptr launch_words, CUdeviceptr coop_state,
                              const weft_launch_desc *desc, weft_msg *msg) {
  volatile weft_gpu_watchdog_record *r = gpu->watchdog;
  if (!global || !r || !r->tripped) return 0;
  atomic_thread_fence(memory_order_acquire);
  char group[48], item[48], what[96];
  format_ids(group, sizeof group, desc->dims, r->group);
  format_ids(item, sizeof item, desc->dims, r->item);
  uint64_t word = r->word;
  if (launch_words && word >= launch_words &&
      word < launch_words + WEFT_LAUNCH_WORDS * sizeof(uint32_t))
    snprintf(what, sizeof what, "weft_global_barrier()");
  else if (coop_state && word >= coop_state &&
           word < coop_state + WEFT_PTX_COOP_WORDS * sizeof(uint64_t))
    snprintf(what, sizeof what, "resizing_global_barrier()");
  else
    snprintf(what, sizeof what, "%s at 0x%" PRIx64, weft__wait_name(r->what),
             word);
  snprintf(msg->text, sizeof msg->text,
           "kernel '%s': deadlock: work-group %s waits on %s: its work-item "
           "%s saw no change in %.1f s (WEFT_SPIN_TIMEOUT); the work-items "
           "still waiting were stopped, so the launch's results are "
           "incomplete",
           desc->kernel->name, group, what, item, (double)r->waited_ns / 1e9);
  /* Ready for the next launch: the record clear, the election open. */
  memset((void *)r, 0, sizeof *r);
  gpu->api->cuMemsetD32(global + 2 * sizeof(uint64_t), 0, 1);
  return WEFT_EDEADLOCK;
}
