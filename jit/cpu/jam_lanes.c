/* jam_lanes.c: a jammed body's vectors taken apart into lanes.
 *
 * A work-item's own vectors (a float4 position, clpeak's float8 chains)
 * would stay one short vector per work-item in a jammed body: LLVM's SLP
 * vectorizer packs scalars side by side, not vectors, so eight work-items'
 * float2 arithmetic stays eight 2-lane operations. Made lane by lane
 * instead (what LLVM's scalarizer pass does, here for the jammed bodies
 * alone: on the whole module it slowed the image kernels by half), lane 0
 * of every work-item lines up with lane 0 of the next, and SLP makes
 * full-width vectors across the work-items.
 *
 * Only elementwise instructions are taken apart: arithmetic, compares,
 * casts that keep the lane count, selects, inserts and shuffles (whose
 * lanes are other values' lanes), phis, and the elementwise intrinsics
 * (fmuladd, fma, sqrt, fabs, min/max ...). A use that needs the vector
 * whole (a store, a call, a bitcast) gets it put together again
 * (insertelement), and a vector made whole (a load) is read lane by lane
 * (extractelement); LLVM's instcombine folds what pairs up.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/jam.h"

/* The lanes of t when it is a vector of numbers narrower than the
 * machine's registers (a float16 on AVX-512 is one register already:
 * the work-items' registers side by side are the chains), else 0. */
static unsigned lanes_of_type(const weft_jam *j, LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return 0;
  unsigned n = LLVMGetVectorSize(t), bits;
  LLVMTypeRef lane = LLVMGetElementType(t);
  switch (LLVMGetTypeKind(lane)) {
  case LLVMIntegerTypeKind:
    bits = LLVMGetIntTypeWidth(lane);
    break;
  case LLVMHalfTypeKind:
    bits = 16;
    break;
  case LLVMFloatTypeKind:
    bits = 32;
    break;
  case LLVMDoubleTypeKind:
    bits = 64;
    break;
  default:
    return 0;
  }
  return n * bits < j->vector_bits ? n : 0;
}

static LLVMValueRef *lanes_of(const weft_jam *j, LLVMValueRef v,
                              unsigned item) {
  unsigned k = weft__jam_index(j, v);
  if (k == j->count) return NULL;
  return j->lanes[(size_t)k * j->width + (j->varying[k] ? item : 0)];
}

int weft__jam_is_split(const weft_jam *j, LLVMValueRef v, unsigned item) {
  return lanes_of(j, v, item) != NULL;
}

static LLVMValueRef lane_index(const weft_jam *j, unsigned e) {
  return LLVMConstInt(LLVMInt32TypeInContext(j->context), e, 0);
}

/* Lane e of work-item item's v (read at the builder where v is whole). */
static LLVMValueRef lane(weft_jam *j, LLVMBuilderRef b, LLVMValueRef v,
                         unsigned item, unsigned e) {
  LLVMValueRef *lanes = lanes_of(j, v, item);
  if (lanes) return lanes[e];
  if (LLVMIsAConstant(v)) {
    LLVMValueRef c = LLVMGetAggregateElement(v, e);
    if (c) return c;
  }
  return LLVMBuildExtractElement(b, weft__jam_copy(j, v, item),
                                 lane_index(j, e), "");
}

LLVMValueRef weft__jam_whole(weft_jam *j, LLVMBuilderRef b, LLVMValueRef v,
                             unsigned item) {
  LLVMValueRef *lanes = lanes_of(j, v, item);
  if (!lanes) return weft__jam_copy(j, v, item);
  LLVMTypeRef type = LLVMTypeOf(v);
  LLVMValueRef whole = LLVMGetPoison(type);
  for (unsigned e = 0; e < LLVMGetVectorSize(type); e++)
    whole = LLVMBuildInsertElement(b, whole, lanes[e], lane_index(j, e), "");
  return whole;
}

LLVMValueRef weft__jam_items_vector(weft_jam *j, LLVMBuilderRef b,
                                   LLVMValueRef v, unsigned first,
                                   unsigned n) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(j->context);
  LLVMValueRef all = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(v), n));
  for (unsigned k = 0; k < n; k++)
    all = LLVMBuildInsertElement(b, all, weft__jam_whole(j, b, v, first + k),
                                 LLVMConstInt(i32, k, 0), "");
  return all;
}

/* ------------------------------------------------------------ which */

static int is_cast_keeping_lanes(LLVMOpcode op) {
  switch (op) {
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMFPToUI:
  case LLVMFPToSI:
  case LLVMUIToFP:
  case LLVMSIToFP:
  case LLVMFPTrunc:
  case LLVMFPExt:
    return 1;
  default:
    return 0;
  }
}

/* The intrinsic of call when it works lane by lane with every argument
 * of its result's type, else 0. */
static unsigned elementwise_intrinsic(LLVMValueRef call) {
  static const char *const names[] = {
      "llvm.fmuladd", "llvm.fma",   "llvm.sqrt",  "llvm.fabs",
      "llvm.minnum",  "llvm.maxnum", "llvm.copysign", "llvm.floor",
      "llvm.ceil",    "llvm.trunc", "llvm.rint",  "llvm.smin",
      "llvm.smax",    "llvm.umin",  "llvm.umax"};
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!LLVMIsAFunction(callee) || !LLVMGetIntrinsicID(callee)) return 0;
  size_t length;
  const char *name = LLVMGetValueName2(callee, &length);
  for (size_t n = 0; n < sizeof names / sizeof *names; n++) {
    size_t size = strlen(names[n]);
    if (length > size && !strncmp(name, names[n], size) && name[size] == '.')
      goto known;
  }
  return 0;
known:;
  LLVMTypeRef type = LLVMTypeOf(call);
  for (unsigned a = 0; a < LLVMGetNumArgOperands(call); a++)
    if (LLVMTypeOf(LLVMGetOperand(call, a)) != type) return 0;
  return LLVMGetIntrinsicID(callee);
}

/* Whether inst (of a vector type of lanes_of_type) can be made lane by
 * lane. */
static int elementwise(const weft_jam *j, LLVMValueRef inst, unsigned lanes) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (LLVMIsABinaryOperator(inst) || op == LLVMFNeg || op == LLVMPHI)
    return 1;
  if (is_cast_keeping_lanes(op) || op == LLVMICmp || op == LLVMFCmp)
    return lanes_of_type(j, LLVMTypeOf(LLVMGetOperand(inst, 0))) == lanes;
  switch (op) {
  case LLVMSelect:
    return LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(inst, 0))) !=
               LLVMVectorTypeKind ||
           LLVMGetVectorSize(LLVMTypeOf(LLVMGetOperand(inst, 0))) == lanes;
  case LLVMInsertElement:
    return LLVMIsAConstantInt(LLVMGetOperand(inst, 2)) &&
           LLVMConstIntGetZExtValue(LLVMGetOperand(inst, 2)) < lanes;
  case LLVMShuffleVector:
    return lanes_of_type(j, LLVMTypeOf(LLVMGetOperand(inst, 0))) > 0;
  case LLVMCall:
    return elementwise_intrinsic(inst) != 0;
  default:
    return 0;
  }
}

/* ------------------------------------------------------------ making */

/* The flags of from (no-wrap, exact, fast-math) on to, where to is an
 * instruction (the builder folds constants). */
static void copy_flags(LLVMValueRef from, LLVMValueRef to) {
  if (!LLVMIsAInstruction(to)) return;
  if (LLVMCanValueUseFastMathFlags(from) && LLVMCanValueUseFastMathFlags(to))
    LLVMSetFastMathFlags(to, LLVMGetFastMathFlags(from));
  switch (LLVMGetInstructionOpcode(from)) {
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMShl:
    LLVMSetNSW(to, LLVMGetNSW(from));
    LLVMSetNUW(to, LLVMGetNUW(from));
    break;
  case LLVMUDiv:
  case LLVMSDiv:
  case LLVMLShr:
  case LLVMAShr:
    LLVMSetExact(to, LLVMGetExact(from));
    break;
  default:
    break;
  }
}

static LLVMValueRef call_lane(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst,
                              unsigned item, unsigned e) {
  unsigned id = elementwise_intrinsic(inst);
  LLVMTypeRef type = LLVMGetElementType(LLVMTypeOf(inst));
  unsigned n = LLVMGetNumArgOperands(inst);
  LLVMValueRef args[n ? n : 1];
  for (unsigned a = 0; a < n; a++) args[a] = lane(j, b, LLVMGetOperand(inst, a), item, e);
  LLVMValueRef fn =
      LLVMGetIntrinsicDeclaration(LLVMGetGlobalParent(j->fn), id, &type, 1);
  return LLVMBuildCall2(b, LLVMIntrinsicGetType(j->context, id, &type, 1), fn,
                        args, n, "");
}

/* Lane e of work-item item's inst (elementwise), made at the builder. */
static LLVMValueRef make_lane(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst,
                              unsigned item, unsigned e) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  LLVMTypeRef type = LLVMGetElementType(LLVMTypeOf(inst));
#define OPERAND(o) lane(j, b, LLVMGetOperand(inst, o), item, e)
  if (LLVMIsABinaryOperator(inst))
    return LLVMBuildBinOp(b, op, OPERAND(0), OPERAND(1), "");
  if (is_cast_keeping_lanes(op)) return LLVMBuildCast(b, op, OPERAND(0), type, "");
  switch (op) {
  case LLVMFNeg:
    return LLVMBuildFNeg(b, OPERAND(0), "");
  case LLVMICmp:
    return LLVMBuildICmp(b, LLVMGetICmpPredicate(inst), OPERAND(0), OPERAND(1), "");
  case LLVMFCmp:
    return LLVMBuildFCmp(b, LLVMGetFCmpPredicate(inst), OPERAND(0), OPERAND(1), "");
  case LLVMSelect: {
    LLVMValueRef condition = LLVMGetOperand(inst, 0);
    LLVMValueRef pick =
        LLVMGetTypeKind(LLVMTypeOf(condition)) == LLVMVectorTypeKind
            ? OPERAND(0)
            : weft__jam_copy(j, condition, item);
    return LLVMBuildSelect(b, pick, OPERAND(1), OPERAND(2), "");
  }
  case LLVMInsertElement:
    return e == LLVMConstIntGetZExtValue(LLVMGetOperand(inst, 2))
               ? weft__jam_copy(j, LLVMGetOperand(inst, 1), item)
               : OPERAND(0);
  case LLVMShuffleVector: {
    int m = LLVMGetMaskValue(inst, e);
    unsigned first = LLVMGetVectorSize(LLVMTypeOf(LLVMGetOperand(inst, 0)));
    if (m == LLVMGetUndefMaskElem()) return LLVMGetPoison(type);
    return (unsigned)m < first
               ? lane(j, b, LLVMGetOperand(inst, 0), item, (unsigned)m)
               : lane(j, b, LLVMGetOperand(inst, 1), item, (unsigned)m - first);
  }
  case LLVMCall:
    return call_lane(j, b, inst, item, e);
  default:
    assert(!"not elementwise");
    return NULL;
  }
#undef OPERAND
}

/* inst an extractelement at a constant lane of a vector taken apart:
 * that lane stands for it, work-item by work-item. */
static int alias_extract(weft_jam *j, LLVMValueRef inst) {
  LLVMValueRef vector = LLVMGetOperand(inst, 0), at = LLVMGetOperand(inst, 1);
  if (!LLVMIsAConstantInt(at) || !weft__jam_is_split(j, vector, 0)) return 0;
  uint64_t e = LLVMConstIntGetZExtValue(at);
  if (e >= LLVMGetVectorSize(LLVMTypeOf(vector))) return 0;
  unsigned k = weft__jam_index(j, inst);
  for (unsigned item = 0; item < j->width; item++)
    j->copies[(size_t)k * j->width + item] = lanes_of(j, vector, item)[e];
  j->finished[k] = 1;
  return 1;
}

int weft__jam_split(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst) {
  if (LLVMIsAExtractElementInst(inst)) return alias_extract(j, inst);
  unsigned lanes = lanes_of_type(j, LLVMTypeOf(inst));
  if (!lanes || !elementwise(j, inst, lanes)) return 0;
  unsigned k = weft__jam_index(j, inst);
  LLVMValueRef **slot = &j->lanes[(size_t)k * j->width];
  for (unsigned item = 0; item < j->width; item++) {
    slot[item] = malloc(lanes * sizeof **slot);
    if (!slot[item]) {
      for (unsigned i = 0; i <= item; i++) free(slot[i]), slot[i] = NULL;
      return 0; /* kept whole: nothing is lost but speed */
    }
  }
  LLVMTypeRef type = LLVMGetElementType(LLVMTypeOf(inst));
  for (unsigned item = 0; item < j->width; item++)
    for (unsigned e = 0; e < lanes; e++) {
      slot[item][e] = LLVMIsAPHINode(inst) ? LLVMBuildPhi(b, type, "")
                                           : make_lane(j, b, inst, item, e);
      copy_flags(inst, slot[item][e]);
    }
  return 1;
}

void weft__jam_lanes_phi(weft_jam *j, LLVMBuilderRef b, LLVMValueRef phi,
                         unsigned item) {
  LLVMValueRef *lanes = lanes_of(j, phi, item);
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(phi));
  for (unsigned in = 0; in < LLVMCountIncoming(phi); in++) {
    if (!weft__jam_scope_reaches(j->scope, LLVMGetIncomingBlock(phi, in)))
      continue; /* an edge the state never takes */
    LLVMBasicBlockRef from = weft__jam_block(j, LLVMGetIncomingBlock(phi, in));
    LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(from));
    for (unsigned e = 0; e < n; e++) {
      LLVMValueRef value = lane(j, b, LLVMGetIncomingValue(phi, in), item, e);
      value = weft__jam_loops_carry(j, b, phi, LLVMGetIncomingBlock(phi, in),
                                    item, value, lanes[e]);
      LLVMAddIncoming(lanes[e], &value, &from, 1);
    }
  }
}
