/* cuda_program.c: building programs for a CUDA GPU (see cuda_device.h):
 * the JIT makes PTX for the GPU's architecture (jit/ptx/ptx.c), and the
 * driver loads it as a module, compiling it to the GPU's code (the
 * driver keeps that code in its own cache, so a rebuild of the same PTX
 * is quick). Program binaries are the JIT's nvptx64 bitcode. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/common/sync_options.h"
#include "backend/cuda/cuda_device.h"
#include "jit/front/compile.h"
#include "jit/jit.h"
#include "weft/weft.h"

/* The GPU's default cl_weft_sync algorithms, from `weft bench sync
 * --device cuda` beside bench/cuda/bench_cuda_sync.cu's references on an
 * H100 (README): the native mutex and barriers (the defaults anyway) and
 * the sleeping semaphore, 0.98x to 1.41x the better of libcu++'s
 * counting_semaphore and the paper's queue-form sleeping semaphore from 1
 * to 120 units; the native one, faster at 10 units and fewer, fell to
 * 0.29x at 120 units and 264 groups. A program's own choice wins
 * (backend/common/sync_options.h). */
static const char gpu_sync_defaults[] =
    " -DWEFT_SEMAPHORE_IMPL=WEFT_SEMAPHORE_SLEEPING";

/* Whether the PTX declares the global called name (".b8 name[..."): the
 * JIT keeps only the globals the kernels use. Asking the driver for one
 * that is not there would fail, and compute-sanitizer reports each such
 * failure as an error. */
static int declares(const char *ptx, const char *name) {
  size_t n = strlen(name);
  for (const char *at = ptx; (at = strstr(at, name)); at += n)
    if (at[n] == '[' && at > ptx && at[-1] == ' ') return 1;
  return 0;
}

/* The global called name, or 0 where the kernels use none. */
static CUdeviceptr module_global(const weft_cuda_api *api, CUmodule module,
                                 const char *ptx, const char *name,
                                 size_t *size) {
  CUdeviceptr p = 0;
  size_t bytes = 0;
  if (!declares(ptx, name) ||
      api->cuModuleGetGlobal(&p, &bytes, module, name) != CUDA_SUCCESS)
    return 0;
  if (size) *size = bytes;
  return p;
}

/* "error: TEXT" as a line of the build log. */
static void log_error(char **log, const char *text) {
  weft__log_append(log, "error: ");
  weft__log_append(log, text);
  weft__log_append(log, "\n");
}

/* Loads the PTX; the driver's error log joins the build log. */
static int load_module(cuda_device *gpu, const char *ptx, CUmodule *module,
                       char **log) {
  char errors[4096] = "";
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errors, (void *)(size_t)sizeof errors};
  CUresult r = gpu->api->cuModuleLoadDataEx(module, ptx, 2, options, values);
  if (r == CUDA_SUCCESS) return 0;
  weft_msg msg;
  int rc = weft__cuda_fail(gpu, r, "loading the PTX", WEFT_EBUILD, &msg);
  log_error(log, msg.text);
  weft__log_append(log, errors);
  return rc == WEFT_ENOMEM ? rc : WEFT_EBUILD;
}

/* The module's kernels and the globals its PTX declares, into the binary. */
static int bind(cuda_device *gpu, CUmodule module, const char *ptx,
                weft_binary *binary, char **log) {
  const weft_cuda_api *api = gpu->api;
  cuda_program *p = calloc(1, sizeof *p);
  if (p) p->kernels = calloc(binary->num_kernels + 1, sizeof *p->kernels);
  if (!p || !p->kernels) {
    free(p);
    api->cuModuleUnload(module);
    return WEFT_ENOMEM;
  }
  p->module = module;
  binary->impl = p;
  for (unsigned i = 0; i < binary->num_kernels; i++) {
    CUresult r = api->cuModuleGetFunction(&p->kernels[i].function, module,
                                          binary->kernels[i].name);
    if (r != CUDA_SUCCESS) {
      weft_msg msg;
      weft__cuda_fail(gpu, r, "finding a kernel in the module", WEFT_EBUILD,
                      &msg);
      weft__log_append(log, msg.text);
      return WEFT_EBUILD;
    }
  }
  /* A kernel's own __local variables are its static shared memory; core/
   * places __local arguments after them (cuda_launch.c moves them to the
   * start of the dynamic part). Its registers bound its block size. */
  for (unsigned i = 0; i < binary->num_kernels; i++) {
    int bytes = 0;
    api->cuFuncGetAttribute(&bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                            p->kernels[i].function);
    binary->kernels[i].local_mem_size = bytes > 0 ? (size_t)bytes : 0;
    api->cuFuncGetAttribute(&p->kernels[i].max_threads,
                            CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                            p->kernels[i].function);
  }
  p->launch_block =
      module_global(api, module, ptx, WEFT_PTX_LAUNCH_BLOCK, NULL);
  p->launch_words =
      module_global(api, module, ptx, WEFT_PTX_LAUNCH_WORDS, NULL);
  p->constant_bank = module_global(api, module, ptx, WEFT_PTX_CONSTANT_BANK,
                                   &p->constant_bank_size);
  p->coop_state = module_global(api, module, ptx, WEFT_PTX_COOP_STATE, NULL);
  if (declares(ptx, WEFT_PTX_WATCHDOG))
    p->watchdog = weft__cuda_watchdog_arm(gpu, module);
  return 0;
}

/* The GPU's context for loading a module (made at the device's first
 * use): 0, or a status with the driver's words in the build log. */
static int enter(cuda_device *gpu, char **log) {
  weft_msg msg = {{0}};
  int rc = weft__cuda_enter(gpu, &msg);
  if (!rc) return 0;
  log_error(log, msg.text);
  return rc == WEFT_ENOMEM ? rc : WEFT_EBUILD;
}

/* From the JIT's result to a loaded binary. */
static int finish(weft_backend_device *device, int rc, weft_binary *binary,
                  char *ptx, weft_binary **out, char **log) {
  cuda_device *gpu = weft__cuda_of(device);
  CUmodule module = NULL;
  if (!rc) rc = enter(gpu, log);
  if (!rc) rc = load_module(gpu, ptx, &module, log);
  if (!rc) rc = bind(gpu, module, ptx, binary, log);
  free(ptx);
  if (rc) {
    weft__cuda_binary_free(device, binary);
    return rc;
  }
  *out = binary;
  return 0;
}

int weft__cuda_build(weft_backend_device *device, const char *source,
                     size_t length, const char *options, weft_binary **out,
                     char **log) {
  cuda_device *gpu = weft__cuda_of(device);
  char *all = weft__sync_options_apply(gpu_sync_defaults, options);
  if (!all) return WEFT_ENOMEM;
  weft_binary *binary = NULL;
  char *ptx = NULL;
  const weft_jit *jit = NULL;
  int rc = weft__cuda_jit(gpu->config, &jit, log);
  if (!rc) {
    rc = weft__jit_build_ptx(jit, gpu->sm, source, length, all, &binary, &ptx,
                             log);
  }
  free(all);
  return finish(device, rc, binary, ptx, out, log);
}

int weft__cuda_compile(weft_backend_device *device, const char *source,
                       size_t length, const char *options,
                       const weft_jit_header *headers, unsigned num_headers,
                       void **ir, size_t *size, char **log) {
  cuda_device *gpu = weft__cuda_of(device);
  char *all = weft__sync_options_apply(gpu_sync_defaults, options);
  if (!all) return WEFT_ENOMEM;
  const weft_jit *jit = NULL;
  int rc = weft__cuda_jit(gpu->config, &jit, log);
  if (!rc) {
    rc = weft__jit_compile(jit, gpu->sm, source, length, all, headers,
                           num_headers, ir, size, log);
  }
  free(all);
  return rc;
}

int weft__cuda_link(weft_backend_device *device, const void *const *irs,
                    const size_t *sizes, unsigned count, void **ir,
                    size_t *size, char **log) {
  (void)device;
  return weft__jit_link(irs, sizes, count, ir, size, log);
}

int weft__cuda_build_ir(weft_backend_device *device, const void *ir,
                        size_t size, const char *options, weft_binary **out,
                        char **log) {
  cuda_device *gpu = weft__cuda_of(device);
  weft_binary *binary = NULL;
  char *ptx = NULL;
  const weft_jit *jit = NULL;
  int rc = weft__cuda_jit(gpu->config, &jit, log);
  if (!rc) {
    rc = weft__jit_build_ptx_bitcode(jit, gpu->sm, ir, size, options, &binary,
                                     &ptx, log);
  }
  return finish(device, rc, binary, ptx, out, log);
}

int weft__cuda_check_ir(weft_backend_device *device, const void *ir,
                        size_t size) {
  return weft__jit_check_bitcode(weft__cuda_of(device)->sm, ir, size);
}

void weft__cuda_binary_free(weft_backend_device *device, weft_binary *binary) {
  if (!binary) return;
  cuda_program *p = binary->impl;
  if (p) {
    cuda_device *gpu = weft__cuda_of(device);
    if (!weft__cuda_enter(gpu, NULL)) {
      if (p->coop_records) gpu->api->cuMemFree(p->coop_records);
      gpu->api->cuModuleUnload(p->module);
    }
    free(p->kernels);
    free(p);
    binary->impl = NULL;
  }
  weft__jit_binary_free(binary);
}
