/* cuda_jit.c: the CUDA back end's JIT, which makes PTX for NVIDIA GPUs of
 * any architecture. The process has one, made with the configuration at
 * the first build that needs it: a GPU's, or weft_compile_ptx's, which
 * needs no GPU and so no driver (backends.h's compile_ptx). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_device.h"
#include "base/lock.h"
#include "weft/weft.h"

static weft_lock jit_lock = WEFT_LOCK_INITIALIZER;
static weft_jit *jit;

int weft__cuda_jit(const weft_config *config, const weft_jit **out,
                   char **log) {
  weft__lock(&jit_lock);
  int rc = 0;
  if (!jit) {
    weft_jit_ptx_config c = {config->dump_ir,   config->cache_dir,
                             config->cache_kept, config->libdevice,
                             config->cuda_home, config->cuda_path};
    char *error = NULL;
    rc = weft__jit_ptx_create(&c, &jit, &error);
    if (rc && asprintf(log, "error: %s\n",
                       error ? error : "out of memory") < 0)
      *log = NULL;
    free(error);
  }
  *out = jit;
  weft__unlock(&jit_lock);
  return rc;
}

int weft__cuda_compile_ptx(const weft_config *config, unsigned sm,
                           const char *source, size_t length,
                           const char *options, char **ptx, char **log) {
  const weft_jit *gpus = NULL;
  *ptx = NULL;
  *log = NULL;
  int rc = weft__cuda_jit(config, &gpus, log);
  if (rc) return rc;
  weft_binary *binary = NULL;
  rc = weft__jit_build_ptx(gpus, sm, source, length, options, &binary, ptx,
                           log);
  /* Only the text is wanted: no GPU holds the binary. */
  weft__jit_binary_free(binary);
  return rc;
}
