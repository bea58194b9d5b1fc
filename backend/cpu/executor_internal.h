/*
 * executor_internal.h: the CPU executor's types (the executor, its
 * workers, a launch, a work-group being run) and the functions its files
 * share: the group runner (group.c), reports (launch_report.c), the
 * schedule modes' parts (interleave.c, pct.c, explore*.c, weak_memory.c,
 * schedule_trace.c), check mode (check_*.c) and the watchdog. Each
 * scheduler keeps its own state apart (scheduler.h). Nothing outside
 * backend/cpu/ includes it.
 */
#ifndef WEFT_BACKEND_CPU_EXECUTOR_INTERNAL_H
#define WEFT_BACKEND_CPU_EXECUTOR_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "backend/common/printf_format.h"
#include "backend/common/report_text.h"
#include "backend/cpu/fiber.h"
#include "backend/cpu/kernel_calls.h"
#include "backend/cpu/pool.h"
#include "backend/cpu/stacks.h"
#include "backend/device.h"
#include "base/config.h"
#include "base/fault.h"
#include "base/lock.h"

/* The most bytes of a scheduler's state (scheduler.h); each asserts its
 * own fits. */
#define WEFT_SCHED_STATE_MAX 1024

/* Bytes of a worker's stack beyond the work-item stack size, for the
 * runtime's own frames below the kernel. */
#define WORKER_STACK_EXTRA (64u * 1024u)

typedef struct weft_executor weft_executor;
typedef struct launch_state launch_state;
typedef struct cpu_worker cpu_worker;
typedef struct cpu_group cpu_group;
typedef struct coop_slot coop_slot;
typedef struct coop_launch coop_launch;
typedef struct chunked_launch chunked_launch;
typedef struct weft_scheduler weft_scheduler;
typedef struct check_report check_report;
typedef struct weft_watchdog weft_watchdog;
typedef struct race_records race_records;
typedef struct weft_store_buffer weft_store_buffer;
typedef struct weft_explore weft_explore;

/* A buffer argument's bytes under exhaustive exploration
 * (explore_memory.c): its range, and the name and start of the bytes it
 * shares with other arguments. */
#define WEFT_EXPLORE_BUFFERS 32
typedef struct explore_range {
  uintptr_t lo, hi;
  uint64_t name;
  uintptr_t origin;
} explore_range;

/* A stretch of a schedule mode's interleaving (schedule_trace.c): work-item
 * item of group group ran steps schedule points, from first_pc to last_pc
 * (their return addresses), with no other in between. */
typedef struct trace_stretch {
  uint64_t group;
  unsigned item;
  const void *first_pc, *last_pc;
  unsigned steps;
} trace_stretch;

/* The stretches a launch keeps, and the bytes of their text. */
#define TRACE_MAX 24
#define WEFT_HISTORY_MAX 6144

/* Work-items a timed-out launch names (watchdog.c). */
#define WEFT_STOPPED_MAX 8

/* A work-item's state in an interleaved group (interleave.c). */
enum { ITEM_RUNNABLE, ITEM_AT_BARRIER, ITEM_AT_SUB_BARRIER, ITEM_AT_CONVERGE,
       ITEM_DONE };

typedef struct cpu_item {
  weft_fiber fiber;
  weft_wg_range range;  /* this work-item alone */
  cpu_group *group;
  unsigned site;        /* the barrier it waits at */
  int state;            /* ITEM_..., when interleaved */
  int64_t priority;     /* under pct (pct.c): the highest runs */
  /* The sub-group's members that met it at its last converge point, a
   * bit per member (sub_group.c). */
  uint32_t sub_mask;
} cpu_item;

/* The index in its group of the work-item with local id (lx, ly, lz), as
 * generated code names it in its calls: x fastest, the group's own sizes
 * (get_local_linear_id). */
static inline unsigned weft__item_index(const weft_wg_ctx *ctx, uint64_t lx,
                                        uint64_t ly, uint64_t lz) {
  return (unsigned)(lx + ctx->local_size[0] * (ly + ctx->local_size[1] * lz));
}

/* A work-group being run. Item 0 runs on the thread's stack (main), or in
 * a cooperative launch on the group's own fiber; in fiber mode the other
 * work-items run on fibers of their own. */
struct cpu_group {
  weft_wg_ctx ctx;
  launch_state *launch;
  cpu_worker *worker;       /* running it now (a cooperative group moves) */
  weft_stacks *item_stacks; /* where its work-items' fibers get stacks */
  /* The stack of its own fiber (a cooperative group's), or NULL: it runs
   * on its worker's. */
  const weft_stacks *own_stack;
  uint64_t index;           /* linear group index */
  unsigned num_items;
  /* The work-item that runs on the group's own stack (main) in fiber
   * mode: 0, or the first of the items an interleaved run runs alone
   * (weft__interleave_run_from). */
  unsigned first;
  unsigned cur;             /* the work-item running (fiber mode) */
  unsigned arrived;         /* work-items at the current barrier */
  unsigned done;            /* work-items that have returned */
  int replay;               /* re-running items one by one after a fault */
  int interleaved;          /* its work-items switch at random (interleave.c) */
  unsigned first_arrived;   /* the first at the current barrier, if so */
  cpu_item *items;
  unsigned capacity;
  weft_fiber main;
  weft_store_buffer *weak;  /* WEFT_MEMORY=weak (weak_memory.c), or NULL */
};

struct cpu_worker {
  weft_executor *executor;
  weft_fault fault;
  weft_stacks stacks;       /* work-item fibers' stacks */
  /* Worker 0 runs on the thread that launches, but on a stack of its own
   * (bounds and guard known, size set by WEFT_STACK_SIZE, whatever the
   * caller's stack is like): own_stack, entered through own_fiber. */
  weft_stacks own_stack;
  weft_fiber own_fiber;
  weft_fiber caller;
  launch_state *launch;
  cpu_group group;
  cpu_group *current;       /* the group it runs: group, or a coop slot's */
  unsigned batch_left;      /* coop groups it took to run after current */
  weft_fiber sched;         /* its scheduler, while a coop group runs */
  char *local_mem;
  size_t local_capacity;
  char *private_mem;        /* region-scheduled kernels' per-item data */
  size_t private_capacity;
  unsigned quit_seen;       /* the last SIGQUIT it reported (watchdog.c) */
  char *stack_lo;           /* the lowest address of the thread's own stack */
  size_t stack_size;
  size_t stack_guard;
  int init_error;
  weft_text output;         /* printf's, written out at the launch's end */
  /* Where kernel code called a runtime function that touches the
   * kernel's memory for it (weak_memory.c), while it runs: a fault there
   * is reported at that line. */
  const void *volatile runtime_caller;
};

struct weft_executor {
  const weft_fiber_ops *fibers;
  size_t stack_size;
  weft_pool *pool;
  unsigned num_workers;
  cpu_worker *workers;
  double spin_timeout;      /* WEFT_SPIN_TIMEOUT, seconds */
  const weft_config *config;      /* what it was made with */
  weft_schedule_mode schedule;    /* WEFT_SCHEDULE */
  unsigned long long seed;        /* of random schedules */
  unsigned depth;                 /* pct's bug depth */
  int weak;                       /* WEFT_MEMORY=weak (weak_memory.c) */
  weft_explore *explore;          /* WEFT_SCHEDULE=exhaustive (explore.c) */
  unsigned long long launches;    /* cooperative launches since the seed */
  /* The most cooperative groups resident at once: WEFT_RESIDENT_GROUPS (a
   * GPU's occupancy, emulated), else what the process's mappings allow. */
  unsigned max_resident;
  coop_slot *free_slots;    /* kept across launches */
  double timeout;           /* WEFT_TIMEOUT (config.h) */
  weft_watchdog *watchdog;  /* started with the first launch it watches */
  /* Check mode's race records, kept from one launch to the next. */
  pthread_mutex_t races_lock;
  race_records *races_kept;
  /* The last schedule-mode launch's interleaving, as text
   * (schedule_trace.c). */
  pthread_mutex_t history_lock;
  char history[WEFT_HISTORY_MAX];
  /* Sharing the threads with a cooperative kernel (share.c): the launch
   * of one that holds the pool, the threads other launches ask of it,
   * how many of those launches wait for them now, the pool they run on
   * meanwhile, and whether this executor is that pool. */
  pthread_mutex_t share_lock;
  pthread_cond_t share_changed;
  launch_state *holder;
  unsigned demand, gathering;
  weft_executor *guest;
  int is_guest;
};

struct launch_state {
  weft_executor *executor;
  const weft_launch_desc *desc;
  uint64_t num_groups[3];
  uint64_t total;
  atomic_int failed;
  pthread_mutex_t lock; /* guards status and msg: the first report wins,
                           and the check reports */
  int status;
  weft_msg *msg;
  /* Check mode (check_report.c): a report per check site, made at the
   * first failure; the sites that failed, and failures not described. */
  check_report *checks;
  unsigned num_checks;
  uint64_t checks_lost;
  race_records *races;  /* check mode's races (check_races.c), or NULL */
  /* Loops' stop points (watchdog.c): the stop word (WEFT_STOP_*), the
   * time limit, and where the work-items that met the time-out were. */
  _Atomic uint32_t stop;
  double time_limit;
  unsigned num_stopped;
  char stopped[WEFT_STOPPED_MAX][320];
  /* kernel_abi.h: launch_words. Groups poll some words while others update
   * them: the words are on cache lines of their own. */
  _Alignas(64) uint32_t launch_words[WEFT_LAUNCH_WORDS];
  /* The scheduler that runs it (scheduler.h), and that scheduler's own
   * state, whose type only the scheduler knows: one of the pointers is
   * set, into sched_state, so that a launch allocates nothing for it. */
  const weft_scheduler *scheduler;
  chunked_launch *chunked;
  coop_launch *coop;
  _Alignas(64) unsigned char sched_state[WEFT_SCHED_STATE_MAX];
  /* A random schedule (WEFT_SCHEDULE): its generator, and which launch of
   * the seed this is, for the report that reproduces it; whether it is
   * PCT's (pct.c). */
  int random, pct;
  uint64_t rng;
  unsigned long long launch_number;
  /* Under exhaustive (explore_memory.c): the buffer arguments' ranges. */
  explore_range explore_mem[WEFT_EXPLORE_BUFFERS];
  unsigned explore_mem_n;
  /* Under a schedule mode: the last stretches run (schedule_trace.c). */
  uint64_t trace_total;
  trace_stretch trace[TRACE_MAX];
};

/* The printf output buffer of the worker running ctx's group. */
weft_text *weft__group_output(weft_wg_ctx *ctx);

/* Writes a printf buffer to stdout and empties it (printf.c). */
void weft__cpu_output_flush(weft_text *out);

/* Reports a failure of the launch (the first report wins). */
void weft__launch_report(launch_state *l, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The local id of g's work-item k (numbered linearly, x fastest). */
static inline void weft__group_local_id(const cpu_group *g, unsigned k,
                                        uint64_t lid[3]) {
  lid[0] = k % g->ctx.local_size[0];
  lid[1] = k / g->ctx.local_size[0] % g->ctx.local_size[1];
  lid[2] = k / (g->ctx.local_size[0] * g->ctx.local_size[1]);
}

/* After a fault in g (from its worker's recovery point): reports it with
 * the work-item, found by replaying the group where it can be. */
void weft__group_report_fault(cpu_group *g);

/* Runs work-group index on g (its context prepared) to completion. */
void weft__group_run(cpu_group *g, uint64_t index);

/* Sets g up for the launch: memory, work-item slots, context. */
int weft__group_prepare(cpu_group *g, cpu_worker *w, launch_state *l,
                        char *local_mem, char *private_mem,
                        weft_stacks *item_stacks);

/* Runs group g as its kernel runs without whole sub-groups side by side
 * (jit/cpu/jam_sub_groups.c), whose work-items can be told apart: its
 * regions (the slots' way), or its work-items interleaved on fibers. */
void weft__group_run_unjammed(cpu_group *g);

/* Fiber mode for g from the start of its work-items: each item after
 * g->first gets a fiber (the first, 0 but where an interleaved run runs
 * a group's last items alone, runs on the group's stack); aborts the
 * group when no stack can be had. */
void weft__group_enter_fibers(cpu_group *g);

/* "work-item (67) [local (3) in work-group (1)]": the work-item of local
 * id lid in group group of launch d; and work-item k of g. */
void weft__launch_format_item(const weft_launch_desc *d,
                              const uint64_t group[3], const uint64_t lid[3],
                              char *out, size_t size);
void weft__launch_describe_item(const cpu_group *g, unsigned k, char *out,
                                size_t size);
/* The same for work-item k of group group of launch l, both numbered
 * linearly (x fastest), once the group itself is gone. */
void weft__launch_describe_linear(const launch_state *l, uint64_t group,
                                  uint64_t k, char *out, size_t size);

/* " at program.cl:9:15": where the instruction at pc of launch d's kernel
 * comes from, when its line tables say; else "". */
void weft__launch_code_place(const weft_launch_desc *d, const void *pc,
                             char *out, size_t size);

/* The fiber of g's work-item k (0: the group's own context). */
weft_fiber *weft__group_fiber_of(cpu_group *g, unsigned k);

/* The bytes of a group's local memory: the kernel's and its arguments',
 * and in check mode (uninit) their shadow after them. */
size_t weft__group_local_bytes(const weft_launch_desc *d);

/* Switches g from work-item from to work-item to. */
void weft__group_switch_item(cpu_group *g, unsigned from, unsigned to);

/* Ends the group with a barrier divergence report: work-item a reached
 * site_a, but b did what says (at b_site, unless it is -1). */
_Noreturn void weft__group_diverged(cpu_group *g, unsigned a,
                                    unsigned site_a, const char *what,
                                    unsigned b, int b_site);

/* Interleaved work-items (interleave.c), for random schedules: runs group
 * g with its work-items switching at random; what happens when work-item k
 * returns, or reaches barrier site; and a schedule point, where another
 * work-item may run. */
void weft__interleave_run_group(cpu_group *g);
/* The same for work-items from on alone, those before it done already
 * (the last sub-group of a row whose whole ones ran side by side:
 * sub_group.c's weft__sub_group_rows). */
void weft__interleave_run_from(cpu_group *g, unsigned from);
void weft__interleave_returned(cpu_group *g, unsigned k);
void weft__interleave_barrier(cpu_group *g, unsigned k, unsigned site);
/* A runnable work-item of an interleaved group other than except
 * (UINT_MAX: any), as the schedule picks (in turn without one). */
unsigned weft__interleave_pick(cpu_group *g, unsigned except);
/* The first runnable work-item after the running one, going round, other
 * than except; UINT_MAX: none. */
unsigned weft__interleave_next(const cpu_group *g, unsigned except);
/* Whether a launch's groups run interleaved for their sub-groups
 * (sub_group.c), and the yield of the running work-item of such a group
 * in a loop that polls: 1 when another work-item has run and this one
 * goes on, 0 when the group itself should yield first (then: the
 * work-item to run after, UINT_MAX: this one). */
int weft__sub_group_interleaves(const launch_state *l);
int weft__sub_group_yield(cpu_group *g, unsigned *then);
/* Whether group g runs its whole sub-groups side by side though its
 * launch's x sizes are not all multiples of the width
 * (weft_cpu_sub_groups_rows): then *tail is the first work-item of its
 * last, partial sub-group, which runs apart on fibers (the number of
 * its work-items where it has none). */
int weft__sub_group_rows(const cpu_group *g, unsigned *tail);

/* Sub-groups (sub_group.c), in interleaved groups: work-item k at a
 * sub-group barrier at site; k stopped at a work-group barrier or
 * returned, which may let its sub-group go on. */
void weft__sub_group_barrier(cpu_group *g, unsigned k, unsigned site);
void weft__sub_group_stopped(cpu_group *g, unsigned k);
void weft__interleave_point(cpu_group *g);

/* WEFT_MEMORY=weak (weak_memory.c): at a schedule point, an entry of g's
 * store buffer may drain; all of it when the group ends; a group that
 * starts drops what a failed one left; its memory is freed with the
 * group. */
void weft__weak_drift(cpu_group *g, launch_state *l);
void weft__weak_drain_group(cpu_group *g);
void weft__weak_reset(cpu_group *g);
void weft__weak_free(cpu_group *g);

/* WEFT_SCHEDULE=exhaustive (explore.c): made with the executor (reduce:
 * sleep sets on); a launch's start; a decision among count work-items
 * that could run (0: the first; preempting: choosing another preempts the
 * running one), ids naming the first WEFT_EXPLORE_IDS of them
 * (explore_id); the chosen one's access at its schedule point (its
 * first byte's name from weft__explore_memory_name, and WEFT_SCHED_* info),
 * or a step that did what no access names (a wait, a wake, a group's
 * start), or one that ended where only its group's work-items may go on
 * (a return); after a launch, the next interleaving (1), none
 * left (0), or WEFT_ERANGE (the budget is spent), WEFT_ELAUNCH (the launch
 * did not repeat the decisions it replayed); the last launch's decisions
 * as "replay:POS=CHOICE,...". */
#define WEFT_EXPLORE_IDS 64
static inline uint64_t weft__explore_id(uint64_t group, unsigned item) {
  return group << 32 | item;
}
int weft__explore_create(unsigned long long budget, unsigned bound,
                         int reduce, const char *replay, weft_explore **out);
void weft__explore_free(weft_explore *x);
void weft__explore_begin(weft_explore *x);
unsigned weft__explore_choose(weft_explore *x, unsigned count,
                              const uint64_t *ids, int preempting);
void weft__explore_access(weft_explore *x, uint64_t name, uint32_t info);
void weft__explore_opaque(weft_explore *x);
void weft__explore_holds_group(weft_explore *x);
int weft__explore_next(weft_explore *x);
void weft__explore_replay(const weft_explore *x, char *out, size_t size,
                          unsigned long long *runs);

/* Under exhaustive (explore_memory.c): a launch's buffer arguments noted;
 * the name of p's byte that stays from launch to launch (0), or none
 * (-1). */
void weft__explore_memory_begin(launch_state *l);
int weft__explore_memory_name(const launch_state *l, const cpu_group *g,
                              const void *p, uint64_t *name);

/* Schedule modes' interleaving (schedule_trace.c): a launch's start; a
 * schedule point of g's running work-item, returning to pc; the launch's
 * end, which writes the last stretches out as the executor's history. */
void weft__trace_begin(launch_state *l);
void weft__trace_step(launch_state *l, const cpu_group *g, const void *pc);
void weft__trace_finish(launch_state *l);

/* splitmix64's finalizer: mixes the bits of z (a sequence steps its state
 * by WEFT_GOLDEN_GAMMA and mixes it). */
#define WEFT_GOLDEN_GAMMA 0x9e3779b97f4a7c15ull
static inline uint64_t weft__mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The next number of a random schedule's sequence (splitmix64, whose
 * sequence the seed fixes), which the scheduler starts (coop.c) and its
 * one thread draws from: for its choices of groups, and for the group
 * runner's interleaving of work-items (interleave.c), PCT (pct.c) and
 * weak memory (weak_memory.c). */
static inline uint64_t weft__schedule_random(launch_state *l) {
  return weft__mix64(l->rng += WEFT_GOLDEN_GAMMA);
}

/* PCT (pct.c), one thread running the launch: sets up its change points;
 * gives a started group's work-items their priorities; counts a step of
 * work-item k of g, dropping its priority at a change point; drops it below
 * every other (it spins: the others must run); the runnable work-item of g
 * with the highest priority, other than except (UINT_MAX: any); and the
 * priority of the next group to start. */
void weft__pct_begin(launch_state *l);
void weft__pct_start_group(cpu_group *g);
void weft__pct_step(launch_state *l, cpu_item *item);
void weft__pct_spun(launch_state *l, cpu_item *item);
unsigned weft__pct_best_item(const cpu_group *g, unsigned except);
int64_t weft__pct_unstarted_priority(launch_state *l);

/* Ends check mode's part of a launch: the reports, if any, become its
 * failure (WEFT_ECHECK), unless something else ended it. */
void weft__check_reports_finish(launch_state *l);
/* The other access of a race: its work-item (check_races.c's numbering),
 * its check site (-1: not known), and whether it is of the same group. */
typedef struct weft_race_other {
  uint32_t item;
  int site;
  int same_group;
} weft_race_other;
/* A check that failed at site, by g's work-item k (linear in the group's
 * local size), at offset of the object, for size bytes; for a race, the
 * other access (else NULL). Counted in the site's report, described at
 * its first failure. */
void weft__check_record(cpu_group *g, unsigned k, uint32_t site,
                        int64_t offset, uint64_t size,
                        const weft_race_other *other);
/* Check mode's races (check_races.c): the records of a launch, taken and
 * given back to the executor (a launch too large for them, or with no
 * memory for them, goes unchecked, with a warning), and freed with it; each buffer argument's records for the
 * groups' contexts (NULL without); the bytes of records a group's __local
 * memory needs; "work-item (3) [local (3) in work-group (0)]" for the
 * work-item numbered item. */
void weft__check_races_begin(launch_state *l);
void weft__check_races_end(launch_state *l);
void weft__check_races_free(weft_executor *e);
void *const *weft__check_races_args(const launch_state *l);
uint64_t weft__check_races_per_group(const launch_state *l);
size_t weft__check_races_local_bytes(size_t local_mem_size);
void weft__check_races_describe(const launch_state *l, uint32_t item,
                                char *out, size_t size);

/* The watchdog (watchdog.c): begins and ends watching a launch whose
 * kernel has stop points; fills a timed-out launch's message; stops. */
void weft__watchdog_begin(launch_state *l);
void weft__watchdog_end(launch_state *l);
void weft__watchdog_report(launch_state *l);
void weft__watchdog_destroy(weft_executor *e);

/* Seconds on the monotonic clock (spin and launch time limits). */
double weft__launch_now(void);

/* Ends group g's run now: back to its worker's recovery point. */
_Noreturn void weft__group_abort(cpu_group *g);

/* While a cooperative kernel holds the pool (share.c): the threads that
 * other launches ask of it now (read at any time); its note that its
 * groups changed (one ended, or arrived at a resizing barrier), for the
 * launches that wait for its threads and its own groups that wait to be
 * given back; and such a group's wait (resize.c): while a launch waits
 * for the threads and waits(arg) holds, until a change or a millisecond
 * has passed. 0 at once when no launch waits: the group goes on. */
unsigned weft__share_demand(const weft_executor *e);
void weft__share_changed(weft_executor *e);
int weft__share_await(weft_executor *e, int (*waits)(const void *),
                      const void *arg);

/* Frees the slots kept across launches. */
void weft__coop_free_slots(weft_executor *e);


#endif
