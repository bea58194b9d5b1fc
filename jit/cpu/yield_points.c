/* yield_points.c: step 3a of passes.h, yield points in loops that poll
 * memory.
 *
 * A work-group that spins until another group changes a word (a lock of
 * the user's own, a flag) would hold its thread for ever if the other group
 * waits for the same thread. A loop whose exit depends on a volatile or
 * atomic load, or on an atomic read-modify-write, gets a call to the back
 * end's yield in its latch: the kernel then runs cooperatively, and the
 * spinning group lets the others run at every turn of the loop (a
 * compare-and-swap's exit polls only when it expects a constant, as a
 * lock does; a lock-free retry does not wait for anyone). In a loop
 * that makes atomic accesses or fences, a plain load of global memory
 * counts as a poll too: it is read again every turn, and another group
 * may be the one to change it. Loops that only do atomics (a histogram)
 * keep running: their exit does not depend on what the atomics read (nor
 * on global memory); nor does a loop whose latch waits, polls or yields
 * already (the primitives' wait loops).
 *
 * Loops are found by their back edges (cfg.c); a loop's blocks are those
 * that reach its latch without passing its header. Before the yield the
 * loop notes which work-item yields (ctx->yield_item): the back end's spin
 * timeout takes a group whose loops are got through by one work-item after
 * another for one that progresses. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

static int is_atomic(LLVMValueRef v) {
  if (LLVMIsALoadInst(v) || LLVMIsAStoreInst(v))
    return LLVMGetVolatile(v) || LLVMGetOrdering(v) != LLVMAtomicOrderingNotAtomic;
  return LLVMIsAAtomicRMWInst(v) || LLVMIsAAtomicCmpXchgInst(v) ||
         LLVMIsAFenceInst(v);
}

/* A plain load of memory other work-groups may write: __global, or
 * generic (which may point there). */
static int loads_global(LLVMValueRef v) {
  if (!LLVMIsALoadInst(v)) return 0;
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(v, 0)));
  return as == WEFT_AS_GLOBAL || as == WEFT_AS_GENERIC;
}

/* A walk back from a loop's exit condition through what it is computed
 * from (seen: each value once). */
typedef struct poll_walk {
  const weft_cfg *g;
  const unsigned char *body;
  int plain_loads_poll;
  LLVMValueRef seen[256];
  unsigned num_seen;
} poll_walk;

/* A compare-and-swap waits for another group only when it expects a
 * value that group must put back (a lock's 0): one that expects what it
 * last read is a lock-free retry (a float's atomic add), which fails only
 * while others succeed. */
static int cas_waits(LLVMValueRef v) {
  return LLVMIsAConstant(LLVMGetOperand(v, 1)) != NULL;
}

/* What a loop's exit may depend on for it to poll: a volatile or atomic
 * read; and, in a loop that makes atomic accesses or fences (after which
 * a plain load is read again every turn), a plain load of global memory
 * too (a lock whose loop also reads a flag, a loop that stores
 * atomically while it waits). */
static int reads_shared_memory(const poll_walk *w, LLVMValueRef v) {
  if (LLVMIsAAtomicCmpXchgInst(v)) return cas_waits(v);
  if (LLVMIsAAtomicRMWInst(v)) return 1;
  if (LLVMIsALoadInst(v) && is_atomic(v)) return 1;
  return w->plain_loads_poll && loads_global(v);
}

/* Whether the loop makes any atomic access or fence. */
static int has_atomics(const weft_cfg *g, const unsigned char *body) {
  for (unsigned i = 0; i < g->count; i++) {
    if (!body[i]) continue;
    for (LLVMValueRef v = LLVMGetFirstInstruction(g->blocks[i]); v;
         v = LLVMGetNextInstruction(v))
      if (is_atomic(v)) return 1;
  }
  return 0;
}

/* How many of v's first operands decide what it gives. A retrying
 * compare-and-swap's result (the old value and whether it swapped) comes
 * from memory and the value it expects, never from the one it would
 * store: a new value loaded from global memory at each turn (the CTS's
 * c11 compare-exchange tests store oldValues[tid]) makes no poll of the
 * retry, which waits for no one. */
static int operands_that_decide(LLVMValueRef v) {
  if (LLVMIsAAtomicCmpXchgInst(v)) return 2; /* the address, the expected */
  return LLVMGetNumOperands(v);
}

/* Whether v, computed inside the loop, depends on a read that polls. A
 * phi depends on its operands and on the branches that choose among them
 * (a && or || in the loop's condition). */
static int depends_on_poll(poll_walk *w, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v)) return 0;
  if (w->body[weft__cfg_index(w->g, LLVMGetInstructionParent(v))] == 0) return 0;
  for (unsigned i = 0; i < w->num_seen; i++)
    if (w->seen[i] == v) return 0;
  /* Huge chains: give up, no yield. */
  if (w->num_seen == sizeof w->seen / sizeof *w->seen) return 0;
  w->seen[w->num_seen++] = v;
  if (reads_shared_memory(w, v)) return 1;
  for (int k = 0, n = operands_that_decide(v); k < n; k++)
    if (depends_on_poll(w, LLVMGetOperand(v, k))) return 1;
  for (unsigned k = 0, n = LLVMIsAPHINode(v) ? LLVMCountIncoming(v) : 0; k < n; k++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(v, k));
    if (t && LLVMIsABranchInst(t) && LLVMIsConditional(t) &&
        depends_on_poll(w, LLVMGetCondition(t)))
      return 1;
  }
  return 0;
}

/* Whether a branch out of the loop depends on polled memory. */
static int is_polling(const weft_cfg *g, const unsigned char *body) {
  poll_walk w = {.g = g, .body = body, .plain_loads_poll = has_atomics(g, body)};
  for (unsigned i = 0; i < g->count; i++) {
    if (!body[i]) continue;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[i]);
    if (!t || !LLVMIsABranchInst(t) || !LLVMIsConditional(t)) continue;
    int exits = 0;
    for (unsigned k = 0; k < LLVMGetNumSuccessors(t); k++)
      exits |= !body[weft__cfg_index(g, LLVMGetSuccessor(t, k))];
    w.num_seen = 0;
    if (exits && depends_on_poll(&w, LLVMGetCondition(t))) return 1;
  }
  return 0;
}

/* Whether the block calls the runtime's wait, poll or yield: a loop whose
 * latch does lets the other groups run at every turn already (a Weft
 * primitive's wait loop), and a yield after the wait would put the group
 * back in the queue each time it was woken. */
static int lets_others_run(LLVMBasicBlockRef block) {
  static const char *const calls[] = {WEFT_WAIT_SYMBOL, WEFT_POLL_SYMBOL,
                                      WEFT_YIELD_SYMBOL};
  for (LLVMValueRef i = LLVMGetFirstInstruction(block); i;
       i = LLVMGetNextInstruction(i))
    for (size_t k = 0; k < sizeof calls / sizeof *calls; k++)
      if (weft__is_call_to(i, calls[k])) return 1;
  return 0;
}

/* ctx->yield_item for the work-item running the body (kernel_abi.h). */
static void note_item(LLVMBuilderRef b, LLVMValueRef body, LLVMValueRef ctx) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(ctx)));
  LLVMValueRef key = LLVMConstInt(i64, 1, 0);
  static const unsigned shift[3] = {0, 21, 42};
  for (unsigned d = 0; d < 3; d++) {
    LLVMValueRef id = LLVMBuildZExtOrBitCast(
        b, weft__body_param(body, WEFT_BODY_LX + d), i64, "");
    key = LLVMBuildAdd(b, key,
                       LLVMBuildShl(b, id, LLVMConstInt(i64, shift[d], 0), ""),
                       "");
  }
  LLVMBuildStore(b, key,
                 weft__ctx_field(b, ctx, offsetof(weft_wg_ctx, yield_item)));
}

static void insert_yield(LLVMBasicBlockRef latch, LLVMValueRef body) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMValueRef fn =
      weft__runtime_function(module, WEFT_YIELD_SYMBOL, NULL, &ptr, 1, NULL);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(context);
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(latch));
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  note_item(b, body, ctx);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &ctx, 1, "");
  LLVMDisposeBuilder(b);
}

/* What the walk over back edges fills in: the latches that get a
 * yield, and room to mark a loop's blocks. */
typedef struct yield_walk {
  unsigned char *loop;
  unsigned *work;
  unsigned char *yields;
} yield_walk;

static int back_edge(const weft_cfg *g, unsigned header, unsigned latch,
                     void *data) {
  yield_walk *w = data;
  weft__cfg_loop_blocks(g, header, latch, w->loop, w->work);
  if (!lets_others_run(g->blocks[latch]) && is_polling(g, w->loop))
    w->yields[latch] = 1;
  return 0;
}

/* Each polling loop's latch gets a yield. */
int weft__yield_points_insert(LLVMValueRef body) {
  weft_cfg g;
  int rc = weft__cfg_make(body, &g);
  unsigned n = g.count;
  yield_walk w = {calloc(n + 1, 1), calloc(n + 1, sizeof *w.work),
                  calloc(n + 1, 1)};
  if (!rc && (!w.loop || !w.work || !w.yields)) rc = WEFT_ENOMEM;
  if (!rc) rc = weft__cfg_back_edges(&g, back_edge, &w);
  for (unsigned i = 0; !rc && i < n; i++)
    if (w.yields[i]) insert_yield(g.blocks[i], body);
  free(w.loop);
  free(w.work);
  free(w.yields);
  weft__cfg_free(&g);
  return rc;
}
