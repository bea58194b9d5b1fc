/* uniform_slots.c: which of a region body's value slots every work-item
 * of a group fills alike (regions.c keeps those once per group).
 *
 * A reduction's `for (s = n / 2; s > 0; s /= 2) { ...; barrier(); }`
 * carries s across its barrier. Kept per work-item, each work-item's
 * region loads its own s and branches on it, which LLVM cannot tell are
 * all one value: the region's loop over work-items stays scalar. Kept
 * once, s is a load the loop does not change, and the loop vectorizes.
 *
 * Runs after reg2mem, so a value that crosses blocks crosses them only
 * through a slot (an alloca loaded and stored whole), and values inside
 * a block depend on the slots' loads, the parameters and constants. A
 * slot is uniform when each store to it stores a uniform value in a
 * block that every work-item runs the same number of times in the same
 * order; then at each barrier, which all work-items reach together,
 * they hold the same value in it. The analysis is optimistic (every
 * slot uniform at first, taken back to a fixed point), as divergence
 * analyses are: what it ends with is consistent, and the start of the
 * kernel, where nothing is stored yet, is uniform.
 *  - Uniform values: constants, the kernel's arguments, the body's
 *    parameters but the local ids, loads of uniform slots and invariant
 *    loads (the group's context) of uniform addresses, and instructions
 *    without effects (no loads, calls only of functions without memory
 *    effects) of uniform operands. Phis (reg2mem leaves none) and
 *    everything else are varying.
 *  - Blocks run alike: those no branch on a varying value controls. A
 *    varying branch controls the blocks that its successors reach before
 *    its immediate post-dominator (all of them reached, where it has
 *    none): a loop that work-items leave at different turns is such a
 *    region as a whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/passes.h"
#include "weft/weft.h"

/* A set of values, each with a number (open addressing; capacity a
 * power of two, at least twice the values). */
typedef struct value_set {
  LLVMValueRef *keys;
  unsigned *numbers;
  unsigned capacity;
} value_set;

static int set_make(value_set *s, unsigned values) {
  s->capacity = 16;
  while (s->capacity < 2 * values) s->capacity *= 2;
  s->keys = calloc(s->capacity, sizeof *s->keys);
  s->numbers = calloc(s->capacity, sizeof *s->numbers);
  return s->keys && s->numbers ? 0 : WEFT_ENOMEM;
}

static void set_free(value_set *s) {
  free(s->keys);
  free(s->numbers);
}

static unsigned place_of(const value_set *s, LLVMValueRef v) {
  uintptr_t p = (uintptr_t)v;
  unsigned h = (unsigned)((p >> 4) * 2654435761u) & (s->capacity - 1);
  while (s->keys[h] && s->keys[h] != v) h = (h + 1) & (s->capacity - 1);
  return h;
}

static int set_has(const value_set *s, LLVMValueRef v) {
  return s->keys[place_of(s, v)] == v;
}

static void set_add(value_set *s, LLVMValueRef v, unsigned number) {
  unsigned h = place_of(s, v);
  s->keys[h] = v;
  s->numbers[h] = number;
}

typedef struct uniformity {
  LLVMValueRef body;
  weft_cfg g;
  value_set slots;         /* the value slots asked about, numbered */
  unsigned char *uniform;  /* per slot */
  value_set varying;       /* instructions found varying this round */
  unsigned words;          /* per post-dominator set */
  uint64_t *pdom;          /* g.count sets: blocks post-dominating each */
  unsigned *ipdom;         /* g.count where none */
  unsigned char *divergent;
  unsigned *work;
} uniformity;

/* The number of slot p, or -1 if p is none. */
static int slot_index(const uniformity *u, LLVMValueRef p) {
  unsigned h = place_of(&u->slots, p);
  return u->slots.keys[h] == p ? (int)u->slots.numbers[h] : -1;
}

/* ------------------------------------------------- post-dominators */

static unsigned successors(const uniformity *u, unsigned b) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(u->g.blocks[b]);
  return t ? LLVMGetNumSuccessors(t) : 0;
}

static unsigned successor(const uniformity *u, unsigned b, unsigned k) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(u->g.blocks[b]);
  return weft__cfg_index(&u->g, LLVMGetSuccessor(t, k));
}

static unsigned count_bits(const uint64_t *set, unsigned words) {
  unsigned n = 0;
  for (unsigned w = 0; w < words; w++) n += (unsigned)__builtin_popcountll(set[w]);
  return n;
}

/* Whether each block reaches a block without successors (a return). */
static void mark_reaching_exit(uniformity *u, unsigned char *reaches) {
  unsigned top = 0;
  for (unsigned b = 0; b < u->g.count; b++)
    if (!successors(u, b)) reaches[b] = 1, u->work[top++] = b;
  while (top) {
    unsigned b = u->work[--top];
    for (unsigned k = 0; k < u->g.num_preds[b]; k++) {
      unsigned p = u->g.preds[b][k];
      if (!reaches[p]) reaches[p] = 1, u->work[top++] = p;
    }
  }
}

/* The post-dominator sets (pdom(b) = {b} + the meet of its successors',
 * to a fixed point from "all"), then each block's immediate one: the
 * strict post-dominator with one fewer post-dominator than the block.
 * A block that reaches no return has none. */
static int post_dominators(uniformity *u) {
  unsigned n = u->g.count, words = u->words = (n + 63) / 64;
  unsigned char *reaches = calloc(n, 1);
  u->pdom = malloc((size_t)n * words * sizeof *u->pdom);
  u->ipdom = malloc(n * sizeof *u->ipdom);
  if (!reaches || !u->pdom || !u->ipdom) {
    free(reaches);
    return WEFT_ENOMEM;
  }
  mark_reaching_exit(u, reaches);
  memset(u->pdom, 0xff, (size_t)n * words * sizeof *u->pdom);
  for (int changed = 1; changed;) {
    changed = 0;
    for (unsigned b = n; b-- > 0;) {
      uint64_t meet[words];
      unsigned m = successors(u, b);
      memset(meet, m ? 0xff : 0, sizeof meet);
      for (unsigned k = 0; k < m; k++) {
        unsigned s = successor(u, b, k);
        for (unsigned w = 0; w < words; w++)
          meet[w] &= s < n ? u->pdom[(size_t)s * words + w] : 0;
      }
      meet[b / 64] |= 1ull << (b % 64);
      if (memcmp(meet, u->pdom + (size_t)b * words, sizeof meet)) {
        memcpy(u->pdom + (size_t)b * words, meet, sizeof meet);
        changed = 1;
      }
    }
  }
  unsigned *count = calloc(n, sizeof *count);
  if (!count) {
    free(reaches);
    return WEFT_ENOMEM;
  }
  for (unsigned b = 0; b < n; b++)
    count[b] = count_bits(u->pdom + (size_t)b * words, words);
  for (unsigned b = 0; b < n; b++) {
    u->ipdom[b] = n;
    const uint64_t *own = u->pdom + (size_t)b * words;
    for (unsigned w = 0; reaches[b] && w < words && u->ipdom[b] == n; w++)
      for (uint64_t bits = own[w]; bits; bits &= bits - 1) {
        unsigned p = w * 64 + (unsigned)__builtin_ctzll(bits);
        if (p != b && count[p] + 1 == count[b]) {
          u->ipdom[b] = p;
          break;
        }
      }
  }
  free(count);
  free(reaches);
  return 0;
}

/* ------------------------------------------------------- the rounds */

static int is_local_id(const uniformity *u, LLVMValueRef v) {
  return v == weft__body_param(u->body, WEFT_BODY_LX) ||
         v == weft__body_param(u->body, WEFT_BODY_LY) ||
         v == weft__body_param(u->body, WEFT_BODY_LZ);
}

/* Whether operand op of an instruction of block at may differ between
 * work-items: after reg2mem, only the entry block's values (found first)
 * are used in other blocks; any other such use is taken as varying. */
static int operand_varying(const uniformity *u, LLVMValueRef op,
                           LLVMBasicBlockRef at) {
  if (LLVMIsAInstruction(op)) {
    LLVMBasicBlockRef def = LLVMGetInstructionParent(op);
    if (def != at && def != u->g.blocks[0]) return 1;
    return set_has(&u->varying, op);
  }
  if (LLVMIsAArgument(op)) return is_local_id(u, op);
  return 0; /* constants, globals, blocks, metadata */
}

/* Whether inst's value may differ between work-items (its operands'
 * found before it: blocks in order, values used only in their block). */
static int inst_varying(const uniformity *u, LLVMValueRef inst) {
  LLVMBasicBlockRef at = LLVMGetInstructionParent(inst);
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad: {
    LLVMValueRef p = LLVMGetOperand(inst, 0);
    if (LLVMGetVolatile(inst) ||
        LLVMGetOrdering(inst) != LLVMAtomicOrderingNotAtomic)
      return 1;
    int s = slot_index(u, p);
    if (s >= 0) return !u->uniform[s];
    return !LLVMGetMetadata(inst, LLVMGetMDKindID("invariant.load", 14)) ||
           operand_varying(u, p, at);
  }
  case LLVMCall:
    if (!weft__call_is_pure(inst)) return 1;
    break;
  case LLVMPHI:
  case LLVMAlloca:
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
  case LLVMVAArg:
  case LLVMFreeze: /* may give each work-item another value */
    return 1;
  default:
    break;
  }
  for (unsigned o = 0, n = (unsigned)LLVMGetNumOperands(inst); o < n; o++)
    if (operand_varying(u, LLVMGetOperand(inst, o), at)) return 1;
  return 0;
}

static void find_varying(uniformity *u) {
  memset(u->varying.keys, 0, u->varying.capacity * sizeof *u->varying.keys);
  for (unsigned b = 0; b < u->g.count; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(u->g.blocks[b]); i;
         i = LLVMGetNextInstruction(i))
      if (inst_varying(u, i)) set_add(&u->varying, i, 0);
}

/* Whether block bb's work-items may go different ways from it: a branch
 * or switch on a varying value, or any other terminator with a choice. */
static int branch_varying(const uniformity *u, LLVMBasicBlockRef bb) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
  if (!t || LLVMGetNumSuccessors(t) < 2) return 0;
  if (LLVMIsABranchInst(t)) return operand_varying(u, LLVMGetCondition(t), bb);
  if (LLVMIsASwitchInst(t)) return operand_varying(u, LLVMGetOperand(t, 0), bb);
  return 1;
}

/* Marks the blocks the varying branch of block b controls. */
static void mark_controlled(uniformity *u, unsigned b) {
  unsigned stop = u->ipdom[b], top = 0;
  for (unsigned k = 0; k < successors(u, b); k++) {
    unsigned s = successor(u, b, k);
    if (s < u->g.count && s != stop && !u->divergent[s])
      u->divergent[s] = 1, u->work[top++] = s;
  }
  while (top) {
    unsigned x = u->work[--top];
    for (unsigned k = 0; k < successors(u, x); k++) {
      unsigned s = successor(u, x, k);
      if (s < u->g.count && s != stop && !u->divergent[s])
        u->divergent[s] = 1, u->work[top++] = s;
    }
  }
}

static void find_divergent(uniformity *u) {
  memset(u->divergent, 0, u->g.count);
  for (unsigned b = 0; b < u->g.count; b++) {
    if (branch_varying(u, u->g.blocks[b])) mark_controlled(u, b);
  }
}

/* Takes back the slots stored varying values or in divergent blocks;
 * whether any was. */
static int take_back(uniformity *u) {
  int changed = 0;
  for (unsigned b = 0; b < u->g.count; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(u->g.blocks[b]); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsAStoreInst(i)) continue;
      int s = slot_index(u, LLVMGetOperand(i, 1));
      if (s < 0 || !u->uniform[s]) continue;
      if (u->divergent[b] ||
          operand_varying(u, LLVMGetOperand(i, 0), u->g.blocks[b]))
        u->uniform[s] = 0, changed = 1;
    }
  return changed;
}

static void uniformity_free(uniformity *u) {
  weft__cfg_free(&u->g);
  set_free(&u->slots);
  set_free(&u->varying);
  free(u->pdom);
  free(u->ipdom);
  free(u->divergent);
  free(u->work);
}

int weft__uniform_slots(LLVMValueRef body, LLVMValueRef const *slots,
                        unsigned num_slots, unsigned char *uniform) {
  memset(uniform, 0, num_slots);
  if (!num_slots) return 0;
  uniformity u = {.body = body, .uniform = uniform};
  int rc = weft__cfg_make(body, &u.g);
  if (!rc) rc = set_make(&u.slots, num_slots);
  if (!rc) rc = set_make(&u.varying, weft__instruction_count(body));
  u.divergent = calloc(u.g.count + 1, 1);
  u.work = calloc(u.g.count + 1, sizeof *u.work);
  if (!rc && (!u.divergent || !u.work)) rc = WEFT_ENOMEM;
  if (!rc) rc = post_dominators(&u);
  if (!rc) {
    for (unsigned i = 0; i < num_slots; i++) set_add(&u.slots, slots[i], i);
    memset(uniform, 1, num_slots);
    do {
      find_varying(&u);
      find_divergent(&u);
    } while (take_back(&u));
  }
  uniformity_free(&u);
  if (rc) memset(uniform, 0, num_slots);
  return rc;
}
