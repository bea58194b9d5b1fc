/* aggregate_address.c: see aggregate_address.h. An address is the same
 * for every work-item of a group when it is made from constants, the
 * kernel's arguments and the context's invariant fields (group ids,
 * sizes) by instructions without side effects or control dependence; a
 * table of counters, when only its last GEP index varies, within a range
 * the instructions that make it bound: `v & 15`, `v % 10`, a widening,
 * a select of such, plus a constant. */
#include "jit/cpu/aggregate_address.h"

#include <stdint.h>

#include "jit/cpu/passes.h"
#include "jit/ir/ir.h"

/* How many instructions of an address's computation are followed. */
#define MOST_NODES 24

/* Whether v is the same for every work-item of a group: made again from
 * the kernel's arguments, the context and its invariant fields, never
 * the local id, the region state or the private memory. */
static int uniform(LLVMValueRef body, LLVMValueRef v) {
  unsigned budget = MOST_NODES;
  return weft__remakeable(body, v,
                          1u << WEFT_BODY_LX | 1u << WEFT_BODY_LY |
                              1u << WEFT_BODY_LZ | 1u << WEFT_BODY_STATE |
                              1u << WEFT_BODY_PRIVATE,
                          &budget);
}

int weft__counters_of(LLVMValueRef body, LLVMValueRef ptr, unsigned most,
                      weft_counters *out) {
  if (uniform(body, ptr)) {
    *out = (weft_counters){1, NULL};
    return 1;
  }
  if (!LLVMIsAGetElementPtrInst(ptr)) return 0;
  int n = LLVMGetNumOperands(ptr);
  for (int i = 0; i < n - 1; i++)
    if (!uniform(body, LLVMGetOperand(ptr, i))) return 0;
  LLVMValueRef key = LLVMGetOperand(ptr, (unsigned)(n - 1));
  uint64_t hi;
  if (n < 2 || !weft__value_bound(key, &hi) || hi >= most) return 0;
  *out = (weft_counters){(unsigned)hi + 1, key};
  return 1;
}

LLVMValueRef weft__counter_address(LLVMBuilderRef b, LLVMValueRef ptr,
                                   const weft_counters *counters,
                                   LLVMValueRef key) {
  /* The key's own computation is never made again: it may read memory. */
  if (!counters->key) return weft__remake(b, ptr);
  LLVMValueRef copy = LLVMInstructionClone(ptr);
  int n = LLVMGetNumOperands(ptr);
  for (int i = 0; i < n - 1; i++)
    LLVMSetOperand(copy, (unsigned)i, weft__remake(b, LLVMGetOperand(ptr, i)));
  LLVMTypeRef index = LLVMTypeOf(counters->key);
  LLVMSetOperand(copy, (unsigned)(n - 1),
                 LLVMBuildIntCast2(b, key, index, 0, ""));
  LLVMInsertIntoBuilder(b, copy);
  return copy;
}
