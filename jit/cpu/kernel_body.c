/* kernel_body.c: step 2 of passes.h, kernels become bodies that take the
 * work-group context and the local id as parameters. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/ir/kernel_info.h"
#include "jit/cpu/passes.h"
#include "weft/weft.h"

static LLVMValueRef declare_body(LLVMModuleRef module, LLVMValueRef kernel) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  unsigned n = LLVMCountParams(kernel);
  LLVMTypeRef *types = malloc((n + WEFT_BODY_EXTRA_PARAMS) * sizeof *types);
  if (!types) return NULL;
  LLVMGetParamTypes(LLVMGlobalGetValueType(kernel), types);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  types[n + WEFT_BODY_CTX] = ptr;
  types[n + WEFT_BODY_LX] = types[n + WEFT_BODY_LY] = types[n + WEFT_BODY_LZ] = i64;
  types[n + WEFT_BODY_STATE] = i32;
  types[n + WEFT_BODY_PRIVATE] = ptr;
  LLVMTypeRef type = LLVMFunctionType(i32, types, n + WEFT_BODY_EXTRA_PARAMS, 0);
  free(types);

  size_t length;
  const char *name = LLVMGetValueName2(kernel, &length);
  char *body_name = malloc(length + sizeof ".body");
  if (!body_name) return NULL;
  memcpy(body_name, name, length);
  strcpy(body_name + length, ".body");
  LLVMValueRef body = LLVMAddFunction(module, body_name, type);
  free(body_name);
  /* External until its work-group function calls it: the always-inliner
   * deletes internal always-inline functions that have no callers yet. */
  static const char *const extra_names[] = {"ctx", "lx", "ly", "lz", "state",
                                            "private"};
  for (unsigned i = 0; i < WEFT_BODY_EXTRA_PARAMS; i++)
    LLVMSetValueName2(LLVMGetParam(body, n + i), extra_names[i],
                      strlen(extra_names[i]));
  return body;
}

/* The body returns a state: "ret void" becomes "ret WEFT_STATE_RETURN". */
static void return_state(LLVMValueRef body) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(context);
  LLVMValueRef done =
      LLVMConstInt(LLVMInt32TypeInContext(context), WEFT_STATE_RETURN, 0);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef ret = LLVMGetBasicBlockTerminator(bb);
    if (!ret || LLVMGetInstructionOpcode(ret) != LLVMRet) continue;
    LLVMPositionBuilderBefore(b, ret);
    LLVMInstructionSetDebugLoc(LLVMBuildRet(b, done),
                               LLVMInstructionGetDebugLoc(ret));
    LLVMInstructionEraseFromParent(ret);
  }
  LLVMDisposeBuilder(b);
}

LLVMValueRef weft__body_param(LLVMValueRef body, unsigned p) {
  return LLVMGetParam(body, LLVMCountParams(body) - WEFT_BODY_EXTRA_PARAMS + p);
}

/* Moves the kernel's code into body, which then stands in for it. */
static void move_code(LLVMValueRef kernel, LLVMValueRef body) {
  unsigned n = LLVMCountParams(kernel);
  weft__copy_attributes(kernel, body, LLVMAttributeFunctionIndex);
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  unsigned inline_kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddAttributeAtIndex(body, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(context, inline_kind, 0));
  for (unsigned i = 0; i < n; i++) {
    weft__copy_attributes(kernel, body, i + 1);
    LLVMValueRef old = LLVMGetParam(kernel, i);
    size_t length;
    const char *name = LLVMGetValueName2(old, &length);
    LLVMSetValueName2(LLVMGetParam(body, i), name, length);
    LLVMReplaceAllUsesWith(old, LLVMGetParam(body, i));
  }
  /* The code's debug locations belong to the kernel's subprogram. */
  LLVMSetSubprogram(body, LLVMGetSubprogram(kernel));
  LLVMBasicBlockRef block;
  while ((block = LLVMGetFirstBasicBlock(kernel))) {
    LLVMRemoveBasicBlockFromParent(block);
    LLVMAppendExistingBasicBlock(body, block);
  }
  return_state(body);
}

/* A kernel may call another kernel as a function: the call passes the
 * caller's context and local id on to the callee's body. */
static void redirect_calls(LLVMValueRef kernel, LLVMValueRef body) {
  LLVMUseRef use;
  LLVMBuilderRef builder =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(body)));
  while ((use = LLVMGetFirstUse(kernel))) {
    LLVMValueRef call = LLVMGetUser(use);
    LLVMValueRef caller =
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
    unsigned n = LLVMGetNumArgOperands(call);
    unsigned caller_n = LLVMCountParams(caller);
    LLVMValueRef args[n + WEFT_BODY_EXTRA_PARAMS];
    for (unsigned i = 0; i < n; i++) args[i] = LLVMGetOperand(call, i);
    for (unsigned i = 0; i < WEFT_BODY_EXTRA_PARAMS; i++)
      args[n + i] = LLVMGetParam(caller, caller_n - WEFT_BODY_EXTRA_PARAMS + i);
    LLVMPositionBuilderBefore(builder, call);
    LLVMValueRef replacement =
        LLVMBuildCall2(builder, LLVMGlobalGetValueType(body), body, args,
                       n + WEFT_BODY_EXTRA_PARAMS, "");
    LLVMInstructionSetDebugLoc(replacement, LLVMInstructionGetDebugLoc(call));
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(builder);
}

int weft__kernel_body_make(LLVMModuleRef module, LLVMValueRef *bodies,
                           unsigned count) {
  unsigned n = 0;
  LLVMValueRef kernels[count ? count : 1];
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f && n < count;
       f = LLVMGetNextFunction(f)) {
    if (!weft__is_kernel(f)) continue;
    kernels[n] = f;
    bodies[n] = declare_body(module, f);
    if (!bodies[n]) return WEFT_ENOMEM;
    move_code(f, bodies[n]);
    n++;
  }
  for (unsigned i = 0; i < n; i++) {
    redirect_calls(kernels[i], bodies[i]);
    LLVMDeleteFunction(kernels[i]);
  }
  return 0;
}
