/* stream_stores.c: a plain body's stores to consecutive addresses of a
 * buffer, made non-temporal for launches too large for the caches.
 *
 * A kernel like vecadd is bound by memory: per work-item it reads a[i]
 * and b[i] and writes c[i]. A plain store first reads c[i]'s line into
 * the cache (to own it), so four lines move for three used; a
 * non-temporal store writes the whole line to memory without reading it,
 * three lines for three (on the 2-core EPYC, a C loop over 16M floats:
 * 3.8 to 4.0 ms against 4.8 to 5.1). But it also leaves the line out of
 * the cache, which a later kernel reading c would pay for where c fits
 * there. So the choice is made per launch (core/launch.c, from the bytes
 * of its buffers against the last-level cache): the body stores either
 * way, by its state parameter (unused by a plain body otherwise), and
 * the work-group function calls it with the one the launch wants
 * (workgroup.c). The streamed stores are marked (a no-alias scope no
 * access is kept apart from, which LLVM carries through vectorization)
 * and made non-temporal after O3 (address_spaces.c).
 *
 * Only stores whose address moves by one element per work-item in x
 * (c[get_global_id(0)], out[y * w + x]): vectorized, each writes whole
 * lines, which a non-temporal store wants; a scattered one would write
 * partial lines. Not a buffer the body also reads (its lines are in the
 * cache anyway), nor a store that is volatile or atomic, nor in a body
 * with atomics or fences (a non-temporal store is not ordered by them;
 * each thread ends its part of such a launch with a full fence, for the
 * host and the next kernel: backend/cpu/executor.c). */
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/passes.h"

/* The body's parameter a pointer is made from (through GEPs and casts),
 * or -1. */
static int param_of(LLVMValueRef body, LLVMValueRef p) {
  while (LLVMIsAGetElementPtrInst(p) || LLVMIsAAddrSpaceCastInst(p) ||
         LLVMIsABitCastInst(p))
    p = LLVMGetOperand(p, 0);
  if (!LLVMIsAArgument(p)) return -1;
  for (unsigned k = 0, n = LLVMCountParams(body); k < n; k++)
    if (LLVMGetParam(body, k) == p) return (int)k;
  return -1;
}

/* What the body does with each parameter a pointer comes from: read
 * through it (loads, or handed to a call or an atomic), or store through
 * it (how many times); and whether it orders its memory accesses for
 * other work-items to see (atomics, fences), which non-temporal stores
 * would not keep. One walk, before any store is split. */
typedef struct survey {
  unsigned char *reads;
  unsigned *stores;
  int orders;
} survey;

static void note_access(LLVMValueRef body, survey *s, LLVMValueRef inst) {
  if (LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst) ||
      LLVMIsAFenceInst(inst) ||
      ((LLVMIsALoadInst(inst) || LLVMIsAStoreInst(inst)) &&
       LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic))
    s->orders = 1;
  int k;
  if (LLVMIsALoadInst(inst)) {
    if ((k = param_of(body, LLVMGetOperand(inst, 0))) >= 0) s->reads[k] = 1;
  } else if (LLVMIsAStoreInst(inst)) {
    if ((k = param_of(body, LLVMGetOperand(inst, 1))) >= 0) s->stores[k]++;
  } else if (LLVMIsACallInst(inst) || LLVMIsAAtomicRMWInst(inst) ||
             LLVMIsAAtomicCmpXchgInst(inst)) {
    for (int o = 0, n = LLVMGetNumOperands(inst); o < n; o++)
      if ((k = param_of(body, LLVMGetOperand(inst, o))) >= 0) s->reads[k] = 1;
  }
}

static int survey_make(LLVMValueRef body, survey *s) {
  unsigned n = LLVMCountParams(body);
  s->reads = calloc(n + 1, 1);
  s->stores = calloc(n + 1, sizeof *s->stores);
  s->orders = 0;
  if (!s->reads || !s->stores) return WEFT_ENOMEM;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      note_access(body, s, i);
  return 0;
}

/* Whether store writes a buffer element by element in x, the body's only
 * store to a buffer it does not read (a stencil's edge and inside, stored
 * apart, would mix non-temporal stores and cached ones in a line, which
 * flushes it). */
static int streams(LLVMValueRef body, const survey *s, LLVMValueRef store) {
  LLVMValueRef p = LLVMGetOperand(store, 1);
  if (LLVMGetVolatile(store) ||
      LLVMGetOrdering(store) != LLVMAtomicOrderingNotAtomic ||
      LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != WEFT_AS_GLOBAL ||
      !LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2 ||
      !LLVMIsAArgument(LLVMGetOperand(p, 0)))
    return 0;
  int k = param_of(body, p);
  return k >= 0 && !s->reads[k] && s->stores[k] == 1 &&
         weft__steps_with_x(body, LLVMGetOperand(p, 1), WEFT_STEPS_CASTS);
}

/* A copy of store at the builder, marked to be made non-temporal once
 * vectorized (weft__streamed_stores_finish: LLVM's loop vectorizer
 * leaves a loop with a non-temporal store scalar unless it is aligned
 * to the vector, which a work-item's element is not). */
static void streamed_copy(LLVMBuilderRef b, LLVMContextRef c,
                          LLVMValueRef store) {
  LLVMValueRef copy = LLVMBuildStore(b, LLVMGetOperand(store, 0),
                                     LLVMGetOperand(store, 1));
  LLVMSetAlignment(copy, LLVMGetAlignment(store));
  static const char *const kept[] = {"tbaa", "dbg"};
  for (unsigned k = 0; k < 2; k++) {
    unsigned kind = LLVMGetMDKindIDInContext(c, kept[k], (unsigned)strlen(kept[k]));
    LLVMValueRef md = LLVMGetMetadata(store, kind);
    if (md) LLVMSetMetadata(copy, kind, md);
  }
  weft__mark_streamed_store(copy);
}

/* store runs as it is where the state is plain, and non-temporal where it
 * is WEFT_BODY_STREAMING:
 *   before: ...; br state == STREAMING ? streamed : plain
 *   plain: store; br after          streamed: store !nontemporal; br after
 *   after: the rest */
static void split(LLVMValueRef body, LLVMValueRef store) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMBasicBlockRef after = LLVMGetInstructionParent(store);
  LLVMBasicBlockRef plain =
      weft__block_split_before(LLVMGetNextInstruction(store), "plain");
  LLVMPositionBuilderAtEnd(b, plain);
  LLVMBuildBr(b, after);
  LLVMBasicBlockRef before = weft__block_split_before(store, "before");
  LLVMBasicBlockRef streamed = LLVMInsertBasicBlockInContext(c, after, "streamed");
  LLVMPositionBuilderAtEnd(b, streamed);
  streamed_copy(b, c, store);
  LLVMBuildBr(b, after);
  LLVMPositionBuilderAtEnd(b, before);
  LLVMValueRef state = weft__body_param(body, WEFT_BODY_STATE);
  LLVMValueRef is = LLVMBuildICmp(
      b, LLVMIntEQ, state,
      LLVMConstInt(LLVMTypeOf(state), WEFT_BODY_STREAMING, 0), "");
  LLVMBuildCondBr(b, is, streamed, plain);
  LLVMDisposeBuilder(b);
}

unsigned weft__stream_stores_make(LLVMValueRef body) {
  survey s;
  unsigned n = 0;
  LLVMValueRef found[64];
  if (!survey_make(body, &s) && !s.orders)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && n < 64;
           i = LLVMGetNextInstruction(i))
        if (LLVMIsAStoreInst(i) && streams(body, &s, i)) found[n++] = i;
  free(s.reads);
  free(s.stores);
  for (unsigned k = 0; k < n; k++) split(body, found[k]);
  return n;
}
