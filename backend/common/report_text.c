/* report_text.c: the words of the devices' reports (see report_text.h). */
#include "backend/common/report_text.h"

#include <stdio.h>

#include "jit/kernel_abi.h"

const char *weft__wait_name(uint32_t what) {
  switch (what & ~WEFT_POLL_REACH) {
  case WEFT_WAIT_MUTEX: return "a mutex";
  case WEFT_WAIT_SEMAPHORE: return "a semaphore";
  case WEFT_WAIT_BARRIER: return "a global barrier";
  case WEFT_WAIT_SPIN: return "memory it polls";
  default: return "a word of memory";
  }
}

int weft__format_ids(char *out, size_t size, unsigned dims,
                     const uint64_t v[3]) {
  if (dims == 1) return snprintf(out, size, "(%llu)", (unsigned long long)v[0]);
  if (dims == 2)
    return snprintf(out, size, "(%llu,%llu)", (unsigned long long)v[0],
                    (unsigned long long)v[1]);
  return snprintf(out, size, "(%llu,%llu,%llu)", (unsigned long long)v[0],
                  (unsigned long long)v[1], (unsigned long long)v[2]);
}
