/*
 * build_state.h: what every build shares, whether it makes host code
 * (build.c) or PTX (ptx.c): its options, its LLVM objects, the kernels it
 * describes and the error text it gathers, released in one place; and the
 * steps both take on them: verifying, internalizing, emitting code.
 */
#ifndef WEFT_JIT_BUILD_STATE_H
#define WEFT_JIT_BUILD_STATE_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "jit/front/options.h"
#include "jit/kernel_abi.h"

typedef struct weft_build_state {
  weft_build_options options;
  LLVMContextRef context;
  LLVMModuleRef module;
  LLVMTargetMachineRef machine;
  LLVMTargetDataRef layout;
  weft_kernel_desc *kernels;
  unsigned num_kernels;
  size_t global_vars_size;    /* the program's __global variables' bytes */
  char *error;                /* malloc'd; joins the log at the end */
} weft_build_state;

/* Makes the context, whose diagnostics (the bitcode reader's, the
 * linker's, the back end's) join s->error instead of ending the process,
 * and takes machine over (NULL: WEFT_EBUILD with what in s->error). */
int weft__build_state_start(weft_build_state *s, LLVMTargetMachineRef machine,
                            const char *what);

/* Ends a build: s->error joins *log, which is never NULL afterwards, and
 * everything s holds is released. Returns rc. */
int weft__build_state_end(weft_build_state *s, int rc, char **log);

/* Checks the module LLVM's verifier: 0, or WEFT_EBUILD with why. */
int weft__build_state_verify(weft_build_state *s);

/* Gives every definition internal linkage but those named in keep, LLVM's
 * own globals and those the runtime writes (externally initialized):
 * programs then share no symbol, and optimization sees every use. */
void weft__build_state_internalize(weft_build_state *s,
                                   const char *const *keep, unsigned count);

/* Emits the module as type (object code, or assembly: PTX) into *out. */
int weft__build_state_emit(weft_build_state *s, LLVMCodeGenFileType type,
                           LLVMMemoryBufferRef *out);

#endif
