/* cuda_memory.c: buffers on a CUDA GPU (see cuda_device.h).
 *
 * A buffer is device memory from cuMemAlloc (or a small one kept from a
 * buffer gone: cuda_spare_memory.c), zero-filled. A buffer over
 * the caller's memory (WEFT_MEM_USE_HOST_PTR) is that memory itself,
 * page-locked and mapped into the GPU's address space: kernels read and
 * write it across the bus, and the host sees their writes with no copy.
 * With unified addressing (every 64-bit CUDA system) its device address
 * is its host address. One over SVM is the SVM's managed memory as it
 * stands. A map of device memory is a host copy of the range, written
 * back at the unmap if it was mapped for writing. Every operation is
 * synchronous, and goes after every launch before it (one stream): a
 * queue lets none of its commands of this kind run while its launches
 * are in flight (core/queue.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_device.h"
#include "weft/weft.h"

static CUdeviceptr at(void *mem, size_t offset) {
  return (CUdeviceptr)(uintptr_t)mem + offset;
}

/* Whether [p, p + size) lies in memory the driver allocated, such as SVM
 * (managed memory): kernels reach it already, and the driver refuses to
 * register it as host memory. */
static int driver_owns(const weft_cuda_api *api, void *p, size_t size) {
  CUdeviceptr base = 0;
  size_t bytes = 0;
  if (api->cuMemGetAddressRange(&base, &bytes, at(p, 0)) != CUDA_SUCCESS)
    return 0;
  return at(p, 0) >= base && at(p, size) <= base + bytes;
}

int weft__cuda_mem_alloc(weft_backend_device *device, size_t size,
                         void *host_ptr, void **mem, weft_msg *msg) {
  cuda_device *gpu = weft__cuda_of(device);
  const weft_cuda_api *api = gpu->api;
  int rc = weft__cuda_enter(gpu, msg);
  if (rc) return rc;
  CUdeviceptr p = 0;
  if (host_ptr && driver_owns(api, host_ptr, size)) {
    p = at(host_ptr, 0);
  } else if (host_ptr) {
    rc = weft__cuda_pages_hold(gpu, host_ptr, size, msg);
    int held = !rc;
    if (!rc)
      rc = weft__cuda_fail(gpu, api->cuMemHostGetDevicePointer(&p, host_ptr, 0),
                           "mapping the host memory", WEFT_ENOMEM, msg);
    if (!rc && (void *)(uintptr_t)p != host_ptr) {
      snprintf(msg->text, sizeof msg->text, "the GPU does not use unified "
               "addressing, which WEFT_MEM_USE_HOST_PTR needs");
      rc = WEFT_ENOMEM;
    }
    if (rc && held) weft__cuda_pages_release(gpu, host_ptr, size);
  } else {
    size = size ? size : 1;
    p = weft__cuda_spare_take(gpu, size);
    if (!p)
      rc = weft__cuda_fail(gpu, api->cuMemAlloc(&p, size),
                           "allocating GPU memory", WEFT_ENOMEM, msg);
    if (!rc)
      rc = weft__cuda_fail(gpu, api->cuMemsetD8(p, 0, size), "zeroing GPU memory",
                           WEFT_ENOMEM, msg);
    if (rc && p) api->cuMemFree(p);
  }
  if (!rc) *mem = (void *)(uintptr_t)p;
  return rc;
}

void weft__cuda_mem_free(weft_backend_device *device, void *mem, size_t size,
                         void *host_ptr) {
  cuda_device *gpu = weft__cuda_of(device);
  if (weft__cuda_enter(gpu, NULL)) return;
  /* A buffer over SVM registered nothing (see driver_owns); the SVM
   * outlives it, so the test gives the same answer as at the alloc. */
  if (!host_ptr) {
    if (!weft__cuda_spare_keep(gpu, at(mem, 0), size ? size : 1))
      gpu->api->cuMemFree(at(mem, 0));
  } else if (!driver_owns(gpu->api, host_ptr, size))
    weft__cuda_pages_release(gpu, host_ptr, size);
}

/* Copies between host memory and the GPU's go in pieces of host memory
 * that the driver sees as one kind (see cuda_host_pages.c). */
int weft__cuda_mem_write(weft_backend_device *device, void *mem, size_t offset,
                         size_t size, const void *src) {
  cuda_device *gpu = weft__cuda_of(device);
  int rc = weft__cuda_enter(gpu, NULL);
  weft__cuda_image_arrays_touch(gpu, at(mem, offset), size);
  for (size_t done = 0, n; !rc && done < size; done += n) {
    n = weft__cuda_pages_piece((const char *)src + done, size - done);
    rc = weft__cuda_fail(gpu, gpu->api->cuMemcpyHtoD(at(mem, offset + done),
                                                     (const char *)src + done, n),
                         "writing GPU memory", WEFT_ESYS, NULL);
  }
  return rc;
}

int weft__cuda_mem_read(weft_backend_device *device, void *mem, size_t offset,
                        size_t size, void *dst) {
  cuda_device *gpu = weft__cuda_of(device);
  int rc = weft__cuda_enter(gpu, NULL);
  for (size_t done = 0, n; !rc && done < size; done += n) {
    n = weft__cuda_pages_piece((char *)dst + done, size - done);
    rc = weft__cuda_fail(gpu, gpu->api->cuMemcpyDtoH((char *)dst + done,
                                                     at(mem, offset + done), n),
                         "reading GPU memory", WEFT_ESYS, NULL);
  }
  return rc;
}

int weft__cuda_mem_copy(weft_backend_device *device, void *dst,
                        size_t dst_offset, void *src, size_t src_offset,
                        size_t size) {
  cuda_device *gpu = weft__cuda_of(device);
  int rc = weft__cuda_enter(gpu, NULL);
  weft__cuda_image_arrays_touch(gpu, at(dst, dst_offset), size);
  if (!rc && size)
    rc = weft__cuda_fail(gpu, gpu->api->cuMemcpyDtoD(at(dst, dst_offset),
                                                     at(src, src_offset), size),
                         "copying GPU memory", WEFT_ESYS, NULL);
  return rc;
}

/* The driver fills with 1-, 2- and 4-byte values; a pattern of 8 to 128
 * bytes is written once and doubled by copies, as on the CPU. */
int weft__cuda_mem_fill(weft_backend_device *device, void *mem, size_t offset,
                        size_t size, const void *pattern, size_t pattern_size) {
  cuda_device *gpu = weft__cuda_of(device);
  const weft_cuda_api *api = gpu->api;
  int rc = weft__cuda_enter(gpu, NULL);
  if (rc || !size) return rc;
  CUdeviceptr p = at(mem, offset);
  weft__cuda_image_arrays_touch(gpu, p, size);
  CUresult r;
  if (pattern_size == 1) {
    r = api->cuMemsetD8(p, *(const uint8_t *)pattern, size);
  } else if (pattern_size == 2) {
    uint16_t v;
    memcpy(&v, pattern, 2);
    r = api->cuMemsetD16(p, v, size / 2);
  } else if (pattern_size == 4) {
    uint32_t v;
    memcpy(&v, pattern, 4);
    r = api->cuMemsetD32(p, v, size / 4);
  } else {
    size_t done = pattern_size < size ? pattern_size : size;
    r = api->cuMemcpyHtoD(p, pattern, done);
    while (r == CUDA_SUCCESS && done < size) {
      size_t n = done < size - done ? done : size - done;
      r = api->cuMemcpyDtoD(p + done, p, n);
      done += n;
    }
  }
  return weft__cuda_fail(gpu, r, "filling GPU memory", WEFT_ESYS, NULL);
}

/* SVM is managed memory: one address for host and kernels, which the
 * driver migrates on use. */
int weft__cuda_svm_alloc(weft_backend_device *device, size_t size,
                         size_t alignment, void **ptr, weft_msg *msg) {
  cuda_device *gpu = weft__cuda_of(device);
  const weft_cuda_api *api = gpu->api;
  int rc = weft__cuda_enter(gpu, msg);
  if (rc) return rc;
  /* Managed memory comes aligned to 256 bytes: a larger alignment takes
   * room to move up in (free finds the allocation's start). */
  size_t extra = alignment > 256 ? alignment - 256 : 0;
  CUdeviceptr p = 0;
  rc = weft__cuda_fail(gpu, api->cuMemAllocManaged(&p, (size ? size : 1) + extra,
                                                   CU_MEM_ATTACH_GLOBAL),
                       "allocating managed memory", WEFT_ENOMEM, msg);
  if (rc) return rc;
  if (extra) p = (p + alignment - 1) & ~(CUdeviceptr)(alignment - 1);
  memset((void *)(uintptr_t)p, 0, size);
  *ptr = (void *)(uintptr_t)p;
  return 0;
}

void weft__cuda_svm_free(weft_backend_device *device, void *ptr, size_t size) {
  cuda_device *gpu = weft__cuda_of(device);
  const weft_cuda_api *api = gpu->api;
  (void)size;
  CUdeviceptr base = 0;
  size_t bytes = 0;
  if (weft__cuda_enter(gpu, NULL)) return;
  if (api->cuMemGetAddressRange(&base, &bytes, at(ptr, 0)) != CUDA_SUCCESS)
    base = at(ptr, 0);
  api->cuMemFree(base);
}

/* A buffer over host memory (registered, or SVM's managed memory) maps
 * as that memory. Device memory maps as a host copy of the range, read in
 * whatever the flags (a write map that changes part of the range must
 * write the rest back as it was) and written back at the unmap of a write
 * map. */
int weft__cuda_mem_map(weft_backend_device *device, void *mem, void *host_ptr,
                       weft_mapping *m) {
  if (host_ptr) {
    m->ptr = (char *)host_ptr + m->offset;
    return 0;
  }
  /* 128 bytes keep the copy aligned for any vector. */
  void *copy = NULL;
  if (posix_memalign(&copy, 128, m->size ? m->size : 1)) return WEFT_ENOMEM;
  int rc = weft__cuda_mem_read(device, mem, m->offset, m->size, copy);
  if (rc) {
    free(copy);
    return rc;
  }
  m->ptr = copy;
  return 0;
}

int weft__cuda_mem_unmap(weft_backend_device *device, void *mem, void *host_ptr,
                         const weft_mapping *m) {
  /* The host wrote the memory itself, or the copy written back below. */
  if (m->flags & WEFT_MAP_WRITE)
    weft__cuda_image_arrays_touch(weft__cuda_of(device), at(mem, m->offset),
                                  m->size);
  if (host_ptr) return 0;
  int rc = 0;
  if (m->flags & WEFT_MAP_WRITE)
    rc = weft__cuda_mem_write(device, mem, m->offset, m->size, m->ptr);
  free(m->ptr);
  return rc;
}
