/* builtins.c: lazy linking of the embedded builtin bitcode (see builtins.h). */
#include "jit/builtins.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "weft/weft.h"

extern const char weft__builtins_bc_start[];
extern const char weft__builtins_bc_end[];

static char *copy_message(const char *prefix, const char *detail) {
  size_t n = strlen(prefix) + strlen(detail) + 1;
  char *s = malloc(n);
  if (s) {
    strcpy(s, prefix);
    strcat(s, detail);
  }
  return s;
}

/* Definitions become link-once: the linker then copies a builtin into the
 * module only if the module calls it. Functions still unread (lazy) count as
 * definitions here, which is what we want. */
static void make_link_once(LLVMModuleRef library) {
  for (LLVMValueRef f = LLVMGetFirstFunction(library); f;
       f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  }
}

int weft__builtins_link(LLVMModuleRef module, char **error) {
  size_t size = (size_t)(weft__builtins_bc_end - weft__builtins_bc_start);
  LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(
      weft__builtins_bc_start, size, "weft-builtins", 0);
  LLVMModuleRef library = NULL;
  /* The lazy reader takes ownership of the buffer (not of its bytes). */
  if (LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(module), buffer,
                                     &library)) {
    *error = copy_message("internal error: ", "cannot read the builtins");
    return WEFT_EBUILD;
  }
  make_link_once(library);
  /* The library was compiled for the same triple; the module's layout wins. */
  LLVMSetDataLayout(library, LLVMGetDataLayoutStr(module));
  if (LLVMLinkModules2(module, library)) {
    *error = copy_message("internal error: ", "linking the builtins failed");
    return WEFT_EBUILD;
  }
  return 0;
}
