/* ptx.c: from OpenCL C source, or from bitcode, to PTX for an NVIDIA GPU.
 *
 * Clang front end for nvptx64 (compile.c) -> link the nvptx builtins ->
 * libdevice where called -> describe the kernels -> inline all callees ->
 * the primitives' globals and the CUDA entries (ptx_kernels.c) -> bodies
 * that read textures versioned (ptx_textures.c) -> printf
 * -> ordered loads and stores -> O3 for the GPU's architecture -> loops
 * of unknown trip count over global memory unrolled (ptx_stride_loops.c)
 * -> casts NVPTX can make -> PTX, which the CUDA back end loads
 * (the driver compiles PTX to the GPU's code, and caches that). The
 * kernel cache keeps the PTX and the kernels' descriptions, so a build
 * it knows skips all of it. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

#include "jit/cache/cache.h"
#include "jit/cache/cache_binary.h"
#include "jit/front/builtins.h"
#include "jit/front/compile.h"
#include "jit/front/options.h"
#include "jit/ir/build_state.h"
#include "jit/ir/ir.h"
#include "jit/ir/kernel_info.h"
#include "jit/ir/target.h"
#include "jit/jit.h"
#include "jit/jit_object.h"
#include "jit/ptx/ptx.h"
#include "weft/weft.h"

/* The state of one GPU build: the shared part, its key in the kernel
 * cache and the files it read, stamped. */
typedef struct ptx_build {
  const weft_jit *jit;
  weft_build_state s;
  weft_cache_key key;
  char *stamps;
  unsigned sm;           /* the architecture built for (weft_nvptx_arch) */
} ptx_build;

/* What PTX depends on besides the input and the architecture: Weft's
 * build and the libdevice that math links. */
static char *gpu_identity(const weft_jit *jit) {
  const char *id = weft__build_id();
  char *identity = NULL;
  if (asprintf(&identity, "%s|nvptx64|%s|%s", id ? id : "no-build-id",
               *jit->libdevice->path ? jit->libdevice->path : "no-libdevice",
               weft__jit_features()) < 0)
    identity = NULL;
  return identity;
}

int weft__jit_ptx_create(const weft_jit_ptx_config *config, weft_jit **out,
                         char **error) {
  if (weft__target_init(error)) return WEFT_EBUILD;
  weft_jit *jit = weft__jit_object_new(WEFT_JIT_PTX, config->dump_dir,
                                       config->cache_dir, config->cache_kept);
  if (!jit) return WEFT_ENOMEM;
  if ((jit->libdevice = calloc(1, sizeof *jit->libdevice)))
    weft__ptx_libdevice_find(jit->libdevice, config);
  if (!jit->libdevice || !(jit->identity = gpu_identity(jit))) {
    free(jit->libdevice);
    free(jit->dump_dir);
    free(jit);
    return WEFT_ENOMEM;
  }
  *out = jit;
  return 0;
}

/* The key of a build for sm from input (source or bitcode) with options. */
static void make_key(ptx_build *b, unsigned sm, const char *kind,
                     const void *input, size_t size, const char *options) {
  char identity[2048];
  snprintf(identity, sizeof identity, "%s|sm_%u", b->jit->identity, sm);
  weft__cache_key_make(identity, kind, input, size, options ? options : "",
                       &b->key);
}

/* Stamps the files the front end read (deps) and libdevice, so that a
 * change to either is a miss. */
static int make_stamps(ptx_build *b, const char *deps) {
  const char *libdevice = b->jit->libdevice->path;
  char *files = NULL;
  if (asprintf(&files, "%s\n%s", deps ? deps : "",
               libdevice ? libdevice : "") < 0)
    return WEFT_ENOMEM;
  b->stamps = weft__cache_stamp(files);
  free(files);
  return b->stamps ? 0 : WEFT_ENOMEM;
}

/* A copy of the PTX of the binary's cache entry for the caller (rc 0),
 * or rc and no binary. */
static int copy_ptx(int rc, weft_binary **out, char **ptx) {
  if (rc) return rc;
  if ((*ptx = strdup((*out)->cached->ptx))) return 0;
  weft__jit_binary_free(*out);
  *out = NULL;
  return WEFT_ENOMEM;
}

/* What every GPU build does first: the options parsed, the key made, the
 * cache asked, the LLVM objects made. 1 when that ends the build (an
 * error or a cache hit; *rc says which), else 0. */
static int begin(ptx_build *b, unsigned sm, const char *kind,
                 const void *input, size_t size, const char *options,
                 weft_binary **out, char **ptx, char **log, int *rc) {
  *out = NULL;
  *ptx = NULL;
  *log = NULL;
  if ((*rc = weft__options_parse(options, &b->s.options, &b->s.error)))
    return 1;
  make_key(b, sm, kind, input, size, options);
  int from_disk = 0;
  weft_cached *c = b->jit->dump_dir
                       ? NULL
                       : weft__cache_find(&b->key, WEFT_CACHE_PTX, &from_disk);
  if (c) {
    *rc = copy_ptx(weft__jit_binary_from_cache(c, from_disk ? 2 : 1, out, log),
                   out, ptx);
    return 1;
  }
  if (weft__cache_only_now()) {
    *rc = WEFT__EMISS; /* a build from the cache only */
    return 1;
  }
  weft_nvptx_arch arch;
  weft__nvptx_arch(sm, &arch);
  b->sm = arch.sm;
  *rc = weft__build_state_start(&b->s, weft__nvptx_machine_create(&arch),
                                "PTX");
  return *rc != 0;
}

static int end(ptx_build *b, int rc, char **log) {
  free(b->stamps);
  return weft__build_state_end(&b->s, rc, log);
}

/* Everything but the CUDA entries and the globals the runtime fills
 * (externally initialized: ptx_kernels.c) becomes internal, so O3 sees
 * every use. */
static void internalize(weft_build_state *b) {
  unsigned n = b->num_kernels;
  const char *keep[n ? n : 1];
  for (unsigned i = 0; i < n; i++) keep[i] = b->kernels[i].name;
  weft__build_state_internalize(b, keep, n);
}

static int emit_ptx(weft_build_state *b, char **ptx) {
  LLVMMemoryBufferRef text = NULL;
  if (weft__build_state_emit(b, LLVMAssemblyFile, &text)) return WEFT_EBUILD;
  size_t size = LLVMGetBufferSize(text);
  *ptx = malloc(size + 1);
  if (*ptx) {
    memcpy(*ptx, LLVMGetBufferStart(text), size);
    (*ptx)[size] = 0;
  }
  LLVMDisposeMemoryBuffer(text);
  return *ptx ? 0 : WEFT_ENOMEM;
}

/* Hands the PTX and the kernels' descriptions to the cache (log: the
 * front end's warnings, which a later hit repeats) and makes the binary
 * over its entry, with a copy of the PTX for the caller. */
static int keep(ptx_build *b, const char *text, const char *log,
                weft_binary **out, char **ptx) {
  weft_binary desc = {.num_kernels = b->s.num_kernels,
                      .kernels = b->s.kernels,
                      .global_vars_size = b->s.global_vars_size};
  return copy_ptx(weft__jit_cache_keep(&b->key, WEFT_CACHE_PTX, b->stamps,
                                       text, strlen(text), &desc, log, out,
                                       &b->s.error),
                  out, ptx);
}

static int any_resizable(const weft_build_state *b) {
  for (unsigned i = 0; i < b->num_kernels; i++)
    if (b->kernels[i].flags & WEFT_KERNEL_RESIZABLE) return 1;
  return 0;
}

/* The back half, from the front end's module to PTX. */
static int finish(ptx_build *pb, const char *log, weft_binary **out,
                  char **ptx) {
  weft_build_state *b = &pb->s;
  b->global_vars_size = weft__global_variables_size(b->module, b->layout);
  int rc = weft__builtins_link(b->module, WEFT_BUILTINS_NVPTX, &b->error);
  if (!rc)
    rc = weft__ptx_libdevice_link(pb->jit->libdevice, b->module, &b->error);
  if (!rc) {
    weft__nvptx_apply(b->module, b->machine);
    rc = weft__kernel_info_collect(b->module, b->layout, &b->kernels,
                                   &b->num_kernels, &b->error);
  }
  if (!rc)
    rc = weft__kernel_info_check_sub_groups(b->kernels, b->num_kernels,
                                            WEFT_GPU_SUB_GROUP_SIZES,
                                            "a GPU", &b->error);
  if (!rc) weft__div_guard_insert(b->module, 0);
  if (!rc) rc = weft__inline_callees(b->module, b->machine, 1, &b->error);
  if (!rc)
    rc = weft__fork_points_lower(b->module, b->machine, b->layout, b->kernels,
                                 b->num_kernels, &b->error);
  if (!rc)
    rc = weft__ptx_make_kernels(b->module, b->layout, b->kernels,
                                b->num_kernels);
  /* Cooperative kernels call the pool's functions and the primitives
   * their points expanded into: a second link brings them. */
  if (!rc && any_resizable(b)) {
    rc = weft__builtins_link(b->module, WEFT_BUILTINS_NVPTX, &b->error);
    if (!rc) weft__ptx_primitives_lower(b->module);
  }
  if (!rc) weft__ptx_redux_lower(b->module, pb->sm);
  if (!rc)
    rc = weft__ptx_textures_version(b->module, b->machine, b->options.optimize,
                                    &b->error);
  if (!rc) rc = weft__ptx_printf_lower(b->module, &b->error);
  if (!rc && b->options.optimize && !b->options.no_aggregate)
    rc = weft__ptx_aggregate_atomics(b->module);
  if (!rc) weft__ptx_orderings_lower(b->module);
  if (!rc) {
    LLVMStripModuleDebugInfo(b->module);
    internalize(b);
    rc = weft__build_state_verify(b);
  }
  /* Both pipelines run the NVPTX passes that libdevice needs
   * (__nvvm_reflect) and inline the bodies into the entries. */
  if (!rc)
    rc = weft__run_passes(b->module, b->machine,
                          b->options.optimize
                              ? WEFT_PTX_FIRST_PASSES ",default<O3>"
                              : "default<O0>",
                          &b->error);
  if (!rc && b->options.optimize)
    rc = weft__ptx_stride_loops_unroll(b->module, b->machine, &b->error);
  if (!rc && b->options.optimize) weft__ptx_barrier_loads_hoist(b->module);
  if (!rc) weft__ptx_selection_prepare(b->module);
  if (!rc) weft__jit_dump_module(pb->jit, b->module);
  char *text = NULL;
  if (!rc) rc = emit_ptx(b, &text);
  if (!rc) rc = keep(pb, text, log, out, ptx);
  free(text);
  return rc;
}

int weft__jit_build_ptx(const weft_jit *gpus, unsigned sm, const char *source,
                        size_t length, const char *options, weft_binary **out,
                        char **ptx, char **log) {
  assert(gpus->target == WEFT_JIT_PTX);
  ptx_build b = {.jit = gpus};
  int rc;
  if (begin(&b, sm, "source", source, length, options, out, ptx, log, &rc))
    return end(&b, rc, log);
  weft_source_file file = {WEFT_SOURCE_NAME, source, length};
  char *deps = NULL;
  rc = weft__compile_source(b.s.context, sm, &b.s.options, &file, NULL, 0,
                            &b.s.module, log, &deps);
  if (!rc) rc = make_stamps(&b, deps);
  free(deps);
  if (!rc) rc = finish(&b, *log, out, ptx);
  return end(&b, rc, log);
}

int weft__jit_build_ptx_bitcode(const weft_jit *gpus, unsigned sm,
                                const void *bitcode, size_t size,
                                const char *options, weft_binary **out,
                                char **ptx, char **log) {
  assert(gpus->target == WEFT_JIT_PTX);
  ptx_build b = {.jit = gpus};
  int rc;
  if (begin(&b, sm, "bitcode", bitcode, size, options, out, ptx, log, &rc))
    return end(&b, rc, log);
  rc = weft__module_from_bitcode(b.s.context, bitcode, size, &b.s.module, log);
  if (!rc) rc = make_stamps(&b, NULL);
  if (!rc) rc = finish(&b, *log, out, ptx);
  return end(&b, rc, log);
}
