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

/* One target's JIT: the settings every build for it is made with, which
 * are part of each build's key in the kernel cache. The CPU back end makes
 * the host CPU's when it creates its device, the CUDA back end the GPUs'
 * at its first build; each lasts as long as the process. */
typedef struct weft_jit weft_jit;

/* What changes the host CPU's generated code besides a build's own input
 * and options: part of every CPU build's key in the kernel cache. */
typedef struct weft_jit_codegen {
  /* Barriers: 1 to cut kernels into regions where possible (regions.c),
   * 0 to leave every barrier to fibers. */
  int barrier_regions;
  size_t max_private;             /* a work-item's private bytes in regions */
  /* Schedule exploration: 0 none, 1 scheduling points at atomics and
   * barriers, 2 also at every global load and store, 3 also at every
   * __local one (sched_points.c; WEFT_SCHEDULE's random, random-deep and
   * pct). */
  int schedule_points;
  /* WEFT_MEMORY=weak: plain global stores and loads go through the back
   * end's store buffer (weak_memory.c). */
  int weak_memory;
  /* Check mode: the WEFT_CHECK_* checks (kernel_abi.h) of every build,
   * besides those its options ask for (-cl-weft-check=). */
  unsigned check;
  /* WEFT_TIMEOUT: every build's loops get stop points (as in check mode). */
  int stop_points;
  /* The width of sub-groups of kernels that ask for none (kernel_abi.h's
   * weft_kernel_desc.sub_group_width). */
  unsigned sub_group_width;
} weft_jit_codegen;

/* The host CPU's settings. */
typedef struct weft_jit_config {
  const weft_jit_symbol *symbols; /* runtime functions generated code calls */
  size_t num_symbols;
  const char *dump_dir;           /* if set, each program's final IR goes here */
  const char *cache_dir;          /* the disk cache (cache.h); NULL: none */
  unsigned cache_kept;            /* released builds kept loaded (cache.h) */
  weft_jit_codegen codegen;
  int perf_map;  /* WEFT_PERF=map: /tmp/perf-PID.map names kernels */
  int perf_jitdump; /* WEFT_PERF=jitdump: perf's jitdump of the JIT code */
} weft_jit_config;

/* The host CPU's JIT, which starts the process's ORC LLJIT (there is one
 * CPU device). Returns 0, or an error with a malloc'd message in *error
 * (none for WEFT_ENOMEM). */
int weft__jit_cpu_create(const weft_jit_config *config, weft_jit **out,
                         char **error);

/* NVIDIA GPUs' settings. */
typedef struct weft_jit_ptx_config {
  const char *dump_dir;  /* as the CPU's */
  const char *cache_dir; /* as the CPU's: the process has one cache */
  unsigned cache_kept;   /* as the CPU's */
  /* Where libdevice (GPU math) is: the file named, else the first of the
   * CUDA installations cuda_home, cuda_path, /usr/local/cuda and Debian's
   * nvidia-cuda-toolkit that has it. */
  const char *libdevice, *cuda_home, *cuda_path;
} weft_jit_ptx_config;

/* NVIDIA GPUs' JIT, for any architecture; it needs no GPU. As
 * weft__jit_cpu_create. */
int weft__jit_ptx_create(const weft_jit_ptx_config *config, weft_jit **out,
                         char **error);

/* Compiles OpenCL C source with build options into *out with the CPU's
 * JIT. *log receives the build log (malloc'd, possibly empty) whatever the
 * result. Returns 0, WEFT_EOPTION, WEFT_EBUILD or WEFT_ENOMEM. The kernel
 * cache may serve the build (binary->from_cache says so). */
int weft__jit_build(const weft_jit *cpu, const char *source, size_t length,
                    const char *options, weft_binary **out, char **log);

/* The same from LLVM bitcode made by weft__jit_compile or weft__jit_link
 * (a program binary): the front end does not run again. */
int weft__jit_build_bitcode(const weft_jit *cpu, const void *bitcode,
                            size_t size, const char *options,
                            weft_binary **out, char **log);

/* A header embedded in a compilation, found by #include "name". */
typedef struct weft_jit_header {
  const char *name;
  const char *source;
} weft_jit_header;

/* Separate compilation: OpenCL C source to LLVM bitcode (malloc'd), with
 * calls to functions of other units left to the link, for the host CPU
 * (the CPU's JIT, sm 0) or an NVIDIA GPU of compute capability sm (the
 * GPUs' JIT; 90 for sm_90). */
int weft__jit_compile(const weft_jit *jit, unsigned sm, const char *source,
                      size_t length, const char *options,
                      const weft_jit_header *headers, unsigned num_headers,
                      void **bitcode, size_t *size, char **log);

/* Links compiled units into one bitcode module (malloc'd); a symbol
 * defined twice is an error in the log. */
int weft__jit_link(const void *const *bitcodes, const size_t *sizes,
                   unsigned count, void **bitcode, size_t *size, char **log);

/* Whether bitcode looks like a whole module for the CPU (sm 0) or NVIDIA
 * GPUs (0), or not (WEFT_EINVAL), without building it. */
int weft__jit_check_bitcode(unsigned sm, const void *bitcode, size_t size);

/* The source location ("program.cl:9:15") of the instruction at pc in
 * kernel's code of a CPU binary: 1, or 0 when it is not known (not that
 * code, or no line there). For faults' reports. */
int weft__jit_code_line(const weft_binary *binary, const char *kernel,
                        const void *pc, char *out, size_t size);

/* Frees a binary, from weft__jit_build or weft__jit_build_ptx, and the
 * machine code or PTX behind it. */
void weft__jit_binary_free(weft_binary *binary);

/* Builds OpenCL C source, or bitcode from weft__jit_compile(gpus, sm,
 * ...), into PTX for an NVIDIA GPU of compute capability sm with the
 * GPUs' JIT (ptx/ptx.c): *out describes the kernels (entry is NULL: the
 * PTX holds them, under their own names), *ptx is the PTX text
 * (malloc'd). The CUDA kernels' parameters follow the OpenCL ones (see
 * WEFT_PTX_* below); *log as for weft__jit_build.
 * The kernel cache keeps PTX as it keeps host code (by the architecture,
 * the libdevice in use, the options, the input and the headers read). */
int weft__jit_build_ptx(const weft_jit *gpus, unsigned sm, const char *source,
                        size_t length, const char *options, weft_binary **out,
                        char **ptx, char **log);
int weft__jit_build_ptx_bitcode(const weft_jit *gpus, unsigned sm,
                                const void *bitcode, size_t size,
                                const char *options, weft_binary **out,
                                char **ptx, char **log);

/* The globals of a PTX module that the runtime fills before a launch
 * (cuModuleGetGlobal), present where the kernels use them: */
/* the global offset (uint64 x 3) and work dimension (uint32) */
#define WEFT_PTX_LAUNCH_BLOCK "weft__launch_block"
/* weft_global_barrier()'s words (WEFT_LAUNCH_WORDS uint32), to zero */
#define WEFT_PTX_LAUNCH_WORDS "weft__launch_words"
/* a cooperative kernel's pool (builtins/nvptx/coop.cl's words, uint64 x
 * WEFT_PTX_COOP_WORDS), written before each launch of one */
#define WEFT_PTX_COOP_STATE "weft__coop_state"
#define WEFT_PTX_COOP_WORDS 32
/* and each block's words in shared memory (uint32, coop.cl's B_*) */
#define WEFT_PTX_COOP_BLOCK_WORDS 12
/* the bank of __constant pointer arguments, in constant memory: such an
 * argument is passed as a uint64 offset into it, where the runtime has
 * copied the buffer's bytes. */
#define WEFT_PTX_CONSTANT_BANK "weft__constant_bank"
/* the watchdog of waits (uint64 x 3, written when the module loads): the
 * device address of the GPU's weft_gpu_watchdog_record, the timeout in
 * ns (0: none) and the word that elects the work-item writing it (reset
 * after it did). builtins/nvptx/target.cl mirrors both layouts. */
#define WEFT_PTX_WATCHDOG "weft__watchdog"

/* What the first work-item whose wait timed out writes (host memory the
 * GPU writes through), tripped last. */
typedef struct weft_gpu_watchdog_record {
  uint32_t tripped;
  uint32_t what;     /* WEFT_WAIT_* */
  uint32_t group[3], item[3];
  uint64_t word;     /* the address waited on */
  uint64_t waited_ns;
} weft_gpu_watchdog_record;
/* A __local pointer argument is passed as a uint64 offset into the
 * launch's dynamic shared memory; a buffer as its device address; a value
 * as its bytes. */

/* The OpenCL C extensions and features the JIT compiles kernels with,
 * comma-separated ("cl_khr_fp64,__opencl_c_int64,..."). */
const char *weft__jit_features(void);

#endif
