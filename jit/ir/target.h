/*
 * target.h: the host CPU as LLVM sees it: triple, CPU name, features, and the
 * attributes every compiled function gets.
 */
#ifndef WEFT_JIT_TARGET_H
#define WEFT_JIT_TARGET_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#define WEFT_CPU_TRIPLE "x86_64-unknown-linux-gnu"
#define WEFT_NVPTX_TRIPLE "nvptx64-nvidia-cuda"

/* What LLVM 19 makes PTX for, given a GPU's compute capability sm (90 for
 * sm_90): the newest architecture it knows that the GPU runs ("sm_90";
 * the driver compiles PTX for older architectures on newer GPUs), and the
 * PTX version as a target feature ("+ptx78"): the least that architecture
 * needs, and never below 6.3, which __nanosleep needs. */
typedef struct weft_nvptx_arch {
  char cpu[16];
  char feature[16];
  unsigned sm;           /* of cpu */
} weft_nvptx_arch;
void weft__nvptx_arch(unsigned sm, weft_nvptx_arch *arch);

/* A target machine making PTX for arch. */
LLVMTargetMachineRef weft__nvptx_machine_create(const weft_nvptx_arch *arch);

/* Sets the module's target and layout to the machine's (which
 * weft__nvptx_machine_create made), and every function definition's
 * architecture and PTX version. */
void weft__nvptx_apply(LLVMModuleRef module, LLVMTargetMachineRef machine);

/* Registers LLVM's native target and NVPTX (once per process; each
 * target's JIT calls it when it is made), before anything below. */
int weft__target_init(char **error);

/* A target machine for the host CPU at full optimization. */
LLVMTargetMachineRef weft__target_machine_create(void);

/* Gives every function definition of module the host CPU and its features
 * (so the vectorizer uses the real vector width) and inline stack probes
 * (so a large frame hits the guard page below a stack instead of jumping
 * over it), and sets the module's data layout. */
void weft__target_apply(LLVMModuleRef module, LLVMTargetMachineRef machine);

/* The bits of machine's widest vector registers that its features allow
 * (x86: 512 with AVX-512, 256 with AVX; 128 otherwise). */
unsigned weft__target_vector_bits(LLVMTargetMachineRef machine);

/* Runs an LLVM pass pipeline ("default<O3>") tuned for machine. */
int weft__run_passes(LLVMModuleRef module, LLVMTargetMachineRef machine,
                     const char *pipeline, char **error);

#endif
