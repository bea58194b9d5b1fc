/* aggregate_address.h: which counters an atomic of a work-group may add to
 * (aggregate_address.c), for aggregate_atomics.c: one address the whole
 * group shares, or one of a few (a small table indexed by a key with a
 * known small range, `&hist[v & 15]`). */
#ifndef WEFT_JIT_CPU_AGGREGATE_ADDRESS_H
#define WEFT_JIT_CPU_AGGREGATE_ADDRESS_H

#include <llvm-c/Core.h>

#include "jit/ir/ir.h" /* WEFT_AGGREGATE_KEYS */

typedef struct weft_counters {
  unsigned keys;    /* how many: 1 for one address */
  LLVMValueRef key; /* the GEP's last index, 0 to keys - 1; NULL where the
                     * whole address is the same for the group */
} weft_counters;

/* Whether ptr, an atomic's address in body, is one of at most `most`
 * counters the group shares (made from the kernel's arguments, the
 * context's invariant fields and constants by instructions without side
 * effects, but for a last GEP index of a small known range); fills *out
 * if so. */
int weft__counters_of(LLVMValueRef body, LLVMValueRef ptr, unsigned most,
                      weft_counters *out);

/* ptr made again at the builder for the counter of key (0 with one
 * counter): a copy computes the same address anywhere, where the
 * original may not have run. */
LLVMValueRef weft__counter_address(LLVMBuilderRef b, LLVMValueRef ptr,
                                   const weft_counters *counters,
                                   LLVMValueRef key);

#endif
