/* ptx_aggregate.c: warp-aggregated atomics on a small table of counters
 * (see ptx.h). ptxas already makes one atomic per warp where every lane
 * adds to one address (bench_sub_groups' compaction: CUDA's hand-written
 * aggregation gains nothing over its plain atomicAdd), but not where the
 * lanes add to a few addresses, as a histogram's `atomic_inc(&bins[v &
 * 15])` does: 16 hot words take each lane's atomic in turn. Here the
 * lanes that reach such an atomic together find their peers on the same
 * address (match.any.sync), the lowest of each makes one atomic of the
 * peers' amounts, and each gets its old value from it (shfl.sync) plus
 * its rank among its peers (NVIDIA's "reduce by key" with
 * __match_any_sync).
 *
 * The amount must be a constant (the peers' total is then a count times
 * it), the counter __global memory, its GEP from a kernel argument with
 * constant indices but the last, and that bounded to at most 16 values by
 * how it is made (ir.h's weft__value_bound): where the addresses are
 * many, matches find few peers and cost more than they save.
 *
 * It is an interleaving the lanes could have had, their atomics one after
 * another in rank order with none from elsewhere between them (the
 * leader's one atomic): bar.warp.sync, which orders the memory accesses
 * of the lanes it names, stands on either side of it, so that each
 * peer's earlier accesses come before the atomic made for it and its
 * later ones after, for every memory order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ir/ir.h"
#include "jit/ptx/ptx.h"
#include "weft/weft.h"

/* Whether v is a kernel argument: itself, or loaded from the stack slot
 * Clang keeps it in (nothing but the argument stored there; this runs
 * before the optimizer promotes the slot). */
static int is_argument(LLVMValueRef v) {
  if (LLVMIsAArgument(v)) return 1;
  if (!LLVMIsALoadInst(v) || !LLVMIsAAllocaInst(LLVMGetOperand(v, 0)))
    return 0;
  LLVMValueRef slot = LLVMGetOperand(v, 0);
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user)) continue;
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot ||
        !LLVMIsAArgument(LLVMGetOperand(user, 0)))
      return 0;
  }
  return 1;
}

/* Whether ptr is a GEP from a kernel argument (or a constant) whose
 * other indices are constants and whose last has at most
 * WEFT_AGGREGATE_KEYS values: one of a few addresses, the same few for
 * every lane. */
static int few_addresses(LLVMValueRef ptr) {
  if (!LLVMIsAGetElementPtrInst(ptr)) return 0;
  unsigned n = (unsigned)LLVMGetNumOperands(ptr);
  LLVMValueRef base = LLVMGetOperand(ptr, 0);
  if (n < 2 || !(is_argument(base) || LLVMIsAConstant(base))) return 0;
  for (unsigned k = 1; k + 1 < n; k++)
    if (!LLVMIsAConstant(LLVMGetOperand(ptr, k))) return 0;
  uint64_t hi;
  return weft__value_bound(LLVMGetOperand(ptr, n - 1), &hi) && hi > 0 &&
         hi < WEFT_AGGREGATE_KEYS;
}

/* An integer add or subtract of a constant on a few __global addresses. */
static int is_candidate(LLVMValueRef i, void *data) {
  (void)data;
  if (!LLVMIsAAtomicRMWInst(i)) return 0;
  LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(i);
  LLVMValueRef ptr = LLVMGetOperand(i, 0);
  return (op == LLVMAtomicRMWBinOpAdd || op == LLVMAtomicRMWBinOpSub) &&
         LLVMGetPointerAddressSpace(LLVMTypeOf(ptr)) == WEFT_AS_GLOBAL &&
         LLVMIsAConstantInt(LLVMGetOperand(i, 1)) && few_addresses(ptr);
}

/* The leader's value, for every peer: shfl.sync by 32-bit halves. */
static LLVMValueRef from_leader(LLVMBuilderRef b, LLVMModuleRef m,
                                LLVMValueRef v, LLVMValueRef peers,
                                LLVMValueRef leader) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), type = LLVMTypeOf(v);
  unsigned bits = LLVMGetIntTypeWidth(type);
  LLVMValueRef result = LLVMConstNull(type);
  for (unsigned at = 0; at < bits; at += 32) {
    LLVMValueRef part = LLVMBuildTrunc(
        b, at ? LLVMBuildLShr(b, v, LLVMConstInt(type, at, 0), "") : v, i32, "");
    LLVMValueRef args[] = {peers, part, leader, LLVMConstInt(i32, 31, 0)};
    part = weft__intrinsic_call(b, m, "llvm.nvvm.shfl.sync.idx.i32", NULL, 0, args, 4);
    part = LLVMBuildZExt(b, part, type, "");
    if (at) part = LLVMBuildShl(b, part, LLVMConstInt(type, at, 0), "");
    result = LLVMBuildOr(b, result, part, "");
  }
  return result;
}

/* The atomic rmw, one per warp and address. */
static void aggregate(LLVMBuilderRef b, LLVMValueRef rmw) {
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(rmw);
  LLVMValueRef fn = LLVMGetBasicBlockParent(rest);
  LLVMModuleRef m = LLVMGetGlobalParent(fn);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef ptr = LLVMGetOperand(rmw, 0), amount = LLVMGetOperand(rmw, 1);
  LLVMTypeRef type = LLVMTypeOf(amount);

  /* Before it: the peers, ranks and leaders, and the first warp barrier. */
  LLVMBasicBlockRef head = weft__block_split_before(rmw, "aggregate.match");
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef active = weft__intrinsic_call(b, m, "llvm.nvvm.activemask", NULL, 0, NULL, 0);
  LLVMValueRef match_args[] = {active, LLVMBuildPtrToInt(b, ptr, i64, "")};
  LLVMValueRef peers =
      weft__intrinsic_call(b, m, "llvm.nvvm.match.any.sync.i64", NULL, 0, match_args, 2);
  LLVMValueRef lane =
      weft__intrinsic_call(b, m, "llvm.nvvm.read.ptx.sreg.laneid", NULL, 0, NULL, 0);
  LLVMValueRef below =
      weft__intrinsic_call(b, m, "llvm.nvvm.read.ptx.sreg.lanemask.lt", NULL, 0, NULL, 0);
  LLVMValueRef rank_args[] = {LLVMBuildAnd(b, peers, below, "")};
  LLVMValueRef rank = weft__intrinsic_call(b, m, "llvm.ctpop", &i32, 1, rank_args, 1);
  LLVMValueRef count = weft__intrinsic_call(b, m, "llvm.ctpop", &i32, 1, &peers, 1);
  LLVMValueRef tz_args[] = {peers, LLVMConstInt(LLVMInt1TypeInContext(c), 1, 0)};
  LLVMValueRef leader = weft__intrinsic_call(b, m, "llvm.cttz", &i32, 1, tz_args, 2);
  weft__intrinsic_call(b, m, "llvm.nvvm.bar.warp.sync", NULL, 0, &peers, 1);
  LLVMBasicBlockRef lead =
      LLVMInsertBasicBlockInContext(c, rest, "aggregate.lead");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, lane, leader, ""), lead, rest);

  /* The leader's one atomic, on the peers' total. */
  LLVMPositionBuilderAtEnd(b, lead);
  LLVMValueRef total =
      LLVMBuildMul(b, amount, LLVMBuildZExt(b, count, type, ""), "");
  LLVMValueRef one = LLVMInstructionClone(rmw);
  LLVMInsertIntoBuilder(b, one);
  LLVMSetOperand(one, 1, total);
  LLVMBuildBr(b, rest);

  /* After it: the leader's result, the second warp barrier, the rank. */
  LLVMPositionBuilderBefore(b, rmw);
  LLVMValueRef got = LLVMBuildPhi(b, type, "");
  LLVMValueRef none = LLVMGetPoison(type);
  LLVMAddIncoming(got, &one, &lead, 1);
  LLVMAddIncoming(got, &none, &head, 1);
  LLVMValueRef base = from_leader(b, m, got, peers, leader);
  weft__intrinsic_call(b, m, "llvm.nvvm.bar.warp.sync", NULL, 0, &peers, 1);
  LLVMValueRef mine =
      LLVMBuildMul(b, amount, LLVMBuildZExt(b, rank, type, ""), "");
  LLVMValueRef old = LLVMGetAtomicRMWBinOp(rmw) == LLVMAtomicRMWBinOpAdd
                         ? LLVMBuildAdd(b, base, mine, "aggregate.old")
                         : LLVMBuildSub(b, base, mine, "aggregate.old");
  LLVMReplaceAllUsesWith(rmw, old);
  LLVMInstructionEraseFromParent(rmw);
}

int weft__ptx_aggregate_atomics(LLVMModuleRef module) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  int rc = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn && !rc;
       fn = LLVMGetNextFunction(fn)) {
    if (!LLVMGetFirstBasicBlock(fn)) continue;
    unsigned n = 0;
    LLVMValueRef *rmws = weft__instructions_where(fn, is_candidate, NULL, &n);
    if (!rmws && n) rc = WEFT_ENOMEM;
    for (unsigned i = 0; i < n && rmws; i++) aggregate(b, rmws[i]);
    free(rmws);
  }
  LLVMDisposeBuilder(b);
  return rc;
}
