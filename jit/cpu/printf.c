/* printf.c: printf calls inside a kernel body become calls into the back
 * end (kernel_abi.h, WEFT_PRINTF_SYMBOL). Runs with step 3 of passes.h,
 * where the body's work-group context is at hand.
 *
 * Clang passes printf's arguments as C varargs (floats promoted to double,
 * vectors as they are). Rather than rely on a C va_list matching vector
 * types, each call stores its arguments into a block (an alloca of a
 * struct of their types) and passes a constant table that says where each
 * one is and what it is. The x86-64 convention passes small vectors as a
 * double or an integer (an int2 arrives as a double), so a vector's type
 * comes from the format, which OpenCL requires to be a literal. */
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/passes.h"
#include "jit/ir/printf_spec.h"
#include "weft/weft.h"

/* The description of one argument of IR type t. */
static weft_printf_arg describe(LLVMTypeRef t, LLVMTargetDataRef layout) {
  weft_printf_arg a = {0, 1, 0, 0};
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) {
    a.count = LLVMGetVectorSize(t);
    t = LLVMGetElementType(t);
  }
  a.element_size = (uint32_t)LLVMABISizeOfType(layout, t);
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind: a.kind = WEFT_PRINTF_INT; break;
  case LLVMPointerTypeKind: a.kind = WEFT_PRINTF_POINTER; break;
  default: a.kind = WEFT_PRINTF_FLOAT; break;
  }
  /* A vector of 3 has the size of 4; its elements are what count. */
  if (a.count > 1)
    a.element_size = (uint32_t)(LLVMStoreSizeOfType(layout, t));
  return a;
}

static LLVMValueRef printf_function(LLVMModuleRef module) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef params[] = {ptr, ptr, ptr, i32, ptr};
  return weft__runtime_function(module, WEFT_PRINTF_SYMBOL, i32, params, 5,
                                NULL);
}

/* The type of operand k of call when it is passed byval, or NULL. */
static LLVMTypeRef byval_type(LLVMValueRef call, unsigned k) {
  unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(call, k + 1, kind);
  return a ? LLVMGetTypeAttributeValue(a) : NULL;
}

/* Where the format names a vector and a scalar carried it, the argument is
 * that vector: kind from the conversion, elements from v<n>, their size
 * from the length modifier. */
static void apply_format(const char *format, weft_printf_arg *args, unsigned n,
                         LLVMTypeRef *types, LLVMTargetDataRef layout) {
  weft_printf_spec s;
  for (unsigned i = 0; i < n && weft__printf_next(&format, &s, NULL, NULL) > 0;
       i++) {
    unsigned element = weft__printf_element_size(&s);
    /* A real vector type describes itself; only a scalar carrying a
     * vector (the calling convention's coercion) needs the format. */
    if (!s.vector || !element ||
        LLVMGetTypeKind(types[i]) == LLVMVectorTypeKind)
      continue;
    unsigned long long bytes = LLVMStoreSizeOfType(layout, types[i]);
    unsigned padded = s.vector == 3 ? 4 : (unsigned)s.vector;
    if (bytes != (unsigned long long)padded * element &&
        bytes != (unsigned long long)s.vector * element)
      continue; /* not the vector the format says: the back end refuses */
    args[i].kind = strchr("diouxXc", s.conversion) ? WEFT_PRINTF_INT
                                                   : WEFT_PRINTF_FLOAT;
    args[i].count = (uint32_t)s.vector;
    args[i].element_size = element;
  }
}

/* The constant table of n argument descriptions, as a private global. */
static LLVMValueRef table(LLVMModuleRef module, const weft_printf_arg *args,
                          unsigned n) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  unsigned words = 4 * (n ? n : 1);
  LLVMValueRef *values = calloc(words, sizeof *values);
  if (!values) return NULL;
  for (unsigned i = 0; i < words; i++) {
    const uint32_t *w = n ? (const uint32_t *)&args[i / 4] : NULL;
    values[i] = LLVMConstInt(i32, w ? w[i % 4] : 0, 0);
  }
  LLVMValueRef init = LLVMConstArray2(i32, values, words);
  free(values);
  LLVMValueRef g = LLVMAddGlobal(module, LLVMTypeOf(init), "weft.printf.args");
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  return g;
}

/* Replaces one printf call (its varargs are operands 1 .. n). */
static int lower_call(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef body,
                      LLVMTargetDataRef layout) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMContextRef context = LLVMGetModuleContext(module);
  unsigned n = (unsigned)LLVMGetNumArgOperands(call) - 1;
  LLVMTypeRef *types = calloc(n ? n : 1, sizeof *types);
  weft_printf_arg *args = calloc(n ? n : 1, sizeof *args);
  if (!types || !args) {
    free(types);
    free(args);
    return WEFT_ENOMEM;
  }
  LLVMValueRef *values = calloc(n ? n : 1, sizeof *values);
  if (!values) {
    free(types);
    free(args);
    return WEFT_ENOMEM;
  }
  LLVMPositionBuilderBefore(b, call);
  for (unsigned i = 0; i < n; i++) {
    values[i] = LLVMGetOperand(call, i + 1);
    /* Vectors wider than 16 bytes come by reference (byval): the block
     * gets the vector itself. */
    LLVMTypeRef by_value = byval_type(call, i + 1);
    if (by_value) values[i] = LLVMBuildLoad2(b, by_value, values[i], "");
    types[i] = LLVMTypeOf(values[i]);
  }
  LLVMTypeRef block_type = LLVMStructTypeInContext(context, types, n, 0);
  for (unsigned i = 0; i < n; i++) {
    args[i] = describe(types[i], layout);
    args[i].offset = (uint32_t)LLVMOffsetOfElement(layout, block_type, i);
  }
  const char *format = weft__printf_literal(call);
  if (format) apply_format(format, args, n, types, layout);
  /* The block lives in the entry block: one per call site, not per trip
   * through a loop. */
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(body)));
  LLVMValueRef block = LLVMBuildAlloca(b, block_type, "printf.args");
  LLVMPositionBuilderBefore(b, call);
  for (unsigned i = 0; i < n; i++)
    LLVMBuildStore(b, values[i], LLVMBuildStructGEP2(b, block_type, block, i, ""));
  free(values);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMValueRef fn = printf_function(module);
  LLVMValueRef desc = table(module, args, n);
  LLVMValueRef actual[] = {
      weft__body_param(body, WEFT_BODY_CTX),
      LLVMBuildAddrSpaceCast(b, LLVMGetOperand(call, 0), ptr, ""),
      desc, LLVMConstInt(LLVMInt32TypeInContext(context), n, 0), block};
  free(types);
  free(args);
  if (!desc) return WEFT_ENOMEM;
  LLVMValueRef c = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, actual, 5, "");
  LLVMReplaceAllUsesWith(call, c);
  LLVMInstructionEraseFromParent(call);
  return 0;
}

static int is_printf(LLVMValueRef i) { return weft__is_call_to(i, "printf"); }

int weft__printf_lower(LLVMValueRef body, LLVMTargetDataRef layout) {
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(body)));
  int rc = 0;
  for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(body); block && !rc;
       block = LLVMGetNextBasicBlock(block)) {
    LLVMValueRef i = LLVMGetFirstInstruction(block);
    while (i && !rc) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      if (is_printf(i)) rc = lower_call(b, i, body, layout);
      i = next;
    }
  }
  LLVMDisposeBuilder(b);
  return rc;
}
