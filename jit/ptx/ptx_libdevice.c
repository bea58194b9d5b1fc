/* ptx_libdevice.c: libdevice, the CUDA toolkit's math library in LLVM
 * bitcode, linked into GPU programs that call it (see ptx.h). The GPUs'
 * JIT finds it when it is made (its path is part of every GPU build's
 * cache key, so a build the cache serves reads nothing more); the first
 * build that calls it reads it from disk; each build parses it lazily, so
 * only the functions in use are materialized. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "jit/ptx/ptx.h"
#include "weft/weft.h"

#define LIBDEVICE_FILE "libdevice.10.bc"

/* Takes the file if it can be read. */
static int try_file(weft_libdevice *l, const char *file) {
  if (access(file, R_OK)) return -1;
  snprintf(l->path, sizeof l->path, "%s", file);
  return 0;
}

/* Tries a CUDA installation's folder. */
static int try_root(weft_libdevice *l, const char *root) {
  char file[1024];
  if (!root || !*root) return -1;
  snprintf(file, sizeof file, "%s/nvvm/libdevice/" LIBDEVICE_FILE, root);
  return try_file(l, file);
}

void weft__ptx_libdevice_find(weft_libdevice *l,
                              const weft_jit_ptx_config *config) {
  weft__lock_init(&l->lock, NULL);
  if (config->libdevice) {
    if (try_file(l, config->libdevice))
      snprintf(l->why, sizeof l->why, "WEFT_LIBDEVICE=%s cannot be read",
               config->libdevice);
    return;
  }
  if (!try_root(l, config->cuda_home) || !try_root(l, config->cuda_path) ||
      !try_root(l, "/usr/local/cuda") ||
      !try_file(l, "/usr/lib/nvidia-cuda-toolkit/libdevice/" LIBDEVICE_FILE))
    return;
  snprintf(l->why, sizeof l->why, "no " LIBDEVICE_FILE " in $CUDA_HOME, "
           "$CUDA_PATH, /usr/local/cuda or /usr/lib/nvidia-cuda-toolkit; "
           "install the CUDA toolkit or set WEFT_LIBDEVICE to the file");
}

/* Reads the file found, the first time a build needs it (lock held). */
static void read_file(weft_libdevice *l) {
  assert(weft__lock_held(&l->lock));
  l->read = 1;
  if (!*l->path) return;
  FILE *f = fopen(l->path, "rb");
  char *data = NULL;
  long size = -1;
  if (f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 &&
      !fseek(f, 0, SEEK_SET))
    data = malloc((size_t)size);
  if (data && fread(data, 1, (size_t)size, f) == (size_t)size) {
    l->bytes = data;
    l->size = (size_t)size;
  } else {
    free(data);
    snprintf(l->why, sizeof l->why, "%s cannot be read", l->path);
  }
  if (f) fclose(f);
}

/* The file's bytes, read once (NULL: l->why says why). */
static const char *file_bytes(weft_libdevice *l) {
  weft__lock(&l->lock);
  if (!l->read) read_file(l);
  weft__unlock(&l->lock);
  return l->bytes;
}

/* The first function module declares from libdevice, or NULL. */
static const char *first_libdevice_call(LLVMModuleRef module) {
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f))
    if (LLVMIsDeclaration(f) && !strncmp(LLVMGetValueName(f), "__nv_", 5))
      return LLVMGetValueName(f);
  return NULL;
}

/* Definitions become link-once, so the linker copies only those the
 * module calls. */
static void make_link_once(LLVMModuleRef library) {
  for (LLVMValueRef f = LLVMGetFirstFunction(library); f;
       f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
}

int weft__ptx_libdevice_link(weft_libdevice *l, LLVMModuleRef module,
                             char **error) {
  const char *wanted = first_libdevice_call(module);
  if (!wanted) return 0;
  const char *bytes = file_bytes(l);
  if (!bytes) {
    if (asprintf(error, "error: '%s' (math on the GPU) comes from the CUDA "
                        "toolkit's libdevice: %s\n", wanted + 5, l->why) < 0)
      *error = NULL;
    return WEFT_EBUILD;
  }
  LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(
      bytes, l->size, LIBDEVICE_FILE, 0);
  LLVMModuleRef library = NULL;
  /* The lazy reader takes the buffer over (not the bytes). */
  if (LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(module), buffer,
                                     &library)) {
    if (asprintf(error, "error: %s is not bitcode this LLVM reads\n",
                 l->path) < 0)
      *error = NULL;
    return WEFT_EBUILD;
  }
  make_link_once(library);
  /* libdevice's triple is nvptx64-nvidia-gpulibs; the module's wins. */
  LLVMSetTarget(library, LLVMGetTarget(module));
  LLVMSetDataLayout(library, LLVMGetDataLayoutStr(module));
  if (LLVMLinkModules2(module, library)) {
    *error = strdup("internal error: linking libdevice failed\n");
    return WEFT_EBUILD;
  }
  return 0;
}
