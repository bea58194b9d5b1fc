/* separate.c: separate compilation and linking (jit.h's weft__jit_compile
 * and weft__jit_link): OpenCL C source to LLVM bitcode for either target,
 * and units linked into one module. What remains of a build runs later,
 * from the bitcode (weft__jit_build_bitcode, weft__jit_build_ptx_bitcode). */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Linker.h>

#include "jit/front/compile.h"
#include "jit/ir/build_state.h"
#include "jit/ir/target.h"
#include "jit/jit.h"
#include "jit/jit_object.h"
#include "weft/weft.h"

/* Parses options (with jit's, if any: weft__jit_parse_options) and makes
 * the LLVM objects of s. */
static int start(weft_build_state *s, const weft_jit *jit,
                 const char *options) {
  int rc = jit ? weft__jit_parse_options(jit, options, &s->options, &s->error)
               : weft__options_parse(options, &s->options, &s->error);
  return rc ? rc
            : weft__build_state_start(s, weft__target_machine_create(),
                                      "code for this CPU");
}

int weft__jit_compile(const weft_jit *jit, unsigned sm, const char *source,
                      size_t length, const char *options,
                      const weft_jit_header *headers, unsigned num_headers,
                      void **bitcode, size_t *size, char **log) {
  /* sm 0 is the CPU's, any other the GPUs'. */
  assert((sm == 0) == (jit->target == WEFT_JIT_CPU));
  weft_build_state s = {0};
  *bitcode = NULL;
  *log = NULL;
  int rc = start(&s, jit, options);
  weft_source_file file = {WEFT_SOURCE_NAME, source, length};
  weft_source_file *files = calloc(num_headers + 1, sizeof *files);
  if (!rc && !files) rc = WEFT_ENOMEM;
  for (unsigned i = 0; !rc && i < num_headers; i++)
    files[i] = (weft_source_file){headers[i].name, headers[i].source,
                                  strlen(headers[i].source)};
  if (!rc)
    rc = weft__compile_source(s.context, sm, &s.options, &file, files,
                              num_headers,
                              &s.module, log, NULL);
  free(files);
  if (!rc) rc = weft__module_to_bitcode(s.module, bitcode, size);
  return weft__build_state_end(&s, rc, log);
}

int weft__jit_link(const void *const *bitcodes, const size_t *sizes,
                   unsigned count, void **bitcode, size_t *size, char **log) {
  weft_build_state s = {0};
  *bitcode = NULL;
  *log = NULL;
  int rc = start(&s, NULL, NULL);
  for (unsigned i = 0; !rc && i < count; i++) {
    LLVMModuleRef m = NULL;
    rc = weft__module_from_bitcode(s.context, bitcodes[i], sizes[i], &m, log);
    if (rc) break;
    if (!s.module) s.module = m;
    else if (LLVMLinkModules2(s.module, m)) rc = WEFT_EBUILD; /* m is gone */
  }
  if (!rc && !s.module) rc = WEFT_EINVAL;
  if (!rc) rc = weft__module_to_bitcode(s.module, bitcode, size);
  return weft__build_state_end(&s, rc, log);
}
