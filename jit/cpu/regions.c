/* regions.c: step 3d of passes.h, a body with barriers as a state machine.
 *
 * Fibers give every work-item a stack and switch between them at each
 * barrier: general, but a switch per work-item per barrier. This pass makes
 * the barrier a return instead. The body, called with state s, runs one
 * work-item from barrier s (or from the start, s = 0) to the next barrier
 * and returns that barrier's state. The work-group function then runs a
 * region for all work-items in a loop, without switching, and LLVM can
 * vectorize the loop (workgroup.c).
 *
 * What a work-item needs across a barrier lives in private memory, one
 * copy per work-item, laid out so that a field of consecutive work-items is
 * contiguous: address(field, item) = private + offset * N + item * size,
 * where N is the number of work-items per group. Two kinds of fields:
 *  - value slots: after reg2mem, every SSA value used outside its block is
 *    a scalar alloca that is only loaded and stored. The ones live after a
 *    barrier are stored to private memory before it and loaded back on
 *    resuming; afterwards mem2reg turns the slots back into SSA values.
 *    Those that every work-item holds alike (uniform_slots.c) are kept
 *    once, in the group's context (weft_wg_ctx's uniform), not per
 *    work-item: a loop's counter is then one value to the region's
 *    loop over work-items, which LLVM can vectorize.
 *  - memory objects: every other alloca (private arrays, structs, variables
 *    whose address is taken) moves into private memory for good.
 * The first field is the int32 state each work-item stopped at.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

/* ----------------------------------------------------------- splitting */

static int is_barrier_call(LLVMValueRef i, void *data) {
  (void)data;
  return weft__is_call_to(i, WEFT_BARRIER_SYMBOL);
}

/* Ends the call's block right after the call: what follows starts a
 * block of its own, the one the call's block was (its predecessors now
 * branch to the new block holding the call). */
static void split_after(LLVMValueRef call) {
  LLVMValueRef next = LLVMGetNextInstruction(call);
  LLVMBasicBlockRef head = weft__block_split_before(next, "barrier");
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(call)));
  LLVMPositionBuilderAtEnd(b, head);
  LLVMBuildBr(b, LLVMGetInstructionParent(next));
  LLVMDisposeBuilder(b);
}

void weft__regions_split(LLVMValueRef body) {
  unsigned n = 0;
  LLVMValueRef *calls = weft__instructions_where(body, is_barrier_call, NULL, &n);
  for (unsigned k = 0; calls && k < n; k++) split_after(calls[k]);
  free(calls);
}

/* ----------------------------------------------------------- the body */

typedef struct field {
  LLVMValueRef alloca_inst;
  LLVMTypeRef type;      /* what one work-item keeps */
  size_t offset;         /* bytes per work-item before this field */
  size_t size;
  int memory_object;     /* relocated for good, rather than saved */
  size_t align;
  LLVMValueRef remat;    /* a value slot's one value, computed again on
                            resuming instead of saved (weft__remakeable) */
  int uniform_at;        /* a value slot that all work-items hold alike:
                            its byte in the context's uniform buffers; -1 */
} field;

typedef struct barrier_site {
  LLVMValueRef call;
  LLVMBasicBlockRef head;   /* ends with the call and a branch to resume */
  LLVMBasicBlockRef resume; /* starts right after the barrier */
} barrier_site;

typedef struct region_pass {
  LLVMValueRef body;
  LLVMContextRef context;
  LLVMBuilderRef b;
  field *fields;
  unsigned num_fields;
  barrier_site *barriers;
  unsigned num_barriers;
  LLVMBasicBlockRef *blocks;
  unsigned num_blocks;
  uint64_t *live_in;       /* num_blocks rows of words bits */
  uint64_t *dirty_out;     /* slots stored since the region began */
  unsigned words;
  unsigned uniform_bytes;  /* of the context's uniform buffers in use */
  LLVMValueRef n_items, item, private_mem;
} region_pass;

/* A scalar alloca used only as the address of whole loads and stores. */
static int is_value_slot(LLVMValueRef a) {
  LLVMTypeRef type = LLVMGetAllocatedType(a);
  LLVMTypeKind kind = LLVMGetTypeKind(type);
  if (kind == LLVMArrayTypeKind || kind == LLVMStructTypeKind) return 0;
  if (!LLVMIsConstant(LLVMGetOperand(a, 0)) ||
      LLVMConstIntGetZExtValue(LLVMGetOperand(a, 0)) != 1)
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user) && LLVMTypeOf(user) == type) continue;
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == a &&
        LLVMGetOperand(user, 0) != a &&
        LLVMTypeOf(LLVMGetOperand(user, 0)) == type)
      continue;
    return 0;
  }
  return 1;
}

/* --------------------------------------------- values made again */

/* The one store to the value slot a, or NULL. */
static LLVMValueRef only_store(LLVMValueRef a) {
  LLVMValueRef store = NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAStoreInst(user)) continue;
    if (store) return NULL;
    store = user;
  }
  return store;
}

/* reg2mem loads a demoted value back before each use, in its own block
 * too: `trunc (load %id.slot)` beside the store of %id. Such a load after
 * the slot's one store in that block is the stored value itself (a
 * barrier ends its block, so none comes between), and so it becomes:
 * then a value made of other demoted ones (the sub-group's first lane,
 * `id & -16`, of the linear id) can be made again after a barrier
 * (remat_value) rather than saved and loaded. */
static void forward_block_reloads(LLVMValueRef slot) {
  LLVMValueRef store = only_store(slot);
  if (!store) return;
  LLVMValueRef value = LLVMGetOperand(store, 0);
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(store);
  for (LLVMValueRef i = LLVMGetNextInstruction(store), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsALoadInst(i) && LLVMGetOperand(i, 0) == slot &&
        !LLVMGetVolatile(i)) {
      assert(LLVMGetInstructionParent(i) == bb);
      LLVMReplaceAllUsesWith(i, value);
      LLVMInstructionEraseFromParent(i);
    }
  }
}

/* At most this many instructions are made again for one value. */
#define REMAT_NODES 12

/* A value is made again after a barrier (weft__remakeable, with every
 * parameter but the state: the local id among them) rather than saved:
 * the local ids and what is computed from them (get_global_id, a row
 * index), saved across a barrier, would come back as loads from private
 * memory, which the vectorizer cannot see through (a tiled matrix
 * product's loop after its barrier gathered its __local tiles). */
/* The value a slot holds, if it is stored once with a value that can be
 * made again; else NULL. */
static LLVMValueRef remat_value(LLVMValueRef body, LLVMValueRef slot) {
  LLVMValueRef store = only_store(slot);
  LLVMValueRef value = store ? LLVMGetOperand(store, 0) : NULL;
  unsigned budget = REMAT_NODES;
  return value && weft__remakeable(body, value, 1u << WEFT_BODY_STATE, &budget)
             ? value
             : NULL;
}

static int field_index(const region_pass *r, LLVMValueRef a) {
  for (unsigned i = 0; i < r->num_fields; i++)
    if (r->fields[i].alloca_inst == a) return (int)i;
  return -1;
}

/* Every alloca becomes a field (after the next-state array, which comes
 * first). Returns 0, or -1 if an alloca is not a fixed-size one in the
 * entry block. */
static int collect_fields(region_pass *r, LLVMTargetDataRef td) {
  unsigned count = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsAAllocaInst(i)) {
        if (bb != LLVMGetEntryBasicBlock(r->body) ||
            !LLVMIsConstant(LLVMGetOperand(i, 0)))
          return -1;
        count++;
      }
  r->fields = calloc(count + 1, sizeof *r->fields);
  if (!r->fields) return -1;
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(r->body);
  /* Every slot's reloads first: a value's remaking may go through any. */
  for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i;
       i = LLVMGetNextInstruction(i))
    if (LLVMIsAAllocaInst(i) && is_value_slot(i)) forward_block_reloads(i);
  for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i;
       i = LLVMGetNextInstruction(i)) {
    if (!LLVMIsAAllocaInst(i)) continue;
    field *f = &r->fields[r->num_fields++];
    f->alloca_inst = i;
    f->uniform_at = -1;
    f->memory_object = !is_value_slot(i);
    if (!f->memory_object) f->remat = remat_value(r->body, i);
    unsigned long long n = LLVMConstIntGetZExtValue(LLVMGetOperand(i, 0));
    f->type = n == 1 ? LLVMGetAllocatedType(i)
                     : LLVMArrayType2(LLVMGetAllocatedType(i), n);
    f->align = LLVMABIAlignmentOfType(td, f->type);
    if (LLVMGetAlignment(i) > f->align) f->align = LLVMGetAlignment(i);
    f->size = (size_t)LLVMABISizeOfType(td, f->type);
    f->size = (f->size + f->align - 1) / f->align * f->align; /* item * size aligned */
  }
  return 0;
}

/* Each field kept per work-item gets its place after the ones before. */
static void lay_out(region_pass *r) {
  size_t offset = sizeof(int32_t); /* the next-state array comes first */
  for (unsigned i = 0; i < r->num_fields; i++) {
    field *f = &r->fields[i];
    if (f->uniform_at >= 0) continue;
    f->offset = (offset + f->align - 1) / f->align * f->align;
    offset = f->offset + f->size;
  }
}

/* Bytes of private memory per work-item. */
static size_t private_size(const region_pass *r) {
  size_t end = sizeof(int32_t);
  for (unsigned i = 0; i < r->num_fields; i++)
    if (r->fields[i].uniform_at < 0 &&
        r->fields[i].offset + r->fields[i].size > end)
      end = r->fields[i].offset + r->fields[i].size;
  return (end + WEFT_LOCAL_ALIGN - 1) / WEFT_LOCAL_ALIGN * WEFT_LOCAL_ALIGN;
}

static int collect_barriers(region_pass *r) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(r->body); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    LLVMValueRef call = term ? LLVMGetPreviousInstruction(term) : NULL;
    if (!call || !is_barrier_call(call, NULL)) continue;
    barrier_site *grown = realloc(r->barriers,
                                  (r->num_barriers + 1) * sizeof *grown);
    if (!grown) return -1;
    r->barriers = grown;
    r->barriers[r->num_barriers++] =
        (barrier_site){call, bb, LLVMGetSuccessor(term, 0)};
  }
  return 0;
}

/* --------------------------------------------------------- liveness */

static int block_index(const region_pass *r, LLVMBasicBlockRef bb) {
  for (unsigned i = 0; i < r->num_blocks; i++)
    if (r->blocks[i] == bb) return (int)i;
  return -1;
}

/* Which value slots are live at the start of each block: a slot is live
 * where a load of it can be reached before a store to it. Memory objects
 * need no liveness: they stay in private memory. */
static int compute_liveness(region_pass *r) {
  r->num_blocks = (unsigned)LLVMCountBasicBlocks(r->body);
  r->words = (r->num_fields + 63) / 64 + 1;
  r->blocks = malloc(r->num_blocks * sizeof *r->blocks);
  uint64_t *use = calloc((size_t)r->num_blocks * r->words, 8);
  uint64_t *kill = calloc((size_t)r->num_blocks * r->words, 8);
  r->live_in = calloc((size_t)r->num_blocks * r->words, 8);
  if (!r->blocks || !use || !kill || !r->live_in) {
    free(use);
    free(kill);
    return -1;
  }
  LLVMGetBasicBlocks(r->body, r->blocks);
  for (unsigned b = 0; b < r->num_blocks; b++) {
    uint64_t *u = use + b * r->words, *k = kill + b * r->words;
    for (LLVMValueRef i = LLVMGetFirstInstruction(r->blocks[b]); i;
         i = LLVMGetNextInstruction(i)) {
      int load = LLVMIsALoadInst(i) != NULL;
      if (!load && !LLVMIsAStoreInst(i)) continue;
      int f = field_index(r, LLVMGetOperand(i, load ? 0 : 1));
      if (f < 0 || r->fields[f].memory_object) continue;
      uint64_t bit = 1ull << (f % 64);
      if (load && !(k[f / 64] & bit)) u[f / 64] |= bit;
      if (!load) k[f / 64] |= bit;
    }
  }
  /* Backward data flow to a fixed point (few passes: kernels are small). */
  for (int changed = 1; changed;) {
    changed = 0;
    for (unsigned b = r->num_blocks; b-- > 0;) {
      uint64_t out[r->words];
      memset(out, 0, sizeof out);
      LLVMValueRef term = LLVMGetBasicBlockTerminator(r->blocks[b]);
      for (unsigned s = 0, n = term ? LLVMGetNumSuccessors(term) : 0; s < n; s++) {
        int succ = block_index(r, LLVMGetSuccessor(term, s));
        for (unsigned w = 0; succ >= 0 && w < r->words; w++)
          out[w] |= r->live_in[succ * r->words + w];
      }
      for (unsigned w = 0; w < r->words; w++) {
        uint64_t in = use[b * r->words + w] | (out[w] & ~kill[b * r->words + w]);
        if (in != r->live_in[b * r->words + w]) {
          r->live_in[b * r->words + w] = in;
          changed = 1;
        }
      }
    }
  }
  free(use);
  free(kill);
  return 0;
}

static int live_at(const region_pass *r, LLVMBasicBlockRef bb, unsigned f) {
  int b = block_index(r, bb);
  return b >= 0 && (r->live_in[b * r->words + f / 64] >> (f % 64)) & 1;
}

static int is_barrier_edge(const region_pass *r, LLVMBasicBlockRef from,
                           LLVMBasicBlockRef to) {
  for (unsigned k = 0; k < r->num_barriers; k++)
    if (r->barriers[k].head == from && r->barriers[k].resume == to) return 1;
  return 0;
}

/* Which value slots may have been stored since the region began, at the
 * end of each block. A region begins clean: at a resume point the slots
 * hold what private memory holds, and at the kernel's start nothing worth
 * keeping. A barrier then saves only live slots that are dirty: the others
 * are in private memory already. */
static int compute_dirty(region_pass *r) {
  r->dirty_out = calloc((size_t)r->num_blocks * r->words, 8);
  uint64_t *stores = calloc((size_t)r->num_blocks * r->words, 8);
  if (!r->dirty_out || !stores) {
    free(stores);
    return -1;
  }
  for (unsigned b = 0; b < r->num_blocks; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(r->blocks[b]); i;
         i = LLVMGetNextInstruction(i)) {
      int f = LLVMIsAStoreInst(i) ? field_index(r, LLVMGetOperand(i, 1)) : -1;
      if (f >= 0) stores[b * r->words + f / 64] |= 1ull << (f % 64);
    }
  /* Forward data flow: dirty_out(X) = stores(X) | dirty_out(preds of X),
   * where a barrier's edge carries nothing. */
  uint64_t in[r->words];
  for (int changed = 1; changed;) {
    changed = 0;
    for (unsigned b = 0; b < r->num_blocks; b++) {
      for (unsigned w = 0; w < r->words; w++) {
        uint64_t out = stores[b * r->words + w] | r->dirty_out[b * r->words + w];
        if (out != r->dirty_out[b * r->words + w]) changed = 1;
        r->dirty_out[b * r->words + w] = out;
      }
      LLVMValueRef term = LLVMGetBasicBlockTerminator(r->blocks[b]);
      for (unsigned s = 0, n = term ? LLVMGetNumSuccessors(term) : 0; s < n; s++) {
        LLVMBasicBlockRef to = LLVMGetSuccessor(term, s);
        int succ = block_index(r, to);
        if (succ < 0 || is_barrier_edge(r, r->blocks[b], to)) continue;
        memcpy(in, r->dirty_out + b * r->words, sizeof in);
        for (unsigned w = 0; w < r->words; w++) {
          uint64_t merged = r->dirty_out[succ * r->words + w] | in[w];
          if (merged != r->dirty_out[succ * r->words + w]) changed = 1;
          r->dirty_out[succ * r->words + w] = merged;
        }
      }
    }
  }
  free(stores);
  return 0;
}

static int dirty_at_end(const region_pass *r, LLVMBasicBlockRef bb, unsigned f) {
  int b = block_index(r, bb);
  return b >= 0 && (r->dirty_out[b * r->words + f / 64] >> (f % 64)) & 1;
}

/* ------------------------------------------------- uniform values */

/* Whether value slot f is saved across some barrier. */
static int crosses_barrier(const region_pass *r, unsigned f) {
  for (unsigned k = 0; k < r->num_barriers; k++)
    if (live_at(r, r->barriers[k].resume, f)) return 1;
  return 0;
}

/* The value slots saved across barriers that all work-items hold alike
 * get places in the context's uniform buffers while there is room (and
 * their alignment is one the buffers have). Every value slot is asked
 * about: values reach each other through them. Returns 0, or -1. */
static int choose_uniform(region_pass *r) {
  /* On the heap: a large kernel has thousands of slots after reg2mem. */
  LLVMValueRef *slots = malloc((r->num_fields + 1) * sizeof *slots);
  unsigned *index = malloc((r->num_fields + 1) * sizeof *index), n = 0;
  unsigned char *uniform = malloc(r->num_fields + 1);
  int rc = slots && index && uniform ? 0 : -1;
  for (unsigned i = 0; !rc && i < r->num_fields; i++)
    if (!r->fields[i].memory_object) {
      index[n] = i;
      slots[n++] = r->fields[i].alloca_inst;
    }
  if (!rc && weft__uniform_slots(r->body, slots, n, uniform)) rc = -1;
  size_t at = 0;
  for (unsigned k = 0; !rc && k < n; k++) {
    field *f = &r->fields[index[k]];
    size_t place = (at + f->align - 1) / f->align * f->align;
    if (!uniform[k] || f->remat || !crosses_barrier(r, index[k]) ||
        f->align > WEFT_UNIFORM_ALIGN || place + f->size > WEFT_UNIFORM_BYTES)
      continue;
    f->uniform_at = (int)place;
    at = place + f->size;
  }
  r->uniform_bytes = (unsigned)at;
  free(slots);
  free(index);
  free(uniform);
  return rc;
}

/* ------------------------------------------------------ the rewrite */

/* The address of uniform field f in the buffer the region reads (0) or
 * the one it writes for the next (1). */
static LLVMValueRef uniform_address(region_pass *r, const field *f, int next) {
  assert(f->uniform_at >= 0);
  size_t offset = offsetof(weft_wg_ctx, uniform) +
                  (size_t)next * WEFT_UNIFORM_BYTES + (size_t)f->uniform_at;
  return weft__ctx_field(r->b, weft__body_param(r->body, WEFT_BODY_CTX), offset);
}

/* The address of field f for this work-item. */
static LLVMValueRef field_address(region_pass *r, const field *f) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->context);
  LLVMValueRef offset = LLVMBuildAdd(
      r->b, LLVMBuildMul(r->b, LLVMConstInt(i64, f->offset, 0), r->n_items, ""),
      LLVMBuildMul(r->b, LLVMConstInt(i64, f->size, 0), r->item, ""), "");
  return LLVMBuildInBoundsGEP2(r->b, LLVMInt8TypeInContext(r->context),
                               r->private_mem, &offset, 1, "");
}

/* The new entry block computes the work-item's index and the group size,
 * holds the allocas, and jumps to where the state says. */
static void make_entry(region_pass *r) {
  LLVMBasicBlockRef old = LLVMGetEntryBasicBlock(r->body);
  LLVMBasicBlockRef entry =
      LLVMInsertBasicBlockInContext(r->context, old, "dispatch");
  LLVMPositionBuilderAtEnd(r->b, entry);
  for (unsigned i = 0; i < r->num_fields; i++) {
    LLVMInstructionRemoveFromParent(r->fields[i].alloca_inst);
    LLVMInsertIntoBuilder(r->b, r->fields[i].alloca_inst);
  }
  LLVMValueRef ctx = weft__body_param(r->body, WEFT_BODY_CTX);
  LLVMValueRef size[3];
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->context);
  for (int d = 0; d < 3; d++) {
    size[d] = LLVMBuildLoad2(
        r->b, i64,
        weft__ctx_field(r->b, ctx,
                        offsetof(weft_wg_ctx, enqueued_local_size) + 8 * d),
        "");
    weft__set_invariant(size[d]);
  }
  r->n_items = LLVMBuildMul(r->b, LLVMBuildMul(r->b, size[0], size[1], ""),
                            size[2], "items");
  r->item = LLVMBuildAdd(
      r->b, weft__body_param(r->body, WEFT_BODY_LX),
      LLVMBuildMul(r->b, size[0],
                   LLVMBuildAdd(r->b, weft__body_param(r->body, WEFT_BODY_LY),
                                LLVMBuildMul(r->b, size[1],
                                             weft__body_param(r->body, WEFT_BODY_LZ),
                                             ""),
                                ""),
                   ""),
      "item");
  r->private_mem = weft__body_param(r->body, WEFT_BODY_PRIVATE);
}

/* The metadata that marks a memory object's address in the entry block:
 * !{object, objects}, for weft__regions_scope_objects. */
#define OBJECT_MD "weft.object"

static void mark_object_address(region_pass *r, LLVMValueRef at,
                                unsigned object, unsigned objects) {
  if (!LLVMIsAInstruction(at)) return;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(r->context);
  LLVMMetadataRef ops[2] = {
      LLVMValueAsMetadata(LLVMConstInt(i32, object, 0)),
      LLVMValueAsMetadata(LLVMConstInt(i32, objects, 0))};
  LLVMSetMetadata(at, LLVMGetMDKindIDInContext(r->context, OBJECT_MD,
                                               strlen(OBJECT_MD)),
                  LLVMMetadataAsValue(r->context,
                                      LLVMMDNodeInContext2(r->context, ops, 2)));
}

/* Memory objects now live in private memory, one copy per work-item. */
static void relocate_memory_objects(region_pass *r) {
  unsigned lifetime_start = LLVMLookupIntrinsicID("llvm.lifetime.start", 19);
  unsigned lifetime_end = LLVMLookupIntrinsicID("llvm.lifetime.end", 17);
  unsigned objects = 0, object = 0;
  for (unsigned i = 0; i < r->num_fields; i++)
    objects += r->fields[i].memory_object != 0;
  for (unsigned i = 0; i < r->num_fields; i++) {
    field *f = &r->fields[i];
    if (!f->memory_object) continue;
    /* Lifetime markers only apply to allocas; the copy lives on. */
    LLVMUseRef u = LLVMGetFirstUse(f->alloca_inst);
    while (u) {
      LLVMValueRef user = LLVMGetUser(u);
      u = LLVMGetNextUse(u);
      LLVMValueRef callee = LLVMIsACallInst(user) ? LLVMGetCalledValue(user) : NULL;
      unsigned id = callee && LLVMIsAFunction(callee) ? LLVMGetIntrinsicID(callee) : 0;
      if (id && (id == lifetime_start || id == lifetime_end))
        LLVMInstructionEraseFromParent(user);
    }
    LLVMValueRef at = field_address(r, f);
    mark_object_address(r, at, object++, objects);
    LLVMReplaceAllUsesWith(f->alloca_inst, at);
    LLVMInstructionEraseFromParent(f->alloca_inst);
    f->alloca_inst = NULL;
  }
}

/* The loads and stores through address p of object `object` (and the
 * GEPs and casts of it) marked in its scope. Not through phis or
 * selects, which may join another object's addresses; nor a store of
 * the address itself, which writes elsewhere. */
static void scope_accesses(LLVMValueRef p, unsigned object, unsigned objects,
                           unsigned depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user) ||
        (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == p &&
         LLVMGetOperand(user, 0) != p))
      weft__mark_object_access(user, object, objects);
    else if (depth && ((LLVMIsAGetElementPtrInst(user) &&
                        LLVMGetOperand(user, 0) == p) ||
                       LLVMIsABitCastInst(user) ||
                       LLVMIsAAddrSpaceCastInst(user)))
      scope_accesses(user, object, objects, depth - 1);
  }
}

void weft__regions_scope_objects(LLVMValueRef body) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  unsigned kind = LLVMGetMDKindIDInContext(c, OBJECT_MD, strlen(OBJECT_MD));
  for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(body));
       i; i = LLVMGetNextInstruction(i)) {
    LLVMValueRef mark = LLVMGetMetadata(i, kind);
    if (!mark) continue;
    LLVMValueRef ops[2];
    assert(LLVMGetMDNodeNumOperands(mark) == 2);
    LLVMGetMDNodeOperands(mark, ops);
    scope_accesses(i, (unsigned)LLVMConstIntGetZExtValue(ops[0]),
                   (unsigned)LLVMConstIntGetZExtValue(ops[1]), 16);
  }
}

/* Uniform field f's value: saved to the next region's buffer, every
 * time (the work-group function copies that buffer whole), or loaded
 * back from the region's. */
static void copy_uniform(region_pass *r, const field *f, int to_private) {
  LLVMValueRef slot = uniform_address(r, f, to_private);
  LLVMValueRef from = to_private ? f->alloca_inst : slot;
  LLVMValueRef to = to_private ? slot : f->alloca_inst;
  LLVMValueRef load = LLVMBuildLoad2(r->b, f->type, from, "");
  LLVMValueRef store = LLVMBuildStore(r->b, load, to);
  weft__mark_uniform_access(to_private ? store : load);
}

/* Copies the value slots live at bb between their allocas and private
 * memory, at the builder's position. Saving (to_private), only the slots
 * dirty at the end of block from are copied (but uniform ones). */
static void copy_live(region_pass *r, LLVMBasicBlockRef bb, int to_private,
                      LLVMBasicBlockRef from) {
  for (unsigned i = 0; i < r->num_fields; i++) {
    field *f = &r->fields[i];
    if (f->memory_object || !live_at(r, bb, i)) continue;
    if (f->uniform_at >= 0) {
      copy_uniform(r, f, to_private);
      continue;
    }
    if (to_private && !dirty_at_end(r, from, i)) continue;
    if (f->remat) {
      if (!to_private)
        LLVMBuildStore(r->b, weft__remake(r->b, f->remat), f->alloca_inst);
      continue;
    }
    LLVMValueRef slot = field_address(r, f);
    LLVMValueRef from = to_private ? f->alloca_inst : slot;
    LLVMValueRef to = to_private ? slot : f->alloca_inst;
    LLVMValueRef load = LLVMBuildLoad2(r->b, f->type, from, "");
    LLVMValueRef store = LLVMBuildStore(r->b, load, to);
    weft__mark_private_access(to_private ? store : load);
  }
}

/* Barrier k: save what lives past it, and return state k + 1. A resume
 * block for state k + 1 loads it back and continues after the barrier. */
static void rewrite_barrier(region_pass *r, unsigned k, LLVMValueRef dispatch) {
  barrier_site *s = &r->barriers[k];
  LLVMTypeRef i32 = LLVMInt32TypeInContext(r->context);
  LLVMValueRef branch = LLVMGetBasicBlockTerminator(s->head);
  LLVMPositionBuilderBefore(r->b, s->call);
  copy_live(r, s->resume, 1, s->head);
  LLVMBuildRet(r->b, LLVMConstInt(i32, k + 1, 0));
  LLVMInstructionEraseFromParent(branch);
  LLVMInstructionEraseFromParent(s->call);

  LLVMBasicBlockRef restore =
      LLVMAppendBasicBlockInContext(r->context, r->body, "resume");
  LLVMPositionBuilderAtEnd(r->b, restore);
  copy_live(r, s->resume, 0, NULL);
  LLVMBuildBr(r->b, s->resume);
  LLVMAddCase(dispatch, LLVMConstInt(i32, k + 1, 0), restore);
}

static void region_pass_free(region_pass *r) {
  free(r->fields);
  free(r->barriers);
  free(r->blocks);
  free(r->live_in);
  free(r->dirty_out);
  if (r->b) LLVMDisposeBuilder(r->b);
}

/* ------------------------------------------------ a region's exits */

/* Adds to *state the constant bb's return gives, if bb returns; 0 once
 * two differ or one is not a constant. */
static int note_return(LLVMBasicBlockRef bb, int have, int32_t *state) {
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  if (!term || !LLVMIsAReturnInst(term)) return 1;
  LLVMValueRef v = LLVMGetNumOperands(term) ? LLVMGetOperand(term, 0) : NULL;
  if (!v || !LLVMIsAConstantInt(v)) return 0;
  int32_t got = (int32_t)LLVMConstIntGetSExtValue(v);
  if (have && got != *state) return 0;
  *state = got;
  return 1;
}

/* The one successor of term a run takes (a branch on a constant, or on
 * __weft_sub_group_lanes() where lanes is 1 or 0), else NULL. */
static LLVMBasicBlockRef one_way(LLVMValueRef term, int lanes) {
  int side = weft__jam_lanes_branch(term);
  if (side >= 0) return LLVMGetSuccessor(term, lanes ? (unsigned)side : 1u - side);
  return weft__branch_constant_way(term);
}

/* The blocks a run of body from state passes, to its returns, depth
 * first; visit(bb, data) on each, which stops the walk by returning 0.
 * Returns 0 when stopped (or out of memory), else 1. */
static int walk_region(LLVMValueRef body, unsigned state, int lanes,
                       int (*visit)(LLVMBasicBlockRef, void *), void *data) {
  LLVMValueRef dispatch =
      LLVMGetBasicBlockTerminator(LLVMGetEntryBasicBlock(body));
  if (!dispatch || !LLVMIsASwitchInst(dispatch)) return 0;
  /* Successor 0 is the default: state 0; case k + 1 is successor k + 1. */
  if (state >= LLVMGetNumSuccessors(dispatch)) return 0;
  unsigned n = (unsigned)LLVMCountBasicBlocks(body);
  LLVMBasicBlockRef *stack = malloc(n * sizeof *stack);
  LLVMBasicBlockRef *seen = malloc(n * sizeof *seen);
  if (!stack || !seen) {
    free(stack);
    free(seen);
    return 0;
  }
  unsigned depth = 0, visited = 0;
  int ok = 1;
  stack[depth++] = seen[visited++] = LLVMGetSuccessor(dispatch, state);
  while (ok && depth) {
    LLVMBasicBlockRef bb = stack[--depth];
    ok = visit(bb, data);
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    LLVMBasicBlockRef only = term ? one_way(term, lanes) : NULL;
    for (unsigned i = 0, m = term ? LLVMGetNumSuccessors(term) : 0;
         ok && i < m; i++) {
      LLVMBasicBlockRef next = LLVMGetSuccessor(term, i);
      if (only && next != only) continue;
      unsigned j = 0;
      while (j < visited && seen[j] != next) j++;
      if (j < visited) continue;
      assert(visited < n && depth < n);
      stack[depth++] = seen[visited++] = next;
    }
  }
  free(stack);
  free(seen);
  return ok;
}

typedef struct next_state {
  int have;
  int32_t only;
} next_state;

static int visit_return(LLVMBasicBlockRef bb, void *data) {
  next_state *n = data;
  if (!note_return(bb, n->have, &n->only)) return 0;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  n->have |= term && LLVMIsAReturnInst(term);
  return 1;
}

int weft__regions_next_state(LLVMValueRef body, unsigned state, int lanes,
                             int32_t *only) {
  next_state n = {0, 0};
  if (!walk_region(body, state, lanes, visit_return, &n) || !n.have) return 0;
  *only = n.only;
  return 1;
}

typedef struct lanes_states {
  unsigned char *reached;
  unsigned count, marked;
} lanes_states;

/* Marks the state a block returns (a barrier's, not the end's). */
static int visit_state(LLVMBasicBlockRef bb, void *data) {
  lanes_states *l = data;
  LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
  if (!term || !LLVMIsAReturnInst(term) || !LLVMGetNumOperands(term)) return 1;
  LLVMValueRef v = LLVMGetOperand(term, 0);
  if (!LLVMIsAConstantInt(v)) return 0;
  unsigned long long state = LLVMConstIntGetZExtValue(v);
  if (state < l->count && !l->reached[state]) {
    l->reached[state] = 1;
    l->marked++;
  }
  return 1;
}

int weft__regions_lanes_states(LLVMValueRef body, unsigned count,
                               unsigned char *reached) {
  memset(reached, 0, count);
  if (!count) return 1;
  lanes_states l = {reached, count, 1};
  reached[0] = 1;
  /* Each pass walks the states marked so far, until one marks none. */
  for (unsigned before = 0; before != l.marked;) {
    before = l.marked;
    for (unsigned s = 0; s < count; s++)
      if (reached[s] && !walk_region(body, s, 1, visit_state, &l)) return 0;
  }
  return 1;
}

/* Stops the walk at a call of __weft_sub_group_lanes(), or of a fold or
 * pick of the lanes (a body whose slots' way is gone: build.c's
 * split_slots). */
static int visit_no_lanes_block(LLVMBasicBlockRef bb, void *data) {
  (void)data;
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i))
    if (weft__jam_is_lanes_query(i) || weft__jam_is_lanes_call(i)) return 0;
  return 1;
}

int weft__regions_ask_lanes(LLVMValueRef body, unsigned state) {
  return !walk_region(body, state, 1, visit_no_lanes_block, NULL);
}

/* The barrier's site index: the last argument of the runtime call. */
static unsigned site_of(LLVMValueRef call) {
  unsigned n = (unsigned)LLVMGetNumArgOperands(call);
  return (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(call, n - 1));
}

int weft__regions_make(LLVMValueRef body, LLVMTargetDataRef layout,
                       size_t max_private, weft_kernel_desc *desc) {
  /* Sub-groups meet where the group's others may be elsewhere, which a
   * region, run by every work-item, cannot have: fibers run them. */
  if (desc->flags & WEFT_KERNEL_SUB_GROUPS) return 0;
  region_pass r = {.body = body,
                   .context = LLVMGetModuleContext(LLVMGetGlobalParent(body))};
  if (collect_fields(&r, layout) || collect_barriers(&r) || !r.num_barriers ||
      compute_liveness(&r) || choose_uniform(&r) ||
      (lay_out(&r), private_size(&r) > max_private) || compute_dirty(&r)) {
    region_pass_free(&r);
    return 0; /* fibers will run it */
  }
  desc->state_sites = calloc(r.num_barriers + 1, sizeof *desc->state_sites);
  if (!desc->state_sites) {
    region_pass_free(&r);
    return WEFT_ENOMEM;
  }
  r.b = LLVMCreateBuilderInContext(r.context);
  LLVMBasicBlockRef start = LLVMGetEntryBasicBlock(body);
  make_entry(&r);
  relocate_memory_objects(&r);
  LLVMValueRef dispatch =
      LLVMBuildSwitch(r.b, weft__body_param(body, WEFT_BODY_STATE), start,
                      r.num_barriers);
  for (unsigned k = 0; k < r.num_barriers; k++) {
    desc->state_sites[k + 1] = site_of(r.barriers[k].call);
    rewrite_barrier(&r, k, dispatch);
  }
  desc->num_states = r.num_barriers + 1;
  desc->private_size = private_size(&r);
  desc->uniform_bytes = r.uniform_bytes;
  desc->flags |= WEFT_KERNEL_REGIONS;
  region_pass_free(&r);
  return 1;
}
