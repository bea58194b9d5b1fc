/* jam_scope.c: the blocks of a body a jammed function runs (all of them,
 * or, for one region of a region body, those its state reaches), and
 * what they hold that decides whether and how wide to jam: loops, memory
 * in them, vectors, private variables, size. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/jam.h"

/* Where the terminator term goes when the body's state parameter is
 * state: its one successor when its condition is the state (a switch on
 * it, or a branch on its comparison with a constant), a constant or
 * __weft_sub_group_lanes(), else NULL (any). */
static LLVMBasicBlockRef taken(LLVMValueRef term, LLVMValueRef param,
                               int state) {
  /* A branch on __weft_sub_group_lanes(): what a jam of whole sub-groups
   * takes (the sub-group functions' slots, with their barriers, are left
   * out); other jams come after weft__sub_group_lanes_off. */
  int lanes = weft__jam_lanes_branch(term);
  if (lanes >= 0) return LLVMGetSuccessor(term, (unsigned)lanes);
  /* A branch on a constant: the other way is dead (the lanes' way of a
   * region body, once weft__sub_group_lanes_off made its test false). */
  LLVMBasicBlockRef constant = weft__branch_constant_way(term);
  if (constant) return constant;
  if (!param) return NULL;
  if (LLVMIsASwitchInst(term) && LLVMGetOperand(term, 0) == param) {
    for (unsigned c = 1; c < LLVMGetNumSuccessors(term); c++) {
      LLVMValueRef value = LLVMGetOperand(term, 2 * c);
      if (LLVMIsAConstantInt(value) &&
          LLVMConstIntGetSExtValue(value) == state)
        return LLVMGetSuccessor(term, c);
    }
    return LLVMGetSwitchDefaultDest(term);
  }
  if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term)) return NULL;
  LLVMValueRef cmp = LLVMGetCondition(term);
  if (!LLVMIsAICmpInst(cmp) || LLVMGetOperand(cmp, 0) != param ||
      !LLVMIsAConstantInt(LLVMGetOperand(cmp, 1)))
    return NULL;
  long long c = LLVMConstIntGetSExtValue(LLVMGetOperand(cmp, 1));
  int holds;
  switch (LLVMGetICmpPredicate(cmp)) {
  case LLVMIntEQ:
    holds = state == c;
    break;
  case LLVMIntNE:
    holds = state != c;
    break;
  default:
    return NULL;
  }
  return LLVMGetSuccessor(term, holds ? 0 : 1);
}

int weft__jam_scope_make(LLVMValueRef body, int state, weft_jam_scope *s) {
  memset(s, 0, sizeof *s);
  s->body = body;
  if (weft__cfg_make(body, &s->g)) return 0;
  s->reached = calloc(s->g.count + 1, 1);
  unsigned *stack = calloc(s->g.count + 1, sizeof *stack);
  if (!s->reached || !stack) {
    free(stack);
    return 0;
  }
  LLVMValueRef param = state >= 0 ? weft__body_param(body, WEFT_BODY_STATE) : NULL;
  unsigned depth = 0;
  s->reached[0] = 1; /* the entry */
  stack[depth++] = 0;
  while (depth) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(s->g.blocks[stack[--depth]]);
    if (!term) continue;
    LLVMBasicBlockRef only = taken(term, param, state);
    for (unsigned k = 0; k < LLVMGetNumSuccessors(term); k++) {
      LLVMBasicBlockRef next = LLVMGetSuccessor(term, k);
      unsigned i = weft__cfg_index(&s->g, next);
      if ((only && next != only) || i == s->g.count || s->reached[i]) continue;
      s->reached[i] = 1;
      stack[depth++] = i;
    }
  }
  free(stack);
  return 1;
}

void weft__jam_scope_free(weft_jam_scope *s) {
  if (s->g.blocks) weft__cfg_free(&s->g);
  free(s->reached);
  memset(s, 0, sizeof *s);
}

int weft__jam_scope_reaches(const weft_jam_scope *s, LLVMBasicBlockRef bb) {
  unsigned i = weft__cfg_index(&s->g, bb);
  return i < s->g.count && s->reached[i];
}

unsigned weft__jam_scope_values(const weft_jam_scope *s) {
  unsigned n = LLVMCountParams(s->body);
  for (unsigned b = 0; b < s->g.count; b++) {
    n++;
    for (LLVMValueRef i = LLVMGetFirstInstruction(s->g.blocks[b]); i;
         i = LLVMGetNextInstruction(i))
      n++;
  }
  return n;
}

unsigned weft__jam_scope_size(const weft_jam_scope *s) {
  unsigned n = 0;
  for (unsigned b = 0; b < s->g.count; b++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(s->g.blocks[b]);
         i && s->reached[b]; i = LLVMGetNextInstruction(i))
      n++;
  return n;
}

size_t weft__jam_scope_private_bytes(const weft_jam_scope *s,
                                     LLVMTargetDataRef layout) {
  size_t bytes = 0;
  for (unsigned b = 0; b < s->g.count; b++) {
    if (!s->reached[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(s->g.blocks[b]); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsAAllocaInst(i)) continue;
      LLVMValueRef count = LLVMGetOperand(i, 0);
      if (!LLVMIsAConstantInt(count)) return SIZE_MAX;
      bytes += LLVMABISizeOfType(layout, LLVMGetAllocatedType(i)) *
               LLVMConstIntGetZExtValue(count);
    }
  }
  return bytes;
}

typedef struct loop_marks {
  const unsigned char *reached;
  unsigned char *in_loop; /* by block index */
  unsigned *work;
  unsigned loops;
} loop_marks;

static int mark_loop(const weft_cfg *g, unsigned header, unsigned latch,
                     void *data) {
  loop_marks *m = data;
  if (!m->reached[header] || !m->reached[latch]) return 0;
  unsigned char body[g->count];
  memset(body, 0, g->count);
  weft__cfg_loop_blocks(g, header, latch, body, m->work);
  for (unsigned i = 0; i < g->count; i++) m->in_loop[i] |= body[i];
  m->loops++;
  return 0;
}

int weft__jam_scope_loops(const weft_jam_scope *s, int *only_compute) {
  unsigned n = s->g.count ? s->g.count : 1;
  unsigned char in_loop[n];
  unsigned work[n];
  memset(in_loop, 0, n);
  loop_marks m = {s->reached, in_loop, work, 0};
  weft__cfg_back_edges(&s->g, mark_loop, &m);
  *only_compute = 1;
  for (unsigned b = 0; b < s->g.count; b++) {
    if (!in_loop[b] || !s->reached[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(s->g.blocks[b]); i;
         i = LLVMGetNextInstruction(i))
      if (weft__jam_memory(i) & (WEFT_JAM_READS | WEFT_JAM_WRITES))
        *only_compute = 0;
  }
  return m.loops > 0;
}

unsigned weft__jam_scope_widest_vector(const weft_jam_scope *s) {
  unsigned widest = 1;
  for (unsigned b = 0; b < s->g.count; b++) {
    if (!s->reached[b]) continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(s->g.blocks[b]); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMTypeRef t = LLVMTypeOf(i);
      if (LLVMGetTypeKind(t) == LLVMVectorTypeKind &&
          LLVMGetVectorSize(t) > widest)
        widest = LLVMGetVectorSize(t);
    }
  }
  return widest;
}
