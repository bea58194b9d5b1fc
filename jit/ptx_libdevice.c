/* ptx_libdevice.c: libdevice, the CUDA toolkit's math library in LLVM
 * bitcode, linked into GPU programs that call it (see ptx.h). It is read
 * from disk once per process; each build parses it lazily, so only the
 * functions in use are materialized. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "jit/ptx.h"
#include "weft/weft.h"

#define LIBDEVICE_FILE "libdevice.10.bc"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char *bytes;        /* the file, or NULL where none was found */
static size_t num_bytes;
static char where[1024];   /* the file's path, or the places looked at */

static int read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char *data = NULL;
  long size = -1;
  if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET))
    data = malloc((size_t)size);
  if (data && fread(data, 1, (size_t)size, f) == (size_t)size) {
    bytes = data;
    num_bytes = (size_t)size;
    snprintf(where, sizeof where, "%s", path);
  } else {
    free(data);
  }
  fclose(f);
  return bytes ? 0 : -1;
}

/* Tries a CUDA installation's folder. */
static int try_root(const char *root) {
  char path[1024];
  if (!root || !*root) return -1;
  snprintf(path, sizeof path, "%s/nvvm/libdevice/" LIBDEVICE_FILE, root);
  return read_file(path);
}

static void find(void) {
  const char *file = getenv("WEFT_LIBDEVICE");
  if (file && *file) {
    if (read_file(file))
      snprintf(where, sizeof where, "WEFT_LIBDEVICE=%s cannot be read", file);
    return;
  }
  if (!try_root(getenv("CUDA_HOME")) || !try_root(getenv("CUDA_PATH")) ||
      !try_root("/usr/local/cuda") ||
      !read_file("/usr/lib/nvidia-cuda-toolkit/libdevice/" LIBDEVICE_FILE))
    return;
  snprintf(where, sizeof where, "no " LIBDEVICE_FILE " in $CUDA_HOME, "
           "$CUDA_PATH, /usr/local/cuda or /usr/lib/nvidia-cuda-toolkit; "
           "install the CUDA toolkit or set WEFT_LIBDEVICE to the file");
}

const char *weft__ptx_libdevice_file(void) {
  pthread_once(&once, find);
  return bytes ? where : NULL;
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
  pthread_once(&once, find);
  if (!bytes) {
    if (asprintf(error, "error: '%s' (math on the GPU) comes from the CUDA "
                        "toolkit's libdevice: %s\n", wanted + 5, where) < 0)
      *error = NULL;
    return WEFT_EBUILD;
  }
  LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(
      bytes, num_bytes, LIBDEVICE_FILE, 0);
  LLVMModuleRef library = NULL;
  /* The lazy reader takes the buffer over (not the bytes). */
  if (LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(module), buffer,
                                     &library)) {
    if (asprintf(error, "error: %s is not bitcode this LLVM reads\n", where) < 0)
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
