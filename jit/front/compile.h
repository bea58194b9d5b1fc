/*
 * compile.h: the front half of a build, shared by whole builds and by
 * separate compilation: OpenCL C source to an LLVM module (Clang), modules
 * to bitcode and back, and linking modules together.
 */
#ifndef WEFT_JIT_COMPILE_H
#define WEFT_JIT_COMPILE_H

#include <llvm-c/Core.h>

#include "jit/front/frontend.h"
#include "jit/front/options.h"

/* The file name diagnostics give the program's source. */
#define WEFT_SOURCE_NAME "program.cl"

/* Where programs find include/weft/kernel.h (served from memory). */
#define WEFT_KERNEL_HEADER_NAME "weft/kernel.h"

/* Compiles source (and embedded headers) with parsed options into a module
 * of context, for the host CPU (sm 0) or an NVIDIA GPU (jit.h's sm). Diagnostics are appended to *log; with deps, the files read
 * from disk are listed there (see frontend.h). Returns 0, WEFT_EBUILD or
 * WEFT_ENOMEM. */
int weft__compile_source(LLVMContextRef context, unsigned sm,
                         const weft_build_options *o,
                         const weft_source_file *source,
                         const weft_source_file *headers, unsigned num_headers,
                         LLVMModuleRef *out, char **log, char **deps);

/* Appends text to a malloc'd log (which may be NULL). */
void weft__log_append(char **log, const char *text);

/* The module as a malloc'd bitcode string. */
int weft__module_to_bitcode(LLVMModuleRef module, void **out, size_t *size);

/* Reads bitcode into a module of context; on failure appends why to *log
 * and returns WEFT_EBUILD. */
int weft__module_from_bitcode(LLVMContextRef context, const void *bitcode,
                              size_t size, LLVMModuleRef *out, char **log);

#endif
