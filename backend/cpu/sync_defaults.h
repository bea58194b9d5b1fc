/*
 * sync_defaults.h: this machine's default cl_weft_sync algorithms, from
 * the file `weft bench probe` writes (tools/sync_defaults.h gives its
 * format; its folder is the kernel cache's), as -D build options the
 * CPU device adds to the programs it builds (backend/common/sync_options.h).
 */
#ifndef WEFT_BACKEND_CPU_SYNC_DEFAULTS_H
#define WEFT_BACKEND_CPU_SYNC_DEFAULTS_H

#include <stddef.h>

/* The file's name in the kernel cache's folder (the runtime reads it, and
 * `weft bench probe` writes it: tools/sync_defaults.c). */
#define WEFT_SYNC_DEFAULTS_FILE "sync-defaults"

/* The options the file asks for, like " -DWEFT_MUTEX_IMPL=WEFT_MUTEX_TICKET"
 * (one per line that names an algorithm the primitive has), in out; empty
 * without a file, or when the cache's folder or the file is not trusted
 * (jit/cache/cache_files.h: owned by another user, or writable by others). */
void weft__sync_defaults_read(char *out, size_t size);

#endif
