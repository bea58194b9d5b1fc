/* inline.c: step 1 of passes.h, inlining every function into the kernels,
 * and the checks that code left after it can be run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ir/kernel_info.h"
#include "jit/ir/ir.h"
#include "jit/ir/target.h"
#include "weft/weft.h"

/* From the C++ runtime we link anyway: turns "_Z3fooi" into "foo(int)". */
extern char *__cxa_demangle(const char *name, char *out, size_t *length,
                            int *status);

static void set_attribute(LLVMValueRef fn, const char *name, int on) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
  if (on)
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(context, kind, 0));
}

/* "file:line:column: " for an instruction, or "" without debug locations. */
static void source_prefix(LLVMValueRef inst, char *out, size_t size) {
  unsigned length = 0;
  const char *file = LLVMGetDebugLocFilename(inst, &length);
  unsigned line = LLVMGetDebugLocLine(inst);
  if (file && line)
    snprintf(out, size, "%.*s:%u:%u: ", (int)length, file, line,
             LLVMGetDebugLocColumn(inst));
  else
    out[0] = 0;
}

/* Calls left for later passes (intrinsics, Weft's primitives, printf,
 * Clang's to_global and kin, libdevice's __nvvm_reflect) or resolved from
 * the process (SLEEF). */
static int is_allowed_external(const char *name) {
  return !strncmp(name, "llvm.", 5) || !strncmp(name, "__weft_", 7) ||
         !strcmp(name, "__nvvm_reflect") ||
         !strcmp(name, "printf") || !strncmp(name, "Sleef_", 6) ||
         !strcmp(name, "__to_global") || !strcmp(name, "__to_local") ||
         !strcmp(name, "__to_private");
}

/* Whether kernel `to` is reached from `from` through calls of kernels
 * (depth bounds the walk: a cycle is met within as many steps as there are
 * kernels). */
static int reaches(LLVMValueRef from, LLVMValueRef to, unsigned depth) {
  if (!depth) return 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(from); b;
       b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i)) continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAFunction(callee) || !weft__is_kernel(callee)) continue;
      if (callee == to || reaches(callee, to, depth - 1)) return 1;
    }
  return 0;
}

static unsigned count_kernels(LLVMModuleRef module) {
  unsigned n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f; f = LLVMGetNextFunction(f))
    n += weft__is_kernel(f);
  return n;
}

/* A call that the build cannot keep: inline assembly where it is not
 * allowed (the CPU's object code has no assembler for it, and LLVM ends
 * the process on it), or a kernel that calls itself, directly or through
 * other kernels (no recursion in OpenCL C). 1 with *error set, else 0. */
static int forbidden_call(LLVMValueRef kernel, LLVMValueRef call, int allow_asm,
                          char **error) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  char where[512];
  source_prefix(call, where, sizeof where);
  int n = 0;
  if (LLVMIsAInlineAsm(callee) && !allow_asm)
    n = asprintf(error, "%serror: inline assembly is not supported\n", where);
  else if (LLVMIsAFunction(callee) && weft__is_kernel(callee) &&
           (callee == kernel ||
            reaches(callee, kernel, count_kernels(LLVMGetGlobalParent(kernel)))))
    n = asprintf(error, "%serror: kernel '%s' calls itself%s, which OpenCL C "
                 "does not allow\n", where, LLVMGetValueName(kernel),
                 callee == kernel ? "" : " through other kernels");
  else
    return 0;
  if (n < 0) *error = NULL;
  return 1;
}

/* Checks one call left in a kernel after inlining. */
static int check_call(LLVMValueRef kernel, LLVMValueRef call, int allow_asm,
                      char **error) {
  if (forbidden_call(kernel, call, allow_asm, error)) return WEFT_EBUILD;
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!LLVMIsAFunction(callee) || weft__is_kernel(callee)) return 0;
  const char *name = LLVMGetValueName(callee);
  if (LLVMIsDeclaration(callee) && is_allowed_external(name)) return 0;

  char where[512];
  source_prefix(call, where, sizeof where);
  /* Builtins are overloaded, so their names are mangled; printf is the one
   * builtin with a plain C name. */
  int status = -1, mangled = !strncmp(name, "_Z", 2);
  int builtin = mangled || !strcmp(name, "printf");
  char *readable = mangled ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
  const char *shown = status == 0 && readable ? readable : name;
  int n;
  if (LLVMIsDeclaration(callee) && builtin)
    n = asprintf(error, "%serror: call to '%s', which Weft's builtin library "
                 "does not provide yet\n", where, shown);
  else if (LLVMIsDeclaration(callee))
    n = asprintf(error, "%serror: function '%s' is declared but never "
                 "defined\n", where, shown);
  else
    n = asprintf(error, "%serror: function '%s' is recursive, which OpenCL C "
                 "does not allow\n", where, shown);
  if (n < 0) *error = NULL;
  free(readable);
  return WEFT_EBUILD;
}

static int check_kernel(LLVMValueRef kernel, int allow_asm, char **error) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(kernel); b;
       b = LLVMGetNextBasicBlock(b)) {
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMIsACallInst(i) && check_call(kernel, i, allow_asm, error))
        return WEFT_EBUILD;
    }
  }
  return 0;
}

int weft__inline_callees(LLVMModuleRef module, LLVMTargetMachineRef machine,
                         int allow_asm, char **error) {
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || weft__is_kernel(f)) continue;
    LLVMSetLinkage(f, LLVMInternalLinkage);
    set_attribute(f, "noinline", 0);
    set_attribute(f, "optnone", 0);
    set_attribute(f, "alwaysinline", 1);
  }
  int rc = weft__run_passes(module, machine, "always-inline,globaldce", error);
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f && !rc;
       f = LLVMGetNextFunction(f)) {
    if (weft__is_kernel(f)) rc = check_kernel(f, allow_asm, error);
  }
  return rc;
}
