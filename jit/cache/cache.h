/*
 * cache.h: the kernel cache. A build is known by a key, a hash of everything
 * that decides its machine code: Weft's own build ID, the host CPU, the
 * settings that change code generation, the build options and the source
 * (or bitcode). The cache keeps, per key, the object code the build made,
 * the description of its kernels, its log, and the files it read (headers)
 * with their sizes and modification times.
 *
 * In a process, builds with one key share one loaded copy of the code, so a
 * program built again costs a table look-up. On disk (WEFT_CACHE_DIR, by
 * default $XDG_CACHE_HOME/weft or ~/.cache/weft), a later process loads the
 * object instead of compiling. An entry whose files changed is a miss; an
 * unreadable, untrusted (cache_files.h) or damaged file is a miss and is
 * rewritten. Every file ends with a BLAKE3 hash of all that precedes it,
 * checked before anything in it is used, so a damaged entry never reaches
 * the loader.
 *
 * A build for the CPU keeps object code, loaded into ORC LLJIT; a build
 * for an NVIDIA GPU keeps its PTX text (the driver makes and caches the
 * GPU's code from it). The key tells them apart, and so does the kind
 * each call names.
 */
#ifndef WEFT_JIT_CACHE_H
#define WEFT_JIT_CACHE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/blake3.h>

#include "jit/cpu/orc.h"

/* ------------------------------------------------------------- hashing */

typedef struct weft_hasher {
  llvm_blake3_hasher state;
} weft_hasher;

void weft__hash_init(weft_hasher *h);
void weft__hash_bytes(weft_hasher *h, const void *data, size_t size);
/* A string with its length, so that ("ab","c") and ("a","bc") differ. */
void weft__hash_string(weft_hasher *h, const char *s);

/* The first size bytes (up to 32) of the hash of what h has taken. */
void weft__hash_digest(const weft_hasher *h, unsigned char *out, size_t size);

typedef struct weft_cache_key {
  char hex[33]; /* 128 bits as hex digits */
} weft_cache_key;

void weft__hash_key(const weft_hasher *h, weft_cache_key *key);

/* The key of a build: what the code depends on besides the input
 * (identity: Weft's build, the target, the settings), the input's kind
 * ("source", "bitcode"), the input and the build options. */
void weft__cache_key_make(const char *identity, const char *kind,
                          const void *input, size_t size, const char *options,
                          weft_cache_key *key);

/* The hex GNU build ID of the library Weft runs from, or NULL. */
const char *weft__build_id(void);

/* --------------------------------------------------------------- cache */

/* What the files a build read (deps: one path per line) are now: a
 * malloc'd string of "size mtime_s mtime_ns path" lines, or, when a file
 * cannot be examined, a marker that never matches (the build is then not
 * cached). */
char *weft__cache_stamp(const char *deps);

/* The prefix of a build's symbol names ("weft.<hex>"), distinct for each
 * key and stamps: a build with the same key but changed headers can be
 * loaded while the old one still runs. */
void weft__cache_symbol_prefix(const weft_cache_key *key, const char *stamps,
                               char out[48]);

/* What an entry keeps: host code, or PTX. */
typedef enum weft_cache_kind { WEFT_CACHE_CODE, WEFT_CACHE_PTX } weft_cache_kind;

typedef struct weft_cached {
  weft_cache_key key;
  char prefix[48];            /* of the code's symbol names */
  atomic_int refs;            /* 0: idle, kept for a later build */
  uint64_t released_at;       /* when refs last went to 0 (an order) */
  weft_orc_code *code;        /* the loaded machine code (WEFT_CACHE_CODE) */
  void *object;               /* its object file, for faults' source lines */
  size_t object_size;
  char *ptx;                  /* the PTX text (WEFT_CACHE_PTX) */
  unsigned char *descs;       /* the kernels, as binary_io.h saves them */
  size_t descs_size;
  char *stamps;               /* "size mtime_s mtime_ns path" lines */
  char *log;                  /* the build log (warnings) */
  struct weft_cached *next;   /* in the process's table */
} weft_cached;

/* Where the disk cache lives; NULL or "" keeps the cache in memory only,
 * as does a Weft with no build ID. Called before any build, by each
 * target's JIT and by the sync-defaults file's writer with the same
 * folder (cache_files.h checks the folder; naming it again changes
 * nothing). */
void weft__cache_set_dir(const char *dir);

/* The entry for key, with a reference, from memory or else from disk (its
 * object then loaded, or its PTX read), or NULL when there is none valid.
 * *from_disk tells which. */
weft_cached *weft__cache_find(const weft_cache_key *key, weft_cache_kind kind,
                              int *from_disk);

/* Loads a fresh build's object code (or keeps its PTX: object is then the
 * text, object_size its length) and records it under key and stamps
 * (in memory, and on disk where enabled; a failure to write the file is no
 * error). If another thread added the same build meanwhile, that entry is
 * returned instead. */
int weft__cache_add(const weft_cache_key *key, weft_cache_kind kind,
                    const char *stamps, const void *object, size_t object_size,
                    const unsigned char *descs, size_t descs_size,
                    const char *log, weft_cached **out, char **error);

/* Drops a reference. The last one leaves the entry loaded, among the
 * few most recently released, for a later build of the same input;
 * older ones, and ones whose headers changed, are unloaded. */
void weft__cache_release(weft_cached *c);

/* How many idle entries stay loaded (WEFT_CACHE_KEEP; its default until
 * set): the most recently released. Each target's JIT sets it. */
void weft__cache_set_kept(unsigned n);

/* Unloads every idle entry: later finds read the disk (the tests of the
 * disk's copies). */
void weft__cache_drop_idle(void);

/* ----------------------------------------- builds in a helper process
 * (core/build_isolated.h): the helper builds, hands over the entry it
 * made as the bytes of its file, and the process that asked adopts them
 * and builds again, from the cache only. */

/* What a build returns, on a cache miss, while this thread builds from
 * the cache only: never seen outside Weft. */
#define WEFT__EMISS (-1000)

/* Builds of this thread fail with WEFT__EMISS instead of compiling (on):
 * nothing but the cache may serve them. */
void weft__cache_only(int on);
int weft__cache_only_now(void);

/* In the helper: the process keeps, from now on, the last entry a build
 * made or found, which weft__cache_remembered_bytes then encodes as its
 * file's bytes (malloc'd) and kind; WEFT_EINVAL when there is none. */
void weft__cache_remember(void);
int weft__cache_remembered_bytes(unsigned char **out, size_t *size,
                                 weft_cache_kind *kind);

/* The entry that bytes (a file's, checksum and all) describe, loaded and
 * in the process's table, with a reference for the caller; NULL when
 * they are damaged, stale or cannot be loaded. */
weft_cached *weft__cache_adopt(weft_cache_kind kind, const unsigned char *bytes,
                               size_t size);

#endif
