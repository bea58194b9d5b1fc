/* debug_info.c: step 4's debug information, for programs built with -g
 * (passes.h). Clang's describes the kernels' bodies; the work-group
 * functions that loop over work-items and call the bodies are Weft's own
 * and have none, so once a body is inlined into one its lines would belong
 * to no function (LLVM's verifier refuses that, and gdb could not place
 * them). Each work-group function takes its body's subprogram (the
 * kernel's, as Clang made it), and each of its calls a location at the
 * kernel's first line: the body's lines then appear inlined into it, which
 * is what gdb shows (`break program.cl:4`, a backtrace through the
 * kernel's source). */
#include <stddef.h>
#include <stdio.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

/* The kernel's line: where its body's subprogram begins. */
static unsigned line_of(LLVMMetadataRef subprogram) {
  return LLVMDISubprogramGetLine(subprogram);
}

/* Every call in fn without a location gets at, so that what is inlined
 * there has a place. */
static void locate_calls(LLVMValueRef fn, LLVMMetadataRef at) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
       b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && !LLVMInstructionGetDebugLoc(i))
        LLVMInstructionSetDebugLoc(i, at);
}

/* The first instruction of fn's entry block that is not an alloca. */
static LLVMValueRef after_allocas(LLVMValueRef fn) {
  LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn));
  while (LLVMIsAAllocaInst(i)) i = LLVMGetNextInstruction(i);
  return i;
}

/* A size_t field of the group's context, element d. */
static LLVMValueRef ctx_size(LLVMBuilderRef b, LLVMValueRef body,
                             size_t offset, int d) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(body)));
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  return LLVMBuildLoad2(b, i64, weft__ctx_field(b, ctx, offset + 8 * (size_t)d),
                        "");
}

/* Variables gdb can print: weft_global_id_0 to _2 and weft_local_id_0 to
 * _2, the work-item's ids (get_global_id(d), get_local_id(d)), stored
 * where the body begins. */
static void describe_ids(LLVMModuleRef module, LLVMValueRef body,
                         LLVMMetadataRef sp) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMDIBuilderRef di = LLVMCreateDIBuilder(module);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(context);
  LLVMValueRef at = after_allocas(body);
  LLVMPositionBuilderBeforeInstrAndDbgRecords(b, at);
  LLVMMetadataRef file = LLVMDIScopeGetFile(sp);
  LLVMMetadataRef size_t_type =
      LLVMDIBuilderCreateBasicType(di, "size_t", 6, 64, 0x08 /* unsigned */,
                                   LLVMDIFlagZero);
  LLVMMetadataRef loc =
      LLVMDIBuilderCreateDebugLocation(context, line_of(sp), 0, sp, NULL);
  static const unsigned lids[] = {WEFT_BODY_LX, WEFT_BODY_LY, WEFT_BODY_LZ};
  for (int d = 0; d < 3; d++) {
    LLVMValueRef lid = weft__body_param(body, lids[d]);
    LLVMValueRef gid = LLVMBuildAdd(
        b,
        LLVMBuildAdd(b,
                     LLVMBuildMul(b, ctx_size(b, body, offsetof(weft_wg_ctx, group_id), d),
                                  ctx_size(b, body, offsetof(weft_wg_ctx, enqueued_local_size), d),
                                  ""),
                     lid, ""),
        ctx_size(b, body, offsetof(weft_wg_ctx, global_offset), d), "");
    LLVMValueRef values[] = {gid, lid};
    static const char *const names[] = {"weft_global_id_", "weft_local_id_"};
    for (int v = 0; v < 2; v++) {
      char name[32];
      int n = snprintf(name, sizeof name, "%s%d", names[v], d);
      LLVMMetadataRef var = LLVMDIBuilderCreateAutoVariable(
          di, sp, name, (size_t)n, file, line_of(sp), size_t_type, 1,
          LLVMDIFlagArtificial, 0);
      /* In memory, stored with a volatile store: a value in a register
       * that nothing uses has no location left after code generation. */
      LLVMValueRef slot = LLVMBuildAlloca(b, LLVMTypeOf(values[v]), name);
      LLVMSetVolatile(LLVMBuildStore(b, values[v], slot), 1);
      LLVMDIBuilderInsertDeclareRecordBefore(
          di, slot, var, LLVMDIBuilderCreateExpression(di, NULL, 0), loc, at);
    }
  }
  LLVMDisposeBuilder(b);
  LLVMDIBuilderFinalize(di);
  LLVMDisposeDIBuilder(di);
}

void weft__debug_info_adopt(LLVMModuleRef module, const LLVMValueRef *entries,
                            const LLVMValueRef *bodies, unsigned count,
                            int ids) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  for (unsigned k = 0; k < count; k++) {
    LLVMMetadataRef sp = LLVMGetSubprogram(bodies[k]);
    if (!sp) continue;
    if (ids) describe_ids(module, bodies[k], sp);
    /* The body is inlined into its entry and then deleted: the entry takes
     * its subprogram (one compile unit, Clang's: gdb follows no
     * references between units of JIT code). */
    LLVMSetSubprogram(bodies[k], NULL);
    LLVMSetSubprogram(entries[k], sp);
    locate_calls(entries[k],
                 LLVMDIBuilderCreateDebugLocation(context, line_of(sp), 0, sp,
                                                  NULL));
  }
}
