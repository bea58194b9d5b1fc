/* ptx_stride_loops.c: loops whose trip count is known only at run time,
 * over global memory, unrolled by four on the GPU after O3.
 *
 * A grid-stride loop (CLBlast's reductions: `while (id < n) { acc +=
 * x[id]; id += WGS * get_num_groups(0); }`) keeps one load in flight per
 * work-item and turn: each turn's add waits for its load before the next
 * turn issues its own, and a GPU does not run ahead past a branch. NVIDIA's
 * OpenCL compiler unrolls such loops by four with the trip count computed
 * in front (a division), so that four loads go out together; LLVM does
 * not, for two reasons: OpenCL C does not let it assume that the loop
 * ends (so a stride it cannot prove positive leaves the trip count
 * unknown), and a division is too dear for its runtime unroll's
 * budget. On an H200, CLBlast's Sdot over 2^24 floats took 0.085 ms
 * against NVIDIA's 0.041; with this and launches left running
 * (cuda_launch.c), 0.064 to 0.081.
 *
 * A loop of one block (O3's rotated form) qualifies when its exit is an
 * ordered comparison of a counter that steps by an amount the loop does
 * not change (nsw or nuw) with a bound it does not change, and its body
 * is short, reads global memory and holds nothing whose copies would
 * act otherwise: no call but to functions without memory effects, no
 * atomic, no fence, nothing volatile. Such a loop that never ended
 * would only read and write plain memory for ever, which no kernel can
 * rely on (C11 lets a compiler assume that such a loop ends); so it is
 * marked as one that must progress (`llvm.loop.mustprogress`, which
 * makes its trip count computable) and asked to be unrolled four times
 * (`llvm.loop.unroll.count`, which allows the division), and LLVM's
 * unroller does the rest. Loops with metadata of their own (a pragma, or
 * O3's mark on what it already unrolled or vectorized) are left alone.
 * Before the unroll, the loop's addresses become pointers stepped a turn
 * (ptx_loop_pointers.c); after it, the unrolled loop loses the unroller's
 * "do not unroll again", which NVPTX would pass on to ptxas (its
 * remainder keeps it). */
#include <stdio.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>

#include "jit/ir/ir.h"
#include "jit/ir/target.h"
#include "jit/ptx/ptx.h"

/* How many times a qualifying loop's body is copied. */
#define UNROLL 4
/* The most instructions of a body worth copying that often. */
#define MOST_INSTRUCTIONS 48

/* Whether v is computed outside bb (an argument, a constant, or an
 * instruction of another block). */
static int invariant(LLVMValueRef v, LLVMBasicBlockRef bb) {
  return !LLVMIsAInstruction(v) || LLVMGetInstructionParent(v) != bb;
}

/* The loop's counter stepped once, if v is: `phi + step`, nsw or nuw,
 * the phi in bb taking v from bb, and step invariant; else NULL. */
static LLVMValueRef stepped_counter(LLVMValueRef v, LLVMBasicBlockRef bb) {
  if (!LLVMIsAInstruction(v) || LLVMGetInstructionOpcode(v) != LLVMAdd ||
      LLVMGetInstructionParent(v) != bb ||
      !(LLVMGetNSW(v) || LLVMGetNUW(v)))
    return NULL;
  for (unsigned side = 0; side < 2; side++) {
    LLVMValueRef phi = LLVMGetOperand(v, side);
    if (!LLVMIsAPHINode(phi) || LLVMGetInstructionParent(phi) != bb ||
        !invariant(LLVMGetOperand(v, 1 - side), bb))
      continue;
    for (unsigned i = 0; i < LLVMCountIncoming(phi); i++)
      if (LLVMGetIncomingBlock(phi, i) == bb &&
          LLVMGetIncomingValue(phi, i) == v)
        return v;
  }
  return NULL;
}

/* The counter's step (stepped_counter's) that the loop's exit test
 * compares with an invariant bound, by order (an equality could be
 * stepped over); else NULL. */
static LLVMValueRef counted_exit(LLVMValueRef test, LLVMBasicBlockRef bb) {
  if (!LLVMIsAICmpInst(test)) return NULL;
  LLVMIntPredicate p = LLVMGetICmpPredicate(test);
  if (p == LLVMIntEQ || p == LLVMIntNE) return NULL;
  LLVMValueRef a = LLVMGetOperand(test, 0), b = LLVMGetOperand(test, 1);
  if (stepped_counter(a, bb) && invariant(b, bb)) return a;
  if (stepped_counter(b, bb) && invariant(a, bb)) return b;
  return NULL;
}

/* Whether copies of inst change nothing but what the copies compute;
 * *global_loads counts its reads of global memory. */
static int copyable(LLVMValueRef inst, unsigned *global_loads) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMCall:
    return weft__call_is_pure(inst);
  case LLVMLoad:
    if (LLVMGetVolatile(inst) || LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic)
      return 0;
    *global_loads += LLVMGetPointerAddressSpace(
                         LLVMTypeOf(LLVMGetOperand(inst, 0))) == WEFT_AS_GLOBAL;
    return 1;
  case LLVMStore:
    return !LLVMGetVolatile(inst) &&
           LLVMGetOrdering(inst) == LLVMAtomicOrderingNotAtomic;
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
  case LLVMFence:
  case LLVMInvoke:
  case LLVMAlloca:
    return 0;
  default:
    return 1;
  }
}

/* If bb is a loop of its own block worth unrolling, its counter's step
 * (counted_exit's); else NULL. */
static LLVMValueRef qualifies(LLVMBasicBlockRef bb, unsigned loop_kind) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  if (!term || !LLVMIsABranchInst(term) || !LLVMIsConditional(term) ||
      LLVMGetMetadata(term, loop_kind))
    return NULL;
  if (LLVMGetSuccessor(term, 0) != bb && LLVMGetSuccessor(term, 1) != bb)
    return NULL;
  unsigned count = 0, global_loads = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i)) {
    if (LLVMIsAPHINode(i) || LLVMIsADbgInfoIntrinsic(i)) continue;
    if (++count > MOST_INSTRUCTIONS || !copyable(i, &global_loads))
      return NULL;
  }
  return global_loads ? counted_exit(LLVMGetCondition(term), bb) : NULL;
}

/* The mark of a loop this pass asked to unroll, on its loop id, which the
 * unroller keeps on the unrolled loop and not on its remainder. */
#define STRIDE_MARK "weft.loop.stride"

static LLVMMetadataRef option(LLVMContextRef c, const char *name) {
  LLVMMetadataRef text = LLVMMDStringInContext2(c, name, strlen(name));
  return LLVMMDNodeInContext2(c, &text, 1);
}

/* The loop's hints on its latch branch term, and the mark. */
static void mark(LLVMValueRef term) {
  LLVMContextRef c = LLVMGetModuleContext(
      LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInstructionParent(term))));
  LLVMMetadataRef count_args[] = {
      LLVMMDStringInContext2(c, "llvm.loop.unroll.count", 22),
      LLVMValueAsMetadata(
          LLVMConstInt(LLVMInt32TypeInContext(c), UNROLL, 0))};
  LLVMMetadataRef options[] = {LLVMMDNodeInContext2(c, count_args, 2),
                               option(c, "llvm.loop.mustprogress"),
                               option(c, STRIDE_MARK)};
  weft__loop_metadata_set(term, options, 3);
}

/* Whether the loop id on term (a latch branch) holds the mark. */
static int marked_loop(LLVMValueRef term, unsigned loop_kind) {
  LLVMValueRef id = LLVMGetMetadata(term, loop_kind);
  unsigned n = id ? LLVMGetMDNodeNumOperands(id) : 0;
  if (!n) return 0;
  LLVMValueRef operands[n];
  LLVMGetMDNodeOperands(id, operands);
  for (unsigned i = 1; i < n; i++) {
    unsigned m = operands[i] && LLVMIsAMDNode(operands[i])
                     ? LLVMGetMDNodeNumOperands(operands[i])
                     : 0;
    if (!m) continue;
    /* An option is its name, then its values (a count: two operands). */
    LLVMValueRef parts[m];
    LLVMGetMDNodeOperands(operands[i], parts);
    unsigned length = 0;
    const char *name = parts[0] ? LLVMGetMDString(parts[0], &length) : NULL;
    if (name && length == strlen(STRIDE_MARK) &&
        !memcmp(name, STRIDE_MARK, length))
      return 1;
  }
  return 0;
}

/* The unrolled loops left for ptxas to unroll further: LLVM's unroller
 * marks what it unrolled `llvm.loop.unroll.disable`, which NVPTX writes
 * as `.pragma "nounroll"`; NVIDIA's compiler leaves that pragma on the
 * remainders only. On an H200, CLBlast's Xamax kernel took 37.2 us with
 * the pragma and 24.4 without (ptxas unrolls again; NVIDIA's PTX: 26.4).
 * The remainders keep theirs. */
static void free_unrolled(LLVMModuleRef module, unsigned loop_kind) {
  LLVMContextRef c = LLVMGetModuleContext(module);
  LLVMMetadataRef progress = option(c, "llvm.loop.mustprogress");
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      if (term && marked_loop(term, loop_kind))
        weft__loop_metadata_set(term, &progress, 1);
    }
}

int weft__ptx_stride_loops_unroll(LLVMModuleRef module,
                                  LLVMTargetMachineRef machine, char **error) {
  LLVMContextRef c = LLVMGetModuleContext(module);
  unsigned loop_kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
  unsigned marked = 0;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMValueRef step;
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      if ((step = qualifies(bb, loop_kind))) {
        weft__ptx_loop_pointers(bb, step, b);
        mark(LLVMGetBasicBlockTerminator(bb));
        marked++;
      }
  LLVMDisposeBuilder(b);
  if (!marked) return 0;
  /* The pointers made above are new IR: a slip there is a build error,
   * not a kernel that computes something else. */
  char *message = NULL;
  if (LLVMVerifyModule(module, LLVMReturnStatusAction, &message)) {
    int n = asprintf(error, "internal error: stride loops: %s", message);
    if (n < 0) *error = NULL;
    LLVMDisposeMessage(message);
    return WEFT_EBUILD;
  }
  LLVMDisposeMessage(message);
  /* The unroll, then what O3 runs after its own to clean the copies. */
  int rc = weft__run_passes(module, machine,
                             "function(loop-unroll<O3;runtime>,sroa,"
                             "instcombine,early-cse,simplifycfg)",
                             error);
  if (!rc) free_unrolled(module, loop_kind);
  return rc;
}
