/*
 * Address space qualifier functions (OpenCL C 3.0, 6.15.10): to_global,
 * to_local and to_private are Clang's builtins, which the JIT turns into a
 * question to the back end (where does this generic pointer point?);
 * get_fence is written over them.
 */
#include "builtins.h"

/* Private memory has no fence of its own; a global fence is what keeps
 * such a pointer's memory ordered with the rest. */
cl_mem_fence_flags WEFT_OVERLOAD get_fence(void *p) {
  return to_local(p) ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE;
}

cl_mem_fence_flags WEFT_OVERLOAD get_fence(const void *p) {
  return get_fence((void *)p);
}
