/* check_memory.c: check mode's memory check (WEFT_CHECK=memory), step 3c
 * of passes.h.
 *
 * Every load, store, atomic and memory intrinsic of a kernel body whose
 * pointer comes from a known object -- a buffer or __local argument of the
 * kernel, a __local, __constant or program-scope variable, a private
 * variable -- is checked against that object before it happens:
 *
 *     0 <= pointer - object  and  pointer - object + size <= bytes of object
 *
 * where an argument's bytes are the launch's (the buffer's size from where
 * the argument points, a sub-buffer's, a __local argument's), read from
 * the work-group context, and a variable's are known here. An access that
 * fails is not carried out (a read gives zero): the back end's
 * check_failed gets the work-item, the site (which names the source line,
 * the object and the kind of access) and the offset, and the kernel goes
 * on, so that one run reports every distinct bug.
 *
 * A pointer is traced back through GEPs, casts, phis and selects; one that
 * comes from memory, from an integer, or from two objects at once is not
 * checked (README: Debugging kernels). */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/check_access.h"
#include "weft/weft.h"

typedef struct checker {
  LLVMValueRef body;
  const weft_kernel_desc *desc;
  LLVMTargetDataRef layout;
  LLVMBuilderRef b;
  LLVMContextRef context;
  LLVMTypeRef i64;
  weft_check_sites *sites;
} checker;

/* ---------------------------------------------------------- accesses */

/* Keeps the accesses whose object is known (0 to n of them). */
static unsigned known_objects(const checker *c, weft_access *a, unsigned n) {
  unsigned kept = 0;
  for (unsigned i = 0; i < n; i++)
    if (weft__origin_of(c->body, c->desc, c->layout, a[i].pointer, &a[i].from))
      a[kept++] = a[i];
  return kept;
}

/* ------------------------------------------------------------ checking */

/* The object's bytes: the launch's for an argument, else a constant. */
static LLVMValueRef extent_of(const checker *c, const weft_origin *o) {
  if (o->arg < 0) return LLVMConstInt(c->i64, o->extent, 0);
  return weft__arg_extent(c->b, c->body, o->arg);
}

/* i1: offset <= extent and offset + size <= extent, unsigned (a negative
 * offset is huge). */
static LLVMValueRef within(const checker *c, LLVMValueRef offset,
                           LLVMValueRef size, LLVMValueRef extent) {
  LLVMValueRef end = LLVMBuildAdd(c->b, offset, LLVMBuildZExt(c->b, size, c->i64, ""), "");
  return LLVMBuildAnd(c->b, LLVMBuildICmp(c->b, LLVMIntULE, offset, extent, ""),
                      LLVMBuildICmp(c->b, LLVMIntULE, end, extent, ""), "");
}

/* In the failure block: the report of the first access that failed. */
static void report(const checker *c, LLVMValueRef inst, const weft_access *a,
                   LLVMValueRef *ok, LLVMValueRef *offsets, unsigned n) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->context);
  LLVMValueRef site = LLVMConstInt(i32, a[n - 1].site, 0);
  LLVMValueRef offset = offsets[n - 1];
  LLVMValueRef size = LLVMBuildZExt(c->b, a[n - 1].size, c->i64, "");
  for (unsigned i = n - 1; i-- > 0;) {
    LLVMValueRef bad = LLVMBuildNot(c->b, ok[i], "");
    site = LLVMBuildSelect(c->b, bad, LLVMConstInt(i32, a[i].site, 0), site, "");
    offset = LLVMBuildSelect(c->b, bad, offsets[i], offset, "");
    size = LLVMBuildSelect(c->b, bad, LLVMBuildZExt(c->b, a[i].size, c->i64, ""),
                           size, "");
  }
  weft__check_failed_call(c->b, c->body, site, offset, size, inst);
}

/* Puts inst behind the checks of its n accesses:
 *   head: checks; br ok, do, fail
 *   do:   inst; br rest          fail: check_failed(...); br rest
 *   rest: phi(inst's value, zero); what followed inst */
static void guard(const checker *c, LLVMValueRef inst, weft_access *a, unsigned n) {
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(inst);
  LLVMBasicBlockRef head = weft__block_split_before(inst, "check");
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(inst);
  LLVMPositionBuilderAtEnd(c->b, head);
  LLVMSetCurrentDebugLocation2(c->b, loc);
  LLVMValueRef ok[2], offsets[2], all = NULL;
  for (unsigned i = 0; i < n; i++) {
    offsets[i] = weft__access_offset(c->b, &a[i]);
    ok[i] = within(c, offsets[i], a[i].size, extent_of(c, &a[i].from));
    all = all ? LLVMBuildAnd(c->b, all, ok[i], "") : ok[i];
  }
  LLVMBasicBlockRef pass = LLVMInsertBasicBlockInContext(c->context, rest, "check.ok");
  LLVMBasicBlockRef fail = LLVMInsertBasicBlockInContext(c->context, rest, "check.failed");
  LLVMBuildCondBr(c->b, all, pass, fail);
  LLVMPositionBuilderAtEnd(c->b, fail);
  report(c, inst, a, ok, offsets, n);
  LLVMBuildBr(c->b, rest);
  LLVMPositionBuilderAtEnd(c->b, pass);
  weft__instruction_move(c->b, inst);
  LLVMBuildBr(c->b, rest);
  LLVMTypeRef type = LLVMTypeOf(inst);
  if (LLVMGetTypeKind(type) == LLVMVoidTypeKind) return;
  /* A read that failed gives zero. The phi goes before the debug records
   * too (-g): records belong to instructions that are not phis. */
  LLVMPositionBuilderBeforeInstrAndDbgRecords(c->b, LLVMGetFirstInstruction(rest));
  LLVMValueRef phi = LLVMBuildPhi(c->b, type, "");
  LLVMReplaceAllUsesWith(inst, phi);
  LLVMValueRef values[] = {inst, LLVMConstNull(type)};
  LLVMBasicBlockRef from[] = {pass, fail};
  LLVMAddIncoming(phi, values, from, 2);
}

int weft__check_memory_insert(LLVMValueRef body, const weft_kernel_desc *desc,
                              LLVMTargetDataRef layout,
                              weft_check_sites *sites) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  checker c = {body, desc, layout, LLVMCreateBuilderInContext(context), context,
               LLVMInt64TypeInContext(context), sites};
  unsigned count;
  LLVMValueRef *list = weft__memory_instructions(body, layout, &count);
  int rc = list ? 0 : WEFT_ENOMEM;
  for (unsigned k = 0; k < count && !rc; k++) {
    weft_access a[2];
    unsigned n = known_objects(&c, a, weft__accesses_of(layout, list[k], a));
    for (unsigned i = 0; i < n && !rc; i++)
      rc = weft__check_site_of(c.sites, list[k], &a[i], a[i].kind, &a[i].site);
    if (n && !rc) guard(&c, list[k], a, n);
  }
  free(list);
  LLVMDisposeBuilder(c.b);
  return rc;
}
