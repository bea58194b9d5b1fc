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
 * unknown origin is not followed (README: Debugging kernels). Nor are the
 * reads of a buffer argument that no plain access of the kernel writes:
 * with nothing recorded that writes it, none of them can be found to
 * race (vecadd's inputs, matmul's matrices cost nothing).
 * The scratch area of the collective functions is Weft's own, not
 * followed either. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/check_access.h"
#include "weft/weft.h"

typedef struct racer {
  LLVMValueRef body;
  const weft_kernel_desc *desc;
  LLVMTargetDataRef layout;
  LLVMBuilderRef b;
  LLVMContextRef context;
  LLVMTypeRef i32, i64, ptr;
  LLVMValueRef epoch;       /* the work-item's barrier count (an alloca) */
  LLVMValueRef item;        /* its number in the records (i32), made once */
  weft_check_sites *sites;
  unsigned char *written;   /* per argument: a plain access writes it */
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

/* i32: the work-item's number in the records (race_first plus its index
 * in the group), built where the builder is. */
static LLVMValueRef item_number(racer *r) {
  LLVMValueRef ctx = weft__body_param(r->body, WEFT_BODY_CTX);
  LLVMValueRef n[2];
  for (int i = 0; i < 2; i++) {
    n[i] = LLVMBuildLoad2(
        r->b, r->i64,
        weft__ctx_field(r->b, ctx, offsetof(weft_wg_ctx, enqueued_local_size) +
                                       i * sizeof(uint64_t)),
        "");
    weft__set_invariant(n[i]);
  }
  LLVMValueRef lx = weft__body_param(r->body, WEFT_BODY_LX);
  LLVMValueRef ly = weft__body_param(r->body, WEFT_BODY_LY);
  LLVMValueRef lz = weft__body_param(r->body, WEFT_BODY_LZ);
  LLVMValueRef index = LLVMBuildAdd(
      r->b, lx,
      LLVMBuildMul(r->b, n[0], LLVMBuildAdd(r->b, ly, LLVMBuildMul(r->b, n[1], lz, ""), ""), ""),
      "");
  LLVMValueRef first = LLVMBuildLoad2(
      r->b, r->i32, weft__ctx_field(r->b, ctx, offsetof(weft_wg_ctx, race_first)), "");
  weft__set_invariant(first);
  return LLVMBuildAdd(r->b, first, LLVMBuildTrunc(r->b, index, r->i32, ""), "item");
}

/* i32 (or i8 for the mask) field of slot slot of the cell at record. */
static LLVMValueRef slot_field(racer *r, LLVMValueRef record, unsigned slot,
                               unsigned field, LLVMTypeRef type) {
  LLVMValueRef at = LLVMConstInt(r->i64, slot * WEFT_RACE_SLOT + field, 0);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(r->context);
  return LLVMBuildLoad2(r->b, type, LLVMBuildGEP2(r->b, i8, record, &at, 1, ""), "");
}

/* i1, in the probe block: the read of a whole word (the cell's record at
 * record) by work-item item after epoch barriers would change nothing and
 * race with nothing. The word's last write is its own, of an earlier
 * barrier interval, or none (a group's __local records are its own: no
 * other group's, no earlier launch's), and its two readers are other
 * work-items of this interval, of the whole word: the back end keeps
 * those two and drops this read (the tile a whole group reads). */
static LLVMValueRef read_changes_nothing(racer *r, LLVMValueRef record,
                                         LLVMValueRef item, LLVMValueRef epoch) {
  LLVMTypeRef i8 = LLVMInt8TypeInContext(r->context);
  LLVMValueRef zero = LLVMConstInt(r->i32, 0, 0);
  LLVMValueRef writer = slot_field(r, record, 0, WEFT_RACE_SLOT_ITEM, r->i32);
  LLVMValueRef written = slot_field(r, record, 0, WEFT_RACE_SLOT_EPOCH, r->i32);
  LLVMValueRef ok = LLVMBuildOr(
      r->b,
      LLVMBuildOr(r->b, LLVMBuildICmp(r->b, LLVMIntEQ, writer, zero, ""),
                  LLVMBuildICmp(r->b, LLVMIntEQ, writer, item, ""), ""),
      LLVMBuildICmp(r->b, LLVMIntNE, written, epoch, ""), "");
  for (unsigned i = 1; i <= 2; i++) {
    LLVMValueRef reader = slot_field(r, record, i, WEFT_RACE_SLOT_ITEM, r->i32);
    LLVMValueRef read = slot_field(r, record, i, WEFT_RACE_SLOT_EPOCH, r->i32);
    LLVMValueRef mask = slot_field(r, record, i, WEFT_RACE_SLOT_MASK, i8);
    LLVMValueRef other = LLVMBuildAnd(
        r->b, LLVMBuildICmp(r->b, LLVMIntNE, reader, zero, ""),
        LLVMBuildICmp(r->b, LLVMIntNE, reader, item, ""), "");
    LLVMValueRef now = LLVMBuildAnd(
        r->b, LLVMBuildICmp(r->b, LLVMIntEQ, read, epoch, ""),
        LLVMBuildICmp(r->b, LLVMIntEQ, mask, LLVMConstInt(i8, 0xf, 0), ""), "");
    ok = LLVMBuildAnd(r->b, ok, LLVMBuildAnd(r->b, other, now, ""), "");
  }
  return ok;
}

/* Whether a's access may skip its call: a plain 4-byte load of __local
 * memory (a whole word when aligned: the inner loops' reads of tiles). */
static int has_shortcut(LLVMValueRef inst, const weft_access *a) {
  return a->from.space == WEFT_ADDRESS_LOCAL && LLVMIsALoadInst(inst) &&
         LLVMIsAConstantInt(a->size) && LLVMConstIntGetZExtValue(a->size) == 4;
}

/* Before inst, whose builder is in head: the shortcut's blocks. head
 * branches to a probe of the word's record when there is one (records
 * kept, the word aligned and within the group's __local memory), which
 * branches past the call when the read changes nothing; the builder ends
 * in the block that makes the call, which must branch to inst's. */
static void shortcut(racer *r, LLVMValueRef inst, LLVMValueRef cell,
                     LLVMValueRef epoch) {
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(inst);
  LLVMBasicBlockRef probe = LLVMInsertBasicBlockInContext(r->context, rest, "race.probe");
  LLVMBasicBlockRef call = LLVMInsertBasicBlockInContext(r->context, rest, "race.tell");
  LLVMValueRef ctx = weft__body_param(r->body, WEFT_BODY_CTX);
  LLVMValueRef races = weft__ctx_invariant(r->b, r->i64, ctx,
                                           offsetof(weft_wg_ctx, local_races));
  LLVMValueRef size = weft__ctx_invariant(r->b, r->i64, ctx,
                                          offsetof(weft_wg_ctx, local_mem_size));
  LLVMValueRef zero = LLVMConstInt(r->i64, 0, 0);
  LLVMValueRef kept = LLVMBuildAnd(
      r->b, LLVMBuildICmp(r->b, LLVMIntNE, races, zero, ""),
      LLVMBuildAnd(
          r->b,
          LLVMBuildICmp(r->b, LLVMIntEQ,
                        LLVMBuildAnd(r->b, cell, LLVMConstInt(r->i64, 3, 0), ""), zero, ""),
          LLVMBuildICmp(r->b, LLVMIntULT, cell, size, ""), ""),
      "");
  LLVMBuildCondBr(r->b, kept, probe, call);
  LLVMPositionBuilderAtEnd(r->b, probe);
  LLVMValueRef base = LLVMBuildLoad2(
      r->b, r->ptr, weft__ctx_field(r->b, ctx, offsetof(weft_wg_ctx, local_mem)), "");
  weft__set_invariant(base);
  LLVMValueRef at = LLVMBuildAdd(
      r->b, races,
      LLVMBuildMul(r->b, LLVMBuildLShr(r->b, cell, LLVMConstInt(r->i64, 2, 0), ""),
                   LLVMConstInt(r->i64, WEFT_RACE_CELL, 0), ""),
      "");
  LLVMTypeRef i8 = LLVMInt8TypeInContext(r->context);
  LLVMValueRef record = LLVMBuildGEP2(r->b, i8, base, &at, 1, "record");
  LLVMBuildCondBr(r->b, read_changes_nothing(r, record, r->item, epoch),
                  rest, call);
  LLVMPositionBuilderAtEnd(r->b, call);
}

/* race_access(...) before inst, for its access a. */
static int tell_access(racer *r, LLVMValueRef inst, const weft_access *a) {
  unsigned site;
  if (weft__check_site_of(r->sites, inst, a, WEFT_ACCESS_RACE | a->kind, &site))
    return WEFT_ENOMEM;
  int short_cut = has_shortcut(inst, a);
  if (short_cut)
    LLVMPositionBuilderAtEnd(r->b, weft__block_split_before(inst, "race"));
  else
    LLVMPositionBuilderBefore(r->b, inst);
  LLVMSetCurrentDebugLocation2(r->b, LLVMInstructionGetDebugLoc(inst));
  LLVMValueRef offset = weft__access_offset(r->b, a);
  LLVMValueRef cell = cell_of(r, a, offset);
  LLVMValueRef epoch = LLVMBuildLoad2(r->b, r->i32, r->epoch, "epoch");
  if (short_cut) shortcut(r, inst, cell, epoch);
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
                         cell,
                         LLVMBuildZExt(r->b, a->size, r->i64, ""),
                         epoch};
  LLVMBuildCall2(r->b, LLVMGlobalGetValueType(fn), fn, args, 10, "");
  if (short_cut) LLVMBuildBr(r->b, LLVMGetInstructionParent(inst));
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

/* Marks the buffer arguments that the plain accesses among list write. */
static void find_written(racer *r, LLVMValueRef *list, unsigned count) {
  for (unsigned k = 0; k < count; k++) {
    weft_access a[2];
    unsigned n = plain(list[k]) ? weft__accesses_of(r->layout, list[k], a) : 0;
    for (unsigned i = 0; i < n; i++)
      if ((a[i].kind & WEFT_ACCESS_WRITE) && followed(r, &a[i]) && a[i].from.arg >= 0)
        r->written[a[i].from.arg] = 1;
  }
}

/* Whether a's access needs telling: not a read of a buffer argument that
 * nothing plainly writes. */
static int may_race(const racer *r, const weft_access *a) {
  return (a->kind & WEFT_ACCESS_WRITE) || a->from.space == WEFT_ADDRESS_LOCAL ||
         r->written[a->from.arg];
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
    if (followed(r, &a[i]) && may_race(r, &a[i])) {
      int rc = tell_access(r, inst, &a[i]);
      if (rc) return rc;
    }
  return 0;
}

/* Where the body begins: the work-item's barrier count, 0 at its start,
 * and its number in the records (the shortcut's, unused otherwise). */
static void make_item_state(racer *r) {
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(r->body);
  LLVMPositionBuilderBefore(r->b, LLVMGetFirstInstruction(entry));
  LLVMSetCurrentDebugLocation2(r->b, NULL);
  r->epoch = LLVMBuildAlloca(r->b, r->i32, "race.epoch");
  LLVMBuildStore(r->b, LLVMConstInt(r->i32, 0, 0), r->epoch);
  r->item = item_number(r);
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
  r.written = calloc(desc->num_args ? desc->num_args : 1, 1);
  int rc = list && r.written ? 0 : WEFT_ENOMEM;
  if (!rc) {
    find_written(&r, list, count);
    make_item_state(&r);
  }
  for (unsigned k = 0; k < count && !rc; k++) rc = instrument(&r, list[k]);
  free(r.written);
  free(list);
  LLVMDisposeBuilder(r.b);
  return rc;
}
