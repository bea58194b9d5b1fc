/* bench_sync_kernels.c: the kernels of `weft bench sync`, and the table of
 * the implementations they are run with. */
#include <string.h>

#include "bench_sync.h"

/* The paper's algorithms (Stuart & Owens, Algorithms 1-5; the two-stage
 * and Xiao-Feng barriers) and the native ones, as include/weft/kernel.h
 * names them: a kernel's init selects one (weft_*_init_with), a build
 * option the global barrier's. Entries of one name are tried in order and
 * the first that builds counts: the later ones serve a Weft without the
 * _with forms, where plain init gives the native object. A Weft that has
 * none of a name's entries skips it. Plain init is not "native" once the
 * _with forms exist: it takes the machine's default. */
/* clang-format off */
#define MUTEX(name, kind) \
  {SYNC_MUTEX, name, "weft_mutex_init_with(o, " kind ")", "", NULL}
#define SEMAPHORE(name, kind) \
  {SYNC_SEMAPHORE, name, "weft_semaphore_init_with(o, count, " kind ")", \
   "", NULL}
#define BARRIER(name, kind) \
  {SYNC_BARRIER, name, "weft_barrier_init_with(o, groups, " kind ")", "", \
   NULL}
#define GLOBAL_BARRIER(name, kind) \
  {SYNC_GLOBAL_BARRIER, name, NULL, "-DWEFT_BARRIER_IMPL=" kind, kind}

const sync_impl sync_impls[] = {
    MUTEX("native", "WEFT_MUTEX_NATIVE"),
    {SYNC_MUTEX, "native", "weft_mutex_init(o)", "", NULL},
    MUTEX("spin", "WEFT_MUTEX_SPIN"),
    MUTEX("spin_backoff", "WEFT_MUTEX_SPIN_BACKOFF"),
    MUTEX("ticket", "WEFT_MUTEX_TICKET"),
    SEMAPHORE("native", "WEFT_SEMAPHORE_NATIVE"),
    {SYNC_SEMAPHORE, "native", "weft_semaphore_init(o, count)", "", NULL},
    SEMAPHORE("spin", "WEFT_SEMAPHORE_SPIN"),
    SEMAPHORE("spin_backoff", "WEFT_SEMAPHORE_SPIN_BACKOFF"),
    SEMAPHORE("sleeping", "WEFT_SEMAPHORE_SLEEPING"),
    BARRIER("native", "WEFT_BARRIER_NATIVE"),
    {SYNC_BARRIER, "native", "weft_barrier_init(o, groups)", "", NULL},
    BARRIER("two_stage", "WEFT_BARRIER_TWO_STAGE"),
    BARRIER("xiao_feng", "WEFT_BARRIER_XIAO_FENG"),
    GLOBAL_BARRIER("native", "WEFT_BARRIER_NATIVE"),
    {SYNC_GLOBAL_BARRIER, "native", NULL, "", NULL},
    GLOBAL_BARRIER("two_stage", "WEFT_BARRIER_TWO_STAGE"),
};
/* clang-format on */
const unsigned sync_num_impls = sizeof sync_impls / sizeof *sync_impls;

static const char *const names[SYNC_PRIMITIVES] = {"mutex", "semaphore",
                                                   "barrier", "global_barrier"};

const char *sync_primitive_name(sync_primitive p) { return names[p]; }

sync_primitive sync_primitive_named(const char *name) {
  unsigned p = 0;
  while (p < SYNC_PRIMITIVES && strcmp(names[p], name)) p++;
  return (sync_primitive)p;
}

/* Each program starts with "#define INIT(o, count, groups) ..." for its
 * implementation, then one of these. Barriers keep each group's phase in
 * a line of its own (STRIDE ints), so the check adds no false sharing. */

static const char mutex_source[] =
    "__kernel void init(__global weft_mutex *o, int count, uint groups) {\n"
    "  INIT(o, count, groups);\n"
    "}\n"
    "/* The counter is not atomic: it ends at groups * ops only if no two\n"
    " * groups were ever inside at once. */\n"
    "__kernel void run(__global weft_mutex *m, __global int *counter,\n"
    "                  int ops) {\n"
    "  if (get_local_id(0) != 0) return;\n"
    "  for (int i = 0; i < ops; i++) {\n"
    "    weft_mutex_lock(m);\n"
    "    int v = *counter;\n"
    "    *counter = v + 1;\n"
    "    weft_mutex_unlock(m);\n"
    "  }\n"
    "}\n";

static const char semaphore_source[] =
    "__kernel void init(__global weft_semaphore *o, int count,\n"
    "                   uint groups) {\n"
    "  INIT(o, count, groups);\n"
    "}\n"
    "/* c[0]: groups inside now; c[1] set if ever more than count; c[2]:\n"
    " * the entries. The check's atomics, on one word for all groups, would\n"
    " * cost more than the wait and post measured: timed runs go without\n"
    " * (check 0), as bench/cuda's and libcu++'s do, and one more run of\n"
    " * each point checks. */\n"
    "__kernel void run(__global weft_semaphore *s, __global int *c,\n"
    "                  int ops, int count, int check) {\n"
    "  if (get_local_id(0) != 0) return;\n"
    "  for (int i = 0; i < ops; i++) {\n"
    "    weft_semaphore_wait(s);\n"
    "    if (check) {\n"
    "      if (atomic_inc(&c[0]) >= count) c[1] = 1;\n"
    "      atomic_dec(&c[0]);\n"
    "    }\n"
    "    weft_semaphore_post(s);\n"
    "  }\n"
    "  atomic_add(&c[2], ops);\n"
    "}\n";

/* Each group writes its phase, then after the barrier reads its
 * neighbour's: a group out early finds it behind. */
/* clang-format off */
#define PHASES_LOOP(WAIT)                                                  \
  "  int g = get_group_id(0), next = (g + 1) % get_num_groups(0);\n"      \
  "  int first = get_local_id(0) == 0;\n"                                 \
  "  for (int p = 1; p <= ops; p++) {\n"                                  \
  "    if (first) phase[g * STRIDE] = p;\n"                               \
  "    " WAIT ";\n"                                                       \
  "    if (first && phase[next * STRIDE] < p) atomic_inc(bad);\n"         \
  "  }\n"

static const char barrier_source[] =
    "__kernel void init(__global weft_barrier *o, int count, uint groups) {\n"
    "  INIT(o, count, groups);\n"
    "}\n"
    "__kernel void run(__global weft_barrier *b,\n"
    "                  __global volatile int *phase, __global int *bad,\n"
    "                  int ops) {\n"
    PHASES_LOOP("weft_barrier_wait(b)")
    "}\n";

static const char global_barrier_source[] =
    "__kernel void run(__global volatile int *phase, __global int *bad,\n"
    "                  int ops) {\n"
    PHASES_LOOP("weft_global_barrier()")
    "}\n";
/* clang-format on */

const char *sync_kernel_source(sync_primitive p) {
  static const char *const sources[SYNC_PRIMITIVES] = {
      mutex_source, semaphore_source, barrier_source, global_barrier_source};
  return sources[p];
}
