/* address_spaces.c: step 6 of passes.h, one address space for the CPU's
 * optimizer.
 *
 * On the CPU every OpenCL address space is the same memory, but LLVM's
 * loop vectorizer cannot compare pointers of different address spaces:
 * a loop that reads __global memory and writes __local or private memory
 * needs a run-time overlap check it will not make, so it stays scalar
 * ("cannot identify array bounds"). A reduction's first region, a load
 * from __global into __local, was such a loop. So every access through a
 * pointer of a named space goes through the same pointer cast to address
 * space 0, and the OpenCL fact that the spaces are disjoint is kept as
 * scoped no-alias metadata: an access to buffers (__global, __constant),
 * __local memory, Weft's own per-work-item memory (regions' saved
 * values and states), its words of a group or a group's uniform values
 * (regions' values that all its work-items hold alike) is in its scope and
 * declared not to alias the others, so no check is needed between them
 * at all. Accesses through generic pointers, and to a kernel's private
 * variables, get no scope: they may alias anything.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cpu/passes.h"

/* The scopes: buffers (__global and __constant memory, one scope: a
 * buffer may be bound to a __global and a __constant argument at once),
 * a group's __local memory, Weft's per-work-item memory, and Weft's words
 * of the group in its context (aggregated atomics' counts). */
enum { SCOPE_BUFFERS, SCOPE_LOCAL, SCOPE_WEFT_PRIVATE, SCOPE_WEFT_GROUP,
       SCOPE_WEFT_UNIFORM, NUM_SCOPES };

/* The scope of an access through a pointer of address space as; -1 for
 * none (private variables, generic pointers). */
static int scope_of_space(unsigned as) {
  switch (as) {
  case WEFT_AS_GLOBAL:
  case WEFT_AS_CONSTANT:
    return SCOPE_BUFFERS;
  case WEFT_AS_LOCAL: return SCOPE_LOCAL;
  default: return -1;
  }
}

/* Scope nodes are named by strings, so equal names are one scope in
 * every function of the module: !{!"weft.local", !{!"weft.spaces"}}. */
static LLVMMetadataRef named_scope(LLVMContextRef c, const char *name,
                                   const char *domain_name) {
  LLVMMetadataRef d = LLVMMDStringInContext2(c, domain_name, strlen(domain_name));
  LLVMMetadataRef ops[2] = {LLVMMDStringInContext2(c, name, strlen(name)),
                            LLVMMDNodeInContext2(c, &d, 1)};
  return LLVMMDNodeInContext2(c, ops, 2);
}

static LLVMMetadataRef scope_node(LLVMContextRef c, int scope) {
  static const char *const names[NUM_SCOPES] = {
      "weft.buffers", "weft.local", "weft.private", "weft.group",
      "weft.uniform"};
  return named_scope(c, names[scope], "weft.spaces");
}

/* inst's list of scopes of kind (alias.scope or noalias) with add[0..n)
 * joined: what the inliner put there (a restrict argument's scope) stays. */
static void add_scopes(LLVMValueRef inst, unsigned kind,
                       const LLVMMetadataRef *add, unsigned n) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(inst));
  LLVMValueRef old = LLVMGetMetadata(inst, kind);
  unsigned had = old ? LLVMGetMDNodeNumOperands(old) : 0;
  LLVMValueRef had_ops[had ? had : 1];
  if (had) LLVMGetMDNodeOperands(old, had_ops);
  LLVMMetadataRef all[had + n];
  for (unsigned i = 0; i < had; i++) all[i] = LLVMValueAsMetadata(had_ops[i]);
  for (unsigned i = 0; i < n; i++) all[had + i] = add[i];
  LLVMSetMetadata(inst, kind,
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, all, had + n)));
}

/* Puts inst in scope and declares it not to alias the other scopes. */
static void set_scope(LLVMValueRef inst, int scope) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(inst));
  LLVMMetadataRef own = scope_node(c, scope), others[NUM_SCOPES - 1];
  unsigned n = 0;
  for (int s = 0; s < NUM_SCOPES; s++)
    if (s != scope) others[n++] = scope_node(c, s);
  assert(n == NUM_SCOPES - 1);
  add_scopes(inst, LLVMGetMDKindIDInContext(c, "alias.scope", 11), &own, 1);
  add_scopes(inst, LLVMGetMDKindIDInContext(c, "noalias", 7), others, n);
}

void weft__mark_private_access(LLVMValueRef inst) {
  set_scope(inst, SCOPE_WEFT_PRIVATE);
}

/* Memory objects of a region body (regions.c: private arrays and
 * structs, kept per work-item in Weft's private memory) get a scope each
 * in a domain of their own, so that LLVM knows an object's accesses miss
 * every other object and every space above: the fields lie side by side
 * at offsets scaled by the group's size, which it cannot compare, and an
 * accumulator array then stayed in memory through a loop (CLBlast's
 * Xgemm). Scopes are named by number: objects of different kernels never
 * meet in one function. */
static LLVMMetadataRef object_scope(LLVMContextRef c, unsigned object) {
  char name[32];
  snprintf(name, sizeof name, "weft.object.%u", object);
  return named_scope(c, name, "weft.objects");
}

void weft__mark_object_access(LLVMValueRef inst, unsigned object,
                              unsigned objects) {
  assert(object < objects);
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(inst));
  LLVMMetadataRef own = object_scope(c, object);
  LLVMMetadataRef *others = malloc((NUM_SCOPES + objects) * sizeof *others);
  if (!others) return; /* unmarked: LLVM assumes less, nothing wrong */
  unsigned n = 0;
  for (int s = 0; s < NUM_SCOPES; s++) others[n++] = scope_node(c, s);
  for (unsigned k = 0; k < objects; k++)
    if (k != object) others[n++] = object_scope(c, k);
  add_scopes(inst, LLVMGetMDKindIDInContext(c, "alias.scope", 11), &own, 1);
  add_scopes(inst, LLVMGetMDKindIDInContext(c, "noalias", 7), others, n);
  free(others);
}

void weft__mark_group_word_access(LLVMValueRef inst) {
  set_scope(inst, SCOPE_WEFT_GROUP);
}

void weft__mark_uniform_access(LLVMValueRef inst) {
  set_scope(inst, SCOPE_WEFT_UNIFORM);
}

/* The streamed stores' scope: in a domain of its own, named by no
 * access's noalias list, so it changes nothing LLVM may assume. */
static LLVMMetadataRef streamed_scope(LLVMContextRef c) {
  return named_scope(c, "weft.streamed", "weft.streams");
}

void weft__mark_streamed_store(LLVMValueRef store) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(LLVMGetOperand(store, 0)));
  LLVMMetadataRef scope = streamed_scope(c);
  add_scopes(store, LLVMGetMDKindIDInContext(c, "alias.scope", 11), &scope, 1);
}

/* Whether store's scopes hold the streamed one. */
static int is_streamed(LLVMValueRef store, LLVMValueRef scope) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(store));
  LLVMValueRef list =
      LLVMGetMetadata(store, LLVMGetMDKindIDInContext(c, "alias.scope", 11));
  unsigned n = list ? LLVMGetMDNodeNumOperands(list) : 0;
  LLVMValueRef ops[n ? n : 1];
  if (n) LLVMGetMDNodeOperands(list, ops);
  for (unsigned i = 0; i < n; i++)
    if (ops[i] == scope) return 1;
  return 0;
}

unsigned weft__streamed_stores_finish(LLVMValueRef fn) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  LLVMValueRef scope = LLVMMetadataAsValue(c, streamed_scope(c));
  LLVMMetadataRef one =
      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(c), 1, 0));
  LLVMValueRef nontemporal = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &one, 1));
  unsigned kind = LLVMGetMDKindIDInContext(c, "nontemporal", 11), n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsAStoreInst(i) && is_streamed(i, scope)) {
        LLVMSetMetadata(i, kind, nontemporal);
        n++;
      }
  return n;
}

/* The operand index of inst's pointer, or -1 if inst is no memory access
 * (calls, memcpy among them, keep their pointers: they are not vectorized
 * and cannot be told apart by scope anyway). */
static int pointer_operand(LLVMValueRef inst) {
  if (LLVMIsALoadInst(inst) || LLVMIsAAtomicRMWInst(inst) ||
      LLVMIsAAtomicCmpXchgInst(inst))
    return 0;
  if (LLVMIsAStoreInst(inst)) return 1;
  return -1;
}

/* Pointers already made in address space 0, by the pointer they stand
 * for: one copy of each address computation. */
typedef struct flat_map {
  LLVMValueRef fn;
  LLVMValueRef *from, *to;
  unsigned count, cap;
} flat_map;

static LLVMValueRef flat_lookup(const flat_map *m, LLVMValueRef v) {
  for (unsigned i = 0; i < m->count; i++)
    if (m->from[i] == v) return m->to[i];
  return NULL;
}

static LLVMValueRef flat_note(flat_map *m, LLVMValueRef from, LLVMValueRef to) {
  if (m->count == m->cap) {
    unsigned cap = m->cap ? 2 * m->cap : 32;
    LLVMValueRef *f = realloc(m->from, cap * sizeof *f);
    if (f) m->from = f;
    LLVMValueRef *t = f ? realloc(m->to, cap * sizeof *t) : NULL;
    if (t) m->to = t;
    if (!f || !t) return to; /* not remembered: made again if needed */
    m->cap = cap;
  }
  m->from[m->count] = from;
  m->to[m->count++] = to;
  return to;
}

static LLVMTypeRef flat_type(LLVMValueRef v) {
  return LLVMPointerTypeInContext(LLVMGetTypeContext(LLVMTypeOf(v)), 0);
}

/* p, a pointer of a named address space, as an address-space-0 pointer.
 * Its address computation is made again in address space 0 (a GEP on the
 * flat base; a cast from address space 0 is its source), so that LLVM's
 * scalar evolution, which does not look through address space casts,
 * still sees consecutive accesses; anything else (an argument, a load, a
 * phi) is cast once, right after it is made. */
static LLVMValueRef flat_pointer(LLVMBuilderRef b, flat_map *m,
                                 LLVMValueRef p) {
  LLVMValueRef done = flat_lookup(m, p);
  if (done) return done;
  if (LLVMIsAAddrSpaceCastInst(p) &&
      LLVMGetPointerAddressSpace(LLVMTypeOf(LLVMGetOperand(p, 0))) == 0)
    return flat_note(m, p, LLVMGetOperand(p, 0));
  if (LLVMIsAGetElementPtrInst(p)) {
    LLVMValueRef base = flat_pointer(b, m, LLVMGetOperand(p, 0));
    unsigned n = (unsigned)LLVMGetNumOperands(p) - 1;
    LLVMValueRef indices[n ? n : 1];
    for (unsigned i = 0; i < n; i++) indices[i] = LLVMGetOperand(p, i + 1);
    LLVMPositionBuilderBefore(b, p);
    LLVMTypeRef element = LLVMGetGEPSourceElementType(p);
    LLVMValueRef gep =
        LLVMIsInBounds(p)
            ? LLVMBuildInBoundsGEP2(b, element, base, indices, n, "")
            : LLVMBuildGEP2(b, element, base, indices, n, "");
    return flat_note(m, p, gep);
  }
  /* Right after p (after the phis of its block, for a phi), or at the
   * start of the function for an argument (a constant folds). */
  LLVMValueRef at;
  if (LLVMIsAInstruction(p)) {
    at = LLVMGetNextInstruction(p);
    while (at && LLVMIsAPHINode(at)) at = LLVMGetNextInstruction(at);
  } else {
    at = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(m->fn));
  }
  assert(at || LLVMIsConstant(p));
  if (at) LLVMPositionBuilderBefore(b, at);
  return flat_note(m, p, LLVMBuildAddrSpaceCast(b, p, flat_type(p), ""));
}

static void flatten_access(LLVMBuilderRef b, flat_map *m, LLVMValueRef inst) {
  int op = pointer_operand(inst);
  if (op < 0) return;
  LLVMValueRef pointer = LLVMGetOperand(inst, (unsigned)op);
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(pointer));
  if (as == 0) return;
  int scope = scope_of_space(as);
  if (scope >= 0) set_scope(inst, scope);
  LLVMSetOperand(inst, (unsigned)op, flat_pointer(b, m, pointer));
}

void weft__address_spaces_flatten(LLVMValueRef fn) {
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
  flat_map m = {.fn = fn};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      flatten_access(b, &m, i);
  free(m.from);
  free(m.to);
  LLVMDisposeBuilder(b);
}
