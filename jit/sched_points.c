/* sched_points.c: step 3b of passes.h, for schedule exploration only
 * (WEFT_SCHEDULE=random...): a call into the back end before every atomic
 * operation and barrier; in the deep mode before every load and store of
 * global (or generic) memory; under pct before every __local one as well,
 * where the work-items of a group may be switched. There the scheduler may
 * switch to another work-item or work-group, so that one run explores one
 * interleaving, chosen by the seed. */
#include "jit/passes.h"
#include "weft/weft.h"


static LLVMValueRef sched_function(LLVMModuleRef module) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(module), 0);
  return weft__runtime_function(module, WEFT_SCHED_POINT_SYMBOL, NULL, &ptr, 1,
                                NULL);
}

/* A load or store of memory others share, at level 2 (global, generic)
 * or 3 (__local too). */
static int is_shared_access(LLVMValueRef i, int level) {
  LLVMValueRef p;
  if (LLVMIsALoadInst(i)) p = LLVMGetOperand(i, 0);
  else if (LLVMIsAStoreInst(i)) p = LLVMGetOperand(i, 1);
  else return 0;
  unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  if (space == WEFT_AS_GLOBAL || space == WEFT_AS_GENERIC) return level >= 2;
  return space == WEFT_AS_LOCAL && level >= 3;
}

static int is_sched_site(LLVMValueRef i) {
  if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i) ||
      LLVMIsAFenceInst(i))
    return 1;
  if ((LLVMIsALoadInst(i) || LLVMIsAStoreInst(i)) &&
      LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
    return 1;
  return weft__is_call_to(i, WEFT_BARRIER_SYMBOL);
}

int weft__sched_points_insert(LLVMValueRef body, int level) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMValueRef fn = sched_function(module);
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(body); block;
       block = LLVMGetNextBasicBlock(block)) {
    for (LLVMValueRef i = LLVMGetFirstInstruction(block); i;
         i = LLVMGetNextInstruction(i)) {
      if (!is_sched_site(i) && !is_shared_access(i, level)) continue;
      LLVMPositionBuilderBefore(b, i);
      LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &ctx, 1, "");
    }
  }
  LLVMDisposeBuilder(b);
  return 0;
}
