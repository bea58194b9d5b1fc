/* ptx_select.c: what LLVM 19's NVPTX back end cannot select, rewritten
 * into what it can (see ptx.h).
 *
 * Memory orderings: it selects no fence, no ordered load or store, and
 * makes every read-modify-write relaxed. Integer atomics in global
 * memory become PTX's ordered instructions (ptx_atomics.c); for
 * the others the classic mapping restores the orderings with
 * PTX fences: an acquire access is followed by fence.acq_rel, a release
 * access preceded by one, and seq_cst uses fence.sc on both sides. The
 * fences are at GPU scope (OpenCL's device scope), except around an
 * access to __local memory (shared, address space 3), which only the
 * work-item's own work-group can see: there a fence at CTA scope
 * orders all that any observer of the access can tell, and costs a
 * fraction of a GPU-scope one (OpenCL 1.2's atomic_inc on a __local
 * histogram bin is seq_cst; with GPU-scope fences it ran at 2.6 times
 * NVIDIA's driver's time). A volatile load or store is a relaxed one at
 * system scope on the GPU (sm_70 and newer). */
#include <string.h>

#include "jit/ir/ir.h"
#include "jit/ptx/ptx.h"

static int is_acquire(LLVMAtomicOrdering o) {
  return o == LLVMAtomicOrderingAcquire ||
         o == LLVMAtomicOrderingAcquireRelease ||
         o == LLVMAtomicOrderingSequentiallyConsistent;
}

static int is_release(LLVMAtomicOrdering o) {
  return o == LLVMAtomicOrderingRelease ||
         o == LLVMAtomicOrderingAcquireRelease ||
         o == LLVMAtomicOrderingSequentiallyConsistent;
}

/* The scope of the fences an ordered access needs: its work-group's for
 * one to __local memory (see the top), the GPU's otherwise. */
typedef enum fence_scope { SCOPE_GPU, SCOPE_CTA } fence_scope;

static fence_scope scope_of(LLVMValueRef pointer) {
  return LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)) == WEFT_AS_LOCAL /* shared */
             ? SCOPE_CTA
             : SCOPE_GPU;
}

/* A PTX fence before inst, also a compiler barrier for memory. */
static void fence_before(LLVMBuilderRef b, LLVMValueRef inst,
                         LLVMAtomicOrdering o, fence_scope scope) {
  static const char *const text[2][2] = {
      {"fence.acq_rel.gpu;", "fence.sc.gpu;"},
      {"fence.acq_rel.cta;", "fence.sc.cta;"}};
  static const char clobber[] = "~{memory}";
  const char *asm_text =
      text[scope][o == LLVMAtomicOrderingSequentiallyConsistent];
  LLVMContextRef context =
      LLVMGetTypeContext(LLVMTypeOf(LLVMGetBasicBlockParent(
          LLVMGetInstructionParent(inst))));
  LLVMTypeRef type =
      LLVMFunctionType(LLVMVoidTypeInContext(context), NULL, 0, 0);
  LLVMValueRef fence = LLVMGetInlineAsm(
      type, (char *)asm_text, strlen(asm_text), (char *)clobber,
      sizeof clobber - 1, 1, 0, LLVMInlineAsmDialectATT, 0);
  LLVMPositionBuilderBefore(b, inst);
  LLVMBuildCall2(b, type, fence, NULL, 0, "");
}

/* Loads and stores lose their ordering for volatility and fences. */
static void lower_access(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMAtomicOrdering o = LLVMGetOrdering(inst);
  if (o == LLVMAtomicOrderingNotAtomic) return;
  LLVMSetOrdering(inst, LLVMAtomicOrderingNotAtomic);
  LLVMSetVolatile(inst, 1);
  int load = LLVMIsALoadInst(inst) != NULL;
  int seq_cst = o == LLVMAtomicOrderingSequentiallyConsistent;
  fence_scope scope = scope_of(LLVMGetOperand(inst, load ? 0 : 1));
  if (is_release(o) || (load && seq_cst)) fence_before(b, inst, o, scope);
  if (is_acquire(o) || (!load && seq_cst))
    fence_before(b, LLVMGetNextInstruction(inst), o, scope);
}

/* Read-modify-writes keep their (ignored) ordering and gain the fences. */
static void fence_rmw(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMAtomicOrdering o = LLVMIsAAtomicCmpXchgInst(inst)
                             ? LLVMGetCmpXchgSuccessOrdering(inst)
                             : LLVMGetOrdering(inst);
  fence_scope scope = scope_of(LLVMGetOperand(inst, 0));
  if (is_release(o)) fence_before(b, inst, o, scope);
  if (is_acquire(o))
    fence_before(b, LLVMGetNextInstruction(inst), o, scope);
}

/* An IR fence becomes the PTX one. */
static void lower_fence(LLVMBuilderRef b, LLVMValueRef inst) {
  fence_before(b, inst, LLVMGetOrdering(inst), SCOPE_GPU);
  LLVMInstructionEraseFromParent(inst);
}

static void lower_ordering(LLVMBuilderRef b, LLVMValueRef i) {
  if (weft__ptx_atomic_lower(b, i)) return;
  if (LLVMIsALoadInst(i) || LLVMIsAStoreInst(i)) lower_access(b, i);
  else if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i))
    fence_rmw(b, i);
  else if (LLVMIsAFenceInst(i)) lower_fence(b, i);
}

/* Calls rewrite on each instruction of module, which it may replace or
 * precede with others (the walk has the next one already). */
static void each_instruction(LLVMModuleRef module,
                             void (*rewrite)(LLVMBuilderRef, LLVMValueRef)) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(f); block;
         block = LLVMGetNextBasicBlock(block))
      for (LLVMValueRef i = LLVMGetFirstInstruction(block), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        rewrite(b, i);
      }
  LLVMDisposeBuilder(b);
}

/* A cast between two named address spaces (InstCombine folds a cast to
 * generic and one from it into such a cast, say local to global) goes
 * through generic again: NVPTX has instructions only to and from
 * generic, and aborts the process on the folded cast. */
static void split_cast(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMValueRef from = LLVMGetOperand(inst, 0);
  LLVMTypeRef to = LLVMTypeOf(inst);
  if (!LLVMGetPointerAddressSpace(LLVMTypeOf(from)) ||
      !LLVMGetPointerAddressSpace(to))
    return;
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef generic = LLVMBuildAddrSpaceCast(
      b, from, LLVMPointerTypeInContext(LLVMGetTypeContext(to), 0), "");
  LLVMReplaceAllUsesWith(inst, LLVMBuildAddrSpaceCast(b, generic, to, ""));
  LLVMInstructionEraseFromParent(inst);
}

/* A vector float-to-double extension becomes one per element. Fed by a
 * vector load of 8 or 16 floats, NVPTX 19 folds it into extending
 * ld.v2.f32 loads into f64 registers, which ptxas rejects; PTX converts
 * element by element anyway, so nothing is lost. */
static void scalarize_fpext(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMTypeRef to = LLVMTypeOf(inst);
  if (LLVMGetTypeKind(to) != LLVMVectorTypeKind) return;
  LLVMValueRef from = LLVMGetOperand(inst, 0);
  LLVMTypeRef element = LLVMGetElementType(to);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(to));
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef vector = LLVMGetPoison(to);
  for (unsigned i = 0; i < LLVMGetVectorSize(to); i++) {
    LLVMValueRef at = LLVMConstInt(i32, i, 0);
    LLVMValueRef wide =
        LLVMBuildFPExt(b, LLVMBuildExtractElement(b, from, at, ""), element, "");
    vector = LLVMBuildInsertElement(b, vector, wide, at, "");
  }
  LLVMReplaceAllUsesWith(inst, vector);
  LLVMInstructionEraseFromParent(inst);
}

/* A plain vector load or store aligned below its vector's alignment
 * (vload4 from any float, say) becomes one access per element. NVPTX 19
 * selects some of them, <16 x i8> at align 1 among them, as ld.v4.u32,
 * which faults on a misaligned address. */
static void scalarize_access(LLVMBuilderRef b, LLVMValueRef inst) {
  int load = LLVMIsALoadInst(inst) != NULL;
  LLVMValueRef pointer = LLVMGetOperand(inst, load ? 0 : 1);
  LLVMTypeRef type =
      LLVMTypeOf(load ? inst : LLVMGetOperand(inst, 0));
  if (LLVMGetTypeKind(type) != LLVMVectorTypeKind || LLVMGetVolatile(inst) ||
      LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic)
    return;
  LLVMTargetDataRef layout = LLVMGetModuleDataLayout(LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst))));
  LLVMTypeRef element = LLVMGetElementType(type);
  unsigned n = LLVMGetVectorSize(type);
  /* Elements a GEP can reach (whole bytes), and an access that is short
   * of the vector's own alignment. */
  if (LLVMSizeOfTypeInBits(layout, element) !=
          8 * LLVMStoreSizeOfType(layout, element) ||
      LLVMGetAlignment(inst) >= LLVMABIAlignmentOfType(layout, type))
    return;
  unsigned align = LLVMGetAlignment(inst);
  if (align > LLVMABIAlignmentOfType(layout, element))
    align = LLVMABIAlignmentOfType(layout, element);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(type));
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef vector = LLVMGetPoison(type);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef at = LLVMConstInt(i32, i, 0);
    LLVMValueRef p = LLVMBuildGEP2(b, element, pointer, &at, 1, "");
    LLVMValueRef access =
        load ? LLVMBuildLoad2(b, element, p, "")
             : LLVMBuildStore(b, LLVMBuildExtractElement(
                                     b, LLVMGetOperand(inst, 0), at, ""), p);
    LLVMSetAlignment(access, align);
    if (load) vector = LLVMBuildInsertElement(b, vector, access, at, "");
  }
  if (load) LLVMReplaceAllUsesWith(inst, vector);
  LLVMInstructionEraseFromParent(inst);
}

static void prepare_selection(LLVMBuilderRef b, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  /* Each may erase inst. */
  if (op == LLVMAddrSpaceCast) split_cast(b, inst);
  else if (op == LLVMFPExt) scalarize_fpext(b, inst);
  else if (op == LLVMLoad || op == LLVMStore) scalarize_access(b, inst);
}

void weft__ptx_selection_prepare(LLVMModuleRef module) {
  each_instruction(module, prepare_selection);
}

void weft__ptx_orderings_lower(LLVMModuleRef module) {
  each_instruction(module, lower_ordering);
}
