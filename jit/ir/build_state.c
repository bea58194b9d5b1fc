/* build_state.c: the state and steps every build shares (see
 * build_state.h). */
#include "jit/ir/build_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>

#include "jit/front/compile.h"
#include "jit/ir/kernel_info.h"
#include "weft/weft.h"

/* LLVM's default handler would end the process on an error. */
static void collect_diagnostic(LLVMDiagnosticInfoRef info, void *data) {
  weft_build_state *s = data;
  LLVMDiagnosticSeverity severity = LLVMGetDiagInfoSeverity(info);
  if (severity != LLVMDSError && severity != LLVMDSWarning) return;
  char *text = LLVMGetDiagInfoDescription(info);
  char *line = NULL;
  if (asprintf(&line, "%s: %s\n", severity == LLVMDSError ? "error" : "warning",
               text) >= 0) {
    weft__log_append(&s->error, line);
    free(line);
  }
  LLVMDisposeMessage(text);
}

int weft__build_state_start(weft_build_state *s, LLVMTargetMachineRef machine,
                            const char *what) {
  s->context = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(s->context, collect_diagnostic, s);
  s->machine = machine;
  if (!machine) {
    if (asprintf(&s->error, "internal error: LLVM cannot make %s\n", what) < 0)
      s->error = NULL;
    return WEFT_EBUILD;
  }
  s->layout = LLVMCreateTargetDataLayout(machine);
  return 0;
}

int weft__build_state_end(weft_build_state *s, int rc, char **log) {
  if (rc && rc != WEFT_ENOMEM && !*log && !s->error)
    s->error = strdup("error: the build failed\n");
  weft__log_append(log, s->error);
  if (!*log) *log = strdup("");
  weft__options_free(&s->options);
  if (s->module) LLVMDisposeModule(s->module);
  if (s->layout) LLVMDisposeTargetData(s->layout);
  if (s->machine) LLVMDisposeTargetMachine(s->machine);
  if (s->context) LLVMContextDispose(s->context);
  weft__kernel_descs_free(s->kernels, s->num_kernels);
  free(s->error);
  return rc;
}

int weft__build_state_verify(weft_build_state *s) {
  char *message = NULL;
  int bad = LLVMVerifyModule(s->module, LLVMReturnStatusAction, &message);
  if (bad && asprintf(&s->error, "internal error: Weft generated invalid "
                                 "code:\n%s", message) < 0)
    s->error = NULL;
  LLVMDisposeMessage(message);
  return bad ? WEFT_EBUILD : 0;
}

static int kept(const char *name, const char *const *keep, unsigned count) {
  for (unsigned i = 0; i < count; i++)
    if (!strcmp(name, keep[i])) return 1;
  return 0;
}

void weft__build_state_internalize(weft_build_state *s,
                                   const char *const *keep, unsigned count) {
  for (LLVMValueRef f = LLVMGetFirstFunction(s->module); f;
       f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && !kept(LLVMGetValueName(f), keep, count))
      LLVMSetLinkage(f, LLVMInternalLinkage);
  for (LLVMValueRef g = LLVMGetFirstGlobal(s->module); g;
       g = LLVMGetNextGlobal(g)) {
    const char *name = LLVMGetValueName(g);
    if (!LLVMIsDeclaration(g) && strncmp(name, "llvm.", 5) &&
        !LLVMIsExternallyInitialized(g) && !kept(name, keep, count))
      LLVMSetLinkage(g, LLVMInternalLinkage);
  }
}

int weft__build_state_emit(weft_build_state *s, LLVMCodeGenFileType type,
                           LLVMMemoryBufferRef *out) {
  char *message = NULL;
  if (!LLVMTargetMachineEmitToMemoryBuffer(s->machine, s->module, type,
                                           &message, out))
    return 0;
  if (asprintf(&s->error, "internal error: code generation failed: %s\n",
               message) < 0)
    s->error = NULL;
  LLVMDisposeMessage(message);
  return WEFT_EBUILD;
}
