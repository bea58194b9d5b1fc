/* pointers.c: where a pointer points (ir.h): the value its GEPs and
 * casts, instructions or constant expressions, are made from. */
#include "jit/ir/ir.h"

/* The operand p is made from without leaving its object, or NULL. */
static LLVMValueRef derived_from(LLVMValueRef p) {
  if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
      LLVMIsAAddrSpaceCastInst(p))
    return LLVMGetOperand(p, 0);
  if (LLVMIsAConstantExpr(p)) {
    LLVMOpcode op = LLVMGetConstOpcode(p);
    if (op == LLVMGetElementPtr || op == LLVMBitCast || op == LLVMAddrSpaceCast)
      return LLVMGetOperand(p, 0);
  }
  return NULL;
}

LLVMValueRef weft__pointer_root(LLVMValueRef p) {
  for (LLVMValueRef from; (from = derived_from(p));) p = from;
  return p;
}
