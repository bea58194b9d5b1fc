/* jam_blocks.c: an int that steps with x, shifted right or divided by
 * 2^s (or its low s bits cleared), or masked with 2^m - 1 (the remainder
 * by 2^m), in a jam.
 *
 * `get_sub_group_id()` is the linear local id >> log2(width), a tile's
 * index `get_local_id(0) / 16`; `get_sub_group_local_id()` and
 * `get_local_id(0) % 16` the low bits. For the work-items of a block of
 * 2^s aligned on a multiple of 2^s, the shift is one value, and work-item
 * k's low bits are k's. A jam's work-items are x + k: where the first's
 * int is such a multiple, a jam no wider than 2^s takes the shift as
 * shared (a loop of `for (k = 0; k < get_sub_group_id(); k++)` then runs
 * unmasked), and each work-item's mask is the constant k & (2^m - 1) (a
 * test `get_sub_group_local_id() == 15` then picks one work-item at build
 * time, and its masked store becomes a store). The jammed function tests
 * the first work-item's ints at its start (jam_ids.c's guard) and runs
 * its work-items one at a time through the body where one is not such a
 * multiple (a global offset, a row of local x size 20); a jam of whole
 * sub-groups runs the same jam made without shifts and masks instead
 * (weft__jam_plain: the body would run a sub-group's functions lane by
 * lane).
 *
 * The int may step through truncations (modular: work-item k's is the
 * first's plus k in any width), not through extensions (a value below
 * them might wrap where the int does not). */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "jit/cpu/jam.h"

/* At most this many instructions are followed to tell that an int is
 * made of constants only. */
#define CONSTANT_DEPTH 16

/* log2 of c when it is a power of 2, else -1. */
static int log2_of(unsigned long long c) {
  return c && !(c & (c - 1)) ? __builtin_ctzll(c) : -1;
}

/* The value of v, an int made of constants only (the sub-group width is
 * one once the work-items are lowered, and the instructions computing a
 * mask from it are not folded until after the jams), into *out: 1; 0
 * when v is not such an int. */
static int constant_of(LLVMValueRef v, unsigned depth, unsigned long long *out) {
  if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMIntegerTypeKind) return 0;
  unsigned width = LLVMGetIntTypeWidth(LLVMTypeOf(v));
  if (width > 64) return 0;
  unsigned long long all = width == 64 ? ~0ull : (1ull << width) - 1, a, b = 0;
  if (LLVMIsAConstantInt(v)) {
    *out = LLVMConstIntGetZExtValue(v) & all;
    return 1;
  }
  if (!LLVMIsAInstruction(v) || !depth) return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  int binary = op == LLVMAdd || op == LLVMSub || op == LLVMMul ||
               op == LLVMXor || op == LLVMAnd || op == LLVMOr;
  if (!binary && op != LLVMTrunc && op != LLVMZExt) return 0;
  if (!constant_of(LLVMGetOperand(v, 0), depth - 1, &a) ||
      (binary && !constant_of(LLVMGetOperand(v, 1), depth - 1, &b)))
    return 0;
  switch (op) {
  case LLVMAdd: a += b; break;
  case LLVMSub: a -= b; break;
  case LLVMMul: a *= b; break;
  case LLVMXor: a ^= b; break;
  case LLVMAnd: a &= b; break;
  case LLVMOr: a |= b; break;
  default: break; /* a truncation or a zero extension: the mask below */
  }
  *out = a & all;
  return 1;
}

/* Whether inst is a shift (1) or a mask (0) of an int that steps with x
 * by a power of 2, its bits in *bits; -1 when neither. */
static int kind_of(LLVMValueRef body, LLVMValueRef inst, unsigned *bits) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if ((op != LLVMLShr && op != LLVMUDiv && op != LLVMURem && op != LLVMAnd) ||
      LLVMGetTypeKind(LLVMTypeOf(inst)) != LLVMIntegerTypeKind)
    return -1;
  LLVMValueRef t = LLVMGetOperand(inst, 0);
  unsigned long long v;
  if (!constant_of(LLVMGetOperand(inst, 1), CONSTANT_DEPTH, &v)) {
    /* An and's constant may come first (made of instructions, it is not
     * put second). */
    if (op != LLVMAnd || !constant_of(t, CONSTANT_DEPTH, &v)) return -1;
    t = LLVMGetOperand(inst, 1);
  }
  unsigned width = LLVMGetIntTypeWidth(LLVMTypeOf(inst));
  unsigned long long all = width == 64 ? ~0ull : (1ull << width) - 1;
  int kind = op == LLVMLShr || op == LLVMUDiv, n;
  if (op == LLVMLShr) {
    n = v < width ? (int)v : -1;
  } else if (op == LLVMAnd && (n = log2_of(v + 1)) < 0) {
    /* The low bits cleared (a sub-group's first id): shared as a shift. */
    kind = 1;
    n = log2_of(((~v) & all) + 1);
  } else if (op != LLVMAnd) {
    n = log2_of(v);
  }
  if (n <= 0 || (unsigned)n >= width ||
      !weft__steps_with_x(body, t, WEFT_STEPS_TRUNCS))
    return -1;
  *bits = (unsigned)n;
  return kind;
}

unsigned weft__jam_blocks_find(weft_jam *j, int shifts) {
  /* The narrowest jam: a shift of fewer bits is shared by none. */
  unsigned narrowest = j->sub_group_width ? j->sub_group_width : 8;
  unsigned found = 0;
  j->num_blocks = 0;
  if (j->no_blocks) return 0;
  for (unsigned k = 0; k < j->count; k++) {
    LLVMValueRef v = j->olds[k];
    unsigned bits;
    if (!LLVMIsAInstruction(v) ||
        !weft__jam_scope_reaches(j->scope, LLVMGetInstructionParent(v)))
      continue;
    int kind = kind_of(j->body, v, &bits);
    /* A shift of fewer bits than the narrowest jam is shared by none; a
     * mask of more has its work-items' low bits constant only where a
     * call starts on a multiple of its block, which calls of narrower
     * jams need not. */
    if (kind < 0 || (kind ? (1ull << bits) < narrowest
                          : (1ull << bits) > narrowest))
      continue;
    found += kind;
    if ((kind && !shifts) || j->num_blocks == WEFT_JAM_MOST_BLOCKS) continue;
    j->blocks[j->num_blocks++] = (weft_jam_block){v, bits, kind};
  }
  return found;
}

int weft__jam_blocks_shared(const weft_jam *j, LLVMValueRef v) {
  for (unsigned n = 0; n < j->num_blocks; n++)
    if (j->blocks[n].inst == v) return j->blocks[n].shift;
  return 0;
}

unsigned weft__jam_blocks_widest(const weft_jam *j) {
  unsigned widest = UINT32_MAX;
  for (unsigned n = 0; n < j->num_blocks; n++)
    if (j->blocks[n].shift && j->blocks[n].bits < 32 &&
        (1u << j->blocks[n].bits) < widest)
      widest = 1u << j->blocks[n].bits;
  return widest;
}

int weft__jam_block_mask(weft_jam *j, LLVMValueRef inst) {
  for (unsigned n = 0; n < j->num_blocks; n++) {
    const weft_jam_block *m = &j->blocks[n];
    if (m->inst != inst || m->shift) continue;
    unsigned k = weft__jam_index(j, inst);
    assert(j->varying[k]);
    LLVMTypeRef type = LLVMTypeOf(inst);
    unsigned long long low = (1ull << m->bits) - 1;
    for (unsigned item = 0; item < j->width; item++)
      j->copies[(size_t)k * j->width + item] = LLVMConstInt(type, item & low, 0);
    j->finished[k] = 1;
    return 1;
  }
  return 0;
}

/* A leaf of an int for the call's first work-item (as jam_ids.c's). */
static LLVMValueRef first_items(LLVMValueRef v, void *jam) {
  return weft__jam_copy(jam, v, 0);
}

/* Whether the call's work-items' ints lie in one block of m (a shift:
 * the first's low bits and width - 1 more stay below 2^bits), or start
 * one (a mask: the first's low bits are 0). */
static LLVMValueRef in_block(const weft_jam *j, LLVMBuilderRef b,
                             const weft_jam_block *m) {
  LLVMValueRef t = LLVMGetOperand(m->inst, 0);
  LLVMValueRef first = weft__remake_mapped(b, t, first_items, (void *)j);
  LLVMTypeRef type = LLVMTypeOf(first);
  unsigned long long block = 1ull << m->bits;
  LLVMValueRef low = LLVMBuildAnd(b, first, LLVMConstInt(type, block - 1, 0), "");
  if (!m->shift) return LLVMBuildICmp(b, LLVMIntEQ, low, LLVMConstNull(type), "");
  assert(j->width <= block);
  return LLVMBuildICmp(b, LLVMIntULE, low,
                       LLVMConstInt(type, block - j->width, 0), "");
}

LLVMValueRef weft__jam_blocks_aligned(const weft_jam *j, LLVMBuilderRef b) {
  LLVMValueRef all = NULL;
  for (unsigned n = 0; n < j->num_blocks; n++) {
    LLVMValueRef ok = in_block(j, b, &j->blocks[n]);
    all = all ? LLVMBuildAnd(b, all, ok, "") : ok;
  }
  return all;
}

/* v through truncations and zero extensions. */
static LLVMValueRef unwidened(LLVMValueRef v) {
  while (LLVMIsAInstruction(v) && (LLVMGetInstructionOpcode(v) == LLVMTrunc ||
                                   LLVMGetInstructionOpcode(v) == LLVMZExt))
    v = LLVMGetOperand(v, 0);
  return v;
}

/* Whether v is a load of the group's x size (or its enqueued one). */
static int is_size_x(LLVMValueRef body, LLVMValueRef v) {
  v = unwidened(v);
  if (!LLVMIsALoadInst(v)) return 0;
  LLVMValueRef at = LLVMGetOperand(v, 0);
  if (!LLVMIsAGetElementPtrInst(at) || LLVMGetNumOperands(at) != 2 ||
      LLVMGetOperand(at, 0) != weft__body_param(body, WEFT_BODY_CTX) ||
      !LLVMIsAConstantInt(LLVMGetOperand(at, 1)))
    return 0;
  unsigned long long offset = LLVMConstIntGetZExtValue(LLVMGetOperand(at, 1));
  return offset == offsetof(weft_wg_ctx, local_size) ||
         offset == offsetof(weft_wg_ctx, enqueued_local_size);
}

/* Whether int t is the local x id, or it plus a multiple of the x size
 * (the local linear id: (z * size_y + y) * size_x + x). */
static int local_x_aligned(LLVMValueRef body, LLVMValueRef t) {
  LLVMValueRef x = weft__body_param(body, WEFT_BODY_LX);
  t = unwidened(t);
  if (t == x) return 1;
  if (!LLVMIsAInstruction(t) || LLVMGetInstructionOpcode(t) != LLVMAdd) return 0;
  for (unsigned o = 0; o < 2; o++) {
    LLVMValueRef m = unwidened(LLVMGetOperand(t, 1 - o));
    if (unwidened(LLVMGetOperand(t, o)) == x && LLVMIsAInstruction(m) &&
        LLVMGetInstructionOpcode(m) == LLVMMul &&
        (is_size_x(body, LLVMGetOperand(m, 0)) ||
         is_size_x(body, LLVMGetOperand(m, 1))))
      return 1;
  }
  return 0;
}

int weft__jam_blocks_local(const weft_jam *j) {
  if (!j->sub_group_width) return 0;
  for (unsigned n = 0; n < j->num_blocks; n++) {
    const weft_jam_block *m = &j->blocks[n];
    /* A shift's block holds the call where the call is one sub-group; a
     * mask's low bits start at 0 where its block is no wider. */
    if (m->shift ? j->width != j->sub_group_width
                 : (1ull << m->bits) > j->sub_group_width)
      return 0;
    if (!local_x_aligned(j->body, LLVMGetOperand(m->inst, 0))) return 0;
  }
  return 1;
}
