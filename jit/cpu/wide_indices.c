/* wide_indices.c: a 32-bit index's extension to 64 bits pushed down to
 * its leaves, where the index is computed from a work-item id.
 *
 * OpenCL C code indexes with ints: `int i = get_global_id(0); ...
 * a[k * n + i]` is, in LLVM, sext(add nsw (mul nsw k, n), trunc(id)).
 * Jammed side by side (jam.c), work-item x+1's address is then
 * sext(k*n + trunc(id + 1)), which LLVM cannot tell is one element past
 * x's (the 32-bit sum might wrap between them), so it loads and
 * multiplies each work-item's element apart: CLBlast's transposed Sgemv
 * took 2.7 times PoCL's time on the EPYC. Made sext(k*n) + sext(trunc(id)),
 * the id's extension is a leaf that the jam makes x's plus one a
 * work-item (where no int between them wraps: jam_ids.c), and the
 * work-items' addresses are one element apart in LLVM's eyes as they
 * are in fact.
 *
 * Always correct: an add, subtract, multiply or left shift that may not
 * wrap as signed (nsw) extends with sign as its operands' extensions do
 * (nuw likewise for zero extension); where it would wrap its result was
 * poison, which any value refines. Only chains that reach a work-item
 * id are rewritten (the others gain nothing); the old 32-bit chain stays
 * for its other users, or goes as dead code. */
#include <stdlib.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/passes.h"

/* How many operations deep a chain is followed from its extension. */
#define WIDE_DEPTH 8

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

/* Whether v is a work-item id cut to 32 bits: a truncation of a value
 * that steps with x (what jam_ids.c takes an extension of). */
static int id_leaf(LLVMValueRef body, LLVMValueRef v) {
  return LLVMIsATruncInst(v) &&
         weft__steps_with_x(body, LLVMGetOperand(v, 0), 0);
}

/* Whether the chain of v reaches a work-item id within depth. */
static int reaches_id(LLVMValueRef body, LLVMValueRef v, int sign,
                      unsigned depth) {
  if (id_leaf(body, v)) return 1;
  if (!depth || !extends_through(v, sign)) return 0;
  return reaches_id(body, LLVMGetOperand(v, 0), sign, depth - 1) ||
         reaches_id(body, LLVMGetOperand(v, 1), sign, depth - 1);
}

/* v extended to type, its chain's operations done in type, at the
 * builder (before the extension it replaces), with loc. */
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

/* Whether inst extends a 32-bit value to 64 bits; *sign: with its sign. */
static int is_index_extension(LLVMValueRef inst, int *sign) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op != LLVMSExt && op != LLVMZExt) return 0;
  *sign = op == LLVMSExt;
  LLVMTypeRef to = LLVMTypeOf(inst), from = LLVMTypeOf(LLVMGetOperand(inst, 0));
  if (LLVMGetTypeKind(to) != LLVMIntegerTypeKind) return 0; /* a vector's */
  return LLVMGetIntTypeWidth(to) == 64 && LLVMGetIntTypeWidth(from) == 32;
}

static int is_barrier(LLVMValueRef inst, void *unused) {
  (void)unused;
  return weft__is_call_to(inst, WEFT_BARRIER_SYMBOL);
}

/* Widens the index extensions of block bb; how many. */
static unsigned widen_block(LLVMValueRef body, LLVMBuilderRef b,
                            LLVMBasicBlockRef bb) {
  unsigned widened = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    int sign;
    if (!LLVMIsACastInst(i) || !is_index_extension(i, &sign)) continue;
    LLVMValueRef from = LLVMGetOperand(i, 0);
    /* A leaf already, or nothing to gain. */
    if (id_leaf(body, from) || !reaches_id(body, from, sign, WIDE_DEPTH))
      continue;
    LLVMPositionBuilderBefore(b, i);
    LLVMValueRef wide = widen(b, from, LLVMTypeOf(i), sign, WIDE_DEPTH,
                              LLVMInstructionGetDebugLoc(i));
    LLVMReplaceAllUsesWith(i, wide);
    LLVMInstructionEraseFromParent(i);
    widened++;
  }
  return widened;
}

/* Only in loops without barriers, which jam.c runs side by side: where
 * the loop vectorizer has the work-items' loop instead (a body or a
 * region without loops of its own), it does better with the index as
 * it was (stencil3d's int indices took 10.5 ms widened, 6.0 not). */
unsigned weft__wide_indices(LLVMValueRef body) {
  weft_cfg g;
  if (weft__cfg_make(body, &g)) return 0;
  unsigned char *in_loop = malloc(g.count + 1);
  unsigned widened = 0;
  if (in_loop && !weft__cfg_in_loops(&g, in_loop, is_barrier, NULL)) {
    LLVMBuilderRef b =
        LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(body)));
    for (unsigned i = 0; i < g.count; i++)
      if (in_loop[i]) widened += widen_block(body, b, g.blocks[i]);
    LLVMDisposeBuilder(b);
  }
  free(in_loop);
  weft__cfg_free(&g);
  return widened;
}
