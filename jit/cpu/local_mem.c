/* local_mem.c: step 5 of passes.h, kernel-scope __local variables.
 *
 * Clang makes each __local variable a global in address space 3. Groups run
 * concurrently on different threads (and, later, several groups share one
 * thread), so each group needs its own copy: every variable a work-group
 * function uses gets an offset in the group's local memory, and its uses
 * become ctx->local_mem + offset. Uses hidden inside constant expressions
 * (a constant GEP into a __local array) are rebuilt as instructions first,
 * since only instructions can depend on a value loaded at run time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"


typedef struct local_var {
  LLVMValueRef global;
  LLVMValueRef pointer; /* its address in this group, built at entry */
} local_var;

typedef struct local_layout {
  local_var *vars;
  unsigned count;
  LLVMBuilderRef b;
  int failed;
} local_layout;

static int is_local_var(LLVMValueRef v) {
  return LLVMIsAGlobalVariable(v) &&
         LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == WEFT_AS_LOCAL;
}

static local_var *find_var(local_layout *l, LLVMValueRef global) {
  for (unsigned i = 0; i < l->count; i++)
    if (l->vars[i].global == global) return &l->vars[i];
  return NULL;
}

/* Whether constant v refers to a __local variable, directly or within. */
static int refers_to_local(LLVMValueRef v) {
  if (is_local_var(v)) return 1;
  if (!LLVMIsAConstantExpr(v)) return 0;
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (refers_to_local(LLVMGetOperand(v, i))) return 1;
  return 0;
}

static void collect(local_layout *l, LLVMValueRef v) {
  if (is_local_var(v)) {
    if (find_var(l, v)) return;
    local_var *grown = realloc(l->vars, (l->count + 1) * sizeof *grown);
    if (!grown) {
      l->failed = 1;
      return;
    }
    l->vars = grown;
    l->vars[l->count++] = (local_var){v, NULL};
  } else if (LLVMIsAConstantExpr(v)) {
    for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
      collect(l, LLVMGetOperand(v, i));
  }
}

/* The instruction form of constant v, with __local variables replaced,
 * built at the builder's position. NULL if v has a form we cannot rebuild. */
static LLVMValueRef rebuild(local_layout *l, LLVMValueRef v) {
  if (is_local_var(v)) return find_var(l, v)->pointer;
  if (!LLVMIsAConstantExpr(v) || !refers_to_local(v)) return v;
  int n = LLVMGetNumOperands(v);
  LLVMValueRef ops[n > 0 ? n : 1];
  for (int i = 0; i < n; i++)
    if (!(ops[i] = rebuild(l, LLVMGetOperand(v, i)))) return NULL;
  LLVMOpcode op = LLVMGetConstOpcode(v);
  switch (op) {
  case LLVMGetElementPtr: {
    LLVMValueRef gep = LLVMBuildGEP2(l->b, LLVMGetGEPSourceElementType(v),
                                     ops[0], ops + 1, (unsigned)n - 1, "");
    LLVMSetIsInBounds(gep, LLVMIsInBounds(v));
    return gep;
  }
  case LLVMAddrSpaceCast:
  case LLVMBitCast:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
    return LLVMBuildCast(l->b, op, ops[0], LLVMTypeOf(v), "");
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMXor:
  case LLVMShl:
    return LLVMBuildBinOp(l->b, op, ops[0], ops[1], "");
  case LLVMICmp:
    return LLVMBuildICmp(l->b, LLVMGetICmpPredicate(v), ops[0], ops[1], "");
  default:
    return NULL;
  }
}

/* Where an operand of instruction i must be computed: before i, or for a
 * phi, at the end of the block the value comes from. */
static void position_for(LLVMBuilderRef b, LLVMValueRef i, unsigned operand) {
  if (LLVMIsAPHINode(i))
    LLVMPositionBuilderBefore(
        b, LLVMGetBasicBlockTerminator(LLVMGetIncomingBlock(i, operand)));
  else
    LLVMPositionBuilderBefore(b, i);
}

static void rewrite_operands(local_layout *l, LLVMValueRef i) {
  for (int k = 0, n = LLVMGetNumOperands(i); k < n; k++) {
    LLVMValueRef v = LLVMGetOperand(i, k);
    if (!refers_to_local(v)) continue;
    position_for(l->b, i, (unsigned)k);
    LLVMValueRef replacement = rebuild(l, v);
    if (!replacement) l->failed = 1;
    else LLVMSetOperand(i, (unsigned)k, replacement);
  }
}

#define FOR_EACH_INSTRUCTION(fn, i)                                          \
  for (LLVMBasicBlockRef bb_ = LLVMGetFirstBasicBlock(fn); bb_;              \
       bb_ = LLVMGetNextBasicBlock(bb_))                                     \
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb_); i;                   \
         i = LLVMGetNextInstruction(i))

/* Lays the variables out from offset 0 and builds their addresses at the
 * start of fn. Returns the bytes used. */
static size_t place(local_layout *l, LLVMValueRef fn, LLVMTargetDataRef td) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  LLVMPositionBuilderBefore(l->b, LLVMGetFirstInstruction(entry));
  LLVMValueRef base = LLVMBuildLoad2(
      l->b, LLVMPointerTypeInContext(context, 0),
      weft__ctx_field(l->b, LLVMGetParam(fn, 1),
                      offsetof(weft_wg_ctx, local_mem)),
      "local_mem");
  weft__set_invariant(base);
  size_t offset = 0;
  for (unsigned i = 0; i < l->count; i++) {
    LLVMValueRef g = l->vars[i].global;
    LLVMTypeRef type = LLVMGlobalGetValueType(g);
    size_t align = LLVMABIAlignmentOfType(td, type);
    if (LLVMGetAlignment(g) > align) align = LLVMGetAlignment(g);
    offset = (offset + align - 1) / align * align;
    LLVMValueRef index = LLVMConstInt(i64, offset, 0);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(
        l->b, LLVMInt8TypeInContext(context), base, &index, 1, "");
    l->vars[i].pointer = LLVMBuildAddrSpaceCast(l->b, p, LLVMTypeOf(g), "");
    offset += (size_t)LLVMABISizeOfType(td, type);
  }
  return offset;
}

int weft__local_mem_lower(LLVMValueRef fn, LLVMTargetDataRef layout,
                          size_t *size, char **error) {
  local_layout l = {0};
  FOR_EACH_INSTRUCTION(fn, i) {
    for (int k = 0, n = LLVMGetNumOperands(i); k < n; k++)
      collect(&l, LLVMGetOperand(i, k));
  }
  *size = 0;
  if (l.count && !l.failed) {
    l.b = LLVMCreateBuilderInContext(
        LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
    *size = place(&l, fn, layout);
    FOR_EACH_INSTRUCTION(fn, i) {
      /* The address computations just placed refer to no variable. */
      rewrite_operands(&l, i);
    }
    LLVMDisposeBuilder(l.b);
  }
  free(l.vars);
  if (l.failed) {
    /* The work-group function is named "prefix.kernel". */
    const char *name = strrchr(LLVMGetValueName(fn), '.');
    if (asprintf(error, "error: kernel '%s' uses a __local variable in a "
                 "way Weft cannot place in per-group memory\n",
                 name ? name + 1 : LLVMGetValueName(fn)) < 0)
      *error = NULL;
    return WEFT_EBUILD;
  }
  return 0;
}
