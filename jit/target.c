/* target.c: the host target (see target.h). */
#include "jit/target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "weft/weft.h"

int weft__target_init(char **error) {
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
    *error = strdup("LLVM has no code generator for this CPU");
    return WEFT_EBUILD;
  }
  return 0;
}

LLVMTargetMachineRef weft__target_machine_create(void) {
  char *error = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(WEFT_CPU_TRIPLE, &target, &error)) {
    LLVMDisposeMessage(error);
    return NULL;
  }
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetMachineRef machine = LLVMCreateTargetMachine(
      target, WEFT_CPU_TRIPLE, cpu, features, LLVMCodeGenLevelAggressive,
      LLVMRelocPIC, LLVMCodeModelJITDefault);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return machine;
}

static void set_string_attribute(LLVMContextRef context, LLVMValueRef fn,
                                 const char *key, const char *value) {
  unsigned index = (unsigned)LLVMAttributeFunctionIndex;
  LLVMRemoveStringAttributeAtIndex(fn, index, key, (unsigned)strlen(key));
  LLVMAddAttributeAtIndex(
      fn, index,
      LLVMCreateStringAttribute(context, key, (unsigned)strlen(key), value,
                                (unsigned)strlen(value)));
}

void weft__target_apply(LLVMModuleRef module, LLVMTargetMachineRef machine) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  char *cpu = LLVMGetTargetMachineCPU(machine);
  char *features = LLVMGetTargetMachineFeatureString(machine);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(machine);
  char *layout_string = LLVMCopyStringRepOfTargetData(layout);

  LLVMSetTarget(module, WEFT_CPU_TRIPLE);
  LLVMSetDataLayout(module, layout_string);
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    set_string_attribute(context, f, "target-cpu", cpu);
    set_string_attribute(context, f, "target-features", features);
    set_string_attribute(context, f, "probe-stack", "inline-asm");
  }
  LLVMDisposeMessage(layout_string);
  LLVMDisposeTargetData(layout);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
}

int weft__run_passes(LLVMModuleRef module, LLVMTargetMachineRef machine,
                     const char *pipeline, char **error) {
  LLVMPassBuilderOptionsRef options = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(module, pipeline, machine, options);
  LLVMDisposePassBuilderOptions(options);
  if (!e) return 0;
  char *message = LLVMGetErrorMessage(e);
  if (asprintf(error, "internal error: %s", message) < 0) *error = NULL;
  LLVMDisposeErrorMessage(message);
  return WEFT_EBUILD;
}
