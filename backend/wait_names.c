/* wait_names.c: the names of what a work-group waits on (see
 * wait_names.h). */
#include "backend/wait_names.h"

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
