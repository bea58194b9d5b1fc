/* check_division.c: check mode's warning for integer division by zero,
 * part of step 3c of passes.h. In check mode div_guard.c leaves a call
 * WEFT_DIVISION_CHECK(by_zero) before each guarded division; here each
 * becomes
 *
 *     br by_zero, warn, rest      warn: check_failed(site); br rest
 *
 * where the site names the division's line. The division itself has
 * already been made safe: the kernel goes on with RISC-V's value, and the
 * back end reports a warning, not a failure. */
#include <stdlib.h>

#include "jit/check_access.h"
#include "weft/weft.h"

/* The WEFT_DIVISION_CHECK calls of body, collected before any moves. */
static unsigned find_calls(LLVMValueRef body, LLVMValueRef **out) {
  unsigned n = 0, capacity = 0;
  *out = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!weft__is_call_to(i, WEFT_DIVISION_CHECK)) continue;
      if (n == capacity) {
        capacity = capacity ? 2 * capacity : 8;
        LLVMValueRef *grown = realloc(*out, capacity * sizeof *grown);
        if (!grown) {
          free(*out);
          *out = NULL;
          return 0;
        }
        *out = grown;
      }
      (*out)[n++] = i;
    }
  return n;
}

/* Replaces one call by the branch to a warning. */
static int lower(LLVMBuilderRef b, LLVMValueRef body, LLVMValueRef call,
                 weft_check_sites *sites) {
  weft_check_site what = {.access = WEFT_ACCESS_DIVIDE, .arg = -1};
  unsigned site;
  if (weft__check_site_add(sites, call, &what, 0, &site)) return WEFT_ENOMEM;
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(call));
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMValueRef by_zero = LLVMGetOperand(call, 0);
  LLVMBasicBlockRef head = weft__block_split_before(call, "division");
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(call);
  LLVMBasicBlockRef warn = LLVMInsertBasicBlockInContext(context, rest, "division.by.zero");
  LLVMPositionBuilderAtEnd(b, head);
  LLVMBuildCondBr(b, by_zero, warn, rest);
  LLVMPositionBuilderAtEnd(b, warn);
  weft__check_failed_call(b, body, LLVMConstInt(i32, site, 0),
                          LLVMConstNull(i64), LLVMConstNull(i64), call);
  LLVMBuildBr(b, rest);
  LLVMInstructionEraseFromParent(call);
  return 0;
}

int weft__check_divisions_lower(LLVMValueRef body, weft_check_sites *sites) {
  LLVMValueRef *calls;
  unsigned n = find_calls(body, &calls);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(
      LLVMGetModuleContext(LLVMGetGlobalParent(body)));
  int rc = 0;
  for (unsigned i = 0; i < n && !rc; i++) rc = lower(b, body, calls[i], sites);
  LLVMDisposeBuilder(b);
  free(calls);
  return rc;
}
