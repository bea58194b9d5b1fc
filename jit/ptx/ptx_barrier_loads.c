/* ptx_barrier_loads.c: reads of memory that no work-item writes, issued
 * above the work-group barrier they follow.
 *
 * A loop that fills __local memory, meets at a barrier and then reads
 * global memory it only reads (CLBlast's XgemvFast: x into __local, a
 * barrier, then a column of 128 rows of the matrix) sent its reads only
 * once the whole group had met. NVIDIA's compiler has the first of them
 * in flight while the group meets: on an H200 XgemvFast took 184-188 us
 * as Weft compiled it, 164-168 with its first 32 reads moved above the
 * barrier by hand, 158-162 as NVIDIA's driver compiled it.
 *
 * Legal for a read through a kernel's restrict const pointer argument
 * (noalias and only read: nothing writes what it reaches while the kernel
 * runs, so the read gives the same value on either side of the barrier),
 * in the barrier's block with no call between that might not return,
 * its address computed there by instructions without effects, which move
 * up with it. At most MOST reads a barrier: each holds a register across
 * it. */
#include <string.h>

#include "jit/ir/ir.h"
#include "jit/ptx/ptx.h"

/* Reads moved above one barrier, and how deep an address is followed. */
#define MOST 32
#define DEPTH 8

static int is_barrier(LLVMValueRef i) {
  if (!LLVMIsACallInst(i)) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  if (!LLVMIsAFunction(callee)) return 0;
  const char *name = LLVMGetValueName(callee);
  return !strncmp(name, "llvm.nvvm.bar.sync", 18) ||
         !strncmp(name, "llvm.nvvm.barrier", 17);
}

/* Whether base is a kernel's argument that it only reads and that
 * nothing else reaches (restrict const). */
static int read_only_argument(LLVMValueRef base) {
  if (!LLVMIsAArgument(base)) return 0;
  LLVMValueRef fn = LLVMGetParamParent(base);
  unsigned index = 1; /* attribute indices: 1 the first parameter */
  for (LLVMValueRef p = LLVMGetFirstParam(fn); p != base;
       p = LLVMGetNextParam(p))
    index++;
  static const char *const needed[] = {"noalias", "readonly"};
  for (int i = 0; i < 2; i++) {
    unsigned kind =
        LLVMGetEnumAttributeKindForName(needed[i], strlen(needed[i]));
    if (!LLVMGetEnumAttributeAtIndex(fn, index, kind)) return 0;
  }
  return 1;
}

/* Whether v is an instruction after barrier in barrier's block: one that
 * would have to move up too. */
static int made_after(LLVMValueRef barrier, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v) ||
      LLVMGetInstructionParent(v) != LLVMGetInstructionParent(barrier))
    return 0;
  for (LLVMValueRef j = LLVMGetNextInstruction(barrier); j;
       j = LLVMGetNextInstruction(j))
    if (j == v) return 1;
  return 0;
}

/* An instruction that computes without effects and never traps. */
static int pure(LLVMValueRef i) {
  if (LLVMIsACastInst(i) || LLVMIsAGetElementPtrInst(i) || LLVMIsACmpInst(i) ||
      LLVMIsASelectInst(i))
    return 1;
  if (!LLVMIsABinaryOperator(i)) return LLVMGetInstructionOpcode(i) == LLVMFreeze;
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMUDiv: case LLVMSDiv: case LLVMURem: case LLVMSRem:
    return 0;
  default:
    return 1;
  }
}

/* Whether v is there before barrier, or can be made there: computed
 * after it in its block by pure instructions from such values. */
static int available(LLVMValueRef barrier, LLVMValueRef v, unsigned depth) {
  if (!made_after(barrier, v)) return 1;
  if (!depth || !pure(v)) return 0;
  for (int k = 0, n = LLVMGetNumOperands(v); k < n; k++)
    if (!available(barrier, LLVMGetOperand(v, k), depth - 1)) return 0;
  return 1;
}

/* Moves v (available's) and what it is computed from above barrier, at
 * the builder (which stands before the barrier). */
static void move_up(LLVMBuilderRef b, LLVMValueRef barrier, LLVMValueRef v) {
  if (!made_after(barrier, v)) return;
  for (int k = 0, n = LLVMGetNumOperands(v); k < n; k++)
    move_up(b, barrier, LLVMGetOperand(v, k));
  weft__instruction_move(b, v);
}

/* Whether load reads, plainly, through a restrict const argument. */
static int read_only_load(LLVMValueRef load) {
  return LLVMIsALoadInst(load) && !LLVMGetVolatile(load) &&
         LLVMGetOrdering(load) == LLVMAtomicOrderingNotAtomic &&
         read_only_argument(weft__pointer_root(LLVMGetOperand(load, 0)));
}

/* Whether the scan for reads stops at i: the block's end, another
 * barrier, or a call that might not return (a multiply-add's intrinsic
 * says it does). */
static int stops(LLVMValueRef i) {
  if (LLVMIsATerminatorInst(i) || is_barrier(i)) return 1;
  if (!LLVMIsACallInst(i)) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  unsigned returns = LLVMGetEnumAttributeKindForName("willreturn", 10);
  return !LLVMIsAFunction(callee) ||
         !LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                      returns);
}

static void hoist_after(LLVMBuilderRef b, LLVMValueRef barrier) {
  unsigned moved = 0;
  LLVMValueRef next;
  for (LLVMValueRef i = LLVMGetNextInstruction(barrier);
       i && moved < MOST && !stops(i); i = next) {
    next = LLVMGetNextInstruction(i);
    if (!read_only_load(i) ||
        !available(barrier, LLVMGetOperand(i, 0), DEPTH))
      continue;
    LLVMPositionBuilderBefore(b, barrier);
    move_up(b, barrier, LLVMGetOperand(i, 0));
    weft__instruction_move(b, i);
    moved++;
  }
}

void weft__ptx_barrier_loads_hoist(LLVMModuleRef module) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        if (is_barrier(i)) hoist_after(b, i);
  LLVMDisposeBuilder(b);
}
