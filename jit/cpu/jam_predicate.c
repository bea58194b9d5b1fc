/* jam_predicate.c: a short branch that differs between work-items made
 * straight-line code, so that a jam of whole sub-groups can run it.
 *
 * Sub-group code ends, as a rule, with one lane writing the sub-group's
 * result: `if (get_sub_group_local_id() == 0) out[g] = sum;`. Work-items
 * take that branch differently, which a jam refuses (jam.c). Where the
 * branch skips (or chooses between) single blocks that only compute,
 * load and store, those blocks are predicated into the block before:
 * their loads and stores become masked ones (llvm.masked.load/store,
 * which touch memory only for a set mask: a work-item that does not
 * take the branch reads and writes nothing, as before), their atomic
 * read-modify-writes go to a private word where the mask is off
 * (`if (sub_group_elect()) base = atomic_add(count, n);`), their arithmetic
 * runs for every work-item (it has no effects; divisions never trap,
 * jit/ir/div_guard.c), and the phis after them select on the condition.
 * The body then means what it meant, for every work-item, jammed or
 * not. */
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/jam.h"

/* Instructions of a block at most, run by every work-item afterwards. */
#define PREDICATE_MOST 128

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
    case LLVMPHI:
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
      /* A sub-group function folds every lane's value: not for lanes
       * that do not come (and __weft_sub_group_lanes() stays a test). */
      if (!weft__call_is_pure(i) || weft__jam_is_lanes_call(i) ||
          weft__jam_is_lanes_query(i))
        return 0;
      break;
    default:
      break;
    }
  }
  return 1;
}

/* The vector type a masked access of t uses (t itself for a vector). */
static LLVMTypeRef as_vector(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? t : LLVMVectorType(t, 1);
}

/* mask, as many lanes as t's masked access has. */
static LLVMValueRef mask_for(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef mask) {
  LLVMTypeRef v = as_vector(t);
  unsigned n = LLVMGetVectorSize(v);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(t));
  LLVMValueRef m = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(mask), n));
  for (unsigned k = 0; k < n; k++)
    m = LLVMBuildInsertElement(b, m, mask, LLVMConstInt(i32, k, 0), "");
  return m;
}

static LLVMValueRef intrinsic(LLVMModuleRef m, const char *name,
                              LLVMTypeRef *types, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  return LLVMGetIntrinsicDeclaration(m, id, types, n);
}

void weft__jam_mask_access(LLVMBuilderRef b, LLVMValueRef inst,
                           LLVMValueRef mask) {
  LLVMModuleRef m = LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst)));
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMValueRef align = LLVMConstInt(i32, LLVMGetAlignment(inst), 0);
  int is_load = LLVMGetInstructionOpcode(inst) == LLVMLoad;
  LLVMValueRef ptr = LLVMGetOperand(inst, is_load ? 0 : 1);
  LLVMTypeRef t = is_load ? LLVMTypeOf(inst) : LLVMTypeOf(LLVMGetOperand(inst, 0));
  LLVMTypeRef v = as_vector(t);
  LLVMValueRef lanes = mask_for(b, t, mask);
  LLVMValueRef zero = LLVMConstInt(i32, 0, 0);
  if (is_load) {
    LLVMTypeRef types[] = {v, LLVMTypeOf(ptr)};
    LLVMValueRef fn = intrinsic(m, "llvm.masked.load", types, 2);
    LLVMValueRef args[] = {ptr, align, lanes, LLVMGetPoison(v)};
    LLVMValueRef r = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 4, "");
    if (v != t) r = LLVMBuildExtractElement(b, r, zero, "");
    LLVMReplaceAllUsesWith(inst, r);
  } else {
    LLVMValueRef value = LLVMGetOperand(inst, 0);
    if (v != t) value = LLVMBuildInsertElement(b, LLVMGetPoison(v), value, zero, "");
    LLVMTypeRef types[] = {v, LLVMTypeOf(ptr)};
    LLVMValueRef fn = intrinsic(m, "llvm.masked.store", types, 2);
    LLVMValueRef args[] = {value, ptr, align, lanes};
    LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 4, "");
  }
  LLVMInstructionEraseFromParent(inst);
}

/* The mark of mask_atomic's choice of address, which the jam's clones
 * keep: weft__jam_atomics_unmask finds it by it. */
#define MASKED "weft.masked.atomic"

/* An atomic read-modify-write run for every work-item: where mask is
 * off, on a private word of the work-item's own (an alloca at the
 * function's start), which nothing else reads; its value there goes
 * unused (the phis after select on the condition). Atomics of different
 * work-items may go in any order, and a jam takes no body with an
 * atomic in a loop (jam.c), where one could wait for another. */
static void mask_atomic(LLVMBuilderRef b, LLVMValueRef rmw, LLVMValueRef mask) {
  LLVMValueRef ptr = LLVMGetOperand(rmw, 0);
  LLVMTypeRef t = LLVMTypeOf(rmw);
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(rmw));
  LLVMBuilderRef at_start =
      LLVMCreateBuilderInContext(LLVMGetTypeContext(t));
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
  LLVMSetOperand(rmw, 0, choice);
}

/* mask_atomic's choice of address under rmw (through a cast of the
 * address space the jam may have put between), or NULL. */
static LLVMValueRef masked_choice(LLVMValueRef rmw) {
  LLVMValueRef p = LLVMGetOperand(rmw, 0);
  if (LLVMIsAAddrSpaceCastInst(p)) p = LLVMGetOperand(p, 0);
  if (!LLVMIsASelectInst(p)) return NULL;
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(p));
  return LLVMGetMetadata(p, LLVMGetMDKindIDInContext(c, MASKED, strlen(MASKED)))
             ? p
             : NULL;
}

/* rmw's block cut before it: a branch on its mask to a block of its own
 * that runs it on the real address, and a phi of its value after. */
static void unmask(LLVMValueRef rmw) {
  LLVMValueRef address = LLVMGetOperand(rmw, 0), choice = masked_choice(rmw);
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
         masked_choice(inst) != NULL;
}

void weft__jam_atomics_unmask(LLVMValueRef fn) {
  unsigned n = 0;
  LLVMValueRef *found = weft__instructions_where(fn, masked_atomic, NULL, &n);
  for (unsigned i = 0; i < n; i++) unmask(found[i]);
  free(found);
}

/* Moves bb's instructions (but its branch) before `before`, its loads
 * and stores masked by mask (its atomics: mask_atomic), and deletes bb. */
static void hoist(LLVMBuilderRef b, LLVMBasicBlockRef bb, LLVMValueRef before,
                  LLVMValueRef mask) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i != term; i = next) {
    next = LLVMGetNextInstruction(i);
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
    }
  }
}

/* In join, each phi's values from `yes` and `no` (blocks, or from for a
 * skipped block) become one, selected by condition, from `from`. */
static void merge_phis(LLVMBuilderRef b, LLVMBasicBlockRef join,
                       LLVMBasicBlockRef yes, LLVMBasicBlockRef no,
                       LLVMBasicBlockRef from, LLVMValueRef condition,
                       LLVMValueRef before) {
  for (LLVMValueRef phi = LLVMGetFirstInstruction(join); phi && LLVMIsAPHINode(phi);
       phi = LLVMGetNextInstruction(phi)) {
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
    /* A phi's incoming values cannot be removed through the C API: a
     * new phi takes its place. */
    LLVMPositionBuilderBefore(b, phi);
    LLVMValueRef fresh = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
    LLVMAddIncoming(fresh, values, blocks, kept);
    LLVMReplaceAllUsesWith(phi, fresh);
    LLVMValueRef old = phi;
    phi = fresh;
    LLVMInstructionEraseFromParent(old);
  }
}

int weft__jam_predicate(LLVMValueRef branch) {
  LLVMBasicBlockRef from = LLVMGetInstructionParent(branch);
  LLVMBasicBlockRef yes = LLVMGetSuccessor(branch, 0), no = LLVMGetSuccessor(branch, 1);
  LLVMValueRef c = LLVMGetCondition(branch);
  int yes_block = only_predecessor_is(yes, from) && predicable(yes);
  int no_block = only_predecessor_is(no, from) && predicable(no);
  LLVMBasicBlockRef join;
  if (yes_block && only_successor(yes) == no) join = no, no_block = 0;
  else if (no_block && only_successor(no) == yes) join = yes, yes_block = 0;
  else if (yes_block && no_block && only_successor(yes) &&
           only_successor(yes) == only_successor(no))
    join = only_successor(yes);
  else
    return 0;
  if (join == from || yes == no) return 0;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(
      LLVMGetModuleContext(LLVMGetGlobalParent(LLVMGetBasicBlockParent(from))));
  LLVMPositionBuilderBefore(b, branch);
  LLVMValueRef not_c = LLVMBuildNot(b, c, "");
  if (yes_block) hoist(b, yes, branch, c);
  if (no_block) hoist(b, no, branch, not_c);
  /* The edges that reached join: from yes (or from itself, skipping) and
   * from no (or from itself). */
  merge_phis(b, join, yes_block ? yes : from, no_block ? no : from, from, c,
             branch);
  LLVMPositionBuilderBefore(b, branch);
  LLVMBuildBr(b, join);
  LLVMInstructionEraseFromParent(branch);
  if (yes_block) LLVMDeleteBasicBlock(yes);
  if (no_block) LLVMDeleteBasicBlock(no);
  LLVMDisposeBuilder(b);
  return 1;
}
