/* stop_points.c: a stop point in every loop, part of step 3c of passes.h
 * (check mode, or WEFT_TIMEOUT). A kernel can only run for ever in a
 * loop; at each turn the loop reads the launch's stop word, and when the
 * back end has set it (the launch ran past its time, or SIGQUIT asks
 * where the work-items are) calls
 *
 *     stopped(ctx, lx, ly, lz, site)
 *
 * whose site names the loop's source line. On a time-out the back end
 * ends the group there; on SIGQUIT it says where the work-item is and
 * returns. The word is read with a relaxed atomic load: the back end's
 * store must be seen, and nothing else is ordered by it. */
#include <stdlib.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/check_access.h"
#include "weft/weft.h"

/* Marks the latch in data (an array of a flag per block). */
static int back_edge(const weft_cfg *g, unsigned header, unsigned latch,
                     void *data) {
  (void)g;
  (void)header;
  ((unsigned char *)data)[latch] = 1;
  return 0;
}

/* The instruction whose line names the loop: the latch's branch, or the
 * last instruction before it that has a line. */
static LLVMValueRef located(LLVMBasicBlockRef latch) {
  for (LLVMValueRef i = LLVMGetBasicBlockTerminator(latch); i;
       i = LLVMGetPreviousInstruction(i))
    if (LLVMGetDebugLocLine(i)) return i;
  return LLVMGetBasicBlockTerminator(latch);
}

static LLVMValueRef stopped_function(LLVMModuleRef module) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef params[] = {ptr, i64, i64, i64, i32};
  return weft__runtime_function(module, WEFT_STOPPED_SYMBOL, NULL, params, 5,
                                "cold");
}

/* Before the latch's branch: if (*ctx->stop) stopped(...). */
static int insert(LLVMBuilderRef b, LLVMValueRef body, LLVMBasicBlockRef latch,
                  weft_check_sites *sites) {
  LLVMValueRef at = located(latch);
  weft_check_site what = {.access = WEFT_ACCESS_LOOP, .arg = -1};
  unsigned site;
  if (weft__check_site_add(sites, at, &what, 0, &site)) return WEFT_ENOMEM;
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMValueRef branch = LLVMGetBasicBlockTerminator(latch);
  LLVMBasicBlockRef head = weft__block_split_before(branch, "loop");
  LLVMBasicBlockRef stop = LLVMInsertBasicBlockInContext(context, latch, "loop.stopped");
  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMValueRef word = LLVMBuildLoad2(
      b, ptr, weft__ctx_field(b, ctx, offsetof(weft_wg_ctx, stop)), "");
  weft__set_invariant(word);
  LLVMValueRef value = LLVMBuildLoad2(b, i32, word, "");
  LLVMSetOrdering(value, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(value, 4);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, value, LLVMConstNull(i32), ""),
                  stop, latch);
  LLVMPositionBuilderAtEnd(b, stop);
  LLVMValueRef fn = stopped_function(module);
  LLVMValueRef args[] = {ctx, weft__body_param(body, WEFT_BODY_LX),
                         weft__body_param(body, WEFT_BODY_LY),
                         weft__body_param(body, WEFT_BODY_LZ),
                         LLVMConstInt(i32, site, 0)};
  LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 5, "");
  LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(at));
  LLVMBuildBr(b, latch);
  return 0;
}

int weft__stop_points_insert(LLVMValueRef body, weft_check_sites *sites) {
  weft_cfg g;
  int rc = weft__cfg_make(body, &g);
  unsigned char *latches = calloc(g.count + 1, 1);
  if (!rc && !latches) rc = WEFT_ENOMEM;
  if (!rc) rc = weft__cfg_back_edges(&g, back_edge, latches);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(
      LLVMGetModuleContext(LLVMGetGlobalParent(body)));
  for (unsigned i = 0; !rc && i < g.count; i++)
    if (latches[i]) rc = insert(b, body, g.blocks[i], sites);
  LLVMDisposeBuilder(b);
  free(latches);
  weft__cfg_free(&g);
  return rc;
}
