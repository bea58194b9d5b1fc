/*
 * ptx.h: the steps of a build for NVIDIA GPUs that the CPU's build does
 * not have (ptx.c drives them): libdevice's math, the CUDA entries,
 * printf as CUDA's vprintf, memory orderings as PTX fences (before O3)
 * and the rewrites of what NVPTX selects wrongly (after it).
 *
 * The CPU's work-group functions have no place here: a CUDA block runs a
 * work-group's items as threads, and the kernel's code, inlined into one
 * function, is the thread's.
 */
#ifndef WEFT_JIT_PTX_H
#define WEFT_JIT_PTX_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "jit/jit.h"
#include "jit/jit_object.h"
#include "jit/kernel_abi.h"

/* The first passes an optimized build runs over the front end's module
 * (ptx.c's pipeline starts with them; ptx_textures.c, which needs
 * registers earlier, runs them first itself): sroa, then simplifycfg
 * before instcombine or jump threading see the code. A loop's tests
 * joined by && (mandelbrot's `i < n && zr * zr + zi * zi <= 4.0f`) then
 * become one test and the loop one exit, as NVIDIA's compiler makes it
 * (and.pred): O3 alone threads the && into two exits, two branches a turn
 * where a warp may diverge, and instcombine first rewrote -(zi * zi) so
 * that the square the test computed was computed again (the loop 15
 * instructions a turn, NVIDIA's 13). */
#define WEFT_PTX_FIRST_PASSES "function(sroa,simplifycfg)"

/* The sub-group functions' redux.sync (ptx_redux.c): whether the
 * architecture built for (sm: 90 for sm_90) has it, and the instruction
 * in place of the builtins' calls where it does. */
void weft__ptx_redux_lower(LLVMModuleRef module, unsigned sm);

/* ptx_textures.c: the image builtins' asks for texture handles become
 * loads; in an optimized build a body whose asks are all computed from
 * its arguments gets a copy that takes the handles as there, called when
 * they are. */
int weft__ptx_textures_version(LLVMModuleRef module,
                               LLVMTargetMachineRef machine, int optimize,
                               char **error);

/* Finds libdevice (the CUDA toolkit's libdevice.10.bc) as config says
 * (jit.h's weft_jit_ptx_config), for the GPUs' JIT: l->path, or "" and
 * why in l->why. */
void weft__ptx_libdevice_find(weft_libdevice *l,
                              const weft_jit_ptx_config *config);

/* Links libdevice when module calls its functions (__nv_*), reading the
 * file the first time. Fails with WEFT_EBUILD and a message naming what
 * to install when it is needed and not found. */
int weft__ptx_libdevice_link(weft_libdevice *l, LLVMModuleRef module,
                             char **error);

/* The primitives' globals in place of their calls (again after a second
 * link of the builtins brought more of them): part of make_kernels. */
void weft__ptx_primitives_lower(LLVMModuleRef module);

/* After every callee is inlined into the kernels (the count of kernels,
 * in module order, described in kernels): the primitives' globals
 * (WEFT_PTX_* in jit.h) replace the calls the nvptx builtins leave, a
 * kernel using weft_global_barrier() is flagged, and each kernel becomes
 * an internal body behind a CUDA entry of the kernel's name that takes
 * its arguments as jit.h says; a cooperative kernel's entry runs its body
 * for each group its block takes (builtins/nvptx/coop.cl), and in it
 * get_group_id(0) and get_num_groups(0) are its group's. */
int weft__ptx_make_kernels(LLVMModuleRef module, LLVMTargetDataRef layout,
                           weft_kernel_desc *kernels, unsigned count);

/* Memory orderings as PTX fences around relaxed (volatile) accesses and
 * read-modify-writes, and IR fences as PTX ones: LLVM 19's NVPTX back
 * end selects no ordered load, store or fence (it would abort the
 * process) and makes read-modify-writes relaxed. */
void weft__ptx_orderings_lower(LLVMModuleRef module);

/* ptx_aggregate.c, before the orderings are lowered, in optimized builds
 * unless -cl-weft-no-aggregate: an atomic add or subtract of a constant
 * on one of a small table of __global counters becomes one atomic per
 * warp and counter (match.any.sync, shfl.sync). 0, or WEFT_ENOMEM. */
int weft__ptx_aggregate_atomics(LLVMModuleRef module);

/* One step of it: an ordered integer load, store or read-modify-write in
 * global memory becomes the PTX instruction with that
 * ordering (ld.acquire, st.release, atom.acq_rel..., seq_cst with a
 * fence.sc before), as inline assembly placed with b; inst is then gone.
 * 0, and inst untouched, for what it does not handle. */
int weft__ptx_atomic_lower(LLVMBuilderRef b, LLVMValueRef inst);

/* ptx_barrier_loads.c, after the stride loops in optimized builds: reads
 * through restrict const arguments that follow a barrier in its block
 * (MOST of them) moved above it, to be in flight while the group meets. */
void weft__ptx_barrier_loads_hoist(LLVMModuleRef module);

/* ptx_loop_pointers.c: in the loop of one block body whose counter
 * steps by step_add (`phi + step`, nsw or nuw), the addresses linear in
 * the counter made pointers stepped each turn (b: any builder). */
void weft__ptx_loop_pointers(LLVMBasicBlockRef body, LLVMValueRef step_add,
                             LLVMBuilderRef b);

/* ptx_stride_loops.c, after O3 in optimized builds: loops of one block
 * over global memory whose trip count only the run knows, unrolled by
 * four (0, or an error in *error). */
int weft__ptx_stride_loops_unroll(LLVMModuleRef module,
                                  LLVMTargetMachineRef machine, char **error);

/* Rewrites what LLVM 19's NVPTX selects wrongly, run after the last
 * optimization, before code generation: casts between two named address
 * spaces, which optimization makes of a pair through generic, go through
 * generic again (NVPTX selects casts only to and from generic, and aborts
 * on others); vector float-to-double extensions are done per element
 * (NVPTX makes invalid extending vector loads of them), and so are vector
 * loads and stores aligned below their size (NVPTX makes some of them
 * wide accesses that fault on a misaligned address). */
void weft__ptx_selection_prepare(LLVMModuleRef module);

/* printf calls become calls of CUDA's vprintf, their arguments in a
 * block as vprintf reads them; a literal format is rewritten for vprintf
 * (a vector as one conversion per element). A vector argument of a format
 * that is not a literal is a build error naming the call's line. */
int weft__ptx_printf_lower(LLVMModuleRef module, char **error);

#endif
