/* jam.c: step 4's jammed bodies: one call runs `width` consecutive
 * work-items (x, x+1, ...) of a body whose control flow is the same for
 * all of them, instruction by instruction.
 *
 * LLVM vectorizes only innermost loops, so the work-item loop of a kernel
 * with a loop of its own (a matrix product's k, n-body's j, clpeak's
 * chains) stays scalar: one work-item's dependent chain after another.
 * When every branch of the body depends only on values the work-items
 * share (the arguments, the group's sizes and ids, what is computed from
 * them alone), all of them take the same path, and the body can be
 * "unrolled and jammed" over the work-items: each instruction whose value
 * may differ between work-items is cloned once per work-item, side by
 * side, each clone reading its own work-item's operands; the rest is
 * emitted once. LLVM's SLP vectorizer then makes the side-by-side clones
 * one vector operation (consecutive loads and stores, FMA chains), and
 * where it cannot, the clones still give the core `width` independent
 * chains instead of one.
 *
 * Why running the work-items instruction by instruction is allowed: in
 * OpenCL, work-items of a group that exchange data through memory must
 * meet at a barrier (or use atomics); without either, a write by one and
 * an access by another to the same place is a data race, whose result is
 * undefined. What is jammed (a body without barriers, or one region of a
 * region body: jam_scope.c) has no barrier and no atomic (it is refused
 * otherwise; whole sub-groups without loops may hold read-modify-writes,
 * each a lane's own, done in lane order: an order a run may give), and
 * each work-item's own accesses keep their order, so any
 * program without a race sees what the one-after-another order gives.
 *
 * Branches: those on shared values are taken by all alike; choices that
 * differ but are cheap both ways are selects (build.c runs simplifycfg
 * first); loops that work-items leave at different turns run masked
 * (jam_loops.c). Vectors narrower than a register are taken apart into
 * lanes (jam_lanes.c).
 *
 * A jam of whole sub-groups (jam_sub_groups.c) runs the sub-group
 * functions on the clones' values, and takes short branches that differ
 * between work-items as masked loads and stores (jam_predicate.c).
 *
 * Refused (the caller keeps the plain loop): a body with no loop (the
 * loop vectorizer does better there; whole sub-groups are jammed
 * anyway), any other branch on a value that
 * differs between work-items, atomics (but read-modify-writes in whole
 * sub-groups without loops: jammable()), fences, calls into the runtime or
 * any function that is not an LLVM intrinsic or free of memory effects, a
 * by-value struct parameter, or a body too large once multiplied.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/jam.h"

/* Instructions of the blocks jammed times width, at most (code size, and build
 * time: clpeak's three single-precision kernels of 8 to 128 work-items
 * side by side take 0.27 to 0.39 s to build on the EPYC, 0.07 to 0.11
 * without jamming). */
#define JAM_MOST_INSTRUCTIONS 16384
/* Bytes of private variables of the body, times width, at most: a
 * jammed call's stack frame holds every work-item's. */
#define JAM_MOST_PRIVATE_BYTES 32768
/* Branches made straight-line code (jam_predicate.c) for one jam, at most. */
#define JAM_MOST_PREDICATED 8

/* One of the branches that refused j's body made straight-line code
 * (jam_predicate.c), the last first: a branch within another's arm
 * comes after it, and the arm is a run of blocks only once it is. */
static int predicate_one(const weft_jam *j) {
  for (unsigned k = j->num_diverging; k-- > 0;)
    if (weft__jam_predicate(j->diverging[k])) return 1;
  return 0;
}

static unsigned hash(LLVMValueRef v, unsigned capacity) {
  uintptr_t p = (uintptr_t)v;
  return (unsigned)((p >> 4) * 2654435761u) & (capacity - 1);
}

unsigned weft__jam_index(const weft_jam *j, LLVMValueRef v) {
  for (unsigned h = hash(v, j->capacity);; h = (h + 1) & (j->capacity - 1)) {
    if (j->keys[h] == v) return j->slots[h];
    if (!j->keys[h]) return j->count;
  }
}

static void add(weft_jam *j, LLVMValueRef v) {
  unsigned h = hash(v, j->capacity);
  while (j->keys[h]) h = (h + 1) & (j->capacity - 1);
  j->keys[h] = v;
  j->slots[h] = j->count;
  j->olds[j->count++] = v;
}

static int index_all(weft_jam *j, unsigned n) {
  j->capacity = 16;
  while (j->capacity < 2 * n) j->capacity *= 2;
  j->keys = calloc(j->capacity, sizeof *j->keys);
  j->slots = calloc(j->capacity, sizeof *j->slots);
  j->olds = calloc(n, sizeof *j->olds);
  j->varying = calloc(n, 1);
  j->finished = calloc(n, 1);
  if (!j->keys || !j->slots || !j->olds || !j->varying || !j->finished)
    return 0;
  for (unsigned p = 0; p < LLVMCountParams(j->body); p++)
    add(j, LLVMGetParam(j->body, p));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(j->body); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    add(j, LLVMBasicBlockAsValue(bb));
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      add(j, i);
  }
  return 1;
}

/* What one build (one width) made: the clones and lanes, the masked
 * loops' flags, what the first pass finished. */
static void build_free(weft_jam *j) {
  for (size_t k = 0; j->lanes && k < (size_t)j->count * j->width; k++)
    free(j->lanes[k]);
  free(j->lanes);
  free(j->copies);
  j->lanes = NULL;
  j->copies = NULL;
  for (unsigned k = 0; k < j->num_loops; k++) {
    free(j->loops[k].active);
    free(j->loops[k].stay);
    free(j->loops[k].read_masks);
    j->loops[k].active = j->loops[k].stay = j->loops[k].read_masks = NULL;
  }
  if (j->finished) memset(j->finished, 0, j->count);
}

/* Room for a build width work-items wide; 0 when out of memory. */
static int build_prepare(weft_jam *j, unsigned width) {
  j->width = width;
  j->num_steps = 0;
  j->copies = calloc((size_t)j->count * width, sizeof *j->copies);
  j->lanes = calloc((size_t)j->count * width, sizeof *j->lanes);
  int ok = j->copies && j->lanes;
  for (unsigned k = 0; k < j->num_loops; k++) {
    weft_jam_loop *l = &j->loops[k];
    l->active = calloc(width, sizeof *l->active);
    l->stay = calloc(width, sizeof *l->stay);
    l->read_masks = calloc((size_t)l->num_reads * width + 1,
                           sizeof *l->read_masks);
    ok = ok && l->active && l->stay && l->read_masks;
  }
  return ok;
}

static void jam_free(weft_jam *j) {
  build_free(j);
  free(j->keys);
  free(j->slots);
  free(j->olds);
  free(j->varying);
  free(j->finished);
}

/* ------------------------------------------------------------ what may */

static int is_intrinsic_call(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  return LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee) != 0;
}

static int is_debug_intrinsic(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst) || !is_intrinsic_call(inst)) return 0;
  size_t length;
  const char *name = LLVMGetValueName2(LLVMGetCalledValue(inst), &length);
  return length > 9 && !strncmp(name, "llvm.dbg.", 9);
}

/* Whether the body may be jammed at all, instruction by instruction. */
static int allowed(LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
  case LLVMFence:
  case LLVMVAArg:
  case LLVMInvoke:
  case LLVMCallBr:
  case LLVMIndirectBr:
  case LLVMResume:
  case LLVMLandingPad:
    return 0;
  case LLVMLoad:
  case LLVMStore:
    return !LLVMGetVolatile(inst) && LLVMGetOrdering(inst) == LLVMAtomicOrderingNotAtomic;
  case LLVMCall:
    return !LLVMIsAInlineAsm(LLVMGetCalledValue(inst)) &&
           (is_intrinsic_call(inst) || weft__call_is_pure(inst));
  default:
    return 1;
  }
}

unsigned weft__jam_memory(LLVMValueRef inst) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMAlloca:
    return WEFT_JAM_ALLOCATES;
  case LLVMLoad:
    return LLVMGetVolatile(inst) ? WEFT_JAM_READS | WEFT_JAM_WRITES
                                 : WEFT_JAM_READS;
  case LLVMStore:
    return WEFT_JAM_WRITES;
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
  case LLVMFence:
    return WEFT_JAM_READS | WEFT_JAM_WRITES;
  case LLVMCall:
    return weft__call_is_pure(inst) ? 0 : WEFT_JAM_READS | WEFT_JAM_WRITES;
  default:
    return 0;
  }
}

/* Whether inst's value is its own for each work-item even when its
 * operands are shared: it writes memory or has effects, or is memory (an
 * alloca: each work-item's private variables). A plain load is as its
 * address: work-items that read one place get one value (another
 * work-item's write there between their reads, with no barrier in a
 * jam, would be a data race), so it is read once for all (`s +=
 * total[k]` in a loop whose work-items leave at different turns took a
 * masked load per work-item and turn). */
static int own_per_item(LLVMValueRef inst) {
  if (weft__jam_is_lanes_call(inst)) return 1;
  unsigned memory = weft__jam_memory(inst);
  return memory != 0 && memory != WEFT_JAM_READS;
}

/* Marks what may differ between work-items: the x local id, what is
 * their own, and what is computed from either, to a fixed point (phis
 * of loops see their latch's value on a later round). */
static void mark_varying(weft_jam *j, unsigned lx) {
  j->varying[lx] = 1;
  for (int changed = 1; changed;) {
    changed = 0;
    for (unsigned k = 0; k < j->count; k++) {
      LLVMValueRef v = j->olds[k];
      if (j->varying[k] || !LLVMIsAInstruction(v) ||
          weft__jam_blocks_shared(j, v))
        continue;
      int differs = own_per_item(v);
      unsigned n = LLVMIsAPHINode(v) ? LLVMCountIncoming(v) : (unsigned)LLVMGetNumOperands(v);
      for (unsigned o = 0; o < n && !differs; o++) {
        LLVMValueRef op = LLVMIsAPHINode(v) ? LLVMGetIncomingValue(v, o)
                                            : LLVMGetOperand(v, o);
        unsigned i = weft__jam_index(j, op);
        differs = i < j->count && j->varying[i];
      }
      if (differs) j->varying[k] = changed = 1;
    }
  }
}

/* Whether the jammed function runs inst (in a block its scope reaches). */
static int reached(const weft_jam *j, LLVMValueRef inst) {
  return weft__jam_scope_reaches(j->scope, LLVMGetInstructionParent(inst));
}

/* Whether every branch is on a shared value and every instruction is
 * allowed (else, where only branches on values that differ between
 * work-items refuse it, those in j->diverging). */
static int jammable(weft_jam *j) {
  /* Whole sub-groups without loops may hold atomic read-modify-writes
   * (a sub-group's elected lane counting for it, jam_predicate.c): with
   * no loop, no work-item can wait for another's, and the lanes' atomics
   * in lane order are one of the orders a run may give. */
  int compute;
  int rmw_ok = j->sub_group_width && !weft__jam_scope_loops(j->scope, &compute);
  for (unsigned k = 0; k < j->count; k++) {
    LLVMValueRef v = j->olds[k];
    if (!LLVMIsAInstruction(v) || !reached(j, v)) continue;
    int rmw = LLVMGetInstructionOpcode(v) == LLVMAtomicRMW;
    if ((!allowed(v) && !(rmw && rmw_ok)) ||
        (j->stating && LLVMIsAReturnInst(v) &&
         !LLVMIsAConstantInt(LLVMGetOperand(v, 0)))) {
      j->num_diverging = 0; /* predication would not help */
      return 0;
    }
    if (!LLVMIsATerminatorInst(v) || LLVMIsAReturnInst(v) ||
        LLVMIsAUnreachableInst(v))
      continue;
    LLVMValueRef condition;
    if (LLVMIsABranchInst(v)) {
      if (!LLVMIsConditional(v)) continue;
      condition = LLVMGetCondition(v);
    } else if (LLVMIsASwitchInst(v)) {
      condition = LLVMGetOperand(v, 0);
    } else {
      return 0;
    }
    unsigned i = weft__jam_index(j, condition);
    if (i < j->count && j->varying[i] && !weft__jam_loops_is_exit(j, v)) {
      if (!LLVMIsABranchInst(v)) {
        j->num_diverging = 0;
        return 0;
      }
      if (j->num_diverging < WEFT_JAM_MOST_DIVERGING)
        j->diverging[j->num_diverging++] = v;
    }
  }
  return !j->num_diverging;
}


static int has_byval_param(LLVMValueRef body) {
  unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
  for (unsigned p = 0; p < LLVMCountParams(body); p++)
    if (LLVMGetEnumAttributeAtIndex(body, p + 1, kind)) return 1;
  return 0;
}

/* ------------------------------------------------------------ building */

LLVMValueRef weft__jam_copy(const weft_jam *j, LLVMValueRef v, unsigned item) {
  unsigned i = weft__jam_index(j, v);
  if (i == j->count) return v;
  return j->copies[(size_t)i * j->width + (j->varying[i] ? item : 0)];
}

LLVMBasicBlockRef weft__jam_block(const weft_jam *j, LLVMBasicBlockRef bb) {
  return LLVMValueAsBasicBlock(weft__jam_copy(j, LLVMBasicBlockAsValue(bb), 0));
}

/* How many clones the body's value k has: one per work-item where it
 * differs between them, but a terminator, shared (its condition is,
 * jammable() made sure, or it is a masked loop's test). */
static unsigned clones(const weft_jam *j, unsigned k) {
  return j->varying[k] && !LLVMIsATerminatorInst(j->olds[k]) ? j->width : 1;
}

/* The jammed function: the body's parameters, no result. */
static void declare(weft_jam *j, const char *name) {
  LLVMModuleRef module = LLVMGetGlobalParent(j->body);
  unsigned n = LLVMCountParams(j->body);
  LLVMTypeRef params[n ? n : 1];
  for (unsigned p = 0; p < n; p++) params[p] = LLVMTypeOf(LLVMGetParam(j->body, p));
  LLVMTypeRef result = j->stating ? LLVMInt32TypeInContext(j->context)
                                  : LLVMVoidTypeInContext(j->context);
  j->fn = LLVMAddFunction(module, name, LLVMFunctionType(result, params, n, 0));
  LLVMSetLinkage(j->fn, LLVMInternalLinkage);
  weft__copy_attributes(j->body, j->fn, LLVMAttributeFunctionIndex);
  for (unsigned p = 0; p < n; p++) weft__copy_attributes(j->body, j->fn, p + 1);
  /* No subprogram of its own: its lines are the body's, and it is
   * inlined where the body would be (debug_info.c). */
}

/* Places the clones of inst (once, or once per work-item) at the
 * builder; operands are set afterwards (remap), when all exist. */
static void clone_instruction(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst) {
  unsigned i = weft__jam_index(j, inst);
  for (unsigned item = 0; item < clones(j, i); item++) {
    LLVMValueRef c;
    if (LLVMIsAPHINode(inst)) {
      c = LLVMBuildPhi(b, LLVMTypeOf(inst), "");
    } else if (LLVMIsAReturnInst(inst)) {
      c = j->stating ? LLVMBuildRet(b, LLVMGetOperand(inst, 0)) : LLVMBuildRetVoid(b);
    } else {
      c = LLVMInstructionClone(inst);
      LLVMInsertIntoBuilder(b, c);
    }
    j->copies[(size_t)i * j->width + item] = c;
  }
}

/* The jammed function's block a phi's incoming edge e comes from. */
static LLVMBasicBlockRef incoming_block(weft_jam *j, LLVMValueRef phi, unsigned e) {
  return weft__jam_block(j, LLVMGetIncomingBlock(phi, e));
}

/* The builder placed where a value for old's operand o (of work-item
 * item's clone c) can be made: before c, or, for a phi's incoming value,
 * at the end of the block it comes from. */
static void place_for_operand(weft_jam *j, LLVMBuilderRef b, LLVMValueRef old,
                              LLVMValueRef c, unsigned o) {
  if (LLVMIsAPHINode(old))
    LLVMPositionBuilderBefore(
        b, LLVMGetBasicBlockTerminator(incoming_block(j, old, o)));
  else
    LLVMPositionBuilderBefore(b, c);
}

/* The clones' operands: each work-item's clone takes its own work-item's
 * operands (a split vector made whole again where it is used whole);
 * blocks become the jammed function's. */
static void remap(weft_jam *j, LLVMBuilderRef b) {
  for (unsigned k = 0; k < j->count; k++) {
    LLVMValueRef old = j->olds[k];
    if (!LLVMIsAInstruction(old) || LLVMIsAReturnInst(old) ||
        is_debug_intrinsic(old) || !reached(j, old))
      continue;
    for (unsigned item = 0; item < clones(j, k); item++) {
      size_t at = (size_t)k * j->width + item;
      if (j->lanes[at]) {
        if (LLVMIsAPHINode(old)) weft__jam_lanes_phi(j, b, old, item);
        continue;
      }
      LLVMValueRef c = j->copies[at];
      if (j->finished[k]) continue; /* made whole in the first pass */
      if (LLVMIsAPHINode(old)) {
        for (unsigned e = 0; e < LLVMCountIncoming(old); e++) {
          if (!weft__jam_scope_reaches(j->scope, LLVMGetIncomingBlock(old, e)))
            continue; /* an edge the state never takes */
          place_for_operand(j, b, old, c, e);
          LLVMValueRef value =
              weft__jam_whole(j, b, LLVMGetIncomingValue(old, e), item);
          value = weft__jam_loops_carry(j, b, old, LLVMGetIncomingBlock(old, e),
                                        item, value, c);
          LLVMBasicBlockRef from = incoming_block(j, old, e);
          LLVMAddIncoming(c, &value, &from, 1);
        }
        continue;
      }
      for (int o = 0; o < LLVMGetNumOperands(old); o++) {
        LLVMValueRef op = LLVMGetOperand(old, o);
        if (weft__jam_is_split(j, op, item)) place_for_operand(j, b, old, c, 0);
        LLVMSetOperand(c, (unsigned)o, weft__jam_whole(j, b, op, item));
      }
    }
  }
}

/* The blocks of the body in reverse post-order from its entry (every
 * value's definition before its uses outside phis), through the blocks
 * its scope reaches, then the others; returns how many are reached. */
static unsigned block_order(weft_jam *j, LLVMBasicBlockRef *order, unsigned count) {
  unsigned char seen[j->count];
  memset(seen, 0, j->count);
  LLVMBasicBlockRef stack[count];
  unsigned next[count], depth = 0, done = 0;
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(j->body);
  seen[weft__jam_index(j, LLVMBasicBlockAsValue(entry))] = 1;
  stack[depth] = entry;
  next[depth++] = 0;
  LLVMBasicBlockRef post[count];
  while (depth) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(stack[depth - 1]);
    unsigned successors = term ? LLVMGetNumSuccessors(term) : 0;
    if (next[depth - 1] < successors) {
      LLVMBasicBlockRef s = LLVMGetSuccessor(term, next[depth - 1]++);
      unsigned i = weft__jam_index(j, LLVMBasicBlockAsValue(s));
      if (seen[i] || !weft__jam_scope_reaches(j->scope, s)) continue;
      seen[i] = 1;
      stack[depth] = s;
      next[depth++] = 0;
      continue;
    }
    post[done++] = stack[--depth];
  }
  for (unsigned i = 0; i < done; i++) order[i] = post[done - 1 - i];
  unsigned n = done;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(j->body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    if (!seen[weft__jam_index(j, LLVMBasicBlockAsValue(bb))]) order[n++] = bb;
  assert(n == count);
  return done;
}

/* Makes the clones of the instructions of bb at the builder, a varying
 * vector's lanes apart; a block the scope does not reach (dead, or
 * another region's) is left unreachable. */
static void clone_block(weft_jam *j, LLVMBuilderRef b, LLVMBasicBlockRef bb,
                        int reached) {
  if (!reached) {
    LLVMBuildUnreachable(b);
    return;
  }
  weft__jam_loops_begin(j, b, bb);
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i)) {
    if (is_debug_intrinsic(i)) continue;
    unsigned k = weft__jam_index(j, i);
    if (weft__jam_sub_group_call(j, b, i) || weft__jam_id(j, b, i) ||
        weft__jam_block_mask(j, i) || weft__jam_masked_vector(j, b, i))
      continue;
    if (weft__jam_loops_is_exit(j, i)) {
      weft__jam_loops_exit(j, b, i);
      j->finished[k] = 1;
    } else if (!(j->varying[k] && weft__jam_split(j, b, i))) {
      clone_instruction(j, b, i);
      weft__jam_loops_note_read(j, i);
    }
  }
}

/* 0 when the jam may not be used (weft__jam_ids_guard). */
static int build(weft_jam *j, unsigned lx) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(j->context);
  for (unsigned p = 0; p < LLVMCountParams(j->body); p++)
    j->copies[(size_t)p * j->width] = LLVMGetParam(j->fn, p);
  unsigned blocks = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(j->body); bb;
       bb = LLVMGetNextBasicBlock(bb), blocks++)
    j->copies[(size_t)weft__jam_index(j, LLVMBasicBlockAsValue(bb)) * j->width] =
        LLVMBasicBlockAsValue(LLVMAppendBasicBlockInContext(j->context, j->fn, ""));
  /* Work-item k of the call is x + k. */
  LLVMPositionBuilderAtEnd(b, LLVMGetEntryBasicBlock(j->fn));
  LLVMValueRef x = LLVMGetParam(j->fn, lx);
  for (unsigned item = 0; item < j->width; item++)
    j->copies[(size_t)lx * j->width + item] =
        item ? LLVMBuildNUWAdd(b, x, LLVMConstInt(LLVMTypeOf(x), item, 0), "")
             : x;
  LLVMBasicBlockRef order[blocks];
  unsigned reached = block_order(j, order, blocks);
  for (unsigned n = 0; n < blocks; n++) {
    LLVMPositionBuilderAtEnd(b, weft__jam_block(j, order[n]));
    clone_block(j, b, order[n], n < reached);
  }
  remap(j, b);
  weft__jam_loops_finish(j, b);
  int guarded = weft__jam_ids_guard(j, b);
  LLVMDisposeBuilder(b);
  return guarded;
}

/* Whether the jam of scope at width holds no more than the limits. */
static int fits(const weft_jam_scope *scope, LLVMTargetDataRef layout,
                unsigned width) {
  size_t values = weft__jam_scope_size(scope);
  size_t bytes = weft__jam_scope_private_bytes(scope, layout);
  return values * width <= JAM_MOST_INSTRUCTIONS &&
         bytes <= JAM_MOST_PRIVATE_BYTES / width;
}

static unsigned widest(const weft_jam *j, unsigned vector_bits);

/* The analysis proper (j indexed): the varying values, the masked loops,
 * whether jammable; shifts of ids shared where shifts says so. */
static int analyse_with(weft_jam *j, unsigned lx, int shifts) {
  int found;
  memset(j->varying, 0, j->count);
  j->num_loops = 0;
  j->num_diverging = 0;
  weft__jam_blocks_find(j, shifts);
  mark_varying(j, lx);
  /* (A loop that lanes leave at different turns holds no sub-group
   * function that every lane must come to: jam_loops.c refuses it.) */
  while ((found = weft__jam_loops_find(j)) > 0) mark_varying(j, lx);
  return found == 0 && jammable(j);
}

/* Whether the body (of state) can be jammed at all: j and scope hold the
 * analysis afterwards, which no width changes (freed by the caller,
 * whatever it says). */
static int analyse(weft_jam *j, weft_jam_scope *scope, LLVMValueRef body,
                   int state, unsigned *lx) {
  int compute;
  j->scope = scope;
  j->body = body;
  j->context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  *lx = LLVMCountParams(body) - WEFT_BODY_EXTRA_PARAMS + WEFT_BODY_LX;
  /* Whole sub-groups are jammed for their functions, loops or not. */
  if (!weft__jam_scope_make(body, state, scope) || has_byval_param(body) ||
      (!weft__jam_scope_loops(scope, &compute) && !j->sub_group_width) ||
      !index_all(j, weft__jam_scope_values(scope)))
    return 0;
  /* Shared shifts of ids cap the jam's width at their blocks
   * (jam_blocks.c): taken where they make the body jammable, spare
   * masked loops, or cost no width. */
  unsigned shifts = weft__jam_blocks_find(j, 1);
  unsigned cap = weft__jam_blocks_widest(j);
  int ok = analyse_with(j, *lx, 0);
  if (!shifts) return ok;
  unsigned loops = j->num_loops, wide = ok ? widest(j, j->vector_bits) : 0;
  if (ok && !loops && cap < wide) return ok;
  if (analyse_with(j, *lx, 1) &&
      (!ok || j->num_loops < loops || (j->num_loops == loops && cap >= wide)))
    return 1;
  return analyse_with(j, *lx, 0);
}

/* Lanes of arithmetic side by side. Where the loops only compute,
 * enough independent chains to keep two FMA units of four cycles'
 * latency busy: 8 registers' worth (clpeak's dependent chains on the
 * EPYC, AVX-512: 4.3 GFLOP/s a work-item at a time, 265 at 64 lanes, 430
 * at 128). Where they read memory, fewer: a naive matrix product's loads
 * took 13.7 ms at 8 and 16 lanes, 17.5 at 64. Where work-items leave a
 * loop at different turns (jam_loops.c), the jammed loop runs until the
 * last of them leaves: 4 registers' worth (mandelbrot: 21.4 ms at 16
 * lanes, 17.6 at 32 and 64, 24.0 at 128). */
#define JAM_CHAINS 8
#define JAM_MASKED_CHAINS 4
#define JAM_MEMORY_LANES 16

/* How many work-items the widest jam of an analysed body runs. */
static unsigned widest(const weft_jam *j, unsigned vector_bits) {
  int compute;
  /* (Whole sub-groups are jammed without loops too: as memory's.) */
  if (!weft__jam_scope_loops(j->scope, &compute)) compute = 0;
  unsigned register_lanes = vector_bits / 32;
  unsigned lanes = compute ? JAM_CHAINS * register_lanes : JAM_MEMORY_LANES;
  if (j->num_loops && lanes > JAM_MASKED_CHAINS * register_lanes)
    lanes = JAM_MASKED_CHAINS * register_lanes;
  unsigned width = lanes / weft__jam_scope_widest_vector(j->scope);
  unsigned least = j->sub_group_width ? j->sub_group_width : 2;
  if (width < least) return least;
  return width - width % least; /* whole sub-groups */
}

/* The jammed function of j's analysis at its prepared width, named name
 * (its atomics unmasked with unmask: weft__jam_atomics_unmask); NULL,
 * nothing left, when it may not be used (build). */
static LLVMValueRef make_jam(weft_jam *j, unsigned lx, const char *name,
                             int unmask) {
  declare(j, name);
  if (!build(j, lx)) {
    LLVMDeleteFunction(j->fn);
    return NULL;
  }
  if (unmask) weft__jam_atomics_unmask(j->fn);
  return j->fn;
}

/* Analyses body (of state) into j, which says how (its vector bits,
 * sub-group width...): where j runs whole sub-groups, short branches
 * that differ between its work-items made straight-line code first (a
 * lane writing the sub-group's result; a filter's lanes that keep an
 * element, counting themselves), one at a time, the body analysed again
 * after each; *tries says how many. */
static int analyse_predicated(weft_jam *j, weft_jam_scope *scope,
                              LLVMValueRef body, int state, unsigned *lx,
                              unsigned *tries) {
  const weft_jam how = *j;
  for (*tries = 0;; ++*tries) {
    *j = how;
    int ok = analyse(j, scope, body, state, lx);
    if (ok || !how.sub_group_width || *tries == JAM_MOST_PREDICATED ||
        !predicate_one(j))
      return ok;
    jam_free(j);
    weft__jam_scope_free(scope);
  }
}

LLVMValueRef weft__jam_plain(const weft_jam *j) {
  const weft_jam how = {.vector_bits = j->vector_bits,
                        .sub_group_width = j->sub_group_width,
                        .no_blocks = 1,
                        .no_steps = 1};
  weft_jam p = how;
  weft_jam_scope scope;
  unsigned lx, tries = 0;
  LLVMValueRef fn = NULL, copy = NULL;
  char name[strlen(j->name) + 8];
  snprintf(name, sizeof name, "%s.plain", j->name);
  int ok = analyse(&p, &scope, j->body, j->state, &lx);
  /* Without the blocks, a branch on what they share (a sub-group's id)
   * differs between work-items: made straight-line code in a copy of
   * the body, whose jam is being made from it. */
  if (!ok && how.sub_group_width && p.num_diverging) {
    jam_free(&p);
    weft__jam_scope_free(&scope);
    copy = weft__function_clone(j->body, "weft.jam.plain.body");
    p = how;
    ok = analyse_predicated(&p, &scope, copy, j->state, &lx, &tries);
  }
  if (ok && build_prepare(&p, j->width))
    fn = make_jam(&p, lx, name, j->unmask || tries);
  jam_free(&p);
  weft__jam_scope_free(&scope);
  if (copy) LLVMDeleteFunction(copy);
  return fn;
}

unsigned weft__jam_tiers(LLVMValueRef body, LLVMTargetDataRef layout,
                         unsigned vector_bits, int state,
                         unsigned sub_group_width, int stating,
                         const char *prefix, weft_jammed *tiers) {
  weft_jam j = {.vector_bits = vector_bits,
                .sub_group_width = sub_group_width,
                .stating = stating};
  weft_jam_scope scope;
  unsigned lx, n = 0, tries;
  int ok = analyse_predicated(&j, &scope, body, state, &lx, &tries);
  if (ok) {
    j.state = state; /* for weft__jam_plain */
    j.unmask = tries != 0;
    unsigned widths[WEFT_JAM_TIERS] = {
        widest(&j, vector_bits), sub_group_width ? sub_group_width : 8};
    /* No wider than the blocks whose shifts it shares, and a power of 2
     * (a call of 2^k starting on a multiple of it lies in one block:
     * jam_blocks.c). */
    unsigned most = weft__jam_blocks_widest(&j);
    for (unsigned t = 0; most != UINT32_MAX && t < WEFT_JAM_TIERS; t++) {
      while (widths[t] & (widths[t] - 1)) widths[t] &= widths[t] - 1;
      if (widths[t] > most) widths[t] = most;
    }
    for (unsigned t = 0; t < WEFT_JAM_TIERS; t++) {
      if (n && widths[t] >= tiers[n - 1].width) break;
      if (!fits(&scope, layout, widths[t])) continue; /* a narrower may */
      if (!build_prepare(&j, widths[t])) break;
      char name[strlen(prefix) + 32];
      snprintf(name, sizeof name, "%s.jam%d.%u%s", prefix, state, widths[t],
               sub_group_width ? ".lanes" : "");
      j.name = name;
      j.fallback = NULL;
      if (!make_jam(&j, lx, name, j.unmask)) break;
      tiers[n++] = (weft_jammed){.fn = j.fn, .width = widths[t]};
      build_free(&j);
    }
  }
  jam_free(&j);
  weft__jam_scope_free(&scope);
  /* The body runs its work-items one at a time elsewhere. */
  if (tries) weft__jam_atomics_unmask(body);
  return n;
}
