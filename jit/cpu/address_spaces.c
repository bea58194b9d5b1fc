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
 * scoped no-alias metadata: an access to __global, __constant, __local or
 * Weft's own per-work-item memory (regions' saved values and states) is
 * in its space's scope and declared not to alias the others, so no check
 * is needed between them at all. Accesses through generic pointers, and
 * to a kernel's private variables, get no scope: they may alias anything.
 */
#include <assert.h>
#include <string.h>

#include "jit/cpu/passes.h"

/* The scopes: OpenCL's address spaces as Clang numbers them for Weft's
 * CPU target, and Weft's per-work-item memory. */
enum { SCOPE_GLOBAL, SCOPE_CONSTANT, SCOPE_LOCAL, SCOPE_WEFT_PRIVATE,
       NUM_SCOPES };

/* The scope of an access through a pointer of address space as; -1 for
 * none (private variables, generic pointers). */
static int scope_of_space(unsigned as) {
  switch (as) {
  case 1: return SCOPE_GLOBAL;
  case 2: return SCOPE_CONSTANT;
  case 3: return SCOPE_LOCAL;
  default: return -1;
  }
}

/* Scope nodes are named by strings, so equal names are one scope in
 * every function of the module: !{!"weft.global", !{!"weft.spaces"}}. */
static LLVMMetadataRef scope_node(LLVMContextRef c, int scope) {
  static const char *const names[NUM_SCOPES] = {
      "weft.global", "weft.constant", "weft.local", "weft.private"};
  LLVMMetadataRef domain_name = LLVMMDStringInContext2(c, "weft.spaces", 11);
  LLVMMetadataRef domain = LLVMMDNodeInContext2(c, &domain_name, 1);
  LLVMMetadataRef ops[2] = {
      LLVMMDStringInContext2(c, names[scope], strlen(names[scope])), domain};
  return LLVMMDNodeInContext2(c, ops, 2);
}

/* Puts inst in scope and declares it not to alias the other scopes. */
static void set_scope(LLVMValueRef inst, int scope) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(inst));
  LLVMMetadataRef own = scope_node(c, scope), others[NUM_SCOPES - 1];
  unsigned n = 0;
  for (int s = 0; s < NUM_SCOPES; s++)
    if (s != scope) others[n++] = scope_node(c, s);
  assert(n == NUM_SCOPES - 1);
  unsigned alias_scope = LLVMGetMDKindIDInContext(c, "alias.scope", 11);
  unsigned noalias = LLVMGetMDKindIDInContext(c, "noalias", 7);
  LLVMSetMetadata(inst, alias_scope,
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &own, 1)));
  LLVMSetMetadata(inst, noalias,
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, others, n)));
}

void weft__mark_private_access(LLVMValueRef inst) {
  set_scope(inst, SCOPE_WEFT_PRIVATE);
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

static void flatten_access(LLVMBuilderRef b, LLVMValueRef inst) {
  int op = pointer_operand(inst);
  if (op < 0) return;
  LLVMValueRef pointer = LLVMGetOperand(inst, (unsigned)op);
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(pointer));
  if (as == 0) return;
  int scope = scope_of_space(as);
  if (scope >= 0) set_scope(inst, scope);
  LLVMPositionBuilderBefore(b, inst);
  LLVMValueRef flat = LLVMBuildAddrSpaceCast(
      b, pointer, LLVMPointerTypeInContext(LLVMGetTypeContext(LLVMTypeOf(inst)), 0),
      "");
  LLVMSetOperand(inst, (unsigned)op, flat);
}

void weft__address_spaces_flatten(LLVMValueRef fn) {
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      flatten_access(b, i);
  LLVMDisposeBuilder(b);
}
