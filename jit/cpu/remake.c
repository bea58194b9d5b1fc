/* remake.c: values a pass may compute again elsewhere in a body (see
 * passes.h): regions make a value computed from the local id again after
 * a barrier instead of saving it (regions.c), the aggregation makes a
 * counter's address again in the work-item that makes the group's atomic
 * (aggregate_address.c). */
#include "jit/cpu/passes.h"

int weft__remakeable(LLVMValueRef body, LLVMValueRef v, unsigned excluded,
                     unsigned *budget) {
  if (LLVMIsAConstant(v)) return 1;
  if (LLVMIsAArgument(v)) {
    unsigned n = LLVMCountParams(body), k = 0;
    while (k < n && LLVMGetParam(body, k) != v) k++;
    unsigned own = n - WEFT_BODY_EXTRA_PARAMS;
    return k < own || !(excluded >> (k - own) & 1);
  }
  if (!LLVMIsAInstruction(v) || !*budget) return 0;
  --*budget;
  if (LLVMIsALoadInst(v)) {
    unsigned kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(v)),
                                             "invariant.load", 14);
    if (!LLVMGetMetadata(v, kind) || LLVMGetVolatile(v)) return 0;
  } else if (/* not a freeze: made twice, one of poison may give two values */
             !LLVMIsABinaryOperator(v) && !LLVMIsACastInst(v) &&
             !LLVMIsAICmpInst(v) && !LLVMIsAGetElementPtrInst(v) &&
             !LLVMIsASelectInst(v)) {
    return 0;
  }
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (!weft__remakeable(body, LLVMGetOperand(v, (unsigned)i), excluded,
                          budget))
      return 0;
  return 1;
}
