/* sub_group_cuts.c: part of step 3 of passes.h: sub-groups that meet
 * where the whole group passes, as work-group barriers.
 *
 * A sub-group's meetings (its barriers and converge points, workitem.c)
 * need fibers in general: the group's other sub-groups may be elsewhere,
 * and only some lanes may come (backend/cpu/sub_group.c). Where every
 * meeting is in a block that every work-item passes exactly once (in no
 * loop, on every path from the start to a return), every work-item of
 * the group reaches the same meetings in the same order: a work-group
 * barrier there is a meeting of every sub-group at once, and every lane
 * comes to each converge point. Then each sub-group barrier becomes a
 * work-group barrier, each converge point a work-group barrier and the
 * sub-group's whole mask (computed in place), and the kernel runs
 * as regions, a loop over work-items between barriers that LLVM can
 * vectorize, instead of a fiber switch per work-item at each meeting.
 * Not where a loop polls memory: a sub-group may wait there for another
 * of its group (independent forward progress), which only fibers give. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

static int is_meeting(LLVMValueRef i, void *data) {
  (void)data;
  return (weft__is_call_to(i, WEFT_BARRIER_SYMBOL) &&
          weft__barrier_is_sub_group(i)) ||
         weft__is_call_to(i, WEFT_CONVERGE_SYMBOL);
}

int weft__has_sub_groups(LLVMValueRef body) {
  unsigned n = 0;
  LLVMValueRef *calls = weft__instructions_where(body, is_meeting, NULL, &n);
  free(calls);
  return n > 0;
}

/* Whether a return can be reached from the entry without passing block
 * avoid. A branch on __weft_sub_group_lanes() goes to the slots: where
 * it is 1 (whole sub-groups side by side in a jam, jam_sub_groups.c)
 * no meeting is passed at all. */
static int avoidable(const weft_cfg *g, unsigned avoid, unsigned char *seen,
                     unsigned *work) {
  memset(seen, 0, g->count + 1);
  unsigned top = 0;
  if (avoid == 0) return 0;
  seen[0] = 1;
  work[top++] = 0;
  while (top) {
    unsigned b = work[--top];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
    if (t && LLVMIsAReturnInst(t)) return 1;
    int lanes = t ? weft__jam_lanes_branch(t) : -1;
    for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; k < n; k++) {
      if (lanes >= 0 && k == (unsigned)lanes) continue;
      unsigned s = weft__cfg_index(g, LLVMGetSuccessor(t, k));
      if (s < g->count && s != avoid && !seen[s]) {
        seen[s] = 1;
        work[top++] = s;
      }
    }
  }
  return 0;
}

int weft__sub_group_meetings_lanes_free(LLVMValueRef body) {
  weft_cfg g;
  if (weft__cfg_make(body, &g)) return 0;
  unsigned char *seen = calloc(g.count + 1, 1);
  unsigned *work = calloc(g.count + 1, sizeof *work), top = 0;
  int free_of = seen && work;
  if (free_of && g.count) {
    seen[0] = 1;
    work[top++] = 0;
  }
  while (free_of && top) {
    LLVMBasicBlockRef bb = g.blocks[work[--top]];
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && free_of;
         i = LLVMGetNextInstruction(i))
      free_of = !LLVMIsACallInst(i) || !is_meeting(i, NULL);
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    int lanes = t ? weft__jam_lanes_branch(t) : -1;
    for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; k < n; k++) {
      if (lanes >= 0 && k != (unsigned)lanes) continue; /* the slots' way */
      unsigned s = weft__cfg_index(&g, LLVMGetSuccessor(t, k));
      if (s < g.count && !seen[s]) {
        seen[s] = 1;
        work[top++] = s;
      }
    }
  }
  free(seen);
  free(work);
  weft__cfg_free(&g);
  return free_of;
}

/* Whether every meeting is in a block every work-item passes once. */
static int all_pass_once(LLVMValueRef body, LLVMValueRef *meetings,
                         unsigned n, int *rc) {
  weft_cfg g;
  if ((*rc = weft__cfg_make(body, &g))) return 0;
  unsigned char *in_loop = calloc(g.count + 1, 1);
  unsigned char *seen = calloc(g.count + 1, 1);
  unsigned *work = calloc(g.count + 1, sizeof *work);
  int once = in_loop && seen && work;
  *rc = once ? weft__cfg_in_loops(&g, in_loop, NULL, NULL) : WEFT_ENOMEM;
  once = once && !*rc;
  for (unsigned i = 0; once && i < n; i++) {
    unsigned b = weft__cfg_index(&g, LLVMGetInstructionParent(meetings[i]));
    once = b < g.count && !in_loop[b] && !avoidable(&g, b, seen, work);
  }
  free(in_loop);
  free(seen);
  free(work);
  weft__cfg_free(&g);
  return once;
}

/* A sub-group barrier's flags without the sub-group bit: the user's. */
static void widen_barrier(LLVMValueRef call) {
  LLVMValueRef flags = LLVMGetOperand(call, 4);
  if (LLVMIsAInstruction(flags) && LLVMGetInstructionOpcode(flags) == LLVMOr) {
    LLVMSetOperand(call, 4, LLVMGetOperand(flags, 0));
    return;
  }
  unsigned long long bits = LLVMConstIntGetZExtValue(flags);
  LLVMSetOperand(call, 4, LLVMConstInt(LLVMTypeOf(flags),
                                       bits & ~(unsigned long long)WEFT_BARRIER_SUB_GROUP, 0));
}

/* The mask of the whole sub-group of the work-item (lx, ly, lz): a bit
 * per lane, fewer in a group's last, smaller sub-group. */
static LLVMValueRef whole_mask(LLVMBuilderRef b, LLVMValueRef ctx,
                               LLVMValueRef const *lid, unsigned lanes_most) {
  LLVMTypeRef i64 = LLVMTypeOf(lid[0]);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(i64));
  size_t at = offsetof(weft_wg_ctx, local_size);
  LLVMValueRef size[3];
  for (unsigned d = 0; d < 3; d++) size[d] = weft__ctx_invariant(b, i64, ctx, at + 8 * d);
  LLVMValueRef linear = LLVMBuildAdd(
      b, lid[0],
      LLVMBuildMul(b, size[0],
                   LLVMBuildAdd(b, lid[1], LLVMBuildMul(b, size[1], lid[2], ""),
                                ""),
                   ""),
      "");
  LLVMValueRef items =
      LLVMBuildMul(b, LLVMBuildMul(b, size[0], size[1], ""), size[2], "");
  LLVMValueRef width = LLVMConstInt(i64, lanes_most, 0);
  LLVMValueRef first =
      LLVMBuildSub(b, linear, LLVMBuildURem(b, linear, width, ""), "");
  LLVMValueRef left = LLVMBuildSub(b, items, first, "");
  LLVMValueRef lanes = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntULT, left, width, ""), left, width, "");
  /* lanes <= 32: (1 << lanes) - 1 fits in 64 bits, its low 32 the mask. */
  LLVMValueRef bits = LLVMBuildSub(
      b, LLVMBuildShl(b, LLVMConstInt(i64, 1, 0), lanes, ""),
      LLVMConstInt(i64, 1, 0), "");
  return LLVMBuildTrunc(b, bits, i32, "sub_group_mask");
}

/* A converge point: a work-group barrier at its site, then the mask of
 * the work-item's whole sub-group. */
static void widen_converge(LLVMBuilderRef b, LLVMValueRef call,
                           unsigned width) {
  LLVMValueRef barrier = weft__barrier_function(LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(call))));
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef args[6];
  for (unsigned i = 0; i < 4; i++) args[i] = LLVMGetOperand(call, i);
  args[4] = LLVMConstInt(LLVMTypeOf(LLVMGetOperand(call, 4)), 0, 0);
  args[5] = LLVMGetOperand(call, 4); /* the site */
  LLVMValueRef cut = LLVMBuildCall2(b, LLVMGlobalGetValueType(barrier), barrier,
                                    args, 6, "");
  LLVMInstructionSetDebugLoc(cut, LLVMInstructionGetDebugLoc(call));
  LLVMReplaceAllUsesWith(call, whole_mask(b, args[0], args + 1, width));
  LLVMInstructionEraseFromParent(call);
}

/* Each cut is a region, and the regions' loops each inline the body:
 * past a dozen, the build costs more than fibers would (27 meetings took
 * 1.3 s to build on the EPYC). */
#define MOST_CUTS 12

int weft__sub_group_cuts(LLVMValueRef body, unsigned width) {
  unsigned n = 0;
  LLVMValueRef *meetings = weft__instructions_where(body, is_meeting, NULL, &n);
  int rc = 0;
  /* A loop that polls (a yield point) may wait for another sub-group of
   * the group, which only fibers let run meanwhile. */
  if (n && n <= MOST_CUTS && !weft__calls_sync(body) &&
      all_pass_once(body, meetings, n, &rc)) {
    LLVMBuilderRef b =
        LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(body)));
    for (unsigned i = 0; i < n; i++) {
      if (weft__is_call_to(meetings[i], WEFT_CONVERGE_SYMBOL))
        widen_converge(b, meetings[i], width);
      else
        widen_barrier(meetings[i]);
    }
    LLVMDisposeBuilder(b);
  }
  free(meetings);
  return rc;
}
