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

/* Starts the JIT; with jitdump, perf's jitdump of its code is written
 * (LLVM's listener: $JITDUMPDIR or ~/.debug/jit). */
int weft__orc_init(const weft_jit_symbol *symbols, size_t count, int jitdump,
                   char **error);

/* Adds object code (copied; name is for messages), linked when first
 * looked up. */
int weft__orc_add_object(const void *object, size_t size, const char *name,
                         weft_orc_code **out, char **error);

/* The address of a function of code, compiling it if needed, or NULL. */
void *weft__orc_lookup(weft_orc_code *code, const char *name, char **error);

void weft__orc_remove(weft_orc_code *code);

#endif
