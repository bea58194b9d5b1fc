// code_lines.cpp: the shim of code_lines.h. The object is parsed when a
// fault is reported, not before: faults are rare, and kept objects cost
// only their bytes.
#include "jit/cpu/code_lines.h"

#include <cstdio>
#include <memory>

#include <llvm/DebugInfo/DIContext.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

using namespace llvm;

namespace {

// The section and offset in it of pc, given where symbol was loaded.
bool section_offset(const object::ObjectFile &obj, StringRef symbol,
                    uintptr_t symbol_address, uintptr_t pc,
                    object::SectionedAddress *out) {
  for (const object::SymbolRef &s : obj.symbols()) {
    Expected<StringRef> name = s.getName();
    if (!name) {
      consumeError(name.takeError());
      continue;
    }
    if (*name != symbol) continue;
    Expected<uint64_t> value = s.getValue();
    Expected<object::section_iterator> section = s.getSection();
    if (!value || !section || *section == obj.section_end()) {
      if (!value) consumeError(value.takeError());
      if (!section) consumeError(section.takeError());
      return false;
    }
    // The section was loaded whole: pc's offset in it follows from the
    // symbol's.
    uint64_t base = symbol_address - *value;
    if (pc < base || pc - base >= (*section)->getSize()) return false;
    *out = {pc - base, (*section)->getIndex()};
    return true;
  }
  return false;
}

}  // namespace

extern "C" int weft__code_line(const void *object, size_t size,
                               const char *symbol, uintptr_t symbol_address,
                               uintptr_t pc, char *out, size_t out_size) {
  std::unique_ptr<MemoryBuffer> buffer = MemoryBuffer::getMemBuffer(
      StringRef(static_cast<const char *>(object), size), "", false);
  Expected<std::unique_ptr<object::ObjectFile>> obj =
      object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!obj) {
    consumeError(obj.takeError());
    return 0;
  }
  object::SectionedAddress at;
  if (!section_offset(**obj, symbol, symbol_address, pc, &at)) return 0;
  std::unique_ptr<DWARFContext> dwarf = DWARFContext::create(**obj);
  DILineInfoSpecifier spec(
      DILineInfoSpecifier::FileLineInfoKind::RelativeFilePath,
      DINameKind::None);
  DIInliningInfo frames = dwarf->getInliningInfoForAddress(at, spec);
  // The innermost frame: the line inside a helper function, where it is.
  if (!frames.getNumberOfFrames()) return 0;
  const DILineInfo &line = frames.getFrame(0);
  if (!line.Line || line.FileName == DILineInfo::BadString) return 0;
  std::snprintf(out, out_size, "%s:%u:%u", line.FileName.c_str(), line.Line,
                line.Column);
  return 1;
}
