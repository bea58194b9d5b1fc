// loop_metadata.cpp: the shim of ir.h's weft__loop_metadata_set: LLVM's
// C API makes only uniqued nodes, and a loop's id is distinct and refers
// to itself.
extern "C" {
#include "jit/ir/ir.h"
}

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>

extern "C" void weft__loop_metadata_set(LLVMValueRef latch_branch,
                                        LLVMMetadataRef *options,
                                        unsigned count) {
  llvm::Instruction *branch = llvm::unwrap<llvm::Instruction>(latch_branch);
  llvm::LLVMContext &context = branch->getContext();
  llvm::SmallVector<llvm::Metadata *, 4> ops;
  // The first operand is the id itself, set below.
  ops.push_back(nullptr);
  for (unsigned i = 0; i < count; i++) ops.push_back(llvm::unwrap(options[i]));
  llvm::MDNode *id = llvm::MDNode::getDistinct(context, ops);
  id->replaceOperandWith(0, id);
  branch->setMetadata(llvm::LLVMContext::MD_loop, id);
}
