/* jam_masked.c: a predicated branch's scalar accesses of consecutive
 * elements, one a work-item, as one masked vector access in a jam.
 *
 * jam_predicate.c makes a scalar load or store in a branch that
 * work-items take differently an access of masked_address's choice: the
 * element where the work-item's mask is set, a private word elsewhere.
 * Jammed, that is a select, a load or store per lane; where the lanes'
 * elements are consecutive (`if (l < d) t[l] += t[l + d];`, a tree in
 * __local memory: the element's index steps with x), the jam makes them
 * one llvm.masked.load or llvm.masked.store of the lanes' vector at lane
 * 0's element, the lanes' masks its mask (on the EPYC, such a tree's
 * step in a jam of whole sub-groups ran 16 scalar selects, loads and
 * stores a lane). Only where the machine has masked vector moves (AVX
 * and wider: of 32- and 64-bit elements); a masked-off lane touches no
 * memory either way. */
#include "jit/cpu/jam.h"

/* Whether masked vector moves of t's elements are instructions here. */
static int vector_moves(const weft_jam *j, LLVMTypeRef t) {
  if (j->vector_bits < 256) return 0;
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind:
    return LLVMGetIntTypeWidth(t) == 32 || LLVMGetIntTypeWidth(t) == 64;
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
    return 1;
  default:
    return 0;
  }
}

/* Whether v is the same for the jam's work-items (a tree's d, kept in
 * memory between regions, is: they read one place). */
static int shared(LLVMValueRef v, void *jam) {
  const weft_jam *j = jam;
  unsigned k = weft__jam_index(j, v);
  return k == j->count ? LLVMIsAConstant(v) != NULL : !j->varying[k];
}

/* Whether address p of a t is element i of an array whose element
 * index steps with x: `gep t, base, i` or `gep [n x t], base, 0, i`, i
 * one more a work-item further in x, with no cast (no wrap), base the
 * same for them all. */
static int consecutive(const weft_jam *j, LLVMValueRef p, LLVMTypeRef t) {
  if (!LLVMIsAGetElementPtrInst(p)) return 0;
  unsigned n = (unsigned)LLVMGetNumOperands(p);
  LLVMTypeRef source = LLVMGetGEPSourceElementType(p);
  int shape = n == 2 ? source == t
              : n == 3 ? LLVMGetTypeKind(source) == LLVMArrayTypeKind &&
                             LLVMGetElementType(source) == t &&
                             LLVMIsAConstantInt(LLVMGetOperand(p, 1)) &&
                             LLVMConstIntGetZExtValue(LLVMGetOperand(p, 1)) == 0
                       : 0;
  return shape &&
         weft__steps_with_x_where(j->body, LLVMGetOperand(p, n - 1), 0, shared,
                                  (void *)j) &&
         shared(LLVMGetOperand(p, 0), (void *)j);
}

int weft__jam_masked_vector(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst) {
  int is_load = LLVMIsALoadInst(inst) != NULL;
  if (!is_load && !LLVMIsAStoreInst(inst)) return 0;
  unsigned k = weft__jam_index(j, inst);
  unsigned p = is_load ? 0 : 1;
  LLVMValueRef choice = weft__jam_masked_choice(LLVMGetOperand(inst, p));
  LLVMTypeRef t = is_load ? LLVMTypeOf(inst) : LLVMTypeOf(LLVMGetOperand(inst, 0));
  if (!j->varying[k] || !choice || LLVMGetVolatile(inst) ||
      LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic ||
      !vector_moves(j, t) || !consecutive(j, LLVMGetOperand(choice, 1), t))
    return 0;
  LLVMModuleRef m = LLVMGetGlobalParent(j->fn);
  LLVMValueRef at = weft__jam_whole(j, b, LLVMGetOperand(choice, 1), 0);
  LLVMValueRef mask = weft__jam_items_vector(j, b, LLVMGetOperand(choice, 0), 0, j->width);
  LLVMValueRef align = LLVMConstInt(LLVMInt32TypeInContext(j->context),
                                    LLVMGetAlignment(inst), 0);
  LLVMTypeRef vt = LLVMVectorType(t, j->width);
  LLVMTypeRef types[] = {vt, LLVMTypeOf(at)};
  LLVMValueRef *copies = &j->copies[(size_t)k * j->width];
  if (is_load) {
    LLVMValueRef args[] = {at, align, mask, LLVMConstNull(vt)};
    LLVMValueRef v = weft__intrinsic_call(b, m, "llvm.masked.load", types, 2, args, 4);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(j->context);
    for (unsigned lane = 0; lane < j->width; lane++)
      copies[lane] = LLVMBuildExtractElement(b, v, LLVMConstInt(i32, lane, 0), "");
  } else {
    LLVMValueRef args[] = {
        weft__jam_items_vector(j, b, LLVMGetOperand(inst, 0), 0, j->width), at,
        align, mask};
    LLVMValueRef call =
        weft__intrinsic_call(b, m, "llvm.masked.store", types, 2, args, 4);
    for (unsigned lane = 0; lane < j->width; lane++) copies[lane] = call;
  }
  j->finished[k] = 1;
  return 1;
}
