/*
 * perf_map.h: perf's map of JIT code (WEFT_PERF=map). Each program's
 * functions, as they are loaded, get a line "START SIZE NAME" in
 * /tmp/perf-PID.map, the file `perf report` reads for code that no ELF
 * file describes: samples in kernels are then named
 * "weft:saxpy [weft.1a2b...]" instead of raw [JIT] addresses.
 */
#ifndef WEFT_JIT_PERF_MAP_H
#define WEFT_JIT_PERF_MAP_H

#include <stddef.h>

#include "jit/cpu/orc.h"

/* Turns the map on (WEFT_PERF=map); called once, before any build. */
void weft__perf_map_enable(void);

/* Describes the functions of object, just added to the JIT as code under
 * the symbol prefix prefix, in the map (nothing when it is off). Looks
 * the program's entry points up, which makes their code. */
void weft__perf_map_add(weft_orc_code *code, const void *object, size_t size,
                        const char *prefix);

#endif
