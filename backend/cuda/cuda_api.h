/*
 * cuda_api.h: the part of NVIDIA's CUDA driver API that Weft uses, loaded
 * at run time from libcuda.so.1 with dlopen, so that Weft neither links
 * against CUDA nor needs its headers to build: a machine without the
 * driver simply has no CUDA device, and weft__cuda_load says why.
 *
 * The types and constants below are those of the driver's cuda.h (the
 * values are part of its ABI); tests/cuda/check_cuda_api.sh checks them
 * against cuda.h where the toolkit is installed.
 */
#ifndef WEFT_BACKEND_CUDA_API_H
#define WEFT_BACKEND_CUDA_API_H

#include <stddef.h>

#include "base/config.h"

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUtexObject;
typedef struct CUarray_st *CUarray;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NO_DEVICE 100
/* The errors of a kernel that faulted, which spoil the context. */
#define CUDA_ERROR_ILLEGAL_ADDRESS 700
#define CUDA_ERROR_ASSERT 710
#define CUDA_ERROR_ILLEGAL_INSTRUCTION 715
#define CUDA_ERROR_MISALIGNED_ADDRESS 716
#define CUDA_ERROR_INVALID_ADDRESS_SPACE 717
#define CUDA_ERROR_INVALID_PC 718
#define CUDA_ERROR_LAUNCH_FAILED 719

/* cuFuncGetAttribute, cuFuncSetAttribute (CUfunction_attribute) */
#define CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK 0
#define CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES 1
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8

/* cuMemHostRegister */
#define CU_MEMHOSTREGISTER_PORTABLE 1
#define CU_MEMHOSTREGISTER_DEVICEMAP 2

/* cuMemAllocManaged */
#define CU_MEM_ATTACH_GLOBAL 1

/* cuStreamCreate flags: a stream that does not wait for, nor hold up, the
 * legacy default stream (a cooperative kernel's pool runs on one, so that
 * other launches and copies go on beside it). */
#define CU_STREAM_NON_BLOCKING 1

/* cuDeviceGetAttribute */
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK 1
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK 8
#define CU_DEVICE_ATTRIBUTE_WARP_SIZE 10
#define CU_DEVICE_ATTRIBUTE_CLOCK_RATE 13
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE 38
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR 39
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH 95
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
#define CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X 2
#define CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y 3
#define CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z 4
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X 5
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y 6
#define CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z 7
#define CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY 83

#define CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT 14
#define CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT 51
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH 69
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH 70
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT 71
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH 72
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH 24
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT 25
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH 26
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH 27
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT 28
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS 29
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH 42
#define CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS 43
/* Texture objects (cuTexObjectCreate): CUarray_format, CUresourcetype,
 * CUaddress_mode, CUfilter_mode and the CU_TRSF_* flags. */
#define CU_AD_FORMAT_UNSIGNED_INT8 1
#define CU_AD_FORMAT_UNSIGNED_INT16 2
#define CU_AD_FORMAT_UNSIGNED_INT32 3
#define CU_AD_FORMAT_SIGNED_INT8 8
#define CU_AD_FORMAT_SIGNED_INT16 9
#define CU_AD_FORMAT_SIGNED_INT32 10
#define CU_AD_FORMAT_HALF 16
#define CU_AD_FORMAT_FLOAT 32
#define CU_RESOURCE_TYPE_ARRAY 0
#define CU_RESOURCE_TYPE_LINEAR 2
#define CU_RESOURCE_TYPE_PITCH2D 3
#define CU_TR_ADDRESS_MODE_WRAP 0
#define CU_TR_ADDRESS_MODE_CLAMP 1
#define CU_TR_ADDRESS_MODE_MIRROR 2
#define CU_TR_ADDRESS_MODE_BORDER 3
#define CU_TR_FILTER_MODE_POINT 0
#define CU_TR_FILTER_MODE_LINEAR 1
#define CU_TRSF_READ_AS_INTEGER 1
#define CU_TRSF_NORMALIZED_COORDINATES 2
/* What a texture reads (cuda.h's CUDA_RESOURCE_DESC, its linear and
 * pitch2D members; tests/cuda/check_cuda_api.sh compares the layouts). */
typedef struct CUDA_RESOURCE_DESC {
  int resType;
  union {
    struct {
      CUarray hArray;
    } array;
    struct {
      CUdeviceptr devPtr;
      int format;
      unsigned numChannels;
      size_t sizeInBytes;
    } linear;
    struct {
      CUdeviceptr devPtr;
      int format;
      unsigned numChannels;
      size_t width, height, pitchInBytes;
    } pitch2D;
    int reserved[32];
  } res;
  unsigned flags;
} CUDA_RESOURCE_DESC;
/* CUDA arrays (cuArray3DCreate) and copies into them (cuMemcpy3D):
 * cuda.h's CUDA_ARRAY3D_DESCRIPTOR and CUDA_MEMCPY3D, CUmemorytype. */
#define CUDA_ARRAY3D_LAYERED 1
#define CU_MEMORYTYPE_DEVICE 2
#define CU_MEMORYTYPE_ARRAY 3
typedef struct CUDA_ARRAY3D_DESCRIPTOR {
  size_t Width, Height, Depth;
  int Format;
  unsigned NumChannels;
  unsigned Flags;
} CUDA_ARRAY3D_DESCRIPTOR;
typedef struct CUDA_MEMCPY3D {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void *reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void *reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
} CUDA_MEMCPY3D;
/* How it reads (cuda.h's CUDA_TEXTURE_DESC). */
typedef struct CUDA_TEXTURE_DESC {
  int addressMode[3];
  int filterMode;
  unsigned flags;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
} CUDA_TEXTURE_DESC;
/* cuModuleLoadDataEx options (CUjit_option) */
#define CU_JIT_INFO_LOG_BUFFER 3
#define CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6

/* The driver's functions, by the names libcuda.so.1 exports (the _v2
 * ones where the API was revised). */
typedef struct weft_cuda_api {
  void *library; /* dlopen's handle */
  int driver_version; /* 12040: CUDA 12.4 */
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDriverGetVersion)(int *version);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value, size_t count);
  CUresult (*cuMemsetD16)(CUdeviceptr dst, unsigned short value,
                          size_t count);
  CUresult (*cuMemsetD32)(CUdeviceptr dst, unsigned value, size_t count);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *pointer, size_t bytes,
                                unsigned flags);
  CUresult (*cuMemGetAddressRange)(CUdeviceptr *base, size_t *bytes,
                                   CUdeviceptr p);
  CUresult (*cuMemHostRegister)(void *p, size_t bytes, unsigned flags);
  CUresult (*cuMemHostUnregister)(void *p);
  CUresult (*cuMemHostGetDevicePointer)(CUdeviceptr *device, void *p,
                                        unsigned flags);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned num_options, int *options,
                                 void **values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *pointer, size_t *bytes,
                                CUmodule module, const char *name);
  CUresult (*cuFuncGetAttribute)(int *value, int attribute, CUfunction f);
  CUresult (*cuFuncSetAttribute)(CUfunction f, int attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned grid_x, unsigned grid_y,
                             unsigned grid_z, unsigned block_x,
                             unsigned block_y, unsigned block_z,
                             unsigned shared_bytes, CUstream stream,
                             void **params, void **extra);
  CUresult (*cuLaunchCooperativeKernel)(CUfunction f, unsigned grid_x,
                                        unsigned grid_y, unsigned grid_z,
                                        unsigned block_x, unsigned block_y,
                                        unsigned block_z,
                                        unsigned shared_bytes,
                                        CUstream stream, void **params);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(
      int *blocks, CUfunction f, int block_size, size_t dynamic_shared);
  CUresult (*cuTexObjectCreate)(CUtexObject *texture,
                                const CUDA_RESOURCE_DESC *resource,
                                const CUDA_TEXTURE_DESC *desc,
                                const void *view);
  CUresult (*cuTexObjectDestroy)(CUtexObject texture);
  CUresult (*cuArray3DCreate)(CUarray *array,
                              const CUDA_ARRAY3D_DESCRIPTOR *desc);
  CUresult (*cuArrayDestroy)(CUarray array);
  CUresult (*cuMemcpy3D)(const CUDA_MEMCPY3D *copy);
} weft_cuda_api;

/* Loads the driver from path (NULL: libcuda.so.1, as the dynamic loader
 * finds it) and initializes it: 0, or -1 with why there is no CUDA device
 * in why (the library is missing, lacks a function, or cuInit failed, say
 * with CUDA_ERROR_NO_DEVICE). */
int weft__cuda_load(weft_cuda_api *api, const char *path, char *why,
                    size_t size);

/* The process's driver, loaded once, by the first of these calls, with
 * config's WEFT_LIBCUDA path (cuda_status.c); NULL where there is none
 * (weft__cuda_status says why). */
const weft_cuda_api *weft__cuda_driver(const weft_config *config);

/* What the driver offers on this machine, or why it offers nothing
 * (weft.h's weft_cuda_status, which core/device.c answers with it). */
const char *weft__cuda_status(const weft_config *config);

/* Unloads what weft__cuda_load loaded. */
void weft__cuda_unload(weft_cuda_api *api);

/* "what: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" in out: a failed
 * call's name and the driver's words for the error. */
void weft__cuda_describe(const weft_cuda_api *api, CUresult rc,
                         const char *what, char *out, size_t size);

#endif
