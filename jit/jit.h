/*
 * jit.h: the JIT as the back ends see it. OpenCL C source goes in, a
 * weft_binary (kernel descriptions and callable work-group functions) comes
 * out. No LLVM type crosses this interface.
 */
#ifndef WEFT_JIT_H
#define WEFT_JIT_H

#include <stddef.h>

#include "jit/kernel_abi.h"

/* A function of the runtime that generated code may call. */
typedef struct weft_jit_symbol {
  const char *name;
  void *address;
} weft_jit_symbol;

typedef struct weft_jit_config {
  const weft_jit_symbol *symbols; /* runtime functions generated code calls */
  size_t num_symbols;
  const char *dump_dir;           /* if set, each program's final IR goes here */
  /* Barriers: 1 to cut kernels into regions where possible (regions.c),
   * 0 to leave every barrier to fibers. */
  int barrier_regions;
  size_t max_private;             /* a work-item's private bytes in regions */
  const char *cache_dir;          /* the disk cache (cache.h); NULL: none */
  /* Schedule exploration: 0 none, 1 scheduling points at atomics and
   * barriers, 2 also at every global load and store (sched_points.c). */
  int schedule_points;
} weft_jit_config;

/* Starts the JIT (once per process). Returns 0, or an error with a malloc'd
 * message in *error. */
int weft__jit_init(const weft_jit_config *config, char **error);

/* Compiles OpenCL C source with build options into *out. *log receives the
 * build log (malloc'd, possibly empty) whatever the result. Returns 0,
 * WEFT_EOPTION, WEFT_EBUILD or WEFT_ENOMEM. The kernel cache may serve the
 * build (binary->from_cache says so). */
int weft__jit_build(const char *source, size_t length, const char *options,
                    weft_binary **out, char **log);

/* The same from LLVM bitcode made by weft__jit_compile or weft__jit_link
 * (a program binary): the front end does not run again. */
int weft__jit_build_bitcode(const void *bitcode, size_t size,
                            const char *options, weft_binary **out,
                            char **log);

/* A header embedded in a compilation, found by #include "name". */
typedef struct weft_jit_header {
  const char *name;
  const char *source;
} weft_jit_header;

/* Separate compilation: OpenCL C source to LLVM bitcode (malloc'd), with
 * calls to functions of other units left to the link. */
int weft__jit_compile(const char *source, size_t length, const char *options,
                      const weft_jit_header *headers, unsigned num_headers,
                      void **bitcode, size_t *size, char **log);

/* Links compiled units into one bitcode module (malloc'd); a symbol
 * defined twice is an error in the log. */
int weft__jit_link(const void *const *bitcodes, const size_t *sizes,
                   unsigned count, void **bitcode, size_t *size, char **log);

/* Whether bitcode looks like a whole module for this target (0), or not
 * (WEFT_EINVAL), without building it. */
int weft__jit_check_bitcode(const void *bitcode, size_t size);

/* Frees a binary and the machine code behind it. */
void weft__jit_binary_free(weft_binary *binary);

/* The OpenCL C extensions and features the JIT compiles kernels with,
 * comma-separated ("cl_khr_fp64,__opencl_c_int64,..."). */
const char *weft__jit_features(void);

#endif
