/* aggregate_atomics.c: part of step 3 of passes.h: one atomic per
 * work-group and counter where every work-item adds to (or subtracts
 * from) one counter, or one of a small table of them (reduce by key:
 * `atomic_inc(&bins[v & 15])`), the CPU's form of warp-aggregated
 * atomics.
 *
 * The pattern is stream compaction: `if (keep) out[atomic_inc(count)] =
 * v;`, every work-item of every group on one word. On the CPU each such
 * atomic is a locked add whose cache line moves between the cores at
 * nearly every call. Here the group's work-items meet at a cut instead:
 * each adds its amount to its counter's count of the group in its
 * context (0 if it does not reach the atomic) and keeps the count before
 * its add (its rank); the last of the group to arrive adds each reached
 * counter's total to the counter in memory with the original atomic;
 * after a barrier, each work-item's old value is what its counter's
 * atomic returned plus (minus, for a subtraction) its rank.
 *
 * That is an interleaving the work-items could have had: each runs up to
 * its atomic, then the group's atomics happen one after another in
 * counter and rank order, each atomically and none from elsewhere
 * between those on one counter (its one add covers them all), then each
 * goes on. So it holds for every memory
 * order: the returned values are distinct and a prefix of the counter's
 * new range, as one-by-one atomics give. It takes a kernel that does not
 * rely on its work-items' independent progress (nothing polls: no yield
 * or sync calls, no sub-group interleaving) and where every work-item can
 * pass the cut once: the atomic's block is in no loop, and the address is
 * one of at most WEFT_AGGREGATE_KEYS the whole group shares, or of
 * WEFT_AGGREGATE_WIDE_KEYS where the atomic's result goes unused (a
 * histogram's bins: no old value per counter to keep, only its count)
 * (aggregate_address.c: computed from the kernel's arguments, the
 * context's invariant fields and constants only, but for a last index of
 * a small known range, so the last work-item can make each again even
 * if it did not reach the atomic). Not where only one work-item of a
 * group gets to the atomic (past `if (get_local_id(0) == 0)`, a
 * reduction's last step): that is one atomic a group already.
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

#include "jit/cpu/aggregate_address.h"
#include "jit/cpu/passes.h"
#include "jit/ir/ir.h"
#include "weft/weft.h"

/* Each site adds a barrier and a region to its kernel; its words are in
 * the group's context (kernel_abi.h). */
#define MOST_SITES WEFT_AGGREGATE_SITES
/* How deep a branch's condition is followed to the local id. */
#define MOST_DEPTH 24
/* The group's words of one site with keys counters, in weft_wg_ctx's
 * aggregate: each counter's count (what its work-items add up), then,
 * where the atomic's result is used (olds), each one's old value (its
 * atomic's result), then a mask of the counters some work-item reached
 * (a bit each), then how many work-items came. */
static unsigned mask_words(unsigned keys) { return (keys + 63) / 64; }
static unsigned words_of(unsigned keys, int olds) {
  return keys * (olds ? 2 : 1) + mask_words(keys) + 1;
}
_Static_assert(WEFT_AGGREGATE_WORDS >=
                   WEFT_AGGREGATE_SITES * (2 * WEFT_AGGREGATE_KEYS + 2),
               "the context holds every site's words");
_Static_assert(WEFT_AGGREGATE_WORDS >= WEFT_AGGREGATE_WIDE_KEYS +
                                           WEFT_AGGREGATE_WIDE_KEYS / 64 + 1,
               "the context holds a wide table's words");

/* Whether the atomic's result (the old value) is used. */
static int result_used(LLVMValueRef rmw) { return LLVMGetFirstUse(rmw) != NULL; }

/* The most counters of an atomic's table: fewer where each one's old
 * value is kept. */
static unsigned most_keys(LLVMValueRef rmw) {
  return result_used(rmw) ? WEFT_AGGREGATE_KEYS : WEFT_AGGREGATE_WIDE_KEYS;
}

/* Whether generic pointer p points into __global memory: a __local
 * object is the group's own, which the aggregation's one atomic would
 * reach through a pointer made again where the group's local base is not
 * (CTS c11_atomics' atomic_fetch_add on a local atomic_int in a generic
 * function crashed); a root it cannot see through (a phi of generic
 * pointers) is not taken either. */
static int generic_into_global(LLVMValueRef p) {
  LLVMValueRef root = weft__pointer_root(p);
  return LLVMGetPointerAddressSpace(LLVMTypeOf(root)) == WEFT_AS_GLOBAL;
}

/* An integer add or subtract on __global memory (or generic pointing
 * there) at one of a few counters the group shares. */
static int is_candidate(LLVMValueRef i, void *data) {
  LLVMValueRef body = data;
  if (!LLVMIsAAtomicRMWInst(i)) return 0;
  LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(i);
  LLVMValueRef ptr = LLVMGetOperand(i, 0);
  unsigned space = LLVMGetPointerAddressSpace(LLVMTypeOf(ptr));
  weft_counters counters;
  return (op == LLVMAtomicRMWBinOpAdd || op == LLVMAtomicRMWBinOpSub) &&
         (space == WEFT_AS_GLOBAL ||
          (space == WEFT_AS_GENERIC && generic_into_global(ptr))) &&
         !LLVMIsAtomicSingleThread(i) &&
         weft__counters_of(body, ptr, most_keys(i), &counters);
}

/* Marks in seen[] the blocks reached from block from, forwards or
 * backwards, not taking the edge skip_from -> skip_to (NULL: none);
 * work has room for g->count indices. */
static void reach(const weft_cfg *g, unsigned from, int backwards,
                  LLVMBasicBlockRef skip_from, LLVMBasicBlockRef skip_to,
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
      LLVMBasicBlockRef next = LLVMGetSuccessor(t, k);
      unsigned s = weft__cfg_index(g, next);
      if (s < g->count && !seen[s] &&
          !(g->blocks[b] == skip_from && next == skip_to))
        seen[work[top++] = s] = 1;
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
    if (s < g.count && !seen[s]) reach(&g, s, 0, NULL, NULL, seen, work);
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
    if (!narrow) continue;
    /* Not reached from the entry without taking the narrow way. */
    memset(seen, 0, g.count + 1);
    reach(&g, 0, 0, g.blocks[i], narrow, seen, work);
    one = !seen[target];
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
  LLVMBasicBlockRef *sources;  /* each exit's from */
  LLVMBasicBlockRef *targets;  /* where each exit leads */
  unsigned *target_of;         /* an exit's index in targets */
  unsigned num_exits, num_targets;
  LLVMValueRef tag;            /* the cut's phi: 0 for the atomic, 1 + target */
  weft_counters counters;      /* what the atomic adds to */
  int olds;                    /* its result is used: old values kept */
  unsigned words;              /* the first of the site's context words */
} cut;

/* Where the site's mask and count of arrivals start among its words. */
static unsigned mask_at(const cut *c) {
  return c->counters.keys * (c->olds ? 2 : 1);
}
static unsigned arrivals_at(const cut *c) {
  return mask_at(c) + mask_words(c->counters.keys);
}

/* The mask word that holds counter key's bit (key an i64), and the
 * bit's place in it. */
static LLVMValueRef mask_word(cut *c, LLVMValueRef key) {
  return LLVMBuildLShr(c->b, key, LLVMConstInt(LLVMTypeOf(key), 6, 0), "");
}
static LLVMValueRef mask_bit(cut *c, LLVMValueRef key) {
  return LLVMBuildAnd(c->b, key, LLVMConstInt(LLVMTypeOf(key), 63, 0), "");
}

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
  c->sources = calloc(most + 1, sizeof *c->sources);
  c->targets = calloc(most + 1, sizeof *c->targets);
  c->target_of = calloc(most + 1, sizeof *c->target_of);
  if (!c->exits || !c->sources || !c->targets || !c->target_of)
    return WEFT_ENOMEM;
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
      c->sources[c->num_exits] = from;
      c->exits[c->num_exits++] = exit;
      /* Phis of to still name from: fix_target_phis mends them. */
    }
  }
  return 0;
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
        LLVMBasicBlockRef from = c->sources[e];
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

/* This site's word k + index (an i64, or NULL for 0) in the group's
 * context, at the builder; loads and stores of it are in a no-alias scope
 * of their own, so that LLVM knows the kernel's buffers apart from it. */
static LLVMValueRef word(cut *c, unsigned k, LLVMValueRef index) {
  assert(c->words + k < WEFT_AGGREGATE_WORDS);
  LLVMValueRef ctx = weft__body_param(c->body, WEFT_BODY_CTX);
  LLVMValueRef at = weft__ctx_field(
      c->b, ctx, offsetof(weft_wg_ctx, aggregate) + 8 * (c->words + k));
  if (!index) return at;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->context);
  return LLVMBuildInBoundsGEP2(c->b, i64, at, &index, 1, "");
}

static LLVMValueRef word_load(cut *c, LLVMTypeRef type, unsigned k,
                              LLVMValueRef index, const char *name) {
  LLVMValueRef v = LLVMBuildLoad2(c->b, type, word(c, k, index), name);
  weft__mark_group_word_access(v);
  return v;
}

static void word_store(cut *c, LLVMValueRef v, unsigned k, LLVMValueRef index) {
  weft__mark_group_word_access(LLVMBuildStore(c->b, v, word(c, k, index)));
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

/* The group's work-items in the context's sizes. */
static LLVMValueRef group_items(cut *c) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->context);
  LLVMValueRef ctx = weft__body_param(c->body, WEFT_BODY_CTX), items = NULL;
  for (unsigned d = 0; d < 3; d++) {
    LLVMValueRef size = weft__ctx_invariant(
        c->b, i64, ctx, offsetof(weft_wg_ctx, local_size) + 8 * d);
    items = items ? LLVMBuildMul(c->b, items, size, "") : size;
  }
  return items;
}

/* The last work-item to arrive: for each counter some work-item reached
 * (its bit in the mask words), the original atomic on its count, at its
 * address made again; the results in the site's words where they are
 * used. Ends at done. */
static void lead(cut *c, LLVMBasicBlockRef leader, LLVMBasicBlockRef done) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->context);
  LLVMTypeRef type = LLVMTypeOf(LLVMGetOperand(c->rmw, 1));
  unsigned keys = c->counters.keys;
  LLVMBasicBlockRef loop = next_block(c, leader, "aggregate.counter");
  LLVMBasicBlockRef add = next_block(c, loop, "aggregate.add");
  LLVMBasicBlockRef next = next_block(c, add, "aggregate.next");
  LLVMPositionBuilderAtEnd(c->b, leader);
  LLVMBuildBr(c->b, loop);
  LLVMPositionBuilderAtEnd(c->b, loop);
  LLVMValueRef k = LLVMBuildPhi(c->b, i64, "aggregate.key");
  LLVMValueRef zero = LLVMConstNull(i64), one = LLVMConstInt(i64, 1, 0);
  LLVMAddIncoming(k, &zero, &leader, 1);
  LLVMValueRef mask = word_load(c, i64, mask_at(c), mask_word(c, k), "");
  LLVMValueRef bit = LLVMBuildAnd(
      c->b, LLVMBuildLShr(c->b, mask, mask_bit(c, k), ""), one, "");
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntNE, bit, zero, ""), add, next);

  LLVMPositionBuilderAtEnd(c->b, add);
  LLVMValueRef address = weft__counter_address(
      c->b, LLVMGetOperand(c->rmw, 0), &c->counters, k);
  LLVMValueRef total = word_load(c, type, 0, k, "total");
  LLVMValueRef one_atomic = LLVMInstructionClone(c->rmw);
  LLVMInsertIntoBuilder(c->b, one_atomic);
  LLVMSetOperand(one_atomic, 0, address);
  LLVMSetOperand(one_atomic, 1, total);
  if (c->olds) word_store(c, one_atomic, keys, k);
  LLVMBuildBr(c->b, next);

  LLVMPositionBuilderAtEnd(c->b, next);
  LLVMValueRef k1 = LLVMBuildAdd(c->b, k, one, "");
  LLVMAddIncoming(k, &k1, &next, 1);
  LLVMBuildCondBr(c->b,
                  LLVMBuildICmp(c->b, LLVMIntULT, k1, LLVMConstInt(i64, keys, 0), ""),
                  loop, done);
}

/* The cut's work, before its one barrier: each work-item takes its rank
 * from its counter's count in the group and adds its amount (0 where it
 * does not reach the atomic); the last of the group to get there (a
 * group's work-items run one at a time between calls, so plain words do)
 * makes one atomic per counter that work-items reached, on their total
 * (lead). After the barrier each work-item's old value is its counter's
 * atomic's result plus (or minus) its rank. key: the work-item's counter
 * (an i64). Returns the old value (poison where it goes unused), the
 * builder in the last block. */
static LLVMValueRef combine(cut *c, LLVMBasicBlockRef cut_block,
                            LLVMValueRef amount, LLVMValueRef key,
                            weft_sites *sites, int *rc) {
  LLVMTypeRef type = LLVMTypeOf(amount);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->context);
  unsigned keys = c->counters.keys;
  /* The words start at 0 for each group (the back end). */
  LLVMPositionBuilderAtEnd(c->b, cut_block);
  LLVMValueRef reached = LLVMBuildICmp(
      c->b, LLVMIntEQ, c->tag, LLVMConstInt(LLVMTypeOf(c->tag), 0, 0), "");
  LLVMValueRef rank = word_load(c, type, 0, key, "aggregate.rank");
  word_store(c, LLVMBuildAdd(c->b, rank, amount, ""), 0, key);
  LLVMValueRef at = mask_word(c, key);
  LLVMValueRef bit = LLVMBuildShl(c->b, LLVMBuildZExt(c->b, reached, i64, ""),
                                  mask_bit(c, key), "");
  word_store(c, LLVMBuildOr(c->b, word_load(c, i64, mask_at(c), at, ""), bit, ""),
             mask_at(c), at);
  LLVMValueRef arrived = LLVMBuildAdd(
      c->b, word_load(c, i64, arrivals_at(c), NULL, ""), LLVMConstInt(i64, 1, 0),
      "");
  word_store(c, arrived, arrivals_at(c), NULL);
  LLVMValueRef last =
      LLVMBuildICmp(c->b, LLVMIntEQ, arrived, group_items(c), "");
  LLVMBasicBlockRef leader = next_block(c, cut_block, "aggregate.leader");
  LLVMBasicBlockRef done = next_block(c, leader, "aggregate.done");
  LLVMPositionBuilderAtEnd(c->b, cut_block);
  LLVMBuildCondBr(c->b, last, leader, done);
  lead(c, leader, done);

  LLVMPositionBuilderAtEnd(c->b, done);
  if ((*rc = cut_barrier(c, sites))) return NULL;
  if (!c->olds) return LLVMGetPoison(type);
  LLVMValueRef base = word_load(c, type, keys, key, "base");
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
                  const weft_counters *counters, unsigned words,
                  weft_sites *sites) {
  cut c = {.b = b, .context = LLVMGetModuleContext(LLVMGetGlobalParent(body)),
           .body = body, .rmw = rmw, .counters = *counters,
           .olds = result_used(rmw), .words = words};
  LLVMValueRef key = counters->key;
  LLVMValueRef amount = LLVMGetOperand(rmw, 1);
  c.head = weft__block_split_before(rmw, "aggregate.before");
  c.rest = LLVMGetInstructionParent(rmw);
  LLVMPositionBuilderAtEnd(b, c.head);
  LLVMValueRef head_branch = LLVMBuildBr(b, c.rest);
  int rc = weft__cfg_make(body, &c.g);
  c.before = calloc(c.g.count + 1, 1);
  unsigned *work = calloc(c.g.count + 1, sizeof *work);
  if (!rc && (!c.before || !work)) rc = WEFT_ENOMEM;
  if (!rc)
    reach(&c.g, weft__cfg_index(&c.g, c.head), 1, NULL, NULL, c.before, work);
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
      /* Counter 0 for work-items that do not reach the atomic. */
      if (key) {
        for (unsigned e = 0; e < c.num_exits; e++)
          zeros[e] = LLVMConstNull(LLVMTypeOf(key));
        key = cut_phi(&c, cut_block, LLVMTypeOf(key), key, zeros,
                      "aggregate.counter");
      }
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
  if (!rc) {
    LLVMTypeRef i64 = LLVMInt64TypeInContext(c.context);
    LLVMPositionBuilderAtEnd(b, cut_block);
    key = key ? LLVMBuildIntCast2(b, key, i64, 0, "") : LLVMConstNull(i64);
    old = combine(&c, cut_block, amount, key, sites, &rc);
  }
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
  free(c.sources);
  free(c.targets);
  free(c.target_of);
  weft__cfg_free(&c.g);
  return rc;
}

int weft__aggregate_atomics(LLVMValueRef body, weft_sites *sites,
                            unsigned *words) {
  *words = 0;
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
  for (unsigned i = 0, cuts = 0; i < n && cuts < MOST_SITES && !rc; i++) {
    LLVMBasicBlockRef block = LLVMGetInstructionParent(rmws[i]);
    if (in_loop(body, block, &rc) || rc || one_item_reaches(body, block, &rc) ||
        rc)
      continue;
    weft_counters counters;
    weft__counters_of(body, LLVMGetOperand(rmws[i], 0), most_keys(rmws[i]),
                      &counters);
    unsigned need = words_of(counters.keys, result_used(rmws[i]));
    if (*words + need > WEFT_AGGREGATE_WORDS) continue;
    rc = cut_at(b, body, rmws[i], &counters, *words, sites);
    *words += need;
    cuts++;
  }
  LLVMDisposeBuilder(b);
  free(rmws);
  return rc;
}
