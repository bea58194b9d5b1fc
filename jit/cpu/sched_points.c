/* sched_points.c: step 3b of passes.h, for schedule exploration only
 * (WEFT_SCHEDULE=random...): a call into the back end before every atomic
 * operation and barrier; in the deep mode before every load and store of
 * global (or generic) memory; under pct before every __local one as well,
 * where the work-items of a group may be switched; and before copies of
 * shared memory at those levels. There the scheduler may switch to another
 * work-item or work-group, so that one run explores one interleaving,
 * chosen by the seed. Each point names the access it precedes, for
 * exhaustive exploration's partial-order reduction. */
#include <string.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"


static LLVMValueRef sched_function(LLVMModuleRef module) {
  LLVMContextRef c = LLVMGetModuleContext(module);
  LLVMTypeRef params[] = {LLVMPointerTypeInContext(c, 0),
                          LLVMPointerTypeInContext(c, 0),
                          LLVMInt32TypeInContext(c)};
  return weft__runtime_function(module, WEFT_SCHED_POINT_SYMBOL, NULL, params,
                                3, NULL);
}

/* Whether a pointer of this address space points at memory others share,
 * at level 2 (global, generic) or 3 (__local too). */
static int is_shared_space(unsigned space, int level) {
  if (space == WEFT_AS_GLOBAL || space == WEFT_AS_GENERIC) return level >= 2;
  return space == WEFT_AS_LOCAL && level >= 3;
}

/* A load or store of memory others share, at that level. */
static int is_shared_access(LLVMValueRef i, int level) {
  LLVMValueRef p;
  if (LLVMIsALoadInst(i)) p = LLVMGetOperand(i, 0);
  else if (LLVMIsAStoreInst(i)) p = LLVMGetOperand(i, 1);
  else return 0;
  return is_shared_space(LLVMGetPointerAddressSpace(LLVMTypeOf(p)), level);
}

/* memcpy, memmove or memset of shared memory: no access the scheduler
 * can name, but a step others may depend on. */
static int is_shared_copy(LLVMValueRef i, int level) {
  if (!LLVMIsACallInst(i)) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  size_t length;
  const char *name = LLVMIsAFunction(callee)
                         ? LLVMGetValueName2(callee, &length) : "";
  if (strncmp(name, "llvm.memcpy", 11) && strncmp(name, "llvm.memmove", 12) &&
      strncmp(name, "llvm.memset", 11))
    return 0;
  for (unsigned k = 0; k < 2; k++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(i, k));
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind &&
        is_shared_space(LLVMGetPointerAddressSpace(t), level))
      return 1;
  }
  return 0;
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

/* The access a schedule point before i announces: its pointer (as a
 * generic one) and WEFT_SCHED_* info; NULL and 0 for a barrier, a fence
 * or a copy. */
static LLVMValueRef access_info(LLVMBuilderRef b, LLVMTargetDataRef layout,
                                LLVMValueRef i, LLVMValueRef *info) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(i));
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMTypeRef generic = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef p = NULL;
  LLVMTypeRef type = NULL;
  uint32_t kind = 0;
  if (LLVMIsALoadInst(i)) {
    p = LLVMGetOperand(i, 0);
    type = LLVMTypeOf(i);
    kind = WEFT_SCHED_READ;
  } else if (LLVMIsAStoreInst(i)) {
    p = LLVMGetOperand(i, 1);
    type = LLVMTypeOf(LLVMGetOperand(i, 0));
    kind = WEFT_SCHED_WRITE;
  } else if (LLVMIsAAtomicRMWInst(i)) {
    p = LLVMGetOperand(i, 0);
    type = LLVMTypeOf(i);
    kind = WEFT_SCHED_READ | WEFT_SCHED_WRITE;
  } else if (LLVMIsAAtomicCmpXchgInst(i)) {
    p = LLVMGetOperand(i, 0);
    type = LLVMTypeOf(LLVMGetOperand(i, 1));
    kind = WEFT_SCHED_READ | WEFT_SCHED_WRITE;
  }
  unsigned long long size = type ? LLVMStoreSizeOfType(layout, type) : 0;
  if (!p || !size || size > WEFT_SCHED_SIZE) {
    *info = LLVMConstInt(i32, 0, 0);
    return LLVMConstNull(generic);
  }
  *info = LLVMConstInt(i32, kind | (uint32_t)size, 0);
  return LLVMBuildAddrSpaceCast(b, p, generic, "");
}

int weft__sched_points_insert(LLVMValueRef body, int level) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMValueRef fn = sched_function(module);
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  LLVMTargetDataRef layout =
      LLVMCreateTargetData(LLVMGetDataLayoutStr(module));
  for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(body); block;
       block = LLVMGetNextBasicBlock(block)) {
    for (LLVMValueRef i = LLVMGetFirstInstruction(block); i;
         i = LLVMGetNextInstruction(i)) {
      if (!is_sched_site(i) && !is_shared_access(i, level) &&
          !is_shared_copy(i, level))
        continue;
      LLVMPositionBuilderBefore(b, i);
      LLVMValueRef args[3] = {ctx};
      args[1] = access_info(b, layout, i, &args[2]);
      LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
    }
  }
  LLVMDisposeTargetData(layout);
  LLVMDisposeBuilder(b);
  return 0;
}
