// builtins_split.cpp: a build-time tool that splits the builtin library into
// one bitcode module per function family (all overloads of sin, of
// convert_float4_rtz, ...) and writes them with an index, so that a build
// reads only the families a program calls instead of the whole library
// (thousands of functions: ~10 ms a build to read lazily).
//
// usage: weft_builtins_split LIBRARY.bc OUTPUT
//
// C++ because LLVM's C API cannot clone a module keeping only some
// definitions (llvm::CloneModule with a predicate), which is all this does.
// The output format is in builtins_parts.h.

#include "builtins/builtins_parts.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/GlobalDCE.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace {

// The family of a defined function: the identifier of a mangled name
// (_Z<length><identifier>...), or the whole name.
std::string family_of(const std::string &name) {
  char family[WEFT_BUILTIN_FAMILY_MAX * 2];
  weft__builtin_family(name.c_str(), family, sizeof family);
  return family;
}

// The module with only the family's functions as definitions, plus the
// internal helpers and constants they use (copied into each family that
// needs them); everything else is left as declarations and dropped.
std::string family_bitcode(const llvm::Module &library,
                           const std::string &family) {
  llvm::ValueToValueMapTy map;
  auto part = llvm::CloneModule(
      library, map, [&](const llvm::GlobalValue *g) {
        // Variables (constant tables) go with every family: the ones it
        // does not use are dropped; the others are made link-once when
        // read, so two families' copies merge.
        if (g->hasLocalLinkage() || llvm::isa<llvm::GlobalVariable>(g))
          return true;
        return llvm::isa<llvm::Function>(g) &&
               family_of(g->getName().str()) == family;
      });
  llvm::ModuleAnalysisManager analyses;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(analyses);
  llvm::GlobalDCEPass().run(*part, analyses);
  std::string bytes;
  llvm::raw_string_ostream out(bytes);
  llvm::WriteBitcodeToFile(*part, out);
  out.flush();
  return bytes;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s LIBRARY.bc OUTPUT\n", argv[0]);
    return 2;
  }
  llvm::LLVMContext context;
  auto buffer = llvm::MemoryBuffer::getFile(argv[1]);
  if (!buffer) {
    std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[1]);
    return 1;
  }
  auto library = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), context);
  if (!library) {
    std::fprintf(stderr, "%s: %s is not bitcode\n", argv[0], argv[1]);
    return 1;
  }
  std::map<std::string, std::string> parts;  // sorted: the index is searched
  for (const llvm::Function &f : **library) {
    if (f.isDeclaration() || f.hasLocalLinkage()) continue;
    std::string family = family_of(f.getName().str());
    if (family.size() >= WEFT_BUILTIN_FAMILY_MAX) {
      std::fprintf(stderr, "%s: family name %s is too long\n", argv[0],
                   family.c_str());
      return 1;
    }
    parts[family];
  }
  for (auto &part : parts) part.second = family_bitcode(**library, part.first);

  // Index entries, then the modules (each 16-byte aligned).
  std::vector<weft_builtin_part> index;
  uint64_t at = 0;
  for (const auto &part : parts) {
    weft_builtin_part entry = {};
    std::snprintf(entry.family, sizeof entry.family, "%s", part.first.c_str());
    at = (at + 15) / 16 * 16;
    entry.offset = at;
    entry.size = part.second.size();
    at += entry.size;
    index.push_back(entry);
  }
  FILE *out = std::fopen(argv[2], "wb");
  if (!out) {
    std::fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[2]);
    return 1;
  }
  weft_builtin_parts_header header = {};
  std::memcpy(header.magic, WEFT_BUILTIN_PARTS_MAGIC, sizeof header.magic);
  header.count = index.size();
  std::fwrite(&header, sizeof header, 1, out);
  std::fwrite(index.data(), sizeof index[0], index.size(), out);
  uint64_t written = 0;
  static const char zeros[16] = {0};
  size_t i = 0;
  for (const auto &part : parts) {
    std::fwrite(zeros, 1, index[i].offset - written, out);
    std::fwrite(part.second.data(), 1, part.second.size(), out);
    written = index[i].offset + part.second.size();
    i++;
  }
  int bad = std::ferror(out);
  bad |= std::fclose(out);
  if (bad) std::fprintf(stderr, "%s: writing %s failed\n", argv[0], argv[2]);
  return bad ? 1 : 0;
}
