/* jam_ids.c: a work-item id cut to 32 bits and extended again, made x's
 * plus one a work-item in a jam's clones.
 *
 * `int i = get_global_id(0)` indexes as ext(trunc(id)) (wide_indices.c
 * pushes the index's extension down to it). Work-item x+k's id is x's
 * plus k, but its int is x's plus k only where no int between them
 * wraps, which LLVM cannot know, so it does not see the work-items'
 * elements side by side (CLBlast's transposed Sgemv loaded and
 * multiplied them one by one). Where the jammed call's ints do not wrap,
 * work-item k's extension is x's plus k: the clones say so, and the
 * call tests it first (one compare an id), running its work-items one
 * at a time through the body where they would wrap (ids near 2^31 or
 * 2^32: launches of billions of work-items, or such offsets). The same
 * test checks that the ids jam_blocks.c shifts and masks start a block;
 * a jam of whole sub-groups runs, where either fails, the same jam made
 * without both (weft__jam_plain), since its sub-groups' functions need
 * all their lanes at once. */
#include <limits.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/jam.h"

/* The value that steps with x whose 32 bits inst extends again (a sign
 * or zero extension to 64 bits of its truncation), or NULL. */
static LLVMValueRef extended_step(const weft_jam *j, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op != LLVMSExt && op != LLVMZExt) return NULL;
  LLVMValueRef cut = LLVMGetOperand(inst, 0);
  if (!LLVMIsATruncInst(cut) ||
      LLVMGetIntTypeWidth(LLVMTypeOf(cut)) != 32 ||
      LLVMTypeOf(inst) != LLVMTypeOf(LLVMGetOperand(cut, 0)))
    return NULL;
  LLVMValueRef v = LLVMGetOperand(cut, 0);
  return weft__steps_with_x(j->body, v, 0) ? v : NULL;
}

int weft__jam_id(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst) {
  unsigned k = weft__jam_index(j, inst);
  if (j->no_steps || !j->varying[k] || j->num_steps == WEFT_JAM_MOST_STEPS)
    return 0;
  LLVMValueRef v = extended_step(j, inst);
  if (!v) return 0;
  int sign = LLVMGetInstructionOpcode(inst) == LLVMSExt;
  LLVMValueRef cut = weft__jam_copy(j, LLVMGetOperand(inst, 0), 0);
  LLVMTypeRef type = LLVMTypeOf(inst);
  LLVMValueRef first = sign ? LLVMBuildSExt(b, cut, type, "")
                            : LLVMBuildZExt(b, cut, type, "");
  LLVMInstructionSetDebugLoc(first, LLVMInstructionGetDebugLoc(inst));
  j->copies[(size_t)k * j->width] = first;
  for (unsigned item = 1; item < j->width; item++) {
    LLVMValueRef n = LLVMConstInt(type, item, 0);
    j->copies[(size_t)k * j->width + item] =
        sign ? LLVMBuildNSWAdd(b, first, n, "") : LLVMBuildNUWAdd(b, first, n, "");
  }
  j->finished[k] = 1;
  j->steps[j->num_steps] = v;
  j->step_signed[j->num_steps++] = (unsigned char)sign;
  return 1;
}

/* A leaf of the body's v for the call's first work-item: the jammed
 * function's parameter, or a constant (v is computable from them alone:
 * weft__steps_with_x, so weft__remake_mapped makes it again). */
static LLVMValueRef first_items(LLVMValueRef v, void *jam) {
  return weft__jam_copy(jam, v, 0);
}

/* Whether no int of the call's work-items wraps between the first's and
 * the last's, for every extension the clones made x's plus k. */
static LLVMValueRef none_wraps(const weft_jam *j, LLVMBuilderRef b) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(j->context);
  LLVMValueRef all = NULL;
  for (unsigned s = 0; s < j->num_steps; s++) {
    LLVMValueRef first =
        weft__remake_mapped(b, j->steps[s], first_items, (void *)j);
    LLVMValueRef cut = LLVMBuildTrunc(b, first, i32, "");
    unsigned long long most =
        (j->step_signed[s] ? (unsigned long long)INT_MAX : UINT_MAX) -
        (j->width - 1);
    LLVMValueRef fits =
        LLVMBuildICmp(b, j->step_signed[s] ? LLVMIntSLE : LLVMIntULE, cut,
                      LLVMConstInt(i32, most, 0), "");
    all = all ? LLVMBuildAnd(b, all, fits, "") : fits;
  }
  return all;
}

/* The call's work-items one at a time, through the body. */
static void one_at_a_time(const weft_jam *j, LLVMBuilderRef b,
                          LLVMBasicBlockRef from) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(j->context);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(j->context, j->fn, "ids.one");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(j->context, j->fn, "ids.done");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef item = LLVMBuildPhi(b, i64, "");
  unsigned n = LLVMCountParams(j->fn);
  unsigned lx = n - WEFT_BODY_EXTRA_PARAMS + WEFT_BODY_LX;
  LLVMValueRef args[n];
  for (unsigned p = 0; p < n; p++) args[p] = LLVMGetParam(j->fn, p);
  args[lx] = LLVMBuildNUWAdd(b, args[lx], item, "");
  LLVMValueRef call =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(j->body), j->body, args, n, "");
  /* A path seldom taken: the body once, not inlined here too. */
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(j->context, noinline, 0));
  LLVMValueRef next = LLVMBuildNUWAdd(b, item, LLVMConstInt(i64, 1, 0), "");
  LLVMValueRef zero = LLVMConstNull(i64);
  LLVMAddIncoming(item, &zero, &from, 1);
  LLVMAddIncoming(item, &next, &loop, 1);
  LLVMBuildCondBr(
      b, LLVMBuildICmp(b, LLVMIntULT, next, LLVMConstInt(i64, j->width, 0), ""),
      loop, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
}

int weft__jam_ids_guard(weft_jam *j, LLVMBuilderRef b) {
  if (!j->num_steps && !j->num_blocks) return 1;
  /* One whole sub-group a call, by local ids: nothing to test (and a
   * jam without the blocks, where a branch around a loop on a
   * sub-group's id differs, may not be made). */
  if (!j->num_steps && weft__jam_blocks_local(j)) return 1;
  /* (Neither the fallback nor one at a time says where the calls stop.) */
  if (j->stating) return 0;
  /* Whole sub-groups: their functions need every lane at once. */
  if (j->sub_group_width && !(j->fallback = weft__jam_plain(j))) return 0;
  LLVMBasicBlockRef jammed = LLVMGetEntryBasicBlock(j->fn);
  LLVMBasicBlockRef test =
      LLVMInsertBasicBlockInContext(j->context, jammed, "ids");
  LLVMBasicBlockRef apart =
      LLVMAppendBasicBlockInContext(j->context, j->fn, "ids.apart");
  LLVMPositionBuilderAtEnd(b, test);
  /* The private variables stay in the entry block, where SROA sees them. */
  for (LLVMValueRef i = LLVMGetFirstInstruction(jammed), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i)) weft__instruction_move(b, i);
  }
  LLVMValueRef wraps = none_wraps(j, b), aligned = weft__jam_blocks_aligned(j, b);
  LLVMValueRef go = !wraps ? aligned
                    : !aligned ? wraps
                               : LLVMBuildAnd(b, wraps, aligned, "");
  LLVMBuildCondBr(b, go, jammed, apart);
  LLVMPositionBuilderAtEnd(b, apart);
  if (!j->fallback) {
    one_at_a_time(j, b, apart);
    return 1;
  }
  unsigned n = LLVMCountParams(j->fn);
  LLVMValueRef args[n ? n : 1];
  for (unsigned p = 0; p < n; p++) args[p] = LLVMGetParam(j->fn, p);
  LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(j->fallback),
                                     j->fallback, args, n, "");
  /* A path seldom taken, as one_at_a_time's: inlined, the jam twice over
   * was too large to be inlined in its turn (scan_sub_group of
   * bench_sub_groups 15.0-15.8 ms against 11.1-11.7 with the call kept,
   * on the EPYC). */
  LLVMAddCallSiteAttribute(
      call, LLVMAttributeFunctionIndex,
      LLVMCreateEnumAttribute(j->context,
                              LLVMGetEnumAttributeKindForName("noinline", 8), 0));
  LLVMBuildRetVoid(b);
  return 1;
}
