/*
 * builtins.h: linking the OpenCL C builtin library into a program's module.
 */
#ifndef WEFT_JIT_BUILTINS_H
#define WEFT_JIT_BUILTINS_H

#include <llvm-c/Core.h>

/* The libraries: the CPU's, and NVIDIA GPUs' (builtins/nvptx). */
typedef enum weft_builtins_target {
  WEFT_BUILTINS_CPU,
  WEFT_BUILTINS_NVPTX
} weft_builtins_target;

/* Links into module the builtins it calls, and only those: only the
 * families of functions it declares are read, lazily, and their functions
 * have link-once linkage, so the linker materializes a function only when
 * the module refers to it.
 * Returns 0, or WEFT_EBUILD with a malloc'd message in *error. */
int weft__builtins_link(LLVMModuleRef module, weft_builtins_target target,
                        char **error);

#endif
