/*
 * cooperative_kernels.cl: cl_weft_cooperative_kernels (include/weft/kernel.h)
 * on the CPU. Each point is one primitive that the JIT expands in the
 * kernel (jit/ir/fork_points.c), since what it does reaches past the
 * function: a killed group returns from the kernel, and a forked one
 * starts in the middle of it.
 */
#include "weft/kernel.h"

void __weft_fork_point(uint kind) __attribute__((convergent));
uint __weft_query_kill(void);

void __attribute__((convergent)) offer_kill(void) {
  __weft_fork_point(WEFT__POINT_OFFER_KILL);
}

void __attribute__((convergent)) request_fork(void) {
  __weft_fork_point(WEFT__POINT_REQUEST_FORK);
}

void __attribute__((convergent)) resizing_global_barrier(void) {
  __weft_fork_point(WEFT__POINT_RESIZING_BARRIER);
}

uint query_kill(void) { return __weft_query_kill(); }
