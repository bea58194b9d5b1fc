/* jam_loops.c: a jammed body's loops whose work-items leave at different
 * turns (mandelbrot's escape test: `while (i < n && x*x + y*y <= 4)`).
 *
 * Jammed, such a loop runs while any of its work-items is still in it;
 * each has an active flag. A work-item that leaves keeps its values: the
 * loop's header phis take, for it, what they held (a select on the flag)
 * instead of the next turn's. What the loop computes before its exit
 * test comes from those phis alone (the loop stores nothing and calls
 * nothing with effects), so for a work-item that has left, every value
 * up to the test is computed again exactly as at its last turn, and what
 * the code after the loop reads is what it would have read: the values
 * at the turn it left. Reads in the loop repeat addresses it read
 * before, so they cannot fault.
 *
 * A header phi that only counts turns (`for (k = 0; k < n_of_each; k++)
 * s += t[k]`: its start and step the same for all) stays one for all
 * where nothing made from it is used after the loop or read before the
 * first test: every work-item still in the loop has its value, and
 * those that have left have no use for it. Reads at it are then one
 * read for all (a scan over sub-groups' second step: 71 ms for 16M ints
 * with a counter and a masked load per work-item, 20 ms shared).
 *
 * A loop with several tests to one exit block (`while (k < n && f(z))`
 * where f was too dear to become a select) has them on one path: each
 * test dominates the latch, and a work-item stays only while it passed
 * all so far this turn (a select, not an `and`: a later test computed
 * for a work-item that has left may be poison, which must not reach the
 * branch).
 *
 * Reads before the first test (in blocks that dominate it) are made by
 * every work-item: those a work-item that has left makes again are the
 * ones of its last turn. A read after a test (`while (i < n) s += a[i]`,
 * or `while (i < n && a[i] != x)`, which would read a[n] for a
 * work-item that left at i == n) is a masked load, each work-item's by
 * its stay flag at that point: one that has left reads nothing (its value
 * is then poison, which only flows into what the header's selects drop
 * for it). A read the same for every work-item is made once: where the
 * code after the test runs, some work-item is still in the loop and would
 * have read it.
 *
 * A sub-group function there that only the lanes that come take part in
 * (a non-uniform one, in a jam of whole sub-groups: jam_sub_groups.c)
 * folds the lanes still in the loop where it is, as the slots fold the
 * lanes that met there (weft__jam_loops_around); one that every lane
 * must come to checks that a sub-group's lanes are all still in it or
 * all gone (a loop whose turns the sub-group shares).
 *
 * Taken: a loop whose ways out all lead to one block, from tests that
 * each dominate its one latch, with no loop inside it, no store or call
 * with effects in it, at most WEFT_JAM_MOST_READS reads after its first
 * test, each a plain load of a maskable type, at least one header phi,
 * and phis after it that take the same value from every way out. A loop
 * whose exit differs
 * between work-items but that is not so keeps the body from being
 * jammed.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/jam.h"

typedef struct back_edge {
  unsigned header, latch;
} back_edge;

typedef struct back_edges {
  back_edge edges[64];
  unsigned count;
  int overflow;
} back_edges;

static int note_edge(const weft_cfg *g, unsigned header, unsigned latch,
                     void *data) {
  (void)g;
  back_edges *e = data;
  if (e->count == sizeof e->edges / sizeof *e->edges) {
    e->overflow = 1;
    return 0;
  }
  e->edges[e->count++] = (back_edge){header, latch};
  return 0;
}

/* The exit tests of the loop of blocks in[] (g's indices), into l, when
 * they are at most WEFT_JAM_MOST_EXITS conditional branches to one
 * block; 0 otherwise (or when it has none). */
static int exits(const weft_cfg *g, const unsigned char *in, weft_jam_loop *l) {
  l->num_exits = 0;
  l->exit = NULL;
  for (unsigned b = 0; b < g->count; b++) {
    if (!in[b]) continue;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(g->blocks[b]);
    for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++) {
      LLVMBasicBlockRef to = LLVMGetSuccessor(term, s);
      if (in[weft__cfg_index(g, to)]) continue;
      if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term) ||
          (l->exit && l->exit != to) || l->num_exits == WEFT_JAM_MOST_EXITS)
        return 0;
      l->exit = to;
      l->branches[l->num_exits] = term;
      l->stay_on_true[l->num_exits++] = s == 1;
    }
  }
  return l->num_exits > 0;
}

/* Whether block x (g's index, in the loop in[]) dominates block target of
 * it: target cannot be reached from the header around x. */
static int dominates(const weft_cfg *g, const unsigned char *in,
                     unsigned header, unsigned target, unsigned x) {
  if (x == header || x == target) return 1;
  unsigned char seen[g->count];
  unsigned stack[g->count], depth = 0;
  memset(seen, 0, g->count);
  seen[header] = seen[x] = 1;
  stack[depth++] = header;
  while (depth) {
    unsigned b = stack[--depth];
    if (b == target) return 0;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(g->blocks[b]);
    for (unsigned s = 0; term && s < LLVMGetNumSuccessors(term); s++) {
      unsigned i = weft__cfg_index(g, LLVMGetSuccessor(term, s));
      if (i < g->count && in[i] && !seen[i]) {
        seen[i] = 1;
        stack[depth++] = i;
      }
    }
  }
  return 1;
}

/* Whether the exit block's phis take one value from every way out. */
static int exits_agree(const weft_jam_loop *l) {
  for (LLVMValueRef phi = LLVMGetFirstInstruction(l->exit);
       phi && LLVMIsAPHINode(phi); phi = LLVMGetNextInstruction(phi)) {
    LLVMValueRef value = NULL;
    for (unsigned e = 0; e < LLVMCountIncoming(phi); e++)
      for (unsigned x = 0; x < l->num_exits; x++) {
        if (LLVMGetIncomingBlock(phi, e) != LLVMGetInstructionParent(l->branches[x]))
          continue;
        if (value && value != LLVMGetIncomingValue(phi, e)) return 0;
        value = LLVMGetIncomingValue(phi, e);
      }
  }
  return 1;
}

/* Notes load i, after the loop's first test, among l's masked reads: 0
 * where it cannot be one. */
static int note_masked(weft_jam_loop *l, LLVMValueRef i) {
  if (!LLVMIsALoadInst(i) || LLVMGetVolatile(i) ||
      LLVMGetOrdering(i) != LLVMAtomicOrderingNotAtomic ||
      !weft__jam_maskable_type(LLVMTypeOf(i)) ||
      l->num_reads == WEFT_JAM_MOST_READS)
    return 0;
  l->reads[l->num_reads++] = i;
  return 1;
}

/* The block of the loop's test that dominates the others, or g->count
 * where a test does not dominate the latch. */
static unsigned first_test(const weft_cfg *g, const unsigned char *in,
                           back_edge e, const weft_jam_loop *l) {
  unsigned first = g->count;
  for (unsigned x = 0; x < l->num_exits; x++) {
    unsigned from = weft__cfg_index(g, LLVMGetInstructionParent(l->branches[x]));
    if (!dominates(g, in, e.header, e.latch, from)) return g->count;
    if (first == g->count || dominates(g, in, e.header, first, from))
      first = from;
  }
  return first;
}

/* Whether the loop (header, latch) may run masked, with l its ways out. */
static int maskable(const weft_jam *j, const back_edges *all, back_edge e,
                    const unsigned char *in, weft_jam_loop *l) {
  const weft_cfg *g = &j->scope->g;
  for (unsigned k = 0; k < all->count; k++) {
    back_edge o = all->edges[k];
    if (o.header == e.header && o.latch == e.latch) continue;
    if (in[o.header]) return 0; /* a second latch, or a loop inside */
  }
  unsigned first = first_test(g, in, e, l);
  if (first == g->count) return 0;
  l->num_reads = 0;
  for (unsigned b = 0; b < g->count; b++) {
    if (!in[b]) continue;
    int before_tests = dominates(g, in, e.header, first, b);
    for (LLVMValueRef i = LLVMGetFirstInstruction(g->blocks[b]); i;
         i = LLVMGetNextInstruction(i)) {
      /* A sub-group function takes the lanes still in it (those whose
       * stay flag is set where it is: weft__jam_loops_around). */
      if (weft__jam_is_lanes_query(i)) return 0;
      unsigned memory = weft__jam_memory(i);
      if ((memory & ~WEFT_JAM_READS) ||
          ((memory & WEFT_JAM_READS) && !before_tests && !note_masked(l, i)))
        return 0;
    }
  }
  if (!LLVMIsAPHINode(LLVMGetFirstInstruction(g->blocks[e.header])) ||
      !exits_agree(l))
    return 0;
  l->header = g->blocks[e.header];
  l->latch = g->blocks[e.latch];
  return 1;
}

static const weft_jam_loop *loop_of_header(const weft_jam *j,
                                           LLVMBasicBlockRef header) {
  for (unsigned k = 0; k < j->num_loops; k++)
    if (j->loops[k].header == header) return &j->loops[k];
  return NULL;
}

static int is_varying(const weft_jam *j, LLVMValueRef v) {
  unsigned i = weft__jam_index(j, v);
  return i < j->count && j->varying[i];
}

/* Whether instruction v is in the loop in[]. */
static int inside(const weft_cfg *g, const unsigned char *in, LLVMValueRef v) {
  unsigned b = weft__cfg_index(g, LLVMGetInstructionParent(v));
  return b < g->count && in[b];
}

/* Whether the header phi may stay one for all work-items, as a counter
 * the work-items share (`for (k = 0; k < n_of_each; k++) s += t[k]`):
 * where it is so, every work-item still in the loop has its value, and
 * those that have left have no use for it: nothing computed from it in
 * the loop, up to the header's phis (kept each work-item's if they
 * differ), is used after the loop, nor read before the first test
 * (which a work-item that has left makes again, at its last turn's
 * address). Where its operands differ between work-items it is marked
 * so anyway. */
static int shared_counter(const weft_jam *j, const unsigned char *in,
                          unsigned first, back_edge e, LLVMValueRef phi) {
  const weft_cfg *g = &j->scope->g;
  enum { MOST = 64 };
  LLVMValueRef work[MOST];
  unsigned n = 0, done = 0;
  work[n++] = phi;
  while (done < n) {
    LLVMValueRef v = work[done++];
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (!inside(g, in, user)) return 0; /* used after the loop */
      unsigned b = weft__cfg_index(g, LLVMGetInstructionParent(user));
      if (LLVMIsAPHINode(user) && b == e.header) continue; /* carried */
      if (LLVMIsALoadInst(user) && dominates(g, in, e.header, first, b))
        return 0;
      int seen = 0;
      for (unsigned k = 0; k < n && !seen; k++) seen = work[k] == user;
      if (seen) continue;
      if (n == MOST) return 0;
      work[n++] = user;
    }
  }
  return 1;
}

/* Marks the header's phis varying: a work-item that has left keeps its
 * own; but for counters the work-items share. */
static void mark_header(weft_jam *j, const unsigned char *in, back_edge e,
                        const weft_jam_loop *l) {
  const weft_cfg *g = &j->scope->g;
  unsigned first = first_test(g, in, e, l);
  for (LLVMValueRef i = LLVMGetFirstInstruction(l->header);
       i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i))
    if (!shared_counter(j, in, first, e, i))
      j->varying[weft__jam_index(j, i)] = 1;
}

int weft__jam_loops_find(weft_jam *j) {
  const weft_cfg *g = &j->scope->g;
  back_edges all = {.count = 0};
  weft__cfg_back_edges(g, note_edge, &all);
  if (all.overflow) return -1;
  unsigned char in[g->count ? g->count : 1];
  unsigned work[g->count ? g->count : 1];
  int added = 0;
  for (unsigned k = 0; k < all.count; k++) {
    back_edge e = all.edges[k];
    if (!j->scope->reached[e.header] ||
        loop_of_header(j, g->blocks[e.header]))
      continue;
    memset(in, 0, g->count);
    weft__cfg_loop_blocks(g, e.header, e.latch, in, work);
    weft_jam_loop l = {.num_exits = 0};
    if (!exits(g, in, &l)) continue; /* jammable() decides on its tests */
    int differs = 0;
    for (unsigned x = 0; x < l.num_exits; x++)
      differs |= is_varying(j, LLVMGetCondition(l.branches[x]));
    if (!differs) continue; /* every work-item leaves at the same turn */
    if (j->num_loops == WEFT_JAM_MOST_LOOPS || !maskable(j, &all, e, in, &l))
      return -1;
    j->loops[j->num_loops++] = l; /* active, stay: each build's */
    mark_header(j, in, e, &l);
    added = 1;
  }
  return added;
}

/* The masked loop branch is an exit test of (its index in *x), or NULL. */
static weft_jam_loop *loop_of_exit(const weft_jam *j, LLVMValueRef branch,
                                   unsigned *x) {
  for (unsigned k = 0; k < j->num_loops; k++)
    for (*x = 0; *x < j->loops[k].num_exits; (*x)++)
      if (j->loops[k].branches[*x] == branch)
        return (weft_jam_loop *)&j->loops[k];
  return NULL;
}

int weft__jam_loops_is_exit(const weft_jam *j, LLVMValueRef branch) {
  unsigned x;
  return loop_of_exit(j, branch, &x) != NULL;
}

void weft__jam_loops_begin(weft_jam *j, LLVMBuilderRef b,
                           LLVMBasicBlockRef header) {
  weft_jam_loop *l = (weft_jam_loop *)loop_of_header(j, header);
  if (!l) return;
  LLVMTypeRef flag = LLVMInt1TypeInContext(j->context);
  for (unsigned item = 0; item < j->width; item++)
    l->stay[item] = l->active[item] = LLVMBuildPhi(b, flag, "active");
}

void weft__jam_loops_exit(weft_jam *j, LLVMBuilderRef b, LLVMValueRef branch) {
  unsigned x = 0;
  weft_jam_loop *l = loop_of_exit(j, branch, &x);
  assert(l);
  LLVMValueRef any = NULL;
  /* The tests come in dominance order: stay[] is what the earlier ones
   * of this turn left. */
  for (unsigned item = 0; item < j->width; item++) {
    LLVMValueRef c = weft__jam_copy(j, LLVMGetCondition(branch), item);
    if (!l->stay_on_true[x]) c = LLVMBuildNot(b, c, "");
    l->stay[item] = LLVMBuildSelect(
        b, l->stay[item], c, LLVMConstInt(LLVMInt1TypeInContext(j->context), 0, 0),
        "stay");
    any = any ? LLVMBuildOr(b, any, l->stay[item], "") : l->stay[item];
  }
  LLVMBasicBlockRef targets[2];
  for (unsigned s = 0; s < 2; s++)
    targets[s] = weft__jam_block(j, LLVMGetSuccessor(branch, s));
  /* On while any stays: towards the loop's successor. */
  LLVMBuildCondBr(b, any, targets[l->stay_on_true[x] ? 0 : 1],
                  targets[l->stay_on_true[x] ? 1 : 0]);
}

LLVMValueRef weft__jam_loops_carry(weft_jam *j, LLVMBuilderRef b,
                                   LLVMValueRef phi, LLVMBasicBlockRef from,
                                   unsigned item, LLVMValueRef next,
                                   LLVMValueRef now) {
  const weft_jam_loop *l = loop_of_header(j, LLVMGetInstructionParent(phi));
  /* A shared counter goes on while any work-item stays. */
  if (!l || from != l->latch || !is_varying(j, phi)) return next;
  return LLVMBuildSelect(b, l->stay[item], next, now, "");
}

const weft_jam_loop *weft__jam_loops_around(const weft_jam *j,
                                            LLVMValueRef inst) {
  const weft_cfg *g = &j->scope->g;
  unsigned b = weft__cfg_index(g, LLVMGetInstructionParent(inst));
  unsigned char in[g->count ? g->count : 1];
  unsigned work[g->count ? g->count : 1];
  for (unsigned k = 0; k < j->num_loops && b < g->count; k++) {
    const weft_jam_loop *l = &j->loops[k];
    memset(in, 0, g->count);
    weft__cfg_loop_blocks(g, weft__cfg_index(g, l->header),
                          weft__cfg_index(g, l->latch), in, work);
    if (in[b]) return l;
  }
  return NULL;
}

void weft__jam_loops_note_read(weft_jam *j, LLVMValueRef inst) {
  if (!LLVMIsALoadInst(inst)) return;
  for (unsigned k = 0; k < j->num_loops; k++) {
    weft_jam_loop *l = &j->loops[k];
    for (unsigned r = 0; r < l->num_reads; r++) {
      if (l->reads[r] != inst) continue;
      /* The block's clone comes after those of the tests that dominate
       * it (reverse post-order): stay[] is what they left. */
      for (unsigned item = 0; item < j->width; item++)
        l->read_masks[(size_t)r * j->width + item] = l->stay[item];
      return;
    }
  }
}

/* Each work-item's clone of the loop's reads made a masked load (once
 * the operands are set); a read made once for all stays as it is. */
static void mask_reads(weft_jam *j, LLVMBuilderRef b, const weft_jam_loop *l) {
  for (unsigned r = 0; r < l->num_reads; r++) {
    unsigned k = weft__jam_index(j, l->reads[r]);
    if (!j->varying[k] || !weft__jam_scope_reaches(
                              j->scope, LLVMGetInstructionParent(l->reads[r])))
      continue;
    for (unsigned item = 0; item < j->width; item++) {
      LLVMValueRef mask = l->read_masks[(size_t)r * j->width + item];
      LLVMValueRef c = j->copies[(size_t)k * j->width + item];
      assert(mask && c && LLVMIsALoadInst(c));
      LLVMPositionBuilderBefore(b, c);
      weft__jam_mask_access(b, c, mask);
      j->copies[(size_t)k * j->width + item] = NULL; /* deleted */
    }
  }
}

void weft__jam_loops_finish(weft_jam *j, LLVMBuilderRef b) {
  LLVMValueRef on = LLVMConstInt(LLVMInt1TypeInContext(j->context), 1, 0);
  for (unsigned k = 0; k < j->num_loops; k++) {
    weft_jam_loop *l = &j->loops[k];
    mask_reads(j, b, l);
    /* The first header phi's edges are the header's. */
    LLVMValueRef phi = LLVMGetFirstInstruction(l->header);
    for (unsigned e = 0; e < LLVMCountIncoming(phi); e++) {
      LLVMBasicBlockRef old = LLVMGetIncomingBlock(phi, e);
      if (!weft__jam_scope_reaches(j->scope, old)) continue;
      LLVMBasicBlockRef from = weft__jam_block(j, old);
      for (unsigned item = 0; item < j->width; item++) {
        LLVMValueRef value = old == l->latch ? l->stay[item] : on;
        LLVMAddIncoming(l->active[item], &value, &from, 1);
      }
    }
  }
}
