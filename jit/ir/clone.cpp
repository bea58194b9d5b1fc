// clone.cpp: the shim of weft__function_clone (ir.h): LLVM's C API has
// no way to copy a function.
extern "C" {
#include "jit/ir/ir.h"
}

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ValueMap.h>
#include <llvm/Transforms/Utils/Cloning.h>

extern "C" LLVMValueRef weft__function_clone(LLVMValueRef fn, const char *name) {
  llvm::Function *f = llvm::unwrap<llvm::Function>(fn);
  llvm::ValueToValueMapTy map;
  llvm::Function *copy = llvm::CloneFunction(f, map);
  copy->setName(name);
  return llvm::wrap(copy);
}
