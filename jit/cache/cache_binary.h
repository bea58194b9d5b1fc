/*
 * cache_binary.h: binaries (jit.h's weft_binary) over the kernel cache's
 * entries, for both targets' builds: a fresh build's output kept in the
 * cache, and a binary made over a kept one.
 */
#ifndef WEFT_JIT_CACHE_BINARY_H
#define WEFT_JIT_CACHE_BINARY_H

#include "jit/cache/cache.h"
#include "jit/kernel_abi.h"

/* A binary over a kernel cache entry, whose reference it takes over
 * (from: weft_binary's from_cache): the kernels' descriptions, and for
 * host code their entry points in the loaded code. The entry's log joins
 * *log. */
int weft__jit_binary_from_cache(weft_cached *c, int from, weft_binary **out,
                                char **log);

/* Saves desc's kernels and hands them to the cache with a fresh build's
 * object (host code, or PTX text: kind), its stamps and its log; then the
 * binary over the new entry. Errors join *error. */
int weft__jit_cache_keep(const weft_cache_key *key, weft_cache_kind kind,
                         const char *stamps, const void *object, size_t size,
                         const weft_binary *desc, const char *log,
                         weft_binary **out, char **error);

#endif
