/*
 * target.h: the host CPU as LLVM sees it: triple, CPU name, features, and the
 * attributes every compiled function gets.
 */
#ifndef WEFT_JIT_TARGET_H
#define WEFT_JIT_TARGET_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#define WEFT_CPU_TRIPLE "x86_64-unknown-linux-gnu"

/* Registers LLVM's native target. Call once before anything below. */
int weft__target_init(char **error);

/* A target machine for the host CPU at full optimization. */
LLVMTargetMachineRef weft__target_machine_create(void);

/* Gives every function definition of module the host CPU and its features
 * (so the vectorizer uses the real vector width) and inline stack probes
 * (so a large frame hits the guard page below a stack instead of jumping
 * over it), and sets the module's data layout. */
void weft__target_apply(LLVMModuleRef module, LLVMTargetMachineRef machine);

/* Runs an LLVM pass pipeline ("default<O3>") tuned for machine. */
int weft__run_passes(LLVMModuleRef module, LLVMTargetMachineRef machine,
                     const char *pipeline, char **error);

#endif
