/* jit_object.c: what both targets' JIT objects do (jit_object.h). */
#include "jit/jit_object.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cache/cache.h"

struct weft_jit *weft__jit_object_new(weft_jit_target target,
                                      const char *dump_dir,
                                      const char *cache_dir,
                                      unsigned cache_kept) {
  struct weft_jit *jit = calloc(1, sizeof *jit);
  if (!jit) return NULL;
  jit->target = target;
  if (dump_dir && !(jit->dump_dir = strdup(dump_dir))) {
    free(jit);
    return NULL;
  }
  weft__cache_set_dir(cache_dir);
  weft__cache_set_kept(cache_kept);
  return jit;
}

int weft__jit_parse_options(const struct weft_jit *jit, const char *options,
                            weft_build_options *o, char **error) {
  int rc = weft__options_parse(options, o, error);
  if (!rc && (o->assertions || o->check || jit->codegen.check ||
              jit->codegen.schedule_points))
    rc = weft__options_define_assert(o);
  return rc;
}

void weft__jit_dump_module(const struct weft_jit *jit, LLVMModuleRef module) {
  static atomic_uint serial;
  char *path = NULL, *message = NULL;
  if (!jit->dump_dir || asprintf(&path, "%s/program-%u.ll", jit->dump_dir,
                                 atomic_fetch_add(&serial, 1)) < 0)
    return;
  if (LLVMPrintModuleToFile(module, path, &message)) {
    fprintf(stderr, "weft: cannot write %s: %s\n", path, message);
    LLVMDisposeMessage(message);
  }
  free(path);
}
