/* workitem.c: step 3 of passes.h, work-item functions and barriers inside a
 * kernel body. The builtin library writes get_global_id() and the others
 * over a few __weft_* primitives; this file gives them their meaning. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

typedef enum primitive_kind {
  PRIM_LOCAL_ID,    /* the body's lx, ly, lz parameters */
  PRIM_CTX_SIZE,    /* a uint64_t[3] field of the context, indexed */
  PRIM_CTX_U32,     /* a uint32_t field of the context */
  PRIM_SUB_GROUP_WIDTH, /* the kernel's, the same in every group */
  PRIM_BARRIER,     /* a call into the back end (offset: flags it adds) */
  PRIM_SCRATCH,     /* the group's scratch area for collective functions */
  PRIM_SYNC,        /* yield, wait, wake: a call into the back end with ctx */
  PRIM_CTX_POINTER, /* a pointer field of the context */
  PRIM_ASSERT,      /* weft_assert's failure: a call with the work-item */
  PRIM_CONVERGE     /* a sub-group's converge point: the back end's mask */
} primitive_kind;

static const struct primitive {
  const char *name;
  primitive_kind kind;
  size_t offset;
} primitives[] = {
    {"__weft_local_id", PRIM_LOCAL_ID, 0},
    {"__weft_group_id", PRIM_CTX_SIZE, offsetof(weft_wg_ctx, group_id)},
    {"__weft_local_size", PRIM_CTX_SIZE, offsetof(weft_wg_ctx, local_size)},
    {"__weft_enqueued_local_size", PRIM_CTX_SIZE,
     offsetof(weft_wg_ctx, enqueued_local_size)},
    {"__weft_global_size", PRIM_CTX_SIZE, offsetof(weft_wg_ctx, global_size)},
    {"__weft_global_offset", PRIM_CTX_SIZE,
     offsetof(weft_wg_ctx, global_offset)},
    {"__weft_num_groups", PRIM_CTX_SIZE, offsetof(weft_wg_ctx, num_groups)},
    {"__weft_work_dim", PRIM_CTX_U32, offsetof(weft_wg_ctx, work_dim)},
    {"__weft_sub_group_width", PRIM_SUB_GROUP_WIDTH, 0},
    {"__weft_barrier", PRIM_BARRIER, 0},
    {"__weft_sub_group_barrier", PRIM_BARRIER, WEFT_BARRIER_SUB_GROUP},
    {"__weft_wg_scratch", PRIM_SCRATCH, 0},
    {"__weft_yield", PRIM_SYNC, 0},
    {"__weft_wait", PRIM_SYNC, 1},
    {"__weft_wake", PRIM_SYNC, 2},
    {"__weft_poll", PRIM_SYNC, 3},
    {"__weft_launch_words", PRIM_CTX_POINTER,
     offsetof(weft_wg_ctx, launch_words)},
    {"__weft_assert_failed", PRIM_ASSERT, 0},
    {"__weft_sub_group_converge", PRIM_CONVERGE, 0},
};

/* The back end's function for a sync primitive (offset: 0 yield, 1 wait,
 * 2 wake, 3 poll), declared on first use. */
static LLVMValueRef sync_function(LLVMModuleRef module, size_t which) {
  static const char *const names[] = {WEFT_YIELD_SYMBOL, WEFT_WAIT_SYMBOL,
                                      WEFT_WAKE_SYMBOL, WEFT_POLL_SYMBOL};
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef params[] = {ptr, ptr, i32, i32};
  unsigned n = which == 0 ? 1 : which == 2 ? 3 : 4;
  return weft__runtime_function(module, names[which], NULL, params, n, NULL);
}

/* yield(), wait(word, expected, what), wake(word, count), poll(word,
 * seen, what): the same call with ctx first, the word as a flat
 * pointer. */
static void sync_call(LLVMBuilderRef b, LLVMValueRef call, size_t which,
                      LLVMValueRef body) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMValueRef fn = sync_function(module, which);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(module), 0);
  LLVMValueRef args[4] = {weft__body_param(body, WEFT_BODY_CTX)};
  unsigned n = 1;
  for (unsigned i = 0; i + 1 < (unsigned)LLVMGetNumOperands(call); i++) {
    LLVMValueRef a = LLVMGetOperand(call, i);
    if (LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind)
      a = LLVMBuildAddrSpaceCast(b, a, ptr, "");
    args[n++] = a;
  }
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

/* Slots of the scratch area: one per work-item of the largest group, one
 * for a work-group result, one per sub-group of the smallest width for
 * its result (builtins/sub_groups.cl); 8 bytes each, the widest scalar. */
#define SCRATCH_SLOTS                                                        \
  (WEFT_CPU_MAX_WORK_GROUP_SIZE + 1 + WEFT_CPU_MAX_WORK_GROUP_SIZE / 4)

/* The scratch area is a __local variable of the module, so that step 5
 * places it in group memory like the kernel's own (only kernels that use
 * collective functions pay for it). */
static LLVMValueRef scratch(LLVMModuleRef module) {
  LLVMValueRef g = LLVMGetNamedGlobal(module, "weft.wg.scratch");
  if (g) return g;
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef type =
      LLVMArrayType2(LLVMInt64TypeInContext(context), SCRATCH_SLOTS);
  g = LLVMAddGlobalInAddressSpace(module, type, "weft.wg.scratch",
                                  WEFT_AS_LOCAL);
  LLVMSetInitializer(g, LLVMGetUndef(type));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetAlignment(g, 16);
  return g;
}

LLVMValueRef weft__ctx_field(LLVMBuilderRef builder, LLVMValueRef ctx,
                             size_t offset) {
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(ctx));
  LLVMValueRef index =
      LLVMConstInt(LLVMInt64TypeInContext(context), offset, 0);
  return LLVMBuildInBoundsGEP2(builder, LLVMInt8TypeInContext(context), ctx,
                               &index, 1, "");
}

static const struct primitive *find_primitive(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!LLVMIsAFunction(callee)) return NULL;
  const char *name = LLVMGetValueName(callee);
  if (strncmp(name, "__weft_", 7)) return NULL;
  for (size_t i = 0; i < sizeof primitives / sizeof *primitives; i++)
    if (!strcmp(name, primitives[i].name)) return &primitives[i];
  return NULL;
}

/* Local id dim: the parameter itself where dim is a constant (as after
 * inlining it mostly is: the passes that ask what differs between
 * work-items then see lx, ly or lz, not a select of all three), else a
 * choice among them. */
static LLVMValueRef local_id(LLVMBuilderRef b, LLVMValueRef dim,
                             LLVMValueRef const *lid) {
  if (LLVMIsAConstantInt(dim) && LLVMConstIntGetZExtValue(dim) < 3)
    return lid[LLVMConstIntGetZExtValue(dim)];
  LLVMTypeRef i32 = LLVMTypeOf(dim);
  LLVMValueRef is0 = LLVMBuildICmp(b, LLVMIntEQ, dim, LLVMConstInt(i32, 0, 0), "");
  LLVMValueRef is1 = LLVMBuildICmp(b, LLVMIntEQ, dim, LLVMConstInt(i32, 1, 0), "");
  return LLVMBuildSelect(b, is0, lid[0], LLVMBuildSelect(b, is1, lid[1], lid[2], ""),
                         "lid");
}

static LLVMValueRef ctx_size(LLVMBuilderRef b, LLVMValueRef ctx,
                             size_t offset, LLVMValueRef dim) {
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(ctx));
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMValueRef index = LLVMBuildAdd(
      b, LLVMConstInt(i64, offset, 0),
      LLVMBuildMul(b, LLVMBuildZExt(b, dim, i64, ""), LLVMConstInt(i64, 8, 0),
                   ""),
      "");
  LLVMValueRef field = LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(context),
                                             ctx, &index, 1, "");
  LLVMValueRef load = LLVMBuildLoad2(b, i64, field, "");
  weft__set_invariant(load);
  return load;
}

LLVMValueRef weft__ctx_invariant(LLVMBuilderRef b, LLVMTypeRef type,
                                 LLVMValueRef ctx, size_t offset) {
  LLVMValueRef v = LLVMBuildLoad2(b, type, weft__ctx_field(b, ctx, offset), "");
  weft__set_invariant(v);
  return v;
}

LLVMValueRef weft__barrier_function(LLVMModuleRef module) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef params[] = {LLVMPointerTypeInContext(context, 0), i64, i64, i64,
                          i32, i32};
  /* Convergent: no optimization may make a barrier depend on more control
   * flow than it did in the source. */
  return weft__runtime_function(module, WEFT_BARRIER_SYMBOL, NULL, params, 6,
                                "convergent");
}

int weft__site_add(weft_sites *sites, LLVMValueRef call, unsigned *index) {
  if (sites->count == sites->capacity) {
    unsigned capacity = sites->capacity ? 2 * sites->capacity : 8;
    weft_source_loc *grown =
        realloc(sites->locs, capacity * sizeof *sites->locs);
    if (!grown) return WEFT_ENOMEM;
    sites->locs = grown;
    sites->capacity = capacity;
  }
  *index = sites->count++;
  sites->locs[*index].line = LLVMGetDebugLocLine(call);
  sites->locs[*index].column = LLVMGetDebugLocColumn(call);
  return 0;
}

/* The first arguments of the back end's calls about a work-item: the
 * context and the local id. */
static void item_args(LLVMValueRef body, LLVMValueRef *args) {
  args[0] = weft__body_param(body, WEFT_BODY_CTX);
  for (unsigned d = 0; d < 3; d++)
    args[1 + d] = weft__body_param(body, WEFT_BODY_LX + d);
}

LLVMValueRef weft__barrier_build(LLVMBuilderRef b, LLVMValueRef flags,
                                 LLVMMetadataRef loc, LLVMValueRef body,
                                 unsigned site) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMValueRef fn = weft__barrier_function(module);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(module));
  LLVMValueRef args[6];
  item_args(body, args);
  args[4] = flags;
  args[5] = LLVMConstInt(i32, site, 0);
  LLVMValueRef c = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 6, "");
  LLVMInstructionSetDebugLoc(c, loc);
  return c;
}

/* __weft_sub_group_converge() becomes the back end's, with the
 * work-item and the site (convergent, as barriers are). */
static LLVMValueRef converge(LLVMBuilderRef b, LLVMValueRef call,
                             LLVMValueRef body, unsigned site) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef params[] = {LLVMPointerTypeInContext(context, 0), i64, i64, i64,
                          i32};
  LLVMValueRef fn = weft__runtime_function(module, WEFT_CONVERGE_SYMBOL, i32,
                                           params, 5, "convergent");
  LLVMValueRef args[5];
  item_args(body, args);
  args[4] = LLVMConstInt(i32, site, 0);
  LLVMValueRef c = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 5, "");
  LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(call));
  return c;
}

/* __weft_assert_failed(text) becomes the back end's call with the
 * work-item and the site of its line. */
static void assert_failed(LLVMBuilderRef b, LLVMValueRef call,
                          LLVMValueRef body, unsigned site) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef params[] = {ptr, i64, i64, i64, ptr, i32};
  LLVMValueRef fn = weft__runtime_function(module, WEFT_ASSERT_SYMBOL, NULL,
                                           params, 6, NULL);
  LLVMValueRef args[6];
  item_args(body, args);
  args[4] = LLVMBuildAddrSpaceCast(b, LLVMGetOperand(call, 0), ptr, "");
  args[5] = LLVMConstInt(i32, site, 0);
  LLVMValueRef c =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 6, "");
  LLVMInstructionSetDebugLoc(c, LLVMInstructionGetDebugLoc(call));
}

static int lower_call(LLVMBuilderRef b, LLVMValueRef call,
                      const struct primitive *p, LLVMValueRef body,
                      unsigned width, weft_sites *sites) {
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMValueRef lid[3] = {weft__body_param(body, WEFT_BODY_LX),
                         weft__body_param(body, WEFT_BODY_LY),
                         weft__body_param(body, WEFT_BODY_LZ)};
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef value = NULL;
  unsigned site;
  switch (p->kind) {
  case PRIM_LOCAL_ID:
    value = local_id(b, LLVMGetOperand(call, 0), lid);
    break;
  case PRIM_CTX_SIZE:
    value = ctx_size(b, ctx, p->offset, LLVMGetOperand(call, 0));
    break;
  case PRIM_CTX_U32:
    value = weft__ctx_invariant(b, LLVMTypeOf(call), ctx, p->offset);
    break;
  case PRIM_SUB_GROUP_WIDTH:
    value = LLVMConstInt(LLVMTypeOf(call), width, 0);
    break;
  case PRIM_BARRIER:
    if (weft__site_add(sites, call, &site)) return WEFT_ENOMEM;
    /* offset: the flags' bits the primitive adds (its scope). */
    weft__barrier_build(b,
            LLVMBuildOr(b, LLVMGetOperand(call, 0),
                        LLVMConstInt(LLVMTypeOf(LLVMGetOperand(call, 0)),
                                     p->offset, 0),
                        ""),
            LLVMInstructionGetDebugLoc(call), body, site);
    break;
  case PRIM_SCRATCH:
    value = scratch(LLVMGetGlobalParent(body));
    break;
  case PRIM_SYNC:
    sync_call(b, call, p->offset, body);
    break;
  case PRIM_ASSERT:
    if (weft__site_add(sites, call, &site)) return WEFT_ENOMEM;
    assert_failed(b, call, body, site);
    break;
  case PRIM_CONVERGE:
    if (weft__site_add(sites, call, &site)) return WEFT_ENOMEM;
    value = converge(b, call, body, site);
    break;
  case PRIM_CTX_POINTER:
    value = weft__ctx_invariant(
        b, LLVMPointerTypeInContext(LLVMGetTypeContext(LLVMTypeOf(ctx)), 0), ctx,
        p->offset);
    value = LLVMBuildAddrSpaceCast(b, value, LLVMTypeOf(call), "");
    break;
  }
  if (value) LLVMReplaceAllUsesWith(call, value);
  LLVMInstructionEraseFromParent(call);
  return 0;
}

/* The name of the function inst calls directly, or NULL (not a call, or
 * an indirect one). */
static const char *callee_name(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst)) return NULL;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  return LLVMIsAFunction(callee) ? LLVMGetValueName(callee) : NULL;
}

/* The space a call of Clang's __to_global, __to_local or __to_private
 * asks about, or -1 for another call. */
static int cast_target(LLVMValueRef call) {
  const char *name = callee_name(call);
  if (!name) return -1;
  if (!strcmp(name, "__to_global")) return WEFT_ADDRESS_GLOBAL;
  if (!strcmp(name, "__to_local")) return WEFT_ADDRESS_LOCAL;
  if (!strcmp(name, "__to_private")) return WEFT_ADDRESS_PRIVATE;
  return -1;
}

/* to_global(p) and kin: p if the back end says it points there, else
 * NULL. */
static void lower_cast(LLVMBuilderRef b, LLVMValueRef call, int space,
                       LLVMValueRef body) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef params[] = {ptr, ptr};
  LLVMValueRef fn = weft__runtime_function(module, WEFT_ADDRESS_SPACE_SYMBOL,
                                           i32, params, 2, NULL);
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef p = LLVMGetOperand(call, 0);
  LLVMValueRef args[] = {weft__body_param(body, WEFT_BODY_CTX),
                         LLVMBuildAddrSpaceCast(b, p, ptr, "")};
  LLVMValueRef where = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args,
                                      2, "space");
  LLVMValueRef hit = LLVMBuildICmp(b, LLVMIntEQ, where,
                                   LLVMConstInt(i32, (unsigned)space, 0), "");
  LLVMTypeRef type = LLVMTypeOf(call);
  LLVMValueRef cast = LLVMBuildAddrSpaceCast(b, p, type, "");
  LLVMReplaceAllUsesWith(call, LLVMBuildSelect(b, hit, cast,
                                               LLVMConstNull(type), ""));
  LLVMInstructionEraseFromParent(call);
}

int weft__barrier_is_sub_group(LLVMValueRef call) {
  LLVMValueRef flags = LLVMGetOperand(call, 4);
  if (LLVMIsAInstruction(flags) && LLVMGetInstructionOpcode(flags) == LLVMOr)
    flags = LLVMGetOperand(flags, 1); /* the bit added to the user's flags */
  return LLVMIsAConstantInt(flags) &&
         (LLVMConstIntGetZExtValue(flags) & WEFT_BARRIER_SUB_GROUP);
}

int weft__workitem_lower(LLVMValueRef body, unsigned width, weft_sites *sites) {
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(body)));
  int rc = 0;
  for (LLVMBasicBlockRef block = LLVMGetFirstBasicBlock(body); block && !rc;
       block = LLVMGetNextBasicBlock(block)) {
    LLVMValueRef i = LLVMGetFirstInstruction(block);
    while (i && !rc) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      const struct primitive *p = LLVMIsACallInst(i) ? find_primitive(i) : NULL;
      int space = LLVMIsACallInst(i) ? cast_target(i) : -1;
      if (p) rc = lower_call(b, i, p, body, width, sites);
      else if (space >= 0) lower_cast(b, i, space, body);
      i = next;
    }
  }
  LLVMDisposeBuilder(b);
  return rc;
}


int weft__calls_barrier(LLVMValueRef fn) {
  static const char *const names[] = {WEFT_BARRIER_SYMBOL};
  return weft__calls_any(fn, names, 1);
}
