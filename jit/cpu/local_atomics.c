/* local_atomics.c: step 6 of passes.h (before the address spaces are
 * flattened), atomics on __local memory as plain reads and writes.
 *
 * A work-group's local memory is its own, and on the CPU its work-items
 * run on one thread at a time, whatever the mode (regions, fibers, the
 * cooperative scheduler's fiber per group, schedule exploration): they
 * change hands only at barriers, waits, yields and schedule points,
 * which are calls. So an atomic read-modify-write on __local memory is
 * never interrupted by another work-item between its read and its write
 * when it is a plain read and write, and needs no locked instruction (a
 * lock-prefixed add costs about twenty cycles, most of a __local
 * histogram's time). Atomic loads and stores there become plain ones
 * too (a seq_cst store is an xchg). The reads and writes are volatile:
 * a work-item polling __local memory around a yield is still compiled as
 * polling. Check mode's and schedule exploration's calls were placed
 * before, at the atomics themselves, and stay.
 */
#include <stdlib.h>

#include "jit/cpu/passes.h"

static int in_local_memory(LLVMValueRef pointer) {
  return LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)) == WEFT_AS_LOCAL;
}

static LLVMValueRef volatile_load(LLVMBuilderRef b, LLVMTypeRef type,
                                  LLVMValueRef pointer) {
  LLVMValueRef load = LLVMBuildLoad2(b, type, pointer, "");
  LLVMSetVolatile(load, 1);
  return load;
}

static void volatile_store(LLVMBuilderRef b, LLVMValueRef v,
                           LLVMValueRef pointer) {
  LLVMSetVolatile(LLVMBuildStore(b, v, pointer), 1);
}

/* old if it compares so with v, else v (max and min). */
static LLVMValueRef keep_if(LLVMBuilderRef b, LLVMIntPredicate p,
                            LLVMValueRef old, LLVMValueRef v) {
  return LLVMBuildSelect(b, LLVMBuildICmp(b, p, old, v, ""), old, v, "");
}

/* The new value of old OP v, or NULL for an operation not handled here
 * (the atomic then stays). */
static LLVMValueRef apply(LLVMBuilderRef b, LLVMAtomicRMWBinOp op,
                          LLVMValueRef old, LLVMValueRef v) {
  LLVMTypeRef type = LLVMTypeOf(old);
  int is_int = LLVMGetTypeKind(type) == LLVMIntegerTypeKind;
  switch (op) {
  case LLVMAtomicRMWBinOpXchg: return v;
  case LLVMAtomicRMWBinOpAdd: return is_int ? LLVMBuildAdd(b, old, v, "") : NULL;
  case LLVMAtomicRMWBinOpSub: return is_int ? LLVMBuildSub(b, old, v, "") : NULL;
  case LLVMAtomicRMWBinOpAnd: return LLVMBuildAnd(b, old, v, "");
  case LLVMAtomicRMWBinOpNand:
    return LLVMBuildNot(b, LLVMBuildAnd(b, old, v, ""), "");
  case LLVMAtomicRMWBinOpOr: return LLVMBuildOr(b, old, v, "");
  case LLVMAtomicRMWBinOpXor: return LLVMBuildXor(b, old, v, "");
  case LLVMAtomicRMWBinOpMax: return keep_if(b, LLVMIntSGT, old, v);
  case LLVMAtomicRMWBinOpMin: return keep_if(b, LLVMIntSLT, old, v);
  case LLVMAtomicRMWBinOpUMax: return keep_if(b, LLVMIntUGT, old, v);
  case LLVMAtomicRMWBinOpUMin: return keep_if(b, LLVMIntULT, old, v);
  case LLVMAtomicRMWBinOpFAdd: return LLVMBuildFAdd(b, old, v, "");
  case LLVMAtomicRMWBinOpFSub: return LLVMBuildFSub(b, old, v, "");
  default:
    return NULL; /* fmax/fmin's NaN rules, the wrapping inc/dec: as they are */
  }
}

static void lower_rmw(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMValueRef pointer = LLVMGetOperand(inst, 0);
  LLVMValueRef v = LLVMGetOperand(inst, 1);
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef old = volatile_load(b, LLVMTypeOf(v), pointer);
  LLVMValueRef updated = apply(b, LLVMGetAtomicRMWBinOp(inst), old, v);
  if (!updated) {
    /* Kept atomic: the volatile load would stay, unused. */
    LLVMInstructionEraseFromParent(old);
    return;
  }
  volatile_store(b, updated, pointer);
  LLVMReplaceAllUsesWith(inst, old);
  LLVMInstructionEraseFromParent(inst);
}

/* An integer cmpxchg gives {old, whether it stored}; one on pointers
 * stays atomic (rare, and icmp on them would need casts). */
static void lower_cmpxchg(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMValueRef pointer = LLVMGetOperand(inst, 0);
  LLVMValueRef expected = LLVMGetOperand(inst, 1);
  LLVMValueRef desired = LLVMGetOperand(inst, 2);
  if (LLVMGetTypeKind(LLVMTypeOf(expected)) != LLVMIntegerTypeKind) return;
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef old = volatile_load(b, LLVMTypeOf(expected), pointer);
  LLVMValueRef equal = LLVMBuildICmp(b, LLVMIntEQ, old, expected, "");
  volatile_store(b, LLVMBuildSelect(b, equal, desired, old, ""), pointer);
  LLVMValueRef pair = LLVMGetUndef(LLVMTypeOf(inst));
  pair = LLVMBuildInsertValue(b, pair, old, 0, "");
  pair = LLVMBuildInsertValue(b, pair, equal, 1, "");
  LLVMReplaceAllUsesWith(inst, pair);
  LLVMInstructionEraseFromParent(inst);
}

/* An atomic load or store: the same access, plain and volatile. */
static void lower_access(LLVMValueRef inst) {
  LLVMSetOrdering(inst, LLVMAtomicOrderingNotAtomic);
  LLVMSetVolatile(inst, 1);
}

/* Whether inst is an atomic access to __local memory. */
static int is_local_atomic(LLVMValueRef inst, void *unused) {
  (void)unused;
  if (LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst))
    return in_local_memory(LLVMGetOperand(inst, 0));
  if (LLVMIsALoadInst(inst) || LLVMIsAStoreInst(inst))
    return LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic &&
           in_local_memory(LLVMGetOperand(inst, LLVMIsALoadInst(inst) ? 0 : 1));
  return 0;
}

void weft__local_atomics_lower(LLVMValueRef fn) {
  unsigned n = 0;
  LLVMValueRef *found = weft__instructions_where(fn, is_local_atomic, NULL, &n);
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
  for (unsigned i = 0; found && i < n; i++) {
    LLVMValueRef inst = found[i];
    if (LLVMIsAAtomicRMWInst(inst)) lower_rmw(b, inst);
    else if (LLVMIsAAtomicCmpXchgInst(inst)) lower_cmpxchg(b, inst);
    else lower_access(inst);
  }
  free(found);
  LLVMDisposeBuilder(b);
}
