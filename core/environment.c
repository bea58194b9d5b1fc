/*
 * environment.c: the WEFT_* variables Weft reads, with the forms they take
 * and what they do, in one table: `weft --help` prints it, and the tests
 * check that every variable the code reads (config.c, and the few read
 * where they are used) is in it, in the man page and in the README, so
 * that the lists cannot drift apart. The README's Configuration table
 * says more of each.
 */
#include <stddef.h>

#include "weft/weft.h"

typedef struct variable {
  const char *name, *values, *meaning;
} variable;

static const variable variables[] = {
    {"WEFT_DEVICE", "cpu|cuda|gpu|cuda:N",
     "the first device (OpenCL's default); a GPU that is not there makes "
     "every call fail"},
    {"WEFT_NUM_THREADS", "1..1024", "worker threads that run work-groups"},
    {"WEFT_STACK_SIZE", "SIZE (16K..1G)",
     "each work-item's stack after a barrier (default 256K)"},
    {"WEFT_BARRIER", "regions|fibers",
     "how kernels with barriers run (default regions)"},
    {"WEFT_FIBER", "asm|ucontext", "the fibers' context switch"},
    {"WEFT_CACHE_DIR", "DIR|off",
     "the kernel cache on disk (default $XDG_CACHE_HOME/weft)"},
    {"WEFT_CACHE_KEEP", "0..4096",
     "builds kept loaded after their programs are released (default 32)"},
    {"WEFT_SUB_GROUP_SIZE", "4|8|16|32",
     "the CPU's sub-group width (default: its vector's, 16 with AVX-512)"},
    {"WEFT_DUMP_IR", "DIR",
     "write each program's optimized LLVM IR there (bypasses the cache)"},
    {"WEFT_RESIDENT_GROUPS", "1..65536",
     "most work-groups of a cooperative launch resident at once"},
    {"WEFT_RESIZE", "threads|churn",
     "when a cooperative kernel's groups are killed and forked (default: "
     "as many as there are threads)"},
    {"WEFT_SPIN_TIMEOUT", "SECONDS",
     "time work-groups may only spin before it is a deadlock (default 10)"},
    {"WEFT_GATHER_BOUND", "SECONDS",
     "most a launch waits for a cooperative kernel's threads before it "
     "runs beside it (default 0.02)"},
    {"WEFT_SCHEDULE",
     "fifo|random:SEED|random-deep:SEED|pct:SEED[:DEPTH]|"
     "exhaustive[:BUDGET[:PREEMPTIONS[:full]]]|replay:CHOICES",
     "schedule exploration: groups and work-items interleaved on one "
     "thread"},
    {"WEFT_MEMORY", "sc|weak",
     "weak: plain global stores wait in a store buffer per work-group"},
    {"WEFT_CHECK", "memory,uninit,races|all|off",
     "check mode for every program: each access checked, with its "
     "work-item and line"},
    {"WEFT_TIMEOUT", "SECONDS",
     "end a launch that runs longer, saying where its work-items are"},
    {"WEFT_BUILD_TIMEOUT", "SECONDS", "a build that takes longer fails"},
    {"WEFT_BUILD_MEMORY", "SIZE",
     "builds run in a helper process, stopped past this much memory"},
    {"WEFT_PERF", "map|jitdump",
     "tell perf about kernels (/tmp/perf-PID.map, or a jitdump)"},
    {"WEFT_LOG", "device,build,cache,launch|all|off",
     "what Weft did and why, a line each on stderr"},
    {"WEFT_LIBCUDA", "FILE", "the CUDA driver library (default libcuda.so.1)"},
    {"WEFT_TEXTURES", "on|off",
     "off: GPU image reads without the texture units (the CPU's bits)"},
    {"WEFT_GPU_WAIT", "batch|each",
     "each: every GPU launch waited for before the next (a fault names "
     "its kernel; default batch)"},
    {"WEFT_LIBDEVICE", "FILE",
     "libdevice.10.bc for GPU kernels' math (default: found in the CUDA "
     "toolkit)"},
};

const char *weft_environment_variable(unsigned i, const char **values,
                                      const char **meaning) {
  if (i >= sizeof variables / sizeof *variables) return NULL;
  if (values) *values = variables[i].values;
  if (meaning) *meaning = variables[i].meaning;
  return variables[i].name;
}
