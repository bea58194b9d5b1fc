/* jam_predicate.c: a short branch that differs between work-items made
 * straight-line code, so that a jam of whole sub-groups can run it.
 *
 * Sub-group code ends, as a rule, with one lane writing the sub-group's
 * result: `if (get_sub_group_local_id() == 0) out[g] = sum;`, and a
 * filter's lanes that keep an element count themselves in a branch of
 * their own: `if (keep) { m = sub_group_ballot(1); if
 * (sub_group_elect()) ... }`. Work-items take such a branch differently,
 * which a jam refuses (jam.c). Where the branch skips (or chooses
 * between) short runs of blocks that only compute, load and store (a
 * branch within, made so first), those blocks are predicated into the
 * block before:
 * their loads and stores become masked ones (of a vector,
 * llvm.masked.load/store; of a scalar, the same access of a private
 * word where the mask is off: no branch. Either way a work-item that
 * does not take the branch reads and writes nothing of the program's
 * memory, as before), their atomic
 * read-modify-writes go to a private word where the mask is off
 * (`if (sub_group_elect()) base = atomic_add(count, n);`), their arithmetic
 * runs for every work-item (it has no effects; divisions never trap,
 * jit/ir/div_guard.c), and the phis after them select on the condition.
 * The body then means what it meant, for every work-item, jammed or
 * not. A sub-group function that only the lanes that come take part in
 * (a non-uniform one: jam_sub_groups.c) is told the mask, in a body that
 * only a jam of whole sub-groups runs (build.c: the slots' way is gone
 * there); so is one that every lane must come to, which checks that
 * each sub-group's lanes all came or none did (`if (get_sub_group_id()
 * == 0) s = sub_group_reduce_add(s);`). */
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/jam.h"

/* Instructions of a block at most, run by every work-item afterwards
 * (a branch's builtins, just inlined, compute the local id again for
 * each call: the filter's branch held 170). */
#define PREDICATE_MOST 512

static LLVMBasicBlockRef only_successor(LLVMBasicBlockRef bb) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
  if (!t || !LLVMIsABranchInst(t) || LLVMIsConditional(t)) return NULL;
  return LLVMGetSuccessor(t, 0);
}

static int only_predecessor_is(LLVMBasicBlockRef bb, LLVMBasicBlockRef pred) {
  unsigned n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(LLVMBasicBlockAsValue(bb)); u;
       u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsATerminatorInst(user)) continue;
    if (LLVMGetInstructionParent(user) != pred) return 0;
    n++;
  }
  return n == 1;
}

int weft__jam_maskable_type(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) t = LLVMGetElementType(t);
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind:
  case LLVMHalfTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
  case LLVMPointerTypeKind:
    return 1;
  default:
    return 0;
  }
}

/* The operand of inst that is its mask when inst is a masked load or
 * store (a branch within, predicated before), else -1. */
static int mask_operand(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst)) return -1;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  if (!LLVMIsAFunction(callee)) return -1;
  const char *name = LLVMGetValueName(callee);
  if (!strncmp(name, "llvm.masked.load.", 17)) return 2;
  if (!strncmp(name, "llvm.masked.store.", 18)) return 3;
  return -1;
}

/* Whether every instruction of bb (but its branch) may run for every
 * work-item once its loads and stores are masked. */
static int predicable(LLVMBasicBlockRef bb) {
  unsigned n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i)) {
    if (i == LLVMGetBasicBlockTerminator(bb)) break;
    if (++n > PREDICATE_MOST) return 0;
    switch (LLVMGetInstructionOpcode(i)) {
    case LLVMAtomicRMW:
      /* Volatile or not: OpenCL's atomic_add and the like take volatile
       * pointers. The work-items that took the branch still do theirs
       * once each, the others only touch their own word. */
      break;
    case LLVMPHI: /* one of a run's blocks after the first: its only edge */
      if (LLVMCountIncoming(i) != 1) return 0;
      break;
    case LLVMAlloca:
    case LLVMAtomicCmpXchg:
    case LLVMFence:
    case LLVMVAArg:
      return 0;
    case LLVMLoad:
      if (LLVMGetVolatile(i) || LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic ||
          !weft__jam_maskable_type(LLVMTypeOf(i)))
        return 0;
      break;
    case LLVMStore:
      if (LLVMGetVolatile(i) || LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic ||
          !weft__jam_maskable_type(LLVMTypeOf(LLVMGetOperand(i, 0))))
        return 0;
      break;
    case LLVMCall:
      /* A sub-group function folds the lanes that come, or, where all
       * must, checks that they did (jam_sub_groups.c). __weft_sub_group_lanes()
       * is a test of its own (only a body that a jam of whole sub-groups
       * runs alone has it made 1: build.c). */
      if (weft__jam_is_lanes_query(i)) return 0;
      if (!weft__jam_is_lanes_call(i) && mask_operand(i) < 0 &&
          !weft__call_is_pure(i))
        return 0;
      break;
    default:
      break;
    }
  }
  return 1;
}

/* mask as a vector of as many lanes as vector type t's. */
static LLVMValueRef mask_for(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef mask) {
  unsigned n = LLVMGetVectorSize(t);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(t));
  LLVMValueRef m = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(mask), n));
  for (unsigned k = 0; k < n; k++)
    m = LLVMBuildInsertElement(b, m, mask, LLVMConstInt(i32, k, 0), "");
  return m;
}

/* The mark of masked_address's choice, which the jam's clones keep:
 * weft__jam_atomics_unmask finds an atomic's by it, and a branch around
 * an access already masked adds its mask to it. */
#define MASKED "weft.masked.address"

LLVMValueRef weft__jam_masked_choice(LLVMValueRef address) {
  LLVMValueRef p = address;
  if (LLVMIsAAddrSpaceCastInst(p)) p = LLVMGetOperand(p, 0);
  if (!LLVMIsASelectInst(p)) return NULL;
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(p));
  return LLVMGetMetadata(p, LLVMGetMDKindIDInContext(c, MASKED, strlen(MASKED)))
             ? p
             : NULL;
}

/* The address an access of a t at ptr (by inst) goes to under mask, at
 * the builder: ptr where mask is set, else a private word of the
 * work-item's own (an alloca at the function's start), which nothing
 * else reads. An address so chosen already (a branch within, predicated
 * first) takes both masks. */
static LLVMValueRef masked_address(LLVMBuilderRef b, LLVMValueRef inst,
                                   LLVMTypeRef t, LLVMValueRef ptr,
                                   LLVMValueRef mask) {
  LLVMValueRef within = weft__jam_masked_choice(ptr);
  if (within) {
    LLVMPositionBuilderBefore(b, within);
    LLVMSetOperand(within, 0, LLVMBuildAnd(b, mask, LLVMGetOperand(within, 0), ""));
    LLVMPositionBuilderBefore(b, inst);
    return ptr;
  }
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst));
  LLVMBuilderRef at_start = LLVMCreateBuilderInContext(LLVMGetTypeContext(t));
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  LLVMPositionBuilderBefore(at_start, LLVMGetFirstInstruction(entry));
  LLVMValueRef own = LLVMBuildAlloca(at_start, t, "");
  LLVMDisposeBuilder(at_start);
  if (LLVMTypeOf(own) != LLVMTypeOf(ptr))
    own = LLVMBuildAddrSpaceCast(b, own, LLVMTypeOf(ptr), "");
  LLVMValueRef choice = LLVMBuildSelect(b, mask, ptr, own, "");
  LLVMContextRef c = LLVMGetTypeContext(t);
  LLVMSetMetadata(choice, LLVMGetMDKindIDInContext(c, MASKED, strlen(MASKED)),
                  LLVMMDNodeInContext(c, NULL, 0));
  return choice;
}

void weft__jam_mask_access(LLVMBuilderRef b, LLVMValueRef inst,
                           LLVMValueRef mask) {
  LLVMModuleRef m = LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst)));
  int is_load = LLVMGetInstructionOpcode(inst) == LLVMLoad;
  unsigned p = is_load ? 0 : 1;
  LLVMValueRef ptr = LLVMGetOperand(inst, p);
  LLVMTypeRef t = is_load ? LLVMTypeOf(inst) : LLVMTypeOf(LLVMGetOperand(inst, 0));
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) {
    /* A scalar: the same access, of a private word where mask is off.
     * llvm.masked.load/store of one lane is a branch around it, which
     * lanes taking a branch at random mispredict half the time (NVIDIA's
     * filter keeping the odd ones of 16M ints, whole sub-groups on one
     * thread of the EPYC: 40 to 42 ms with such branches, 20.8 so). */
    LLVMValueRef access = LLVMInstructionClone(inst);
    LLVMSetOperand(access, p, masked_address(b, inst, t, ptr, mask));
    LLVMInsertIntoBuilder(b, access);
    LLVMReplaceAllUsesWith(inst, access);
    LLVMInstructionEraseFromParent(inst);
    return;
  }
  LLVMValueRef align =
      LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(m)),
                   LLVMGetAlignment(inst), 0);
  LLVMValueRef lanes = mask_for(b, t, mask);
  LLVMTypeRef types[] = {t, LLVMTypeOf(ptr)};
  if (is_load) {
    LLVMValueRef args[] = {ptr, align, lanes, LLVMGetPoison(t)};
    LLVMReplaceAllUsesWith(inst, weft__intrinsic_call(b, m, "llvm.masked.load",
                                                      types, 2, args, 4));
  } else {
    LLVMValueRef args[] = {LLVMGetOperand(inst, 0), ptr, align, lanes};
    weft__intrinsic_call(b, m, "llvm.masked.store", types, 2, args, 4);
  }
  LLVMInstructionEraseFromParent(inst);
}

/* An atomic read-modify-write run for every work-item, on its own
 * private word where mask is off (masked_address); its value there goes
 * unused (the phis after select on the condition). Atomics of different
 * work-items may go in any order, and a jam takes no body with an
 * atomic in a loop (jam.c), where one could wait for another. */
static void mask_atomic(LLVMBuilderRef b, LLVMValueRef rmw, LLVMValueRef mask) {
  LLVMValueRef ptr = LLVMGetOperand(rmw, 0);
  LLVMSetOperand(rmw, 0, masked_address(b, rmw, LLVMTypeOf(rmw), ptr, mask));
}

/* rmw's block cut before it: a branch on its mask to a block of its own
 * that runs it on the real address, and a phi of its value after. */
static void unmask(LLVMValueRef rmw) {
  LLVMValueRef address = LLVMGetOperand(rmw, 0), choice = weft__jam_masked_choice(address);
  LLVMValueRef mask = LLVMGetOperand(choice, 0), ptr = LLVMGetOperand(choice, 1);
  LLVMBasicBlockRef after = LLVMGetInstructionParent(rmw);
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(rmw));
  LLVMBasicBlockRef before = weft__block_split_before(rmw, "masked.atomic");
  LLVMBasicBlockRef run = LLVMInsertBasicBlockInContext(c, after, "masked.atomic.run");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, before);
  LLVMBuildCondBr(b, mask, run, after);
  LLVMInstructionRemoveFromParent(rmw);
  LLVMPositionBuilderAtEnd(b, run);
  if (address != choice)
    ptr = LLVMBuildAddrSpaceCast(b, ptr, LLVMTypeOf(address), "");
  LLVMInsertIntoBuilder(b, rmw);
  LLVMSetOperand(rmw, 0, ptr);
  LLVMBuildBr(b, after);
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(after));
  LLVMValueRef value = LLVMBuildPhi(b, LLVMTypeOf(rmw), "");
  LLVMValueRef values[] = {rmw, LLVMGetPoison(LLVMTypeOf(rmw))};
  LLVMBasicBlockRef from[] = {run, before};
  LLVMAddIncoming(value, values, from, 2);
  /* The phi's own use of rmw stays; every other goes to the phi. */
  for (LLVMUseRef u = LLVMGetFirstUse(rmw), next; u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef user = LLVMGetUser(u);
    if (user == value) continue;
    for (int o = 0; o < LLVMGetNumOperands(user); o++)
      if (LLVMGetOperand(user, (unsigned)o) == rmw)
        LLVMSetOperand(user, (unsigned)o, value);
  }
  if (address != choice && !LLVMGetFirstUse(address))
    LLVMInstructionEraseFromParent(address);
  if (!LLVMGetFirstUse(choice)) LLVMInstructionEraseFromParent(choice);
  LLVMDisposeBuilder(b);
}

static int masked_atomic(LLVMValueRef inst, void *unused) {
  (void)unused;
  return LLVMGetInstructionOpcode(inst) == LLVMAtomicRMW &&
         weft__jam_masked_choice(LLVMGetOperand(inst, 0)) != NULL;
}

void weft__jam_atomics_unmask(LLVMValueRef fn) {
  unsigned n = 0;
  LLVMValueRef *found = weft__instructions_where(fn, masked_atomic, NULL, &n);
  for (unsigned i = 0; i < n; i++) unmask(found[i]);
  free(found);
}

/* The masked load or store inst (mask_operand o) masked by mask too. */
static void mask_again(LLVMBuilderRef b, LLVMValueRef inst, int o,
                       LLVMValueRef mask) {
  LLVMValueRef old = LLVMGetOperand(inst, (unsigned)o);
  LLVMValueRef lanes = mask_for(b, LLVMTypeOf(old), mask);
  LLVMSetOperand(inst, (unsigned)o, LLVMBuildAnd(b, old, lanes, ""));
}

/* Moves bb's instructions (but its branch) before `before`, its loads
 * and stores masked by mask (its atomics: mask_atomic; its sub-group
 * functions: weft__jam_lanes_mask), a phi (of a run's later block) made
 * its one value. bb is left empty but for its branch. */
static void hoist(LLVMBuilderRef b, LLVMBasicBlockRef bb, LLVMValueRef before,
                  LLVMValueRef mask) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i != term; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAPHINode(i)) {
      LLVMReplaceAllUsesWith(i, LLVMGetIncomingValue(i, 0));
      LLVMInstructionEraseFromParent(i);
      continue;
    }
    LLVMInstructionRemoveFromParent(i);
    LLVMPositionBuilderBefore(b, before);
    LLVMInsertIntoBuilder(b, i);
    unsigned op = LLVMGetInstructionOpcode(i);
    /* The group's context fields that never change may be read by all
     * (jit/cpu/workitem.c reads them so: always there). */
    int invariant = op == LLVMLoad &&
                    LLVMGetMetadata(i, LLVMGetMDKindID("invariant.load", 14));
    if ((op == LLVMLoad && !invariant) || op == LLVMStore) {
      LLVMPositionBuilderBefore(b, i);
      weft__jam_mask_access(b, i, mask);
    } else if (op == LLVMAtomicRMW) {
      LLVMPositionBuilderBefore(b, i);
      mask_atomic(b, i, mask);
    } else if (weft__jam_is_lanes_call(i)) {
      weft__jam_lanes_mask(b, i, mask);
    } else if (mask_operand(i) >= 0) {
      LLVMPositionBuilderBefore(b, i);
      mask_again(b, i, mask_operand(i), mask);
    }
  }
}

/* In join, each phi's values from `yes` and `no` (blocks, or from for a
 * skipped arm) become one, selected by condition, from `from`; a phi
 * left with that edge only becomes the select. */
static void merge_phis(LLVMBuilderRef b, LLVMBasicBlockRef join,
                       LLVMBasicBlockRef yes, LLVMBasicBlockRef no,
                       LLVMBasicBlockRef from, LLVMValueRef condition,
                       LLVMValueRef before) {
  for (LLVMValueRef phi = LLVMGetFirstInstruction(join), next;
       phi && LLVMIsAPHINode(phi); phi = next) {
    next = LLVMGetNextInstruction(phi);
    LLVMValueRef a = NULL, c = NULL;
    unsigned n = LLVMCountIncoming(phi);
    LLVMValueRef values[n];
    LLVMBasicBlockRef blocks[n];
    unsigned kept = 0;
    for (unsigned e = 0; e < n; e++) {
      LLVMBasicBlockRef in = LLVMGetIncomingBlock(phi, e);
      if (in == yes) a = LLVMGetIncomingValue(phi, e);
      else if (in == no) c = LLVMGetIncomingValue(phi, e);
      else {
        values[kept] = LLVMGetIncomingValue(phi, e);
        blocks[kept++] = in;
      }
    }
    LLVMPositionBuilderBefore(b, before);
    values[kept] = LLVMBuildSelect(b, condition, a, c, "");
    blocks[kept++] = from;
    LLVMValueRef fresh = values[0];
    if (kept > 1) {
      /* A phi's incoming values cannot be removed through the C API: a
       * new phi takes its place. */
      LLVMPositionBuilderBefore(b, phi);
      fresh = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
      LLVMAddIncoming(fresh, values, blocks, kept);
    }
    LLVMReplaceAllUsesWith(phi, fresh);
    LLVMInstructionEraseFromParent(phi);
  }
}

/* Blocks in a run (an arm of a branch) at most. */
#define RUN_MOST 8

/* The run of blocks from first (entered from `from` only): each the only
 * successor of the one before and that its only predecessor, each
 * predicable, up to the first whose successor is entered otherwise too
 * (*after). Into run[]; how many, 0 when the arm is not such a run. */
static unsigned run_of(LLVMBasicBlockRef first, LLVMBasicBlockRef from,
                       LLVMBasicBlockRef *run, LLVMBasicBlockRef *after) {
  unsigned n = 0;
  for (LLVMBasicBlockRef bb = first, pred = from;;) {
    if (n == RUN_MOST || !only_predecessor_is(bb, pred) || !predicable(bb))
      return 0;
    run[n++] = bb;
    LLVMBasicBlockRef next = only_successor(bb);
    if (!next || next == first) return 0;
    if (!only_predecessor_is(next, bb)) {
      *after = next;
      return n;
    }
    pred = bb;
    bb = next;
  }
}

int weft__jam_predicate(LLVMValueRef branch) {
  LLVMBasicBlockRef from = LLVMGetInstructionParent(branch);
  LLVMBasicBlockRef yes = LLVMGetSuccessor(branch, 0), no = LLVMGetSuccessor(branch, 1);
  LLVMValueRef c = LLVMGetCondition(branch);
  LLVMBasicBlockRef yes_run[RUN_MOST], no_run[RUN_MOST], yes_after = NULL,
                    no_after = NULL, join;
  unsigned yes_n = yes == no ? 0 : run_of(yes, from, yes_run, &yes_after);
  unsigned no_n = yes == no ? 0 : run_of(no, from, no_run, &no_after);
  if (yes_n && yes_after == no) join = no, no_n = 0;
  else if (no_n && no_after == yes) join = yes, yes_n = 0;
  else if (yes_n && no_n && yes_after == no_after) join = yes_after;
  else return 0;
  if (join == from) return 0;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(
      LLVMGetModuleContext(LLVMGetGlobalParent(LLVMGetBasicBlockParent(from))));
  LLVMPositionBuilderBefore(b, branch);
  LLVMValueRef not_c = LLVMBuildNot(b, c, "");
  /* The edges that reached join: from the arm's last block (or from
   * itself, skipping) of each. */
  LLVMBasicBlockRef yes_last = yes_n ? yes_run[yes_n - 1] : from;
  LLVMBasicBlockRef no_last = no_n ? no_run[no_n - 1] : from;
  for (unsigned k = 0; k < yes_n; k++) hoist(b, yes_run[k], branch, c);
  for (unsigned k = 0; k < no_n; k++) hoist(b, no_run[k], branch, not_c);
  merge_phis(b, join, yes_last, no_last, from, c, branch);
  LLVMPositionBuilderBefore(b, branch);
  LLVMBuildBr(b, join);
  LLVMInstructionEraseFromParent(branch);
  for (unsigned k = 0; k < yes_n; k++) LLVMDeleteBasicBlock(yes_run[k]);
  for (unsigned k = 0; k < no_n; k++) LLVMDeleteBasicBlock(no_run[k]);
  LLVMDisposeBuilder(b);
  return 1;
}
