/* config.c: environment variables, read in one place (see config.h). A bad
 * value is reported on stderr and replaced by the default, so a typo never
 * silently changes behaviour. */
#include "base/config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/checks.h"
#include "base/device_name.h"
#include "base/log_topics.h"

static weft_config config;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void warn(const char *name, const char *value, const char *expected) {
  fprintf(stderr, "weft: ignoring %s='%s': expected %s\n", name, value,
          expected);
}

/* WEFT_DEVICE: cpu, cuda, cuda:N or gpu (device_name.c's names, less
 * an index: it says which GPU goes first). */
static void read_device(void) {
  const char *s = getenv("WEFT_DEVICE");
  weft__device_name name;
  config.first_gpu = -1;
  if (!s || !*s) return;
  if (weft__device_name_parse(s, &name) || name.index >= 0)
    warn("WEFT_DEVICE", s, "cpu, cuda, cuda:N or gpu");
  else if (name.kind == WEFT_DEVICE_GPU)
    config.first_gpu = name.nth;
}

/* A positive size with an optional K, M or G suffix. */
static int parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || end == s || v == 0) return -1;
  unsigned long long unit = 1;
  if (*end == 'K' || *end == 'k') unit = 1ull << 10, end++;
  else if (*end == 'M' || *end == 'm') unit = 1ull << 20, end++;
  else if (*end == 'G' || *end == 'g') unit = 1ull << 30, end++;
  if (*end || v > SIZE_MAX / unit) return -1;
  *out = (size_t)(v * unit);
  return 0;
}

unsigned weft__usable_cpus(void) {
  cpu_set_t set;
  if (!sched_getaffinity(0, sizeof set, &set) && CPU_COUNT(&set) > 0)
    return (unsigned)CPU_COUNT(&set);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (unsigned)cores : 1;
}

/* One thread per usable core: a process pinned to fewer cores than the
 * machine has would otherwise hand every launch to a thread queued
 * behind its own on the same core. */
static void read_threads(void) {
  config.num_threads = weft__usable_cpus();
  const char *v = getenv("WEFT_NUM_THREADS");
  size_t n;
  if (!v) return;
  if (parse_size(v, &n) || n > 1024) warn("WEFT_NUM_THREADS", v, "1 to 1024");
  else config.num_threads = (unsigned)n;
}

static void read_stack_size(void) {
  config.stack_size = WEFT_DEFAULT_STACK_SIZE;
  const char *v = getenv("WEFT_STACK_SIZE");
  size_t n;
  if (!v) return;
  if (parse_size(v, &n) || n < WEFT_MIN_STACK_SIZE || n > (1u << 30))
    warn("WEFT_STACK_SIZE", v, "a size from 16K to 1G, like 512K");
  else config.stack_size = n;
}

static void read_fiber(void) {
#if defined(__x86_64__)
  config.fiber = WEFT_FIBER_ASM;
#else
  config.fiber = WEFT_FIBER_UCONTEXT;
#endif
  const char *v = getenv("WEFT_FIBER");
  if (!v) return;
  if (!strcmp(v, "ucontext")) config.fiber = WEFT_FIBER_UCONTEXT;
#if defined(__x86_64__)
  else if (!strcmp(v, "asm")) config.fiber = WEFT_FIBER_ASM;
  else warn("WEFT_FIBER", v, "asm or ucontext");
#else
  else warn("WEFT_FIBER", v, "ucontext (no fast switch on this CPU)");
#endif
}

static void read_barrier(void) {
  config.barrier = WEFT_BARRIER_REGIONS;
  const char *v = getenv("WEFT_BARRIER");
  if (!v) return;
  if (!strcmp(v, "fibers")) config.barrier = WEFT_BARRIER_FIBERS;
  else if (strcmp(v, "regions")) warn("WEFT_BARRIER", v, "regions or fibers");
}

/* The kernel cache's folder: WEFT_CACHE_DIR, where "off" or "" turns the
 * disk cache off; by default the user's cache folder, as the XDG base
 * directory specification places it. */
static void read_cache_dir(void) {
  static char path[4096];
  const char *v = getenv("WEFT_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  if (v) config.cache_dir = *v && strcmp(v, "off") ? v : NULL;
  else if (xdg && *xdg && snprintf(path, sizeof path, "%s/weft", xdg) < 4096)
    config.cache_dir = path;
  else if (home && *home &&
           snprintf(path, sizeof path, "%s/.cache/weft", home) < 4096)
    config.cache_dir = path;
}

static void read_resident(void) {
  const char *v = getenv("WEFT_RESIDENT_GROUPS");
  size_t n;
  if (!v) return;
  if (parse_size(v, &n) || n > WEFT_MAX_RESIDENT_GROUPS)
    warn("WEFT_RESIDENT_GROUPS", v, "a number of work-groups from 1 to 65536");
  else config.resident_limit = (unsigned)n;
}

static void read_resize(void) {
  const char *v = getenv("WEFT_RESIZE");
  if (!v) return;
  if (!strcmp(v, "churn")) config.resize = WEFT_RESIZE_CHURN;
  else if (strcmp(v, "threads")) warn("WEFT_RESIZE", v, "threads or churn");
}

/* Seconds, a plain number above 0 (or 0 too, with zero_ok) up to hi. */
static int parse_seconds(const char *s, int zero_ok, double hi, double *out) {
  char *end;
  double t = strtod(s, &end);
  if (end == s || *end || !(zero_ok ? t >= 0 : t > 0) || t > hi) return -1;
  *out = t;
  return 0;
}

static void read_spin_timeout(void) {
  config.spin_timeout = 10;
  const char *v = getenv("WEFT_SPIN_TIMEOUT");
  if (v && parse_seconds(v, 0, 86400, &config.spin_timeout))
    warn("WEFT_SPIN_TIMEOUT", v, "seconds, more than 0, like 10 or 0.5");
}

static void read_gather_bound(void) {
  config.gather_bound = 0.02;
  const char *v = getenv("WEFT_GATHER_BOUND");
  if (v && parse_seconds(v, 1, 3600, &config.gather_bound))
    warn("WEFT_GATHER_BOUND", v, "seconds, 0 to 3600, like 0.02");
}

#define SCHEDULE_FORMS \
  "fifo, random:SEED, random-deep:SEED, pct:SEED, pct:SEED:DEPTH (SEED " \
  "a number, DEPTH 1 to 16), exhaustive[:BUDGET[:PREEMPTIONS[:full]]] " \
  "(BUDGET at least 1, PREEMPTIONS at most 16, full: no partial-order " \
  "reduction) or replay:POS=CHOICE,..."

/* "NUMBER" up to end (or the string's end); 0, or -1. */
static int parse_count(const char *s, const char *end,
                       unsigned long long *out) {
  char *stop = NULL;
  errno = 0;
  if (*s < '0' || *s > '9') return -1;
  *out = strtoull(s, &stop, 10);
  return errno || stop != (end ? end : s + strlen(s)) ? -1 : 0;
}

/* How many builds whose programs were all released stay loaded for a
 * later build of the same input (jit/cache/cache.c): 0 to 4096. */
static void read_cache_keep(void) {
  config.cache_kept = WEFT_DEFAULT_CACHE_KEEP;
  const char *v = getenv("WEFT_CACHE_KEEP");
  unsigned long long n;
  if (!v) return;
  if (parse_count(v, NULL, &n) || n > 4096)
    warn("WEFT_CACHE_KEEP", v, "a number of builds from 0 to 4096");
  else config.cache_kept = (unsigned)n;
}

/* The CPU's sub-group width where a kernel asks for none: one the CPU
 * has (jit/kernel_abi.h's WEFT_CPU_SUB_GROUP_SIZES), to run a kernel at
 * another width than the host's vector (backend/cpu/cpu_device.c). */
static void read_sub_group_size(void) {
  config.sub_group_size = 0;
  const char *v = getenv("WEFT_SUB_GROUP_SIZE");
  unsigned long long n;
  if (!v || !*v) return;
  if (parse_count(v, NULL, &n) || n < 4 || n > 32 || (n & (n - 1)))
    warn("WEFT_SUB_GROUP_SIZE", v, "4, 8, 16 or 32");
  else config.sub_group_size = (unsigned)n;
}

/* "exhaustive[:BUDGET[:PREEMPTIONS[:full]]]": 0, or -1. */
static int parse_exhaustive(const char *v) {
  unsigned long long budget = WEFT_EXPLORE_BUDGET,
                     preemptions = WEFT_EXPLORE_PREEMPTIONS;
  int reduce = 1;
  const char *rest = v + strlen("exhaustive");
  if (*rest && *rest != ':') return -1;
  if (*rest) {
    const char *colon = strchr(rest + 1, ':');
    if (parse_count(rest + 1, colon, &budget) || !budget) return -1;
    const char *full = colon ? strchr(colon + 1, ':') : NULL;
    if (colon && (parse_count(colon + 1, full, &preemptions) ||
                  preemptions > 16))
      return -1;
    if (full && strcmp(full, ":full")) return -1;
    reduce = !full;
  }
  config.schedule = WEFT_SCHEDULE_EXHAUSTIVE;
  config.explore_budget = budget;
  config.explore_preemptions = (unsigned)preemptions;
  config.explore_reduce = reduce;
  return 0;
}

/* "replay:POS=CHOICE,..." (possibly empty): one interleaving of the
 * exhaustive exploration, as a failing launch names it. 0, or -1. */
static int parse_replay(const char *v) {
  const char *p = v + strlen("replay:");
  const char *list = p;
  while (*p) {
    /* A position past a million decisions is no launch's: refused, not a
     * table of that size. */
    size_t a = strspn(p, "0123456789");
    if (!a || p[a] != '=' || a > 7 || strtoul(p, NULL, 10) > 1000000)
      return -1;
    size_t b = strspn(p + a + 1, "0123456789");
    if (!b || b > 9) return -1;
    p += a + 1 + b;
    if (*p == ',' && p[1]) p++;
    else if (*p) return -1;
  }
  config.schedule = WEFT_SCHEDULE_EXHAUSTIVE;
  config.explore_budget = 1;
  config.explore_preemptions = 0;
  config.explore_replay = list;
  return 0;
}

/* WEFT_SCHEDULE: MODE:SEED, and pct's optional :DEPTH; or exhaustive, or
 * one of its interleavings. */
static void read_schedule(void) {
  const char *v = getenv("WEFT_SCHEDULE");
  config.schedule_depth = 0;
  if (!v || !strcmp(v, "fifo")) return;
  if (!strncmp(v, "exhaustive", 10) || !strncmp(v, "replay:", 7)) {
    if (v[0] == 'e' ? parse_exhaustive(v) : parse_replay(v))
      warn("WEFT_SCHEDULE", v, SCHEDULE_FORMS);
    return;
  }
  static const struct { const char *name; weft_schedule_mode mode; } modes[] = {
      {"random:", WEFT_SCHEDULE_RANDOM},
      {"random-deep:", WEFT_SCHEDULE_RANDOM_DEEP},
      {"pct:", WEFT_SCHEDULE_PCT}};
  weft_schedule_mode mode = WEFT_SCHEDULE_FIFO;
  const char *seed = NULL;
  for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
    if (!strncmp(v, modes[i].name, strlen(modes[i].name))) {
      mode = modes[i].mode;
      seed = v + strlen(modes[i].name);
    }
  const char *depth = seed && mode == WEFT_SCHEDULE_PCT ? strchr(seed, ':') : NULL;
  unsigned long long n = 0, d = 0;
  if (!seed || parse_count(seed, depth, &n) ||
      (depth && (parse_count(depth + 1, NULL, &d) || d < 1 ||
                 d > WEFT_PCT_DEPTH_MAX))) {
    warn("WEFT_SCHEDULE", v, SCHEDULE_FORMS);
    return;
  }
  config.schedule = mode;
  config.schedule_seed = n;
  config.schedule_depth = (unsigned)d;
}

/* WEFT_MEMORY: sc or weak. */
static void read_memory(void) {
  const char *v = getenv("WEFT_MEMORY");
  if (!v || !strcmp(v, "sc")) return;
  if (!strcmp(v, "weak")) config.weak_memory = 1;
  else warn("WEFT_MEMORY", v, "sc or weak");
}

static void read_textures(void) {
  const char *v = getenv("WEFT_TEXTURES");
  config.textures = 1;
  if (!v || !strcmp(v, "on")) return;
  if (!strcmp(v, "off")) config.textures = 0;
  else warn("WEFT_TEXTURES", v, "on or off");
}

/* WEFT_GPU_WAIT: each or batch. */
static void read_gpu_wait(void) {
  const char *v = getenv("WEFT_GPU_WAIT");
  if (!v || !strcmp(v, "batch")) return;
  if (!strcmp(v, "each")) config.gpu_wait_each = 1;
  else warn("WEFT_GPU_WAIT", v, "each or batch");
}

/* WEFT_CHECK: the checks every build gets (check mode). */
static void read_check(void) {
  const char *v = getenv("WEFT_CHECK");
  if (!v || !*v || !strcmp(v, "off")) return;
  if (!weft__check_parse(v, &config.check)) return;
  config.check = 0;
  warn("WEFT_CHECK", v, WEFT_CHECK_WORDS " (or off)");
}

static void read_timeout(void) {
  config.timeout = -1;
  const char *v = getenv("WEFT_TIMEOUT");
  if (v && parse_seconds(v, 1, 1e6, &config.timeout))
    warn("WEFT_TIMEOUT", v, "seconds, 0 (off) or more, like 30");
}

static void read_build_timeout(void) {
  const char *v = getenv("WEFT_BUILD_TIMEOUT");
  if (v && parse_seconds(v, 1, 1e6, &config.build_timeout))
    warn("WEFT_BUILD_TIMEOUT", v, "seconds, 0 (off) or more, like 60");
}

static void read_build_memory(void) {
  const char *v = getenv("WEFT_BUILD_MEMORY");
  if (v && *v && strcmp(v, "0") && parse_size(v, &config.build_memory))
    warn("WEFT_BUILD_MEMORY", v, "a size like 2G or 512M, or 0 (no limit)");
}

static void read_perf(void) {
  const char *v = getenv("WEFT_PERF");
  if (!v || !*v || !strcmp(v, "off")) return;
  if (!strcmp(v, "map")) config.perf_map = 1;
  else if (!strcmp(v, "jitdump")) config.perf_jitdump = 1;
  else warn("WEFT_PERF", v, "map or jitdump (or off)");
}

/* WEFT_LOG: a comma-separated list of device, build, cache and launch, or
 * all (log_topics.c). */
static void read_log(void) {
  const char *v = getenv("WEFT_LOG");
  if (!v || !*v || !strcmp(v, "off")) return;
  unsigned topics = 0;
  for (const char *p = v; *p;) {
    size_t n = strcspn(p, ",");
    unsigned topic = weft__log_topic(p, n);
    if (!topic) {
      warn("WEFT_LOG", v, "a comma-separated list of device, build, cache "
                          "and launch, or all (or off)");
      return;
    }
    topics |= topic;
    p += n + (p[n] == ',');
  }
  config.log = topics;
}

/* The environment's settings as the configuration read them: WEFT_*, what
 * names the default cache folder, and the CUDA toolkit's folders. */
static char **settings;

static int is_setting(const char *entry) {
  static const char *const names[] = {"XDG_CACHE_HOME=", "HOME=",
                                      "CUDA_HOME=", "CUDA_PATH="};
  if (!strncmp(entry, "WEFT_", 5)) return 1;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strncmp(entry, names[i], strlen(names[i]))) return 1;
  return 0;
}

static void keep_settings(void) {
  extern char **environ;
  size_t n = 0, k = 0;
  for (char **e = environ; e && *e; e++) n += is_setting(*e);
  if (!(settings = calloc(n + 1, sizeof *settings))) return;
  for (char **e = environ; e && *e && k < n; e++)
    if (is_setting(*e) && (settings[k] = strdup(*e))) k++;
}

int weft__config_is_setting(const char *entry) { return is_setting(entry); }

const char *const *weft__config_settings(void) {
  weft__config();
  return (const char *const *)settings;
}

/* A variable's value, NULL where it is unset or empty. */
static const char *non_empty(const char *value) {
  return value && *value ? value : NULL;
}

static void read_config(void) {
  keep_settings();
  read_threads();
  read_barrier();
  read_stack_size();
  read_fiber();
  config.dump_ir = non_empty(getenv("WEFT_DUMP_IR"));
  read_cache_dir();
  read_cache_keep();
  read_sub_group_size();
  config.libcuda = non_empty(getenv("WEFT_LIBCUDA"));
  config.libdevice = non_empty(getenv("WEFT_LIBDEVICE"));
  config.cuda_home = non_empty(getenv("CUDA_HOME"));
  config.cuda_path = non_empty(getenv("CUDA_PATH"));
  read_device();
  read_resident();
  read_resize();
  read_spin_timeout();
  read_gather_bound();
  read_schedule();
  read_memory();
  read_textures();
  read_gpu_wait();
  read_check();
  read_timeout();
  read_build_timeout();
  read_build_memory();
  read_perf();
  read_log();
}

void weft__schedule_value(const weft_config *c, unsigned long long seed,
                          char *out, size_t size) {
  switch (c->schedule) {
  case WEFT_SCHEDULE_RANDOM:
  case WEFT_SCHEDULE_RANDOM_DEEP:
    snprintf(out, size, "%s:%llu",
             c->schedule == WEFT_SCHEDULE_RANDOM ? "random" : "random-deep",
             seed);
    return;
  case WEFT_SCHEDULE_PCT:
    if (c->schedule_depth)
      snprintf(out, size, "pct:%llu:%u", seed, c->schedule_depth);
    else
      snprintf(out, size, "pct:%llu", seed);
    return;
  case WEFT_SCHEDULE_EXHAUSTIVE:
    if (c->explore_replay)
      snprintf(out, size, "replay:%s", c->explore_replay);
    else if (!c->explore_reduce)
      snprintf(out, size, "exhaustive:%llu:%u:full", c->explore_budget,
               c->explore_preemptions);
    else if (c->explore_preemptions != WEFT_EXPLORE_PREEMPTIONS)
      snprintf(out, size, "exhaustive:%llu:%u", c->explore_budget,
               c->explore_preemptions);
    else if (c->explore_budget != WEFT_EXPLORE_BUDGET)
      snprintf(out, size, "exhaustive:%llu", c->explore_budget);
    else
      snprintf(out, size, "exhaustive");
    return;
  case WEFT_SCHEDULE_FIFO:
    break;
  }
  snprintf(out, size, "fifo");
}

const weft_config *weft__config(void) {
  pthread_once(&once, read_config);
  return &config;
}

const char *weft_cache_dir(void) { return weft__config()->cache_dir; }
