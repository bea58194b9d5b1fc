/* wide_indices.c: a 32-bit index's extension to 64 bits pushed down to
 * its leaves, where the index is computed from a work-item id.
 *
 * OpenCL C code indexes with ints: `int i = get_global_id(0); ...
 * a[k * n + i]` is, in LLVM, sext(add nsw (mul nsw k, n), trunc(id)).
 * Jammed side by side (jam.c), work-item x+1's address is then
 * sext(k*n + trunc(id + 1)), which LLVM cannot tell is one element past
 * x's (the 32-bit sum might wrap between them), so it loads and
 * multiplies each work-item's element apart: CLBlast's transposed Sgemv
 * took 2.7 times PoCL's time on the EPYC. Made sext(k*n) + sext(trunc(id)),
 * the id's extension is a leaf that the jam makes x's plus one a
 * work-item (where no int between them wraps: jam_ids.c), and the
 * work-items' addresses are one element apart in LLVM's eyes as they
 * are in fact.
 *
 * The pushing down is jit/ir/extensions.c's (where it says why it is
 * always correct); only chains that reach a work-item id are rewritten
 * (the others gain nothing). */
#include <stdlib.h>

#include "jit/cpu/passes.h"

/* Whether v is a work-item id cut to 32 bits: a truncation of a value
 * that steps with x (what jam_ids.c takes an extension of). */
static int id_leaf(LLVMValueRef v, void *body) {
  return LLVMIsATruncInst(v) &&
         weft__steps_with_x(body, LLVMGetOperand(v, 0), 0);
}

static int is_barrier(LLVMValueRef inst, void *unused) {
  (void)unused;
  return weft__is_call_to(inst, WEFT_BARRIER_SYMBOL);
}

/* Widens the index extensions of block bb; how many. */
static unsigned widen_block(LLVMValueRef body, LLVMBuilderRef b,
                            LLVMBasicBlockRef bb) {
  unsigned widened = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    int sign;
    if (!weft__index_extension(i, &sign)) continue;
    LLVMValueRef from = LLVMGetOperand(i, 0);
    /* A leaf already, or nothing to gain. */
    if (id_leaf(from, body) ||
        !weft__extension_reaches(from, sign, WEFT_EXTENSION_DEPTH, id_leaf,
                                 body))
      continue;
    weft__extension_push_down(b, i, WEFT_EXTENSION_DEPTH);
    widened++;
  }
  return widened;
}

/* Only in loops without barriers, which jam.c runs side by side: where
 * the loop vectorizer has the work-items' loop instead (a body or a
 * region without loops of its own), it does better with the index as
 * it was (stencil3d's int indices took 10.5 ms widened, 6.0 not). */
unsigned weft__wide_indices(LLVMValueRef body) {
  weft_cfg g;
  if (weft__cfg_make(body, &g)) return 0;
  unsigned char *in_loop = malloc(g.count + 1);
  unsigned widened = 0;
  if (in_loop && !weft__cfg_in_loops(&g, in_loop, is_barrier, NULL)) {
    LLVMBuilderRef b =
        LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(body)));
    for (unsigned i = 0; i < g.count; i++)
      if (in_loop[i]) widened += widen_block(body, b, g.blocks[i]);
    LLVMDisposeBuilder(b);
  }
  free(in_loop);
  weft__cfg_free(&g);
  return widened;
}
