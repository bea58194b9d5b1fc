/* cfg.c: a function's control-flow graph and its loops' back edges
 * (passes.h), for the passes that put something in every loop. LLVM's
 * loop analysis is not in its C API: a depth-first walk from the entry
 * finds the back edges (latch -> header). */
#include <stdlib.h>
#include <string.h>

#include "jit/ir/ir.h"
#include "weft/weft.h"

unsigned weft__cfg_index(const weft_cfg *g, LLVMBasicBlockRef b) {
  for (unsigned i = 0; i < g->count; i++)
    if (g->blocks[i] == b) return i;
  return g->count;
}

void weft__cfg_free(weft_cfg *g) {
  for (unsigned i = 0; g->preds && i < g->count; i++) free(g->preds[i]);
  free(g->preds);
  free(g->num_preds);
  free(g->blocks);
  memset(g, 0, sizeof *g);
}

int weft__cfg_make(LLVMValueRef fn, weft_cfg *g) {
  memset(g, 0, sizeof *g);
  g->count = LLVMCountBasicBlocks(fn);
  g->blocks = calloc(g->count + 1, sizeof *g->blocks);
  g->preds = calloc(g->count + 1, sizeof *g->preds);
  g->num_preds = calloc(g->count + 1, sizeof *g->num_preds);
  if (!g->blocks || !g->preds || !g->num_preds) return WEFT_ENOMEM;
  LLVMGetBasicBlocks(fn, g->blocks);
  for (unsigned i = 0; i < g->count; i++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[i]);
    for (unsigned k = 0, n = t ? LLVMGetNumSuccessors(t) : 0; k < n; k++) {
      unsigned s = weft__cfg_index(g, LLVMGetSuccessor(t, k));
      if (s == g->count) continue;
      unsigned *grown = realloc(g->preds[s], (g->num_preds[s] + 1) * sizeof *grown);
      if (!grown) return WEFT_ENOMEM;
      g->preds[s] = grown;
      g->preds[s][g->num_preds[s]++] = i;
    }
  }
  return 0;
}

int weft__cfg_back_edges(const weft_cfg *g, weft_back_edge_fn found,
                         void *data) {
  unsigned n = g->count;
  unsigned char *state = calloc(n + 1, 1); /* 1 on the stack, 2 done */
  unsigned *stack = calloc(n + 1, sizeof *stack);
  unsigned *next_succ = calloc(n + 1, sizeof *next_succ);
  int rc = state && stack && next_succ ? 0 : WEFT_ENOMEM;
  unsigned top = 0;
  if (!rc && n) {
    stack[top++] = 0;
    state[0] = 1;
  }
  while (!rc && top) {
    unsigned b = stack[top - 1];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->blocks[b]);
    unsigned num = t ? LLVMGetNumSuccessors(t) : 0;
    if (next_succ[b] == num) {
      state[b] = 2;
      top--;
      continue;
    }
    unsigned s = weft__cfg_index(g, LLVMGetSuccessor(t, next_succ[b]++));
    if (s == n) continue;
    if (state[s] == 1) {
      rc = found(g, s, b, data); /* b -> s closes a loop with header s */
    } else if (state[s] == 0) {
      state[s] = 1;
      stack[top++] = s;
    }
  }
  free(state);
  free(stack);
  free(next_succ);
  return rc;
}

void weft__cfg_loop_blocks(const weft_cfg *g, unsigned header, unsigned latch,
                           unsigned char *body, unsigned *work) {
  memset(body, 0, g->count);
  body[header] = 1;
  unsigned top = 0;
  if (!body[latch]) {
    body[latch] = 1;
    work[top++] = latch;
  }
  while (top) {
    unsigned b = work[--top];
    for (unsigned k = 0; k < g->num_preds[b]; k++) {
      unsigned p = g->preds[b][k];
      if (!body[p]) {
        body[p] = 1;
        work[top++] = p;
      }
    }
  }
}

/* weft__cfg_in_loops' walk: the marks, room for one loop's body and a
 * walk, and what keeps a loop out. */
typedef struct loop_marks {
  unsigned char *in_loop, *body;
  unsigned *work;
  weft_instruction_test excluded;
  void *data;
} loop_marks;

/* Whether block bb holds an instruction the marks exclude. */
static int excludes(const loop_marks *m, LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i))
    if (m->excluded(i, m->data)) return 1;
  return 0;
}

static int mark_loop(const weft_cfg *g, unsigned header, unsigned latch,
                     void *data) {
  loop_marks *m = data;
  weft__cfg_loop_blocks(g, header, latch, m->body, m->work);
  for (unsigned i = 0; m->excluded && i < g->count; i++)
    if (m->body[i] && excludes(m, g->blocks[i])) return 0;
  for (unsigned i = 0; i < g->count; i++) m->in_loop[i] |= m->body[i];
  return 0;
}

int weft__cfg_in_loops(const weft_cfg *g, unsigned char *in_loop,
                       weft_instruction_test excluded, void *data) {
  memset(in_loop, 0, g->count);
  loop_marks m = {in_loop, calloc(g->count + 1, 1),
                  calloc(g->count + 1, sizeof *m.work), excluded, data};
  int rc = m.body && m.work ? weft__cfg_back_edges(g, mark_loop, &m)
                            : WEFT_ENOMEM;
  free(m.body);
  free(m.work);
  return rc;
}

LLVMBasicBlockRef weft__branch_constant_way(LLVMValueRef term) {
  if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term)) return NULL;
  LLVMValueRef c = LLVMGetCondition(term);
  if (!LLVMIsAConstantInt(c)) return NULL;
  return LLVMGetSuccessor(term, LLVMConstIntGetZExtValue(c) ? 0 : 1);
}
