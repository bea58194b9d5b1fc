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

#include "jit/cpu/check_access.h"
#include "weft/weft.h"

static int is_division_check(LLVMValueRef inst, void *data) {
  (void)data;
  return weft__is_call_to(inst, WEFT_DIVISION_CHECK);
}

/* Replaces one call by the branch to a warning. */
static int lower(LLVMBuilderRef b, LLVMValueRef body, LLVMValueRef call,
                 weft_check_sites *sites) {
  weft_check_site what = {.access = WEFT_ACCESS_DIVIDE, .arg = -1};
  unsigned site;
  if (weft__check_site_add(sites, call, &what, 0, &site)) return WEFT_ENOMEM;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(call)));
  LLVMPositionBuilderAtEnd(b, weft__block_split_before(call, "division"));
  weft__check_failed_if(b, body, LLVMGetOperand(call, 0), site,
                        LLVMConstNull(i64), LLVMConstNull(i64), call);
  LLVMInstructionEraseFromParent(call);
  return 0;
}

int weft__check_divisions_lower(LLVMValueRef body, weft_check_sites *sites) {
  unsigned n;
  LLVMValueRef *calls = weft__instructions_where(body, is_division_check, NULL, &n);
  if (!calls) return WEFT_ENOMEM;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(
      LLVMGetModuleContext(LLVMGetGlobalParent(body)));
  int rc = 0;
  for (unsigned i = 0; i < n && !rc; i++) rc = lower(b, body, calls[i], sites);
  LLVMDisposeBuilder(b);
  free(calls);
  return rc;
}
