/* cache_binary.c: binaries over the kernel cache's entries (see
 * cache_binary.h): a fresh build's output kept, a kept one served, and a
 * binary freed with its reference. */
#include "jit/cache/cache_binary.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>

#include "jit/cache/binary_io.h"
#include "jit/front/compile.h"
#include "jit/ir/kernel_info.h"
#include "jit/jit.h"
#include "weft/weft.h"

/* The kernels' entry points in loaded code: prefix.kernel_name. */
static int find_entries(weft_binary *binary, const char *prefix, char **error) {
  for (unsigned i = 0; i < binary->num_kernels; i++) {
    char *name = NULL;
    if (asprintf(&name, "%s.%s", prefix, binary->kernels[i].name) < 0)
      return WEFT_ENOMEM;
    weft_cached *c = binary->cached;
    binary->kernels[i].entry = (weft_wg_fn)weft__orc_lookup(c->code, name, error);
    free(name);
    if (!binary->kernels[i].entry) return WEFT_EBUILD;
  }
  return 0;
}

int weft__jit_binary_from_cache(weft_cached *c, int from, weft_binary **out,
                                char **log) {
  weft_binary *binary = calloc(1, sizeof *binary);
  if (!binary) {
    weft__cache_release(c);
    return WEFT_ENOMEM;
  }
  binary->cached = c;
  binary->from_cache = from;
  char *error = NULL;
  int rc = weft__binary_load(c->descs, c->descs_size, binary);
  /* A GPU's entry has PTX, whose kernels the driver finds. */
  if (!rc && c->code) rc = find_entries(binary, c->prefix, &error);
  if (rc) {
    weft__jit_binary_free(binary);
    weft__log_append(log, error ? error : "error: a cached build is unusable\n");
    free(error);
    return rc;
  }
  weft__log_append(log, c->log);
  *out = binary;
  return 0;
}

int weft__jit_cache_keep(const weft_cache_key *key, weft_cache_kind kind,
                         const char *stamps, const void *object, size_t size,
                         const weft_binary *desc, const char *log,
                         weft_binary **out, char **error) {
  unsigned char *descs = NULL;
  size_t descs_size = 0;
  weft_cached *c = NULL;
  int rc = weft__binary_save(desc, &descs, &descs_size);
  if (!rc)
    rc = weft__cache_add(key, kind, stamps, object, size, descs, descs_size,
                         log, &c, error);
  free(descs);
  if (rc) return rc;
  char *ignored = NULL;
  rc = weft__jit_binary_from_cache(c, 0, out, &ignored);
  free(ignored);
  return rc;
}

void weft__jit_binary_free(weft_binary *binary) {
  if (!binary) return;
  /* A GPU's module (impl) is its back end's to free first. */
  assert(!binary->impl);
  weft__cache_release(binary->cached);
  weft__kernel_descs_free(binary->kernels, binary->num_kernels);
  weft__check_sites_free(binary->check_sites, binary->num_check_sites);
  free(binary->sites);
  free(binary);
}
