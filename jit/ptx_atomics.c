/* ptx_atomics.c: ordered atomics as PTX's own ordered instructions (see
 * ptx.h). LLVM 19's NVPTX back end selects none: ptx_select.c would
 * otherwise put a fence.acq_rel on each side of a relaxed access, and a
 * fence costs a round trip to memory where ld.acquire, st.release and
 * atom.acq_rel order only what they must. The mapping is the PTX memory
 * model's for C++: acquire loads, release stores and ordered
 * read-modify-writes as such, seq_cst as fence.sc before the acquire,
 * release or acq_rel form. Integers of 32 and 64 bits in global memory
 * are handled (the primitives' words, OpenCL 1.2's atomics); the rest,
 * generic addresses included, keeps the fences. */
#include <stdio.h>
#include <string.h>

#include "jit/ptx.h"

/* The access's PTX spelling: its ordering and state space, the type's
 * suffix letter size and its register constraint. */
typedef struct access_form {
  const char *fence;     /* "fence.sc.gpu; " or "" */
  const char *order;     /* "acquire", "release" or "acq_rel" */
  const char *space;     /* ".global" */
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
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(pointer)) != 1) return 0;
  if (LLVMGetTypeKind(type) != LLVMIntegerTypeKind) return 0;
  unsigned bits = LLVMGetIntTypeWidth(type);
  if (bits != 32 && bits != 64) return 0;
  int seq_cst = o == LLVMAtomicOrderingSequentiallyConsistent;
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
  form->fence = seq_cst ? "fence.sc.gpu; " : "";
  form->space = ".global";
  form->bits = bits;
  form->reg = bits == 64 ? 'l' : 'r';
  return 1;
}

/* A call of the inline assembly text with constraints, returning type
 * (void for none), on args, placed before inst. */
static LLVMValueRef call_asm(LLVMBuilderRef b, LLVMValueRef inst,
                             LLVMTypeRef type, const char *text,
                             const char *constraints, LLVMValueRef *args,
                             unsigned count) {
  LLVMTypeRef params[4];
  for (unsigned i = 0; i < count; i++) params[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef fn = LLVMFunctionType(type, params, count, 0);
  LLVMValueRef code = LLVMGetInlineAsm(
      fn, (char *)text, strlen(text), (char *)constraints, strlen(constraints),
      1, 0, LLVMInlineAsmDialectATT, 0);
  LLVMPositionBuilderBefore(b, inst);
  return LLVMBuildCall2(b, fn, code, args, count, "");
}

/* The address as a 64-bit integer, as the "l" constraint takes it. */
static LLVMValueRef address(LLVMBuilderRef b, LLVMValueRef inst,
                            LLVMValueRef pointer) {
  LLVMPositionBuilderBefore(b, inst);
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(pointer));
  return LLVMBuildPtrToInt(b, pointer, LLVMInt64TypeInContext(context), "");
}

static int lower_load(LLVMBuilderRef b, LLVMValueRef inst) {
  access_form f;
  LLVMValueRef pointer = LLVMGetOperand(inst, 0);
  if (!form_of(pointer, LLVMTypeOf(inst), LLVMGetOrdering(inst), 'l', &f))
    return 0;
  char text[96], constraints[32];
  snprintf(text, sizeof text, "%sld.%s.gpu%s.b%u $0, [$1];", f.fence, f.order,
           f.space, f.bits);
  snprintf(constraints, sizeof constraints, "=%c,l,~{memory}", f.reg);
  LLVMValueRef args[] = {address(b, inst, pointer)};
  LLVMValueRef v =
      call_asm(b, inst, LLVMTypeOf(inst), text, constraints, args, 1);
  LLVMReplaceAllUsesWith(inst, v);
  return 1;
}

static int lower_store(LLVMBuilderRef b, LLVMValueRef inst) {
  access_form f;
  LLVMValueRef value = LLVMGetOperand(inst, 0), pointer = LLVMGetOperand(inst, 1);
  if (!form_of(pointer, LLVMTypeOf(value), LLVMGetOrdering(inst), 's', &f))
    return 0;
  char text[96], constraints[32];
  snprintf(text, sizeof text, "%sst.%s.gpu%s.b%u [$0], $1;", f.fence, f.order,
           f.space, f.bits);
  snprintf(constraints, sizeof constraints, "l,%c,~{memory}", f.reg);
  LLVMValueRef args[] = {address(b, inst, pointer), value};
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(value));
  call_asm(b, inst, LLVMVoidTypeInContext(context), text, constraints, args, 2);
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
  char text[128], constraints[32];
  snprintf(text, sizeof text, "%satom.%s.gpu%s.%s.%s%u $0, [$1], $2;", f.fence,
           f.order, f.space, op, type, f.bits);
  snprintf(constraints, sizeof constraints, "=%c,l,%c,~{memory}", f.reg, f.reg);
  LLVMValueRef args[] = {address(b, inst, pointer), value};
  if (negate) args[1] = LLVMBuildNeg(b, value, "");
  LLVMValueRef old = call_asm(b, inst, LLVMTypeOf(value), text, constraints,
                              args, 2);
  LLVMReplaceAllUsesWith(inst, old);
  return 1;
}

/* A compare-and-swap is strong in PTX, so a weak one is served too; its
 * result pair is rebuilt from the old value. */
static int lower_cmpxchg(LLVMBuilderRef b, LLVMValueRef inst) {
  access_form f;
  LLVMValueRef pointer = LLVMGetOperand(inst, 0),
               expected = LLVMGetOperand(inst, 1),
               desired = LLVMGetOperand(inst, 2);
  if (!form_of(pointer, LLVMTypeOf(expected),
               LLVMGetCmpXchgSuccessOrdering(inst), 'm', &f))
    return 0;
  char text[128], constraints[32];
  snprintf(text, sizeof text, "%satom.%s.gpu%s.cas.b%u $0, [$1], $2, $3;",
           f.fence, f.order, f.space, f.bits);
  snprintf(constraints, sizeof constraints, "=%c,l,%c,%c,~{memory}", f.reg,
           f.reg, f.reg);
  LLVMValueRef args[] = {address(b, inst, pointer), expected, desired};
  LLVMValueRef old = call_asm(b, inst, LLVMTypeOf(expected), text,
                              constraints, args, 3);
  LLVMValueRef same = LLVMBuildICmp(b, LLVMIntEQ, old, expected, "");
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
