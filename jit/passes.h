/*
 * passes.h: the transformations that turn OpenCL kernels into work-group
 * functions. They run in this order (jit/build.c drives them):
 *
 *  0. weft__div_guard_insert (div_guard.c): integer division never traps.
 *  1. weft__inline_callees: every non-kernel function is inlined into the
 *     kernels (OpenCL C has no recursion, so this always succeeds), leaving
 *     work-item builtins and barriers directly in kernel code.
 *  2. weft__kernel_body_make: each kernel becomes a "body" function with the
 *     work-group context, the local id (x, y, z), a region state and the
 *     work-items' private memory as extra parameters; it returns the state
 *     it stopped at (WEFT_STATE_RETURN when it returns).
 *  3. weft__workitem_lower: inside a body, the work-item primitives become
 *     the local id parameters or loads from the context, and barrier() a
 *     call into the back end that names its source location.
 *  3a. weft__yield_points_insert (yield_points.c): loops that poll memory
 *     yield the thread at each turn.
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
 *     memory. Between the two, the pipeline runs reg2mem.
 *  4. weft__workgroup_make: the work-group function loops over a range of
 *     local ids and calls the body, which is then inlined into the loop, so
 *     LLVM can vectorize across work-items. For a region body it makes one
 *     such loop per region (weft__workgroup_make_regions).
 *  5. weft__local_mem_lower: kernel-scope __local variables become slices
 *     of the group's local memory.
 */
#ifndef WEFT_JIT_PASSES_H
#define WEFT_JIT_PASSES_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "jit/kernel_abi.h"

/* The address spaces the front end gives pointers and variables, with
 * -ffake-address-space-map (compile.c): __global 1, __constant 2, __local
 * 3 (weft_address_space's numbers) and generic 4. */
#define WEFT_AS_GLOBAL 1
#define WEFT_AS_LOCAL 3
#define WEFT_AS_GENERIC 4

/* The extra parameters of a body, after the kernel's own. */
#define WEFT_BODY_EXTRA_PARAMS 6 /* ctx, lx, ly, lz, state, private */
enum { WEFT_BODY_CTX, WEFT_BODY_LX, WEFT_BODY_LY, WEFT_BODY_LZ, WEFT_BODY_STATE,
       WEFT_BODY_PRIVATE };

/* Extra parameter p (WEFT_BODY_*) of a body. */
LLVMValueRef weft__body_param(LLVMValueRef body, unsigned p);

/* Barrier call sites found so far in a program. */
typedef struct weft_sites {
  weft_source_loc *locs;
  unsigned count;
  unsigned capacity;
} weft_sites;

/* Step 0 (div_guard.c): integer divisions and remainders by a
 * divisor that may be 0 (or -1, with a signed INT_MIN dividend) give
 * RISC-V's values instead of trapping: x / 0 all ones, x % 0 x. With
 * report (check mode), each also calls WEFT_DIVISION_CHECK(by zero),
 * which step 3c makes a warning. */
void weft__div_guard_insert(LLVMModuleRef module, int report);

/* What a guarded division calls in check mode: void (i1 by_zero). */
#define WEFT_DIVISION_CHECK "__weft_division_check"

/* Check mode's instrumented accesses found so far in a program. */
typedef struct weft_check_sites {
  weft_check_site *sites;
  unsigned count;
  unsigned capacity;
} weft_check_sites;

/* Step 1. Fails (message in *error) on recursion, on a call to a function
 * that is neither defined nor a builtin Weft provides, and on inline
 * assembly unless allow_asm (the GPU's PTX allows it; its builtins use
 * it). */
int weft__inline_callees(LLVMModuleRef module, LLVMTargetMachineRef machine,
                         int allow_asm, char **error);

/* Step 2: the body of every kernel of module, in source order, in bodies
 * (an array of at least as many entries as kernels). The kernels are gone
 * afterwards; calls from one kernel to another call its body. */
int weft__kernel_body_make(LLVMModuleRef module, LLVMValueRef *bodies,
                           unsigned count);

/* Step 3 on one body; the barrier sites it holds are appended to sites. */
int weft__workitem_lower(LLVMValueRef body, weft_sites *sites);

/* Step 3, too (printf.c): printf calls become calls into the back end with
 * a described block of their arguments. */
int weft__printf_lower(LLVMValueRef body, LLVMTargetDataRef layout);

/* The format of a printf call when it is a literal (a constant string),
 * else NULL. The GPU's printf (ptx_printf.c) reads it too. */
const char *weft__printf_literal(LLVMValueRef call);

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

/* Step 4: the work-group function, named name, for one body. */
LLVMValueRef weft__workgroup_make(LLVMModuleRef module, LLVMValueRef body,
                                  const weft_kernel_desc *desc,
                                  const char *name);
LLVMValueRef weft__workgroup_make_regions(LLVMModuleRef module,
                                          LLVMValueRef body,
                                          const weft_kernel_desc *desc,
                                          const char *name);

/* Step 5 on one work-group function: sets *size to the bytes of __local
 * variables it uses. */
int weft__local_mem_lower(LLVMValueRef fn, LLVMTargetDataRef layout,
                          size_t *size, char **error);

/* Cuts inst's block in two (block_split.c): everything before inst moves to
 * a new block named name, placed before it, which the old block's
 * predecessors now branch to; the old block keeps inst and the rest, its
 * terminator included. The new block has no terminator: the caller adds
 * one. Returns the new block. */
LLVMBasicBlockRef weft__block_split_before(LLVMValueRef inst, const char *name);

/* The instructions of fn that keep(inst, data) accepts, in order,
 * collected before a pass changes any (instructions.c): a malloc'd array
 * of *count, or NULL when out of memory. */
typedef int (*weft_instruction_test)(LLVMValueRef inst, void *data);
LLVMValueRef *weft__instructions_where(LLVMValueRef fn, weft_instruction_test keep,
                                       void *data, unsigned *count);

/* Moves inst to the builder's position, keeping its name. */
void weft__instruction_move(LLVMBuilderRef b, LLVMValueRef inst);

/* A function's control-flow graph (cfg.c): its blocks in order, and each
 * one's predecessors by index. */
typedef struct weft_cfg {
  LLVMBasicBlockRef *blocks;
  unsigned count;
  unsigned **preds;      /* preds[i]: indices of block i's predecessors */
  unsigned *num_preds;
} weft_cfg;

int weft__cfg_make(LLVMValueRef fn, weft_cfg *g);
void weft__cfg_free(weft_cfg *g);
/* The index of block b, or g->count when b is not in the graph. */
unsigned weft__cfg_index(const weft_cfg *g, LLVMBasicBlockRef b);

/* Calls found for each back edge latch -> header (indices) that a depth-
 * first walk from the entry meets; a non-zero return stops the walk and
 * is returned. 0, or WEFT_ENOMEM. */
typedef int (*weft_back_edge_fn)(const weft_cfg *g, unsigned header,
                                 unsigned latch, void *data);
int weft__cfg_back_edges(const weft_cfg *g, weft_back_edge_fn found,
                         void *data);

/* Whether fn calls the back end's barrier function. */
int weft__calls_barrier(LLVMValueRef fn);

/* Whether inst is a direct call of the function named name. */
int weft__is_call_to(LLVMValueRef inst, const char *name);

/* Whether fn calls any of the count functions named. */
int weft__calls_any(LLVMValueRef fn, const char *const *names, size_t count);

/* Whether fn calls the back end's yield, wait, wake or poll, or has
 * schedule points (steps 3a, 3b): such a kernel runs cooperatively. */
int weft__calls_sync(LLVMValueRef fn);

/* Whether fn (before step 3) uses the launch's words (weft_global_barrier). */
int weft__uses_launch_words(LLVMValueRef fn);

/* A pointer to the field at offset in the work-group context ctx, built at
 * the builder's position. */
LLVMValueRef weft__ctx_field(LLVMBuilderRef builder, LLVMValueRef ctx,
                             size_t offset);

/* The runtime function name (returning result, NULL for void, and taking
 * params), declared in module once, with one function attribute
 * ("convergent", "noreturn") or none (NULL). */
LLVMValueRef weft__runtime_function(LLVMModuleRef module, const char *name,
                                    LLVMTypeRef result, LLVMTypeRef *params,
                                    unsigned num_params,
                                    const char *attribute);

/* Marks a load as reading memory that does not change while the kernel runs,
 * so LLVM may hoist it out of the work-item loop. */
void weft__set_invariant(LLVMValueRef load);

#endif
