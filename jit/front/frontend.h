/*
 * frontend.h: the Clang front end, behind a C interface.
 *
 * Clang has no C API for compiling to an LLVM module in-process, so this is
 * a C++ shim (frontend.cpp), like code_lines.cpp where LLVM lacks one too.
 * Everything else in jit/ works on the resulting module through the
 * LLVM-C API.
 */
#ifndef WEFT_JIT_FRONTEND_H
#define WEFT_JIT_FRONTEND_H

#include <stddef.h>

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A file served from memory: the program's source, or a header that
 * clCompileProgram embeds (found by #include "name" from the source). */
typedef struct weft_source_file {
  const char *name;
  const char *text;
  size_t length;
} weft_source_file;

/* Compiles main with Clang's cc1 arguments args (main's name among them)
 * into a module in context. Appends every diagnostic, as
 * "file:line:column: severity: message" with the source line and a caret,
 * to *log (malloc'd, NUL-terminated).
 * With deps, a successful compile also lists in *deps (malloc'd) every file
 * it read from disk, one path per line, so a cache can tell when a header
 * changed. Returns 0 on success, -1 if compilation failed (the log says
 * why). */
int weft__frontend_compile(LLVMContextRef context, const weft_source_file *main,
                           const weft_source_file *headers,
                           unsigned num_headers, const char *const *args,
                           int num_args, LLVMModuleRef *out, char **log,
                           char **deps);

#ifdef __cplusplus
}
#endif

#endif
