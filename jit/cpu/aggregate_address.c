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

/* How deep an address's computation is followed. */
#define MOST_DEPTH 24

static int is_invariant_load(LLVMValueRef v) {
  unsigned kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(v)),
                                           "invariant.load", 14);
  return LLVMGetMetadata(v, kind) != NULL;
}

/* Whether v is the same for every work-item of a group. */
static int uniform(LLVMValueRef body, LLVMValueRef v, unsigned depth) {
  if (LLVMIsAConstant(v)) return 1;
  if (LLVMIsAArgument(v)) {
    unsigned n = LLVMCountParams(body), k = 0;
    while (k < n && LLVMGetParam(body, k) != v) k++;
    return k < n - WEFT_BODY_EXTRA_PARAMS ||
           k == n - WEFT_BODY_EXTRA_PARAMS + WEFT_BODY_CTX;
  }
  if (!LLVMIsAInstruction(v) || !depth) return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMLoad:
    if (!is_invariant_load(v)) return 0;
    break;
  case LLVMGetElementPtr: case LLVMBitCast: case LLVMAddrSpaceCast:
  case LLVMIntToPtr: case LLVMPtrToInt: case LLVMTrunc: case LLVMZExt:
  case LLVMSExt: case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl:
  case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
  case LLVMICmp: case LLVMSelect: case LLVMFreeze:
    break;
  default:
    return 0;
  }
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (!uniform(body, LLVMGetOperand(v, i), depth - 1)) return 0;
  return 1;
}

int weft__counters_of(LLVMValueRef body, LLVMValueRef ptr, weft_counters *out) {
  if (uniform(body, ptr, MOST_DEPTH)) {
    *out = (weft_counters){1, NULL};
    return 1;
  }
  if (!LLVMIsAGetElementPtrInst(ptr)) return 0;
  int n = LLVMGetNumOperands(ptr);
  for (int i = 0; i < n - 1; i++)
    if (!uniform(body, LLVMGetOperand(ptr, i), MOST_DEPTH)) return 0;
  LLVMValueRef key = LLVMGetOperand(ptr, (unsigned)(n - 1));
  uint64_t hi;
  if (n < 2 || !weft__value_bound(key, &hi) || hi >= WEFT_AGGREGATE_KEYS)
    return 0;
  *out = (weft_counters){(unsigned)hi + 1, key};
  return 1;
}

/* v, which uniform() accepted, made again at the builder. */
static LLVMValueRef remake(LLVMBuilderRef b, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v)) return v;
  LLVMValueRef copy = LLVMInstructionClone(v);
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    LLVMSetOperand(copy, (unsigned)i, remake(b, LLVMGetOperand(v, i)));
  LLVMInsertIntoBuilder(b, copy);
  return copy;
}

LLVMValueRef weft__counter_address(LLVMBuilderRef b, LLVMValueRef ptr,
                                   const weft_counters *counters,
                                   LLVMValueRef key) {
  /* The key's own computation is never made again: it may read memory. */
  if (!counters->key) return remake(b, ptr);
  LLVMValueRef copy = LLVMInstructionClone(ptr);
  int n = LLVMGetNumOperands(ptr);
  for (int i = 0; i < n - 1; i++)
    LLVMSetOperand(copy, (unsigned)i, remake(b, LLVMGetOperand(ptr, i)));
  LLVMTypeRef index = LLVMTypeOf(counters->key);
  LLVMSetOperand(copy, (unsigned)(n - 1),
                 LLVMBuildIntCast2(b, key, index, 0, ""));
  LLVMInsertIntoBuilder(b, copy);
  return copy;
}
