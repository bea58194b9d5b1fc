/*
 * Synchronization and memory fence functions (OpenCL C 3.0, 6.15.8, 6.15.9).
 *
 * The work-items of a group run on one thread, so a barrier is a switch to
 * the next work-item (the JIT turns __weft_barrier into a call into the CPU
 * back end) and needs no hardware fence. mem_fence orders this work-item's
 * accesses as seen by other groups, which run on other threads.
 */
#include "builtins.h"

void __weft_barrier(uint flags) __attribute__((convergent));

void WEFT_OVERLOAD barrier(cl_mem_fence_flags flags) { __weft_barrier(flags); }

void WEFT_OVERLOAD work_group_barrier(cl_mem_fence_flags flags) {
  __weft_barrier(flags);
}

void WEFT_OVERLOAD work_group_barrier(cl_mem_fence_flags flags,
                                      memory_scope scope) {
  (void)scope;
  __weft_barrier(flags);
}

void WEFT_OVERLOAD mem_fence(cl_mem_fence_flags flags) {
  (void)flags;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void WEFT_OVERLOAD read_mem_fence(cl_mem_fence_flags flags) {
  (void)flags;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
}

void WEFT_OVERLOAD write_mem_fence(cl_mem_fence_flags flags) {
  (void)flags;
  __atomic_thread_fence(__ATOMIC_RELEASE);
}
