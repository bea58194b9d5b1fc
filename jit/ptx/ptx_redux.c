/* ptx_redux.c: the sub-group functions' redux.sync (builtins/
 * sub_groups.h) where the GPU has it.
 *
 * One builtin library serves every GPU from sm_70 on, and redux.sync, a
 * warp's sum, minimum, maximum, and, or or xor of 32-bit integers in one
 * instruction (against five shuffles and the steps between them), came
 * with sm_80. The library asks __weft_gpu_has_redux() and calls
 * __weft_redux_<op>(x, mask); here the first becomes the answer for the
 * architecture being built for and, on sm_80 and newer, each of the
 * others NVPTX's llvm.nvvm.redux.sync.<op>. On older GPUs their calls,
 * never reached behind a constant false, become their argument, so that
 * no redux.sync reaches ptxas for a GPU that lacks it, at -O0 too. */
#include <stdio.h>
#include <string.h>


#include "jit/ir/ir.h"
#include "jit/ptx/ptx.h"

/* The least architecture with redux.sync (PTX ISA 7.0). */
#define REDUX_SM 80

static LLVMValueRef the_argument(LLVMBuilderRef b, LLVMValueRef call,
                                 void *data) {
  (void)b;
  (void)data;
  return LLVMGetOperand(call, 0);
}

/* The instruction: llvm.nvvm.redux.sync.<op>(x, mask). */
static LLVMValueRef the_instruction(LLVMBuilderRef b, LLVMValueRef call,
                                    void *intrinsic) {
  LLVMValueRef fn = intrinsic;
  LLVMValueRef args[2] = {LLVMGetOperand(call, 0), LLVMGetOperand(call, 1)};
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

void weft__ptx_redux_lower(LLVMModuleRef module, unsigned sm) {
  static const char *const ops[] = {"add", "min", "max", "umin",
                                    "umax", "and", "or", "xor"};
  int has = sm >= REDUX_SM;
  LLVMValueRef fn = LLVMGetNamedFunction(module, "__weft_gpu_has_redux");
  if (fn)
    weft__calls_replace(fn, weft__call_value,
                        LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(module)),
                                     (unsigned)has, 0));
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    char name[32], intrinsic[32];
    snprintf(name, sizeof name, "__weft_redux_%s", ops[i]);
    if (!(fn = LLVMGetNamedFunction(module, name))) continue;
    if (!has) {
      weft__calls_replace(fn, the_argument, NULL);
      continue;
    }
    snprintf(intrinsic, sizeof intrinsic, "llvm.nvvm.redux.sync.%s", ops[i]);
    unsigned id = LLVMLookupIntrinsicID(intrinsic, strlen(intrinsic));
    weft__calls_replace(fn, the_instruction,
                        LLVMGetIntrinsicDeclaration(module, id, NULL, 0));
  }
}
