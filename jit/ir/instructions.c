/* instructions.c: the instructions of a function that a pass will change
 * (passes.h), collected before it changes any: splitting blocks and
 * moving instructions change what a walk would meet next; and values
 * made again from their instructions elsewhere. */
#include <stdlib.h>

#include "jit/ir/ir.h"

LLVMValueRef *weft__instructions_where(LLVMValueRef fn, weft_instruction_test keep,
                                       void *data, unsigned *count) {
  unsigned n = 0, capacity = 16;
  LLVMValueRef *list = malloc(capacity * sizeof *list);
  if (!list) return NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!keep(i, data)) continue;
      if (n == capacity) {
        LLVMValueRef *grown = realloc(list, 2 * capacity * sizeof *list);
        if (!grown) {
          free(list);
          return NULL;
        }
        list = grown;
        capacity *= 2;
      }
      list[n++] = i;
    }
  *count = n;
  return list;
}

int weft__every_instruction(LLVMValueRef inst, void *data) {
  (void)inst;
  (void)data;
  return 1;
}

unsigned weft__instruction_count(LLVMValueRef fn) {
  unsigned n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      n++;
  return n;
}

LLVMValueRef weft__remake_mapped(LLVMBuilderRef b, LLVMValueRef v,
                                 weft_remake_leaf leaf, void *data) {
  if (!LLVMIsAInstruction(v)) return leaf ? leaf(v, data) : v;
  LLVMValueRef copy = LLVMInstructionClone(v);
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    LLVMSetOperand(copy, (unsigned)i,
                   weft__remake_mapped(b, LLVMGetOperand(v, (unsigned)i),
                                       leaf, data));
  LLVMInsertIntoBuilder(b, copy);
  return copy;
}

LLVMValueRef weft__remake(LLVMBuilderRef b, LLVMValueRef v) {
  return weft__remake_mapped(b, v, NULL, NULL);
}
