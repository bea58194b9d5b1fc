/*
 * image_layout.h: what a kernel's image argument points to, the
 * description of an image's storage that the image builtins (image.cl)
 * read and the core (core/image.c) writes. Included by OpenCL C and by C:
 * fixed-size fields only, in an order with no padding.
 *
 * Element (x, y, z) is at data + x * element_size + y * row_pitch +
 * z * slice_pitch. The layer of an array is its z: a 1D array's layers
 * are rows apart (slice_pitch), a 2D array's are slices apart. Sizes an
 * image does not have are 1 (array_size is 1 for images that are not
 * arrays), so that every element index is checked the same way.
 */
#ifndef WEFT_BUILTINS_IMAGE_LAYOUT_H
#define WEFT_BUILTINS_IMAGE_LAYOUT_H

#ifdef __OPENCL_C_VERSION__
typedef ulong weft_layout_u64;
typedef int weft_layout_i32;
#else
#include <stdint.h>
typedef uint64_t weft_layout_u64;
typedef int32_t weft_layout_i32;
#endif

/* Texture slots: one per class of sampler (weft_image_texture_slot). */
#define WEFT_IMAGE_TEXTURES 16
#define WEFT_TEXTURE_LINEAR 8
#define WEFT_TEXTURE_NORMALIZED 4
#define WEFT_TEXTURE_ADDRESS 3

typedef struct weft_image_layout {
  weft_layout_u64 data;        /* the address of element (0, 0, 0) */
  weft_layout_u64 row_pitch;   /* bytes from one row to the next */
  weft_layout_u64 slice_pitch; /* from one slice (or layer) to the next */
  weft_layout_i32 width, height, depth, array_size;
  weft_layout_i32 channel_order;     /* OpenCL's CL_R ... CL_ARGB */
  weft_layout_i32 channel_type;      /* OpenCL's CL_SNORM_INT8 ... CL_FLOAT */
  weft_layout_i32 element_size;      /* bytes */
  weft_layout_i32 image_type;        /* OpenCL's CL_MEM_OBJECT_IMAGE2D ... */
  weft_layout_u64 texture[WEFT_IMAGE_TEXTURES];
} weft_image_layout;

/* The texture of a sampler's CLK_* bits (0 for reads without a sampler:
 * unnormalized, nearest, border): WEFT_TEXTURE_LINEAR for linear
 * filtering, WEFT_TEXTURE_NORMALIZED for normalized coordinates, and in
 * WEFT_TEXTURE_ADDRESS the addressing: 0 for none and clamp (the border
 * colour outside), 1 clamp to edge, 2 repeat, 3 mirrored repeat. */
static inline int weft_image_texture_slot(unsigned bits) {
  unsigned a = (bits >> 1) & 7u; /* CLK_ADDRESS_* >> 1 */
  int address = a == 1 ? 1 : a == 3 ? 2 : a == 4 ? 3 : 0;
  return (bits & 0x20u ? WEFT_TEXTURE_LINEAR : 0) |
         (bits & 0x1u ? WEFT_TEXTURE_NORMALIZED : 0) | address;
}

/* OpenCL's values (cl.h), for the builtins, which cannot include it. */
#define WEFT_CL_R 0x10B0
#define WEFT_CL_A 0x10B1
#define WEFT_CL_RG 0x10B2
#define WEFT_CL_RA 0x10B3
#define WEFT_CL_RGB 0x10B4
#define WEFT_CL_RGBA 0x10B5
#define WEFT_CL_BGRA 0x10B6
#define WEFT_CL_ARGB 0x10B7
#define WEFT_CL_INTENSITY 0x10B8
#define WEFT_CL_LUMINANCE 0x10B9

#define WEFT_CL_SNORM_INT8 0x10D0
#define WEFT_CL_SNORM_INT16 0x10D1
#define WEFT_CL_UNORM_INT8 0x10D2
#define WEFT_CL_UNORM_INT16 0x10D3
#define WEFT_CL_UNORM_SHORT_565 0x10D4
#define WEFT_CL_UNORM_SHORT_555 0x10D5
#define WEFT_CL_UNORM_INT_101010 0x10D6
#define WEFT_CL_SIGNED_INT8 0x10D7
#define WEFT_CL_SIGNED_INT16 0x10D8
#define WEFT_CL_SIGNED_INT32 0x10D9
#define WEFT_CL_UNSIGNED_INT8 0x10DA
#define WEFT_CL_UNSIGNED_INT16 0x10DB
#define WEFT_CL_UNSIGNED_INT32 0x10DC
#define WEFT_CL_HALF_FLOAT 0x10DD
#define WEFT_CL_FLOAT 0x10DE

#define WEFT_CL_MEM_OBJECT_IMAGE2D 0x10F1
#define WEFT_CL_MEM_OBJECT_IMAGE3D 0x10F2
#define WEFT_CL_MEM_OBJECT_IMAGE2D_ARRAY 0x10F3
#define WEFT_CL_MEM_OBJECT_IMAGE1D 0x10F4
#define WEFT_CL_MEM_OBJECT_IMAGE1D_ARRAY 0x10F5
#define WEFT_CL_MEM_OBJECT_IMAGE1D_BUFFER 0x10F6

#endif
