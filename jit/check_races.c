/* check_races.c: check mode's race check (WEFT_CHECK=races), part of step
 * 3c of passes.h.
 *
 * Two accesses to the same bytes by two work-items, at least one a write,
 * race unless something orders them. What orders them here:
 *   - a barrier between them, when both work-items are in one group;
 *   - synchronization: the first work-item made a synchronizing operation
 *     after its access, and the second made one after that access too (a
 *     lock's release and acquire, a flag's store and poll).
 * The back end keeps a record of the last accesses to each word of
 * __local memory and of buffer arguments (backend/cpu/check_races.c) and
 * decides; this pass tells it of each access and each synchronization:
 *
 *   - every plain load, store, memset and memcpy whose object is known, of
 *     __local memory or of a __global buffer or SVM argument, first calls
 *     race_access(ctx, lx, ly, lz, site, what, offset, cell, size, epoch),
 *     where what says whether it writes and which memory it is (__local,
 *     or which argument), offset is the access's in its object (for the
 *     report), cell its offset in what the back end keeps records of (the
 *     group's __local memory, or the argument's buffer), and epoch the
 *     number of barriers the work-item has passed (a private counter,
 *     raised after each);
 *   - every synchronizing operation calls race_sync(ctx, lx, ly, lz) both
 *     before (its release: the work-item's earlier accesses must count as
 *     synchronized before another thread can see the operation) and after
 *     (its acquire). Synchronizing are: an atomic operation of any kind (a
 *     ticket lock releases with an atomic add) but a counter's update in
 *     __local memory (synchronizes()), a volatile load or store (the flags
 *     of OpenCL 1.x, which had no atomic loads), a fence, and the
 *     cl_weft_sync calls (wait, wake, poll, yield).
 *
 * Atomic and volatile accesses themselves are never recorded: atomics do
 * not race with each other, and volatile is how OpenCL 1.x wrote them.
 * Private memory cannot race, and memory reached through a pointer of
 * unknown origin is not followed (README: Debugging kernels).
 * The scratch area of the collective functions is Weft's own, not
 * followed either. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/check_access.h"
#include "weft/weft.h"

typedef struct racer {
  LLVMValueRef body;
  const weft_kernel_desc *desc;
  LLVMTargetDataRef layout;
  LLVMBuilderRef b;
  LLVMContextRef context;
  LLVMTypeRef i32, i64, ptr;
  LLVMValueRef epoch;       /* the work-item's barrier count (an alloca) */
  weft_check_sites *sites;
} racer;

/* ------------------------------------------------------ what is what */

/* Whether inst is a synchronizing operation (see the top), before what
 * its memory is is known. */
static int may_synchronize(LLVMValueRef inst) {
  static const char *const calls[] = {WEFT_YIELD_SYMBOL, WEFT_WAIT_SYMBOL,
                                      WEFT_WAKE_SYMBOL, WEFT_POLL_SYMBOL};
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMAtomicCmpXchg:
  case LLVMAtomicRMW:
  case LLVMFence:
    return 1;
  case LLVMLoad:
  case LLVMStore:
    return LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic ||
           LLVMGetVolatile(inst);
  case LLVMCall: {
    LLVMValueRef callee = LLVMGetCalledValue(inst);
    if (!LLVMIsAFunction(callee)) return 0;
    size_t length;
    const char *name = LLVMGetValueName2(callee, &length);
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
      if (!strcmp(name, calls[i])) return 1;
    return 0;
  }
  default:
    return 0;
  }
}

static int is_barrier(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst)) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  size_t length;
  return LLVMIsAFunction(callee) &&
         !strcmp(LLVMGetValueName2(callee, &length), WEFT_BARRIER_SYMBOL);
}

/* Whether an access is plain (atomics do not race with each other). */
static int plain(LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) return 0;
  if (op == LLVMLoad || op == LLVMStore)
    return LLVMGetOrdering(inst) == LLVMAtomicOrderingNotAtomic &&
           !LLVMGetVolatile(inst);
  return 1;
}

/* Whether the back end keeps records of the access's memory: __local
 * memory (but the collective functions' scratch), or a __global buffer or
 * SVM argument. */
static int followed(const racer *r, weft_access *a) {
  if (!weft__origin_of(r->body, r->desc, r->layout, a->pointer, &a->from))
    return 0;
  if (a->from.space == WEFT_ADDRESS_LOCAL) {
    size_t length;
    const char *name = LLVMGetValueName2(a->from.base, &length);
    return strcmp(name, "weft.wg.scratch") != 0;
  }
  return a->from.arg >= 0 && a->from.space == WEFT_ADDRESS_GLOBAL &&
         r->desc->args[a->from.arg].kind != WEFT_ARG_LOCAL;
}

/* Whether inst synchronizes: an atomic addition, subtraction, minimum,
 * maximum or bitwise operation on __local memory does not (histograms'
 * and compactions' counters, by the thousand; a lock among a group's
 * work-items takes an exchange, a compare-and-swap or a flag). */
static int synchronizes(const racer *r, LLVMValueRef inst) {
  if (!may_synchronize(inst)) return 0;
  if (!LLVMIsAAtomicRMWInst(inst) ||
      LLVMGetAtomicRMWBinOp(inst) == LLVMAtomicRMWBinOpXchg)
    return 1;
  weft_access a[2];
  weft_origin o;
  return !weft__accesses_of(r->layout, inst, a) ||
         !weft__origin_of(r->body, r->desc, r->layout, a[0].pointer, &o) ||
         o.space != WEFT_ADDRESS_LOCAL;
}

static int race_relevant(LLVMValueRef inst, void *data) {
  weft_access a[2];
  return is_barrier(inst) || may_synchronize(inst) ||
         (plain(inst) && weft__accesses_of(data, inst, a));
}

/* ------------------------------------------------------------- calls */

static LLVMValueRef access_function(const racer *r) {
  LLVMTypeRef params[] = {r->ptr, r->i64, r->i64, r->i64, r->i32,
                          r->i32, r->i64, r->i64, r->i64, r->i32};
  return weft__runtime_function(LLVMGetGlobalParent(r->body),
                                WEFT_RACE_ACCESS_SYMBOL, NULL, params, 10, NULL);
}

static LLVMValueRef sync_function(const racer *r) {
  LLVMTypeRef params[] = {r->ptr, r->i64, r->i64, r->i64};
  return weft__runtime_function(LLVMGetGlobalParent(r->body),
                                WEFT_RACE_SYNC_SYMBOL, NULL, params, 4, NULL);
}

/* The access's offset in the back end's records: in the group's __local
 * memory, or in the argument's buffer (its offset in the object). */
static LLVMValueRef cell_of(const racer *r, const weft_access *a,
                            LLVMValueRef offset) {
  if (a->from.space != WEFT_ADDRESS_LOCAL) return offset;
  LLVMValueRef ctx = weft__body_param(r->body, WEFT_BODY_CTX);
  LLVMValueRef base = LLVMBuildLoad2(
      r->b, r->ptr, weft__ctx_field(r->b, ctx, offsetof(weft_wg_ctx, local_mem)),
      "");
  weft__set_invariant(base);
  return LLVMBuildSub(r->b, LLVMBuildPtrToInt(r->b, a->pointer, r->i64, ""),
                      LLVMBuildPtrToInt(r->b, base, r->i64, ""), "cell");
}

/* race_access(...) before inst, for its access a. */
static int tell_access(racer *r, LLVMValueRef inst, const weft_access *a) {
  unsigned site;
  if (weft__check_site_of(r->sites, inst, a, WEFT_ACCESS_RACE | a->kind, &site))
    return WEFT_ENOMEM;
  LLVMPositionBuilderBefore(r->b, inst);
  LLVMSetCurrentDebugLocation2(r->b, LLVMInstructionGetDebugLoc(inst));
  LLVMValueRef offset = weft__access_offset(r->b, a);
  LLVMValueRef fn = access_function(r);
  int local = a->from.space == WEFT_ADDRESS_LOCAL;
  unsigned what = ((a->kind & WEFT_ACCESS_WRITE) ? WEFT_RACE_WRITE : 0) |
                  (local ? WEFT_RACE_LOCAL
                         : (unsigned)a->from.arg << WEFT_RACE_ARG_SHIFT);
  LLVMValueRef args[] = {weft__body_param(r->body, WEFT_BODY_CTX),
                         weft__body_param(r->body, WEFT_BODY_LX),
                         weft__body_param(r->body, WEFT_BODY_LY),
                         weft__body_param(r->body, WEFT_BODY_LZ),
                         LLVMConstInt(r->i32, site, 0),
                         LLVMConstInt(r->i32, what, 0),
                         offset,
                         cell_of(r, a, offset),
                         LLVMBuildZExt(r->b, a->size, r->i64, ""),
                         LLVMBuildLoad2(r->b, r->i32, r->epoch, "epoch")};
  LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 10, "");
  return 0;
}

/* The builder after inst. */
static void position_after(racer *r, LLVMValueRef inst) {
  LLVMValueRef next = LLVMGetNextInstruction(inst);
  if (next) LLVMPositionBuilderBefore(r->b, next);
  else LLVMPositionBuilderAtEnd(r->b, LLVMGetInstructionParent(inst));
  LLVMSetCurrentDebugLocation2(r->b, LLVMInstructionGetDebugLoc(inst));
}

/* After a barrier: the epoch raised. */
static void barrier_passed(racer *r, LLVMValueRef inst) {
  position_after(r, inst);
  LLVMValueRef e = LLVMBuildLoad2(r->b, r->i32, r->epoch, "");
  LLVMBuildStore(r->b, LLVMBuildAdd(r->b, e, LLVMConstInt(r->i32, 1, 0), ""),
                 r->epoch);
}

static void tell_sync(racer *r) {
  LLVMValueRef fn = sync_function(r);
  LLVMValueRef args[] = {weft__body_param(r->body, WEFT_BODY_CTX),
                         weft__body_param(r->body, WEFT_BODY_LX),
                         weft__body_param(r->body, WEFT_BODY_LY),
                         weft__body_param(r->body, WEFT_BODY_LZ)};
  LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 4, "");
}

static int instrument(racer *r, LLVMValueRef inst) {
  if (is_barrier(inst)) {
    barrier_passed(r, inst);
    return 0;
  }
  /* Atomic and volatile accesses are not recorded (see the top). */
  if (may_synchronize(inst)) {
    if (!synchronizes(r, inst)) return 0;
    LLVMPositionBuilderBefore(r->b, inst);
    LLVMSetCurrentDebugLocation2(r->b, LLVMInstructionGetDebugLoc(inst));
    tell_sync(r);
    position_after(r, inst);
    tell_sync(r);
    return 0;
  }
  weft_access a[2];
  unsigned n = weft__accesses_of(r->layout, inst, a);
  for (unsigned i = 0; i < n; i++)
    if (followed(r, &a[i])) {
      int rc = tell_access(r, inst, &a[i]);
      if (rc) return rc;
    }
  return 0;
}

/* The work-item's barrier count, 0 at its start. */
static LLVMValueRef make_epoch(racer *r) {
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(r->body);
  LLVMPositionBuilderBefore(r->b, LLVMGetFirstInstruction(entry));
  LLVMSetCurrentDebugLocation2(r->b, NULL);
  LLVMValueRef epoch = LLVMBuildAlloca(r->b, r->i32, "race.epoch");
  LLVMBuildStore(r->b, LLVMConstInt(r->i32, 0, 0), epoch);
  return epoch;
}

int weft__check_races_insert(LLVMValueRef body, const weft_kernel_desc *desc,
                             LLVMTargetDataRef layout,
                             weft_check_sites *sites) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  racer r = {.body = body, .desc = desc, .layout = layout,
             .b = LLVMCreateBuilderInContext(context), .context = context,
             .i32 = LLVMInt32TypeInContext(context),
             .i64 = LLVMInt64TypeInContext(context),
             .ptr = LLVMPointerTypeInContext(context, 0), .sites = sites};
  unsigned count;
  LLVMValueRef *list = weft__instructions_where(body, race_relevant, layout, &count);
  int rc = list ? 0 : WEFT_ENOMEM;
  if (!rc) r.epoch = make_epoch(&r);
  for (unsigned k = 0; k < count && !rc; k++) rc = instrument(&r, list[k]);
  free(list);
  LLVMDisposeBuilder(r.b);
  return rc;
}
