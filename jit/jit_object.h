/*
 * jit_object.h: what a JIT object (jit.h's weft_jit) holds, for the files
 * of jit/ that build with it: the settings of its target, fixed when it is
 * made, and what they imply. Nothing here changes after creation, so
 * builds on any thread read it without a lock.
 */
#ifndef WEFT_JIT_OBJECT_H
#define WEFT_JIT_OBJECT_H

#include <stddef.h>

#include <llvm-c/Core.h>

#include "base/lock.h"
#include "jit/front/options.h"
#include "jit/jit.h"

typedef enum weft_jit_target { WEFT_JIT_CPU, WEFT_JIT_PTX } weft_jit_target;

/* libdevice for the GPUs' JIT (ptx/ptx_libdevice.c): found when the JIT
 * is made, read by the first build that calls it (under lock). */
typedef struct weft_libdevice {
  char path[1024];    /* the file found, or "" */
  char why[1200];     /* why there is none, or why it was not read */
  weft_lock lock;
  int read;           /* the file was tried */
  char *bytes;        /* its bytes; NULL where it could not be read */
  size_t size;
} weft_libdevice;

struct weft_jit {
  weft_jit_target target;
  char *dump_dir;    /* WEFT_DUMP_IR: NULL, or every build's IR goes there */
  /* What the code depends on besides the input: part of every cache key
   * (for the GPUs, the architecture is added per build). */
  char *identity;
  weft_jit_codegen codegen;      /* the CPU's; zero for the GPUs' */
  /* The GPUs': libdevice, the one thing a build may change (reading the
   * file), behind its own lock. */
  weft_libdevice *libdevice;
};

/* A JIT for target with dump_dir (copied) and the process's cache in
 * cache_dir, keeping cache_kept released builds loaded: the parts both
 * targets have. NULL without memory. */
struct weft_jit *weft__jit_object_new(weft_jit_target target,
                                      const char *dump_dir,
                                      const char *cache_dir,
                                      unsigned cache_kept);

/* Parses a build's options for jit into o: weft_assert checks in testing
 * builds (schedule exploration, check mode) or when asked
 * (-cl-weft-assert). WEFT_EOPTION with why in *error. */
int weft__jit_parse_options(const struct weft_jit *jit, const char *options,
                            weft_build_options *o, char **error);

/* Writes a finished module to jit->dump_dir as program-N.ll (N counts the
 * process's dumps, both targets'), where that is set. With it set, every
 * build is made, not taken from the kernel cache, so that its IR is
 * written. */
void weft__jit_dump_module(const struct weft_jit *jit, LLVMModuleRef module);

#endif
