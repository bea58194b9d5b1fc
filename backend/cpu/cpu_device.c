/* cpu_device.c: the CPU's device operations (see backend/device.h). */
#include "backend/cpu/cpu_device.h"

#include <assert.h>
#include <stdio.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend/common/sync_defaults.h"
#include "backend/common/sync_options.h"
#include "backend/cpu/executor.h"
#include "backend/cpu/guarded.h"
#include "backend/cpu/kernel_calls.h"
#include "jit/jit.h"

#define CPU_LOCAL_MEM_SIZE (256u * 1024u)

typedef struct cpu_device {
  const weft_config *config;
  weft_jit *jit;           /* the host CPU's, made with the device */
  weft_executor *executor;
  char name[128];
  char sync_defaults[256]; /* the machine's cl_weft_sync build options */
} cpu_device;

/* The back end's state of a device is its cpu_device. */
static cpu_device *cpu_of(weft_backend_device *device) {
  return (cpu_device *)device;
}

/* Copies into out the value of the first "key : value" line of
 * /proc/cpuinfo with that key; 0 when there is none. */
static int read_cpuinfo(const char *key, char *out, size_t size) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[256];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, key, strlen(key)) || !colon) continue;
    colon += 1 + (colon[1] == ' ');
    colon[strcspn(colon, "\n")] = 0;
    snprintf(out, size, "%s", colon);
    found = 1;
  }
  fclose(f);
  return found;
}

/* "model name" from /proc/cpuinfo, or a generic name. */
static void read_cpu_name(char *out, size_t size) {
  if (!read_cpuinfo("model name", out, size)) snprintf(out, size, "CPU");
}

/* The first line of a small file into out; 0 if it cannot be read. */
static int read_file_line(const char *path, char *out, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  int ok = fgets(out, (int)size, f) != NULL;
  fclose(f);
  return ok;
}

/* The highest clock: cpufreq's maximum where the kernel has cpufreq (it is
 * in kHz), else the current "cpu MHz" of /proc/cpuinfo (virtual machines
 * often have only that), else 0. */
static unsigned read_max_mhz(void) {
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  unsigned long khz = 0;
  if (f) {
    if (fscanf(f, "%lu", &khz) != 1) khz = 0;
    fclose(f);
  }
  if (khz) return (unsigned)(khz / 1000);
  char text[64];
  double mhz = 0;
  if (read_cpuinfo("cpu MHz", text, sizeof text)) mhz = strtod(text, NULL);
  return mhz > 0 ? (unsigned)(mhz + 0.5) : 0;
}

/* The bytes of the highest-level cache the kernel lists for CPU 0
 * (/sys/devices/system/cpu/cpu0/cache/indexN: level, size as "32768K"),
 * 0 when it lists none. The one a core has: on an AMD EPYC the C
 * library's L3 is all of the package's (384 MiB), of which a core's
 * complex has 32. */
static uint64_t sysfs_last_level_cache(void) {
  uint64_t best = 0;
  unsigned best_level = 0;
  for (int i = 0; i < 8; i++) {
    char path[96], text[32];
    unsigned level = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    if (!read_file_line(path, text, sizeof text)) continue;
    level = (unsigned)strtoul(text, NULL, 10);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!read_file_line(path, text, sizeof text)) continue;
    char *unit;
    uint64_t size = strtoull(text, &unit, 10);
    if (*unit == 'K') size <<= 10;
    else if (*unit == 'M') size <<= 20;
    if (level >= best_level && size) best = size, best_level = level;
  }
  return best;
}

/* The last-level cache a core has (the kernel's list, else the C
 * library's L3, else L2), and its line; 0 and 64 bytes when neither
 * knows. */
static void read_caches(uint64_t *size, unsigned *line) {
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  long l1_line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  *size = sysfs_last_level_cache();
  if (!*size) *size = l3 > 0 ? (uint64_t)l3 : l2 > 0 ? (uint64_t)l2 : 0;
  *line = l1_line > 0 ? (unsigned)l1_line : 64;
}

/* The widest vector register the JIT's code may use: it compiles for the
 * host CPU, so this is the host's. */
static unsigned host_vector_bytes(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return 64;
  if (__builtin_cpu_supports("avx2")) return 32;
#endif
  return 16; /* SSE2 on x86-64, NEON on aarch64 */
}

/* The sub-group width of kernels that ask for none: WEFT_SUB_GROUP_SIZE,
 * else the host's vector in 32-bit lanes (a sub-group function over ints
 * or floats is then one vector operation), at least 4. */
static unsigned cpu_sub_group_size(const weft_config *config) {
  if (config->sub_group_size) return config->sub_group_size;
  unsigned lanes = host_vector_bytes() / 4;
  return lanes < 4 ? 4 : lanes;
}

static void cpu_info(weft_backend_device *device, weft_device_info *info) {
  cpu_device *cpu = cpu_of(device);
  memset(info, 0, sizeof *info);
  info->kind = WEFT_DEVICE_CPU;
  snprintf(info->name, sizeof info->name, "%s", cpu->name);
  snprintf(info->vendor, sizeof info->vendor, "Weft");
  info->compute_units = weft__executor_threads(cpu->executor);
  info->max_work_group_size = WEFT_CPU_MAX_WORK_GROUP_SIZE;
  info->sub_group_size = cpu_sub_group_size(cpu->config);
  info->sub_group_sizes = WEFT_CPU_SUB_GROUP_SIZES;
  for (int d = 0; d < 3; d++)
    info->max_work_item_sizes[d] = WEFT_CPU_MAX_WORK_GROUP_SIZE;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  info->global_mem_size = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page
                                                : (uint64_t)1 << 30;
  info->max_alloc_size = info->global_mem_size / 2;
  info->local_mem_size = CPU_LOCAL_MEM_SIZE;
  info->address_bits = 64;
  info->stack_size = cpu->config->stack_size;
  info->svm = 1;
  info->max_resident_groups = weft__executor_max_resident(cpu->executor);
  info->features = weft__jit_features();
  snprintf(info->barriers, sizeof info->barriers, "%s",
           cpu->config->barrier == WEFT_BARRIER_REGIONS ? "regions" : "fibers");
  snprintf(info->fiber, sizeof info->fiber, "%s",
           cpu->config->fiber == WEFT_FIBER_ASM ? "asm" : "ucontext");
  info->max_clock_mhz = read_max_mhz();
  read_caches(&info->cache_size, &info->cacheline_size);
  info->vector_bytes = host_vector_bytes();
}

/* Buffers and SVM live out of the application's heap, behind guard pages
 * (guarded.h): a kernel writing past a buffer faults, and is reported,
 * instead of corrupting the host's memory. 128-byte alignment: the widest
 * vector type, and whole cache lines. */
static int cpu_mem_alloc(weft_backend_device *device, size_t size,
                         void *host_ptr, void **mem, weft_msg *msg) {
  (void)device;
  if (host_ptr) {
    *mem = host_ptr;
    return 0;
  }
  if (weft__guarded_alloc(size, WEFT_LOCAL_ALIGN, mem)) {
    snprintf(msg->text, sizeof msg->text, "cannot map %zu bytes", size);
    return WEFT_ENOMEM;
  }
  return 0;
}

/* On the CPU, SVM is host memory: memory kernels reach is the host's. */
static int cpu_svm_alloc(weft_backend_device *device, size_t size,
                         size_t alignment, void **ptr, weft_msg *msg) {
  (void)device;
  if (alignment < WEFT_LOCAL_ALIGN) alignment = WEFT_LOCAL_ALIGN;
  if (weft__guarded_alloc(size, alignment, ptr)) {
    snprintf(msg->text, sizeof msg->text, "cannot map %zu bytes of SVM", size);
    return WEFT_ENOMEM;
  }
  return 0;
}

static void cpu_svm_free(weft_backend_device *device, void *ptr, size_t size) {
  (void)device;
  weft__guarded_free(ptr, size);
}

static void cpu_mem_free(weft_backend_device *device, void *mem, size_t size,
                         void *host_ptr) {
  (void)device;
  if (host_ptr) return;
  weft__guarded_free(mem, size);
}

static int cpu_mem_write(weft_backend_device *device, void *mem, size_t offset,
                         size_t size, const void *src) {
  (void)device;
  memcpy((char *)mem + offset, src, size);
  return 0;
}

static int cpu_mem_read(weft_backend_device *device, void *mem, size_t offset,
                        size_t size, void *dst) {
  (void)device;
  memcpy(dst, (const char *)mem + offset, size);
  return 0;
}

static int cpu_mem_copy(weft_backend_device *device, void *dst,
                        size_t dst_offset, void *src, size_t src_offset,
                        size_t size) {
  (void)device;
  /* memmove: a sub-buffer and its parent may overlap. */
  memmove((char *)dst + dst_offset, (const char *)src + src_offset, size);
  return 0;
}

/* Bytes of a block of whole patterns (OpenCL's are powers of two up to
 * 128 bytes, which divide it), copied over a fill from the first-level
 * cache rather than the filled part copied over the rest (which read
 * and wrote every byte twice). */
#define FILL_BLOCK 4096

/* size bytes at p from the block, whose byte 0 is a pattern's first. */
static void fill_from(char *p, size_t size, const char *block) {
  size_t done = 0;
#if defined(__x86_64__)
  /* Up to a 16-byte boundary plainly; then 16 bytes a store that goes
   * past the caches, the line not read first (a fill is usually larger
   * than they are, and read by a kernel later, if at all). */
  size_t head = (size_t)(-(uintptr_t)p & 15);
  if (head > size) head = size;
  memcpy(p, block, head);
  for (done = head; size - done >= 16; done += 16)
    _mm_stream_si128((__m128i *)(p + done),
                     _mm_loadu_si128((const __m128i *)(block + done % FILL_BLOCK)));
  _mm_sfence();
#endif
  for (; done < size; done++) p[done] = block[done % FILL_BLOCK];
}

static int cpu_mem_fill(weft_backend_device *device, void *mem, size_t offset,
                        size_t size, const void *pattern, size_t pattern_size) {
  (void)device;
  char *p = (char *)mem + offset;
  if (pattern_size == 1) {
    memset(p, *(const unsigned char *)pattern, size);
    return 0;
  }
  assert(pattern_size && FILL_BLOCK % pattern_size == 0);
  /* 16 bytes more: a store reads from any 16 of them on (above). */
  char block[FILL_BLOCK + 16];
  for (size_t i = 0; i < sizeof block; i += pattern_size)
    memcpy(block + i, pattern,
           pattern_size < sizeof block - i ? pattern_size : sizeof block - i);
  fill_from(p, size, block);
  return 0;
}

/* Host and device share memory: a map is the address itself. */
static int cpu_mem_map(weft_backend_device *device, void *mem, void *host_ptr,
                       weft_mapping *m) {
  (void)device;
  (void)host_ptr; /* mem is host_ptr itself when there is one */
  m->ptr = (char *)mem + m->offset;
  return 0;
}

static int cpu_mem_unmap(weft_backend_device *device, void *mem, void *host_ptr,
                         const weft_mapping *m) {
  (void)device;
  (void)mem;
  (void)host_ptr;
  (void)m;
  return 0;
}

/* Source is compiled with the machine's default synchronization
 * algorithms added to its options (sync_defaults.h). */
static int cpu_build(weft_backend_device *device, const char *source,
                     size_t length, const char *options, weft_binary **out,
                     char **log) {
  char *all = weft__sync_options_apply(cpu_of(device)->sync_defaults, options);
  if (!all) return WEFT_ENOMEM;
  int rc =
      weft__jit_build(cpu_of(device)->jit, source, length, all, out, log);
  free(all);
  return rc;
}

static int cpu_compile(weft_backend_device *device, const char *source,
                       size_t length, const char *options,
                       const weft_jit_header *headers, unsigned num_headers,
                       void **ir, size_t *size, char **log) {
  char *all = weft__sync_options_apply(cpu_of(device)->sync_defaults, options);
  if (!all) return WEFT_ENOMEM;
  int rc = weft__jit_compile(cpu_of(device)->jit, 0, source, length, all,
                             headers, num_headers, ir, size, log);
  free(all);
  return rc;
}

static int cpu_link(weft_backend_device *device, const void *const *irs,
                    const size_t *sizes, unsigned count, void **ir,
                    size_t *size, char **log) {
  (void)device;
  return weft__jit_link(irs, sizes, count, ir, size, log);
}

static int cpu_build_ir(weft_backend_device *device, const void *ir,
                        size_t size, const char *options, weft_binary **out,
                        char **log) {
  return weft__jit_build_bitcode(cpu_of(device)->jit, ir, size, options, out,
                                 log);
}

static int cpu_check_ir(weft_backend_device *device, const void *ir,
                        size_t size) {
  (void)device;
  return weft__jit_check_bitcode(0, ir, size);
}

static void cpu_binary_free(weft_backend_device *device, weft_binary *binary) {
  (void)device;
  weft__jit_binary_free(binary);
}

static int cpu_launch(weft_backend_device *device,
                      const weft_launch_desc *launch, weft_msg *msg) {
  return weft__executor_run(cpu_of(device)->executor, launch, msg);
}

static void cpu_schedule_seed(weft_backend_device *device,
                              unsigned long long seed) {
  weft__executor_schedule_seed(cpu_of(device)->executor, seed);
}

static void cpu_schedule_history(weft_backend_device *device, char *out,
                                 size_t size) {
  weft__executor_schedule_history(cpu_of(device)->executor, out, size);
}

static int cpu_schedule_next(weft_backend_device *device) {
  return weft__executor_schedule_next(cpu_of(device)->executor);
}

static int cpu_schedule_replay(weft_backend_device *device, char *out,
                               size_t size, unsigned long long *explored) {
  return weft__executor_schedule_replay(cpu_of(device)->executor, out, size,
                                        explored);
}

static int cpu_schedule_counts(weft_backend_device *device,
                               unsigned long long *runs,
                               unsigned long long *repeats) {
  return weft__executor_schedule_counts(cpu_of(device)->executor, runs,
                                        repeats);
}

static const weft_device_ops cpu_ops = {
    .name = "cpu",
    .info = cpu_info,
    .mem_alloc = cpu_mem_alloc,
    .mem_free = cpu_mem_free,
    .mem_write = cpu_mem_write,
    .mem_read = cpu_mem_read,
    .mem_copy = cpu_mem_copy,
    .mem_fill = cpu_mem_fill,
    .svm_alloc = cpu_svm_alloc,
    .svm_free = cpu_svm_free,
    .mem_map = cpu_mem_map,
    .mem_unmap = cpu_mem_unmap,
    .build = cpu_build,
    .compile = cpu_compile,
    .link = cpu_link,
    .build_ir = cpu_build_ir,
    .check_ir = cpu_check_ir,
    .binary_free = cpu_binary_free,
    .schedule_seed = cpu_schedule_seed,
    .schedule_history = cpu_schedule_history,
    .schedule_next = cpu_schedule_next,
    .schedule_replay = cpu_schedule_replay,
    .schedule_counts = cpu_schedule_counts,
    .launch = cpu_launch,
};

/* The CPU device, made with config (kept for its lifetime): 0, or a
 * status with a malloc'd reason in *error (none for WEFT_ENOMEM). */
static int create(const weft_config *config, weft_device_made *out,
                  char **error) {
  static const weft_jit_symbol symbols[] = {
      {WEFT_BARRIER_SYMBOL, (void *)weft__cpu_barrier},
      {WEFT_CONVERGE_SYMBOL, (void *)weft__cpu_sub_group_converge},
      {WEFT_LANES_PARTED_SYMBOL, (void *)weft__cpu_lanes_parted},
      {WEFT_REGION_DIVERGED_SYMBOL, (void *)weft__cpu_region_diverged},
      {WEFT_PRINTF_SYMBOL, (void *)weft__cpu_printf},
      {WEFT_ADDRESS_SPACE_SYMBOL, (void *)weft__cpu_address_space},
      {WEFT_YIELD_SYMBOL, (void *)weft__cpu_yield},
      {WEFT_COOP_POINT_SYMBOL, (void *)weft__cpu_coop_point},
      {WEFT_QUERY_KILL_SYMBOL, (void *)weft__cpu_query_kill},
      {WEFT_WAIT_SYMBOL, (void *)weft__cpu_wait},
      {WEFT_WAKE_SYMBOL, (void *)weft__cpu_wake},
      {WEFT_POLL_SYMBOL, (void *)weft__cpu_poll},
      {WEFT_SCHED_POINT_SYMBOL, (void *)weft__cpu_sched_point},
      {WEFT_CHECK_FAILED_SYMBOL, (void *)weft__cpu_check_failed},
      {WEFT_ASSERT_SYMBOL, (void *)weft__cpu_assert_failed},
      {WEFT_WEAK_STORE_SYMBOL, (void *)weft__cpu_weak_store},
      {WEFT_WEAK_LOAD_SYMBOL, (void *)weft__cpu_weak_load},
      {WEFT_WEAK_DRAIN_SYMBOL, (void *)weft__cpu_weak_drain},
      {WEFT_WEAK_EXIT_SYMBOL, (void *)weft__cpu_weak_exit},
      {WEFT_STOPPED_SYMBOL, (void *)weft__cpu_stopped},
      {WEFT_RACE_ACCESS_SYMBOL, (void *)weft__cpu_race_access},
      {WEFT_RACE_SYNC_SYMBOL, (void *)weft__cpu_race_sync},
  };
  /* A work-item's data across barriers is bounded by its stack size, as on
   * fibers: a kernel needing more runs on fibers and reports the overflow.
   * Random schedules interleave work-items, which takes fibers. */
  weft_jit_config jit = {
      .symbols = symbols,
      .num_symbols = sizeof symbols / sizeof *symbols,
      .dump_dir = config->dump_ir,
      .cache_dir = config->cache_dir,
      .cache_kept = config->cache_kept,
      .codegen = {.barrier_regions = config->barrier == WEFT_BARRIER_REGIONS &&
                                     config->schedule == WEFT_SCHEDULE_FIFO,
                  .max_private = config->stack_size,
                  .schedule_points = (int)config->schedule,
                  .weak_memory = config->weak_memory,
                  .check = config->check,
                  .stop_points = config->timeout > 0,
                  .sub_group_width = cpu_sub_group_size(config)},
      .perf_map = config->perf_map,
      .perf_jitdump = config->perf_jitdump};
  weft_jit *made = NULL;
  int rc = weft__jit_cpu_create(&jit, &made, error);
  if (rc) return rc;
  cpu_device *cpu = calloc(1, sizeof *cpu);
  if (!cpu) return WEFT_ENOMEM;
  cpu->config = config;
  cpu->jit = made;
  read_cpu_name(cpu->name, sizeof cpu->name);
  weft__sync_defaults_read(cpu->sync_defaults, sizeof cpu->sync_defaults);
  rc = weft__executor_create(config, &cpu->executor);
  if (rc) {
    *error = strdup("cannot start the CPU device's worker threads");
    free(cpu);
    return rc;
  }
  *out = (weft_device_made){&cpu_ops, (weft_backend_device *)cpu};
  return 0;
}

int weft__cpu_probe(const weft_config *config, weft_device_made *out, int max,
                    char **error) {
  assert(max >= 1);
  int rc = create(config, out, error);
  return rc ? rc : 1;
}
