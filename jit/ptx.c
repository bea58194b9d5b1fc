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

#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

#include "jit/build_state.h"
#include "jit/builtins.h"
#include "jit/compile.h"
#include "jit/jit.h"
#include "jit/kernel_info.h"
#include "jit/options.h"
#include "jit/passes.h"
#include "jit/ptx.h"
#include "jit/target.h"
#include "weft/weft.h"

static int start(weft_build_state *b, unsigned sm, const char *options) {
  int rc = weft__options_parse(options, &b->options, &b->error);
  if (rc) return rc;
  weft_nvptx_arch arch;
  weft__nvptx_arch(sm, &arch);
  return weft__build_state_start(b, weft__nvptx_machine_create(&arch), "PTX");
}

/* Everything but the CUDA entries and the globals the runtime fills
 * (externally initialized: ptx_kernels.c) becomes internal, so O3 sees
 * every use. */
static void internalize(weft_build_state *b) {
  unsigned n = b->num_kernels;
  const char *keep[n ? n : 1];
  for (unsigned i = 0; i < n; i++) keep[i] = b->kernels[i].name;
  weft__build_state_internalize(b, keep, n);
}

static int emit_ptx(weft_build_state *b, char **ptx) {
  LLVMMemoryBufferRef text = NULL;
  if (weft__build_state_emit(b, LLVMAssemblyFile, &text)) return WEFT_EBUILD;
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
static int finish(weft_build_state *b, weft_binary **out, char **ptx) {
  int rc = weft__builtins_link(b->module, WEFT_BUILTINS_NVPTX, &b->error);
  if (!rc) rc = weft__ptx_libdevice_link(b->module, &b->error);
  if (!rc) {
    weft__nvptx_apply(b->module, b->machine);
    rc = weft__kernel_info_collect(b->module, b->layout, &b->kernels,
                                   &b->num_kernels, &b->error);
  }
  if (!rc) rc = weft__inline_callees(b->module, b->machine, &b->error);
  if (!rc)
    rc = weft__ptx_make_kernels(b->module, b->layout, b->kernels,
                                b->num_kernels);
  if (!rc) rc = weft__ptx_printf_lower(b->module, &b->error);
  if (!rc) weft__ptx_orderings_lower(b->module);
  if (!rc) {
    LLVMStripModuleDebugInfo(b->module);
    internalize(b);
    rc = weft__build_state_verify(b);
  }
  /* Both pipelines run the NVPTX passes that libdevice needs
   * (__nvvm_reflect) and inline the bodies into the entries. */
  if (!rc)
    rc = weft__run_passes(b->module, b->machine,
                          b->options.optimize ? "default<O3>" : "default<O0>",
                          &b->error);
  if (!rc) weft__ptx_selection_prepare(b->module);
  if (!rc) weft__jit_dump_module(b->module);
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
  weft_build_state b = {0};
  *out = NULL;
  *ptx = NULL;
  *log = NULL;
  int rc = start(&b, sm, options);
  weft_source_file file = {WEFT_SOURCE_NAME, source, length};
  if (!rc)
    rc = weft__compile_source(b.context, sm, &b.options, &file, NULL, 0,
                              &b.module, log, NULL);
  if (!rc) rc = finish(&b, out, ptx);
  return weft__build_state_end(&b, rc, log);
}

int weft__jit_build_ptx_bitcode(unsigned sm, const void *bitcode, size_t size,
                                const char *options, weft_binary **out,
                                char **ptx, char **log) {
  weft_build_state b = {0};
  *out = NULL;
  *ptx = NULL;
  *log = NULL;
  int rc = start(&b, sm, options);
  if (!rc)
    rc = weft__module_from_bitcode(b.context, bitcode, size, &b.module, log);
  if (!rc) rc = finish(&b, out, ptx);
  return weft__build_state_end(&b, rc, log);
}

void weft__jit_ptx_binary_free(weft_binary *binary) {
  if (!binary) return;
  weft__kernel_descs_free(binary->kernels, binary->num_kernels);
  free(binary->sites);
  free(binary);
}
