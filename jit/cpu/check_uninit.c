/* check_uninit.c: check mode's uninitialised-read check
 * (WEFT_CHECK=uninit), part of step 3c of passes.h.
 *
 * __local and private memory that a kernel reads must have been written
 * first: __local memory by some work-item of the group since the group
 * began, a private variable by its work-item. Each byte has a shadow byte,
 * 1 once written. __local memory's shadow follows it in the group's local
 * memory, ctx->local_shadow bytes further (the back end clears it when a
 * group begins); a private variable's is a private variable of its own,
 * cleared where the variable is made but for its padding (a 3-vector's
 * fourth lane, a struct's holes), which no one writes and whole loads and
 * copies read; a 3-vector's store marks its fourth lane too.
 *
 * A buffer argument's shadow is the buffer's own (core/buffer_shadow.c
 * keeps it across launches and host writes): the launch gives its
 * address at the argument's first byte in ctx->arg_shadows, or NULL when
 * the buffer's bytes are not followed (made with host data, SVM, written
 * by something unchecked). Such a read, or one outside the argument's
 * bytes (the memory check, when on, has stopped those already), checks
 * the sink instead, a private array of written bytes (a select, not a
 * branch); such a write marks nothing.
 *
 * A store marks its bytes; a load checks them first and, if one was never
 * written, calls check_failed with the site (the load is still made: it
 * reads whatever is there); an atomic does both; memset marks; memcpy
 * copies the shadow with the data, so that copying an uninitialised value
 * is no error but reading it afterwards is. Memory whose object is not
 * known (a pointer from memory, or a generic pointer of unknown origin)
 * is not followed. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/cpu/check_access.h"
#include "weft/weft.h"

/* Shadows of the body's private variables, made on first use. */
typedef struct shadow_pair {
  LLVMValueRef variable, shadow;
} shadow_pair;

typedef struct uninit {
  LLVMValueRef body;
  const weft_kernel_desc *desc;
  LLVMTargetDataRef layout;
  LLVMBuilderRef b;
  LLVMContextRef context;
  LLVMTypeRef i8, i64, ptr;
  weft_check_sites *sites;
  shadow_pair *pairs;
  unsigned num_pairs;
} uninit;

/* Accesses no wider than this are checked with one integer load. */
#define WIDE 16

/* Bytes of the sink (weft.shadow.sink): reads of buffers wider than this
 * are not checked. */
#define SINK 256

/* Clears in mask[] the bytes of a value of type at offset that hold data
 * (the rest of the variable is padding). */
static void cover(LLVMTargetDataRef layout, LLVMTypeRef type, uint64_t offset,
                  unsigned char *mask, uint64_t size) {
  switch (LLVMGetTypeKind(type)) {
  case LLVMStructTypeKind:
    for (unsigned i = 0, n = LLVMCountStructElementTypes(type); i < n; i++)
      cover(layout, LLVMStructGetTypeAtIndex(type, i),
            offset + LLVMOffsetOfElement(layout, type, i), mask, size);
    return;
  case LLVMArrayTypeKind: {
    LLVMTypeRef e = LLVMGetElementType(type);
    uint64_t step = LLVMABISizeOfType(layout, e);
    for (uint64_t i = 0, n = LLVMGetArrayLength2(type); i < n; i++)
      cover(layout, e, offset + i * step, mask, size);
    return;
  }
  case LLVMVectorTypeKind: {
    uint64_t bytes = LLVMGetVectorSize(type) *
                     LLVMStoreSizeOfType(layout, LLVMGetElementType(type));
    if (offset < size) memset(mask + offset, 0, bytes < size - offset ? bytes : size - offset);
    return;
  }
  default: {
    uint64_t bytes = LLVMStoreSizeOfType(layout, type);
    if (offset < size) memset(mask + offset, 0, bytes < size - offset ? bytes : size - offset);
  }
  }
}

/* Variables up to this size get their padding marked written (padding is
 * read whole, by a 3-vector's loads or a struct's copies, but never
 * written); larger ones start all unwritten. */
#define PADDED_MAX 65536

/* The shadow's first value: a constant with the variable's padding
 * written, or NULL when it has none (or is too large to say). */
static LLVMValueRef padding_of(uninit *u, LLVMTypeRef type, uint64_t size) {
  if (size > PADDED_MAX) return NULL;
  unsigned char *mask = malloc(size ? size : 1);
  if (!mask) return NULL;
  memset(mask, 1, size);
  cover(u->layout, type, 0, mask, size);
  int any = 0;
  for (uint64_t i = 0; i < size && !any; i++) any = mask[i];
  LLVMValueRef init = any ? LLVMConstStringInContext2(u->context, (const char *)mask,
                                                      size, 1)
                          : NULL;
  free(mask);
  if (!init) return NULL;
  LLVMValueRef global = LLVMAddGlobal(LLVMGetGlobalParent(u->body),
                                      LLVMTypeOf(init), "weft.padding");
  LLVMSetInitializer(global, init);
  LLVMSetGlobalConstant(global, 1);
  LLVMSetLinkage(global, LLVMPrivateLinkage);
  return global;
}

/* The shadow of a private variable: i8[bytes], right after the variable
 * is made, unwritten but for its padding. */
static LLVMValueRef private_shadow(uninit *u, LLVMValueRef variable,
                                   uint64_t bytes) {
  for (unsigned i = 0; i < u->num_pairs; i++)
    if (u->pairs[i].variable == variable) return u->pairs[i].shadow;
  shadow_pair *grown = realloc(u->pairs, (u->num_pairs + 1) * sizeof *grown);
  if (!grown) return NULL;
  u->pairs = grown;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(u->context);
  LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(variable));
  LLVMValueRef shadow =
      LLVMBuildAlloca(b, LLVMArrayType2(u->i8, bytes), "shadow");
  LLVMValueRef padding = padding_of(u, LLVMGetAllocatedType(variable), bytes);
  LLVMValueRef size = LLVMConstInt(u->i64, bytes, 0);
  if (padding) LLVMBuildMemCpy(b, shadow, 1, padding, 1, size);
  else LLVMBuildMemSet(b, shadow, LLVMConstInt(u->i8, 0, 0), size, 1);
  LLVMDisposeBuilder(b);
  u->pairs[u->num_pairs++] = (shadow_pair){variable, shadow};
  return shadow;
}

/* The sink: SINK written bytes that reads of buffers without a shadow
 * check instead (and copies of no bytes touch). */
static LLVMValueRef sink(uninit *u) {
  LLVMModuleRef module = LLVMGetGlobalParent(u->body);
  LLVMValueRef global = LLVMGetNamedGlobal(module, "weft.shadow.sink");
  if (global) return global;
  char ones[SINK];
  memset(ones, 1, sizeof ones);
  LLVMValueRef init = LLVMConstStringInContext2(u->context, ones, SINK, 1);
  global = LLVMAddGlobal(module, LLVMTypeOf(init), "weft.shadow.sink");
  LLVMSetInitializer(global, init);
  LLVMSetLinkage(global, LLVMPrivateLinkage);
  LLVMSetAlignment(global, WIDE);
  return global;
}

/* Whether the access is to a buffer argument (its shadow the buffer's). */
static int of_buffer(const weft_access *a) {
  return a->from.arg >= 0 && (a->from.space == WEFT_ADDRESS_GLOBAL ||
                              a->from.space == WEFT_ADDRESS_CONSTANT);
}

/* The shadow of an access of a buffer argument: the launch's shadow of
 * the argument at the access's offset when there is one and the access
 * lies within the argument's bytes (*ok, an i1), else the sink. */
static LLVMValueRef buffer_shadow(uninit *u, const weft_access *a,
                                  LLVMValueRef *ok) {
  LLVMValueRef ctx = weft__body_param(u->body, WEFT_BODY_CTX);
  LLVMValueRef shadows = LLVMBuildLoad2(
      u->b, u->ptr,
      weft__ctx_field(u->b, ctx, offsetof(weft_wg_ctx, arg_shadows)), "");
  weft__set_invariant(shadows);
  LLVMValueRef index = LLVMConstInt(u->i64, (unsigned)a->from.arg, 0);
  LLVMValueRef base = LLVMBuildLoad2(
      u->b, u->ptr, LLVMBuildInBoundsGEP2(u->b, u->ptr, shadows, &index, 1, ""),
      "shadows");
  weft__set_invariant(base);
  LLVMValueRef offset = weft__access_offset(u->b, a);
  LLVMValueRef extent = weft__arg_extent(u->b, u->body, a->from.arg);
  LLVMValueRef end = LLVMBuildAdd(
      u->b, offset, LLVMBuildZExt(u->b, a->size, u->i64, ""), "");
  LLVMValueRef within =
      LLVMBuildAnd(u->b, LLVMBuildICmp(u->b, LLVMIntULE, offset, extent, ""),
                   LLVMBuildICmp(u->b, LLVMIntULE, end, extent, ""), "");
  *ok = LLVMBuildAnd(u->b, within, LLVMBuildIsNotNull(u->b, base, ""), "");
  LLVMValueRef at = LLVMBuildGEP2(u->b, u->i8, base, &offset, 1, "");
  return LLVMBuildSelect(u->b, *ok, at, sink(u), "shadow");
}

/* The shadow of the access's first byte (an i8 pointer), or NULL when its
 * memory is not followed. *ok is NULL, or an i1 that is false when the
 * shadow is the sink (a buffer argument's). */
static LLVMValueRef shadow_of(uninit *u, const weft_access *a,
                              LLVMValueRef *ok) {
  *ok = NULL;
  if (a->from.space == WEFT_ADDRESS_LOCAL) {
    LLVMValueRef p = LLVMBuildPtrToInt(u->b, a->pointer, u->i64, "");
    LLVMValueRef ctx = weft__body_param(u->body, WEFT_BODY_CTX);
    LLVMValueRef offset = LLVMBuildLoad2(
        u->b, u->i64,
        weft__ctx_field(u->b, ctx, offsetof(weft_wg_ctx, local_shadow)), "");
    weft__set_invariant(offset);
    return LLVMBuildIntToPtr(u->b, LLVMBuildAdd(u->b, p, offset, ""), u->ptr,
                             "shadow");
  }
  if (of_buffer(a)) return buffer_shadow(u, a, ok);
  if (a->from.space != WEFT_ADDRESS_PRIVATE || !LLVMIsAAllocaInst(a->from.base))
    return NULL;
  LLVMValueRef shadow = private_shadow(u, a->from.base, a->from.extent);
  if (!shadow) return NULL;
  LLVMValueRef offset = weft__access_offset(u->b, a);
  return LLVMBuildInBoundsGEP2(u->b, u->i8, shadow, &offset, 1, "shadow");
}

/* size (i64), or 0 where ok (an i1, or NULL for always) is false. */
static LLVMValueRef sized(uninit *u, LLVMValueRef size, LLVMValueRef ok) {
  size = LLVMBuildZExt(u->b, size, u->i64, "");
  return ok ? LLVMBuildSelect(u->b, ok, size, LLVMConstInt(u->i64, 0, 0), "")
            : size;
}

/* 0x0101...01 of n bytes: the shadow of n written bytes. */
static LLVMValueRef written(uninit *u, unsigned n) {
  assert(n > 0 && n <= WIDE);
  uint64_t words[WIDE / 8] = {0};
  for (unsigned i = 0; i < n; i++) words[i / 8] |= 1ull << (8 * (i % 8));
  return LLVMConstIntOfArbitraryPrecision(
      LLVMIntTypeInContext(u->context, 8 * n), (n + 7) / 8, words);
}

/* Marks n bytes of shadow written (n a constant, or any size). */
static void store_ones(uninit *u, LLVMValueRef shadow, LLVMValueRef size) {
  if (LLVMIsAConstantInt(size) && LLVMConstIntGetZExtValue(size) <= WIDE &&
      LLVMConstIntGetZExtValue(size) > 0) {
    LLVMValueRef s = LLVMBuildStore(
        u->b, written(u, (unsigned)LLVMConstIntGetZExtValue(size)), shadow);
    LLVMSetAlignment(s, 1);
    return;
  }
  LLVMBuildMemSet(u->b, shadow, LLVMConstInt(u->i8, 1, 0), size, 1);
}

/* Marks the shadow of inst's access written, the builder before inst; ok
 * as shadow_of gave it. Where ok is false nothing is marked: the sink is
 * only read (a line every thread wrote would bounce between their
 * caches). The builder ends before inst. */
static void mark(uninit *u, LLVMValueRef inst, LLVMValueRef shadow,
                 LLVMValueRef size, LLVMValueRef ok) {
  if (!ok) {
    store_ones(u, shadow, size);
    return;
  }
  LLVMBasicBlockRef head = weft__block_split_before(inst, "uninit.mark");
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(inst);
  LLVMBasicBlockRef marking =
      LLVMInsertBasicBlockInContext(u->context, rest, "uninit.marking");
  LLVMPositionBuilderAtEnd(u->b, head);
  LLVMBuildCondBr(u->b, ok, marking, rest);
  LLVMPositionBuilderAtEnd(u->b, marking);
  store_ones(u, shadow, size);
  LLVMBuildBr(u->b, rest);
  LLVMPositionBuilderBefore(u->b, inst);
}

/* i1: every one of the access's bytes written (a constant size up to
 * WIDE; wider, its first and last WIDE bytes). */
static LLVMValueRef all_written(uninit *u, LLVMValueRef shadow, uint64_t n) {
  unsigned head = n > WIDE ? WIDE : (unsigned)n;
  LLVMTypeRef t = LLVMIntTypeInContext(u->context, 8 * head);
  LLVMValueRef first = LLVMBuildLoad2(u->b, t, shadow, "");
  LLVMSetAlignment(first, 1);
  LLVMValueRef ok = LLVMBuildICmp(u->b, LLVMIntEQ, first, written(u, head), "");
  if (n <= WIDE) return ok;
  LLVMValueRef at = LLVMConstInt(u->i64, n - WIDE, 0);
  LLVMValueRef last = LLVMBuildLoad2(
      u->b, t, LLVMBuildInBoundsGEP2(u->b, u->i8, shadow, &at, 1, ""), "");
  LLVMSetAlignment(last, 1);
  return LLVMBuildAnd(u->b, ok,
                      LLVMBuildICmp(u->b, LLVMIntEQ, last, written(u, head), ""), "");
}

/* The bytes a store writes, as far as reads can tell: a 3-vector's
 * fourth lane with it, since OpenCL gives it that room (a 3-vector
 * variable whose type LLVM has made 8 bytes of something else is then
 * read whole). */
static LLVMValueRef bytes_written(uninit *u, LLVMValueRef inst,
                                  LLVMValueRef size) {
  if (!LLVMIsAStoreInst(inst)) return size;
  LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(inst, 0));
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind || LLVMGetVectorSize(t) != 3)
    return size;
  return LLVMConstInt(u->i64, LLVMABISizeOfType(u->layout, t), 0);
}

/* The bytes a load really reads: a 3-vector is loaded as a 4-vector
 * whose last lane (never written: padding) its shuffles drop, so only
 * the first three lanes' bytes count. Otherwise, all of them. */
static uint64_t bytes_read(uninit *u, LLVMValueRef inst, uint64_t size) {
  LLVMTypeRef t = LLVMTypeOf(inst);
  if (!LLVMIsALoadInst(inst) || LLVMGetTypeKind(t) != LLVMVectorTypeKind ||
      LLVMGetVectorSize(t) != 4 || !LLVMGetFirstUse(inst))
    return size;
  for (LLVMUseRef use = LLVMGetFirstUse(inst); use; use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (!LLVMIsAShuffleVectorInst(user) || LLVMGetOperand(user, 0) != inst ||
        LLVMGetOperand(user, 1) == inst)
      return size;
    for (unsigned i = 0, n = LLVMGetNumMaskElements(user); i < n; i++) {
      int lane = LLVMGetMaskValue(user, i);
      if (lane != LLVMGetUndefMaskElem() && lane >= 3) return size;
    }
  }
  return 3 * LLVMStoreSizeOfType(u->layout, LLVMGetElementType(t));
}

/* At the end of the block the builder is in, before inst: if any byte the
 * read takes was never written, a report (the read is made anyway). Ends
 * the block with a branch to inst's. */
static int check_read(uninit *u, LLVMValueRef inst, weft_access *a,
                      LLVMValueRef shadow) {
  unsigned site;
  if (weft__check_site_of(u->sites, inst, a, WEFT_ACCESS_UNINIT, &site))
    return WEFT_ENOMEM;
  LLVMValueRef ok = all_written(
      u, shadow, bytes_read(u, inst, LLVMConstIntGetZExtValue(a->size)));
  weft__check_failed_if(u->b, u->body, LLVMBuildNot(u->b, ok, ""), site,
                        weft__access_offset(u->b, a), a->size, inst);
  return 0;
}

/* Whether the access's memory has a shadow: __local memory, a buffer
 * argument (if the launch gives one), or a private variable of known
 * size. */
static int followed(uninit *u, weft_access *a) {
  if (!weft__origin_of(u->body, u->desc, u->layout, a->pointer, &a->from))
    return 0;
  return a->from.space == WEFT_ADDRESS_LOCAL || of_buffer(a) ||
         (a->from.space == WEFT_ADDRESS_PRIVATE && LLVMIsAAllocaInst(a->from.base));
}

/* memcpy: the destination's shadow becomes the source's where both are
 * followed, else written. */
static int copy_shadow(uninit *u, LLVMValueRef inst, weft_access *a) {
  int source_followed = followed(u, &a[1]);
  LLVMValueRef to_ok, from_ok = NULL;
  LLVMValueRef to = shadow_of(u, &a[0], &to_ok);
  LLVMValueRef from = source_followed ? shadow_of(u, &a[1], &from_ok) : NULL;
  if (!to || (source_followed && !from)) return WEFT_ENOMEM;
  if (!from) {
    mark(u, inst, to, a[0].size, to_ok);
    return 0;
  }
  LLVMValueRef both = !to_ok ? from_ok
                      : !from_ok ? to_ok
                                 : LLVMBuildAnd(u->b, to_ok, from_ok, "");
  LLVMBuildMemMove(u->b, to, 1, from, 1, sized(u, a[0].size, both));
  if (!from_ok) return 0;
  /* A source without a shadow was written. */
  LLVMValueRef unfollowed = LLVMBuildNot(u->b, from_ok, "");
  if (to_ok) unfollowed = LLVMBuildAnd(u->b, to_ok, unfollowed, "");
  LLVMBuildMemSet(u->b, to, LLVMConstInt(u->i8, 1, 0),
                  sized(u, a[0].size, unfollowed), 1);
  return 0;
}

/* Instruments one instruction's accesses. */
static int instrument(uninit *u, LLVMValueRef inst) {
  weft_access a[2];
  unsigned n = weft__accesses_of(u->layout, inst, a);
  if (!n || !followed(u, &a[0])) return 0;
  LLVMSetCurrentDebugLocation2(u->b, LLVMInstructionGetDebugLoc(inst));
  if (n == 2) {
    LLVMPositionBuilderBefore(u->b, inst);
    return copy_shadow(u, inst, a);
  }
  int constant = LLVMIsAConstantInt(a[0].size) != NULL;
  /* A read of a buffer wider than the sink is not checked. */
  if ((a[0].kind & WEFT_ACCESS_READ) && of_buffer(&a[0]) &&
      (!constant || LLVMConstIntGetZExtValue(a[0].size) > SINK))
    return 0;
  int reads = (a[0].kind & WEFT_ACCESS_READ) && constant;
  LLVMValueRef ok;
  if (!reads) {
    LLVMPositionBuilderBefore(u->b, inst);
    LLVMValueRef shadow = shadow_of(u, &a[0], &ok);
    if (!shadow) return WEFT_ENOMEM;
    mark(u, inst, shadow, bytes_written(u, inst, a[0].size), ok);
    return 0;
  }
  LLVMBasicBlockRef head = weft__block_split_before(inst, "uninit");
  LLVMPositionBuilderAtEnd(u->b, head);
  LLVMValueRef shadow = shadow_of(u, &a[0], &ok);
  if (!shadow) return WEFT_ENOMEM;
  int rc = check_read(u, inst, &a[0], shadow);
  /* An atomic reads, then writes: marked after the check. */
  if (!rc && (a[0].kind & WEFT_ACCESS_WRITE)) {
    LLVMPositionBuilderBefore(u->b, inst);
    mark(u, inst, shadow, a[0].size, ok);
  }
  return rc;
}

int weft__check_uninit_insert(LLVMValueRef body, const weft_kernel_desc *desc,
                              LLVMTargetDataRef layout,
                              weft_check_sites *sites) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  uninit u = {body, desc, layout, LLVMCreateBuilderInContext(context), context,
              LLVMInt8TypeInContext(context), LLVMInt64TypeInContext(context),
              LLVMPointerTypeInContext(context, 0), sites, NULL, 0};
  unsigned count;
  LLVMValueRef *list = weft__memory_instructions(body, layout, &count);
  int rc = list ? 0 : WEFT_ENOMEM;
  for (unsigned k = 0; k < count && !rc; k++) rc = instrument(&u, list[k]);
  free(list);
  free(u.pairs);
  LLVMDisposeBuilder(u.b);
  return rc;
}
