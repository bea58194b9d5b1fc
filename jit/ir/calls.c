/* calls.c: finding calls in IR and declaring the runtime's functions
 * (ir.h), for the CPU's passes and the GPU's. */
#include <string.h>

#include "jit/ir/ir.h"
#include "jit/kernel_abi.h"

/* The name of the function inst calls directly, or NULL. */
static const char *callee_name(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst)) return NULL;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  return LLVMIsAFunction(callee) ? LLVMGetValueName(callee) : NULL;
}

int weft__call_is_pure(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!LLVMIsAFunction(callee)) return 0;
  unsigned kind = LLVMGetEnumAttributeKindForName("memory", 6);
  LLVMAttributeRef a =
      LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex, kind);
  if (!a) a = LLVMGetCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex, kind);
  return a && LLVMGetEnumAttributeValue(a) == 0; /* memory(none) */
}

void weft__calls_replace(LLVMValueRef fn, weft_call_maker make, void *data) {
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
  LLVMUseRef use;
  while ((use = LLVMGetFirstUse(fn))) {
    LLVMValueRef call = LLVMGetUser(use);
    LLVMPositionBuilderBefore(b, call);
    LLVMReplaceAllUsesWith(call, make(b, call, data));
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(b);
  LLVMDeleteFunction(fn);
}

LLVMValueRef weft__call_value(LLVMBuilderRef b, LLVMValueRef call, void *value) {
  (void)b;
  (void)call;
  return value;
}

int weft__is_call_to(LLVMValueRef inst, const char *name) {
  const char *called = callee_name(inst);
  return called && !strcmp(called, name);
}

int weft__calls_any(LLVMValueRef fn, const char *const *names, size_t count) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
       b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
         i = LLVMGetNextInstruction(i)) {
      const char *name = callee_name(i);
      for (size_t k = 0; name && k < count; k++)
        if (!strcmp(name, names[k])) return 1;
    }
  return 0;
}

int weft__calls_sync(LLVMValueRef fn) {
  static const char *const names[] = {WEFT_YIELD_SYMBOL, WEFT_WAIT_SYMBOL,
                                      WEFT_WAKE_SYMBOL, WEFT_POLL_SYMBOL,
                                      WEFT_SCHED_POINT_SYMBOL,
                                      WEFT_COOP_POINT_SYMBOL};
  return weft__calls_any(fn, names, sizeof names / sizeof *names);
}

int weft__uses_launch_words(LLVMValueRef fn) {
  static const char *const names[] = {"__weft_launch_words"};
  return weft__calls_any(fn, names, 1);
}

LLVMValueRef weft__runtime_function(LLVMModuleRef module, const char *name,
                                    LLVMTypeRef result, LLVMTypeRef *params,
                                    unsigned num_params,
                                    const char *attribute) {
  LLVMValueRef fn = LLVMGetNamedFunction(module, name);
  if (fn) return fn;
  LLVMContextRef context = LLVMGetModuleContext(module);
  if (!result) result = LLVMVoidTypeInContext(context);
  fn = LLVMAddFunction(module, name,
                       LLVMFunctionType(result, params, num_params, 0));
  if (!attribute) return fn;
  unsigned kind = LLVMGetEnumAttributeKindForName(attribute, strlen(attribute));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(context, kind, 0));
  return fn;
}

LLVMValueRef weft__intrinsic_call(LLVMBuilderRef b, LLVMModuleRef module,
                                  const char *name, LLVMTypeRef *types,
                                  unsigned num_types, LLVMValueRef *args,
                                  unsigned num_args) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(module, id, types, num_types);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, num_args, "");
}

void weft__copy_attributes(LLVMValueRef from, LLVMValueRef to, unsigned index) {
  unsigned n = LLVMGetAttributeCountAtIndex(from, index);
  if (!n) return;
  LLVMAttributeRef attributes[n];
  LLVMGetAttributesAtIndex(from, index, attributes);
  for (unsigned a = 0; a < n; a++) LLVMAddAttributeAtIndex(to, index, attributes[a]);
}

void weft__set_invariant(LLVMValueRef load) {
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(load));
  unsigned kind = LLVMGetMDKindIDInContext(context, "invariant.load", 14);
  LLVMSetMetadata(load, kind,
                  LLVMMetadataAsValue(context,
                                      LLVMMDNodeInContext2(context, NULL, 0)));
}

void weft__set_range(LLVMValueRef load, uint64_t lo, uint64_t hi) {
  LLVMTypeRef type = LLVMTypeOf(load);
  LLVMContextRef context = LLVMGetTypeContext(type);
  LLVMMetadataRef bounds[2] = {
      LLVMValueAsMetadata(LLVMConstInt(type, lo, 0)),
      LLVMValueAsMetadata(LLVMConstInt(type, hi, 0))};
  unsigned kind = LLVMGetMDKindIDInContext(context, "range", 5);
  LLVMSetMetadata(load, kind,
                  LLVMMetadataAsValue(context,
                                      LLVMMDNodeInContext2(context, bounds, 2)));
}

const char *weft__printf_literal(LLVMValueRef call) {
  LLVMValueRef g = LLVMGetOperand(call, 0);
  while (LLVMIsAConstantExpr(g)) g = LLVMGetOperand(g, 0);
  if (!LLVMIsAGlobalVariable(g) || !LLVMIsGlobalConstant(g)) return NULL;
  LLVMValueRef init = LLVMGetInitializer(g);
  size_t length = 0;
  if (!init || !LLVMIsConstantString(init)) return NULL;
  const char *s = LLVMGetAsString(init, &length);
  return length && s[length - 1] == 0 ? s : NULL;
}
