/*
 * ir.h: what the CPU's and the GPU's builds both do to LLVM IR, and the
 * helpers their passes share: the address spaces, integer division made
 * safe, callees inlined, walking and cutting a function's blocks, finding
 * calls, declaring the runtime's functions.
 */
#ifndef WEFT_JIT_IR_H
#define WEFT_JIT_IR_H

#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* The address spaces the front end gives pointers and variables, with
 * -ffake-address-space-map (compile.c): __global 1, __constant 2, __local
 * 3 (weft_address_space's numbers) and generic 4. */
#define WEFT_AS_GLOBAL 1
#define WEFT_AS_CONSTANT 2
#define WEFT_AS_LOCAL 3
#define WEFT_AS_GENERIC 4

/* What a guarded division calls in check mode: void (i1 by_zero). */
#define WEFT_DIVISION_CHECK "__weft_division_check"

/* Step 0 (div_guard.c): integer divisions and remainders by a
 * divisor that may be 0 (or -1, with a signed INT_MIN dividend) give
 * RISC-V's values instead of trapping: x / 0 all ones, x % 0 x. With
 * report (check mode), each also calls WEFT_DIVISION_CHECK(by zero),
 * which step 3c makes a warning. */
void weft__div_guard_insert(LLVMModuleRef module, int report);

/* Step 1. Fails (message in *error) on recursion, on a call to a function
 * that is neither defined nor a builtin Weft provides, and on inline
 * assembly unless allow_asm (the GPU's PTX allows it; its builtins use
 * it). */
int weft__inline_callees(LLVMModuleRef module, LLVMTargetMachineRef machine,
                         int allow_asm, char **error);

/* Step 1a (fork_points.c): the points of cooperative kernels
 * (offer_kill, request_fork, resizing_global_barrier) in count kernels
 * (described in kernels, which it marks WEFT_KERNEL_RESIZABLE with their
 * transmit records' size) become barriers around a call into the back
 * end, a return where the group is killed, and a dispatch at the start
 * to where a forked group resumes. Fails (message in *error) on a kernel
 * with such points that another kernel calls. */
struct weft_kernel_desc;
int weft__fork_points_lower(LLVMModuleRef module, LLVMTargetMachineRef machine,
                            LLVMTargetDataRef layout,
                            struct weft_kernel_desc *kernels, unsigned count,
                            char **error);

/* The format of a printf call when it is a literal (a constant string),
 * else NULL. For the CPU's printf (cpu/printf.c) and the GPU's (ptx_printf.c). */
const char *weft__printf_literal(LLVMValueRef call);

/* Cuts inst's block in two (block_split.c): everything before inst moves to
 * a new block named name, placed before it, which the old block's
 * predecessors now branch to; the old block keeps inst and the rest, its
 * terminator included. The new block has no terminator: the caller adds
 * one. Returns the new block. */
LLVMBasicBlockRef weft__block_split_before(LLVMValueRef inst, const char *name);

/* The value under pointer p's GEPs and casts (pointers.c): the argument,
 * variable, phi or other value it points into. */
LLVMValueRef weft__pointer_root(LLVMValueRef p);

/* The instructions of fn that keep(inst, data) accepts, in order,
 * collected before a pass changes any (instructions.c): a malloc'd array
 * of *count, or NULL when out of memory. */
typedef int (*weft_instruction_test)(LLVMValueRef inst, void *data);
LLVMValueRef *weft__instructions_where(LLVMValueRef fn, weft_instruction_test keep,
                                       void *data, unsigned *count);
/* A test that keeps every instruction. */
int weft__every_instruction(LLVMValueRef inst, void *data);
/* How many instructions fn has. */
unsigned weft__instruction_count(LLVMValueRef fn);

/* v made again at the builder: its instructions cloned, operands first,
 * down to what is not an instruction (the caller has checked that each
 * may be computed there: no side effects, operands available). */
LLVMValueRef weft__remake(LLVMBuilderRef b, LLVMValueRef v);
/* The same where what is not an instruction becomes leaf(v, data): the
 * copy made in another function (an argument of its own for each). */
typedef LLVMValueRef (*weft_remake_leaf)(LLVMValueRef v, void *data);
LLVMValueRef weft__remake_mapped(LLVMBuilderRef b, LLVMValueRef v,
                                 weft_remake_leaf leaf, void *data);

/* A copy of function fn, named name, in fn's module (clone.cpp: LLVM's C
 * API cannot clone a function). */
LLVMValueRef weft__function_clone(LLVMValueRef fn, const char *name);

/* A loop id for the loop whose latch branch is given, holding the
 * options given (each an MDNode such as !{!"llvm.loop.unroll.count",
 * i32 4}), distinct and its own first operand as LLVM reads loop ids
 * (loop_metadata.cpp: LLVM's C API makes no distinct node). */
void weft__loop_metadata_set(LLVMValueRef latch_branch,
                             LLVMMetadataRef *options, unsigned count);

/* Moves inst to the builder's position, keeping its name. */
void weft__instruction_move(LLVMBuilderRef b, LLVMValueRef inst);

/* Index extensions (extensions.c). How many operations deep a chain is
 * followed from its extension. */
#define WEFT_EXTENSION_DEPTH 8
/* Whether inst extends a 32-bit integer to 64 bits; *sign: with its sign. */
int weft__index_extension(LLVMValueRef inst, int *sign);
/* Whether v, extended (with sign or not), reaches a value that leaf
 * accepts within depth operations that may be extended through (which
 * do not wrap that way). */
int weft__extension_reaches(LLVMValueRef v, int sign, unsigned depth,
                            weft_instruction_test leaf, void *data);
/* The extension ext (weft__index_extension's) replaced by 64-bit
 * arithmetic over its operand's chain, as deep as depth, whose leaves
 * are extended instead. */
void weft__extension_push_down(LLVMBuilderRef b, LLVMValueRef ext,
                               unsigned depth);

/* A function's control-flow graph (cfg.c): its blocks in order, and each
 * one's predecessors by index. */
typedef struct weft_cfg {
  LLVMBasicBlockRef *blocks;
  unsigned count;
  unsigned **preds;      /* preds[i]: indices of block i's predecessors */
  unsigned *num_preds;
} weft_cfg;

int weft__cfg_make(LLVMValueRef fn, weft_cfg *g);
/* The successor a conditional branch on a constant always takes (the
 * other is dead), else NULL. */
LLVMBasicBlockRef weft__branch_constant_way(LLVMValueRef term);
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
/* Marks in body[] (g->count bytes) the blocks of the loop with this header
 * and latch: those that reach the latch without passing the header. work
 * is room for g->count indices. */
void weft__cfg_loop_blocks(const weft_cfg *g, unsigned header, unsigned latch,
                           unsigned char *body, unsigned *work);
/* Marks in in_loop[] (g->count bytes) the blocks of every loop, but for
 * loops with an instruction that excluded(inst, data) holds of (NULL:
 * none is excluded): 0, or WEFT_ENOMEM. */
int weft__cfg_in_loops(const weft_cfg *g, unsigned char *in_loop,
                       weft_instruction_test excluded, void *data);

/* Whether integer v is always in [0, *hi] (unsigned) by how it is made
 * (value_range.c): a constant, `x & C`, `x % C` (unsigned), widenings and
 * narrowings that keep it, a select of such, a sum of such. */
int weft__value_bound(LLVMValueRef v, uint64_t *hi);

/* The most counters of a table an atomic is aggregated over, by key (the
 * CPU's cpu/aggregate_atomics.c, the GPU's ptx/ptx_aggregate.c): a bit
 * each in a word. */
#define WEFT_AGGREGATE_KEYS 16
/* And on the CPU, for an atomic whose result is not used (a histogram's
 * `atomic_inc(&bins[v & 255])`): no old value to hand back per counter,
 * so a larger table's counts fit the group's context. */
#define WEFT_AGGREGATE_WIDE_KEYS 256

/* Whether fn calls the back end's barrier function. */
int weft__calls_barrier(LLVMValueRef fn);

/* Whether inst is a direct call of the function named name. */
int weft__is_call_to(LLVMValueRef inst, const char *name);

/* Whether a call reads and writes no memory (its callee or the call
 * says memory(none)). */
int weft__call_is_pure(LLVMValueRef call);

/* Every call of fn becomes make(b, call, data), b before the call, and
 * fn goes; weft__call_value makes each the value data. */
typedef LLVMValueRef (*weft_call_maker)(LLVMBuilderRef b, LLVMValueRef call,
                                        void *data);
void weft__calls_replace(LLVMValueRef fn, weft_call_maker make, void *data);
LLVMValueRef weft__call_value(LLVMBuilderRef b, LLVMValueRef call, void *value);

/* Whether fn calls any of the count functions named. */
int weft__calls_any(LLVMValueRef fn, const char *const *names, size_t count);

/* Whether fn calls the back end's yield, wait, wake or poll, has
 * schedule points (steps 3a, 3b) or a cooperative kernel's points (whose
 * groups wait at a resizing barrier): such a kernel runs cooperatively. */
int weft__calls_sync(LLVMValueRef fn);

/* Whether fn (before step 3) uses the launch's words (weft_global_barrier). */
int weft__uses_launch_words(LLVMValueRef fn);

/* The runtime function name (returning result, NULL for void, and taking
 * params), declared in module once, with one function attribute
 * ("convergent", "noreturn") or none (NULL). */
LLVMValueRef weft__runtime_function(LLVMModuleRef module, const char *name,
                                    LLVMTypeRef result, LLVMTypeRef *params,
                                    unsigned num_params,
                                    const char *attribute);

/* A call at the builder of LLVM's intrinsic name, overloaded on types
 * (num_types of them; none: 0), declared in module (calls.c). */
LLVMValueRef weft__intrinsic_call(LLVMBuilderRef b, LLVMModuleRef module,
                                  const char *name, LLVMTypeRef *types,
                                  unsigned num_types, LLVMValueRef *args,
                                  unsigned num_args);

/* Copies from's attributes at index (LLVMAttributeFunctionIndex, a
 * parameter's 1 + its number) to to's (calls.c). */
void weft__copy_attributes(LLVMValueRef from, LLVMValueRef to, unsigned index);

/* Marks a load as reading memory that does not change while the kernel runs,
 * so LLVM may hoist it out of the work-item loop. */
void weft__set_invariant(LLVMValueRef load);

/* Tells LLVM that an integer load gives a value in [lo, hi) (!range):
 * the work-item loops' bounds, so that it knows a local id fits in 32
 * bits (a kernel's uint lid, widened again to index, is then affine and
 * the loop vectorizes). */
void weft__set_range(LLVMValueRef load, uint64_t lo, uint64_t hi);

#endif
