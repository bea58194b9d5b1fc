/* remake.c: values a pass may compute again elsewhere in a body (see
 * passes.h): regions make a value computed from the local id again after
 * a barrier instead of saving it (regions.c), the aggregation makes a
 * counter's address again in the work-item that makes the group's atomic
 * (aggregate_address.c); and those that step with x, made of the x
 * local id and such values (stream_stores.c, wide_indices.c, jam_ids.c,
 * jam_blocks.c). */
#include "jit/cpu/passes.h"

int weft__remakeable(LLVMValueRef body, LLVMValueRef v, unsigned excluded,
                     unsigned *budget) {
  if (LLVMIsAConstant(v)) return 1;
  if (LLVMIsAArgument(v)) {
    unsigned n = LLVMCountParams(body), k = 0;
    while (k < n && LLVMGetParam(body, k) != v) k++;
    unsigned own = n - WEFT_BODY_EXTRA_PARAMS;
    return k < own || !(excluded >> (k - own) & 1);
  }
  if (!LLVMIsAInstruction(v) || !*budget) return 0;
  --*budget;
  if (LLVMIsALoadInst(v)) {
    unsigned kind = LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(v)),
                                             "invariant.load", 14);
    if (!LLVMGetMetadata(v, kind) || LLVMGetVolatile(v)) return 0;
  } else if (/* not a freeze: made twice, one of poison may give two values */
             !LLVMIsABinaryOperator(v) && !LLVMIsACastInst(v) &&
             !LLVMIsAICmpInst(v) && !LLVMIsAGetElementPtrInst(v) &&
             !LLVMIsASelectInst(v)) {
    return 0;
  }
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (!weft__remakeable(body, LLVMGetOperand(v, (unsigned)i), excluded,
                          budget))
      return 0;
  return 1;
}

/* At most this many instructions are followed to tell that a value steps
 * with x, and as many again for each term that x does not change. */
#define STEP_DEPTH 16

/* Whether v is the same for work-items that differ only in x and can be
 * made again from the body's parameters. */
static int x_free(LLVMValueRef v, void *body) {
  unsigned budget = STEP_DEPTH;
  return weft__remakeable(body, v, 1u << WEFT_BODY_LX, &budget);
}

typedef struct stepping {
  LLVMValueRef body;
  unsigned casts;
  int (*same)(LLVMValueRef v, void *data); /* what x does not change */
  void *data;
} stepping;

static int is_one(LLVMValueRef v) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == 1;
}

static int steps(const stepping *s, LLVMValueRef v, unsigned depth) {
  if (v == weft__body_param(s->body, WEFT_BODY_LX)) return 1;
  if (!LLVMIsAInstruction(v) || depth == 0 || LLVMGetNumOperands(v) == 0)
    return 0;
  LLVMValueRef a = LLVMGetOperand(v, 0);
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMTrunc:
    return (s->casts & WEFT_STEPS_TRUNCS) && steps(s, a, depth - 1);
  case LLVMZExt: case LLVMSExt:
    return (s->casts & ~WEFT_STEPS_TRUNCS) && steps(s, a, depth - 1);
  case LLVMMul: /* by one: Clang's unoptimized `1 * get_global_id(0)` */
    return (is_one(LLVMGetOperand(v, 1)) && steps(s, a, depth - 1)) ||
           (is_one(a) && steps(s, LLVMGetOperand(v, 1), depth - 1));
  case LLVMSub:
    return steps(s, a, depth - 1) && s->same(LLVMGetOperand(v, 1), s->data);
  case LLVMAdd: {
    LLVMValueRef b = LLVMGetOperand(v, 1);
    return (steps(s, a, depth - 1) && s->same(b, s->data)) ||
           (steps(s, b, depth - 1) && s->same(a, s->data));
  }
  default:
    return 0;
  }
}

int weft__steps_with_x_where(LLVMValueRef body, LLVMValueRef v, unsigned casts,
                             int (*same)(LLVMValueRef v, void *data),
                             void *data) {
  stepping s = {body, casts, same, data};
  return steps(&s, v, STEP_DEPTH);
}

int weft__steps_with_x(LLVMValueRef body, LLVMValueRef v, unsigned casts) {
  return weft__steps_with_x_where(body, v, casts, x_free, body);
}
