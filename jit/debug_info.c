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
#include <llvm-c/DebugInfo.h>

#include "jit/passes.h"
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

void weft__debug_info_adopt(LLVMModuleRef module, const LLVMValueRef *entries,
                            const LLVMValueRef *bodies, unsigned count) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  for (unsigned k = 0; k < count; k++) {
    LLVMMetadataRef sp = LLVMGetSubprogram(bodies[k]);
    if (!sp) continue;
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
