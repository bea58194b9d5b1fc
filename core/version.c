/* version.c: weft_version(): the release, the source revision (made at
 * each build by cmake/revision.cmake) and the LLVM Weft compiles with. */
#include "weft/weft.h"
#include "weft_revision.h"

const char *weft_version(void) {
  return WEFT_VERSION_STRING " (" WEFT_REVISION ", LLVM " WEFT_LLVM_VERSION
                             ")";
}
