/* ptx.c: weft_compile_ptx (weft.h), OpenCL C to PTX without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "core/build_stack.h"
#include "jit/jit.h"
#include "weft/weft.h"

/* weft__jit_build_ptx's arguments, for a stack of Weft's own. */
typedef struct ptx_call {
  unsigned sm;
  const char *source, *options;
  size_t length;
  weft_binary **binary;
  char **ptx, **log;
} ptx_call;

static int build_ptx(void *arg) {
  ptx_call *c = arg;
  return weft__jit_build_ptx(c->sm, c->source, c->length, c->options,
                             c->binary, c->ptx, c->log);
}

int weft_compile_ptx(const char *source, size_t length, const char *options,
                     unsigned sm, char **ptx, char **log) {
  if (!ptx || !log) return WEFT_EINVAL;
  *ptx = NULL;
  *log = NULL;
  if (!source || sm < 70) {
    *log = strdup(source ? "error: Weft makes PTX for sm_70 and newer\n"
                         : "error: no source\n");
    return WEFT_EINVAL;
  }
  /* The devices start the JIT. */
  int rc = weft_device_count();
  if (rc < 0) return rc;
  weft_binary *binary = NULL;
  ptx_call c = {sm, source, options, length ? length : strlen(source),
                &binary, ptx, log};
  rc = weft__on_build_stack(build_ptx, &c);
  weft__jit_binary_free(binary);
  return rc;
}
