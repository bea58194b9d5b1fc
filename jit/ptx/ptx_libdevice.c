/* ptx_libdevice.c: libdevice, the CUDA toolkit's math library in LLVM
 * bitcode, linked into GPU programs that call it (see ptx.h). It is found
 * once per process (its path is part of every GPU build's cache key, so a
 * build the cache serves reads nothing more) and read from disk once, by
 * the first build that calls it; each build parses it lazily, so only the
 * functions in use are materialized. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "base/config.h"
#include "jit/ptx/ptx.h"
#include "weft/weft.h"

#define LIBDEVICE_FILE "libdevice.10.bc"

static pthread_once_t located = PTHREAD_ONCE_INIT, loaded = PTHREAD_ONCE_INIT;
static char path[1024];    /* the file found, or "" */
static char why[1200];     /* why there is none, or why it was not read */
static char *bytes;        /* the file, once read; NULL where it was not */
static size_t num_bytes;

/* Takes the file if it can be read. */
static int try_file(const char *file) {
  if (access(file, R_OK)) return -1;
  snprintf(path, sizeof path, "%s", file);
  return 0;
}

/* Tries a CUDA installation's folder. */
static int try_root(const char *root) {
  char file[1024];
  if (!root || !*root) return -1;
  snprintf(file, sizeof file, "%s/nvvm/libdevice/" LIBDEVICE_FILE, root);
  return try_file(file);
}

static void locate(void) {
  const weft_config *c = weft__config();
  if (c->libdevice) {
    if (try_file(c->libdevice))
      snprintf(why, sizeof why, "WEFT_LIBDEVICE=%s cannot be read",
               c->libdevice);
    return;
  }
  if (!try_root(c->cuda_home) || !try_root(c->cuda_path) ||
      !try_root("/usr/local/cuda") ||
      !try_file("/usr/lib/nvidia-cuda-toolkit/libdevice/" LIBDEVICE_FILE))
    return;
  snprintf(why, sizeof why, "no " LIBDEVICE_FILE " in $CUDA_HOME, "
           "$CUDA_PATH, /usr/local/cuda or /usr/lib/nvidia-cuda-toolkit; "
           "install the CUDA toolkit or set WEFT_LIBDEVICE to the file");
}

static void load(void) {
  pthread_once(&located, locate);
  if (!*path) return;
  FILE *f = fopen(path, "rb");
  char *data = NULL;
  long size = -1;
  if (f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 &&
      !fseek(f, 0, SEEK_SET))
    data = malloc((size_t)size);
  if (data && fread(data, 1, (size_t)size, f) == (size_t)size) {
    bytes = data;
    num_bytes = (size_t)size;
  } else {
    free(data);
    snprintf(why, sizeof why, "%s cannot be read", path);
  }
  if (f) fclose(f);
}

const char *weft__ptx_libdevice_file(void) {
  pthread_once(&located, locate);
  return *path ? path : NULL;
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

int weft__ptx_libdevice_link(LLVMModuleRef module, char **error) {
  const char *wanted = first_libdevice_call(module);
  if (!wanted) return 0;
  pthread_once(&loaded, load);
  if (!bytes) {
    if (asprintf(error, "error: '%s' (math on the GPU) comes from the CUDA "
                        "toolkit's libdevice: %s\n", wanted + 5, why) < 0)
      *error = NULL;
    return WEFT_EBUILD;
  }
  LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(
      bytes, num_bytes, LIBDEVICE_FILE, 0);
  LLVMModuleRef library = NULL;
  /* The lazy reader takes the buffer over (not the bytes). */
  if (LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(module), buffer,
                                     &library)) {
    if (asprintf(error, "error: %s is not bitcode this LLVM reads\n", path) < 0)
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
