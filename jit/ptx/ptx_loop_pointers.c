/* ptx_loop_pointers.c: the addresses of a stride loop
 * (ptx_stride_loops.c) stepped as pointers, one step a turn.
 *
 * `x[id * inc + off]` with int indices is, in LLVM, a GEP of
 * sext(id * inc + off): NVPTX recomputes it each turn (multiply, extend,
 * shift, add), and LLVM's own strength reduction cannot step what the
 * extension hides (IndVarSimplify, which would widen the counter, does
 * not on NVPTX, where a 64-bit add costs two 32-bit ones). Unrolled by
 * four, the copies' address arithmetic sat between their loads, and
 * ptxas issued the second pair of loads only after the first pair's
 * values had come back: on an H200, CLBlast's Xdot kernel took 37 us;
 * with the indices widened but left to LLVM's strength reduction, 33.5;
 * the same source written with pointers stepped by hand, 26.4-27.3, as
 * NVIDIA's own compiler's PTX (26.5-28.0).
 *
 * So the loop's 32-bit indices computed from its counter are made 64-bit
 * arithmetic over their extended leaves (jit/ir/extensions.c), the
 * counter's extension a 64-bit counter of its own, and each address
 * that is a base the loop does not change plus an index linear in that
 * counter a pointer of its own: its first turn's value made before the
 * loop, a step added each turn. */
#include <assert.h>

#include "jit/ir/ir.h"
#include "jit/ptx/ptx.h"

/* How many operations deep an index is followed. */
#define DEPTH WEFT_EXTENSION_DEPTH

/* The loop and its 64-bit counter, which starts at start on the way in
 * from before (the preheader) and adds step a turn. */
typedef struct {
  LLVMBasicBlockRef body;
  LLVMBasicBlockRef before;
  LLVMValueRef counter, start, step;
} loop_counter;

/* ------------------------------------------------ the 64-bit counter */

static int is_data(LLVMValueRef v, void *data) { return v == data; }

/* v extended to 64 bits (sign: with its sign) before where's end. */
static LLVMValueRef extend_at_end(LLVMBuilderRef b, LLVMBasicBlockRef where,
                                  LLVMValueRef v, int sign) {
  LLVMTypeRef wide = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(v)));
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(where));
  return sign ? LLVMBuildSExt(b, v, wide, "") : LLVMBuildZExt(b, v, wide, "");
}

/* The loop's counter as written: `phi + step` (step_add), the phi
 * starting at start on the way in from before. */
typedef struct {
  LLVMValueRef phi, start, step, step_add;
} narrow_counter;

/* A 64-bit twin of the 32-bit counter n: its start and step extended
 * before the loop (sign: with their sign). It is the counter's
 * extension wherever the loop goes on: a turn whose step wrapped would
 * have branched on poison. */
static void twin_counter(LLVMBuilderRef b, loop_counter *l,
                         const narrow_counter *n, int sign) {
  LLVMTypeRef wide = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(n->phi)));
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(l->body));
  l->counter = LLVMBuildPhi(b, wide, "counter.wide");
  l->step = extend_at_end(b, l->before, n->step, sign);
  l->start = extend_at_end(b, l->before, n->start, sign);
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(l->body));
  LLVMValueRef next = LLVMBuildAdd(b, l->counter, l->step, "counter.wide.next");
  if (sign) LLVMSetNSW(next, 1);
  else LLVMSetNUW(next, 1);
  LLVMAddIncoming(l->counter, (LLVMValueRef[]){l->start, next},
                  (LLVMBasicBlockRef[]){l->before, l->body}, 2);
}

/* The loop's 32-bit indices computed from its counter made 64-bit over
 * their leaves, and the extensions of the counter then read a 64-bit
 * twin (l->counter; NULL where none did). */
static void widen_indices(LLVMBuilderRef b, loop_counter *l,
                          const narrow_counter *n) {
  int sign = LLVMGetNSW(n->step_add);
  for (LLVMValueRef i = LLVMGetFirstInstruction(l->body), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    int ext_sign;
    if (!weft__index_extension(i, &ext_sign) || ext_sign != sign) continue;
    LLVMValueRef from = LLVMGetOperand(i, 0);
    if (from != n->phi &&
        weft__extension_reaches(from, sign, DEPTH, is_data, n->phi))
      weft__extension_push_down(b, i, DEPTH);
  }
  for (LLVMValueRef i = LLVMGetFirstInstruction(l->body), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    int ext_sign;
    if (!weft__index_extension(i, &ext_sign) || ext_sign != sign ||
        LLVMGetOperand(i, 0) != n->phi)
      continue;
    if (!l->counter) twin_counter(b, l, n, sign);
    LLVMReplaceAllUsesWith(i, l->counter);
    LLVMInstructionEraseFromParent(i);
  }
}

/* ------------------------------------------------ indices as pointers */

enum { FIXED, LINEAR, OTHER };

static int in_body(const loop_counter *l, LLVMValueRef v) {
  return LLVMIsAInstruction(v) && LLVMGetInstructionParent(v) == l->body;
}

/* How v goes with the counter: FIXED (the same every turn), LINEAR (a
 * fixed amount more each turn, in 64-bit arithmetic) or OTHER. */
static int relation(const loop_counter *l, LLVMValueRef v, unsigned depth) {
  if (v == l->counter) return LINEAR;
  if (!in_body(l, v)) return FIXED;
  if (!depth) return OTHER;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  int a = OTHER, c = FIXED;
  switch (op) {
  case LLVMSExt:
  case LLVMZExt:
    /* An extension of a changing value may wrap in between. */
    return relation(l, LLVMGetOperand(v, 0), depth - 1) == FIXED ? FIXED
                                                                 : OTHER;
  case LLVMShl:
    if (!LLVMIsAConstantInt(LLVMGetOperand(v, 1))) return OTHER;
    return relation(l, LLVMGetOperand(v, 0), depth - 1);
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
    a = relation(l, LLVMGetOperand(v, 0), depth - 1);
    c = relation(l, LLVMGetOperand(v, 1), depth - 1);
    break;
  default:
    return OTHER;
  }
  if (a == OTHER || c == OTHER) return OTHER;
  if (op == LLVMMul && a == LINEAR && c == LINEAR) return OTHER;
  return a == LINEAR || c == LINEAR ? LINEAR : FIXED;
}

/* v at the loop's first turn, made at b (before the loop), for v of the
 * operations relation() takes. */
static LLVMValueRef at_start(LLVMBuilderRef b, const loop_counter *l,
                             LLVMValueRef v) {
  if (v == l->counter) return l->start;
  if (!in_body(l, v)) return v;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  LLVMValueRef x = at_start(b, l, LLVMGetOperand(v, 0));
  if (op == LLVMSExt || op == LLVMZExt)
    return LLVMBuildCast(b, op, x, LLVMTypeOf(v), "");
  return LLVMBuildBinOp(b, op, x, at_start(b, l, LLVMGetOperand(v, 1)), "");
}

/* What a LINEAR v adds each turn, made at b; NULL for a FIXED v (0). */
static LLVMValueRef per_turn(LLVMBuilderRef b, const loop_counter *l,
                             LLVMValueRef v) {
  if (v == l->counter) return l->step;
  if (relation(l, v, DEPTH) == FIXED) return NULL;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  LLVMValueRef x = LLVMGetOperand(v, 0), y = LLVMGetOperand(v, 1);
  LLVMValueRef dx = per_turn(b, l, x);
  if (op == LLVMShl) return LLVMBuildShl(b, dx, y, "");
  LLVMValueRef dy = per_turn(b, l, y);
  switch (op) {
  case LLVMAdd:
    return !dx ? dy : !dy ? dx : LLVMBuildAdd(b, dx, dy, "");
  case LLVMSub:
    return !dy ? dx : !dx ? LLVMBuildNeg(b, dy, "") : LLVMBuildSub(b, dx, dy, "");
  default:
    assert(op == LLVMMul);
    return dx ? LLVMBuildMul(b, dx, at_start(b, l, y), "")
              : LLVMBuildMul(b, at_start(b, l, x), dy, "");
  }
}

/* The GEP g of one index, linear in the counter, over a base from
 * before the loop, made a pointer that starts at g's first turn and
 * steps by what g's index adds a turn. */
static void step_pointer(LLVMBuilderRef b, const loop_counter *l,
                         LLVMValueRef g) {
  LLVMValueRef base = LLVMGetOperand(g, 0), index = LLVMGetOperand(g, 1);
  LLVMTypeRef element = LLVMGetGEPSourceElementType(g);
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(l->before));
  LLVMValueRef first =
      LLVMBuildGEP2(b, element, base, (LLVMValueRef[]){at_start(b, l, index)},
                    1, "");
  LLVMValueRef step = per_turn(b, l, index);
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(l->body));
  LLVMValueRef p = LLVMBuildPhi(b, LLVMTypeOf(g), "stepped");
  LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(l->body));
  LLVMValueRef next = LLVMBuildGEP2(b, element, p, &step, 1, "");
  LLVMAddIncoming(p, (LLVMValueRef[]){first, next},
                  (LLVMBasicBlockRef[]){l->before, l->body}, 2);
  LLVMReplaceAllUsesWith(g, p);
  LLVMInstructionEraseFromParent(g);
}

static int steppable(const loop_counter *l, LLVMValueRef g) {
  if (!LLVMIsAGetElementPtrInst(g) || LLVMGetNumIndices(g) != 1 ||
      in_body(l, LLVMGetOperand(g, 0)))
    return 0;
  LLVMValueRef index = LLVMGetOperand(g, 1);
  return LLVMGetTypeKind(LLVMTypeOf(index)) == LLVMIntegerTypeKind &&
         LLVMGetIntTypeWidth(LLVMTypeOf(index)) == 64 &&
         relation(l, index, DEPTH) == LINEAR;
}

/* Whether v is a phi of block body (the counter's, of `phi + step`). */
static int is_phi_of(LLVMValueRef v, LLVMBasicBlockRef body) {
  return LLVMIsAPHINode(v) && LLVMGetInstructionParent(v) == body;
}

void weft__ptx_loop_pointers(LLVMBasicBlockRef body, LLVMValueRef step_add,
                             LLVMBuilderRef b) {
  unsigned side = is_phi_of(LLVMGetOperand(step_add, 0), body) ? 0 : 1;
  narrow_counter n = {LLVMGetOperand(step_add, side), NULL,
                      LLVMGetOperand(step_add, 1 - side), step_add};
  assert(is_phi_of(n.phi, body));
  /* One way in (a preheader), and the loop's own. */
  if (LLVMCountIncoming(n.phi) != 2) return;
  loop_counter l = {.body = body};
  for (unsigned i = 0; i < 2; i++)
    if (LLVMGetIncomingBlock(n.phi, i) != body) {
      l.before = LLVMGetIncomingBlock(n.phi, i);
      n.start = LLVMGetIncomingValue(n.phi, i);
    }
  if (!l.before) return;
  unsigned width = LLVMGetIntTypeWidth(LLVMTypeOf(n.phi));
  if (width == 32) {
    widen_indices(b, &l, &n);
  } else if (width == 64) {
    l.counter = n.phi;
    l.start = n.start;
    l.step = n.step;
  }
  if (!l.counter) return;
  for (LLVMValueRef i = LLVMGetFirstInstruction(body), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (steppable(&l, i)) step_pointer(b, &l, i);
  }
}
