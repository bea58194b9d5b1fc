/*
 * binary_io.h: a built program's description (its kernels, their
 * arguments, barrier sites) as bytes and back, so that a cached build can
 * be used without building again. Entry points are not part of it: they
 * are looked up in the loaded code.
 */
#ifndef WEFT_JIT_BINARY_IO_H
#define WEFT_JIT_BINARY_IO_H

#include <stddef.h>

#include "jit/kernel_abi.h"

/* The kernels and sites of b as a malloc'd byte string. */
int weft__binary_save(const weft_binary *b, unsigned char **out, size_t *size);

/* Fills b's kernels and sites from bytes made by weft__binary_save (entry
 * points NULL, impl untouched). Returns WEFT_EBUILD on malformed input. */
int weft__binary_load(const unsigned char *data, size_t size, weft_binary *b);

#endif
