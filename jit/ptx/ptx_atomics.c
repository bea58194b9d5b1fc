/* ptx_atomics.c: ordered atomics as PTX's own ordered instructions (see
 * ptx.h). LLVM 19's NVPTX back end selects none: ptx_select.c would
 * otherwise put a fence.acq_rel on each side of a relaxed access, and a
 * fence costs a round trip to memory where ld.acquire, st.release and
 * atom.acq_rel order only what they must. The mapping is the PTX memory
 * model's for C++: acquire loads, release stores and ordered
 * read-modify-writes as such, seq_cst as fence.sc before the acquire,
 * release or acq_rel form. A release read-modify-write whose old value
 * nothing uses is a red, which the thread that makes it does not wait
 * for: the builtins' unlocks and posts (compiled with optimization, they
 * drop the value; a kernel's own discarded value is still stored to a
 * temporary when this runs, so it stays an atom). Integers of 32 and 64 bits in global memory
 * are handled (the primitives' words, OpenCL 1.2's atomics); the rest,
 * generic addresses included, keeps the fences. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "jit/ir/ir.h"
#include "jit/ptx/ptx.h"

/* The access's PTX spelling: its ordering, and the width and register
 * constraint of its values. */
typedef struct access_form {
  const char *fence;     /* "fence.sc.gpu; " or "" */
  const char *order;     /* "acquire", "release" or "acq_rel" */
  unsigned bits;         /* 32 or 64 */
  char reg;              /* 'r' or 'l' */
} access_form;

/* Fills form for an access of type through pointer in the ordering, as
 * a load (want 'l'), a store ('s') or a read-modify-write ('m'); 0 when
 * it is not one handled here. */
static int form_of(LLVMValueRef pointer, LLVMTypeRef type,
                   LLVMAtomicOrdering o, char want, access_form *form) {
  /* Global memory only: a generic address may be __local memory, where
   * on an H100 a work-group's spin lock of atom.acquire.gpu and
   * st.release.gpu through generic addresses hung (test_atomic_c11's
   * local tests), and the fences work. */
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)) != WEFT_AS_GLOBAL)
    return 0;
  if (LLVMGetTypeKind(type) != LLVMIntegerTypeKind) return 0;
  unsigned bits = LLVMGetIntTypeWidth(type);
  if (bits != 32 && bits != 64) return 0;
  switch (o) {
  case LLVMAtomicOrderingAcquire:
    if (want == 's') return 0;
    form->order = "acquire";
    break;
  case LLVMAtomicOrderingRelease:
    if (want == 'l') return 0;
    form->order = "release";
    break;
  case LLVMAtomicOrderingAcquireRelease:
  case LLVMAtomicOrderingSequentiallyConsistent:
    form->order = want == 'l' ? "acquire" : want == 's' ? "release" : "acq_rel";
    break;
  default:
    return 0; /* relaxed ones need no fence */
  }
  form->fence =
      o == LLVMAtomicOrderingSequentiallyConsistent ? "fence.sc.gpu; " : "";
  form->bits = bits;
  form->reg = bits == 64 ? 'l' : 'r';
  return 1;
}

/* Puts before inst, and returns, the inline assembly "FENCE OP.ORDER.gpu.
 * global WHATBITS OPERANDS;" on pointer's address ($0, or $1 after a
 * result) and values, returning type (void for none). In constraints, R
 * stands for a value's register, r or l by the width. */
static LLVMValueRef emit(LLVMBuilderRef b, LLVMValueRef inst,
                         const access_form *f, const char *op,
                         const char *what, const char *operands,
                         const char *constraints, LLVMTypeRef type,
                         LLVMValueRef pointer, const LLVMValueRef *values,
                         unsigned count) {
  char text[160], with_regs[48];
  snprintf(text, sizeof text, "%s%s.%s.gpu.global%s%u %s;", f->fence, op,
           f->order, what, f->bits, operands);
  size_t n = 0;
  for (; constraints[n] && n < sizeof with_regs - 1; n++)
    with_regs[n] = constraints[n] == 'R' ? f->reg : constraints[n];
  with_regs[n] = 0;
  LLVMPositionBuilderBefore(b, inst);
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(pointer));
  LLVMValueRef args[4] = {
      LLVMBuildPtrToInt(b, pointer, LLVMInt64TypeInContext(context), "")};
  LLVMTypeRef params[4] = {LLVMInt64TypeInContext(context)};
  assert(count < 4);
  for (unsigned i = 0; i < count; i++) {
    args[i + 1] = values[i];
    params[i + 1] = LLVMTypeOf(values[i]);
  }
  LLVMTypeRef fn = LLVMFunctionType(type, params, count + 1, 0);
  LLVMValueRef code = LLVMGetInlineAsm(fn, text, strlen(text), with_regs,
                                       strlen(with_regs), 1, 0,
                                       LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(b, fn, code, args, count + 1, "");
}

static int lower_load(LLVMBuilderRef b, LLVMValueRef inst) {
  access_form f;
  LLVMValueRef pointer = LLVMGetOperand(inst, 0);
  if (!form_of(pointer, LLVMTypeOf(inst), LLVMGetOrdering(inst), 'l', &f))
    return 0;
  LLVMReplaceAllUsesWith(
      inst, emit(b, inst, &f, "ld", ".b", "$0, [$1]", "=R,l,~{memory}",
                 LLVMTypeOf(inst), pointer, NULL, 0));
  return 1;
}

static int lower_store(LLVMBuilderRef b, LLVMValueRef inst) {
  access_form f;
  LLVMValueRef value = LLVMGetOperand(inst, 0), pointer = LLVMGetOperand(inst, 1);
  if (!form_of(pointer, LLVMTypeOf(value), LLVMGetOrdering(inst), 's', &f))
    return 0;
  LLVMTypeRef none = LLVMVoidTypeInContext(LLVMGetTypeContext(LLVMTypeOf(value)));
  emit(b, inst, &f, "st", ".b", "[$0], $1", "l,R,~{memory}", none, pointer,
       &value, 1);
  return 1;
}

/* PTX's name and type letter for a read-modify-write operation, or NULL;
 * *negate when the operand goes in negated (sub is an add). */
static const char *rmw_op(LLVMAtomicRMWBinOp op, const char **type,
                          int *negate) {
  *negate = 0;
  *type = "b";
  switch (op) {
  case LLVMAtomicRMWBinOpXchg: return "exch";
  case LLVMAtomicRMWBinOpAnd: return "and";
  case LLVMAtomicRMWBinOpOr: return "or";
  case LLVMAtomicRMWBinOpXor: return "xor";
  case LLVMAtomicRMWBinOpSub: *negate = 1; /* fall through */
  case LLVMAtomicRMWBinOpAdd: *type = "u"; return "add";
  case LLVMAtomicRMWBinOpMax: *type = "s"; return "max";
  case LLVMAtomicRMWBinOpMin: *type = "s"; return "min";
  case LLVMAtomicRMWBinOpUMax: *type = "u"; return "max";
  case LLVMAtomicRMWBinOpUMin: *type = "u"; return "min";
  default: return NULL;
  }
}

static int lower_rmw(LLVMBuilderRef b, LLVMValueRef inst) {
  access_form f;
  const char *type;
  int negate;
  const char *op = rmw_op(LLVMGetAtomicRMWBinOp(inst), &type, &negate);
  LLVMValueRef pointer = LLVMGetOperand(inst, 0), value = LLVMGetOperand(inst, 1);
  if (!op ||
      !form_of(pointer, LLVMTypeOf(value), LLVMGetOrdering(inst), 'm', &f))
    return 0;
  char what[16];
  snprintf(what, sizeof what, ".%s.%s", op, type);
  if (negate) {
    LLVMPositionBuilderBefore(b, inst);
    value = LLVMBuildNeg(b, value, "");
  }
  /* PTX's red has release and relaxed forms only, and no exchange. */
  if (!LLVMGetFirstUse(inst) && !strcmp(f.order, "release") &&
      strcmp(op, "exch")) {
    LLVMTypeRef none = LLVMVoidTypeInContext(LLVMGetTypeContext(LLVMTypeOf(value)));
    emit(b, inst, &f, "red", what, "[$0], $1", "l,R,~{memory}", none, pointer,
         &value, 1);
    return 1;
  }
  LLVMReplaceAllUsesWith(
      inst, emit(b, inst, &f, "atom", what, "$0, [$1], $2", "=R,l,R,~{memory}",
                 LLVMTypeOf(value), pointer, &value, 1));
  return 1;
}

/* A compare-and-swap is strong in PTX, so a weak one is served too; its
 * result pair is rebuilt from the old value. */
static int lower_cmpxchg(LLVMBuilderRef b, LLVMValueRef inst) {
  access_form f;
  LLVMValueRef pointer = LLVMGetOperand(inst, 0);
  LLVMValueRef values[] = {LLVMGetOperand(inst, 1), LLVMGetOperand(inst, 2)};
  if (!form_of(pointer, LLVMTypeOf(values[0]),
               LLVMGetCmpXchgSuccessOrdering(inst), 'm', &f))
    return 0;
  LLVMValueRef old = emit(b, inst, &f, "atom", ".cas.b", "$0, [$1], $2, $3",
                          "=R,l,R,R,~{memory}", LLVMTypeOf(values[0]),
                          pointer, values, 2);
  LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, old, values[0], "");
  LLVMValueRef pair = LLVMGetUndef(LLVMTypeOf(inst));
  pair = LLVMBuildInsertValue(b, pair, old, 0, "");
  pair = LLVMBuildInsertValue(b, pair, same, 1, "");
  LLVMReplaceAllUsesWith(inst, pair);
  return 1;
}

int weft__ptx_atomic_lower(LLVMBuilderRef b, LLVMValueRef inst) {
  int done = LLVMIsALoadInst(inst)       ? lower_load(b, inst)
             : LLVMIsAStoreInst(inst)    ? lower_store(b, inst)
             : LLVMIsAAtomicRMWInst(inst) ? lower_rmw(b, inst)
             : LLVMIsAAtomicCmpXchgInst(inst) ? lower_cmpxchg(b, inst)
                                              : 0;
  if (done) LLVMInstructionEraseFromParent(inst);
  return done;
}
