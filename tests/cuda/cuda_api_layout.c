/* cuda_api_layout.c: prints the size of each structure that
 * backend/cuda/cuda_api.h copies from the driver's cuda.h and its fields'
 * offsets; check_cuda_api.sh builds it over both headers (-DREAL: cuda.h)
 * and compares. */
#include <stddef.h>
#include <stdio.h>
#ifdef REAL
#include <cuda.h>
#else
#include "backend/cuda/cuda_api.h"
#endif

#define AT(T, m) printf("%s.%s %zu\n", #T, #m, offsetof(T, m));

int main(void) {
  printf("sizes %zu %zu\n", sizeof(CUDA_RESOURCE_DESC), sizeof(CUDA_TEXTURE_DESC));
  AT(CUDA_RESOURCE_DESC, res.linear.devPtr)
  AT(CUDA_RESOURCE_DESC, res.linear.format)
  AT(CUDA_RESOURCE_DESC, res.linear.numChannels)
  AT(CUDA_RESOURCE_DESC, res.linear.sizeInBytes)
  AT(CUDA_RESOURCE_DESC, res.pitch2D.devPtr)
  AT(CUDA_RESOURCE_DESC, res.pitch2D.format)
  AT(CUDA_RESOURCE_DESC, res.pitch2D.numChannels)
  AT(CUDA_RESOURCE_DESC, res.pitch2D.width)
  AT(CUDA_RESOURCE_DESC, res.pitch2D.height)
  AT(CUDA_RESOURCE_DESC, res.pitch2D.pitchInBytes)
  AT(CUDA_RESOURCE_DESC, res.array.hArray)
  AT(CUDA_RESOURCE_DESC, flags)
  printf("sizes %zu %zu\n", sizeof(CUDA_ARRAY3D_DESCRIPTOR), sizeof(CUDA_MEMCPY3D));
  AT(CUDA_ARRAY3D_DESCRIPTOR, Depth)
  AT(CUDA_ARRAY3D_DESCRIPTOR, Format)
  AT(CUDA_ARRAY3D_DESCRIPTOR, NumChannels)
  AT(CUDA_ARRAY3D_DESCRIPTOR, Flags)
  AT(CUDA_MEMCPY3D, srcMemoryType)
  AT(CUDA_MEMCPY3D, srcDevice)
  AT(CUDA_MEMCPY3D, srcPitch)
  AT(CUDA_MEMCPY3D, srcHeight)
  AT(CUDA_MEMCPY3D, dstMemoryType)
  AT(CUDA_MEMCPY3D, dstArray)
  AT(CUDA_MEMCPY3D, WidthInBytes)
  AT(CUDA_MEMCPY3D, Depth)
  AT(CUDA_TEXTURE_DESC, addressMode)
  AT(CUDA_TEXTURE_DESC, filterMode)
  AT(CUDA_TEXTURE_DESC, flags)
  AT(CUDA_TEXTURE_DESC, borderColor)
  return 0;
}
