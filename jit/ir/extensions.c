/* extensions.c: a 32-bit index's extension to 64 bits pushed down to its
 * leaves, through the operations that may not wrap.
 *
 * OpenCL C code indexes with ints: `a[k * n + i]` is, in LLVM,
 * sext(add nsw (mul nsw k, n), i), which LLVM cannot see through (the
 * 32-bit sum might wrap), so it takes neither the addresses of
 * neighbouring work-items (the CPU's jam, jit/cpu/wide_indices.c) nor
 * those of a loop's turns (the GPU's stride loops,
 * jit/ptx/ptx_stride_loops.c) as steps of one another. Made
 * sext(k) * sext(n) + sext(i), they are.
 *
 * Always correct: an add, subtract, multiply or left shift that may not
 * wrap as signed (nsw) extends with sign as its operands' extensions do
 * (nuw likewise for zero extension); where it would wrap its result was
 * poison, which any value refines. The old 32-bit chain stays for its
 * other users, or goes as dead code. */
#include <assert.h>

#include <llvm-c/DebugInfo.h>

#include "jit/ir/ir.h"

/* Whether v, of an operation in a chain, may be extended through: its
 * flag says it does not wrap the way the extension reads it. */
static int extends_through(LLVMValueRef v, int sign) {
  if (!LLVMIsABinaryOperator(v)) return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
    break;
  case LLVMShl:
    if (!LLVMIsAConstantInt(LLVMGetOperand(v, 1))) return 0;
    break;
  default:
    return 0;
  }
  return sign ? LLVMGetNSW(v) : LLVMGetNUW(v);
}

int weft__index_extension(LLVMValueRef inst, int *sign) {
  if (!LLVMIsACastInst(inst)) return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op != LLVMSExt && op != LLVMZExt) return 0;
  *sign = op == LLVMSExt;
  LLVMTypeRef to = LLVMTypeOf(inst), from = LLVMTypeOf(LLVMGetOperand(inst, 0));
  if (LLVMGetTypeKind(to) != LLVMIntegerTypeKind) return 0; /* a vector's */
  return LLVMGetIntTypeWidth(to) == 64 && LLVMGetIntTypeWidth(from) == 32;
}

int weft__extension_reaches(LLVMValueRef v, int sign, unsigned depth,
                            weft_instruction_test leaf, void *data) {
  if (leaf(v, data)) return 1;
  if (!depth || !extends_through(v, sign)) return 0;
  return weft__extension_reaches(LLVMGetOperand(v, 0), sign, depth - 1,
                                 leaf, data) ||
         weft__extension_reaches(LLVMGetOperand(v, 1), sign, depth - 1,
                                 leaf, data);
}

/* v extended to type, its chain's operations done in type, at the
 * builder, with loc. */
static LLVMValueRef widen(LLVMBuilderRef b, LLVMValueRef v, LLVMTypeRef type,
                          int sign, unsigned depth, LLVMMetadataRef loc) {
  if (!depth || !extends_through(v, sign))
    return sign ? LLVMBuildSExt(b, v, type, "") : LLVMBuildZExt(b, v, type, "");
  LLVMValueRef l = widen(b, LLVMGetOperand(v, 0), type, sign, depth - 1, loc);
  LLVMValueRef r = widen(b, LLVMGetOperand(v, 1), type, sign, depth - 1, loc);
  LLVMValueRef w = LLVMBuildBinOp(b, LLVMGetInstructionOpcode(v), l, r, "");
  if (LLVMIsAInstruction(w)) {
    if (sign) LLVMSetNSW(w, 1);
    else LLVMSetNUW(w, 1);
    LLVMInstructionSetDebugLoc(w, loc);
  }
  return w;
}

void weft__extension_push_down(LLVMBuilderRef b, LLVMValueRef ext,
                               unsigned depth) {
  int sign;
  int is_extension = weft__index_extension(ext, &sign);
  assert(is_extension);
  (void)is_extension;
  LLVMPositionBuilderBefore(b, ext);
  LLVMValueRef wide = widen(b, LLVMGetOperand(ext, 0), LLVMTypeOf(ext), sign,
                            depth, LLVMInstructionGetDebugLoc(ext));
  LLVMReplaceAllUsesWith(ext, wide);
  LLVMInstructionEraseFromParent(ext);
}
