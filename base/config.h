/*
 * config.h: Weft's settings, read from the environment once, at the first
 * call into the library, and kept here. The README lists the variables.
 */
#ifndef WEFT_BASE_CONFIG_H
#define WEFT_BASE_CONFIG_H

#include <stddef.h>

typedef enum weft_fiber_kind {
  WEFT_FIBER_ASM = 0,     /* register-only switch, x86-64 assembly */
  WEFT_FIBER_UCONTEXT = 1 /* swapcontext(3): portable, slower */
} weft_fiber_kind;

typedef enum weft_barrier_kind {
  WEFT_BARRIER_REGIONS = 0, /* cut kernels at barriers where possible */
  WEFT_BARRIER_FIBERS = 1   /* a fiber per work-item after a barrier */
} weft_barrier_kind;

typedef enum weft_schedule_mode {
  WEFT_SCHEDULE_FIFO = 0,
  WEFT_SCHEDULE_RANDOM = 1,
  WEFT_SCHEDULE_RANDOM_DEEP = 2,
  WEFT_SCHEDULE_PCT = 3,
  WEFT_SCHEDULE_EXHAUSTIVE = 4
} weft_schedule_mode;

/* WEFT_SCHEDULE=exhaustive[:BUDGET[:PREEMPTIONS[:full]]]: the defaults. */
#define WEFT_EXPLORE_BUDGET 100000
#define WEFT_EXPLORE_PREEMPTIONS 2

/* The most bug depth WEFT_SCHEDULE=pct:SEED:DEPTH takes. */
#define WEFT_PCT_DEPTH_MAX 16

typedef struct weft_config {
  unsigned num_threads;     /* WEFT_NUM_THREADS: default, usable cores */
  size_t stack_size;        /* WEFT_STACK_SIZE: bytes per work-item */
  weft_fiber_kind fiber;    /* WEFT_FIBER: asm or ucontext */
  weft_barrier_kind barrier; /* WEFT_BARRIER: regions or fibers */
  const char *dump_ir;      /* WEFT_DUMP_IR: directory for final IR, or NULL */
  const char *cache_dir;    /* WEFT_CACHE_DIR: the kernel cache, or NULL */
  unsigned cache_kept;      /* WEFT_CACHE_KEEP: released builds kept loaded */
  /* WEFT_SUB_GROUP_SIZE: the CPU's sub-group width for kernels that ask
   * for none (4, 8, 16 or 32); 0: the host's vector width. */
  unsigned sub_group_size;
  const char *libcuda;      /* WEFT_LIBCUDA: the CUDA driver, or NULL */
  /* WEFT_LIBDEVICE: the CUDA toolkit's libdevice.10.bc, or NULL: looked
   * for (jit/ptx/ptx_libdevice.c) in the CUDA installations CUDA_HOME and
   * CUDA_PATH name (NULL where unset), then in the usual folders. */
  const char *libdevice;
  const char *cuda_home;
  const char *cuda_path;
  /* WEFT_DEVICE: which device comes first (index 0, OpenCL's default):
   * -1 for "cpu" (the default), else N for "cuda:N" ("cuda", "gpu": 0). */
  int first_gpu;
  /* WEFT_RESIDENT_GROUPS: work-groups of a cooperative launch (whose
   * groups wait for each other) held at once, a limit below
   * WEFT_MAX_RESIDENT_GROUPS that emulates a GPU's occupancy (0: none). */
  unsigned resident_limit;
  /* WEFT_RESIZE: when a cooperative kernel's groups are killed and
   * forked (backend/cpu/resize.c): WEFT_RESIZE_THREADS, the default (as
   * many groups as the device has threads for), or WEFT_RESIZE_CHURN (at
   * every point that allows it: a kernel's test). */
  int resize;
  /* WEFT_SPIN_TIMEOUT: seconds that work-groups may only spin (poll
   * memory), with nothing else happening, before it is a deadlock. */
  double spin_timeout;
  /* WEFT_GATHER_BOUND: the most seconds a launch waits for a cooperative
   * kernel that holds the threads to give them back before it runs
   * beside it all the same (backend/cpu/share.c). */
  double gather_bound;
  /* WEFT_SCHEDULE: how cooperative work-groups are interleaved: "fifo"
   * (the default), "random:SEED" (a random order, and random switches at
   * atomics and barriers, on one thread) or "random-deep:SEED" (also at
   * every global load and store) or "pct:SEED[:DEPTH]" (priorities with
   * DEPTH - 1 change points, switching at every shared access). */
  weft_schedule_mode schedule;
  unsigned long long schedule_seed;
  unsigned schedule_depth;  /* pct's DEPTH; 0: none given */
  /* exhaustive's most interleavings and most preemptions in each. */
  unsigned long long explore_budget;
  unsigned explore_preemptions;
  /* 0 for exhaustive:...:full (no partial-order reduction), else 1. */
  int explore_reduce;
  /* replay:CHOICES: the decisions of one interleaving (explore.c), or
   * NULL. */
  const char *explore_replay;
  /* WEFT_MEMORY: 1 for "weak" (plain global stores wait in a store buffer
   * per work-group: backend/cpu/weak_memory.c), 0 for "sc", the default. */
  int weak_memory;
  /* WEFT_TEXTURES: 0 for "off" (a GPU's image reads are the builtins'
   * own, the CPU's bits, not its texture units'), else 1. */
  int textures;
  /* WEFT_GPU_WAIT: 1 for "each" (every GPU launch from a queue runs to its
   * end before the next starts, so that a fault names its kernel), 0 for
   * "batch", the default (launches left in flight: core/queue.h). */
  int gpu_wait_each;
  /* WEFT_CHECK: the checks every program is built with (WEFT_CHECK_* of
   * jit/kernel_abi.h; 0: none, the default). */
  unsigned check;
  /* WEFT_LOG: the WEFT_LOG_* topics reported on stderr (log_topics.h); 0:
   * none, the default. */
  unsigned log;
  /* WEFT_TIMEOUT: seconds a launch may run before it is ended, with a
   * report of where its work-items were; 0: never; -1 (unset): never,
   * but WEFT_CHECK_TIMEOUT in check mode. */
  double timeout;
  /* WEFT_BUILD_TIMEOUT: seconds a build, compile or link may take before
   * it fails (build_stack.c); 0, the default: no limit. */
  double build_timeout;
  /* WEFT_BUILD_MEMORY: bytes of memory a build, compile or link may use;
   * builds then run in a helper process that is stopped at either limit
   * (build_isolated.h); 0, the default: no limit, builds in the process. */
  size_t build_memory;
  int perf_map;   /* WEFT_PERF=map: perf's map of JIT code */
  int perf_jitdump; /* WEFT_PERF=jitdump: perf's jitdump (code, lines) */
} weft_config;

#define WEFT_RESIZE_THREADS 0
#define WEFT_RESIZE_CHURN 1

/* Check mode's time limit on a launch when WEFT_TIMEOUT is unset. */
#define WEFT_CHECK_TIMEOUT 120.0

#define WEFT_MAX_RESIDENT_GROUPS 65536u

#define WEFT_DEFAULT_STACK_SIZE (256u * 1024u)
#define WEFT_MIN_STACK_SIZE (16u * 1024u)
/* Released builds kept loaded (WEFT_CACHE_KEEP, jit/cache/cache.c). */
#define WEFT_DEFAULT_CACHE_KEEP 32u

/* The configuration (read on first use; never changes afterwards). */
const weft_config *weft__config(void);

/* The cores this process may run on: its affinity mask's (taskset,
 * cgroup cpusets), else the online ones; at least 1. */
unsigned weft__usable_cpus(void);

/* The environment's entries it was read from ("WEFT_CHECK=all", and the
 * HOME and XDG_CACHE_HOME that name the cache folder, and CUDA_HOME and
 * CUDA_PATH that name the CUDA toolkit), NULL-terminated
 * (NULL without memory): a helper process is given these, not what the
 * application may have set since (build_isolated.c). */
const char *const *weft__config_settings(void);
/* Whether an environment entry is such a setting. */
int weft__config_is_setting(const char *entry);

/* WEFT_SCHEDULE's value for mode run under seed, as config.c reads it back:
 * "random:17", "random-deep:17", "pct:17", "pct:17:3" (depth 0: none
 * given); "exhaustive" (with its BUDGET and PREEMPTIONS when they are not
 * the defaults, and ":full") or "replay:...", whatever the seed; "fifo". */
void weft__schedule_value(const weft_config *c, unsigned long long seed,
                          char *out, size_t size);

#endif
