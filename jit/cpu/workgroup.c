/* workgroup.c: step 4 of passes.h, the work-group function.
 *
 *   void name(void *const *args, weft_wg_ctx *ctx, const weft_wg_range *r)
 *   {
 *     unpack the arguments once;
 *     for (z = r->lo[2]; z < r->hi[2]; z++)
 *       for (y = r->lo[1]; y < r->hi[1]; y++)
 *         for (x = r->lo[0]; x < r->hi[0]; x++) {
 *           body(arguments..., ctx, x, y, z, 0, NULL);
 *           if (kernel has a barrier && ctx->fiber_mode) return;
 *         }
 *   }
 *
 * A region-scheduled body (regions.c) gets one such loop nest per state:
 *
 *     for (state = r->state;;) {
 *       ctx->region_state = state;
 *       switch (state) {            // one case per state, k constant in it
 *       case k: for each work-item: next[item] = body(..., k, private);
 *       }                           // (a region with one way out: no next[])
 *       if (the work-items disagree on next) report divergence;
 *       if (r->single_region || next == WEFT_STATE_RETURN) return;
 *       state = next;
 *     }
 *
 * With k constant, the inlined body keeps only region k's code.
 *
 * The body is inlined afterwards, so the innermost loop is the kernel code
 * with get_local_id(0) as its induction variable: LLVM vectorizes it across
 * work-items when no barrier stands in the way. Where the body (or a
 * region of it) has jammed functions (jam.c), the x loop runs them
 * first, each while its width of work-items is left, then the body one
 * at a time. The loops are emitted in rotated form (test at the bottom,
 * one guard at the top), as LLVM's loop passes want them.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "jit/cpu/passes.h"

typedef struct wg_builder {
  LLVMContextRef context;
  LLVMBuilderRef b;
  LLVMValueRef fn;
  LLVMTypeRef i64, i32;
  LLVMValueRef lo[3], hi[3];
  LLVMValueRef body;
  LLVMValueRef *call_args;  /* the body's arguments; extra ones set per use */
  unsigned num_args;        /* the kernel's own arguments */
  /* Region scheduling. */
  LLVMValueRef size[3];     /* enqueued local size */
  LLVMValueRef state;       /* alloca: the state running */
  LLVMValueRef low, high;   /* allocas: min and max next state of a region */
  LLVMValueRef private_mem;
} wg_builder;

/* A load of memory that stays the same during the call (the range, the
 * context's sizes). */
static LLVMValueRef load_invariant(wg_builder *w, LLVMTypeRef type,
                                   LLVMValueRef base, size_t offset) {
  LLVMValueRef load =
      LLVMBuildLoad2(w->b, type, weft__ctx_field(w->b, base, offset), "");
  weft__set_invariant(load);
  return load;
}

static LLVMValueRef load_i64(wg_builder *w, LLVMValueRef base, size_t offset) {
  return load_invariant(w, w->i64, base, offset);
}

/* A local id bound or a local size: at most WEFT_CPU_MAX_WORK_GROUP_SIZE
 * (at least 1 for a size), which LLVM is told (see weft__set_range). */
static LLVMValueRef load_size(wg_builder *w, LLVMValueRef base, size_t offset,
                              int is_size) {
  LLVMValueRef load = load_i64(w, base, offset);
  weft__set_range(load, is_size ? 1 : 0, WEFT_CPU_MAX_WORK_GROUP_SIZE + 1);
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

/* What the loops do for one work-item (x, y, z = iv). */
typedef void (*item_emitter)(wg_builder *w, LLVMValueRef iv[3],
                             LLVMBasicBlockRef exit, void *data);

/* Whether the range holds no work-item (empty in some dimension). */
static LLVMValueRef range_is_empty(wg_builder *w) {
  LLVMValueRef empty = LLVMConstInt(LLVMInt1TypeInContext(w->context), 0, 0);
  for (int d = 0; d < 3; d++)
    empty = LLVMBuildOr(w->b, empty,
                        LLVMBuildICmp(w->b, LLVMIntUGE, w->lo[d], w->hi[d], ""),
                        "");
  return empty;
}

/* Loops over the range, calling each for every work-item (for every
 * (y, z), iv[0] NULL, when each loops over x itself: x_inside);
 * afterwards the builder is at done, which an empty range also reaches. */
static void emit_loops(wg_builder *w, item_emitter each, void *data,
                       int x_inside, LLVMBasicBlockRef done,
                       LLVMBasicBlockRef exit) {
  LLVMBasicBlockRef headers[3] = {block(w, "x"), block(w, "y"), block(w, "z")};
  /* One guard: an empty range in any dimension runs nothing. */
  LLVMBasicBlockRef start = block(w, "start");
  LLVMBuildCondBr(w->b, range_is_empty(w), done, start);
  LLVMPositionBuilderAtEnd(w->b, start);

  LLVMValueRef iv[3] = {NULL};
  LLVMBasicBlockRef from = start;
  int first = x_inside ? 1 : 0;
  for (int d = 2; d >= first; d--) {
    iv[d] = loop_begin(w, from, w->lo[d], headers[d]);
    from = headers[d];
  }
  if (x_inside) LLVMDeleteBasicBlock(headers[0]);
  each(w, iv, exit, data);
  LLVMBasicBlockRef after[3] = {NULL, block(w, "y.end"), done};
  if (!x_inside) after[0] = block(w, "x.end");
  for (int d = first; d < 3; d++) {
    loop_end(w, iv[d], w->hi[d], headers[d], after[d]);
    if (d < 2) LLVMPositionBuilderAtEnd(w->b, after[d]);
  }
  LLVMPositionBuilderAtEnd(w->b, done);
}

static void emit_item_loops(wg_builder *w, item_emitter each, void *data,
                            LLVMBasicBlockRef done, LLVMBasicBlockRef exit) {
  emit_loops(w, each, data, 0, done, exit);
}

static LLVMValueRef call_function(wg_builder *w, LLVMValueRef fn,
                                  LLVMValueRef iv[3], LLVMValueRef state,
                                  LLVMValueRef private_mem) {
  unsigned n = w->num_args;
  w->call_args[n + WEFT_BODY_CTX] = LLVMGetParam(w->fn, 1);
  w->call_args[n + WEFT_BODY_LX] = iv[0];
  w->call_args[n + WEFT_BODY_LY] = iv[1];
  w->call_args[n + WEFT_BODY_LZ] = iv[2];
  w->call_args[n + WEFT_BODY_STATE] = state;
  w->call_args[n + WEFT_BODY_PRIVATE] = private_mem;
  return LLVMBuildCall2(w->b, LLVMGlobalGetValueType(fn), fn, w->call_args,
                        n + WEFT_BODY_EXTRA_PARAMS, "");
}

static LLVMValueRef call_body(wg_builder *w, LLVMValueRef iv[3],
                              LLVMValueRef state, LLVMValueRef private_mem) {
  return call_function(w, w->body, iv, state, private_mem);
}

/* What the loops of a kernel without regions call its body with. */
typedef struct plain_run {
  int has_barrier;
  unsigned state; /* 0, or WEFT_BODY_STREAMING */
} plain_run;

/* A kernel without regions: run the body; after a barrier, the other
 * work-items run on fibers, so the first one stops the loop. */
static void plain_item(wg_builder *w, LLVMValueRef iv[3], LLVMBasicBlockRef exit,
                       void *data) {
  const plain_run *run = data;
  call_body(w, iv, LLVMConstInt(w->i32, run->state, 0),
            LLVMConstNull(LLVMPointerTypeInContext(w->context, 0)));
  if (!run->has_barrier) return;
  LLVMValueRef mode = LLVMBuildLoad2(
      w->b, w->i32,
      weft__ctx_field(w->b, LLVMGetParam(w->fn, 1),
                      offsetof(weft_wg_ctx, fiber_mode)),
      "");
  LLVMSetVolatile(mode, 1);
  LLVMBasicBlockRef next = block(w, "next");
  LLVMBuildCondBr(w->b,
                  LLVMBuildICmp(w->b, LLVMIntNE, mode,
                                LLVMConstInt(w->i32, 0, 0), ""),
                  exit, next);
  LLVMPositionBuilderAtEnd(w->b, next);
}

/* Creates the function and unpacks its arguments and range. */
static void begin(wg_builder *w, LLVMModuleRef module, LLVMValueRef body,
                  const weft_kernel_desc *desc, const char *name,
                  LLVMValueRef *call_args) {
  w->context = LLVMGetModuleContext(module);
  w->i64 = LLVMInt64TypeInContext(w->context);
  w->i32 = LLVMInt32TypeInContext(w->context);
  w->body = body;
  w->call_args = call_args;
  w->num_args = desc->num_args;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(w->context, 0);
  LLVMTypeRef params[] = {ptr, ptr, ptr};
  w->fn = LLVMAddFunction(
      module, name,
      LLVMFunctionType(LLVMVoidTypeInContext(w->context), params, 3, 0));
  /* The three pointers never alias each other or the kernel's buffers. */
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  for (unsigned i = 1; i <= 3; i++)
    LLVMAddAttributeAtIndex(w->fn, i,
                            LLVMCreateEnumAttribute(w->context, noalias, 0));
  w->b = LLVMCreateBuilderInContext(w->context);
  LLVMPositionBuilderAtEnd(w->b, block(w, "entry"));
  for (unsigned i = 0; i < desc->num_args; i++)
    call_args[i] = unpack_arg(w, body, i, &desc->args[i]);
  LLVMValueRef range = LLVMGetParam(w->fn, 2);
  for (int d = 0; d < 3; d++) {
    w->lo[d] = load_size(w, range, offsetof(weft_wg_range, lo) + 8 * d, 0);
    w->hi[d] = load_size(w, range, offsetof(weft_wg_range, hi) + 8 * d, 1);
  }
}

/* What the x loop of a jammed body runs: its jammed functions, with the
 * state and private memory the body takes. */
typedef struct jammed_run {
  const weft_jammed *tiers;
  LLVMValueRef state, private_mem;
  int whole; /* the range is whole multiples of the last tier's width */
  int stating; /* each call returns where it stops: kept in low, high */
} jammed_run;

static void update(wg_builder *w, LLVMValueRef slot, LLVMValueRef value,
                   LLVMIntPredicate keep_old_if);

/* One jammed loop of the x loop at y and z, from start on: width
 * work-items a call while that many are left. Returns where it stopped;
 * the builder is after it.
 *
 *   for (x = start; x + width <= hi; x += width) jammed(x);
 */

static LLVMValueRef jammed_loop(wg_builder *w, LLVMValueRef iv[3],
                                const jammed_run *run, const weft_jammed *jam,
                                LLVMValueRef start) {
  LLVMValueRef width = LLVMConstInt(w->i64, jam->width, 0);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(w->b);
  LLVMBasicBlockRef wide = block(w, "x.jam"), rest = block(w, "x.rest");
  LLVMValueRef fits = LLVMBuildICmp(
      w->b, LLVMIntULE, LLVMBuildNUWAdd(w->b, start, width, ""), w->hi[0], "");
  LLVMBuildCondBr(w->b, fits, wide, rest);

  LLVMPositionBuilderAtEnd(w->b, wide);
  LLVMValueRef x = LLVMBuildPhi(w->b, w->i64, "");
  LLVMValueRef at[3] = {x, iv[1], iv[2]};
  LLVMValueRef stop = call_function(w, jam->fn, at, run->state, run->private_mem);
  if (run->stating) {
    update(w, w->low, stop, LLVMIntSLE);
    update(w, w->high, stop, LLVMIntSGE);
  }
  LLVMValueRef next = LLVMBuildNUWAdd(w->b, x, width, "");
  LLVMValueRef again = LLVMBuildICmp(
      w->b, LLVMIntULE, LLVMBuildNUWAdd(w->b, next, width, ""), w->hi[0], "");
  LLVMBuildCondBr(w->b, again, wide, rest);
  LLVMAddIncoming(x, &start, &from, 1);
  LLVMAddIncoming(x, &next, &wide, 1);

  LLVMPositionBuilderAtEnd(w->b, rest);
  LLVMValueRef left = LLVMBuildPhi(w->b, w->i64, "");
  LLVMAddIncoming(left, &start, &from, 1);
  LLVMAddIncoming(left, &next, &wide, 1);
  return left;
}

/* The x loop of a jammed body, at y and z (iv[0] unused): each jammed
 * function while its width of work-items is left, then one at a time
 * (also what a replay of single work-items after a fault runs). */
static void jammed_items(wg_builder *w, LLVMValueRef iv[3],
                         LLVMBasicBlockRef exit, void *data) {
  (void)exit;
  const jammed_run *run = data;
  LLVMValueRef left = w->lo[0];
  for (unsigned t = 0; t < WEFT_JAM_TIERS && run->tiers[t].fn; t++)
    left = jammed_loop(w, iv, run, &run->tiers[t], left);
  if (run->whole) return; /* nothing is left */

  LLVMBasicBlockRef from = LLVMGetInsertBlock(w->b);
  LLVMBasicBlockRef one = block(w, "x.one"), done = block(w, "x.done");
  LLVMBuildCondBr(w->b, LLVMBuildICmp(w->b, LLVMIntULT, left, w->hi[0], ""),
                  one, done);
  LLVMPositionBuilderAtEnd(w->b, one);
  LLVMValueRef x = LLVMBuildPhi(w->b, w->i64, "");
  LLVMValueRef at[3] = {x, iv[1], iv[2]};
  call_body(w, at, run->state, run->private_mem);
  LLVMValueRef after = LLVMBuildNUWAdd(w->b, x, LLVMConstInt(w->i64, 1, 0), "");
  LLVMBuildCondBr(w->b, LLVMBuildICmp(w->b, LLVMIntULT, after, w->hi[0], ""),
                  one, done);
  LLVMAddIncoming(x, &left, &from, 1);
  LLVMAddIncoming(x, &after, &one, 1);
  LLVMPositionBuilderAtEnd(w->b, done);
}

/* Whether the call runs whole sub-groups side by side: the group's x
 * size and the range's x bounds multiples of the sub-group width (with
 * rows, the group's x size need not be where its y and z sizes are 1: a
 * sub-group is then x ids of its one row, and the back end calls it for
 * the whole ones, weft_cpu_sub_groups_rows), not a single region (a
 * fault's replay), not no_lanes, and, from_start, from the kernel's start
 * (state 0). */
static LLVMValueRef whole_sub_groups(wg_builder *w, const weft_kernel_desc *desc,
                                     int from_start, int rows) {
  unsigned width = weft_cpu_sub_group_width(desc);
  LLVMValueRef ctx = LLVMGetParam(w->fn, 1), range = LLVMGetParam(w->fn, 2);
  LLVMValueRef mask = LLVMConstInt(w->i64, width - 1, 0);
  LLVMValueRef sizes = LLVMBuildOr(
      w->b, load_size(w, ctx, offsetof(weft_wg_ctx, local_size), 1),
      load_size(w, ctx, offsetof(weft_wg_ctx, enqueued_local_size), 1), "");
  sizes = LLVMBuildAnd(w->b, sizes, mask, "");
  if (rows) {
    LLVMValueRef one_row = LLVMBuildICmp(
        w->b, LLVMIntEQ,
        LLVMBuildMul(
            w->b, load_size(w, ctx, offsetof(weft_wg_ctx, local_size) + 8, 1),
            load_size(w, ctx, offsetof(weft_wg_ctx, local_size) + 16, 1), ""),
        LLVMConstInt(w->i64, 1, 0), "");
    sizes = LLVMBuildSelect(w->b, one_row, LLVMConstInt(w->i64, 0, 0), sizes, "");
  }
  LLVMValueRef bits = LLVMBuildOr(w->b, w->lo[0], w->hi[0], "");
  bits = LLVMBuildOr(w->b, LLVMBuildAnd(w->b, bits, mask, ""), sizes, "");
  LLVMValueRef not_whole = LLVMBuildOr(
      w->b, load_invariant(w, w->i32, range, offsetof(weft_wg_range, no_lanes)),
      load_invariant(w, w->i32, range, offsetof(weft_wg_range, single_region)),
      "");
  if (from_start)
    not_whole = LLVMBuildOr(
        w->b, not_whole,
        load_invariant(w, w->i32, range, offsetof(weft_wg_range, state)), "");
  return LLVMBuildAnd(
      w->b, LLVMBuildICmp(w->b, LLVMIntEQ, bits, LLVMConstInt(w->i64, 0, 0), ""),
      LLVMBuildICmp(w->b, LLVMIntEQ, not_whole, LLVMConstInt(w->i32, 0, 0), ""),
      "");
}

/* A call for a range of whole sub-groups from the kernel's start (the
 * group's x size and the range's x bounds multiples of the sub-group
 * width, state 0, not a single region, not no_lanes) runs the jams of
 * whole sub-groups alone and returns; others go on at the builder. */
static void lanes_first(wg_builder *w, const weft_jammed *lanes,
                        const weft_kernel_desc *desc, int rows) {
  if (!lanes || !lanes[0].fn) return;
  unsigned width = weft_cpu_sub_group_width(desc);
  LLVMValueRef whole = whole_sub_groups(w, desc, 1, rows);
  LLVMBasicBlockRef jammed = block(w, "lanes"), done = block(w, "lanes.done"),
                    rest = block(w, "lanes.not");
  LLVMBuildCondBr(w->b, whole, jammed, rest);
  LLVMPositionBuilderAtEnd(w->b, jammed);
  unsigned last = lanes[1].fn ? 1 : 0;
  assert(lanes[last].width == width);
  (void)last;
  jammed_run run = {lanes, LLVMConstInt(w->i32, 0, 0),
                    LLVMConstNull(LLVMPointerTypeInContext(w->context, 0)), 1, 0};
  emit_loops(w, jammed_items, &run, 1, done, done);
  LLVMBuildRetVoid(w->b);
  LLVMPositionBuilderAtEnd(w->b, rest);
}

/* A range one work-item wide in x (groups of 1 x N or 1 x 1 x N: the
 * CTS's thread_dimensions and imagedim launch them) runs with its
 * innermost loop over the next dimension wider than one: the x loop,
 * made for many work-items (its vector and unrolled forms' guards), and
 * the y loop, each entered for one work-item, cost several times the
 * body (thread_dimensions' kernel on the EPYC: 1.9 ns a work-item in
 * 1 x 1 x 1024 groups, 0.4 in 256 x 1 x 1), and over y or z LLVM can
 * vectorize it as it does over x.
 *
 *   if (hi.x - lo.x == 1 && y and z not empty, more than one item) {
 *     if (hi.y - lo.y == 1) for (z...) body(lo.x, lo.y, z);
 *     else for (z...) for (y...) body(lo.x, y, z);
 *     return;
 *   }
 */
static void narrow_first(wg_builder *w, LLVMBasicBlockRef exit) {
  LLVMValueRef one = LLVMConstInt(w->i64, 1, 0), single[3];
  for (int d = 0; d < 3; d++) /* one work-item wide in dimension d */
    single[d] = LLVMBuildICmp(
        w->b, LLVMIntEQ, LLVMBuildSub(w->b, w->hi[d], w->lo[d], ""), one, "");
  LLVMValueRef narrow = single[0];
  for (int d = 1; d < 3; d++)
    narrow = LLVMBuildAnd(
        w->b, narrow, LLVMBuildICmp(w->b, LLVMIntULT, w->lo[d], w->hi[d], ""), "");
  /* And more than one work-item: a fault's replay runs one at a time, and
   * must meet the usual loops' code, whose lines are the kernel's (the
   * two copies here may be merged where the body is the same each time,
   * and a merged instruction's line is none). */
  LLVMValueRef one_item = LLVMBuildAnd(w->b, single[1], single[2], "");
  narrow = LLVMBuildAnd(w->b, narrow, LLVMBuildNot(w->b, one_item, ""), "");
  LLVMBasicBlockRef test = block(w, "narrow"), wide = block(w, "wide");
  LLVMBuildCondBr(w->b, narrow, test, wide);
  LLVMPositionBuilderAtEnd(w->b, test);
  LLVMBasicBlockRef column = block(w, "z.only"), plane = block(w, "z.y");
  LLVMBuildCondBr(w->b, single[1], column, plane);
  plain_run plain = {0, 0};
  /* z alone */
  LLVMPositionBuilderAtEnd(w->b, column);
  LLVMBasicBlockRef header = block(w, "z.only.loop");
  LLVMValueRef z = loop_begin(w, column, w->lo[2], header);
  LLVMValueRef at[3] = {w->lo[0], w->lo[1], z};
  plain_item(w, at, exit, &plain);
  loop_end(w, z, w->hi[2], header, exit);
  /* z, then y inside */
  LLVMPositionBuilderAtEnd(w->b, plane);
  LLVMBasicBlockRef z_header = block(w, "z.loop"), y_header = block(w, "y.loop");
  LLVMBasicBlockRef y_done = block(w, "y.done");
  z = loop_begin(w, plane, w->lo[2], z_header);
  LLVMValueRef y = loop_begin(w, z_header, w->lo[1], y_header);
  LLVMValueRef at2[3] = {w->lo[0], y, z};
  plain_item(w, at2, exit, &plain);
  loop_end(w, y, w->hi[1], y_header, y_done);
  LLVMPositionBuilderAtEnd(w->b, y_done);
  loop_end(w, z, w->hi[2], z_header, exit);
  LLVMPositionBuilderAtEnd(w->b, wide);
}

/* The loops of a kernel without regions: with streams (stream_stores.c),
 * one nest calling the body to store them past the caches, where the
 * launch says so, and one calling it to store them plainly; the state
 * is a constant in each, so each keeps only its stores. Optimized, a
 * range one work-item wide in x goes to narrow_first's loops first. */
static void plain_items(wg_builder *w, const weft_kernel_desc *desc,
                        int has_barrier, int optimize, LLVMBasicBlockRef exit) {
  plain_run plain = {has_barrier, 0}, streamed = {has_barrier, WEFT_BODY_STREAMING};
  if (!has_barrier && optimize) narrow_first(w, exit);
  if (!(desc->flags & WEFT_KERNEL_STREAMS)) {
    emit_item_loops(w, plain_item, &plain, exit, exit);
    return;
  }
  assert(!has_barrier);
  LLVMValueRef on = load_invariant(w, w->i32, LLVMGetParam(w->fn, 1),
                                   offsetof(weft_wg_ctx, stream_stores));
  LLVMBasicBlockRef past = block(w, "streams"), kept = block(w, "plain");
  LLVMBuildCondBr(w->b,
                  LLVMBuildICmp(w->b, LLVMIntNE, on, LLVMConstInt(w->i32, 0, 0), ""),
                  past, kept);
  LLVMBasicBlockRef past_done = block(w, "streams.done");
  LLVMPositionBuilderAtEnd(w->b, past);
  emit_item_loops(w, plain_item, &streamed, past_done, exit);
  LLVMBuildBr(w->b, exit); /* at past_done */
  LLVMPositionBuilderAtEnd(w->b, kept);
  emit_item_loops(w, plain_item, &plain, exit, exit);
}

LLVMValueRef weft__workgroup_make(LLVMModuleRef module, LLVMValueRef body,
                                  const weft_jammed *jammed,
                                  const weft_jammed *lanes,
                                  const weft_kernel_desc *desc,
                                  const char *name, int optimize) {
  wg_builder w = {0};
  LLVMValueRef call_args[desc->num_args + WEFT_BODY_EXTRA_PARAMS];
  begin(&w, module, body, desc, name, call_args);
  LLVMBasicBlockRef exit = block(&w, "exit");
  int has_barrier = weft__calls_barrier(body);
  /* (A body with jams of whole sub-groups has no work-group barrier.) */
  lanes_first(&w, lanes, desc, 1);
  if (jammed && jammed[0].fn) {
    assert(!has_barrier && jammed[0].width >= 2);
    jammed_run run = {jammed, LLVMConstInt(w.i32, 0, 0),
                      LLVMConstNull(LLVMPointerTypeInContext(w.context, 0)), 0, 0};
    emit_loops(&w, jammed_items, &run, 1, exit, exit);
  } else {
    plain_items(&w, desc, has_barrier, optimize, exit);
  }
  LLVMBuildRetVoid(w.b);
  LLVMDisposeBuilder(w.b);
  return w.fn;
}

/* ------------------------------------------------------------ regions */

static LLVMValueRef load_i32(wg_builder *w, LLVMValueRef base, size_t offset) {
  return load_invariant(w, w->i32, base, offset);
}

static void update(wg_builder *w, LLVMValueRef slot, LLVMValueRef value,
                   LLVMIntPredicate keep_old_if) {
  LLVMValueRef old = LLVMBuildLoad2(w->b, w->i32, slot, "");
  LLVMBuildStore(w->b,
                 LLVMBuildSelect(w->b, LLVMBuildICmp(w->b, keep_old_if, old,
                                                     value, ""),
                                 old, value, ""),
                 slot);
}

/* One work-item of region k: run it, note where it stopped, and keep the
 * lowest and highest such state (equal when the work-items agree; the
 * reductions keep the loop vectorizable). */
static void region_item(wg_builder *w, LLVMValueRef iv[3],
                        LLVMBasicBlockRef exit, void *data) {
  (void)exit;
  unsigned k = *(unsigned *)data;
  LLVMValueRef next =
      call_body(w, iv, LLVMConstInt(w->i32, k, 0), w->private_mem);
  LLVMValueRef item = LLVMBuildAdd(
      w->b, iv[0],
      LLVMBuildMul(w->b, w->size[0],
                   LLVMBuildAdd(w->b, iv[1],
                                LLVMBuildMul(w->b, w->size[1], iv[2], ""), ""),
                   ""),
      "");
  weft__mark_private_access(LLVMBuildStore(
      w->b, next,
      LLVMBuildInBoundsGEP2(w->b, w->i32, w->private_mem, &item, 1, "")));
  update(w, w->low, next, LLVMIntSLE);
  update(w, w->high, next, LLVMIntSGE);
}

/* One work-item of a region whose every work-item stops in the same state
 * (weft__regions_next_state): nothing to note, so the loop is the
 * kernel's code alone and vectorizes like a kernel without barriers. */
static void region_item_alone(wg_builder *w, LLVMValueRef iv[3],
                              LLVMBasicBlockRef exit, void *data) {
  (void)exit;
  unsigned k = *(unsigned *)data;
  call_body(w, iv, LLVMConstInt(w->i32, k, 0), w->private_mem);
}

/* Before such a region's loop: low and high are its one next state, or,
 * for an empty range, low > high, as the loop of region_item would leave
 * them. */
static void note_only_state(wg_builder *w, int32_t only) {
  LLVMValueRef empty = range_is_empty(w);
  LLVMValueRef state = LLVMConstInt(w->i32, (unsigned)only, 1);
  LLVMBuildStore(w->b,
                 LLVMBuildSelect(w->b, empty,
                                 LLVMConstInt(w->i32, INT32_MAX, 0), state, ""),
                 w->low);
  LLVMBuildStore(w->b,
                 LLVMBuildSelect(w->b, empty,
                                 LLVMConstInt(w->i32, (unsigned)INT32_MIN, 1),
                                 state, ""),
                 w->high);
}

static LLVMValueRef diverged_function(LLVMModuleRef module) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(LLVMGetModuleContext(module), 0);
  LLVMTypeRef params[] = {ptr, ptr};
  return weft__runtime_function(module, WEFT_REGION_DIVERGED_SYMBOL, NULL,
                                params, 2, "noreturn");
}

/* The uniform values the region's work-items saved (regions.c) become
 * what the next region reads. */
static void pass_uniform(wg_builder *w, unsigned bytes) {
  if (!bytes) return;
  LLVMValueRef ctx = LLVMGetParam(w->fn, 1);
  LLVMValueRef to = weft__ctx_field(w->b, ctx, offsetof(weft_wg_ctx, uniform));
  LLVMValueRef from = weft__ctx_field(
      w->b, ctx, offsetof(weft_wg_ctx, uniform) + WEFT_UNIFORM_BYTES);
  LLVMValueRef copy = LLVMBuildMemCpy(w->b, to, WEFT_UNIFORM_ALIGN, from,
                                      WEFT_UNIFORM_ALIGN,
                                      LLVMConstInt(w->i64, bytes, 0));
  weft__mark_uniform_access(copy);
}

/* After region k: check agreement, then pass the uniform values on and
 * go to the next state. */
static void end_region(wg_builder *w, LLVMBasicBlockRef dispatch,
                       LLVMBasicBlockRef exit, LLVMValueRef single,
                       unsigned uniform_bytes) {
  LLVMValueRef low = LLVMBuildLoad2(w->b, w->i32, w->low, "");
  LLVMValueRef high = LLVMBuildLoad2(w->b, w->i32, w->high, "");
  LLVMBasicBlockRef disagree = block(w, "diverged"), agree = block(w, "agreed");
  /* low > high: no work-item ran (an empty range): nothing to check. */
  LLVMBuildCondBr(w->b, LLVMBuildICmp(w->b, LLVMIntSLT, low, high, ""),
                  disagree, agree);
  LLVMPositionBuilderAtEnd(w->b, disagree);
  LLVMValueRef fn = diverged_function(LLVMGetGlobalParent(w->fn));
  LLVMValueRef args[] = {LLVMGetParam(w->fn, 1), w->private_mem};
  LLVMBuildCall2(w->b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
  LLVMBuildUnreachable(w->b);
  LLVMPositionBuilderAtEnd(w->b, agree);
  LLVMBuildStore(w->b, low, w->state);
  LLVMValueRef stop = LLVMBuildOr(
      w->b, LLVMBuildICmp(w->b, LLVMIntNE, single, LLVMConstInt(w->i32, 0, 0), ""),
      LLVMBuildICmp(w->b, LLVMIntSGT, low, high, ""), "");
  if (!uniform_bytes) {
    LLVMBuildCondBr(w->b, stop, exit, dispatch);
    return;
  }
  /* Not after a single region: a fault's replay runs the region for one
   * work-item after another, each from what the region began with. */
  LLVMBasicBlockRef next = block(w, "next");
  LLVMBuildCondBr(w->b, stop, exit, next);
  LLVMPositionBuilderAtEnd(w->b, next);
  pass_uniform(w, uniform_bytes);
  LLVMBuildBr(w->b, dispatch);
}

/* Region k run by its jams of whole sub-groups (lanes_regions), which
 * take the sub-group functions' lanes from each other: no slot, no
 * sub-group barrier, so the next state is the next work-group barrier's
 * (or the end), or, where there are several, what each call returns.
 * Calls that stop in different states (a barrier that some sub-groups
 * take and others not) leave the group to be run again without them,
 * whose work-items can be named (weft__cpu_lanes_parted). The range is
 * whole sub-groups: nothing is left over. */
static void lanes_region(wg_builder *w, const weft_jammed *tiers, unsigned k,
                         LLVMBasicBlockRef done, LLVMBasicBlockRef exit) {
  int stating = tiers[0].stating;
  jammed_run run = {tiers, LLVMConstInt(w->i32, k, 0), w->private_mem, 1,
                    stating};
  if (!stating) {
    note_only_state(w, tiers[0].next);
    emit_loops(w, jammed_items, &run, 1, done, exit);
    return;
  }
  LLVMBuildStore(w->b, LLVMConstInt(w->i32, INT32_MAX, 0), w->low);
  LLVMBuildStore(w->b, LLVMConstInt(w->i32, (unsigned)INT32_MIN, 1), w->high);
  LLVMBasicBlockRef ran = block(w, "lanes.ran"), parted = block(w, "lanes.parted");
  emit_loops(w, jammed_items, &run, 1, ran, exit);
  LLVMValueRef low = LLVMBuildLoad2(w->b, w->i32, w->low, "");
  LLVMValueRef high = LLVMBuildLoad2(w->b, w->i32, w->high, "");
  LLVMBuildCondBr(w->b, LLVMBuildICmp(w->b, LLVMIntSLT, low, high, ""), parted,
                  done);
  LLVMPositionBuilderAtEnd(w->b, parted);
  LLVMValueRef fn = weft__sub_group_parted_function(LLVMGetGlobalParent(w->fn));
  LLVMValueRef ctx = LLVMGetParam(w->fn, 1);
  LLVMBuildCall2(w->b, LLVMGlobalGetValueType(fn), fn, &ctx, 1, "");
  LLVMBuildUnreachable(w->b);
  LLVMPositionBuilderAtEnd(w->b, done);
}

/* A call not for whole sub-groups (a group's x size not a multiple of
 * the width, a work-item on its fiber, a fault's replay) runs apart,
 * the work-group function of the slots' way, and returns; the builder
 * goes on for the others. */
static void apart_first(wg_builder *w, LLVMValueRef apart,
                        const weft_kernel_desc *desc) {
  LLVMValueRef whole = whole_sub_groups(w, desc, 0, 0);
  LLVMBasicBlockRef slots = block(w, "apart"), rest = block(w, "whole");
  LLVMBuildCondBr(w->b, whole, rest, slots);
  LLVMPositionBuilderAtEnd(w->b, slots);
  LLVMValueRef args[3];
  for (unsigned i = 0; i < 3; i++) args[i] = LLVMGetParam(w->fn, i);
  LLVMBuildCall2(w->b, LLVMGlobalGetValueType(apart), apart, args, 3, "");
  LLVMBuildRetVoid(w->b);
  LLVMPositionBuilderAtEnd(w->b, rest);
}

LLVMValueRef weft__workgroup_make_regions(LLVMModuleRef module,
                                          LLVMValueRef body,
                                          const weft_jammed *region_jams,
                                          const weft_jammed *lanes,
                                          const weft_jammed *lanes_regions,
                                          LLVMValueRef apart,
                                          const weft_kernel_desc *desc,
                                          const char *name) {
  wg_builder w = {0};
  LLVMValueRef call_args[desc->num_args + WEFT_BODY_EXTRA_PARAMS];
  begin(&w, module, body, desc, name, call_args);
  lanes_first(&w, lanes, desc, 0);
  assert(!apart || lanes_regions);
  if (apart) apart_first(&w, apart, desc);
  LLVMValueRef whole =
      lanes_regions && !apart ? whole_sub_groups(&w, desc, 0, 0) : NULL;
  LLVMValueRef ctx = LLVMGetParam(w.fn, 1), range = LLVMGetParam(w.fn, 2);
  for (int d = 0; d < 3; d++)
    w.size[d] = load_size(&w, ctx,
                          offsetof(weft_wg_ctx, enqueued_local_size) + 8 * d, 1);
  w.private_mem = load_invariant(&w, LLVMPointerTypeInContext(w.context, 0),
                                 ctx, offsetof(weft_wg_ctx, private_mem));
  LLVMValueRef single = load_i32(&w, range, offsetof(weft_wg_range, single_region));
  w.state = LLVMBuildAlloca(w.b, w.i32, "state");
  w.low = LLVMBuildAlloca(w.b, w.i32, "low");
  w.high = LLVMBuildAlloca(w.b, w.i32, "high");
  LLVMBuildStore(w.b, load_i32(&w, range, offsetof(weft_wg_range, state)), w.state);
  LLVMBasicBlockRef dispatch = block(&w, "dispatch"), exit = block(&w, "exit");
  LLVMBuildBr(w.b, dispatch);

  LLVMPositionBuilderAtEnd(w.b, dispatch);
  LLVMValueRef state = LLVMBuildLoad2(w.b, w.i32, w.state, "");
  /* Volatile: a fault report reads it after the fault, whatever follows. */
  LLVMValueRef note = LLVMBuildStore(
      w.b, state, weft__ctx_field(w.b, ctx, offsetof(weft_wg_ctx, region_state)));
  LLVMSetVolatile(note, 1);
  LLVMValueRef cases = LLVMBuildSwitch(w.b, state, exit, desc->num_states);
  for (unsigned k = 0; k < desc->num_states; k++) {
    LLVMBasicBlockRef region = block(&w, "region"), done = block(&w, "region.end");
    LLVMAddCase(cases, LLVMConstInt(w.i32, k, 0), region);
    LLVMPositionBuilderAtEnd(w.b, region);
    const weft_jammed *lanes_tiers =
        lanes_regions ? &lanes_regions[k * (WEFT_JAM_TIERS + 1)] : NULL;
    if (lanes_tiers && lanes_tiers[0].fn && apart) {
      /* Every call here runs whole sub-groups (apart_first). */
      lanes_region(&w, lanes_tiers, k, done, exit);
      end_region(&w, dispatch, exit, single, desc->uniform_bytes);
      continue;
    }
    if (lanes_tiers && lanes_tiers[0].fn) {
      LLVMBasicBlockRef side = block(&w, "lanes"), slots = block(&w, "slots");
      LLVMBuildCondBr(w.b, whole, side, slots);
      LLVMPositionBuilderAtEnd(w.b, side);
      lanes_region(&w, lanes_tiers, k, done, exit);
      LLVMPositionBuilderAtEnd(w.b, slots);
    }
    int32_t only;
    const weft_jammed *tiers =
        region_jams ? &region_jams[k * (WEFT_JAM_TIERS + 1)] : NULL;
    if (tiers && tiers[0].fn) {
      /* Jammed only where the work-items all stop in one state. */
      int agreed = weft__regions_next_state(body, k, 0, &only);
      assert(agreed);
      (void)agreed;
      note_only_state(&w, only);
      jammed_run run = {tiers, LLVMConstInt(w.i32, k, 0), w.private_mem, 0, 0};
      emit_loops(&w, jammed_items, &run, 1, done, exit);
    } else if (weft__regions_next_state(body, k, 0, &only)) {
      note_only_state(&w, only);
      emit_item_loops(&w, region_item_alone, &k, done, exit);
    } else {
      LLVMBuildStore(w.b, LLVMConstInt(w.i32, INT32_MAX, 0), w.low);
      LLVMBuildStore(w.b, LLVMConstInt(w.i32, (unsigned)INT32_MIN, 1), w.high);
      emit_item_loops(&w, region_item, &k, done, exit);
    }
    end_region(&w, dispatch, exit, single, desc->uniform_bytes);
  }
  LLVMPositionBuilderAtEnd(w.b, exit);
  LLVMBuildRetVoid(w.b);
  LLVMDisposeBuilder(w.b);
  return w.fn;
}
