/* resize_calls.c: step 3, for cooperative kernels (WEFT_KERNEL_RESIZABLE,
 * whose points jit/ir/fork_points.c expanded): the primitives of those
 * points become the context's fields and calls into the back end
 * (kernel_abi.h), and get_num_groups(0) and get_global_size(0) read the
 * number of groups running as of the group's last point, which changes as
 * groups are killed and forked. Runs before weft__workitem_lower, which
 * lowers the rest. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

typedef enum resize_primitive {
  RESIZE_NONE,
  RESIZE_TRANSMIT_SLOT, /* ctx->transmit + local linear id * bytes */
  RESIZE_POINT,         /* the back end's coop_point(ctx, kind, site) */
  RESIZE_EXIT,          /* ctx->coop_exit, as the back end left it */
  RESIZE_SITE,          /* ctx->resume_site */
  RESIZE_QUERY,         /* the back end's query_kill(ctx) */
  RESIZE_NUM_GROUPS,    /* get_num_groups(d): as of the last point in 0 */
  RESIZE_GLOBAL_SIZE,   /* get_global_size(d): the same groups' items */
} resize_primitive;

static resize_primitive which(LLVMValueRef inst) {
  static const struct {
    const char *name;
    resize_primitive kind;
  } names[] = {
      {"__weft_transmit_slot", RESIZE_TRANSMIT_SLOT},
      {"__weft_coop_point", RESIZE_POINT},
      {"__weft_coop_exit", RESIZE_EXIT},
      {"__weft_resume_site", RESIZE_SITE},
      {"__weft_query_kill", RESIZE_QUERY},
      {"__weft_num_groups", RESIZE_NUM_GROUPS},
      {"__weft_global_size", RESIZE_GLOBAL_SIZE},
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (weft__is_call_to(inst, names[i].name)) return names[i].kind;
  return RESIZE_NONE;
}

static int is_resize_call(LLVMValueRef inst, void *unused) {
  (void)unused;
  return which(inst) != RESIZE_NONE;
}

/* The body's work-item's local linear id (x fastest). */
static LLVMValueRef linear_id(LLVMBuilderRef b, LLVMValueRef body) {
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(ctx)));
  size_t size = offsetof(weft_wg_ctx, local_size);
  LLVMValueRef sx = weft__ctx_invariant(b, i64, ctx, size);
  LLVMValueRef sy = weft__ctx_invariant(b, i64, ctx, size + 8);
  LLVMValueRef z = LLVMBuildMul(b, weft__body_param(body, WEFT_BODY_LZ), sy, "");
  LLVMValueRef yz = LLVMBuildMul(
      b, LLVMBuildAdd(b, weft__body_param(body, WEFT_BODY_LY), z, ""), sx, "");
  return LLVMBuildAdd(b, weft__body_param(body, WEFT_BODY_LX), yz, "");
}

/* The back end's function name, with ctx and the call's own arguments. */
static LLVMValueRef runtime_call(LLVMBuilderRef b, LLVMValueRef call,
                                 LLVMValueRef body, const char *name) {
  LLVMModuleRef m = LLVMGetGlobalParent(body);
  LLVMValueRef args[3] = {weft__body_param(body, WEFT_BODY_CTX)};
  LLVMTypeRef params[3] = {LLVMTypeOf(args[0])};
  unsigned n = 1;
  for (unsigned i = 0; i + 1 < (unsigned)LLVMGetNumOperands(call) && n < 3; i++) {
    args[n] = LLVMGetOperand(call, i);
    params[n++] = LLVMTypeOf(LLVMGetOperand(call, i));
  }
  LLVMTypeRef result = LLVMTypeOf(call);
  if (LLVMGetTypeKind(result) == LLVMVoidTypeKind) result = NULL;
  LLVMValueRef fn = weft__runtime_function(m, name, result, params, n, NULL);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

/* get_num_groups(d) or get_global_size(d) (kind): in dimension 0 a plain
 * load of the context's field, which the back end sets at each of the
 * group's points (not invariant: it changes there), else the call as it
 * was, for weft__workitem_lower. */
static LLVMValueRef dynamic_size(LLVMBuilderRef b, LLVMValueRef call,
                                 LLVMValueRef body, resize_primitive kind) {
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMValueRef d = LLVMGetOperand(call, 0);
  size_t offset = kind == RESIZE_GLOBAL_SIZE ? offsetof(weft_wg_ctx, global_size)
                                             : offsetof(weft_wg_ctx, num_groups);
  LLVMValueRef now = LLVMBuildLoad2(b, LLVMTypeOf(call),
                                    weft__ctx_field(b, ctx, offset), "");
  LLVMValueRef fn = LLVMGetCalledValue(call);
  LLVMValueRef again =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &d, 1, "");
  LLVMValueRef first = LLVMBuildICmp(b, LLVMIntEQ, d,
                                     LLVMConstInt(LLVMTypeOf(d), 0, 0), "");
  return LLVMBuildSelect(b, first, now, again, "");
}

static LLVMValueRef lower(LLVMBuilderRef b, LLVMValueRef call,
                          LLVMValueRef body, resize_primitive kind) {
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(ctx));
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  switch (kind) {
  case RESIZE_TRANSMIT_SLOT: {
    LLVMValueRef records = weft__ctx_invariant(
        b, LLVMPointerTypeInContext(c, 0), ctx, offsetof(weft_wg_ctx, transmit));
    LLVMValueRef at = LLVMBuildMul(b, linear_id(b, body), LLVMGetOperand(call, 0), "");
    return LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(c), records, &at, 1, "");
  }
  case RESIZE_POINT:
    return runtime_call(b, call, body, WEFT_COOP_POINT_SYMBOL);
  case RESIZE_QUERY:
    return runtime_call(b, call, body, WEFT_QUERY_KILL_SYMBOL);
  case RESIZE_EXIT:
    /* A plain load: the back end set it in the call (or the barrier's)
     * before, which the compiler cannot see through. Volatile, it made
     * the kernel's loop a polling loop that yielded at every turn. */
    return LLVMBuildLoad2(
        b, i32, weft__ctx_field(b, ctx, offsetof(weft_wg_ctx, coop_exit)), "");
  case RESIZE_SITE:
    return weft__ctx_invariant(b, i32, ctx, offsetof(weft_wg_ctx, resume_site));
  case RESIZE_NUM_GROUPS:
  case RESIZE_GLOBAL_SIZE:
    return dynamic_size(b, call, body, kind);
  case RESIZE_NONE:
    break;
  }
  return NULL;
}

int weft__resize_calls_lower(LLVMValueRef body, int resizable) {
  unsigned n = 0;
  LLVMValueRef *calls = weft__instructions_where(body, is_resize_call, NULL, &n);
  if (!calls && n) return WEFT_ENOMEM;
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(body)));
  for (unsigned i = 0; i < n; i++) {
    resize_primitive kind = which(calls[i]);
    /* Only a cooperative kernel's groups change in number. */
    if (!resizable &&
        (kind == RESIZE_NUM_GROUPS || kind == RESIZE_GLOBAL_SIZE))
      continue;
    LLVMPositionBuilderBefore(b, calls[i]);
    LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(calls[i]));
    LLVMValueRef value = lower(b, calls[i], body, kind);
    if (value && LLVMGetTypeKind(LLVMTypeOf(calls[i])) != LLVMVoidTypeKind)
      LLVMReplaceAllUsesWith(calls[i], value);
    LLVMInstructionEraseFromParent(calls[i]);
  }
  LLVMDisposeBuilder(b);
  free(calls);
  return 0;
}
