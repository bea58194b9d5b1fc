// frontend.cpp: runs Clang in-process on OpenCL C source (see frontend.h).
//
// A thin shim: build a compiler invocation from cc1 arguments, serve the
// source from memory, run the "emit LLVM only" action and return the module.
// Policy (which arguments, what to do with the module) lives in the C code.

#include "jit/front/frontend.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/Utils.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

char *copy_string(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

// Clang looks for #include "name" as "./name" beside a source whose name
// has no folder, so that is where an embedded header is served.
std::string header_path(const char *name) {
  if (name[0] == '/' || !std::strncmp(name, "./", 2)) return name;
  return std::string("./") + name;
}

// Every file the build read, system headers included: a cached build is
// valid only while none of them has changed.
class AllFiles : public clang::DependencyCollector {
 public:
  bool needSystemDependencies() override { return true; }
};

// The files as "path\n" lines, without those served from memory.
char *dependency_list(const AllFiles &files, const weft_source_file *main,
                      const weft_source_file *headers, unsigned num_headers) {
  std::string out;
  for (const std::string &path : files.getDependencies()) {
    bool in_memory = path == main->name;
    for (unsigned i = 0; i < num_headers; i++)
      in_memory |= path == headers[i].name || path == header_path(headers[i].name);
    if (in_memory) continue;
    out += path;
    out += '\n';
  }
  return copy_string(out);
}

}  // namespace

extern "C" int weft__frontend_compile(LLVMContextRef context,
                                      const weft_source_file *main,
                                      const weft_source_file *headers,
                                      unsigned num_headers,
                                      const char *const *args, int num_args,
                                      LLVMModuleRef *out, char **log,
                                      char **deps) {
  std::string log_text;
  llvm::raw_string_ostream log_stream(log_text);
  *out = nullptr;
  if (deps) *deps = nullptr;

  // Diagnostics go to the build log as plain text with columns and carets.
  auto diag_options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  diag_options->ShowColors = false;
  diag_options->ShowColumn = true;
  diag_options->ShowCarets = true;
  // Locations follow #line directives, as the source line shown does.
  diag_options->ShowPresumedLoc = true;
  auto *printer = new clang::TextDiagnosticPrinter(log_stream, &*diag_options);

  auto compiler = std::make_unique<clang::CompilerInstance>();
  compiler->createDiagnostics(printer, /*ShouldOwnClient=*/true);
  // "N errors generated." goes to the log too, not to stderr.
  compiler->setVerboseOutputStream(log_stream);

  std::vector<const char *> argv(args, args + num_args);
  bool ok = clang::CompilerInvocation::CreateFromArgs(
      compiler->getInvocation(), argv, compiler->getDiagnostics());
  if (ok) {
    // The invocation replaced the diagnostic options: keep ours, and apply
    // its -W options (-w, -Werror, -Wno-...) to the engine made before it.
    compiler->getDiagnosticOpts().ShowColors = false;
    clang::ProcessWarningOptions(compiler->getDiagnostics(),
                                 compiler->getDiagnosticOpts(),
                                 /*ReportDiags=*/false);
    // The source and the embedded headers come from memory; a quoted
    // #include "name" finds a header beside the source.
    auto &preprocessor = compiler->getPreprocessorOpts();
    for (unsigned i = 0; i <= num_headers; i++) {
      const weft_source_file &f = i ? headers[i - 1] : *main;
      auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(f.text, f.length), f.name);
      preprocessor.addRemappedFile(i ? header_path(f.name) : f.name,
                                   buffer.release());
    }
    auto files = std::make_shared<AllFiles>();
    compiler->addDependencyCollector(files);
    clang::EmitLLVMOnlyAction action(llvm::unwrap(context));
    ok = compiler->ExecuteAction(action);
    if (ok && deps)
      *deps = dependency_list(*files, main, headers, num_headers);
    if (ok) {
      std::unique_ptr<llvm::Module> module = action.takeModule();
      ok = module != nullptr;
      if (ok) *out = llvm::wrap(module.release());
    }
  }
  log_stream.flush();
  *log = copy_string(log_text);
  return ok ? 0 : -1;
}
