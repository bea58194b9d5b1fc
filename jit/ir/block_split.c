/* block_split.c: cutting a basic block in two before an instruction
 * (passes.h), for the passes that put control flow around an instruction:
 * the regions at barriers, the checks of check mode. */
#include "jit/ir/ir.h"

#include <stdlib.h>
#include <string.h>

/* Makes the branches into from go to to instead. Only branches: a phi in
 * a successor of from names from as where its value comes from, and from
 * keeps its terminator. */
static void redirect_predecessors(LLVMBasicBlockRef from, LLVMBasicBlockRef to) {
  LLVMValueRef from_value = LLVMBasicBlockAsValue(from);
  /* Redirect one branch at a time and look again: changing a branch
   * changes the list of uses. */
  for (;;) {
    LLVMValueRef term = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(from_value); u && !term;
         u = LLVMGetNextUse(u))
      if (LLVMIsATerminatorInst(LLVMGetUser(u))) term = LLVMGetUser(u);
    if (!term) return;
    for (unsigned i = 0, m = LLVMGetNumSuccessors(term); i < m; i++)
      if (LLVMGetSuccessor(term, i) == from) LLVMSetSuccessor(term, i, to);
  }
}

void weft__instruction_move(LLVMBuilderRef b, LLVMValueRef inst) {
  /* The builder names what it inserts: keep the name (reports show it). */
  size_t length;
  const char *name = LLVMGetValueName2(inst, &length);
  char *copy = strndup(name, length);
  LLVMInstructionRemoveFromParent(inst);
  LLVMInsertIntoBuilderWithName(b, inst, copy ? copy : "");
  free(copy);
}

LLVMBasicBlockRef weft__block_split_before(LLVMValueRef inst, const char *name) {
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(inst);
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(inst));
  LLVMBasicBlockRef head = LLVMInsertBasicBlockInContext(context, rest, name);
  redirect_predecessors(rest, head);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(context);
  LLVMPositionBuilderAtEnd(b, head);
  for (LLVMValueRef i; (i = LLVMGetFirstInstruction(rest)) != inst;)
    weft__instruction_move(b, i);
  LLVMDisposeBuilder(b);
  return head;
}
