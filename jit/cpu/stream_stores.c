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
#include <string.h>

#include "jit/cpu/passes.h"

/* At most this many instructions are followed to tell an index's kind. */
#define INDEX_DEPTH 16

static int is_param(LLVMValueRef body, LLVMValueRef v, unsigned p) {
  return v == weft__body_param(body, p);
}

/* The value a select on a constant takes (get_local_id(d), lowered
 * before the CFG is simplified: select true, lx, (select ...)). */
static LLVMValueRef chosen(LLVMValueRef select) {
  return LLVMGetOperand(
      select, LLVMConstIntGetZExtValue(LLVMGetOperand(select, 0)) ? 1 : 2);
}

/* Whether v is the same for work-items that differ only in x: made of
 * constants, arguments, the y and z local ids and invariant loads
 * (the group's sizes and ids) without effects. */
static int x_free(LLVMValueRef body, LLVMValueRef v, unsigned depth) {
  if (LLVMIsAConstant(v)) return 1;
  if (LLVMIsAArgument(v)) return !is_param(body, v, WEFT_BODY_LX);
  if (!LLVMIsAInstruction(v) || depth == 0) return 0;
  if (LLVMIsASelectInst(v) && LLVMIsAConstantInt(LLVMGetOperand(v, 0)))
    return x_free(body, chosen(v), depth - 1);
  if (LLVMIsALoadInst(v))
    return LLVMGetMetadata(v, LLVMGetMDKindID("invariant.load", 14)) &&
           x_free(body, LLVMGetOperand(v, 0), depth - 1);
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMAnd:
  case LLVMOr: case LLVMXor: case LLVMZExt: case LLVMSExt: case LLVMTrunc:
  case LLVMGetElementPtr: case LLVMSelect: case LLVMICmp:
    break;
  default:
    return 0;
  }
  for (int o = 0, n = LLVMGetNumOperands(v); o < n; o++)
    if (!x_free(body, LLVMGetOperand(v, o), depth - 1)) return 0;
  return 1;
}

/* Whether index v is the x local id plus what x does not change: one
 * element further for each work-item in x. */
static int x_step(LLVMValueRef body, LLVMValueRef v, unsigned depth) {
  if (is_param(body, v, WEFT_BODY_LX)) return 1;
  if (!LLVMIsAInstruction(v) || depth == 0) return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMZExt: case LLVMSExt: case LLVMTrunc:
    return x_step(body, LLVMGetOperand(v, 0), depth - 1);
  case LLVMSelect:
    return LLVMIsAConstantInt(LLVMGetOperand(v, 0)) &&
           x_step(body, chosen(v), depth - 1);
  case LLVMAdd: {
    LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
    return (x_step(body, a, depth - 1) && x_free(body, b, depth - 1)) ||
           (x_step(body, b, depth - 1) && x_free(body, a, depth - 1));
  }
  default:
    return 0;
  }
}

/* The buffer argument a pointer into one is made from (through GEPs and
 * casts), or NULL. */
static LLVMValueRef buffer_of(LLVMValueRef p) {
  while (LLVMIsAGetElementPtrInst(p) || LLVMIsAAddrSpaceCastInst(p) ||
         LLVMIsABitCastInst(p))
    p = LLVMGetOperand(p, 0);
  return LLVMIsAArgument(p) ? p : NULL;
}

/* Whether the body reads through buffer (anywhere). */
static int reads(LLVMValueRef body, LLVMValueRef buffer) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMIsALoadInst(i) && buffer_of(LLVMGetOperand(i, 0)) == buffer)
        return 1;
      if (LLVMIsACallInst(i) || LLVMIsAAtomicRMWInst(i) ||
          LLVMIsAAtomicCmpXchgInst(i))
        for (int o = 0, n = LLVMGetNumOperands(i); o < n; o++)
          if (buffer_of(LLVMGetOperand(i, o)) == buffer) return 1;
    }
  return 0;
}

/* How many stores of the body write through buffer. */
static unsigned stores_to(LLVMValueRef body, LLVMValueRef buffer) {
  unsigned n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      n += LLVMIsAStoreInst(i) && buffer_of(LLVMGetOperand(i, 1)) == buffer;
  return n;
}

/* Whether store writes a buffer element by element in x, the body's only
 * store to it (a stencil's edge and inside, stored apart, would mix
 * non-temporal stores and cached ones in a line, which flushes it). */
static int streams(LLVMValueRef body, LLVMValueRef store) {
  LLVMValueRef p = LLVMGetOperand(store, 1);
  if (LLVMGetVolatile(store) ||
      LLVMGetOrdering(store) != LLVMAtomicOrderingNotAtomic ||
      LLVMGetPointerAddressSpace(LLVMTypeOf(p)) != WEFT_AS_GLOBAL ||
      !LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2)
    return 0;
  LLVMValueRef buffer = buffer_of(p);
  return buffer && LLVMGetOperand(p, 0) == buffer &&
         x_step(body, LLVMGetOperand(p, 1), INDEX_DEPTH) &&
         !reads(body, buffer) && stores_to(body, buffer) == 1;
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

/* Whether the body orders its memory accesses for other work-items to
 * see (atomics, fences), which non-temporal stores would not keep. */
static int orders_memory(LLVMValueRef body) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsAAtomicRMWInst(i) || LLVMIsAAtomicCmpXchgInst(i) ||
          LLVMIsAFenceInst(i) ||
          ((LLVMIsALoadInst(i) || LLVMIsAStoreInst(i)) &&
           LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic))
        return 1;
  return 0;
}

unsigned weft__stream_stores_make(LLVMValueRef body, LLVMTargetDataRef layout) {
  unsigned n = 0, bytes = 0;
  LLVMValueRef found[64];
  if (orders_memory(body)) return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && n < 64;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsAStoreInst(i) && streams(body, i)) found[n++] = i;
  for (unsigned k = 0; k < n; k++) {
    bytes += (unsigned)LLVMABISizeOfType(layout,
                                         LLVMTypeOf(LLVMGetOperand(found[k], 0)));
    split(body, found[k]);
  }
  return bytes;
}
