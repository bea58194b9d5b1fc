/* target.c: the host target (see target.h). */
#include "jit/ir/target.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "weft/weft.h"

static pthread_once_t initialized = PTHREAD_ONCE_INIT;
static int native_missing;

static void initialize(void) {
  native_missing = LLVMInitializeNativeTarget() ||
                   LLVMInitializeNativeAsmPrinter();
  /* Debian's LLVM has every target; PTX is made only for CUDA GPUs. */
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}

/* Once per process, whichever target's JIT comes first. */
int weft__target_init(char **error) {
  pthread_once(&initialized, initialize);
  if (!native_missing) return 0;
  *error = strdup("LLVM has no code generator for this CPU");
  return WEFT_EBUILD;
}

/* The architectures LLVM 19's NVPTX back end knows from sm_70 (Volta,
 * the first with __nanosleep) up, with the PTX version each needs. */
static const struct {
  unsigned sm, ptx;
} nvptx_archs[] = {
    {70, 63}, {72, 63}, {75, 63}, {80, 70}, {86, 71}, {87, 74}, {89, 78},
    {90, 78},
};

void weft__nvptx_arch(unsigned sm, weft_nvptx_arch *arch) {
  size_t pick = 0;
  for (size_t i = 0; i < sizeof nvptx_archs / sizeof *nvptx_archs; i++)
    if (nvptx_archs[i].sm <= sm) pick = i;
  arch->sm = nvptx_archs[pick].sm;
  snprintf(arch->cpu, sizeof arch->cpu, "sm_%u", arch->sm);
  snprintf(arch->feature, sizeof arch->feature, "+ptx%u", nvptx_archs[pick].ptx);
}

/* A machine at full optimization for triple, or NULL. */
static LLVMTargetMachineRef machine_for(const char *triple, const char *cpu,
                                        const char *features,
                                        LLVMRelocMode reloc,
                                        LLVMCodeModel model) {
  char *error = NULL;
  LLVMTargetRef target;
  if (LLVMGetTargetFromTriple(triple, &target, &error)) {
    LLVMDisposeMessage(error);
    return NULL;
  }
  return LLVMCreateTargetMachine(target, triple, cpu, features,
                                 LLVMCodeGenLevelAggressive, reloc, model);
}

LLVMTargetMachineRef weft__nvptx_machine_create(const weft_nvptx_arch *arch) {
  return machine_for(WEFT_NVPTX_TRIPLE, arch->cpu, arch->feature,
                     LLVMRelocDefault, LLVMCodeModelDefault);
}

LLVMTargetMachineRef weft__target_machine_create(void) {
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetMachineRef machine = machine_for(
      WEFT_CPU_TRIPLE, cpu, features, LLVMRelocPIC, LLVMCodeModelJITDefault);
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

/* The machine's triple, layout, CPU and features on the module and each
 * of its definitions; with probe_stack (the CPU's code), inline stack
 * probes and unwind tables too. */
static void apply(LLVMModuleRef module, LLVMTargetMachineRef machine,
                  int probe_stack) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  char *triple = LLVMGetTargetMachineTriple(machine);
  char *cpu = LLVMGetTargetMachineCPU(machine);
  char *features = LLVMGetTargetMachineFeatureString(machine);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(machine);
  char *layout_string = LLVMCopyStringRepOfTargetData(layout);

  LLVMSetTarget(module, triple);
  LLVMSetDataLayout(module, layout_string);
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    set_string_attribute(context, f, "target-cpu", cpu);
    set_string_attribute(context, f, "target-features", features);
    if (!probe_stack) continue;
    set_string_attribute(context, f, "probe-stack", "inline-asm");
    /* Unwind tables: gdb and perf walk back from a kernel to its caller
     * (2: asynchronous, valid at every instruction, as at a fault). */
    unsigned uwtable = LLVMGetEnumAttributeKindForName("uwtable", 7);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(context, uwtable, 2));
  }
  LLVMDisposeMessage(layout_string);
  LLVMDisposeTargetData(layout);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
}

void weft__target_apply(LLVMModuleRef module, LLVMTargetMachineRef machine) {
  apply(module, machine, 1);
}

void weft__nvptx_apply(LLVMModuleRef module, LLVMTargetMachineRef machine) {
  apply(module, machine, 0);
}

/* Whether the comma-separated features hold +name. */
static int has_feature(const char *features, const char *name) {
  size_t n = strlen(name);
  for (const char *p = features; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (p[0] == '+' && !strncmp(p + 1, name, n) && (p[n + 1] == ',' || !p[n + 1]))
      return 1;
  return 0;
}

unsigned weft__target_vector_bits(LLVMTargetMachineRef machine) {
  char *features = LLVMGetTargetMachineFeatureString(machine);
  unsigned bits = has_feature(features, "avx512f") ? 512
                  : has_feature(features, "avx")   ? 256
                                                   : 128;
  LLVMDisposeMessage(features);
  return bits;
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
