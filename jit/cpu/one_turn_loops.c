/* one_turn_loops.c: loops that run exactly once, made straight code
 * before jamming.
 *
 * Tuned kernels write loops over a tuning parameter that is often 1
 * (CLBlast's XgemvFast: `for (_w = 0; _w < WPT2/VW2; _w++) { gid =
 * (WPT2/VW2) * get_global_id(0) + _w; ... }` with WPT2/VW2 == 1). O3
 * would remove such a loop, but jamming comes before O3, and there the
 * work-item id plus the loop's counter is no longer an id plus what the
 * jam can compute at a call's start (jam_ids.c), so the int indices
 * stay apart: XgemvFast took 0.78-0.95 ms on the EPYC (CLBlast Sgemv of
 * a transposed 1024 x 1024 matrix), 0.080-0.10 ms with its loop gone.
 *
 * LLVM's unroller does it: a full unroll where the loop's test runs at
 * most twice (Clang's `for` tests at the top: once to enter, once to
 * leave; a loop LLVM has rotated may run two turns then), but it
 * also unrolls whatever `#pragma unroll` asks for whatever the limit,
 * which would leave a jammed body's loop to the loop vectorizer instead
 * (a 64-turn read of a[k * n + i] under the pragma: 0.136 ms unrolled,
 * 0.037 jammed). So the loops' metadata, which holds the pragmas, is put
 * aside under another name while it runs and given back after. */
#include "jit/cpu/passes.h"
#include "jit/ir/target.h"

/* Each terminator's loop metadata moved from kind `from` to kind `to`. */
static void move_loop_metadata(LLVMModuleRef module, unsigned from,
                               unsigned to) {
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
      LLVMValueRef md = term ? LLVMGetMetadata(term, from) : NULL;
      if (!md) continue;
      LLVMSetMetadata(term, to, md);
      LLVMSetMetadata(term, from, NULL);
    }
}

int weft__one_turn_loops_unroll(LLVMModuleRef module,
                                LLVMTargetMachineRef machine, char **error) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  unsigned loop = LLVMGetMDKindIDInContext(context, "llvm.loop", 9);
  unsigned aside = LLVMGetMDKindIDInContext(context, "weft.loop", 9);
  move_loop_metadata(module, loop, aside);
  int rc = weft__run_passes(module, machine,
                            "function(loop-unroll<O3;no-partial;no-peeling;"
                            "no-runtime;no-upperbound;full-unroll-max=2>)",
                            error);
  move_loop_metadata(module, aside, loop);
  return rc;
}
