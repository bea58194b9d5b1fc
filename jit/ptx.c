/* ptx.c: from OpenCL C source, or from bitcode, to PTX for an NVIDIA GPU.
 *
 * Clang front end for nvptx64 (compile.c) -> link the nvptx builtins ->
 * libdevice where called -> describe the kernels -> inline all callees ->
 * the primitives' globals and the CUDA entries (ptx_kernels.c) -> printf
 * -> ordered loads and stores -> O3 for the GPU's architecture -> casts
 * NVPTX can make -> PTX, which the CUDA back end loads
 * (the driver compiles PTX to the GPU's code, and caches that). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

#include "jit/builtins.h"
#include "jit/compile.h"
#include "jit/jit.h"
#include "jit/kernel_info.h"
#include "jit/options.h"
#include "jit/passes.h"
#include "jit/ptx.h"
#include "jit/target.h"
#include "weft/weft.h"

/* The state of one build, released in one place whatever the outcome. */
typedef struct ptx_build {
  weft_build_options options;
  weft_nvptx_arch arch;
  LLVMContextRef context;
  LLVMModuleRef module;
  LLVMTargetMachineRef machine;
  LLVMTargetDataRef layout;
  weft_kernel_desc *kernels;
  unsigned num_kernels;
  char *error;
} ptx_build;

/* LLVM's diagnostics join the build's error text: its default handler
 * would end the process on an error. */
static void collect_diagnostic(LLVMDiagnosticInfoRef info, void *data) {
  ptx_build *b = data;
  LLVMDiagnosticSeverity severity = LLVMGetDiagInfoSeverity(info);
  if (severity != LLVMDSError) return;
  char *text = LLVMGetDiagInfoDescription(info);
  weft__log_append(&b->error, "error: ");
  weft__log_append(&b->error, text);
  weft__log_append(&b->error, "\n");
  LLVMDisposeMessage(text);
}

static int start(ptx_build *b, unsigned sm, const char *options) {
  int rc = weft__options_parse(options, &b->options, &b->error);
  if (rc) return rc;
  weft__nvptx_arch(sm, &b->arch);
  b->context = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(b->context, collect_diagnostic, b);
  b->machine = weft__nvptx_machine_create(&b->arch);
  if (!b->machine) {
    b->error = strdup("internal error: LLVM cannot make PTX\n");
    return WEFT_EBUILD;
  }
  b->layout = LLVMCreateTargetDataLayout(b->machine);
  return 0;
}

static int end(ptx_build *b, int rc, char **log) {
  if (rc && rc != WEFT_ENOMEM && !*log && !b->error)
    b->error = strdup("error: the build failed\n");
  weft__log_append(log, b->error);
  if (!*log) *log = strdup("");
  weft__options_free(&b->options);
  if (b->module) LLVMDisposeModule(b->module);
  if (b->layout) LLVMDisposeTargetData(b->layout);
  if (b->machine) LLVMDisposeTargetMachine(b->machine);
  if (b->context) LLVMContextDispose(b->context);
  weft__kernel_descs_free(b->kernels, b->num_kernels);
  free(b->error);
  return rc;
}

/* Everything but the CUDA entries and the runtime's globals becomes
 * internal, so O3 sees every use. */
static void internalize(ptx_build *b) {
  for (LLVMValueRef f = LLVMGetFirstFunction(b->module); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    int entry = 0;
    for (unsigned i = 0; i < b->num_kernels && !entry; i++)
      entry = !strcmp(LLVMGetValueName(f), b->kernels[i].name);
    if (!entry) LLVMSetLinkage(f, LLVMInternalLinkage);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(b->module); g;
       g = LLVMGetNextGlobal(g)) {
    const char *name = LLVMGetValueName(g);
    if (!LLVMIsDeclaration(g) && strncmp(name, "llvm.", 5) &&
        strcmp(name, WEFT_PTX_LAUNCH_BLOCK) &&
        strcmp(name, WEFT_PTX_LAUNCH_WORDS) &&
        strcmp(name, WEFT_PTX_CONSTANT_BANK))
      LLVMSetLinkage(g, LLVMInternalLinkage);
  }
}

static int verify(ptx_build *b) {
  char *message = NULL;
  int bad = LLVMVerifyModule(b->module, LLVMReturnStatusAction, &message);
  if (bad && asprintf(&b->error, "internal error: Weft generated invalid "
                                 "code:\n%s", message) < 0)
    b->error = NULL;
  LLVMDisposeMessage(message);
  return bad ? WEFT_EBUILD : 0;
}

static int emit_ptx(ptx_build *b, char **ptx) {
  char *message = NULL;
  LLVMMemoryBufferRef text = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(b->machine, b->module,
                                          LLVMAssemblyFile, &message, &text)) {
    if (asprintf(&b->error, "internal error: PTX generation failed: %s\n",
                 message) < 0)
      b->error = NULL;
    LLVMDisposeMessage(message);
    return WEFT_EBUILD;
  }
  size_t size = LLVMGetBufferSize(text);
  *ptx = malloc(size + 1);
  if (*ptx) {
    memcpy(*ptx, LLVMGetBufferStart(text), size);
    (*ptx)[size] = 0;
  }
  LLVMDisposeMemoryBuffer(text);
  return *ptx ? 0 : WEFT_ENOMEM;
}

/* The back half, from the front end's module to PTX. */
static int finish(ptx_build *b, weft_binary **out, char **ptx) {
  int rc = weft__builtins_link(b->module, WEFT_BUILTINS_NVPTX, &b->error);
  if (!rc) rc = weft__ptx_libdevice_link(b->module, &b->error);
  if (!rc) {
    weft__nvptx_apply(b->module, b->machine, &b->arch);
    rc = weft__kernel_info_collect(b->module, b->layout, &b->kernels,
                                   &b->num_kernels, &b->error);
  }
  if (!rc) rc = weft__inline_callees(b->module, b->machine, &b->error);
  if (!rc)
    rc = weft__ptx_make_kernels(b->module, b->layout, b->kernels,
                                b->num_kernels);
  if (!rc) rc = weft__ptx_printf_lower(b->module, &b->error);
  if (!rc) weft__ptx_atomics_lower(b->module);
  if (!rc) {
    LLVMStripModuleDebugInfo(b->module);
    internalize(b);
    rc = verify(b);
  }
  /* Both pipelines run the NVPTX passes that libdevice needs
   * (__nvvm_reflect) and inline the bodies into the entries. */
  if (!rc)
    rc = weft__run_passes(b->module, b->machine,
                          b->options.optimize ? "default<O3>" : "default<O0>",
                          &b->error);
  if (!rc) weft__ptx_casts_split(b->module);
  if (!rc) rc = emit_ptx(b, ptx);
  if (rc) return rc;
  weft_binary *binary = calloc(1, sizeof *binary);
  if (!binary) return WEFT_ENOMEM;
  binary->kernels = b->kernels;
  binary->num_kernels = b->num_kernels;
  b->kernels = NULL;
  b->num_kernels = 0;
  *out = binary;
  return 0;
}

int weft__jit_build_ptx(unsigned sm, const char *source, size_t length,
                        const char *options, weft_binary **out, char **ptx,
                        char **log) {
  ptx_build b = {0};
  *out = NULL;
  *ptx = NULL;
  *log = NULL;
  int rc = start(&b, sm, options);
  weft_source_file file = {WEFT_SOURCE_NAME, source, length};
  if (!rc)
    rc = weft__compile_source(b.context, sm, &b.options, &file, NULL, 0,
                              &b.module, log, NULL);
  if (!rc) rc = finish(&b, out, ptx);
  return end(&b, rc, log);
}

int weft__jit_build_ptx_bitcode(unsigned sm, const void *bitcode, size_t size,
                                const char *options, weft_binary **out,
                                char **ptx, char **log) {
  ptx_build b = {0};
  *out = NULL;
  *ptx = NULL;
  *log = NULL;
  int rc = start(&b, sm, options);
  if (!rc)
    rc = weft__module_from_bitcode(b.context, bitcode, size, &b.module, log);
  if (!rc) rc = finish(&b, out, ptx);
  return end(&b, rc, log);
}

void weft__jit_ptx_binary_free(weft_binary *binary) {
  if (!binary) return;
  weft__kernel_descs_free(binary->kernels, binary->num_kernels);
  free(binary->sites);
  free(binary);
}
