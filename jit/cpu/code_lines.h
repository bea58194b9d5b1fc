/*
 * code_lines.h: the source line of an address in loaded kernel code, from
 * the line tables of its object file. LLVM's DWARF reader has no C API, so
 * this is a thin C++ shim (code_lines.cpp), like frontend.cpp.
 */
#ifndef WEFT_JIT_CODE_LINES_H
#define WEFT_JIT_CODE_LINES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* In the object file object (size bytes), whose symbol symbol was loaded
 * at symbol_address, the source location of the instruction at pc (in
 * the same section as the symbol): "program.cl:9:15" in out, and 1; or 0
 * when the object has no line for it (or pc is not in that section). */
int weft__code_line(const void *object, size_t size, const char *symbol,
                    uintptr_t symbol_address, uintptr_t pc, char *out,
                    size_t out_size);

#ifdef __cplusplus
}
#endif

#endif
