/* workgroup.c: step 4 of passes.h, the work-group function.
 *
 *   void name(void *const *args, weft_wg_ctx *ctx, const weft_wg_range *r)
 *   {
 *     unpack the arguments once;
 *     for (z = r->lo[2]; z < r->hi[2]; z++)
 *       for (y = r->lo[1]; y < r->hi[1]; y++)
 *         for (x = r->lo[0]; x < r->hi[0]; x++) {
 *           body(arguments..., ctx, x, y, z);
 *           if (kernel has a barrier && ctx->fiber_mode) return;
 *         }
 *   }
 *
 * The body is inlined afterwards, so the innermost loop is the kernel code
 * with get_local_id(0) as its induction variable: LLVM vectorizes it across
 * work-items when no barrier stands in the way. The loops are emitted in
 * rotated form (test at the bottom, one guard at the top), as LLVM's loop
 * passes want them.
 */
#include <stddef.h>

#include "jit/passes.h"

typedef struct wg_builder {
  LLVMContextRef context;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  LLVMTypeRef i64;
  LLVMValueRef lo[3], hi[3];
} wg_builder;

static LLVMValueRef load_i64(wg_builder *w, LLVMValueRef base, size_t offset) {
  LLVMValueRef load = LLVMBuildLoad2(w->b, w->i64,
                                     weft__ctx_field(w->b, base, offset), "");
  weft__set_invariant(load);
  return load;
}

/* The value of argument i, as the body's parameter i expects it. */
static LLVMValueRef unpack_arg(wg_builder *w, LLVMValueRef body, unsigned i,
                               const weft_arg_desc *desc) {
  LLVMValueRef args = LLVMGetParam(w->fn, 0), ctx = LLVMGetParam(w->fn, 1);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(w->context, 0);
  LLVMTypeRef type = LLVMTypeOf(LLVMGetParam(body, i));
  LLVMValueRef slot = LLVMBuildLoad2(
      w->b, ptr, weft__ctx_field(w->b, args, i * sizeof(void *)), "");
  weft__set_invariant(slot);
  if (desc->kind == WEFT_ARG_LOCAL) {
    LLVMValueRef offset = LLVMBuildLoad2(w->b, w->i64, slot, "");
    LLVMValueRef base = LLVMBuildLoad2(
        w->b, ptr, weft__ctx_field(w->b, ctx, offsetof(weft_wg_ctx, local_mem)),
        "local_mem");
    weft__set_invariant(base);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(
        w->b, LLVMInt8TypeInContext(w->context), base, &offset, 1, "");
    return LLVMBuildAddrSpaceCast(w->b, p, type, "");
  }
  if (LLVMGetTypeKind(type) == LLVMPointerTypeKind &&
      desc->kind == WEFT_ARG_VALUE)
    return slot; /* a struct passed by value (byval): its bytes are there */
  LLVMValueRef value = LLVMBuildLoad2(w->b, type, slot, "");
  LLVMSetAlignment(value, 1); /* values are packed by the caller */
  return value;
}

/* Emits: header: iv = phi(lo, latch: iv + 1). Returns the phi. */
static LLVMValueRef loop_begin(wg_builder *w, LLVMBasicBlockRef from,
                               LLVMValueRef lo, LLVMBasicBlockRef header) {
  LLVMBuildBr(w->b, header);
  LLVMPositionBuilderAtEnd(w->b, header);
  LLVMValueRef iv = LLVMBuildPhi(w->b, w->i64, "");
  LLVMAddIncoming(iv, &lo, &from, 1);
  return iv;
}

/* Emits the latch at the builder's position: iv + 1 < hi ? header : exit. */
static void loop_end(wg_builder *w, LLVMValueRef iv, LLVMValueRef hi,
                     LLVMBasicBlockRef header, LLVMBasicBlockRef exit) {
  LLVMValueRef next =
      LLVMBuildNUWAdd(w->b, iv, LLVMConstInt(w->i64, 1, 0), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(w->b);
  LLVMAddIncoming(iv, &next, &latch, 1);
  LLVMBuildCondBr(w->b, LLVMBuildICmp(w->b, LLVMIntULT, next, hi, ""), header,
                  exit);
}

static LLVMBasicBlockRef block(wg_builder *w, const char *name) {
  return LLVMAppendBasicBlockInContext(w->context, w->fn, name);
}

static void emit_loops(wg_builder *w, LLVMValueRef body, LLVMValueRef *call_args,
                       unsigned num_args, int has_barrier) {
  LLVMValueRef ctx = LLVMGetParam(w->fn, 1);
  LLVMBasicBlockRef exit = block(w, "exit");
  LLVMBasicBlockRef headers[3] = {block(w, "x"), block(w, "y"), block(w, "z")};

  /* One guard: an empty range in any dimension runs nothing. */
  LLVMValueRef empty = LLVMConstInt(LLVMInt1TypeInContext(w->context), 0, 0);
  for (int d = 0; d < 3; d++)
    empty = LLVMBuildOr(w->b, empty,
                        LLVMBuildICmp(w->b, LLVMIntUGE, w->lo[d], w->hi[d], ""),
                        "");
  LLVMBasicBlockRef start = block(w, "start");
  LLVMBuildCondBr(w->b, empty, exit, start);
  LLVMPositionBuilderAtEnd(w->b, start);

  LLVMValueRef iv[3];
  LLVMBasicBlockRef from = start;
  for (int d = 2; d >= 0; d--) {
    iv[d] = loop_begin(w, from, w->lo[d], headers[d]);
    from = headers[d];
  }
  for (int d = 0; d < 3; d++) call_args[num_args + 1 + d] = iv[d];
  call_args[num_args] = ctx;
  LLVMBuildCall2(w->b, LLVMGlobalGetValueType(body), body, call_args,
                 num_args + WEFT_BODY_EXTRA_PARAMS, "");
  if (has_barrier) {
    /* After a barrier the other work-items run on fibers: stop here. */
    LLVMValueRef mode = LLVMBuildLoad2(
        w->b, LLVMInt32TypeInContext(w->context),
        weft__ctx_field(w->b, ctx, offsetof(weft_wg_ctx, fiber_mode)), "");
    LLVMSetVolatile(mode, 1);
    LLVMBasicBlockRef next = block(w, "next");
    LLVMBuildCondBr(w->b,
                    LLVMBuildICmp(w->b, LLVMIntNE, mode,
                                  LLVMConstInt(LLVMTypeOf(mode), 0, 0), ""),
                    exit, next);
    LLVMPositionBuilderAtEnd(w->b, next);
  }
  LLVMBasicBlockRef after[3] = {block(w, "x.end"), block(w, "y.end"), exit};
  for (int d = 0; d < 3; d++) {
    loop_end(w, iv[d], w->hi[d], headers[d], after[d]);
    if (d < 2) LLVMPositionBuilderAtEnd(w->b, after[d]);
  }
  LLVMPositionBuilderAtEnd(w->b, exit);
  LLVMBuildRetVoid(w->b);
}

LLVMValueRef weft__workgroup_make(LLVMModuleRef module, LLVMValueRef body,
                                  const weft_kernel_desc *desc,
                                  const char *name) {
  wg_builder w;
  w.context = LLVMGetModuleContext(module);
  w.i64 = LLVMInt64TypeInContext(w.context);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(w.context, 0);
  LLVMTypeRef params[] = {ptr, ptr, ptr};
  w.fn = LLVMAddFunction(
      module, name,
      LLVMFunctionType(LLVMVoidTypeInContext(w.context), params, 3, 0));
  /* The three pointers never alias each other or the kernel's buffers. */
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  for (unsigned i = 1; i <= 3; i++)
    LLVMAddAttributeAtIndex(w.fn, i,
                            LLVMCreateEnumAttribute(w.context, noalias, 0));
  w.b = LLVMCreateBuilderInContext(w.context);
  LLVMPositionBuilderAtEnd(w.b, block(&w, "entry"));

  unsigned n = desc->num_args;
  LLVMValueRef call_args[n + WEFT_BODY_EXTRA_PARAMS];
  for (unsigned i = 0; i < n; i++)
    call_args[i] = unpack_arg(&w, body, i, &desc->args[i]);
  LLVMValueRef range = LLVMGetParam(w.fn, 2);
  for (int d = 0; d < 3; d++) {
    w.lo[d] = load_i64(&w, range, offsetof(weft_wg_range, lo) + 8 * d);
    w.hi[d] = load_i64(&w, range, offsetof(weft_wg_range, hi) + 8 * d);
  }
  emit_loops(&w, body, call_args, n, weft__calls_barrier(body));
  LLVMDisposeBuilder(w.b);
  return w.fn;
}
