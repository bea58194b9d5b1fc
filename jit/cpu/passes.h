/*
 * passes.h: the transformations that turn OpenCL kernels into work-group
 * functions for the CPU. They run in this order (cpu/build.c drives them;
 * steps 0 and 1, which the GPU's build takes too, are in ir/ir.h):
 *
 *  0. weft__div_guard_insert (ir/div_guard.c): integer division never
 *     traps.
 *  1. weft__inline_callees (ir/inline.c): every non-kernel function is inlined into the
 *     kernels (OpenCL C has no recursion, so this always succeeds), leaving
 *     work-item builtins and barriers directly in kernel code. Then
 *     weft__fork_points_lower (ir/fork_points.c): the points of
 *     cooperative kernels become barriers around a call into the back
 *     end, returns where groups are killed, and resume sites.
 *  2. weft__kernel_body_make: each kernel becomes a "body" function with the
 *     work-group context, the local id (x, y, z), a region state and the
 *     work-items' private memory as extra parameters; it returns the state
 *     it stopped at (WEFT_STATE_RETURN when it returns).
 *  3. weft__resize_calls_lower (resize_calls.c), then weft__workitem_lower:
 *     inside a body, the work-item primitives become
 *     the local id parameters or loads from the context, and barrier() a
 *     call into the back end that names its source location.
 *  3a. weft__yield_points_insert (yield_points.c): loops that poll memory
 *     yield the thread at each turn. Then weft__sub_group_cuts
 *     (sub_group_cuts.c): sub-group meetings that every work-item passes
 *     once, in a kernel that does not poll, become work-group barriers;
 *     other kernels with meetings run interleaved on fibers. Then
 *     weft__aggregate_atomics (aggregate_atomics.c): an atomic add on a
 *     counter the group shares becomes one atomic per work-group.
 *  3b. weft__sched_points_insert (sched_points.c), for schedule
 *     exploration only: a schedule point before each atomic and barrier
 *     (and, deep, each global load and store; under pct, each __local one
 *     too).
 *     A kernel that calls another then takes in its body, and the kernels
 *     that call the back end's sync functions are marked cooperative.
 *  3c. weft__check_memory_insert (check_memory.c), in check mode only:
 *     each access is checked against the object its pointer comes from.
 *     Then, with WEFT_MEMORY=weak only, weft__weak_memory_insert
 *     (weak_memory.c): plain global stores wait in a store buffer.
 *  3d. weft__regions_split and weft__regions_make (regions.c): a body with
 *     barriers becomes a state machine that runs one work-item from one
 *     barrier to the next, keeping what lives across barriers in private
 *     memory (once per group, what all work-items hold alike:
 *     uniform_slots.c). Between the two, the pipeline runs reg2mem.
 *  4. weft__workgroup_make: the work-group function loops over a range of
 *     local ids and calls the body, which is then inlined into the loop, so
 *     LLVM can vectorize across work-items. For a region body it makes one
 *     such loop per region (weft__workgroup_make_regions). A body (or a
 *     region) with loops of its own is first jammed where its work-items
 *     share their branches (jam.c; before step 3d for bodies without
 *     barriers, after it for regions): one call runs several work-items
 *     side by side, which LLVM's SLP vectorizer makes vector code.
 *     Before any jam, loops of one turn are unrolled (one_turn_loops.c)
 *     and the extensions of int indices in loops pushed down to the
 *     work-item ids (wide_indices.c), which the jam takes side by side
 *     (jam_ids.c).
 *     Kernels with sub-group functions get jams of whole sub-groups
 *     first, between steps 3 and 3a's cuts, while the functions still
 *     ask __weft_sub_group_lanes() (jam_sub_groups.c).
 *  5. weft__local_mem_lower: kernel-scope __local variables become slices
 *     of the group's local memory.
 *  6. weft__local_atomics_lower (local_atomics.c): atomics on __local
 *     memory become plain reads and writes (a group's work-items run on
 *     one thread at a time); then weft__address_spaces_flatten
 *     (address_spaces.c): every access goes
 *     through an address-space-0 pointer, the spaces' disjointness kept as
 *     no-alias scopes, so that LLVM vectorizes loops that mix them.
 */
#ifndef WEFT_JIT_PASSES_H
#define WEFT_JIT_PASSES_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "jit/ir/ir.h"
#include "jit/kernel_abi.h"

/* The extra parameters of a body, after the kernel's own. */
#define WEFT_BODY_EXTRA_PARAMS 6 /* ctx, lx, ly, lz, state, private */
enum { WEFT_BODY_CTX, WEFT_BODY_LX, WEFT_BODY_LY, WEFT_BODY_LZ, WEFT_BODY_STATE,
       WEFT_BODY_PRIVATE };

/* The state a plain body (no barrier: its state parameter is otherwise
 * unused) is called with to store its streams non-temporally
 * (stream_stores.c); 0 stores them plainly. */
#define WEFT_BODY_STREAMING 1

/* A load of the type at offset in the work-group context ctx that stays
 * the same while the group runs (its sizes, ids, pointers), marked
 * invariant so that LLVM hoists it out of the work-item loops. */
LLVMValueRef weft__ctx_invariant(LLVMBuilderRef builder, LLVMTypeRef type,
                                 LLVMValueRef ctx, size_t offset);

/* A pointer to the field at offset in the work-group context ctx, built at
 * the builder's position. */
LLVMValueRef weft__ctx_field(LLVMBuilderRef builder, LLVMValueRef ctx,
                             size_t offset);

/* Barrier call sites found so far in a program. */
typedef struct weft_sites {
  weft_source_loc *locs;
  unsigned count;
  unsigned capacity;
} weft_sites;

/* remake.c: whether v can be computed again anywhere in body from what a
 * work-item has at hand: constants, the kernel's arguments, the body's
 * extra parameters but those in excluded (a bit per WEFT_BODY_*), loads
 * of memory that does not change (the context's invariant fields),
 * through at most *budget instructions without side effects (arithmetic,
 * casts, compares, GEPs, selects; not freezes, which may give another
 * value each time). weft__remake (jit/ir) makes it again. */
int weft__remakeable(LLVMValueRef body, LLVMValueRef v, unsigned excluded,
                     unsigned *budget);

/* Whether v is one more for each work-item further in x: the x local id,
 * plus or minus what x does not change (weft__remakeable without it),
 * times one; exactly so, with casts 0; with WEFT_STEPS_TRUNCS also
 * through truncations (modular: work-item k's is still x's plus k in
 * the narrower int); with WEFT_STEPS_CASTS through extensions too (an
 * index that moves one element a work-item, as long as it does not
 * wrap). A global id is, and `w * get_global_size(0) + get_global_id(0)`. */
#define WEFT_STEPS_TRUNCS 1u
#define WEFT_STEPS_CASTS 3u
int weft__steps_with_x(LLVMValueRef body, LLVMValueRef v, unsigned casts);
/* The same with same(v, data) saying what x does not change (a jam's
 * shared values, jam_masked.c). */
int weft__steps_with_x_where(LLVMValueRef body, LLVMValueRef v, unsigned casts,
                             int (*same)(LLVMValueRef v, void *data),
                             void *data);

/* Extra parameter p (WEFT_BODY_*) of a body. */
LLVMValueRef weft__body_param(LLVMValueRef body, unsigned p);


/* Check mode's instrumented accesses found so far in a program. */
typedef struct weft_check_sites {
  weft_check_site *sites;
  unsigned count;
  unsigned capacity;
} weft_check_sites;

/* Step 2: the body of every kernel of module, in source order, in bodies
 * (an array of at least as many entries as kernels). The kernels are gone
 * afterwards; calls from one kernel to another call its body. */
int weft__kernel_body_make(LLVMModuleRef module, LLVMValueRef *bodies,
                           unsigned count);

/* Step 3, first (resize_calls.c): in a body, the primitives of
 * cooperative kernels' points (jit/ir/fork_points.c) become the context's
 * fields and calls into the back end; in a resizable one, get_num_groups(0)
 * and get_global_size(0) read the number of groups running as of the
 * group's last point (the context's fields, no longer invariant). */
int weft__resize_calls_lower(LLVMValueRef body, int resizable);

/* Step 3 on one body, whose sub-groups are width work-items; the barrier
 * sites it holds are appended to sites. */
int weft__workitem_lower(LLVMValueRef body, unsigned width, weft_sites *sites);
/* Whether a call of the back end's barrier, as weft__workitem_lower made
 * it, waits for a sub-group only (WEFT_BARRIER_SUB_GROUP). */
int weft__barrier_is_sub_group(LLVMValueRef call);
/* Whether a lowered body has such a barrier or a sub-group's converge
 * point (the kernel's groups then run interleaved; sub_group_cuts.c). */
int weft__has_sub_groups(LLVMValueRef body);
/* The back end's barrier function (workitem.c), declared on first use. */
LLVMValueRef weft__barrier_function(LLVMModuleRef module);
/* A call of it with these flags at the builder, at source location loc,
 * naming the barrier site site of body's work-item. */
LLVMValueRef weft__barrier_build(LLVMBuilderRef b, LLVMValueRef flags,
                                 LLVMMetadataRef loc, LLVMValueRef body,
                                 unsigned site);
/* Appends a site at call's source line to sites, its index in *index:
 * 0, or WEFT_ENOMEM. */
int weft__site_add(weft_sites *sites, LLVMValueRef call, unsigned *index);
/* sub_group_cuts.c, after yield points: where every work-item passes each
 * of a body's sub-group meetings once and nothing polls, they become
 * work-group barriers (the others make the kernel WEFT_KERNEL_SUB_GROUPS). */
int weft__sub_group_cuts(LLVMValueRef body, unsigned width);
/* Whether none of body's sub-group meetings is on the lanes' way (taken
 * where __weft_sub_group_lanes() is tested: jam_sub_groups.c), as where
 * only the sub-group functions' slots meet (not a sub_group_barrier()). */
int weft__sub_group_meetings_lanes_free(LLVMValueRef body);
/* aggregate_atomics.c, after the sub-group cuts, in optimized builds
 * without checks or schedule exploration: an atomic add or subtract that
 * every work-item may pass once, on one of a few counters the group
 * shares (aggregate_address.h), becomes one atomic per work-group and
 * counter at a cut, a barrier (its site appended; the context's words
 * used in *words, then WEFT_KERNEL_AGGREGATES). Kernels that poll or
 * that another kernel calls are left as they are. */
int weft__aggregate_atomics(LLVMValueRef body, weft_sites *sites,
                            unsigned *words);

/* Step 3, too (printf.c): printf calls become calls into the back end with
 * a described block of their arguments. */
int weft__printf_lower(LLVMValueRef body, LLVMTargetDataRef layout);

/* Step 3a (yield_points.c): a loop whose exit depends on a volatile or
 * atomic read gets a yield at each turn, so a group spinning on memory
 * another group must change lets that group run. */
int weft__yield_points_insert(LLVMValueRef body);

/* Step 3b (sched_points.c), with schedule exploration only: scheduling
 * points before atomics and barriers, from level 2 before every global
 * load and store, at 3 before every __local one too. */
int weft__sched_points_insert(LLVMValueRef body, int level);

/* Step 3c (check_memory.c), in check mode, once kernels that call others
 * have taken their bodies in: every access whose object is known is
 * checked against it first, and not carried out when it falls outside;
 * the sites are appended to sites. */
int weft__check_memory_insert(LLVMValueRef body, const weft_kernel_desc *desc,
                              LLVMTargetDataRef layout,
                              weft_check_sites *sites);

/* Step 3c too (check_uninit.c), in check mode (uninit): reads of __local
 * and private memory never written are reported; sites appended. */
int weft__check_uninit_insert(LLVMValueRef body, const weft_kernel_desc *desc,
                              LLVMTargetDataRef layout,
                              weft_check_sites *sites);

/* Step 3c too (check_races.c), in check mode (races): plain accesses of
 * __local memory and buffer arguments, barriers and synchronizing
 * operations tell the back end of themselves; sites appended. */
int weft__check_races_insert(LLVMValueRef body, const weft_kernel_desc *desc,
                             LLVMTargetDataRef layout,
                             weft_check_sites *sites);

/* Step 3c' (weak_memory.c), with WEFT_MEMORY=weak only, after the checks:
 * plain global loads and stores go through the back end's store buffer,
 * and releases, other atomics, waits and returns drain it. */
int weft__weak_memory_insert(LLVMValueRef body, LLVMTargetDataRef layout);

/* Step 3c too (check_division.c): the division checks of step 0 become
 * warnings that name the work-item, appended to sites. */
int weft__check_divisions_lower(LLVMValueRef body, weft_check_sites *sites);

/* Step 3c too (stop_points.c), in check mode or under WEFT_TIMEOUT: each
 * loop of body reads the launch's stop word at every turn and calls the
 * back end's stopped() when it is set; a site per loop is appended. */
int weft__stop_points_insert(LLVMValueRef body, weft_check_sites *sites);

/* Step 3d, first half: cuts the blocks of body at its barriers. */
void weft__regions_split(LLVMValueRef body);

/* Step 3d, second half (after reg2mem): makes body a state machine if the
 * work-items' private data fits in max_private bytes each. Fills in the
 * desc's region fields and returns 1 if it did, 0 if the kernel is left to
 * fibers, or a negative error. */
int weft__regions_make(LLVMValueRef body, LLVMTargetDataRef layout,
                       size_t max_private, weft_kernel_desc *desc);

/* Step 4 (debug_info.c): each work-group function entries[k] takes the
 * debug information of bodies[k], which is inlined into it; with ids (-g
 * -cl-opt-disable), the work-item's ids become variables gdb can print. */
void weft__debug_info_adopt(LLVMModuleRef module, const LLVMValueRef *entries,
                            const LLVMValueRef *bodies, unsigned count,
                            int ids);

/* A body's jammed functions, widest first: at most WEFT_JAM_TIERS (the
 * widest, then 8 work-items), a NULL fn after the last. */
#define WEFT_JAM_TIERS 2
typedef struct weft_jammed {
  LLVMValueRef fn;
  unsigned width;
  /* A region's jam of whole sub-groups: the state its work-items stop
   * in, the lanes' way (weft__regions_next_state with lanes 1, asked
   * while the body still asks for them); or, stating, it returns it
   * (weft__jam_tiers' stating: the region has more than one). */
  int32_t next;
  int stating;
} weft_jammed;

/* Step 4 (jam.c): functions with body's parameters that each run width
 * work-items x, x+1, ... of body's x local id parameter side by side,
 * instruction by instruction, so that LLVM vectorizes across them: into
 * tiers (WEFT_JAM_TIERS + 1, zeroed), the widest this body wants on a
 * machine of vector_bits wide registers (weft__target_vector_bits),
 * then 8; named after prefix. Returns how many: none where jamming does
 * not apply (no loop in body, a branch that may differ between
 * work-items, atomics or calls into the runtime, too large). For a
 * region body (regions.c), state is the region they run (the code of
 * the others left out); -1 otherwise. Needs body's variables in
 * registers (SROA). */
unsigned weft__jam_tiers(LLVMValueRef body, LLVMTargetDataRef layout,
                         unsigned vector_bits, int state,
                         unsigned sub_group_width, int stating,
                         const char *prefix, weft_jammed *tiers);
/* With sub_group_width (else 0), the jams run whole sub-groups of that
 * many work-items (widths its multiples, the narrowest one sub-group),
 * with or without loops, and its sub-group functions fold their lanes'
 * values (jam_sub_groups.c); they are for groups whose x size is a
 * multiple of it, and calls whose first x is one. With stating, for a
 * region whose work-items may stop in more than one state, each returns
 * the state its work-items stop in (an i32: the region's ways out each
 * give a constant; none where the call would need a test of its ids
 * first). */

/* jam_sub_groups.c: whether body asks __weft_sub_group_lanes() (its
 * sub-group functions can run jammed); and, once such jams are made,
 * every call of it in module made 0: everywhere else the sub-group
 * functions go through slots and barriers (run simplifycfg after it to
 * drop what is left unreached). Returns whether module had any. */
int weft__sub_group_lanes_used(LLVMValueRef body);
/* Whether any code of module asks it (one look, not a walk). */
int weft__sub_group_lanes_asked(LLVMModuleRef module);
int weft__sub_group_lanes_off(LLVMModuleRef module);
/* The same for body's calls alone, made `on` (0 or 1): 0 where a kernel
 * whose regions run whole sub-groups side by side kept them until those
 * jams were made, 1 in a copy of a body that only jams of whole
 * sub-groups run (build.c), whose slots' way simplifycfg then drops. */
void weft__sub_group_lanes_in(LLVMValueRef body, int on);
/* The runtime's report of a sub-group whose lanes parted ways at a
 * function all must reach (kernel_abi.h: WEFT_LANES_PARTED_SYMBOL),
 * declared in m: noreturn, cold. */
LLVMValueRef weft__sub_group_parted_function(LLVMModuleRef m);
/* Whether inst asks __weft_sub_group_lanes(). */
int weft__jam_is_lanes_query(LLVMValueRef inst);
/* Whether inst folds or picks across a sub-group's lanes (its value
 * differs between sub-groups, and between lanes for a scan). */
int weft__jam_is_lanes_call(LLVMValueRef inst);
/* The successor that terminator term takes where
 * __weft_sub_group_lanes() is 1 (a branch on it), or -1. */
int weft__jam_lanes_branch(LLVMValueRef term);

/* Step 4: the work-group function, named name, for one body. With
 * jammed functions (NULL or an empty list: none), its x loop runs each
 * while as many work-items are left, widest first, then body. Optimized
 * (optimize), a plain body also gets loops for ranges one work-item wide
 * in x (not otherwise: a copy of the body more for nothing, and another
 * place for each of a debugger's breakpoints). */
LLVMValueRef weft__workgroup_make(LLVMModuleRef module, LLVMValueRef body,
                                  const weft_jammed *jammed,
                                  const weft_jammed *lanes,
                                  const weft_kernel_desc *desc,
                                  const char *name, int optimize);
/* With region_jams (NULL: none), WEFT_JAM_TIERS + 1 jammed functions
 * (as above) a region state, for the regions whose work-items all stop
 * in the same state; with lanes_regions (NULL: none), as many jams of
 * whole sub-groups a state, for the regions that hold sub-group
 * functions (the others have none): a call for whole sub-groups runs
 * those regions by them, through the lanes' way of the body (no slots:
 * the sub-group barriers' states are never reached). With apart (NULL:
 * none; then lanes_regions too), a body without the slots' way
 * (build.c's split_slots): the other calls run apart, a work-group
 * function of the slots' way. */
LLVMValueRef weft__workgroup_make_regions(LLVMModuleRef module,
                                          LLVMValueRef body,
                                          const weft_jammed *region_jams,
                                          const weft_jammed *lanes,
                                          const weft_jammed *lanes_regions,
                                          LLVMValueRef apart,
                                          const weft_kernel_desc *desc,
                                          const char *name);
/* Both: with lanes (NULL or an empty list: none), jams of whole
 * sub-groups (weft__jam_tiers with a sub_group_width, the kernel's), a
 * call for a range of whole sub-groups from the kernel's start (the x
 * size, the range's x bounds multiples of the width; state 0) runs them
 * alone: no barrier, no slot. */

/* Step 5 on one work-group function: sets *size to the bytes of __local
 * variables it uses. */
int weft__local_mem_lower(LLVMValueRef fn, LLVMTargetDataRef layout,
                          size_t *size, char **error);

/* After weft__regions_make and SROA (which turns reg2mem's slots back
 * into values): each access to a memory object of body, through its
 * address and GEPs and casts of it, in the object's scope
 * (weft__mark_object_access). */
void weft__regions_scope_objects(LLVMValueRef body);

/* After weft__regions_make: whether every run of body from state ends
 * in the same next state, which goes to *only (a region between two
 * barriers with no branch to another; then no work-item can diverge
 * there, and the work-group function keeps no per-item state for it).
 * Branches on constants go their one way; those on
 * __weft_sub_group_lanes() the way lanes says (1: whole sub-groups side
 * by side; 0: the slots). */
int weft__regions_next_state(LLVMValueRef body, unsigned state, int lanes,
                             int32_t *only);
/* Whether a run of body from state reaches __weft_sub_group_lanes() (or
 * a lanes fold or pick, in a body without slots) before its next
 * barrier (the region holds a sub-group function). */
int weft__regions_ask_lanes(LLVMValueRef body, unsigned state);
/* Marks in reached (count states) those a run from the start reaches
 * the lanes' way (the sub-group barriers' are not among them); 0 when a
 * region ends in a state not known before it runs. */
int weft__regions_lanes_states(LLVMValueRef body, unsigned count,
                               unsigned char *reached);

/* Step 6, first: in fn, atomic read-modify-writes, loads and stores on
 * __local memory become plain volatile ones (local_atomics.c). */
void weft__local_atomics_lower(LLVMValueRef fn);

/* Step 6: in fn, every load, store and atomic through a pointer of a
 * named address space uses the pointer cast to address space 0, and one
 * to buffers (__global, __constant) or __local memory is in that
 * memory's no-alias scope. */
void weft__address_spaces_flatten(LLVMValueRef fn);

/* Puts inst, an access to Weft's per-work-item memory (what regions keep
 * across barriers), in its own no-alias scope (address_spaces.c). */
void weft__mark_private_access(LLVMValueRef inst);
/* And inst, an access to memory object `object` of a region body's
 * `objects` (regions.c), in that object's own scope, apart from the
 * others and from every scope above. */
void weft__mark_object_access(LLVMValueRef inst, unsigned object,
                              unsigned objects);
/* And inst, an access to Weft's words of a group in its context
 * (weft_wg_ctx's aggregate), in another. */
void weft__mark_group_word_access(LLVMValueRef inst);
/* And inst, an access to a group's uniform values (weft_wg_ctx's
 * uniform), in a third. (A load of uniform[0], which no work-item writes
 * while a region runs, is at one address for all: jam.c reads it once.) */
void weft__mark_uniform_access(LLVMValueRef inst);

/* stream_stores.c: in a plain body, each store to a buffer at the x
 * local id plus what x does not change, of a buffer the body does not
 * read, is made non-temporal where the body's state is
 * WEFT_BODY_STREAMING. Returns how many such stores there are (0: none,
 * the body unchanged). */
unsigned weft__stream_stores_make(LLVMValueRef body);

/* one_turn_loops.c: the loops of module's functions that run exactly
 * once made straight code (LLVM's unroller, the pragmas' metadata put
 * aside: what `#pragma unroll` asks for waits for O3). */
int weft__one_turn_loops_unroll(LLVMModuleRef module,
                                LLVMTargetMachineRef machine, char **error);

/* wide_indices.c: in body's loops without barriers, each extension to 64
 * bits of a 32-bit index computed from a work-item id
 * (`a[k * n + (int)get_global_id(0)]`) made 64-bit arithmetic over the
 * extended leaves, as the no-wrap flags
 * of its adds and multiplies allow; the extension of the id's
 * truncation is then a leaf that jam_ids.c makes x's plus one a
 * work-item. Returns how many were widened. */
unsigned weft__wide_indices(LLVMValueRef body);

/* A store to a stream (stream_stores.c) marked, in a scope of its own
 * (address_spaces.c), and, after O3, the marked stores of fn made
 * non-temporal (vectorized by then); how many there were. */
void weft__mark_streamed_store(LLVMValueRef store);
unsigned weft__streamed_stores_finish(LLVMValueRef fn);

/* uniform_slots.c: for each of a region body's value slots (after
 * reg2mem: allocas loaded and stored whole), whether every work-item of
 * a group holds the same value in it at each barrier (uniform[i] 1).
 * 0, or WEFT_ENOMEM (then none is). */
int weft__uniform_slots(LLVMValueRef body, LLVMValueRef const *slots,
                        unsigned num_slots, unsigned char *uniform);

#endif
