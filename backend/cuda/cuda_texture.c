/* cuda_texture.c: texture objects over images' storage (device.h's
 * image_textures), so that the image builtins' reads on the GPU go through
 * the texture units: their cache, their format conversion and, for
 * filtered reads, their bilinear filtering.
 *
 * An image stays where it is, in linear memory with the layout every
 * image command and the software reads use (builtins/image_layout.h):
 * 1D and 2D images are read as pitch-linear 2D textures (a 1D image is
 * one row), 1D buffer images as linear ones. Arrays and 3D images are
 * read from a CUDA array holding a copy, which launches keep up to date
 * (cuda_image_arrays.c). (2D images read from an array were no faster:
 * a 3x3 blur 1.39 times NVIDIA's time on an H200 against 1.36 over rows,
 * and a plain read 1.13 against 1.04.) Formats the hardware lacks (RGB's
 * packed types) and storage it cannot address (a row pitch or base off
 * its alignment, sizes past its limits) keep the software reads. A
 * texture bakes in what OpenCL keeps in the sampler, so each
 * class of sampler gets its own (weft_image_texture_slot); classes
 * OpenCL leaves undefined (repeat without normalized coordinates,
 * filtering of integers) get none.
 *
 * The hardware differs from the software reads in one way OpenCL allows:
 * linear filtering weighs elements with 8 fractional bits. WEFT_TEXTURES=off
 * makes none, for the CPU's bits. */
#include <string.h>

#include "backend/cuda/cuda_device.h"
#include "builtins/image_layout.h"

/* The hardware's format of l's channels: 0 where it has none; *integer
 * when reads give integers rather than normalized or floating values. */
static int format_of(const weft_image_layout *l, unsigned *channels,
                     int *integer) {
  switch (l->channel_order) {
  case WEFT_CL_R: case WEFT_CL_A: case WEFT_CL_INTENSITY: case WEFT_CL_LUMINANCE:
    *channels = 1;
    break;
  case WEFT_CL_RG: case WEFT_CL_RA:
    *channels = 2;
    break;
  case WEFT_CL_RGBA: case WEFT_CL_BGRA: case WEFT_CL_ARGB:
    *channels = 4;
    break;
  default:
    return 0; /* RGB: packed types only */
  }
  *integer = 0;
  switch (l->channel_type) {
  case WEFT_CL_UNORM_INT8: return CU_AD_FORMAT_UNSIGNED_INT8;
  case WEFT_CL_UNORM_INT16: return CU_AD_FORMAT_UNSIGNED_INT16;
  case WEFT_CL_SNORM_INT8: return CU_AD_FORMAT_SIGNED_INT8;
  case WEFT_CL_SNORM_INT16: return CU_AD_FORMAT_SIGNED_INT16;
  case WEFT_CL_HALF_FLOAT: return CU_AD_FORMAT_HALF;
  case WEFT_CL_FLOAT: return CU_AD_FORMAT_FLOAT;
  default: break;
  }
  *integer = 1;
  switch (l->channel_type) {
  case WEFT_CL_UNSIGNED_INT8: return CU_AD_FORMAT_UNSIGNED_INT8;
  case WEFT_CL_UNSIGNED_INT16: return CU_AD_FORMAT_UNSIGNED_INT16;
  case WEFT_CL_UNSIGNED_INT32: return CU_AD_FORMAT_UNSIGNED_INT32;
  case WEFT_CL_SIGNED_INT8: return CU_AD_FORMAT_SIGNED_INT8;
  case WEFT_CL_SIGNED_INT16: return CU_AD_FORMAT_SIGNED_INT16;
  case WEFT_CL_SIGNED_INT32: return CU_AD_FORMAT_SIGNED_INT32;
  default: return 0;
  }
}

static int aligned(uint64_t value, int alignment) {
  return alignment > 0 && value % (uint64_t)alignment == 0;
}

/* What the textures of l read, or 0 where the hardware cannot read it. */
static int resource_of(cuda_device *gpu, const weft_image_layout *l,
                       CUDA_RESOURCE_DESC *r, int *integer) {
  const weft_cuda_gpu *g = &gpu->gpu;
  unsigned channels = 0;
  int format = format_of(l, &channels, integer);
  if (format && weft__cuda_image_takes_array(l))
    return weft__cuda_image_array_make(gpu, l, format, channels, r);
  if (!format || !aligned(l->data, g->texture_alignment)) return 0;
  memset(r, 0, sizeof *r);
  size_t width = (size_t)l->width;
  if (l->image_type == WEFT_CL_MEM_OBJECT_IMAGE1D_BUFFER) {
    if (width > (size_t)g->max_texture_1d_linear) return 0;
    r->resType = CU_RESOURCE_TYPE_LINEAR;
    r->res.linear.devPtr = l->data;
    r->res.linear.format = format;
    r->res.linear.numChannels = channels;
    r->res.linear.sizeInBytes = width * (size_t)l->element_size;
    return 1;
  }
  /* A 1D or 2D image (the others took an array above). One row's pitch
   * is free: nothing reads a second row. */
  uint64_t pitch = l->row_pitch;
  uint64_t alignment = (uint64_t)g->texture_pitch_alignment;
  if (l->height == 1 && alignment)
    pitch = (pitch + alignment - 1) / alignment * alignment;
  if (!aligned(pitch, g->texture_pitch_alignment) ||
      width > (size_t)g->max_texture_2d_linear[0] ||
      l->height > g->max_texture_2d_linear[1] ||
      pitch > (uint64_t)g->max_texture_2d_linear[2])
    return 0;
  r->resType = CU_RESOURCE_TYPE_PITCH2D;
  r->res.pitch2D.devPtr = l->data;
  r->res.pitch2D.format = format;
  r->res.pitch2D.numChannels = channels;
  r->res.pitch2D.width = width;
  r->res.pitch2D.height = (size_t)l->height;
  r->res.pitch2D.pitchInBytes = (size_t)pitch;
  return 1;
}

/* How the texture of slot reads (weft_image_texture_slot), or 0 for a
 * class it does not serve. */
static int sampling_of(int slot, int integer, int linear_resource,
                       CUDA_TEXTURE_DESC *t) {
  static const int address[4] = {CU_TR_ADDRESS_MODE_BORDER, CU_TR_ADDRESS_MODE_CLAMP,
                                 CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_MIRROR};
  int filtered = slot & WEFT_TEXTURE_LINEAR;
  int normalized = slot & WEFT_TEXTURE_NORMALIZED;
  int mode = slot & WEFT_TEXTURE_ADDRESS;
  if (linear_resource && slot) return 0; /* 1D buffers: no sampler */
  if ((filtered && integer) || (!normalized && mode >= 2)) return 0;
  memset(t, 0, sizeof *t);
  for (int d = 0; d < 3; d++) t->addressMode[d] = address[mode];
  t->filterMode = filtered ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
  t->flags = (integer ? CU_TRSF_READ_AS_INTEGER : 0u) |
             (normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0u);
  t->maxAnisotropy = 1;
  return 1; /* borderColor 0: the builtins give alpha its 1 */
}

/* Destroys the texture objects in texture[] and zeroes their slots. */
static void free_textures(cuda_device *gpu, uint64_t *texture) {
  for (int slot = 0; slot < WEFT_IMAGE_TEXTURES; slot++)
    if (texture[slot]) gpu->api->cuTexObjectDestroy(texture[slot]);
  memset(texture, 0, WEFT_IMAGE_TEXTURES * sizeof *texture);
}

void weft__cuda_image_textures(weft_backend_device *device,
                               const weft_image_layout *l, uint64_t *texture) {
  cuda_device *gpu = weft__cuda_of(device);
  memset(texture, 0, WEFT_IMAGE_TEXTURES * sizeof *texture);
  CUDA_RESOURCE_DESC r;
  int integer = 0;
  if (!gpu->config->textures || weft__cuda_enter(gpu, NULL) ||
      !resource_of(gpu, l, &r, &integer))
    return;
  for (int slot = 0; slot < WEFT_IMAGE_TEXTURES; slot++) {
    CUDA_TEXTURE_DESC t;
    CUtexObject made = 0;
    if (!sampling_of(slot, integer, r.resType == CU_RESOURCE_TYPE_LINEAR, &t))
      continue;
    if (gpu->api->cuTexObjectCreate(&made, &r, &t, NULL) != CUDA_SUCCESS) {
      /* The driver refused the storage: none at all, so that every read
       * of the image goes the same way. */
      free_textures(gpu, texture);
      weft__cuda_image_array_free(gpu, l);
      return;
    }
    texture[slot] = made;
  }
}

void weft__cuda_image_textures_free(weft_backend_device *device,
                                    const weft_image_layout *l) {
  cuda_device *gpu = weft__cuda_of(device);
  if (weft__cuda_enter(gpu, NULL)) return;
  uint64_t texture[WEFT_IMAGE_TEXTURES];
  memcpy(texture, l->texture, sizeof texture);
  free_textures(gpu, texture);
  weft__cuda_image_array_free(gpu, l);
}
