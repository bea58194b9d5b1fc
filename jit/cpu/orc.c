/* orc.c: the process's LLJIT (see orc.h). */
#include "jit/cpu/orc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Error.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/OrcEE.h>

#include "jit/ir/target.h"
#include "weft/weft.h"

struct weft_orc_code {
  LLVMOrcResourceTrackerRef tracker;
};

static LLVMOrcLLJITRef jit;

/* Consumes e; returns its text in a malloc'd "prefix: message". */
static char *error_text(const char *prefix, LLVMErrorRef e) {
  char *message = LLVMGetErrorMessage(e);
  char *text = NULL;
  if (asprintf(&text, "%s: %s", prefix, message) < 0) text = NULL;
  LLVMDisposeErrorMessage(message);
  return text;
}

/* The runtime's functions become absolute symbols; everything else generated
 * code calls after code generation (memcpy, sinf) comes from the process. */
static LLVMErrorRef define_symbols(LLVMOrcJITDylibRef dylib,
                                   const weft_jit_symbol *symbols,
                                   size_t count) {
  LLVMOrcCSymbolMapPair *pairs = calloc(count ? count : 1, sizeof *pairs);
  if (!pairs) return LLVMCreateStringError("out of memory");
  for (size_t i = 0; i < count; i++) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, symbols[i].name);
    pairs[i].Sym.Address = (LLVMOrcJITTargetAddress)(uintptr_t)symbols[i].address;
    pairs[i].Sym.Flags.GenericFlags =
        LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
  }
  LLVMErrorRef e =
      LLVMOrcJITDylibDefine(dylib, LLVMOrcAbsoluteSymbols(pairs, count));
  free(pairs);
  return e;
}

/* The JIT's object layer: RuntimeDyld, whose loaded objects are
 * registered through LLVM's GDB JIT interface, so that gdb knows the
 * kernels' functions (and, in programs built with -g, their source lines
 * and variables). Registering costs a call of an empty function when no
 * debugger is attached. With *jitdump, perf's listener too. */
static LLVMOrcObjectLayerRef object_layer(void *jitdump,
                                          LLVMOrcExecutionSessionRef session,
                                          const char *triple) {
  (void)triple;
  LLVMOrcObjectLayerRef layer =
      LLVMOrcCreateRTDyldObjectLinkingLayerWithSectionMemoryManager(session);
  LLVMOrcRTDyldObjectLinkingLayerRegisterJITEventListener(
      layer, LLVMCreateGDBRegistrationListener());
  LLVMJITEventListenerRef perf =
      *(int *)jitdump ? LLVMCreatePerfJITEventListener() : NULL;
  if (perf) LLVMOrcRTDyldObjectLinkingLayerRegisterJITEventListener(layer, perf);
  else if (*(int *)jitdump)
    fprintf(stderr, "weft: WEFT_PERF=jitdump: this LLVM writes no jitdump\n");
  return layer;
}

int weft__orc_init(const weft_jit_symbol *symbols, size_t count, int jitdump,
                   char **error) {
  static int jitdump_asked;
  jitdump_asked = jitdump;
  if (weft__target_init(error)) return WEFT_EBUILD;
  LLVMTargetMachineRef machine = weft__target_machine_create();
  if (!machine) {
    *error = strdup("LLVM cannot generate code for this CPU");
    return WEFT_EBUILD;
  }
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
      builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(machine));
  LLVMOrcLLJITBuilderSetObjectLinkingLayerCreator(builder, object_layer,
                                                  &jitdump_asked);
  LLVMErrorRef e = LLVMOrcCreateLLJIT(&jit, builder);
  if (e) {
    *error = error_text("cannot create the JIT", e);
    return WEFT_EBUILD;
  }
  LLVMOrcJITDylibRef dylib = LLVMOrcLLJITGetMainJITDylib(jit);
  LLVMOrcDefinitionGeneratorRef process;
  e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &process, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
  if (!e) {
    LLVMOrcJITDylibAddGenerator(dylib, process);
    e = define_symbols(dylib, symbols, count);
  }
  /* Generated code calls SLEEF (the math builtins) and libm (fmodf, and
   * fmaf without FMA, from LLVM's lowering). libweft depends on both, but
   * when the ICD loader opens libweft with RTLD_LOCAL they are not among
   * the process's global symbols: look their functions up in each library
   * itself too. */
  static const char *const libraries[] = {WEFT_SLEEF_SONAME, "libm.so.6"};
  for (size_t i = 0; !e && i < sizeof libraries / sizeof *libraries; i++) {
    LLVMOrcDefinitionGeneratorRef library;
    e = LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(
        &library, libraries[i], LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
    if (!e) LLVMOrcJITDylibAddGenerator(dylib, library);
  }
  if (e) {
    *error = error_text("cannot set up the JIT's symbols", e);
    LLVMOrcDisposeLLJIT(jit);
    jit = NULL;
    return WEFT_EBUILD;
  }
  return 0;
}

int weft__orc_add_object(const void *object, size_t size, const char *name,
                         weft_orc_code **out, char **error) {
  weft_orc_code *code = calloc(1, sizeof *code);
  LLVMMemoryBufferRef buffer =
      code ? LLVMCreateMemoryBufferWithMemoryRangeCopy(object, size, name)
           : NULL;
  if (!buffer) {
    free(code);
    return WEFT_ENOMEM;
  }
  code->tracker =
      LLVMOrcJITDylibCreateResourceTracker(LLVMOrcLLJITGetMainJITDylib(jit));
  /* The buffer is the JIT's from here on, whatever the outcome. */
  LLVMErrorRef e = LLVMOrcLLJITAddObjectFileWithRT(jit, code->tracker, buffer);
  if (e) {
    *error = error_text("cannot add the program to the JIT", e);
    weft__orc_remove(code);
    return WEFT_EBUILD;
  }
  *out = code;
  return 0;
}

void *weft__orc_lookup(weft_orc_code *code, const char *name, char **error) {
  (void)code; /* names are unique per program, so one dylib serves all */
  LLVMOrcExecutorAddress address = 0;
  LLVMErrorRef e = LLVMOrcLLJITLookup(jit, &address, name);
  if (e) {
    *error = error_text("cannot generate machine code", e);
    return NULL;
  }
  return (void *)(uintptr_t)address;
}

void weft__orc_remove(weft_orc_code *code) {
  if (!code) return;
  LLVMErrorRef e = LLVMOrcResourceTrackerRemove(code->tracker);
  if (e) LLVMConsumeError(e);
  LLVMOrcReleaseResourceTracker(code->tracker);
  free(code);
}
