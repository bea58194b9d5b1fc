/*
 * orc.h: one LLVM ORC LLJIT instance for the process. Each program's code is
 * added under its own resource tracker, so releasing a program frees its
 * machine code.
 */
#ifndef WEFT_JIT_ORC_H
#define WEFT_JIT_ORC_H

#include <llvm-c/Orc.h>

#include "jit/jit.h"

typedef struct weft_orc_code weft_orc_code;

int weft__orc_init(const weft_jit_symbol *symbols, size_t count, char **error);

/* Adds a module (taking ownership) and compiles it when first looked up. */
int weft__orc_add(LLVMOrcThreadSafeModuleRef module, weft_orc_code **out,
                  char **error);

/* The address of a function of code, compiling it if needed, or NULL. */
void *weft__orc_lookup(weft_orc_code *code, const char *name, char **error);

void weft__orc_remove(weft_orc_code *code);

#endif
