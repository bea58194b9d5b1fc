/* ptx_printf.c: printf on the GPU (see ptx.h). CUDA's device runtime has
 * vprintf(format, block): the block holds the (promoted) arguments one
 * after the other, each at its natural alignment, which is how LLVM lays
 * out a struct of their types. The driver prints the output when the
 * launch is synchronized. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/compile.h"
#include "jit/ptx.h"
#include "weft/weft.h"

static LLVMValueRef vprintf_function(LLVMModuleRef module) {
  LLVMValueRef fn = LLVMGetNamedFunction(module, "vprintf");
  if (fn) return fn;
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef params[] = {ptr, ptr};
  return LLVMAddFunction(
      module, "vprintf",
      LLVMFunctionType(LLVMInt32TypeInContext(context), params, 2, 0));
}

static int vector_error(LLVMValueRef call, char **error) {
  unsigned line = LLVMGetDebugLocLine(call);
  unsigned column = LLVMGetDebugLocColumn(call);
  int n = line ? asprintf(error, "%s:%u:%u: error: printf of a vector "
                          "(%%v) is not supported on CUDA GPUs\n",
                          WEFT_SOURCE_NAME, line, column)
               : asprintf(error, "error: printf of a vector (%%v) is not "
                          "supported on CUDA GPUs\n");
  if (n < 0) *error = NULL;
  return WEFT_EBUILD;
}

/* A pointer argument as vprintf reads it: generic. */
static LLVMValueRef generic(LLVMBuilderRef b, LLVMValueRef v) {
  LLVMTypeRef type = LLVMTypeOf(v);
  if (LLVMGetTypeKind(type) != LLVMPointerTypeKind ||
      !LLVMGetPointerAddressSpace(type))
    return v;
  return LLVMBuildAddrSpaceCast(
      b, v, LLVMPointerTypeInContext(LLVMGetTypeContext(type), 0), "");
}

static int lower_call(LLVMModuleRef module, LLVMBuilderRef b,
                      LLVMValueRef call, char **error) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  unsigned n = (unsigned)LLVMGetNumArgOperands(call) - 1;
  LLVMTypeRef types[n + 1];
  for (unsigned i = 0; i < n; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(call, i + 1));
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) return vector_error(call, error);
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind)
      t = LLVMPointerTypeInContext(context, 0);
    types[i] = t;
  }
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMValueRef block = LLVMConstNull(ptr);
  if (n) {
    /* The block lives in the function's entry, as allocas should. */
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
    LLVMPositionBuilderBefore(
        b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)));
    LLVMTypeRef type = LLVMStructTypeInContext(context, types, n, 0);
    block = LLVMBuildAlloca(b, type, "printf.args");
    LLVMPositionBuilderBefore(b, call);
    for (unsigned i = 0; i < n; i++)
      LLVMBuildStore(b, generic(b, LLVMGetOperand(call, i + 1)),
                     LLVMBuildStructGEP2(b, type, block, i, ""));
  }
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef fn = vprintf_function(module);
  LLVMValueRef args[] = {generic(b, LLVMGetOperand(call, 0)), block};
  LLVMValueRef result =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
  /* vprintf answers the count of its arguments, or -1; OpenCL's printf
   * answers 0, or -1. */
  LLVMValueRef zero = LLVMConstInt(LLVMTypeOf(result), 0, 0);
  LLVMValueRef failed = LLVMBuildICmp(b, LLVMIntSLT, result, zero, "");
  result = LLVMBuildSelect(b, failed, LLVMConstAllOnes(LLVMTypeOf(result)),
                           zero, "");
  LLVMReplaceAllUsesWith(call, result);
  LLVMInstructionEraseFromParent(call);
  return 0;
}

int weft__ptx_printf_lower(LLVMModuleRef module, char **error) {
  LLVMValueRef printf_fn = LLVMGetNamedFunction(module, "printf");
  if (!printf_fn) return 0;
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  int rc = 0;
  LLVMUseRef use;
  while (!rc && (use = LLVMGetFirstUse(printf_fn))) {
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsACallInst(user)) {
      *error = strdup("internal error: printf used other than called\n");
      rc = WEFT_EBUILD;
    } else {
      rc = lower_call(module, b, user, error);
    }
  }
  LLVMDisposeBuilder(b);
  if (!rc) LLVMDeleteFunction(printf_fn);
  return rc;
}
