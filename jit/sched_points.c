/* sched_points.c: step 3d of passes.h, for schedule exploration only
 * (WEFT_SCHEDULE=random...): a call into the back end before every atomic
 * operation and barrier, and in the deep mode before every load and store
 * of global (or generic) memory. There the scheduler may switch to another
 * work-group at random, so that one run explores one interleaving of the
 * groups, chosen by the seed. */
#include <string.h>

#include "jit/passes.h"
#include "weft/weft.h"

#define GLOBAL_SPACE 1  /* -ffake-address-space-map's numbers */
#define GENERIC_SPACE 4

static LLVMValueRef sched_function(LLVMModuleRef module) {
  LLVMValueRef fn = LLVMGetNamedFunction(module, WEFT_SCHED_POINT_SYMBOL);
  if (fn) return fn;
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  return LLVMAddFunction(module, WEFT_SCHED_POINT_SYMBOL,
                         LLVMFunctionType(LLVMVoidTypeInContext(context), &ptr,
                                          1, 0));
}

static int is_shared_access(LLVMValueRef i) {
  LLVMValueRef p;
  if (LLVMIsALoadInst(i)) p = LLVMGetOperand(i, 0);
  else if (LLVMIsAStoreInst(i)) p = LLVMGetOperand(i, 1);
  else return 0;
  unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  return space == GLOBAL_SPACE || space == GENERIC_SPACE;
}

static int is_atomic(LLVMValueRef i) {
  if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i) ||
      LLVMIsAFenceInst(i))
    return 1;
  if ((LLVMIsALoadInst(i) || LLVMIsAStoreInst(i)) &&
      LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic)
    return 1;
  if (!LLVMIsACallInst(i)) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  return LLVMIsAFunction(callee) &&
         !strcmp(LLVMGetValueName(callee), WEFT_BARRIER_SYMBOL);
}

int weft__sched_points_insert(LLVMValueRef body, int deep) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMValueRef fn = sched_function(module);
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(body); block;
       block = LLVMGetNextBasicBlock(block)) {
    for (LLVMValueRef i = LLVMGetFirstInstruction(block); i;
         i = LLVMGetNextInstruction(i)) {
      if (!is_atomic(i) && !(deep && is_shared_access(i))) continue;
      LLVMPositionBuilderBefore(b, i);
      LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &ctx, 1, "");
    }
  }
  LLVMDisposeBuilder(b);
  return 0;
}
