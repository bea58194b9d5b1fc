/* cuda_api.c: loading the CUDA driver at run time (cuda_api.h). */
#include "backend/cuda/cuda_api.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Each function's exported name and its place in the table. */
#define ENTRY(field, symbol) {symbol, offsetof(weft_cuda_api, field)}
static const struct entry {
  const char *symbol;
  size_t offset;
} entries[] = {
    ENTRY(cuInit, "cuInit"),
    ENTRY(cuDriverGetVersion, "cuDriverGetVersion"),
    ENTRY(cuGetErrorName, "cuGetErrorName"),
    ENTRY(cuGetErrorString, "cuGetErrorString"),
    ENTRY(cuDeviceGetCount, "cuDeviceGetCount"),
    ENTRY(cuDeviceGet, "cuDeviceGet"),
    ENTRY(cuDeviceGetName, "cuDeviceGetName"),
    ENTRY(cuDeviceGetAttribute, "cuDeviceGetAttribute"),
    ENTRY(cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
    ENTRY(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    ENTRY(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
    ENTRY(cuCtxSetCurrent, "cuCtxSetCurrent"),
    ENTRY(cuStreamCreate, "cuStreamCreate"),
    ENTRY(cuStreamSynchronize, "cuStreamSynchronize"),
    ENTRY(cuMemAlloc, "cuMemAlloc_v2"),
    ENTRY(cuMemFree, "cuMemFree_v2"),
    ENTRY(cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
    ENTRY(cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
    ENTRY(cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
    ENTRY(cuMemsetD8, "cuMemsetD8_v2"),
    ENTRY(cuMemsetD16, "cuMemsetD16_v2"),
    ENTRY(cuMemsetD32, "cuMemsetD32_v2"),
    ENTRY(cuMemAllocManaged, "cuMemAllocManaged"),
    ENTRY(cuMemGetAddressRange, "cuMemGetAddressRange_v2"),
    ENTRY(cuMemHostRegister, "cuMemHostRegister_v2"),
    ENTRY(cuMemHostUnregister, "cuMemHostUnregister"),
    ENTRY(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
    ENTRY(cuModuleLoadDataEx, "cuModuleLoadDataEx"),
    ENTRY(cuModuleUnload, "cuModuleUnload"),
    ENTRY(cuModuleGetFunction, "cuModuleGetFunction"),
    ENTRY(cuModuleGetGlobal, "cuModuleGetGlobal_v2"),
    ENTRY(cuFuncGetAttribute, "cuFuncGetAttribute"),
    ENTRY(cuFuncSetAttribute, "cuFuncSetAttribute"),
    ENTRY(cuLaunchKernel, "cuLaunchKernel"),
    ENTRY(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel"),
    ENTRY(cuOccupancyMaxActiveBlocksPerMultiprocessor,
          "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
    ENTRY(cuTexObjectCreate, "cuTexObjectCreate"),
    ENTRY(cuTexObjectDestroy, "cuTexObjectDestroy"),
    ENTRY(cuArray3DCreate, "cuArray3DCreate_v2"),
    ENTRY(cuArrayDestroy, "cuArrayDestroy"),
    ENTRY(cuMemcpy3D, "cuMemcpy3D_v2"),
};

/* Fills the table from the library: 0, or -1 naming the missing one. */
static int resolve(weft_cuda_api *api, char *why, size_t size) {
  for (size_t i = 0; i < sizeof entries / sizeof *entries; i++) {
    void *f = dlsym(api->library, entries[i].symbol);
    if (!f) {
      snprintf(why, size, "the CUDA driver lacks %s (too old a driver?)",
               entries[i].symbol);
      return -1;
    }
    /* POSIX guarantees a data pointer from dlsym converts to a function's. */
    memcpy((char *)api + entries[i].offset, &f, sizeof f);
  }
  return 0;
}

int weft__cuda_load(weft_cuda_api *api, const char *path, char *why,
                    size_t size) {
  memset(api, 0, sizeof *api);
  if (!path) path = "libcuda.so.1";
  api->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!api->library) {
    const char *e = dlerror();
    snprintf(why, size, "no CUDA driver: %s", e ? e : path);
    return -1;
  }
  if (resolve(api, why, size)) {
    weft__cuda_unload(api);
    return -1;
  }
  CUresult rc = api->cuInit(0);
  if (rc != CUDA_SUCCESS) {
    weft__cuda_describe(api, rc, "the CUDA driver is there but cuInit failed",
                        why, size);
    weft__cuda_unload(api);
    return -1;
  }
  api->cuDriverGetVersion(&api->driver_version);
  return 0;
}

void weft__cuda_unload(weft_cuda_api *api) {
  if (api->library) dlclose(api->library);
  memset(api, 0, sizeof *api);
}

void weft__cuda_describe(const weft_cuda_api *api, CUresult rc,
                         const char *what, char *out, size_t size) {
  const char *name = NULL, *text = NULL;
  if (api->cuGetErrorName) api->cuGetErrorName(rc, &name);
  if (api->cuGetErrorString) api->cuGetErrorString(rc, &text);
  if (name)
    snprintf(out, size, "%s: %s (%s)", what, name, text ? text : "no text");
  else
    snprintf(out, size, "%s: CUDA error %d", what, rc);
}
