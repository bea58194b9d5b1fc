/* weak_memory.c: step 3c' of passes.h, with WEFT_MEMORY=weak only: plain
 * loads and stores of global memory go through the back end's store
 * buffer (backend/cpu/weak_memory.c says the model), and what must make
 * the buffered stores visible drains them first:
 *   - a release (a release, acq_rel or seq_cst atomic store,
 *     read-modify-write, compare-and-swap or fence): all of them;
 *   - any other atomic, a volatile access, or one through a generic
 *     pointer: those to its bytes (coherence: a group reads its own
 *     stores, then others');
 *   - a call into the back end that may wait or let others run (barrier,
 *     yield, wait, wake, poll, printf) or into code the pass cannot see
 *     (a memcpy or memset intrinsic among them): all;
 *   - the body's return: the back end's exit, which drains all.
 * The calls the other passes made to report (schedule points, checks,
 * assertions, stop points) touch no user memory and drain nothing. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

typedef struct weakener {
  LLVMValueRef body, ctx;
  LLVMTargetDataRef layout;
  LLVMBuilderRef b;
  LLVMContextRef context;
  LLVMTypeRef i64, ptr;
} weakener;

/* Calls name(ctx, args...) before inst, at inst's source line (the
 * function declared with the arguments' types on first use). */
static void call_before(weakener *w, LLVMValueRef inst, const char *name,
                        LLVMValueRef *args, unsigned n) {
  LLVMValueRef all[4] = {w->ctx};
  LLVMTypeRef params[4] = {w->ptr};
  for (unsigned i = 0; i < n; i++) {
    all[i + 1] = args[i];
    params[i + 1] = LLVMTypeOf(args[i]);
  }
  LLVMValueRef fn = weft__runtime_function(LLVMGetGlobalParent(w->body),
                                           name, NULL, params, n + 1, NULL);
  LLVMPositionBuilderBefore(w->b, inst);
  LLVMValueRef c = LLVMBuildCall2(w->b, LLVMGlobalGetValueType(fn), fn, all,
                                  n + 1, "");
  LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(inst));
}

static LLVMValueRef flat(weakener *w, LLVMValueRef p) {
  return LLVMBuildAddrSpaceCast(w->b, p, w->ptr, "");
}

/* drain(ctx, p, bytes of type), or drain(ctx, NULL, 0): all. */
static void drain_before(weakener *w, LLVMValueRef inst, LLVMValueRef p,
                         LLVMTypeRef type) {
  LLVMPositionBuilderBefore(w->b, inst);
  LLVMValueRef args[2] = {
      p ? flat(w, p) : LLVMConstNull(w->ptr),
      LLVMConstInt(w->i64, p ? LLVMStoreSizeOfType(w->layout, type) : 0, 0)};
  call_before(w, inst, WEFT_WEAK_DRAIN_SYMBOL, args, 2);
}

static int shared(LLVMValueRef p) {
  unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(p));
  return space == WEFT_AS_GLOBAL || space == WEFT_AS_GENERIC;
}

/* Only __global accesses wait in the buffer: a generic pointer may point
 * to __local or private memory that other accesses reach directly, so
 * its accesses are made at once, after what they overlap drains. */
static int buffered(LLVMValueRef p) {
  return LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == WEFT_AS_GLOBAL;
}

static int releases(LLVMAtomicOrdering o) {
  return o == LLVMAtomicOrderingRelease ||
         o == LLVMAtomicOrderingAcquireRelease ||
         o == LLVMAtomicOrderingSequentiallyConsistent;
}

/* A temporary of type in the body's entry block. */
static LLVMValueRef temporary(weakener *w, LLVMTypeRef type) {
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(w->body);
  LLVMPositionBuilderBefore(w->b, LLVMGetFirstInstruction(entry));
  return LLVMBuildAlloca(w->b, type, "weak.tmp");
}

/* A plain store: store(ctx, p, &value, size). */
static void buffer_store(weakener *w, LLVMValueRef store) {
  LLVMValueRef value = LLVMGetOperand(store, 0), p = LLVMGetOperand(store, 1);
  LLVMTypeRef type = LLVMTypeOf(value);
  LLVMValueRef tmp = temporary(w, type);
  LLVMPositionBuilderBefore(w->b, store);
  LLVMBuildStore(w->b, value, tmp);
  LLVMValueRef args[3] = {
      flat(w, p), tmp,
      LLVMConstInt(w->i64, LLVMStoreSizeOfType(w->layout, type), 0)};
  call_before(w, store, WEFT_WEAK_STORE_SYMBOL, args, 3);
  LLVMInstructionEraseFromParent(store);
}

/* A plain load: load(ctx, p, &value, size), then the value. */
static void buffer_load(weakener *w, LLVMValueRef load) {
  LLVMValueRef p = LLVMGetOperand(load, 0);
  LLVMTypeRef type = LLVMTypeOf(load);
  LLVMValueRef tmp = temporary(w, type);
  LLVMPositionBuilderBefore(w->b, load);
  LLVMValueRef args[3] = {
      flat(w, p), tmp,
      LLVMConstInt(w->i64, LLVMStoreSizeOfType(w->layout, type), 0)};
  call_before(w, load, WEFT_WEAK_LOAD_SYMBOL, args, 3);
  LLVMPositionBuilderBefore(w->b, load);
  LLVMValueRef v = LLVMBuildLoad2(w->b, type, tmp, "");
  LLVMReplaceAllUsesWith(load, v);
  LLVMInstructionEraseFromParent(load);
}

/* Whether a call drains all before it: not the reporting calls of other
 * passes, nor intrinsics but memcpy, memmove and memset. */
static int call_drains(LLVMValueRef call) {
  static const char *const quiet[] = {
      WEFT_SCHED_POINT_SYMBOL, WEFT_CHECK_FAILED_SYMBOL,
      WEFT_RACE_ACCESS_SYMBOL, WEFT_RACE_SYNC_SYMBOL, WEFT_STOPPED_SYMBOL,
      WEFT_ASSERT_SYMBOL};
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!LLVMIsAFunction(callee)) return !LLVMIsAInlineAsm(callee);
  size_t length;
  const char *name = LLVMGetValueName2(callee, &length);
  if (!strncmp(name, "llvm.", 5)) return !strncmp(name, "llvm.mem", 8);
  if (!strncmp(name, "weft__cpu_weak_", 15)) return 0;
  for (size_t i = 0; i < sizeof quiet / sizeof *quiet; i++)
    if (!strcmp(name, quiet[i])) return 0;
  return 1;
}

/* What inst needs (instructions the pass makes are never visited). */
static void weaken(weakener *w, LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad:
  case LLVMStore: {
    int store = LLVMIsAStoreInst(inst) != NULL;
    LLVMValueRef p = LLVMGetOperand(inst, store ? 1 : 0);
    if (!shared(p)) return;
    LLVMAtomicOrdering o = LLVMGetOrdering(inst);
    LLVMTypeRef type = LLVMTypeOf(store ? LLVMGetOperand(inst, 0) : inst);
    if (o == LLVMAtomicOrderingNotAtomic && !LLVMGetVolatile(inst) &&
        buffered(p)) {
      if (store) buffer_store(w, inst);
      else buffer_load(w, inst);
    } else {
      drain_before(w, inst, store && releases(o) ? NULL : p, type);
    }
    return;
  }
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg: {
    int rmw = LLVMIsAAtomicRMWInst(inst) != NULL;
    LLVMValueRef p = LLVMGetOperand(inst, 0);
    if (!shared(p)) return;
    LLVMAtomicOrdering o = rmw ? LLVMGetOrdering(inst)
                               : LLVMGetCmpXchgSuccessOrdering(inst);
    LLVMTypeRef type = LLVMTypeOf(LLVMGetOperand(inst, rmw ? 1 : 2));
    drain_before(w, inst, releases(o) ? NULL : p, type);
    return;
  }
  case LLVMFence:
    if (releases(LLVMGetOrdering(inst))) drain_before(w, inst, NULL, NULL);
    return;
  case LLVMCall:
    if (call_drains(inst)) drain_before(w, inst, NULL, NULL);
    return;
  case LLVMRet:
    call_before(w, inst, WEFT_WEAK_EXIT_SYMBOL, NULL, 0);
    return;
  default:
    return;
  }
}

int weft__weak_memory_insert(LLVMValueRef body, LLVMTargetDataRef layout) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  weakener w = {body, weft__body_param(body, WEFT_BODY_CTX), layout,
                LLVMCreateBuilderInContext(context), context,
                LLVMInt64TypeInContext(context),
                LLVMPointerTypeInContext(context, 0)};
  /* The instructions as they were: the pass adds and removes some. */
  unsigned count;
  LLVMValueRef *insts = weft__instructions_where(body, weft__every_instruction,
                                                 NULL, &count);
  if (!insts) {
    LLVMDisposeBuilder(w.b);
    return WEFT_ENOMEM;
  }
  for (unsigned i = 0; i < count; i++) weaken(&w, insts[i]);
  free(insts);
  LLVMDisposeBuilder(w.b);
  return 0;
}
