/* ptx_printf.c: printf on the GPU (see ptx.h). CUDA's device runtime has
 * vprintf(format, block): the block holds the (promoted) arguments one
 * after the other, each at its natural alignment, which is how LLVM lays
 * out a struct of their types. The driver prints the output when the
 * launch is synchronized.
 *
 * vprintf is C's printf: it knows neither OpenCL's vectors (%v4f) nor
 * arguments narrower than their promotion (%hhd gets an int holding 300).
 * So the literal format is rewritten at build time: a vector becomes one
 * conversion per element, joined by commas as OpenCL prints them, and
 * each argument is converted to what the rewritten conversion reads (an
 * int truncated as h or hh says, a long for l, a double for a float). A
 * format that does not match its arguments prints nothing and answers
 * -1, as on the CPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/front/compile.h"
#include "jit/ir/ir.h"
#include "jit/ir/printf_spec.h"
#include "jit/ptx/ptx.h"
#include "weft/weft.h"

/* A vector argument's elements at most, and the bytes of one rewritten
 * conversion at most: '%', 7 flags, a width and a precision below 10^6
 * each (printf_spec.c's limits) with its '.', "l" and the letter. */
#define MAX_ELEMENTS 16
#define MAX_CONVERSION 24

/* The rewritten format and arguments of one call. */
typedef struct call_rewrite {
  LLVMBuilderRef b;
  char *text;
  size_t length;
  LLVMValueRef *args;
  unsigned num_args;
} call_rewrite;

static LLVMValueRef vprintf_function(LLVMModuleRef module) {
  LLVMValueRef fn = LLVMGetNamedFunction(module, "vprintf");
  if (fn) return fn;
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef params[] = {ptr, ptr};
  return LLVMAddFunction(
      module, "vprintf",
      LLVMFunctionType(LLVMInt32TypeInContext(context), params, 2, 0));
}

static int vector_error(LLVMValueRef call, char **error) {
  unsigned line = LLVMGetDebugLocLine(call);
  unsigned column = LLVMGetDebugLocColumn(call);
  int n = line ? asprintf(error, "%s:%u:%u: error: printf of a vector needs "
                          "a literal format on CUDA GPUs\n",
                          WEFT_SOURCE_NAME, line, column)
               : asprintf(error, "error: printf of a vector needs a literal "
                          "format on CUDA GPUs\n");
  if (n < 0) *error = NULL;
  return WEFT_EBUILD;
}

/* A pointer argument as vprintf reads it: generic. */
static LLVMValueRef generic(LLVMBuilderRef b, LLVMValueRef v) {
  LLVMTypeRef type = LLVMTypeOf(v);
  if (LLVMGetTypeKind(type) != LLVMPointerTypeKind ||
      !LLVMGetPointerAddressSpace(type))
    return v;
  return LLVMBuildAddrSpaceCast(
      b, v, LLVMPointerTypeInContext(LLVMGetTypeContext(type), 0), "");
}

/* Plain text of the format, its one '%' (from "%%") escaped again. */
static void put_text(void *arg, const char *s, unsigned long n) {
  call_rewrite *r = arg;
  for (unsigned long i = 0; i < n; i++) {
    if (s[i] == '%') r->text[r->length++] = '%';
    r->text[r->length++] = s[i];
  }
}

/* One C conversion: the specification's flags, width and precision with
 * the given length modifier. */
static void put_conversion(call_rewrite *r, const weft_printf_spec *s,
                           const char *length) {
  r->length += (size_t)sprintf(r->text + r->length, "%%%s", s->flags);
  if (s->width >= 0)
    r->length += (size_t)sprintf(r->text + r->length, "%d", s->width);
  if (s->precision >= 0)
    r->length += (size_t)sprintf(r->text + r->length, ".%d", s->precision);
  r->length += (size_t)sprintf(r->text + r->length, "%s%c", length,
                               s->conversion);
}

static int is_float_conversion(char c) { return strchr("fFeEgGaA", c) != NULL; }

/* Integer v as the int (or, for l or a 64-bit value, the long) the
 * conversion reads: a scalar's h or hh truncates first. */
static LLVMValueRef as_integer(call_rewrite *r, LLVMValueRef v,
                               const weft_printf_spec *s,
                               const char **length) {
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(v));
  int is_signed = strchr("di", s->conversion) != NULL;
  unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(v));
  unsigned narrow = s->vector ? 0 : weft__printf_element_size(s) * 8;
  if (narrow && narrow < bits && narrow < 32) {
    v = LLVMBuildTrunc(r->b, v, LLVMIntTypeInContext(context, narrow), "");
    bits = narrow;
  }
  int wide = bits == 64 || !strcmp(s->length, "l");
  *length = wide && s->conversion != 'c' ? "l" : "";
  LLVMTypeRef to = LLVMIntTypeInContext(context, wide ? 64 : 32);
  if (bits == LLVMGetIntTypeWidth(to)) return v;
  if (bits > LLVMGetIntTypeWidth(to)) return LLVMBuildTrunc(r->b, v, to, "");
  return is_signed ? LLVMBuildSExt(r->b, v, to, "")
                   : LLVMBuildZExt(r->b, v, to, "");
}

/* One value for one C conversion; 0, or -1 when its type does not fit. */
static int put_value(call_rewrite *r, LLVMValueRef v,
                     const weft_printf_spec *s) {
  LLVMTypeRef type = LLVMTypeOf(v);
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  const char *length = "";
  if (kind == LLVMHalfTypeKind || kind == LLVMFloatTypeKind ||
      kind == LLVMDoubleTypeKind) {
    if (!is_float_conversion(s->conversion)) return -1;
    if (kind != LLVMDoubleTypeKind)
      v = LLVMBuildFPExt(r->b, v, LLVMDoubleTypeInContext(
                                      LLVMGetTypeContext(type)), "");
  } else if (kind == LLVMIntegerTypeKind) {
    if (is_float_conversion(s->conversion) || strchr("sp", s->conversion))
      return -1;
    v = as_integer(r, v, s, &length);
  } else if (kind == LLVMPointerTypeKind) {
    if (!strchr("sp", s->conversion)) return -1;
    v = generic(r->b, v);
  } else {
    return -1;
  }
  put_conversion(r, s, length);
  r->args[r->num_args++] = v;
  return 0;
}

/* A %vN conversion: each element, joined by commas. A 3-vector may come
 * as 4 elements. */
static int put_vector(call_rewrite *r, LLVMValueRef v,
                      const weft_printf_spec *s) {
  LLVMTypeRef type = LLVMTypeOf(v);
  if (LLVMGetTypeKind(type) != LLVMVectorTypeKind) return -1;
  unsigned n = LLVMGetVectorSize(type);
  if (n != (unsigned)s->vector && !(s->vector == 3 && n == 4)) return -1;
  unsigned size = weft__printf_element_size(s);
  LLVMTypeRef element = LLVMGetElementType(type);
  if (size && LLVMGetTypeKind(element) == LLVMIntegerTypeKind &&
      LLVMGetIntTypeWidth(element) != size * 8)
    return -1;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(type));
  for (int i = 0; i < s->vector; i++) {
    if (i) r->text[r->length++] = ',';
    LLVMValueRef e = LLVMBuildExtractElement(
        r->b, v, LLVMConstInt(i32, (unsigned)i, 0), "");
    if (put_value(r, e, s)) return -1;
  }
  return 0;
}

/* Rewrites the call's format and arguments into r; -1 if they do not
 * match (printf then prints nothing). */
static int rewrite_call(call_rewrite *r, LLVMValueRef call,
                        const char *format) {
  unsigned n = (unsigned)LLVMGetNumArgOperands(call) - 1, next = 0;
  weft_printf_spec s;
  int found;
  while ((found = weft__printf_next(&format, &s, put_text, r)) > 0) {
    if (next == n) return -1;
    LLVMValueRef v = LLVMGetOperand(call, ++next);
    if (s.vector ? put_vector(r, v, &s) : put_value(r, v, &s)) return -1;
  }
  r->text[r->length] = 0;
  return found;
}

/* Without a literal format, the arguments go as they are (scalars). */
static int pass_through(call_rewrite *r, LLVMValueRef call, char **error) {
  unsigned n = (unsigned)LLVMGetNumArgOperands(call) - 1;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef v = LLVMGetOperand(call, i + 1);
    if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMVectorTypeKind)
      return vector_error(call, error);
    r->args[r->num_args++] = generic(r->b, v);
  }
  return 0;
}

/* The rewritten format as a constant string, generic as vprintf takes it. */
static LLVMValueRef format_string(LLVMModuleRef module, call_rewrite *r) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMValueRef init =
      LLVMConstStringInContext(context, r->text, (unsigned)r->length, 0);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(module, LLVMTypeOf(init),
                                               "printf.format", 4);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  return generic(r->b, g);
}

/* vprintf(format, block of args); printf's answer is 0, or -1. */
static LLVMValueRef call_vprintf(LLVMModuleRef module, call_rewrite *r,
                                 LLVMValueRef call, LLVMValueRef format) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMValueRef block = LLVMConstNull(ptr);
  if (r->num_args) {
    LLVMTypeRef types[r->num_args];
    for (unsigned i = 0; i < r->num_args; i++)
      types[i] = LLVMTypeOf(r->args[i]);
    LLVMTypeRef type = LLVMStructTypeInContext(context, types, r->num_args, 0);
    /* The block lives in the function's entry, as allocas should. */
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
    LLVMPositionBuilderBefore(
        r->b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)));
    block = LLVMBuildAlloca(r->b, type, "printf.args");
    LLVMPositionBuilderBefore(r->b, call);
    for (unsigned i = 0; i < r->num_args; i++)
      LLVMBuildStore(r->b, r->args[i],
                     LLVMBuildStructGEP2(r->b, type, block, i, ""));
  }
  LLVMValueRef fn = vprintf_function(module);
  LLVMValueRef args[] = {format, block};
  LLVMValueRef result =
      LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
  /* vprintf answers the count of its arguments, or -1. */
  LLVMValueRef zero = LLVMConstInt(LLVMTypeOf(result), 0, 0);
  LLVMValueRef failed = LLVMBuildICmp(r->b, LLVMIntSLT, result, zero, "");
  return LLVMBuildSelect(r->b, failed, LLVMConstAllOnes(LLVMTypeOf(result)),
                         zero, "");
}

static int lower_call(LLVMModuleRef module, LLVMBuilderRef b,
                      LLVMValueRef call, char **error) {
  const char *format = weft__printf_literal(call);
  unsigned n = (unsigned)LLVMGetNumArgOperands(call) - 1;
  /* The plain text, its '%' doubled, and per argument up to 16 elements,
   * each a conversion and a comma. */
  size_t room = (format ? strlen(format) * 2 : 0) +
                (size_t)n * MAX_ELEMENTS * (MAX_CONVERSION + 1) + 1;
  call_rewrite r = {b, malloc(room), 0,
                    malloc((n * MAX_ELEMENTS + 1) * sizeof(LLVMValueRef)), 0};
  if (!r.text || !r.args) {
    free(r.text);
    free(r.args);
    return WEFT_ENOMEM;
  }
  LLVMPositionBuilderBefore(b, call);
  int rc = 0;
  LLVMValueRef result;
  if (format && rewrite_call(&r, call, format) < 0) {
    result = LLVMConstAllOnes(LLVMInt32TypeInContext(LLVMGetModuleContext(module)));
  } else if (format) {
    result = call_vprintf(module, &r, call, format_string(module, &r));
  } else if (!(rc = pass_through(&r, call, error))) {
    result = call_vprintf(module, &r, call,
                          generic(b, LLVMGetOperand(call, 0)));
  }
  if (!rc) {
    LLVMReplaceAllUsesWith(call, result);
    LLVMInstructionEraseFromParent(call);
  }
  free(r.text);
  free(r.args);
  return rc;
}

int weft__ptx_printf_lower(LLVMModuleRef module, char **error) {
  LLVMValueRef printf_fn = LLVMGetNamedFunction(module, "printf");
  if (!printf_fn) return 0;
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  int rc = 0;
  LLVMUseRef use;
  while (!rc && (use = LLVMGetFirstUse(printf_fn))) {
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsACallInst(user)) {
      *error = strdup("internal error: printf used other than called\n");
      rc = WEFT_EBUILD;
    } else {
      rc = lower_call(module, b, user, error);
    }
  }
  LLVMDisposeBuilder(b);
  if (!rc) LLVMDeleteFunction(printf_fn);
  return rc;
}
