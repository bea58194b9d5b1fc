/* ptx.c: weft_compile_ptx (weft.h), OpenCL C to PTX without a GPU: the
 * arguments checked, then the build of the back end that makes PTX
 * (backend/backends.h's compile_ptx), run as device builds are
 * (core/build_stack.h). */
#include <stdlib.h>
#include <string.h>

#include "core/build_stack.h"
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
  /* The back end's JIT makes it (no device, no driver), on a stack
   * of Weft's own, within the build limits, a crash of the compiler
   * caught: as device builds are. */
  return weft__ptx_build(sm, source, length ? length : strlen(source),
                         options, ptx, log);
}
