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
#include <stdlib.h>
#include <string.h>


#include "jit/ptx/ptx.h"

/* The least architecture with redux.sync (PTX ISA 7.0). */
#define REDUX_SM 80

/* The SM version machine builds for ("sm_90": 90), 0 if unknown. */
static unsigned machine_sm(LLVMTargetMachineRef machine) {
  char *cpu = LLVMGetTargetMachineCPU(machine);
  unsigned sm = cpu && !strncmp(cpu, "sm_", 3) ? (unsigned)atoi(cpu + 3) : 0;
  LLVMDisposeMessage(cpu);
  return sm;
}

/* Every call of fn becomes make(call), and fn goes. */
static void replace_calls(LLVMValueRef fn, LLVMBuilderRef b,
                          LLVMValueRef (*make)(LLVMBuilderRef, LLVMValueRef,
                                               void *),
                          void *data) {
  LLVMUseRef use;
  while ((use = LLVMGetFirstUse(fn))) {
    LLVMValueRef call = LLVMGetUser(use);
    LLVMPositionBuilderBefore(b, call);
    LLVMReplaceAllUsesWith(call, make(b, call, data));
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDeleteFunction(fn);
}

static LLVMValueRef the_answer(LLVMBuilderRef b, LLVMValueRef call,
                               void *has) {
  (void)b;
  return LLVMConstInt(LLVMTypeOf(call), *(int *)has, 0);
}

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

void weft__ptx_redux_lower(LLVMModuleRef module, LLVMTargetMachineRef machine) {
  static const char *const ops[] = {"add", "min", "max", "umin",
                                    "umax", "and", "or", "xor"};
  int has = machine_sm(machine) >= REDUX_SM;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  LLVMValueRef fn = LLVMGetNamedFunction(module, "__weft_gpu_has_redux");
  if (fn) replace_calls(fn, b, the_answer, &has);
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
    char name[32], intrinsic[32];
    snprintf(name, sizeof name, "__weft_redux_%s", ops[i]);
    if (!(fn = LLVMGetNamedFunction(module, name))) continue;
    if (!has) {
      replace_calls(fn, b, the_argument, NULL);
      continue;
    }
    snprintf(intrinsic, sizeof intrinsic, "llvm.nvvm.redux.sync.%s", ops[i]);
    unsigned id = LLVMLookupIntrinsicID(intrinsic, strlen(intrinsic));
    replace_calls(fn, b, the_instruction,
                  LLVMGetIntrinsicDeclaration(module, id, NULL, 0));
  }
  LLVMDisposeBuilder(b);
}
