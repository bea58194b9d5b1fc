/* aggregate_atomics.c: part of step 3 of passes.h: one atomic per
 * work-group where every work-item adds to (or subtracts from) one
 * counter, the CPU's form of warp-aggregated atomics.
 *
 * The pattern is stream compaction: `if (keep) out[atomic_inc(count)] =
 * v;`, every work-item of every group on one word. On the CPU each such
 * atomic is a locked add whose cache line moves between the cores at
 * nearly every call. Here the group's work-items meet at a cut instead:
 * each adds its amount to a count of the group in its context (0 if it
 * does not reach the atomic) and keeps the count before its add (its
 * rank); the last of the group to arrive adds the group's total to the
 * counter in memory with the original atomic; after a barrier, each
 * work-item's old value is what that atomic returned plus (minus, for a
 * subtraction) its rank.
 *
 * That is an interleaving the work-items could have had: each runs up to
 * its atomic, then the group's atomics happen one after another in rank
 * order, each atomically and none from elsewhere between them (the one
 * add covers them all), then each goes on. So it holds for every memory
 * order: the returned values are distinct and a prefix of the counter's
 * new range, as one-by-one atomics give. It takes a kernel that does not
 * rely on its work-items' independent progress (nothing polls: no yield
 * or sync calls, no sub-group interleaving) and where every work-item can
 * pass the cut once: the atomic's block is in no loop, and the address is
 * the same for the whole group (computed from the kernel's arguments, the
 * context's invariant fields and constants only, so the last work-item
 * can make it again even if it did not reach the atomic). Not where only
 * one work-item of a group gets to the atomic (past `if
 * (get_local_id(0) == 0)`, a reduction's last step): that is one atomic
 * a group already.
 *
 * The cut: the blocks that can reach the atomic ("before") run as they
 * did; every edge from them to a block that cannot (a work-item that
 * will not reach the atomic) goes to the cut instead, which passes its
 * work-items on to where they were going (a switch on the edge they came
 * by), and the work-items that reach the atomic to the rest of its
 * block. Values made before the cut and used after it go through memory
 * (SROA makes them values again, with the right phis). The cut is one
 * work-group barrier, so the kernel runs as two regions on either side
 * of it (or on fibers, where it would anyway), and the counting is a few
 * scalar instructions a work-item. */
#include <assert.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

/* Each site adds a barrier and a region to its kernel; its words are in
 * the group's context (kernel_abi.h). */
#define MOST_SITES WEFT_AGGREGATE_SITES
/* How deep an address's computation is followed to find it uniform. */
#define MOST_DEPTH 24

/* The group's words of one site (weft_wg_ctx's aggregate). */
enum { SLOT_COUNT, SLOT_ARRIVED, SLOT_REACHERS, SLOT_BASE, SLOTS };
_Static_assert(sizeof ((weft_wg_ctx *)0)->aggregate ==
                   WEFT_AGGREGATE_SITES * SLOTS * sizeof(uint64_t),
               "a site's words in the context");

/* Whether v is the same for every work-item of a group: made from
 * constants, the kernel's arguments and the context's invariant fields
 * by instructions without side effects or control dependence. */
static int uniform(LLVMValueRef body, LLVMValueRef v, unsigned depth) {
  if (LLVMIsAConstant(v)) return 1;
  if (LLVMIsAArgument(v)) {
    unsigned n = LLVMCountParams(body), k = 0;
    while (k < n && LLVMGetParam(body, k) != v) k++;
    return k < n - WEFT_BODY_EXTRA_PARAMS ||
           k == n - WEFT_BODY_EXTRA_PARAMS + WEFT_BODY_CTX;
  }
  if (!LLVMIsAInstruction(v) || !depth) return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMLoad: {
    unsigned kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(v)),
                                             "invariant.load", 14);
    if (!LLVMGetMetadata(v, kind)) return 0;
    break;
  }
  case LLVMGetElementPtr: case LLVMBitCast: case LLVMAddrSpaceCast:
  case LLVMIntToPtr: case LLVMPtrToInt: case LLVMTrunc: case LLVMZExt:
  case LLVMSExt: case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl:
  case LLVMLShr: case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor:
  case LLVMICmp: case LLVMSelect: case LLVMFreeze:
    break;
  default:
    return 0;
  }
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (!uniform(body, LLVMGetOperand(v, i), depth - 1)) return 0;
  return 1;
}

/* v, which uniform() accepted, made again at the builder: its leaves are
 * constants and the body's arguments, and its instructions have no side
 * effects (the context's invariant loads included), so a copy computes
 * the same value anywhere, where the original may not have run. */
static LLVMValueRef remake(LLVMBuilderRef b, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v)) return v;
  LLVMValueRef copy = LLVMInstructionClone(v);
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    LLVMSetOperand(copy, (unsigned)i, remake(b, LLVMGetOperand(v, i)));
  LLVMInsertIntoBuilder(b, copy);
  return copy;
}

/* An integer add or subtract on __global (or generic) memory at an
 * address the group shares. */
static int is_candidate(LLVMValueRef i, void *data) {
  LLVMValueRef body = data;
  if (!LLVMIsAAtomicRMWInst(i)) return 0;
  LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(i);
  LLVMValueRef ptr = LLVMGetOperand(i, 0);
  unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(ptr));
  return (op == LLVMAtomicRMWBinOpAdd || op == LLVMAtomicRMWBinOpSub) &&
         (space == WEFT_AS_GLOBAL || space == WEFT_AS_GENERIC) &&
         !LLVMIsAtomicSingleThread(i) && uniform(body, ptr, MOST_DEPTH);
}

/* Marks in seen[] the blocks reached from block from, forwards (up) or
 * backwards; work has room for g->count indices. */
static void reach(const weft_cfg *g, unsigned from, int backwards,
                  unsigned char *seen, unsigned *work) {
  unsigned top = 0;
  work[top++] = from;
  seen[from] = 1;
  while (top) {
    unsigned b = work[--top];
    if (backwards) {
      for (unsigned k = 0; k < g->num_preds[b]; k++)
        if (!seen[g->preds[b][k]]) seen[work[top++] = g->preds[b][k]] = 1;
      continue;
    }
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
    for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; k < n; k++) {
      unsigned s = weft__cfg_index(g, LLVMGetSuccessor(t, k));
      if (s < g->count && !seen[s]) seen[work[top++] = s] = 1;
    }
  }
}

/* Whether block is in a loop: it reaches itself. */
static int in_loop(LLVMValueRef body, LLVMBasicBlockRef block, int *rc) {
  weft_cfg g;
  if ((*rc = weft__cfg_make(body, &g))) return 1;
  unsigned char *seen = calloc(g.count + 1, 1);
  unsigned *work = calloc(g.count + 1, sizeof *work);
  int loops = 1;
  if (!seen || !work) *rc = WEFT_ENOMEM;
  unsigned b = weft__cfg_index(&g, block);
  LLVMValueRef t = LLVMGetBasicBlockTerminator(block);
  for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; !*rc && k < n; k++) {
    unsigned s = weft__cfg_index(&g, LLVMGetSuccessor(t, k));
    if (s < g.count && !seen[s]) reach(&g, s, 0, seen, work);
  }
  if (!*rc) loops = b == g.count || seen[b];
  free(seen);
  free(work);
  weft__cfg_free(&g);
  return loops;
}

/* Whether v is computed from the work-item's local id. */
static int from_local_id(LLVMValueRef body, LLVMValueRef v, unsigned depth) {
  if (LLVMIsAArgument(v)) {
    for (unsigned d = 0; d < 3; d++)
      if (v == weft__body_param(body, WEFT_BODY_LX + d)) return 1;
    return 0;
  }
  if (!LLVMIsAInstruction(v) || LLVMIsAPHINode(v) || LLVMIsACallInst(v) ||
      LLVMIsALoadInst(v) || !depth)
    return 0;
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (from_local_id(body, LLVMGetOperand(v, i), depth - 1)) return 1;
  return 0;
}

/* The successor of block b's branch that only the work-items whose
 * local id equals something take (`if (get_local_id(0) == 0)`), or
 * NULL. */
static LLVMBasicBlockRef narrow_way(LLVMValueRef body, LLVMBasicBlockRef b) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(b);
  if (!t || !LLVMIsABranchInst(t) || !LLVMIsConditional(t)) return NULL;
  LLVMValueRef cond = LLVMGetCondition(t);
  if (!LLVMIsAICmpInst(cond)) return NULL;
  LLVMIntPredicate p = LLVMGetICmpPredicate(cond);
  if ((p != LLVMIntEQ && p != LLVMIntNE) ||
      (!from_local_id(body, LLVMGetOperand(cond, 0), MOST_DEPTH) &&
       !from_local_id(body, LLVMGetOperand(cond, 1), MOST_DEPTH)))
    return NULL;
  return LLVMGetSuccessor(t, p == LLVMIntEQ ? 0 : 1);
}

/* Whether block target can be reached from the entry without taking the
 * edge from -> to; seen and work have room for g->count. */
static int reachable_without(const weft_cfg *g, unsigned target, unsigned from,
                             LLVMBasicBlockRef to, unsigned char *seen,
                             unsigned *work) {
  memset(seen, 0, g->count + 1);
  unsigned top = 0;
  seen[0] = 1;
  work[top++] = 0;
  while (top) {
    unsigned b = work[--top];
    if (b == target) return 1;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
    for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; k < n; k++) {
      LLVMBasicBlockRef next = LLVMGetSuccessor(t, k);
      unsigned s = weft__cfg_index(g, next);
      if (s < g->count && !seen[s] && !(b == from && next == to))
        seen[work[top++] = s] = 1;
    }
  }
  return 0;
}

/* Whether only the work-items of one local id can reach block (it lies
 * past an `if (lid == c)`): the usual last step of a reduction, one
 * atomic a group already, where a cut would only cost. */
static int one_item_reaches(LLVMValueRef body, LLVMBasicBlockRef block,
                            int *rc) {
  weft_cfg g;
  if ((*rc = weft__cfg_make(body, &g))) return 1;
  unsigned char *seen = calloc(g.count + 1, 1);
  unsigned *work = calloc(g.count + 1, sizeof *work);
  if (!seen || !work) *rc = WEFT_ENOMEM;
  unsigned target = weft__cfg_index(&g, block);
  int one = 0;
  for (unsigned i = 0; !*rc && !one && i < g.count; i++) {
    LLVMBasicBlockRef narrow = narrow_way(body, g.blocks[i]);
    one = narrow && !reachable_without(&g, target, i, narrow, seen, work);
  }
  free(seen);
  free(work);
  weft__cfg_free(&g);
  return one;
}

/* The state of one site's cut. */
typedef struct cut {
  LLVMBuilderRef b;
  LLVMContextRef context;
  LLVMValueRef body, rmw;
  weft_cfg g;
  unsigned char *before;       /* by block index: can reach the atomic */
  LLVMBasicBlockRef head, rest; /* the atomic's block, cut before it */
  LLVMBasicBlockRef entry, dispatch;
  LLVMBasicBlockRef *exits;    /* a block per (from, to) edge pair */
  LLVMBasicBlockRef *targets;  /* where each exit leads */
  unsigned *target_of;         /* an exit's index in targets */
  unsigned num_exits, num_targets;
  LLVMValueRef tag;            /* the cut's phi: 0 for the atomic, 1 + target */
  unsigned site;               /* which of the context's words */
} cut;

/* Whether block is one of the cut's exit blocks. */
static int is_exit(const cut *c, LLVMBasicBlockRef block) {
  for (unsigned i = 0; i < c->num_exits; i++)
    if (c->exits[i] == block) return 1;
  return 0;
}

static int before(const cut *c, LLVMBasicBlockRef block) {
  unsigned i = weft__cfg_index(&c->g, block);
  return i < c->g.count && c->before[i];
}

static unsigned target_index(cut *c, LLVMBasicBlockRef to) {
  unsigned t = 0;
  while (t < c->num_targets && c->targets[t] != to) t++;
  if (t == c->num_targets) c->targets[c->num_targets++] = to;
  return t;
}

/* Each edge from a block before the atomic to one that cannot reach it
 * goes through a new block to the cut. */
static int make_exits(cut *c, LLVMBasicBlockRef cut_block) {
  unsigned most = 0;
  for (unsigned i = 0; i < c->g.count; i++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(c->g.blocks[i]);
    most += t ? LLVMGetNumSuccessors(t) : 0;
  }
  c->exits = calloc(most + 1, sizeof *c->exits);
  c->targets = calloc(most + 1, sizeof *c->targets);
  c->target_of = calloc(most + 1, sizeof *c->target_of);
  if (!c->exits || !c->targets || !c->target_of) return WEFT_ENOMEM;
  for (unsigned i = 0; i < c->g.count; i++) {
    LLVMBasicBlockRef from = c->g.blocks[i];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(from);
    if (!c->before[i] || from == c->head) continue;
    for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; k < n; k++) {
      LLVMBasicBlockRef to = LLVMGetSuccessor(t, k);
      if (before(c, to) || is_exit(c, to)) continue;
      LLVMBasicBlockRef exit =
          LLVMInsertBasicBlockInContext(c->context, cut_block, "aggregate.exit");
      LLVMPositionBuilderAtEnd(c->b, exit);
      LLVMBuildBr(c->b, cut_block);
      /* A switch may go to one block by several cases: one exit for all. */
      for (unsigned m = k; m < n; m++)
        if (LLVMGetSuccessor(t, m) == to) LLVMSetSuccessor(t, m, exit);
      c->target_of[c->num_exits] = target_index(c, to);
      c->exits[c->num_exits++] = exit;
      /* Phis of to still name from: fix_target_phis mends them. */
    }
  }
  return 0;
}

/* The block an exit was made for: its only predecessor's index. */
static LLVMBasicBlockRef exit_source(const cut *c, unsigned e) {
  for (unsigned i = 0; i < c->g.count; i++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(c->g.blocks[i]);
    for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; k < n; k++)
      if (LLVMGetSuccessor(t, k) == c->exits[e]) return c->g.blocks[i];
  }
  return NULL;
}

/* A phi at the cut: from_head from the atomic's side, per_exit[e] from
 * exit e (poison where per_exit or its entry is NULL). */
static LLVMValueRef cut_phi(cut *c, LLVMBasicBlockRef cut_block,
                            LLVMTypeRef type, LLVMValueRef from_head,
                            LLVMValueRef *per_exit, const char *name) {
  LLVMPositionBuilderAtEnd(c->b, cut_block);
  if (LLVMGetFirstInstruction(cut_block))
    LLVMPositionBuilderBefore(c->b, LLVMGetFirstInstruction(cut_block));
  LLVMValueRef phi = LLVMBuildPhi(c->b, type, name);
  LLVMAddIncoming(phi, &from_head, &c->head, 1);
  for (unsigned e = 0; e < c->num_exits; e++) {
    LLVMValueRef v = per_exit && per_exit[e] ? per_exit[e] : LLVMGetPoison(type);
    LLVMAddIncoming(phi, &v, &c->exits[e], 1);
  }
  return phi;
}

/* The phis of each exit's target: their values from blocks before the
 * atomic come through the cut now, as one value from the dispatch. */
static int fix_target_phis(cut *c, LLVMBasicBlockRef cut_block) {
  LLVMValueRef *per_exit = calloc(c->num_exits + 1, sizeof *per_exit);
  if (!per_exit) return WEFT_ENOMEM;
  for (unsigned t = 0; t < c->num_targets; t++) {
    LLVMBasicBlockRef to = c->targets[t];
    for (LLVMValueRef phi = LLVMGetFirstInstruction(to);
         phi && LLVMIsAPHINode(phi);) {
      LLVMValueRef next = LLVMGetNextInstruction(phi);
      for (unsigned e = 0; e < c->num_exits; e++) {
        per_exit[e] = NULL;
        if (c->target_of[e] != t) continue;
        LLVMBasicBlockRef from = exit_source(c, e);
        for (unsigned k = 0; k < LLVMCountIncoming(phi); k++)
          if (LLVMGetIncomingBlock(phi, k) == from)
            per_exit[e] = LLVMGetIncomingValue(phi, k);
      }
      LLVMTypeRef type = LLVMTypeOf(phi);
      LLVMValueRef through = cut_phi(c, cut_block, type, LLVMGetPoison(type),
                                     per_exit, "aggregate.through");
      LLVMPositionBuilderBefore(c->b, phi);
      LLVMValueRef fixed = LLVMBuildPhi(c->b, type, "");
      for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
        LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, k);
        LLVMValueRef v = LLVMGetIncomingValue(phi, k);
        if (!before(c, from)) LLVMAddIncoming(fixed, &v, &from, 1);
      }
      LLVMAddIncoming(fixed, &through, &c->dispatch, 1);
      LLVMReplaceAllUsesWith(phi, fixed);
      LLVMInstructionEraseFromParent(phi);
      phi = next;
    }
  }
  free(per_exit);
  return 0;
}

/* This site's word k in the group's context, at the builder; loads and
 * stores of it are in a no-alias scope of their own, so that LLVM knows
 * the kernel's buffers apart from it. */
static LLVMValueRef slot(cut *c, unsigned k) {
  assert(c->site < WEFT_AGGREGATE_SITES && k < SLOTS);
  return weft__ctx_field(c->b, weft__body_param(c->body, WEFT_BODY_CTX),
                         offsetof(weft_wg_ctx, aggregate) +
                             sizeof(uint64_t) * (SLOTS * c->site + k));
}

static LLVMValueRef slot_load(cut *c, LLVMTypeRef type, unsigned k,
                              const char *name) {
  LLVMValueRef v = LLVMBuildLoad2(c->b, type, slot(c, k), name);
  weft__mark_group_word_access(v);
  return v;
}

static void slot_store(cut *c, LLVMValueRef v, unsigned k) {
  weft__mark_group_word_access(LLVMBuildStore(c->b, v, slot(c, k)));
}

/* A work-group barrier of the cut, at the atomic's line. */
static int cut_barrier(cut *c, weft_sites *sites) {
  unsigned site;
  if (weft__site_add(sites, c->rmw, &site)) return WEFT_ENOMEM;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->context);
  weft__barrier_build(c->b, LLVMConstInt(i32, 1 /* CLK_LOCAL_MEM_FENCE */, 0),
                      LLVMInstructionGetDebugLoc(c->rmw), c->body, site);
  return 0;
}

/* A new block of the cut after block after, the builder at its end. */
static LLVMBasicBlockRef next_block(cut *c, LLVMBasicBlockRef after,
                                    const char *name) {
  LLVMBasicBlockRef block =
      LLVMAppendBasicBlockInContext(c->context, c->body, name);
  LLVMMoveBasicBlockAfter(block, after);
  LLVMPositionBuilderAtEnd(c->b, block);
  return block;
}

/* The cut's work, before its one barrier: each work-item takes its rank
 * from the group's count and adds its amount (0 where it does not reach
 * the atomic); the last of the group to get there (a group's
 * work-items run one at a time between calls, so plain words do) makes
 * the one atomic on the total, at the address made again there, if any
 * of them reached the atomic. After the barrier each work-item's old
 * value is the atomic's result plus (or minus) its rank. Returns the old
 * value, the builder in the last block. */
static LLVMValueRef combine(cut *c, LLVMBasicBlockRef cut_block,
                            LLVMValueRef amount, weft_sites *sites, int *rc) {
  LLVMTypeRef type = LLVMTypeOf(amount);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->context);
  LLVMValueRef one64 = LLVMConstInt(i64, 1, 0);
  /* The words start at 0 for each group (the back end). */
  LLVMPositionBuilderAtEnd(c->b, cut_block);
  LLVMValueRef reached = LLVMBuildICmp(
      c->b, LLVMIntEQ, c->tag, LLVMConstInt(LLVMTypeOf(c->tag), 0, 0), "");
  LLVMValueRef rank = slot_load(c, type, SLOT_COUNT, "aggregate.rank");
  LLVMValueRef total = LLVMBuildAdd(c->b, rank, amount, "");
  slot_store(c, total, SLOT_COUNT);
  LLVMValueRef arrived =
      LLVMBuildAdd(c->b, slot_load(c, i64, SLOT_ARRIVED, ""), one64, "");
  slot_store(c, arrived, SLOT_ARRIVED);
  LLVMValueRef reachers = LLVMBuildAdd(
      c->b, slot_load(c, i64, SLOT_REACHERS, ""),
      LLVMBuildZExt(c->b, reached, i64, ""), "");
  slot_store(c, reachers, SLOT_REACHERS);
  LLVMValueRef ctx = weft__body_param(c->body, WEFT_BODY_CTX);
  LLVMValueRef items = NULL;
  for (unsigned d = 0; d < 3; d++) {
    LLVMValueRef size = LLVMBuildLoad2(
        c->b, i64,
        weft__ctx_field(c->b, ctx, offsetof(weft_wg_ctx, local_size) + 8 * d), "");
    weft__set_invariant(size);
    items = items ? LLVMBuildMul(c->b, items, size, "") : size;
  }
  LLVMValueRef lead = LLVMBuildAnd(
      c->b, LLVMBuildICmp(c->b, LLVMIntEQ, arrived, items, ""),
      LLVMBuildICmp(c->b, LLVMIntNE, reachers, LLVMConstNull(i64), ""), "");
  LLVMBasicBlockRef leader = next_block(c, cut_block, "aggregate.leader");
  LLVMBasicBlockRef done = next_block(c, leader, "aggregate.done");
  LLVMPositionBuilderAtEnd(c->b, cut_block);
  LLVMBuildCondBr(c->b, lead, leader, done);

  /* The one atomic: the original, on the group's total. */
  LLVMPositionBuilderAtEnd(c->b, leader);
  LLVMValueRef address = remake(c->b, LLVMGetOperand(c->rmw, 0));
  LLVMValueRef one = LLVMInstructionClone(c->rmw);
  LLVMInsertIntoBuilder(c->b, one);
  LLVMSetOperand(one, 0, address);
  LLVMSetOperand(one, 1, total);
  slot_store(c, one, SLOT_BASE);
  LLVMBuildBr(c->b, done);

  LLVMPositionBuilderAtEnd(c->b, done);
  if ((*rc = cut_barrier(c, sites))) return NULL;
  LLVMValueRef base = slot_load(c, type, SLOT_BASE, "base");
  return LLVMGetAtomicRMWBinOp(c->rmw) == LLVMAtomicRMWBinOpAdd
             ? LLVMBuildAdd(c->b, base, rank, "aggregate.old")
             : LLVMBuildSub(c->b, base, rank, "aggregate.old");
}

/* A value made before the cut, used after it: through a stack slot. */
static void demote(cut *c, LLVMValueRef x) {
  unsigned n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(x); u; u = LLVMGetNextUse(u)) n++;
  LLVMValueRef users[n + 1];
  unsigned m = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(x); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef y = LLVMGetUser(u);
    unsigned k = 0;
    while (k < m && users[k] != y) k++;
    if (k == m) users[m++] = y;
  }
  LLVMValueRef slot = NULL;
  LLVMTypeRef type = LLVMTypeOf(x);
  for (unsigned k = 0; k < m; k++) {
    LLVMValueRef y = users[k];
    LLVMBasicBlockRef at = LLVMGetInstructionParent(y);
    if (before(c, at) && !LLVMIsAPHINode(y)) continue;
    for (unsigned i = 0, ops = (unsigned)LLVMGetNumOperands(y); i < ops; i++) {
      if (LLVMGetOperand(y, i) != x) continue;
      LLVMBasicBlockRef from = at;
      if (LLVMIsAPHINode(y)) {
        from = LLVMGetIncomingBlock(y, i);
        /* Along an edge the value's block dominates: as it is. */
        if (before(c, from) || is_exit(c, from) || from == c->head) continue;
        LLVMPositionBuilderBefore(c->b, LLVMGetBasicBlockTerminator(from));
      } else if (before(c, at)) {
        continue;
      } else {
        LLVMPositionBuilderBefore(c->b, y);
      }
      if (!slot) {
        LLVMBuilderRef s = LLVMCreateBuilderInContext(c->context);
        LLVMPositionBuilderBefore(s, LLVMGetFirstInstruction(c->entry));
        slot = LLVMBuildAlloca(s, type, "aggregate.keep");
        LLVMValueRef after = LLVMGetNextInstruction(x);
        while (after && LLVMIsAPHINode(after)) after = LLVMGetNextInstruction(after);
        LLVMPositionBuilderBefore(s, after);
        LLVMBuildStore(s, x, slot);
        LLVMDisposeBuilder(s);
      }
      LLVMSetOperand(y, i, LLVMBuildLoad2(c->b, type, slot, ""));
    }
  }
}

/* Every value of the blocks before the cut used after it is demoted. */
static void demote_all(cut *c) {
  for (unsigned i = 0; i < c->g.count; i++) {
    if (!c->before[i] || c->g.blocks[i] == c->entry) continue;
    for (LLVMValueRef x = LLVMGetFirstInstruction(c->g.blocks[i]); x;
         x = LLVMGetNextInstruction(x))
      if (LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMVoidTypeKind) demote(c, x);
  }
}

/* The cut for one atomic. */
static int cut_at(LLVMBuilderRef b, LLVMValueRef body, LLVMValueRef rmw,
                  unsigned site, weft_sites *sites) {
  cut c = {.b = b, .context = LLVMGetModuleContext(LLVMGetGlobalParent(body)),
           .body = body, .rmw = rmw, .site = site};
  LLVMValueRef amount = LLVMGetOperand(rmw, 1);
  c.head = weft__block_split_before(rmw, "aggregate.before");
  c.rest = LLVMGetInstructionParent(rmw);
  LLVMPositionBuilderAtEnd(b, c.head);
  LLVMValueRef head_branch = LLVMBuildBr(b, c.rest);
  int rc = weft__cfg_make(body, &c.g);
  c.before = calloc(c.g.count + 1, 1);
  unsigned *work = calloc(c.g.count + 1, sizeof *work);
  if (!rc && (!c.before || !work)) rc = WEFT_ENOMEM;
  if (!rc) reach(&c.g, weft__cfg_index(&c.g, c.head), 1, c.before, work);
  free(work);
  c.entry = LLVMGetEntryBasicBlock(body);
  LLVMBasicBlockRef cut_block = NULL;
  if (!rc) {
    cut_block = LLVMAppendBasicBlockInContext(c.context, body, "aggregate.cut");
    LLVMMoveBasicBlockAfter(cut_block, c.head);
    rc = make_exits(&c, cut_block);
  }
  if (!rc) {
    LLVMInstructionEraseFromParent(head_branch);
    LLVMPositionBuilderAtEnd(b, c.head);
    LLVMBuildBr(b, cut_block);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c.context);
    LLVMValueRef *tags = calloc(c.num_exits + 1, sizeof *tags);
    LLVMValueRef *zeros = calloc(c.num_exits + 1, sizeof *zeros);
    if (!tags || !zeros) rc = WEFT_ENOMEM;
    for (unsigned e = 0; !rc && e < c.num_exits; e++) {
      tags[e] = LLVMConstInt(i32, 1 + c.target_of[e], 0);
      zeros[e] = LLVMConstNull(LLVMTypeOf(amount));
    }
    if (!rc) {
      c.tag = cut_phi(&c, cut_block, i32, LLVMConstInt(i32, 0, 0), tags,
                      "aggregate.tag");
      /* A constant amount is the tag's to know: no value to keep. */
      amount = LLVMIsAConstant(amount)
                   ? NULL
                   : cut_phi(&c, cut_block, LLVMTypeOf(amount), amount, zeros,
                             "aggregate.amount");
    }
    free(tags);
    free(zeros);
  }
  LLVMValueRef old = NULL;
  if (!rc && !amount) {
    LLVMValueRef given = LLVMGetOperand(rmw, 1);
    LLVMPositionBuilderAtEnd(b, cut_block);
    amount = LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntEQ, c.tag, LLVMConstInt(LLVMTypeOf(c.tag), 0, 0), ""),
        given, LLVMConstNull(LLVMTypeOf(given)), "aggregate.amount");
  }
  if (!rc) old = combine(&c, cut_block, amount, sites, &rc);
  if (!rc) {
    /* The builder is at the end of the cut's last block: the dispatch. */
    c.dispatch = LLVMGetInsertBlock(b);
    LLVMValueRef sw = LLVMBuildSwitch(b, c.tag, c.rest, c.num_targets);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c.context);
    for (unsigned t = 0; t < c.num_targets; t++)
      LLVMAddCase(sw, LLVMConstInt(i32, 1 + t, 0), c.targets[t]);
    rc = fix_target_phis(&c, cut_block);
  }
  if (!rc) {
    LLVMReplaceAllUsesWith(rmw, old);
    LLVMInstructionEraseFromParent(rmw);
    demote_all(&c);
  }
  free(c.before);
  free(c.exits);
  free(c.targets);
  free(c.target_of);
  weft__cfg_free(&c.g);
  return rc;
}

int weft__aggregate_atomics(LLVMValueRef body, weft_sites *sites,
                            unsigned *cuts) {
  *cuts = 0;
  /* A kernel another calls may be called where only some work-items are:
   * its cut would be a barrier they do not all reach. */
  if (LLVMGetFirstUse(body) || weft__calls_sync(body) ||
      weft__has_sub_groups(body))
    return 0;
  unsigned n = 0;
  LLVMValueRef *rmws = weft__instructions_where(body, is_candidate, body, &n);
  if (!rmws) return n ? WEFT_ENOMEM : 0;
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(body)));
  int rc = 0;
  for (unsigned i = 0; i < n && *cuts < MOST_SITES && !rc; i++) {
    LLVMBasicBlockRef block = LLVMGetInstructionParent(rmws[i]);
    if (in_loop(body, block, &rc) || rc || one_item_reaches(body, block, &rc) ||
        rc)
      continue;
    rc = cut_at(b, body, rmws[i], (*cuts)++, sites);
  }
  LLVMDisposeBuilder(b);
  free(rmws);
  return rc;
}
