/* value_range.c: an upper bound of an integer value from how it is made
 * (ir.h's weft__value_bound), for the passes that aggregate atomics on a
 * small table of counters (cpu/aggregate_address.c, ptx/ptx_aggregate.c). */
#include <stdint.h>

#include "jit/ir/ir.h"

/* How deep a value's computation is followed. */
#define MOST_DEPTH 24

/* A constant's value, if it is a small non-negative integer. */
static int small_constant(LLVMValueRef v, uint64_t *out) {
  if (!LLVMIsAConstantInt(v) || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
    return 0;
  *out = LLVMConstIntGetZExtValue(v);
  return *out < (1u << 20);
}

/* Whether integer v is always in [0, *hi] (unsigned), by how it is made. */
static int bounded(LLVMValueRef v, uint64_t *hi, unsigned depth) {
  uint64_t a, b;
  if (small_constant(v, hi)) return 1;
  if (!LLVMIsAInstruction(v) || !depth) return 0;
  LLVMValueRef x = LLVMGetOperand(v, 0);
  LLVMValueRef y = LLVMGetNumOperands(v) > 1 ? LLVMGetOperand(v, 1) : NULL;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAnd:
    if (small_constant(y, hi) || small_constant(x, hi)) return 1;
    return 0;
  case LLVMURem:
    return small_constant(y, &a) && a > 0 && (*hi = a - 1, 1);
  case LLVMZExt:
    return bounded(x, hi, depth - 1);
  case LLVMSExt:
  case LLVMTrunc: {
    unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(
        LLVMGetInstructionOpcode(v) == LLVMSExt ? x : v));
    return bounded(x, hi, depth - 1) && bits > 1 && *hi < (1ull << (bits - 1));
  }
  case LLVMSelect:
    if (!bounded(LLVMGetOperand(v, 1), &a, depth - 1) ||
        !bounded(LLVMGetOperand(v, 2), &b, depth - 1))
      return 0;
    *hi = a > b ? a : b;
    return 1;
  case LLVMAdd:
    if (!bounded(x, &a, depth - 1) || !bounded(y, &b, depth - 1)) return 0;
    *hi = a + b;
    return LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 32 || *hi < (1ull << 31);
  default:
    return 0;
  }
}

int weft__value_bound(LLVMValueRef v, uint64_t *hi) {
  return bounded(v, hi, MOST_DEPTH);
}
