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
 * A store marks its bytes; a load checks them first and, if one was never
 * written, calls check_failed with the site (the load is still made: it
 * reads whatever is there); an atomic does both; memset marks; memcpy
 * copies the shadow with the data, so that copying an uninitialised value
 * is no error but reading it afterwards is. Memory whose object is not
 * known (a pointer from memory, or a generic pointer of unknown origin)
 * and __global memory are not followed. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/check_access.h"
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

/* The shadow of the access's first byte (an i8 pointer), or NULL when its
 * memory is not followed. */
static LLVMValueRef shadow_of(uninit *u, const weft_access *a) {
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
  if (a->from.space != WEFT_ADDRESS_PRIVATE || !LLVMIsAAllocaInst(a->from.base))
    return NULL;
  LLVMValueRef shadow = private_shadow(u, a->from.base, a->from.extent);
  if (!shadow) return NULL;
  LLVMValueRef offset = weft__access_offset(u->b, a);
  return LLVMBuildInBoundsGEP2(u->b, u->i8, shadow, &offset, 1, "shadow");
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
static void mark(uninit *u, LLVMValueRef shadow, LLVMValueRef size) {
  if (LLVMIsAConstantInt(size) && LLVMConstIntGetZExtValue(size) <= WIDE &&
      LLVMConstIntGetZExtValue(size) > 0) {
    LLVMValueRef s = LLVMBuildStore(
        u->b, written(u, (unsigned)LLVMConstIntGetZExtValue(size)), shadow);
    LLVMSetAlignment(s, 1);
    return;
  }
  LLVMBuildMemSet(u->b, shadow, LLVMConstInt(u->i8, 1, 0), size, 1);
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

/* Whether the access's memory has a shadow: __local memory, or a private
 * variable of known size. */
static int followed(uninit *u, weft_access *a) {
  if (!weft__origin_of(u->body, u->desc, u->layout, a->pointer, &a->from))
    return 0;
  return a->from.space == WEFT_ADDRESS_LOCAL ||
         (a->from.space == WEFT_ADDRESS_PRIVATE && LLVMIsAAllocaInst(a->from.base));
}

/* Instruments one instruction's accesses. */
static int instrument(uninit *u, LLVMValueRef inst) {
  weft_access a[2];
  unsigned n = weft__accesses_of(u->layout, inst, a);
  if (!n || !followed(u, &a[0])) return 0;
  LLVMSetCurrentDebugLocation2(u->b, LLVMInstructionGetDebugLoc(inst));
  if (n == 2) {
    /* memcpy: the destination's shadow is the source's, or written. */
    LLVMPositionBuilderBefore(u->b, inst);
    int source_followed = followed(u, &a[1]);
    LLVMValueRef to = shadow_of(u, &a[0]);
    LLVMValueRef from = source_followed ? shadow_of(u, &a[1]) : NULL;
    if (!to || (source_followed && !from)) return WEFT_ENOMEM;
    if (from) LLVMBuildMemMove(u->b, to, 1, from, 1, a[0].size);
    else mark(u, to, a[0].size);
    return 0;
  }
  int reads = (a[0].kind & WEFT_ACCESS_READ) && LLVMIsAConstantInt(a[0].size);
  if (!reads) {
    LLVMPositionBuilderBefore(u->b, inst);
    LLVMValueRef shadow = shadow_of(u, &a[0]);
    if (!shadow) return WEFT_ENOMEM;
    mark(u, shadow, bytes_written(u, inst, a[0].size));
    return 0;
  }
  LLVMBasicBlockRef head = weft__block_split_before(inst, "uninit");
  LLVMPositionBuilderAtEnd(u->b, head);
  LLVMValueRef shadow = shadow_of(u, &a[0]);
  if (!shadow) return WEFT_ENOMEM;
  int rc = check_read(u, inst, &a[0], shadow);
  /* An atomic reads, then writes: marked after the check. */
  if (!rc && (a[0].kind & WEFT_ACCESS_WRITE)) {
    LLVMPositionBuilderBefore(u->b, inst);
    mark(u, shadow, a[0].size);
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
