/*
 * kernel_abi.h: what a compiled kernel looks like to the code that runs it.
 *
 * The JIT turns each OpenCL kernel into a work-group function. The CPU back
 * end calls it once per work-group (or once per work-item, from a fiber, after
 * a barrier). This header holds that contract and the description of kernels
 * that a build produces. It includes no LLVM and no threads, so jit/,
 * backend/ and core/ all may use it.
 */
#ifndef WEFT_JIT_KERNEL_ABI_H
#define WEFT_JIT_KERNEL_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "base/checks.h"
#include "weft/kernel.h"
#include "weft/weft.h"

/* The most atomics a kernel has made one per group, and the context's
 * words for them (weft_wg_ctx; aggregate_atomics.c lays them out): room
 * for each site's table of 16 counters with their old values, or fewer
 * sites and one of 256 counters whose results go unused. */
#define WEFT_AGGREGATE_SITES 4
#define WEFT_AGGREGATE_WORDS 400

/* Bytes of a group's uniform values across a barrier (weft_wg_ctx); a
 * kernel's others are kept per work-item. */
#define WEFT_UNIFORM_BYTES 128
/* The alignment of each buffer, the most a value there may need. */
#define WEFT_UNIFORM_ALIGN 16

/* The state of one work-group, read by the generated code. The JIT emits
 * loads at offsetof() these fields, so only this struct defines the layout. */

typedef struct weft_wg_ctx {
  uint64_t group_id[3];
  uint64_t local_size[3];          /* of this group (smaller at the edge) */
  uint64_t enqueued_local_size[3];
  uint64_t global_size[3];
  uint64_t global_offset[3];
  uint64_t num_groups[3];
  uint32_t work_dim;
  /* Set by the back end once the group runs its work-items on fibers: the
   * work-group loop then stops after the work-item that hit the barrier. */
  volatile uint32_t fiber_mode;
  char *local_mem;                 /* this group's __local storage */
  void *group;                     /* the back end's state for this group */
  /* Region-scheduled kernels (below): the work-items' private data, and
   * the region running now (for fault reports). */
  char *private_mem;
  volatile uint32_t region_state;
  uint64_t local_mem_size;         /* bytes at local_mem */
  /* Words of the launch, shared by its groups, zero at its start: the
   * state of weft_global_barrier(). */
  uint32_t *launch_words;
  /* Check mode: bytes of each argument's object from where its pointer
   * points on (weft_launch_desc's arg_sizes), against which accesses
   * through it are checked. */
  const size_t *arg_sizes;
  /* The launch's stop word, read by loops' stop points (WEFT_STOP_*). */
  const uint32_t *stop;
  /* Check mode (uninit): bytes from local_mem to the shadow of its
   * bytes, 1 once written (0: no shadow). */
  uint64_t local_shadow;
  /* Check mode (races; backend/cpu/check_races.c): bytes from local_mem
   * to the records of its words' last accesses (0: none), each
   * argument's records (NULL: none), and the back end's state. */
  uint64_t local_races;
  void *const *arg_races;
  void *races;                     /* the launch's records, or NULL */
  uint32_t race_first;             /* the number of the group's first
                                    * work-item in the records */
  /* Check mode (uninit, WEFT_KERNEL_ARG_SHADOWS): per argument, the
   * shadow of the byte its pointer points at (1 once written; the
   * buffer's, core/buffer_shadow.c), or NULL where its bytes are not
   * followed (host data, SVM, a write no one followed). */
  unsigned char *const *arg_shadows;
  /* The work-item at the last yield point of a polling loop (step 3a),
   * as (z << 42 | y << 21 | x) + 1: increasing in the order a group's
   * work-items run, so that the back end can tell a group whose
   * work-items get through their loops one after another from one that
   * spins (0: none yet). */
  uint64_t yield_item;
  /* The group's words for the atomics that jit/cpu/aggregate_atomics.c
   * makes one per group and counter: per such site, counts, old values,
   * which counters were reached, how many work-items have come; the back
   * end zeroes the kernel's aggregate_words of them before each of its
   * groups starts. Not __local memory: the kernel may use all of that. */
  uint64_t aggregate[WEFT_AGGREGATE_WORDS];
  /* Cooperative kernels (WEFT_KERNEL_RESIZABLE; backend/cpu/resize.c),
   * whose num_groups[0] and global_size[0] say how many groups ran at the
   * group's last point (the back end sets them there): this group's
   * work-items' transmit records (transmit_size bytes each, by local
   * linear id), which its fork points fill and a forked group starts
   * with; where it starts (0: the kernel's start; s: after fork point s);
   * and whether it ends at the point its work-items are at, which the
   * back end says at the point. */
  unsigned char *transmit;
  uint32_t resume_site;
  uint32_t coop_exit;
  /* Region-scheduled kernels (jit/cpu/regions.c): the values that every
   * work-item of the group holds alike across a barrier (a loop's
   * counter: jit/cpu/uniform_slots.c), kept once rather than per
   * work-item. A region's work-items read them from uniform[0] and write
   * them to uniform[1] at its end, which the work-group function copies
   * to uniform[0] before the next region: a work-item that has finished
   * the region does not change what a later one of it reads. */
  _Alignas(WEFT_UNIFORM_ALIGN) unsigned char uniform[2][WEFT_UNIFORM_BYTES];
  /* Non-zero where the launch's stores to its streams go past the caches
   * (WEFT_KERNEL_STREAMS; the launch's stream_stores). */
  uint32_t stream_stores;
} weft_wg_ctx;

/* Work-items per sub-group on the CPU (builtins/sub_groups.cl):
 * consecutive local linear ids, a group's last sub-group smaller; by
 * default the host's vector width in 32-bit lanes (backend/cpu/
 * cpu_device.c: 16 with AVX-512), or WEFT_SUB_GROUP_SIZE's. The JIT
 * gives it to the builtins as a constant (__weft_sub_group_width). A
 * kernel may ask for another of WEFT_CPU_SUB_GROUP_SIZES with
 * __attribute__((intel_reqd_sub_group_size(n))) (the sizes are powers of
 * two, so a mask of them has a bit each; at most 32, a mask's bits).
 * WEFT_CPU_SUB_GROUP_SIZE: the width of a description no CPU build
 * made. */
#define WEFT_CPU_SUB_GROUP_SIZE 16
#define WEFT_CPU_SUB_GROUP_SIZES (4u | 8u | 16u | 32u)
/* A GPU's: a warp. */
#define WEFT_GPU_SUB_GROUP_SIZES 32u

/* Words at launch_words: three cache lines, one for each word (or pair)
 * that groups update while others poll (builtins/sync.cl). */
#define WEFT_LAUNCH_WORDS 48

/* The most work-items of a group on the CPU, and in each dimension: the
 * generated code assumes local ids and sizes below it (weft__set_range). */
#define WEFT_CPU_MAX_WORK_GROUP_SIZE 4096

/* The work-items a call runs: lo <= local id < hi in each dimension. A whole
 * group is lo = 0, hi = local size; a fiber runs a single work-item.
 * A region-scheduled kernel starts at region state (0: the kernel's start)
 * and, with single_region set, stops after that region. */
typedef struct weft_wg_range {
  uint64_t lo[3];
  uint64_t hi[3];
  uint32_t state;
  uint32_t single_region;
  /* Not whole sub-groups side by side even where the kernel could
   * (WEFT_KERNEL_SUB_GROUPS_JAMMED): a fault's replay. */
  uint32_t no_lanes;
} weft_wg_range;

/* A work-group function. args[i] points to the value of argument i: the
 * pointer of a buffer, the bytes of a by-value argument, or, for a __local
 * pointer, a uint64_t offset into ctx->local_mem. */
typedef void (*weft_wg_fn)(void *const *args, weft_wg_ctx *ctx,
                           const weft_wg_range *range);

/* The runtime function the JIT calls for barrier(): the back end provides it
 * under this name. site indexes the program's barrier sites. */
#define WEFT_BARRIER_SYMBOL "weft__cpu_barrier"
typedef void (*weft_barrier_fn)(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                                uint64_t lz, uint32_t flags, uint32_t site);
/* In a barrier's flags: it waits for the work-item's sub-group only
 * (sub_group_barrier() and the sub-group functions). Kernels with one
 * that jit/cpu/sub_group_cuts.c leaves are WEFT_KERNEL_SUB_GROUPS. */
#define WEFT_BARRIER_SUB_GROUP 0x80000000u

/* A sub-group's converge point (the non-uniform sub-group functions):
 * returns the mask of the sub-group's work-items that met there, a bit
 * per sub-group local id (backend/cpu/sub_group.c). */
#define WEFT_CONVERGE_SYMBOL "weft__cpu_sub_group_converge"
typedef uint32_t (*weft_converge_fn)(weft_wg_ctx *ctx, uint64_t lx,
                                     uint64_t ly, uint64_t lz, uint32_t site);

/* Whole sub-groups side by side (jit/cpu/jam_sub_groups.c) found a
 * sub-group only some of whose work-items came to a sub-group function
 * that all of them must reach (sub_group_reduce_add in a branch that
 * they take differently): the group runs again as it runs without them,
 * where the slots find the work-items and report them
 * (backend/cpu/sub_group.c). Does not return. */
#define WEFT_LANES_PARTED_SYMBOL "weft__cpu_lanes_parted"
typedef void (*weft_lanes_parted_fn)(weft_wg_ctx *ctx);

/* Region scheduling. A kernel whose barriers the JIT could cut it at runs
 * as a sequence of regions, each a loop over the group's work-items: state
 * 0 starts the kernel, state s > 0 resumes after barrier s, and each
 * work-item's run of a region ends in the state it stopped at
 * (WEFT_STATE_RETURN when it returned). Values live across a barrier are
 * kept per work-item in ctx->private_mem, which starts with the int32
 * next-state of every work-item. All work-items must stop at the same
 * state; otherwise the work-group function calls this function, which
 * reports the divergence and does not return. */
#define WEFT_STATE_RETURN 0xffffffffu
#define WEFT_REGION_DIVERGED_SYMBOL "weft__cpu_region_diverged"
typedef void (*weft_region_diverged_fn)(weft_wg_ctx *ctx,
                                        const int32_t *next_states);

/* printf() in generated code: each call becomes a call of this function
 * with the format, a description of each argument and a block holding
 * their values; it returns printf's result (0, or -1 on a bad format). */
#define WEFT_PRINTF_SYMBOL "weft__cpu_printf"

#define WEFT_PRINTF_INT 1u     /* an integer (char to long, promoted or not) */
#define WEFT_PRINTF_FLOAT 2u   /* float or double (scalars come as double) */
#define WEFT_PRINTF_POINTER 3u /* %s and %p */

typedef struct weft_printf_arg {
  uint32_t kind;          /* WEFT_PRINTF_* */
  uint32_t count;         /* elements: 1 for a scalar, 2 to 16 for a vector */
  uint32_t element_size;  /* bytes of one element */
  uint32_t offset;        /* where the value starts in the block */
} weft_printf_arg;

typedef int32_t (*weft_printf_fn)(weft_wg_ctx *ctx, const char *format,
                                  const weft_printf_arg *args,
                                  uint32_t num_args, const void *values);

/* to_global(), to_local(), to_private() and get_fence() on a generic
 * pointer ask the back end where the pointer points: it answers with a
 * weft_address_space (WEFT_ADDRESS_GLOBAL, _LOCAL or _PRIVATE). */
#define WEFT_ADDRESS_SPACE_SYMBOL "weft__cpu_address_space"
typedef uint32_t (*weft_address_space_fn)(weft_wg_ctx *ctx, const void *p);

/* Inter-work-group synchronization (kernels flagged WEFT_KERNEL_COOPERATIVE).
 * yield lets other work-groups run; wait parks the group until *word is no
 * longer expected (as a futex does: it returns at once if it already is
 * not), what saying what it waits for (WEFT_WAIT_*), for deadlock reports;
 * wake makes up to count groups parked on word runnable. poll is a yield
 * by a group that spins until *word is no longer seen: the group is not
 * run again before then, and groups that all poll unchanged words with
 * nobody running are a deadlock, reported at once. */
#define WEFT_YIELD_SYMBOL "weft__cpu_yield"
#define WEFT_WAIT_SYMBOL "weft__cpu_wait"
#define WEFT_WAKE_SYMBOL "weft__cpu_wake"
#define WEFT_POLL_SYMBOL "weft__cpu_poll"
typedef void (*weft_yield_fn)(weft_wg_ctx *ctx);
typedef void (*weft_wait_fn)(weft_wg_ctx *ctx, volatile uint32_t *word,
                             uint32_t expected, uint32_t what);
typedef void (*weft_poll_fn)(weft_wg_ctx *ctx, volatile uint32_t *word,
                             uint32_t seen, uint32_t what);
typedef void (*weft_wake_fn)(weft_wg_ctx *ctx, volatile uint32_t *word,
                             uint32_t count);

/* Schedule exploration (WEFT_SCHEDULE=random...): a point where the back
 * end may switch to another work-group, before the access of p that info
 * describes: the bytes it touches (WEFT_SCHED_SIZE bits), whether it reads
 * or writes them; 0 (and p NULL) before something else (a barrier, a
 * fence, a copy). Exhaustive exploration tells independent steps apart by
 * it. */
#define WEFT_SCHED_POINT_SYMBOL "weft__cpu_sched_point"
#define WEFT_SCHED_SIZE 0x3fffffffu
#define WEFT_SCHED_READ (1u << 30)
#define WEFT_SCHED_WRITE (1u << 31)
typedef void (*weft_sched_point_fn)(weft_wg_ctx *ctx, const void *p,
                                    uint32_t info);

/* A cooperative kernel's point (jit/ir/fork_points.c): one work-item of
 * the group calls it once all have reached the point, with the point's
 * kind (weft/kernel.h's WEFT__POINT_*) and its resume site (its number
 * among the kernel's fork points, from 1; 0 for offer_kill); the back
 * end sets ctx->coop_exit when the group ends there, and for request_fork
 * and the resizing barrier copies the group's transmit records to the
 * groups it forks. query_kill(ctx): the groups it would take back now. */
#define WEFT_COOP_POINT_SYMBOL "weft__cpu_coop_point"
#define WEFT_QUERY_KILL_SYMBOL "weft__cpu_query_kill"
typedef void (*weft_coop_point_fn)(weft_wg_ctx *ctx, uint32_t kind,
                                   uint32_t site);
typedef uint32_t (*weft_query_kill_fn)(weft_wg_ctx *ctx);

/* The kinds the builtins pass are weft/kernel.h's (one place for both). */
#define WEFT_WAIT_MUTEX WEFT__WAIT_MUTEX
#define WEFT_WAIT_SEMAPHORE WEFT__WAIT_SEMAPHORE
#define WEFT_WAIT_BARRIER WEFT__WAIT_BARRIER
#define WEFT_WAIT_SPIN 4u       /* a loop polling memory (yield points) */
/* Or'ed into a poll's what: the group waits until *word reaches seen (their
 * signed difference is not negative, so counters may wrap) rather than
 * until it changes: a ticket waiter is not woken by every other ticket. */
#define WEFT_POLL_REACH WEFT__POLL_REACH

/* Where a barrier() call sits in the source, for divergence reports. */
typedef struct weft_source_loc {
  unsigned line;
  unsigned column;
} weft_source_loc;

/* An access that fails its check calls this function instead of being
 * carried out (a read gives zero): work-item (lx, ly, lz) of ctx's group
 * accessed size bytes at offset from the start of the object of check
 * site site. */
#define WEFT_CHECK_FAILED_SYMBOL "weft__cpu_check_failed"

/* weft_assert(condition) failed in work-item (lx, ly, lz) of ctx's group,
 * at source site site (the build's sites, as barriers'); condition is its
 * text. The group does not go on. */
#define WEFT_ASSERT_SYMBOL "weft__cpu_assert_failed"

/* WEFT_MEMORY=weak (jit/cpu/weak_memory.c): plain global stores and loads go
 * through the group's store buffer, store(ctx, p, value, size) and
 * load(ctx, p, out, size); drain(ctx, p, size) makes the buffered stores
 * overlapping [p, p + size) visible (p NULL: all); exit(ctx) at a
 * work-item's return. */
#define WEFT_WEAK_STORE_SYMBOL "weft__cpu_weak_store"
#define WEFT_WEAK_LOAD_SYMBOL "weft__cpu_weak_load"
#define WEFT_WEAK_DRAIN_SYMBOL "weft__cpu_weak_drain"
#define WEFT_WEAK_EXIT_SYMBOL "weft__cpu_weak_exit"
typedef void (*weft_check_failed_fn)(weft_wg_ctx *ctx, uint64_t lx,
                                     uint64_t ly, uint64_t lz, uint32_t site,
                                     int64_t offset, uint64_t size);

#define WEFT_ACCESS_READ 1u
#define WEFT_ACCESS_WRITE 2u
#define WEFT_ACCESS_DIVIDE 4u  /* an integer division by zero: a warning */
#define WEFT_ACCESS_LOOP 8u    /* a loop's stop point (stop_points.c) */
#define WEFT_ACCESS_UNINIT 16u /* a read of bytes never written */
#define WEFT_ACCESS_RACE 32u   /* with _READ or _WRITE: a race's access */

/* Check mode (races; check_races.c): work-item (lx, ly, lz) of ctx's group
 * accesses size bytes at offset in the object of check site site, at
 * cell in the back end's records of its memory (the group's __local
 * memory, or the argument's buffer), after passing epoch barriers; what
 * says how (WEFT_RACE_*, and the argument << WEFT_RACE_ARG_SHIFT). And
 * the work-item made a synchronizing operation. */
#define WEFT_RACE_ACCESS_SYMBOL "weft__cpu_race_access"
typedef void (*weft_race_access_fn)(weft_wg_ctx *ctx, uint64_t lx,
                                    uint64_t ly, uint64_t lz, uint32_t site,
                                    uint32_t what, int64_t offset,
                                    uint64_t cell, uint64_t size,
                                    uint32_t epoch);
/* The records of a group's __local memory: per 4-byte word, a cell of
 * WEFT_RACE_CELL bytes, its last write then its last two readers, each a
 * slot whose work-item (its number: race_first + its local index, 0 for
 * none), barrier count (u32) and bytes of the word (u8 mask) lie at these
 * offsets. Generated code reads them to skip telling of a read that would
 * change nothing (jit/cpu/check_races.c). */
#define WEFT_RACE_CELL 48
#define WEFT_RACE_SLOT 16
#define WEFT_RACE_SLOT_ITEM 0
#define WEFT_RACE_SLOT_EPOCH 8
#define WEFT_RACE_SLOT_MASK 14
#define WEFT_RACE_WRITE 1u
#define WEFT_RACE_LOCAL 2u     /* __local memory (else a buffer argument) */
#define WEFT_RACE_ARG_SHIFT 2
#define WEFT_RACE_SYNC_SYMBOL "weft__cpu_race_sync"
typedef void (*weft_race_sync_fn)(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                                  uint64_t lz);

/* A loop's stop point, when the launch's stop word is set: the back end
 * ends the group (WEFT_STOP_TIMEOUT) or says where work-item (lx, ly, lz)
 * is (WEFT_STOP_QUIT) and returns. site is a check site. */
#define WEFT_STOPPED_SYMBOL "weft__cpu_stopped"
typedef void (*weft_stopped_fn)(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                                uint64_t lz, uint32_t site);
#define WEFT_STOP_TIMEOUT 1u
#define WEFT_STOP_QUIT 2u

/* An instrumented access: where it is, what it does, and the object its
 * pointer comes from (a kernel argument, whose size the launch knows, or a
 * variable of known size). */
typedef struct weft_check_site {
  weft_source_loc loc;
  char *file;              /* the source file, as the front end named it */
  unsigned access;         /* WEFT_ACCESS_READ, _WRITE, or both (atomics) */
  int arg;                 /* the kernel argument, or -1 */
  weft_address_space space; /* of the variable when arg is -1 */
  uint64_t extent;         /* bytes of the variable when arg is -1 */
  char *variable;          /* its name when arg is -1 ("" when unknown) */
} weft_check_site;

typedef struct weft_arg_desc {
  weft_arg_kind kind;
  weft_address_space address_space;
  size_t size;          /* bytes of a by-value argument, or of a pointer */
  size_t align;         /* alignment the value needs */
  char *name;
  char *type_name;
  unsigned type_qualifiers;
  weft_image_access access;   /* an image's access qualifier */
} weft_arg_desc;

/* A __constant buffer argument: a GPU passes its bytes in constant memory
 * (see WEFT_PTX_CONSTANT_BANK in jit.h). */
static inline int weft__arg_is_constant_buffer(const weft_arg_desc *a) {
  return a->kind == WEFT_ARG_BUFFER && a->address_space == WEFT_ADDRESS_CONSTANT;
}

#define WEFT_KERNEL_HAS_BARRIER 1u
#define WEFT_KERNEL_REGIONS 2u  /* scheduled by regions, not fibers */
/* Work-groups of the kernel may wait for each other (it yields, waits or
 * wakes): they run cooperatively, each on a fiber of its own. */
#define WEFT_KERNEL_COOPERATIVE 4u
/* It uses weft_global_barrier(): all its groups must be resident at once. */
#define WEFT_KERNEL_GLOBAL_BARRIER 8u
/* Its loops have stop points (check mode, WEFT_TIMEOUT): a launch can end
 * it after a time, or ask where its work-items are. */
#define WEFT_KERNEL_STOP_POINTS 16u
/* Its __local memory has a shadow (check mode, uninit): the back end makes
 * room for it after the local memory and clears it for each group. */
#define WEFT_KERNEL_LOCAL_SHADOW 32u
/* Its accesses tell the back end of themselves (check mode, races): it
 * keeps records of __local memory's and of buffer arguments' words. */
#define WEFT_KERNEL_RACES 64u
/* Its reads of buffer arguments are checked against, and its writes
 * marked in, the buffers' shadows (check mode, uninit): a launch gives
 * ctx->arg_shadows. */
#define WEFT_KERNEL_ARG_SHADOWS 128u
/* Its sub-groups meet (WEFT_BARRIER_SUB_GROUP barriers, converge points)
 * where not every work-item of the group passes: its groups run
 * interleaved, every work-item on a fiber (backend/cpu/sub_group.c). */
#define WEFT_KERNEL_SUB_GROUPS 256u
/* Some atomics are one per group (jit/cpu/aggregate_atomics.c), counted
 * in the first aggregate_words of weft_wg_ctx's aggregate. */
#define WEFT_KERNEL_AGGREGATES 512u
/* It is a cooperative kernel (cl_weft_cooperative_kernels: it has fork
 * points, jit/ir/fork_points.c): its groups are killed and forked as it
 * runs; each work-item's transmit variables take transmit_size bytes. */
#define WEFT_KERNEL_RESIZABLE 1024u
/* Its work-item loop runs jam_width work-items a turn, side by side
 * (jit/cpu/jam.c). */
#define WEFT_KERNEL_JAMMED 2048u
/* Its work-group function runs whole sub-groups side by side, their
 * sub-group functions folding the lanes' values, when called for a
 * group whose x size is a multiple of the sub-group width
 * (jit/cpu/jam_sub_groups.c; weft_cpu_sub_groups_jammed): then its
 * groups are not interleaved even if it is WEFT_KERNEL_SUB_GROUPS. */
#define WEFT_KERNEL_SUB_GROUPS_JAMMED 4096u
/* Stores to consecutive elements of buffers it does not read, which a
 * launch too large for the caches makes non-temporal
 * (jit/cpu/stream_stores.c; weft_cpu_stream_stores). */
#define WEFT_KERNEL_STREAMS 8192u
/* With WEFT_KERNEL_RESIZABLE: it has resizing_global_barrier() (a GPU's
 * pool runs its barriers fast while no other launch wants blocks,
 * builtins/nvptx/coop.cl). */
#define WEFT_KERNEL_RESIZING_BARRIER 16384u

typedef struct weft_kernel_desc {
  char *name;
  unsigned num_args;
  weft_arg_desc *args;
  size_t local_mem_size;  /* kernel-scope __local variables, in bytes */
  unsigned flags;         /* WEFT_KERNEL_* */
  /* __attribute__((reqd_work_group_size(x, y, z))) and
   * work_group_size_hint(x, y, z); zeros where the kernel has none. */
  size_t reqd_local_size[3];
  size_t local_size_hint[3];
  /* __attribute__((vec_type_hint(T))): "float4", "uchar16"...; "" where
   * the kernel has none. */
  char vec_type_hint[16];
  /* __attribute__((intel_reqd_sub_group_size(n))): n; 0 where none. */
  unsigned reqd_sub_group_size;
  /* A CPU build's: the width its sub-groups run at, n above, else the
   * device's (WEFT_SUB_GROUP_SIZE, or the host's vector width). */
  unsigned sub_group_width;
  /* With WEFT_KERNEL_AGGREGATES: the words of weft_wg_ctx's aggregate it
   * uses, zeroed for each group. */
  unsigned aggregate_words;
  /* With WEFT_KERNEL_RESIZABLE: bytes of a work-item's transmit record. */
  size_t transmit_size;
  /* With WEFT_KERNEL_JAMMED: the work-items a turn of its widest jammed
   * loop runs (8 more at a time, then one, run what is left). */
  unsigned jam_width;
  weft_wg_fn entry;       /* the work-group function */
  /* With WEFT_KERNEL_REGIONS: bytes of ctx->private_mem per work-item, and
   * the barrier site each state s > 0 resumes after (state_sites[s]). */
  size_t private_size;
  /* Bytes of weft_wg_ctx's uniform[0] the regions use (only while the
   * work-group function is made: not in the binary). */
  unsigned uniform_bytes;
  unsigned num_states;
  unsigned *state_sites;
} weft_kernel_desc;

/* What a successful build produces: its kernels and where barriers are. */
typedef struct weft_binary {
  unsigned num_kernels;
  weft_kernel_desc *kernels;
  unsigned num_sites;
  weft_source_loc *sites;
  unsigned num_check_sites;      /* check mode's instrumented accesses */
  weft_check_site *check_sites;
  size_t global_vars_size;       /* bytes of its __global variables */
  void *impl;             /* the back end's own data (a GPU's module) */
  struct weft_cached *cached; /* the kernel cache's entry this build uses,
                               * with a reference (jit/cache/cache.h) */
  int from_cache;         /* 0: built; 1: shared with an earlier build in
                           * this process; 2: loaded from the disk cache */
} weft_binary;

/* The width of k's sub-groups on the CPU. */
static inline unsigned weft_cpu_sub_group_width(const weft_kernel_desc *k) {
  return k->sub_group_width       ? k->sub_group_width
         : k->reqd_sub_group_size ? k->reqd_sub_group_size
                                  : WEFT_CPU_SUB_GROUP_SIZE;
}

/* Whether a launch of kernel k whose buffer arguments hold buffer_bytes
 * stores its streams past the caches (cache_bytes: the last-level
 * cache a core has): where what it touches cannot stay in the cache
 * anyway. */
static inline int weft_cpu_stream_stores(const weft_kernel_desc *k,
                                         uint64_t buffer_bytes,
                                         uint64_t cache_bytes) {
  return (k->flags & WEFT_KERNEL_STREAMS) && cache_bytes &&
         buffer_bytes >= cache_bytes;
}

/* Whether k's groups of this enqueued local x size run their whole
 * sub-groups side by side (WEFT_KERNEL_SUB_GROUPS_JAMMED) where size_x is
 * a multiple of the width too: for a launch, its global x size (every
 * group's x size, the last's too, is then a multiple); for one group,
 * its own x size. */
static inline int weft_cpu_sub_groups_jammed(const weft_kernel_desc *k,
                                             size_t local_x, size_t size_x) {
  unsigned w = weft_cpu_sub_group_width(k);
  return (k->flags & WEFT_KERNEL_SUB_GROUPS_JAMMED) && local_x % w == 0 &&
         size_x % w == 0;
}

/* Whether k's groups of this enqueued local size, whose x size is not a
 * multiple of the sub-group width, run their whole sub-groups side by
 * side all the same, and the last, partial one apart (on fibers): a
 * kernel with such jams and no work-group barrier (not regions), groups
 * of one row (y and z sizes 1: a sub-group is x ids of the row). */
static inline int weft_cpu_sub_groups_rows(const weft_kernel_desc *k,
                                           const size_t local[3]) {
  return (k->flags & WEFT_KERNEL_SUB_GROUPS_JAMMED) &&
         !(k->flags & WEFT_KERNEL_REGIONS) && local[1] == 1 && local[2] == 1;
}

/* Local memory is handed out in blocks this aligned (the widest vector). */
#define WEFT_LOCAL_ALIGN 128

#endif
