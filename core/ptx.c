/* ptx.c: weft_compile_ptx (weft.h), OpenCL C to PTX without a GPU. */
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"
#include "weft/weft.h"

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
  rc = weft__jit_build_ptx(sm, source, length ? length : strlen(source),
                           options, &binary, ptx, log);
  weft__jit_binary_free(binary);
  return rc;
}
