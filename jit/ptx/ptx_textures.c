/* ptx_textures.c: kernels whose image reads may go through textures made
 * in a version that takes them for granted.
 *
 * On the GPU an image read asks the layout for its texture handle
 * (builtins/image.cl: __weft_texture_handle(&layout->texture[slot])) and
 * reads the texture if there is one, else the image's memory in software.
 * The software read is large, so each read is a branch around it: a loop
 * of reads (a blur's taps) is not unrolled and its fetches do not overlap
 * (image_blur took 1.4 to 2 times NVIDIA's time, and the same kernel
 * without the branches as long as NVIDIA's).
 *
 * Whether an image has a texture is the same for every work-item of a
 * launch. Where every handle a kernel body asks for is computed from its
 * arguments and constants alone (as an image argument and a sampler
 * argument or literal give), the body is copied: the copy takes every
 * handle as there (its software reads fall away), and the body's new
 * first block loads the handles and calls the copy when none is 0, else
 * goes on as before. Every ask then becomes a load of the handle. */
#include <stdio.h>
#include <stdlib.h>

#include "jit/ir/ir.h"
#include "jit/ir/target.h"
#include "jit/ptx/ptx.h"

#define ASK "__weft_texture_handle"

/* Instructions a handle's address may be computed through, at most. */
#define ADDRESS_BUDGET 16

/* Whether v can be computed in fn's first block: constants, fn's
 * arguments, and side-effect-free instructions over them. */
static int from_arguments(LLVMValueRef v, unsigned *budget) {
  if (LLVMIsAConstant(v) || LLVMIsAArgument(v)) return 1;
  if (!LLVMIsAInstruction(v) || !*budget) return 0;
  --*budget;
  if (!LLVMIsABinaryOperator(v) && !LLVMIsACastInst(v) &&
      !LLVMIsAICmpInst(v) && !LLVMIsAGetElementPtrInst(v) &&
      !LLVMIsASelectInst(v))
    return 0;
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (!from_arguments(LLVMGetOperand(v, (unsigned)i), budget)) return 0;
  return 1;
}

static int asks(LLVMValueRef inst, void *ask) {
  return LLVMIsACallInst(inst) && LLVMGetCalledValue(inst) == ask;
}

/* In the copy: a compare of a handle with 0 is known. */
static void take_handles_as_there(LLVMValueRef copy, LLVMValueRef ask) {
  unsigned n = 0;
  LLVMValueRef *calls = weft__instructions_where(copy, asks, ask, &n);
  for (unsigned i = 0; calls && i < n; i++)
    for (LLVMUseRef u = LLVMGetFirstUse(calls[i]); u;) {
      LLVMValueRef user = LLVMGetUser(u);
      u = LLVMGetNextUse(u);
      if (!LLVMIsAICmpInst(user) || !LLVMIsNull(LLVMGetOperand(user, 1)))
        continue;
      LLVMIntPredicate p = LLVMGetICmpPredicate(user);
      if (p != LLVMIntEQ && p != LLVMIntNE) continue;
      LLVMTypeRef i1 = LLVMTypeOf(user);
      LLVMReplaceAllUsesWith(user, LLVMConstInt(i1, p == LLVMIntNE, 0));
      LLVMInstructionEraseFromParent(user);
    }
  free(calls);
}

/* fn's first block becomes: the handles loaded, a call of the copy when
 * none is 0, else the old first block (now second, its static allocas
 * moved up, where the inliner looks for them). args: room for fn's
 * parameters. */
static void dispatch(LLVMValueRef fn, LLVMValueRef copy, LLVMValueRef *calls,
                     unsigned n, LLVMValueRef *args) {
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  LLVMBasicBlockRef old = LLVMGetEntryBasicBlock(fn);
  LLVMBasicBlockRef first = LLVMInsertBasicBlockInContext(ctx, old, "textures");
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(ctx, fn, "with_textures");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, first);
  for (LLVMValueRef i = LLVMGetFirstInstruction(old), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i) && LLVMIsAConstant(LLVMGetOperand(i, 0)))
      weft__instruction_move(b, i);
  }
  LLVMTypeRef u64 = LLVMInt64TypeInContext(ctx);
  LLVMValueRef all = LLVMConstInt(LLVMInt1TypeInContext(ctx), 1, 0);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef at = weft__remake(b, LLVMGetOperand(calls[i], 0));
    LLVMValueRef handle = LLVMBuildLoad2(b, u64, at, "handle");
    all = LLVMBuildAnd(b, all,
                       LLVMBuildICmp(b, LLVMIntNE, handle, LLVMConstNull(u64), ""),
                       "");
  }
  LLVMBuildCondBr(b, all, fast, old);
  LLVMPositionBuilderAtEnd(b, fast);
  unsigned count = LLVMCountParams(fn);
  for (unsigned i = 0; i < count; i++) args[i] = LLVMGetParam(fn, i);
  LLVMTypeRef type = LLVMGlobalGetValueType(fn);
  LLVMValueRef result = LLVMBuildCall2(b, type, copy, args, count, "");
  if (LLVMGetTypeKind(LLVMGetReturnType(type)) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, result);
  LLVMDisposeBuilder(b);
}

/* Versions fn if it asks for handles, each from its arguments alone. */
static void version(LLVMValueRef fn, LLVMValueRef ask) {
  unsigned n = 0, count = LLVMCountParams(fn);
  LLVMValueRef *calls = weft__instructions_where(fn, asks, ask, &n);
  LLVMValueRef *args = malloc((count + 1) * sizeof *args);
  int whole = calls && n > 0 && args;
  for (unsigned i = 0; whole && i < n; i++) {
    unsigned budget = ADDRESS_BUDGET;
    whole = from_arguments(LLVMGetOperand(calls[i], 0), &budget);
  }
  if (whole) {
    size_t length = 0;
    const char *name = LLVMGetValueName2(fn, &length);
    char copy_name[256];
    snprintf(copy_name, sizeof copy_name, "%.*s.textures",
             (int)(length < 200 ? length : 200), name);
    LLVMValueRef copy = weft__function_clone(fn, copy_name);
    LLVMSetLinkage(copy, LLVMInternalLinkage);
    take_handles_as_there(copy, ask);
    dispatch(fn, copy, calls, n, args);
  }
  free(args);
  free(calls);
}

static LLVMValueRef load_handle(LLVMBuilderRef b, LLVMValueRef call,
                                void *unused) {
  (void)unused;
  LLVMTypeRef u64 = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(call)));
  return LLVMBuildLoad2(b, u64, LLVMGetOperand(call, 0), "handle");
}

int weft__ptx_textures_version(LLVMModuleRef module,
                               LLVMTargetMachineRef machine, int optimize,
                               char **error) {
  LLVMValueRef ask = LLVMGetNamedFunction(module, ASK);
  if (!ask) return 0;
  /* The front end's values in memory (arguments, locals) made registers
   * first: an ask's address is then the argument's. */
  int rc = optimize ? weft__run_passes(module, machine,
                                       "function(sroa,early-cse,instcombine)",
                                       error)
                    : 0;
  if (!rc && optimize) {
    /* The bodies that ask, listed first: versioning adds functions. */
    unsigned n = 0, capacity = 0;
    LLVMValueRef *fns = NULL;
    for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
         fn = LLVMGetNextFunction(fn)) {
      if (LLVMIsDeclaration(fn)) continue;
      if (n == capacity) {
        capacity = capacity ? 2 * capacity : 8;
        LLVMValueRef *grown = realloc(fns, capacity * sizeof *fns);
        if (!grown) break;
        fns = grown;
      }
      fns[n++] = fn;
    }
    for (unsigned i = 0; fns && i < n; i++) version(fns[i], ask);
    free(fns);
  }
  weft__calls_replace(ask, load_handle, NULL);
  return rc;
}
