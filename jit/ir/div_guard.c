/* div_guard.c: integer division that never traps (passes.h).
 *
 * OpenCL C leaves x / 0, x % 0 and INT_MIN / -1 undefined in value, but a
 * kernel that computes one must go on (the CTS divides by zero on purpose),
 * while x86's idiv raises SIGFPE and LLVM may treat the division as
 * unreachable. Every sdiv, udiv, srem and urem whose divisor is not a
 * constant known to be safe gets a divisor that is, and the result RISC-V
 * defines for these cases, on every device:
 *
 *   x / 0 = all bits set (-1 signed, the maximum unsigned)    x % 0 = x
 *   INT_MIN / -1 = INT_MIN (the wrapped quotient)             INT_MIN % -1 = 0
 *
 * A constant divisor other than 0 (and -1, for a signed one) needs
 * nothing, nor does a work-item size query (never below 1); a divisor
 * checked in a loop is hoisted with the division by LLVM's own passes.
 * The operands are frozen first: an undefined divisor must not let LLVM
 * fold the check away.
 *
 * In check mode each guarded division also calls WEFT_DIVISION_CHECK
 * with whether it divided by zero, which check_memory.c turns into a
 * warning naming the work-item and the line. */
#include "jit/ir/ir.h"

#include <llvm-c/DebugInfo.h>
#include <string.h>

#include "weft/weft.h"

/* The constant of type (an integer or a vector of integers) whose every
 * element is value. */
static LLVMValueRef splat(LLVMTypeRef type, unsigned long long value) {
  if (LLVMGetTypeKind(type) != LLVMVectorTypeKind)
    return LLVMConstInt(type, value, 0);
  unsigned n = LLVMGetVectorSize(type);
  LLVMValueRef elements[n];
  for (unsigned i = 0; i < n; i++)
    elements[i] = LLVMConstInt(LLVMGetElementType(type), value, 0);
  return LLVMConstVector(elements, n);
}

static int safe_scalar(LLVMValueRef c, int is_signed) {
  if (!LLVMIsAConstantInt(c)) return 0;
  long long v = LLVMConstIntGetSExtValue(c);
  return v != 0 && !(is_signed && v == -1);
}

/* Whether d is a work-item size query's answer: at least 1 in every
 * dimension (1 past the launch's), and far below 2^63, so never 0 or -1
 * (`i % get_global_size(0)`, a wrap-around index: its select cost a
 * GPU kernel dividing in a loop 5%). The front end calls them by their
 * mangled names; the builtins' sub-group width (4 to 32) by its C name:
 * guarded, `id % width` froze the local id, and a value made from a
 * frozen one is saved across a barrier, not made again (regions.c). */
static int size_query(LLVMValueRef d) {
  static const char *const names[] = {
      "_Z15get_global_sizej", "_Z14get_local_sizej", "_Z14get_num_groupsj",
      "_Z23get_enqueued_local_sizej", "__weft_sub_group_width"};
  if (!LLVMIsACallInst(d)) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(d);
  if (!LLVMIsAFunction(callee)) return 0;
  const char *name = LLVMGetValueName(callee);
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(name, names[i])) return 1;
  return 0;
}

/* Whether the divisor d cannot trap: a constant other than 0 (and -1,
 * signed), or a size query. */
static int safe_divisor(LLVMValueRef d, int is_signed) {
  if (size_query(d)) return 1;
  if (LLVMIsAConstantInt(d)) return safe_scalar(d, is_signed);
  if (!LLVMIsAConstantDataVector(d) && !LLVMIsAConstantVector(d)) return 0;
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(d));
  for (unsigned i = 0; i < n; i++)
    if (!safe_scalar(LLVMGetAggregateElement(d, i), is_signed)) return 0;
  return 1;
}

/* Calls WEFT_DIVISION_CHECK(any lane of zero is set). */
static void note_division(LLVMBuilderRef b, LLVMValueRef zero) {
  LLVMModuleRef module =
      LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)));
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef i1 = LLVMInt1TypeInContext(context);
  LLVMTypeRef type = LLVMTypeOf(zero);
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind) {
    LLVMTypeRef bits = LLVMIntTypeInContext(context, LLVMGetVectorSize(type));
    zero = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildBitCast(b, zero, bits, ""),
                         LLVMConstNull(bits), "");
  }
  LLVMValueRef fn = weft__runtime_function(module, WEFT_DIVISION_CHECK, NULL,
                                           &i1, 1, NULL);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &zero, 1, "");
}

/* Replaces the division inst (before which b stands) by its guarded form. */
static void guard(LLVMBuilderRef b, LLVMValueRef inst, LLVMOpcode op,
                  int report) {
  int is_signed = op == LLVMSDiv || op == LLVMSRem;
  int is_rem = op == LLVMSRem || op == LLVMURem;
  LLVMTypeRef type = LLVMTypeOf(inst);
  LLVMTypeRef element = LLVMGetTypeKind(type) == LLVMVectorTypeKind
                            ? LLVMGetElementType(type)
                            : type;
  unsigned bits = LLVMGetIntTypeWidth(element);
  LLVMValueRef x = LLVMBuildFreeze(b, LLVMGetOperand(inst, 0), "");
  LLVMValueRef d = LLVMBuildFreeze(b, LLVMGetOperand(inst, 1), "");
  LLVMValueRef zero = LLVMBuildICmp(b, LLVMIntEQ, d, LLVMConstNull(type), "");
  if (report) note_division(b, zero);
  LLVMValueRef bad = zero;
  if (is_signed) {
    /* INT_MIN / -1 overflows: divided by 1 instead, it gives INT_MIN
     * (the wrapped quotient) and a remainder of 0, both right. */
    LLVMValueRef min = LLVMBuildICmp(b, LLVMIntEQ, x,
                                     splat(type, 1ull << (bits - 1)), "");
    LLVMValueRef minus_one =
        LLVMBuildICmp(b, LLVMIntEQ, d, LLVMConstAllOnes(type), "");
    bad = LLVMBuildOr(b, zero, LLVMBuildAnd(b, min, minus_one, ""), "");
  }
  LLVMValueRef divisor = LLVMBuildSelect(b, bad, splat(type, 1), d, "");
  LLVMValueRef result = LLVMBuildBinOp(b, op, x, divisor, "");
  LLVMValueRef by_zero = is_rem ? x : LLVMConstAllOnes(type);
  result = LLVMBuildSelect(b, zero, by_zero, result, "");
  LLVMReplaceAllUsesWith(inst, result);
  LLVMInstructionEraseFromParent(inst);
}

static int is_division(LLVMOpcode op) {
  return op == LLVMSDiv || op == LLVMUDiv || op == LLVMSRem || op == LLVMURem;
}

static void guard_function(LLVMBuilderRef b, LLVMValueRef fn, int report) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef next;
    for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = next) {
      next = LLVMGetNextInstruction(inst);
      LLVMOpcode op = LLVMGetInstructionOpcode(inst);
      if (!is_division(op) ||
          safe_divisor(LLVMGetOperand(inst, 1), op == LLVMSDiv || op == LLVMSRem))
        continue;
      LLVMPositionBuilderBefore(b, inst);
      LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(inst));
      guard(b, inst, op, report);
    }
  }
}

void weft__div_guard_insert(LLVMModuleRef module, int report) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn))
    if (!LLVMIsDeclaration(fn)) guard_function(b, fn, report);
  LLVMDisposeBuilder(b);
}
