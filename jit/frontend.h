/*
 * frontend.h: the Clang front end, behind a C interface.
 *
 * Clang has no C API for compiling to an LLVM module in-process, so this is
 * the one place where Weft uses C++ (frontend.cpp). Everything else in jit/
 * works on the resulting module through the LLVM-C API.
 */
#ifndef WEFT_JIT_FRONTEND_H
#define WEFT_JIT_FRONTEND_H

#include <stddef.h>

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compiles source with Clang's cc1 arguments args (the input file name among
 * them is served from source, not read from disk) into a module in context.
 * Appends every diagnostic, as "file:line:column: severity: message" with the
 * source line and a caret, to *log (malloc'd, NUL-terminated).
 * Returns 0 on success, -1 if compilation failed (the log says why). */
int weft__frontend_compile(LLVMContextRef context, const char *file_name,
                           const char *source, size_t length,
                           const char *const *args, int num_args,
                           LLVMModuleRef *out, char **log);

#ifdef __cplusplus
}
#endif

#endif
