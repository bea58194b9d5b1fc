/*
 * Image functions (OpenCL C 3.0, 6.15.15) for 1D, 1D buffer, 1D array, 2D,
 * 2D array and 3D images, the same code on the CPU and on NVIDIA GPUs
 * (so that both give the same bits).
 *
 * An image argument points to its weft_image_layout (image_layout.h), a
 * copy in the device's memory that core/image.c places there. A
 * sampler is its CLK_* bits carried as a pointer's value: the host passes a
 * sampler object's bits, and __translate_sampler_initializer, which Clang
 * calls for a sampler written in the program, makes one from the
 * initializer.
 *
 * Where OpenCL leaves an access undefined (an element outside the image
 * without a sampler, CLK_ADDRESS_NONE past the edge) reads give the border
 * colour and writes are dropped: no image access leaves the image's
 * storage. Sampling follows the specification's formulas (OpenCL 3.0,
 * 8.2, "Addressing and filtering rules").
 *
 * On the GPU, reads of read-only 1D, 1D buffer and 2D images go through
 * the texture units where the back end made a texture for the sampler's
 * class (the layout's texture[], backend/cuda/cuda_texture.c): the same
 * elements, border and addressing, and linear filtering with the
 * hardware's 8-bit weights.
 */
#include "builtins.h"
#include "image_layout.h"

typedef global const weft_image_layout *layout;

#define LAYOUT(image) ((layout)__builtin_astype((image), global void *))

/* Sampler bits, as opencl-c-base.h defines them. */
#define NORMALIZED 0x1u
#define ADDRESS_MASK 0xEu
#define ADDRESS_CLAMP_TO_EDGE 0x2u
#define ADDRESS_CLAMP 0x4u
#define ADDRESS_REPEAT 0x6u
#define ADDRESS_MIRRORED_REPEAT 0x8u
#define FILTER_LINEAR 0x20u

constant void *__translate_sampler_initializer(int bits) {
  return (constant void *)(ulong)(uint)bits;
}

static uint bits_of(sampler_t s) {
  return (uint)(ulong)__builtin_astype(s, constant void *);
}

/* ------------------------------------------------------------ elements */

static int layers_or_depth(layout im) { return im->depth * im->array_size; }

static int inside(layout im, int4 at) {
  return at.x >= 0 && at.x < im->width && at.y >= 0 && at.y < im->height &&
         at.z >= 0 && at.z < layers_or_depth(im);
}

static global uchar *element(layout im, int4 at) {
  return (global uchar *)im->data + (ulong)at.x * (ulong)im->element_size +
         (ulong)at.y * im->row_pitch + (ulong)at.z * im->slice_pitch;
}

/* Channels stored per element, for orders of one value per channel. */
static int stored_channels(int order) {
  switch (order) {
  case WEFT_CL_RG:
  case WEFT_CL_RA:
    return 2;
  case WEFT_CL_RGB:
    return 3;
  case WEFT_CL_RGBA:
  case WEFT_CL_BGRA:
  case WEFT_CL_ARGB:
    return 4;
  default:
    return 1;
  }
}

static int has_alpha(int order) {
  return order != WEFT_CL_R && order != WEFT_CL_RG && order != WEFT_CL_RGB &&
         order != WEFT_CL_LUMINANCE;
}

/* The stored channels c (in storage order) as (r, g, b, a), with the
 * values of channels the order lacks: 0, and 1 for alpha. */
#define TO_RGBA(T, V)                                                        \
  static V WEFT_OVERLOAD to_rgba(int order, const T *c, T one) {             \
    switch (order) {                                                         \
    case WEFT_CL_R: return (V)(c[0], 0, 0, one);                             \
    case WEFT_CL_A: return (V)(0, 0, 0, c[0]);                               \
    case WEFT_CL_RG: return (V)(c[0], c[1], 0, one);                         \
    case WEFT_CL_RA: return (V)(c[0], 0, 0, c[1]);                           \
    case WEFT_CL_RGB: return (V)(c[0], c[1], c[2], one);                     \
    case WEFT_CL_BGRA: return (V)(c[2], c[1], c[0], c[3]);                   \
    case WEFT_CL_ARGB: return (V)(c[1], c[2], c[3], c[0]);                   \
    case WEFT_CL_INTENSITY: return (V)(c[0], c[0], c[0], c[0]);              \
    case WEFT_CL_LUMINANCE: return (V)(c[0], c[0], c[0], one);               \
    default: return (V)(c[0], c[1], c[2], c[3]);                             \
    }                                                                        \
  }                                                                          \
  /* The inverse: v's channels in the order's storage order. */              \
  static void WEFT_OVERLOAD from_rgba(int order, V v, T *c) {                \
    T rgba[4] = {v.x, v.y, v.z, v.w};                                        \
    int pick[4] = {0, 1, 2, 3};                                              \
    switch (order) {                                                         \
    case WEFT_CL_A: pick[0] = 3; break;                                      \
    case WEFT_CL_RA: pick[1] = 3; break;                                     \
    case WEFT_CL_BGRA: pick[0] = 2; pick[2] = 0; break;                      \
    case WEFT_CL_ARGB:                                                       \
      pick[0] = 3; pick[1] = 0; pick[2] = 1; pick[3] = 2; break;             \
    default: break;                                                          \
    }                                                                        \
    for (int i = 0; i < 4; i++) c[i] = rgba[pick[i]];                        \
  }
TO_RGBA(float, float4)
TO_RGBA(int, int4)
TO_RGBA(uint, uint4)

static float4 border_f(layout im) {
  return (float4)(0, 0, 0, has_alpha(im->channel_order) ? 0 : 1);
}
static int4 border_i(layout im) {
  return (int4)(0, 0, 0, has_alpha(im->channel_order) ? 0 : 1);
}

/* RGBA and BGRA elements of 8-bit normalized or float channels, the
 * commonest, as one vector load and conversion (the general path below
 * goes channel by channel, through a switch each). */
static int four_channels(int order, int type, global const uchar *p,
                         float4 *out) {
  float4 v;
  if (order != WEFT_CL_RGBA && order != WEFT_CL_BGRA) return 0;
  if (type == WEFT_CL_UNORM_INT8)
    v = convert_float4(vload4(0, p)) / 255.0f;
  else if (type == WEFT_CL_FLOAT)
    v = vload4(0, (global const float *)p);
  else
    return 0;
  *out = order == WEFT_CL_BGRA ? v.zyxw : v;
  return 1;
}

/* The element at `at` as floats: normalized formats as [0, 1] or [-1, 1],
 * halfs and floats as they are (integer formats: their values). */
static float4 load_f(layout im, int4 at) {
  if (!inside(im, at)) return border_f(im);
  global const uchar *p = element(im, at);
  float4 quick;
  if (four_channels(im->channel_order, im->channel_type, p, &quick))
    return quick;
  int n = stored_channels(im->channel_order);
  float c[4] = {0, 0, 0, 0};
  switch (im->channel_type) {
  case WEFT_CL_UNORM_SHORT_565: {
    ushort w = *(global const ushort *)p;
    c[0] = (float)((w >> 11) & 31) / 31.0f;
    c[1] = (float)((w >> 5) & 63) / 63.0f;
    c[2] = (float)(w & 31) / 31.0f;
    break;
  }
  case WEFT_CL_UNORM_SHORT_555: {
    ushort w = *(global const ushort *)p;
    c[0] = (float)((w >> 10) & 31) / 31.0f;
    c[1] = (float)((w >> 5) & 31) / 31.0f;
    c[2] = (float)(w & 31) / 31.0f;
    break;
  }
  case WEFT_CL_UNORM_INT_101010: {
    uint w = *(global const uint *)p;
    c[0] = (float)((w >> 20) & 1023) / 1023.0f;
    c[1] = (float)((w >> 10) & 1023) / 1023.0f;
    c[2] = (float)(w & 1023) / 1023.0f;
    break;
  }
  default:
    for (int i = 0; i < n; i++) {
      switch (im->channel_type) {
      case WEFT_CL_UNORM_INT8: c[i] = (float)p[i] / 255.0f; break;
      case WEFT_CL_UNORM_INT16:
        c[i] = (float)((global const ushort *)p)[i] / 65535.0f;
        break;
      case WEFT_CL_SNORM_INT8:
        c[i] = fmax(-1.0f, (float)((global const char *)p)[i] / 127.0f);
        break;
      case WEFT_CL_SNORM_INT16:
        c[i] = fmax(-1.0f, (float)((global const short *)p)[i] / 32767.0f);
        break;
      case WEFT_CL_HALF_FLOAT: c[i] = vload_half(i, (global const half *)p); break;
      case WEFT_CL_FLOAT: c[i] = ((global const float *)p)[i]; break;
      case WEFT_CL_SIGNED_INT8: c[i] = ((global const char *)p)[i]; break;
      case WEFT_CL_UNSIGNED_INT8: c[i] = p[i]; break;
      case WEFT_CL_SIGNED_INT16: c[i] = ((global const short *)p)[i]; break;
      case WEFT_CL_UNSIGNED_INT16: c[i] = ((global const ushort *)p)[i]; break;
      case WEFT_CL_SIGNED_INT32: c[i] = ((global const int *)p)[i]; break;
      default: c[i] = ((global const uint *)p)[i]; break;
      }
    }
  }
  return to_rgba(im->channel_order, c, 1.0f);
}

/* RGBA elements of integer channels as one vector load (four_channels'
 * counterpart for read_image{i,ui}). */
static int four_integers(int order, int type, global const uchar *p,
                         int4 *out) {
  if (order != WEFT_CL_RGBA) return 0;
  switch (type) {
  case WEFT_CL_SIGNED_INT8:
    *out = convert_int4(vload4(0, (global const char *)p));
    return 1;
  case WEFT_CL_UNSIGNED_INT8:
    *out = convert_int4(vload4(0, p));
    return 1;
  case WEFT_CL_SIGNED_INT16:
    *out = convert_int4(vload4(0, (global const short *)p));
    return 1;
  case WEFT_CL_UNSIGNED_INT16:
    *out = convert_int4(vload4(0, (global const ushort *)p));
    return 1;
  case WEFT_CL_SIGNED_INT32:
  case WEFT_CL_UNSIGNED_INT32:
    *out = vload4(0, (global const int *)p);
    return 1;
  default:
    return 0;
  }
}

/* The element as integers (integer formats; others: undefined, their raw
 * bits' low channels). */
static int4 load_i(layout im, int4 at) {
  if (!inside(im, at)) return border_i(im);
  global const uchar *p = element(im, at);
  int4 quick;
  if (four_integers(im->channel_order, im->channel_type, p, &quick))
    return quick;
  int c[4] = {0, 0, 0, 0};
  for (int i = 0; i < stored_channels(im->channel_order); i++) {
    switch (im->channel_type) {
    case WEFT_CL_SIGNED_INT8: c[i] = ((global const char *)p)[i]; break;
    case WEFT_CL_UNSIGNED_INT8: c[i] = p[i]; break;
    case WEFT_CL_SIGNED_INT16: c[i] = ((global const short *)p)[i]; break;
    case WEFT_CL_UNSIGNED_INT16: c[i] = ((global const ushort *)p)[i]; break;
    default: c[i] = ((global const int *)p)[i]; break;
    }
  }
  return to_rgba(im->channel_order, c, 1);
}

static uint4 load_ui(layout im, int4 at) { return as_uint4(load_i(im, at)); }

/* The inverse of four_channels: RGBA and BGRA elements of 8-bit
 * normalized or float channels written as one vector. */
static int store_four_channels(int order, int type, global uchar *p,
                               float4 v) {
  if (order != WEFT_CL_RGBA && order != WEFT_CL_BGRA) return 0;
  if (order == WEFT_CL_BGRA) v = v.zyxw;
  if (type == WEFT_CL_UNORM_INT8)
    vstore4(convert_uchar4_sat_rte(v * 255.0f), 0, p);
  else if (type == WEFT_CL_FLOAT)
    vstore4(v, 0, (global float *)p);
  else
    return 0;
  return 1;
}

static void store_f(layout im, int4 at, float4 v) {
  if (!inside(im, at)) return;
  global uchar *p = element(im, at);
  if (store_four_channels(im->channel_order, im->channel_type, p, v)) return;
  float c[4];
  from_rgba(im->channel_order, v, c);
  switch (im->channel_type) {
  case WEFT_CL_UNORM_SHORT_565:
    *(global ushort *)p = (ushort)(convert_uint_sat_rte(clamp(c[0], 0.0f, 1.0f) * 31.0f) << 11 |
                                   convert_uint_sat_rte(clamp(c[1], 0.0f, 1.0f) * 63.0f) << 5 |
                                   convert_uint_sat_rte(clamp(c[2], 0.0f, 1.0f) * 31.0f));
    return;
  case WEFT_CL_UNORM_SHORT_555:
    *(global ushort *)p = (ushort)(convert_uint_sat_rte(clamp(c[0], 0.0f, 1.0f) * 31.0f) << 10 |
                                   convert_uint_sat_rte(clamp(c[1], 0.0f, 1.0f) * 31.0f) << 5 |
                                   convert_uint_sat_rte(clamp(c[2], 0.0f, 1.0f) * 31.0f));
    return;
  case WEFT_CL_UNORM_INT_101010:
    *(global uint *)p = convert_uint_sat_rte(clamp(c[0], 0.0f, 1.0f) * 1023.0f) << 20 |
                        convert_uint_sat_rte(clamp(c[1], 0.0f, 1.0f) * 1023.0f) << 10 |
                        convert_uint_sat_rte(clamp(c[2], 0.0f, 1.0f) * 1023.0f);
    return;
  default:
    break;
  }
  for (int i = 0; i < stored_channels(im->channel_order); i++) {
    switch (im->channel_type) {
    case WEFT_CL_UNORM_INT8: p[i] = convert_uchar_sat_rte(c[i] * 255.0f); break;
    case WEFT_CL_UNORM_INT16:
      ((global ushort *)p)[i] = convert_ushort_sat_rte(c[i] * 65535.0f);
      break;
    case WEFT_CL_SNORM_INT8:
      ((global char *)p)[i] = convert_char_sat_rte(c[i] * 127.0f);
      break;
    case WEFT_CL_SNORM_INT16:
      ((global short *)p)[i] = convert_short_sat_rte(c[i] * 32767.0f);
      break;
    case WEFT_CL_HALF_FLOAT: vstore_half_rte(c[i], i, (global half *)p); break;
    case WEFT_CL_FLOAT: ((global float *)p)[i] = c[i]; break;
    default: break; /* write_imagef to an integer format: undefined */
    }
  }
}

static void store_i(layout im, int4 at, int4 v) {
  if (!inside(im, at)) return;
  global uchar *p = element(im, at);
  int c[4];
  from_rgba(im->channel_order, v, c);
  for (int i = 0; i < stored_channels(im->channel_order); i++) {
    switch (im->channel_type) {
    case WEFT_CL_SIGNED_INT8: ((global char *)p)[i] = convert_char_sat(c[i]); break;
    case WEFT_CL_SIGNED_INT16: ((global short *)p)[i] = convert_short_sat(c[i]); break;
    case WEFT_CL_SIGNED_INT32: ((global int *)p)[i] = c[i]; break;
    default: break; /* not a signed integer format: undefined */
    }
  }
}

static void store_ui(layout im, int4 at, uint4 v) {
  if (!inside(im, at)) return;
  global uchar *p = element(im, at);
  uint c[4];
  from_rgba(im->channel_order, v, c);
  for (int i = 0; i < stored_channels(im->channel_order); i++) {
    switch (im->channel_type) {
    case WEFT_CL_UNSIGNED_INT8: p[i] = convert_uchar_sat(c[i]); break;
    case WEFT_CL_UNSIGNED_INT16: ((global ushort *)p)[i] = convert_ushort_sat(c[i]); break;
    case WEFT_CL_UNSIGNED_INT32: ((global uint *)p)[i] = c[i]; break;
    default: break; /* not an unsigned integer format: undefined */
    }
  }
}

/* ------------------------------------------------------------ sampling */

/* floor(u) as an int, kept to [-2, size + 1], where every addressing mode
 * gives the same element (and far coordinates cannot overflow). */
static int floor_index(float u, int size) {
  float f = floor(u);
  f = fmax(fmin(f, (float)size + 1.0f), -2.0f);
  return isnan(f) ? 0 : (int)f;
}

/* The element nearest to coordinate s on an axis of size elements. */
static int nearest(float s, int size, uint smp) {
  uint mode = smp & ADDRESS_MASK;
  if (smp & NORMALIZED) {
    if (mode == ADDRESS_REPEAT) {
      int i = floor_index((s - floor(s)) * (float)size, size);
      return i > size - 1 ? i - size : i;
    }
    if (mode == ADDRESS_MIRRORED_REPEAT) {
      float m = fabs(s - 2.0f * rint(0.5f * s));
      return min(floor_index(m * (float)size, size), size - 1);
    }
    s *= (float)size;
  }
  int i = floor_index(s, size);
  return mode == ADDRESS_CLAMP ? clamp(i, -1, size) : clamp(i, 0, size - 1);
}

/* The two elements around s for linear filtering, and the weight of the
 * second. */
static int2 linear(float s, int size, uint smp, float *weight) {
  uint mode = smp & ADDRESS_MASK;
  float u = s;
  if (smp & NORMALIZED) {
    if (mode == ADDRESS_MIRRORED_REPEAT)
      u = fabs(s - 2.0f * rint(0.5f * s)) * (float)size;
    else if (mode == ADDRESS_REPEAT)
      u = (s - floor(s)) * (float)size;
    else
      u = s * (float)size;
  }
  int i = floor_index(u - 0.5f, size);
  float w = (u - 0.5f) - floor(u - 0.5f);
  *weight = isnan(w) ? 0.0f : clamp(w, 0.0f, 1.0f);
  if ((smp & NORMALIZED) && mode == ADDRESS_REPEAT)
    return (int2)(i < 0 ? i + size : i, i + 1 > size - 1 ? i + 1 - size : i + 1);
  if ((smp & NORMALIZED) && mode == ADDRESS_MIRRORED_REPEAT)
    return (int2)(max(i, 0), min(i + 1, size - 1));
  if (mode == ADDRESS_CLAMP) return (int2)(clamp(i, -1, size), clamp(i + 1, -1, size));
  return (int2)(clamp(i, 0, size - 1), clamp(i + 1, 0, size - 1));
}

/* The layer of an array at coordinate z: the nearest, within the array. */
static int layer_of(layout im, float z) {
  return clamp((int)fmax(fmin(rint(z), (float)im->array_size), -1.0f), 0,
               im->array_size - 1);
}

/* The element a sampler takes without filtering. axes: how many of x, y,
 * z are filtered coordinates; layered: z is an array's layer. */
static int4 nearest_element(layout im, uint smp, float4 c, int axes, int layered) {
  int size[3] = {im->width, im->height, im->depth};
  float s[3] = {c.x, c.y, c.z};
  int at[3] = {0, 0, 0};
  for (int d = 0; d < axes; d++) at[d] = nearest(s[d], size[d], smp);
  if (layered) at[2] = layer_of(im, c.z);
  return (int4)(at[0], at[1], at[2], 0);
}

static float4 sample_f(layout im, uint smp, float4 c, int axes, int layered) {
  if (!(smp & FILTER_LINEAR))
    return load_f(im, nearest_element(im, smp, c, axes, layered));
  int size[3] = {im->width, im->height, im->depth};
  float s[3] = {c.x, c.y, c.z}, w[3] = {0, 0, 0};
  int2 ends[3] = {(int2)(0), (int2)(0), (int2)(0)};
  for (int d = 0; d < axes; d++) ends[d] = linear(s[d], size[d], smp, &w[d]);
  if (layered) ends[2] = nearest_element(im, smp, c, 0, 1).z;
  float4 sum = 0.0f;
  for (int corner = 0; corner < 1 << axes; corner++) {
    float weight = 1.0f;
    int at[3];
    for (int d = 0; d < 3; d++) {
      int high = d < axes && (corner >> d & 1);
      at[d] = high ? ends[d].y : ends[d].x;
      if (d < axes) weight *= high ? w[d] : 1.0f - w[d];
    }
    sum += weight * load_f(im, (int4)(at[0], at[1], at[2], 0));
  }
  return sum;
}

/* Integer coordinates with a sampler: unnormalized, nearest (the only
 * samplers OpenCL allows with them). */
static float4 coords_of(int4 c) { return convert_float4(c); }
static uint int_sampler(uint smp) { return smp & ADDRESS_MASK; }

/* ----------------------------------------------------- texture hardware */

#ifdef __NVPTX__
/* The texture for reads of im with sampler bits smp (0: none), and the
 * image's channel order, which its reads need. The PTX build answers each
 * ask with a load, and in a kernel whose asks are all made from its
 * arguments adds versions that take every handle as there and every
 * order as RGBA (jit/ptx/ptx_textures.c). */
ulong __weft_texture_handle(const global ulong *slot);
int __weft_texture_order(const global int *order);

static ulong texture_of(layout im, uint smp, int *order) {
  *order = __weft_texture_order(&im->channel_order);
  return __weft_texture_handle(&im->texture[weft_image_texture_slot(smp)]);
}

/* The hardware's channels r0 to r3 (storage order, 0 where the format has
 * none) as (r, g, b, a): to_rgba without its switch, whose branch after
 * each fetch kept a kernel's fetches from overlapping. Selects on the
 * order's bit (LLVM makes compares of the order itself a switch again),
 * the same for every read of an image, so made once. */
#define ORDER_BIT(order) (1u << ((order) & 15))
#define TEXTURE_RGBA(S, V, RT, ONE)                                          \
  static V tex_rgba_##S(int order, RT r0, RT r1, RT r2, RT r3) {             \
    uint o = ORDER_BIT(order);                                               \
    uint a = o & ORDER_BIT(WEFT_CL_A), ra = o & ORDER_BIT(WEFT_CL_RA);       \
    uint bgra = o & ORDER_BIT(WEFT_CL_BGRA);                                 \
    uint argb = o & ORDER_BIT(WEFT_CL_ARGB);                                 \
    uint grey = o & (ORDER_BIT(WEFT_CL_INTENSITY) |                          \
                     ORDER_BIT(WEFT_CL_LUMINANCE));                          \
    uint has_g = o & (ORDER_BIT(WEFT_CL_RG) | ORDER_BIT(WEFT_CL_RGB) |       \
                      ORDER_BIT(WEFT_CL_RGBA) | ORDER_BIT(WEFT_CL_BGRA));    \
    uint has_b = o & (ORDER_BIT(WEFT_CL_RGB) | ORDER_BIT(WEFT_CL_RGBA));     \
    uint r_alpha = o & (ORDER_BIT(WEFT_CL_A) | ORDER_BIT(WEFT_CL_INTENSITY)); \
    uint last_alpha = o & (ORDER_BIT(WEFT_CL_RGBA) |                         \
                           ORDER_BIT(WEFT_CL_BGRA));                         \
    RT x = a ? 0 : bgra ? r2 : argb ? r1 : r0;                               \
    RT y = has_g ? r1 : argb ? r2 : grey ? r0 : 0;                           \
    RT z = has_b ? r2 : bgra ? r0 : argb ? r3 : grey ? r0 : 0;               \
    RT w = r_alpha ? r0 : ra ? r1 : last_alpha ? r3 : argb ? r0 : ONE;       \
    return (V)(x, y, z, w);                                                  \
  }
TEXTURE_RGBA(f, float4, float, 1.0f)
TEXTURE_RGBA(i, int4, int, 1)

/* A texture read at float coordinates c (x, y, z; an array's layer given
 * apart, as the hardware takes it) and at integer ones, as (r, g, b, a)
 * the way the software reads build them. A 1D image (axes 1) is a
 * texture of one row, read at its middle (y = 0.5, normalized or not); a
 * 1D buffer image a linear texture, read by index; arrays and 3D images
 * are CUDA arrays (cuda_image_arrays.c), read as layered or 3D textures.
 * Integer coordinates are read at the element's middle as float ones:
 * the hardware's integer coordinates take the border colour outside the
 * image whatever the addressing (the CTS's clamp-to-edge reads caught
 * it). axes and layered are constants where this is inlined, so one asm
 * remains. */
#define TEXTURE_READS(S, V, RT, PT, RC)                                      \
  static V tex_##S(ulong t, int order, float4 c, int axes, int layered,      \
                   int layer) {                                              \
    RT r0, r1, r2, r3;                                                       \
    if (axes == 3)                                                           \
      __asm__("tex.3d.v4." PT ".f32 {%0, %1, %2, %3}, "                      \
              "[%4, {%5, %6, %7, %7}];"                                      \
              : "=" RC(r0), "=" RC(r1), "=" RC(r2), "=" RC(r3)               \
              : "l"(t), "f"(c.x), "f"(c.y), "f"(c.z));                       \
    else if (layered && axes == 1)                                           \
      __asm__("tex.a1d.v4." PT ".f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"      \
              : "=" RC(r0), "=" RC(r1), "=" RC(r2), "=" RC(r3)               \
              : "l"(t), "r"(layer), "f"(c.x));                               \
    else if (layered)                                                        \
      __asm__("tex.a2d.v4." PT ".f32 {%0, %1, %2, %3}, "                     \
              "[%4, {%5, %6, %7, %7}];"                                      \
              : "=" RC(r0), "=" RC(r1), "=" RC(r2), "=" RC(r3)               \
              : "l"(t), "r"(layer), "f"(c.x), "f"(c.y));                     \
    else                                                                     \
      __asm__("tex.2d.v4." PT ".f32 {%0, %1, %2, %3}, [%4, {%5, %6}];"       \
              : "=" RC(r0), "=" RC(r1), "=" RC(r2), "=" RC(r3)               \
              : "l"(t), "f"(c.x), "f"(axes == 1 ? 0.5f : c.y));              \
    return tex_rgba_##S(order, r0, r1, r2, r3);                              \
  }                                                                          \
  static V tex_##S##_at(ulong t, int order, int4 at, int axes, int layered,  \
                        int layer, int buffer) {                             \
    RT r0, r1, r2, r3;                                                       \
    if (!buffer)                                                             \
      return tex_##S(t, order, convert_float4(at) + 0.5f, axes, layered,     \
                     layer);                                                 \
    __asm__("tex.1d.v4." PT ".s32 {%0, %1, %2, %3}, [%4, {%5}];"             \
            : "=" RC(r0), "=" RC(r1), "=" RC(r2), "=" RC(r3)                 \
            : "l"(t), "r"(at.x));                                            \
    return tex_rgba_##S(order, r0, r1, r2, r3);                              \
  }
#define F_REG(x) "f"(x)
#define I_REG(x) "r"(x)
TEXTURE_READS(f, float4, float, "f32", F_REG)
TEXTURE_READS(i, int4, int, "s32", I_REG)

/* HARDWARE(TEX): TEX's read through the image's texture if it has one;
 * else (and on the CPU) the software read that follows.
 * (The software read stays inlined: Weft's builds inline every call, and
 * a call kept out of line on the GPU made a loop of reads slower still.)
 */
#define HARDWARE(TEX)                                                        \
  {                                                                          \
    int order;                                                               \
    ulong t = texture_of(im, smp, &order);                                   \
    if (t) return TEX;                                                       \
  }
#else
#define HARDWARE(TEX)
#endif

/* Reads with a sampler at float coordinates c, as floats and as
 * integers. */
static float4 read_f(layout im, uint smp, float4 c, int axes, int layered) {
  HARDWARE(tex_f(t, order, c, axes, layered, layered ? layer_of(im, c.z) : 0))
  return sample_f(im, smp, c, axes, layered);
}

static int4 read_i(layout im, uint smp, float4 c, int axes, int layered) {
  HARDWARE(tex_i(t, order, c, axes, layered, layered ? layer_of(im, c.z) : 0))
  return load_i(im, nearest_element(im, smp, c, axes, layered));
}

/* The same at integer coordinates, with a sampler's addressing or
 * NO_SAMPLER (reads without one, which give the border colour outside the
 * image; their texture is slot 0's, whose addressing is the border);
 * buffer: a 1D buffer image. */
#define NO_SAMPLER 0x80000000u

static float4 read_f_at(layout im, uint smp, int4 at, int axes, int layered,
                        int buffer) {
  HARDWARE(tex_f_at(t, order, at, axes, layered,
                    layered ? layer_of(im, (float)at.z) : 0, buffer))
  return smp == NO_SAMPLER ? load_f(im, at)
                           : sample_f(im, smp, coords_of(at), axes, layered);
}

static int4 read_i_at(layout im, uint smp, int4 at, int axes, int layered,
                      int buffer) {
  HARDWARE(tex_i_at(t, order, at, axes, layered,
                    layered ? layer_of(im, (float)at.z) : 0, buffer))
  return load_i(im, smp == NO_SAMPLER
                        ? at
                        : nearest_element(im, smp, coords_of(at), axes, layered));
}

/* ------------------------------------------------ the overloads, per type */

/* Coordinates of each image type as (x, y, z), an array's layer in z. */
#define AT_1D(c) ((int4)((c), 0, 0, 0))
#define FAT_1D(c) ((float4)((c), 0, 0, 0))
#define AT_1DA(c) ((int4)((c).x, 0, (c).y, 0))
#define FAT_1DA(c) ((float4)((c).x, 0, (c).y, 0))
#define AT_2D(c) ((int4)((c).x, (c).y, 0, 0))
#define FAT_2D(c) ((float4)((c).x, (c).y, 0, 0))
#define AT_3D(c) ((int4)((c).x, (c).y, (c).z, 0))
#define FAT_3D(c) ((float4)((c).x, (c).y, (c).z, 0))

/* read_image{f,i,ui} with a sampler, for a read_only image type T. */
#define SAMPLED_READS(T, IC, FC, AT, FAT, AXES, LAYERED)                     \
  float4 WEFT_OVERLOAD read_imagef(read_only T im, sampler_t s, IC c) {      \
    return read_f_at(LAYOUT(im), int_sampler(bits_of(s)), AT(c), AXES,       \
                     LAYERED, 0);                                            \
  }                                                                          \
  float4 WEFT_OVERLOAD read_imagef(read_only T im, sampler_t s, FC c) {      \
    return read_f(LAYOUT(im), bits_of(s), FAT(c), AXES, LAYERED);            \
  }                                                                          \
  int4 WEFT_OVERLOAD read_imagei(read_only T im, sampler_t s, IC c) {        \
    return read_i_at(LAYOUT(im), int_sampler(bits_of(s)), AT(c), AXES,       \
                     LAYERED, 0);                                            \
  }                                                                          \
  int4 WEFT_OVERLOAD read_imagei(read_only T im, sampler_t s, FC c) {        \
    return read_i(LAYOUT(im), bits_of(s), FAT(c), AXES, LAYERED);            \
  }                                                                          \
  uint4 WEFT_OVERLOAD read_imageui(read_only T im, sampler_t s, IC c) {      \
    return as_uint4(read_i_at(LAYOUT(im), int_sampler(bits_of(s)), AT(c),    \
                              AXES, LAYERED, 0));                            \
  }                                                                          \
  uint4 WEFT_OVERLOAD read_imageui(read_only T im, sampler_t s, FC c) {      \
    return as_uint4(read_i(LAYOUT(im), bits_of(s), FAT(c), AXES, LAYERED));  \
  }

/* read_image{f,i,ui} without a sampler of a read_only image of type T
 * (the texture's where there is one); BUF: a 1D buffer image. */
#define PLAIN_READS_READ_ONLY(T, IC, AT, AXES, LAYERED, BUF)                 \
  float4 WEFT_OVERLOAD read_imagef(read_only T im, IC c) {                   \
    return read_f_at(LAYOUT(im), NO_SAMPLER, AT(c), AXES, LAYERED, BUF);     \
  }                                                                          \
  int4 WEFT_OVERLOAD read_imagei(read_only T im, IC c) {                     \
    return read_i_at(LAYOUT(im), NO_SAMPLER, AT(c), AXES, LAYERED, BUF);     \
  }                                                                          \
  uint4 WEFT_OVERLOAD read_imageui(read_only T im, IC c) {                   \
    return as_uint4(read_i_at(LAYOUT(im), NO_SAMPLER, AT(c), AXES, LAYERED,  \
                              BUF));                                         \
  }

/* The same of a read_write image: its memory, which the kernel may have
 * written (a texture's cache would not see that). */
#define PLAIN_READS(A, T, IC, AT)                                            \
  float4 WEFT_OVERLOAD read_imagef(A T im, IC c) {                           \
    return load_f(LAYOUT(im), AT(c));                                        \
  }                                                                          \
  int4 WEFT_OVERLOAD read_imagei(A T im, IC c) {                             \
    return load_i(LAYOUT(im), AT(c));                                        \
  }                                                                          \
  uint4 WEFT_OVERLOAD read_imageui(A T im, IC c) {                           \
    return load_ui(LAYOUT(im), AT(c));                                       \
  }

#define WRITES(A, T, IC, AT)                                                 \
  void WEFT_OVERLOAD write_imagef(A T im, IC c, float4 v) {                  \
    store_f(LAYOUT(im), AT(c), v);                                           \
  }                                                                          \
  void WEFT_OVERLOAD write_imagei(A T im, IC c, int4 v) {                    \
    store_i(LAYOUT(im), AT(c), v);                                           \
  }                                                                          \
  void WEFT_OVERLOAD write_imageui(A T im, IC c, uint4 v) {                  \
    store_ui(LAYOUT(im), AT(c), v);                                          \
  }

#define QUERIES(A, T)                                                        \
  int WEFT_OVERLOAD get_image_width(A T im) { return LAYOUT(im)->width; }    \
  int WEFT_OVERLOAD get_image_channel_data_type(A T im) {                    \
    return LAYOUT(im)->channel_type;                                         \
  }                                                                          \
  int WEFT_OVERLOAD get_image_channel_order(A T im) {                        \
    return LAYOUT(im)->channel_order;                                        \
  }

#define HEIGHT(A, T)                                                         \
  int WEFT_OVERLOAD get_image_height(A T im) { return LAYOUT(im)->height; }  \
  int2 WEFT_OVERLOAD get_image_dim(A T im) {                                 \
    return (int2)(LAYOUT(im)->width, LAYOUT(im)->height);                    \
  }
#define ARRAY(A, T)                                                          \
  size_t WEFT_OVERLOAD get_image_array_size(A T im) {                        \
    return (size_t)LAYOUT(im)->array_size;                                   \
  }
#define DEPTH(A, T)                                                          \
  int WEFT_OVERLOAD get_image_height(A T im) { return LAYOUT(im)->height; }  \
  int WEFT_OVERLOAD get_image_depth(A T im) { return LAYOUT(im)->depth; }    \
  int4 WEFT_OVERLOAD get_image_dim(A T im) {                                 \
    layout l = LAYOUT(im);                                                   \
    return (int4)(l->width, l->height, l->depth, 0);                         \
  }

/* Every access qualifier's functions of type T. */
#define EACH_ACCESS(M, T) M(read_only, T) M(write_only, T) M(read_write, T)

#define IMAGE_TYPE(T, IC, AT, AXES, LAYERED, BUF)                            \
  PLAIN_READS_READ_ONLY(T, IC, AT, AXES, LAYERED, BUF)                       \
  PLAIN_READS(read_write, T, IC, AT)                                         \
  WRITES(write_only, T, IC, AT)                                              \
  WRITES(read_write, T, IC, AT)                                              \
  EACH_ACCESS(QUERIES, T)

SAMPLED_READS(image1d_t, int, float, AT_1D, FAT_1D, 1, 0)
IMAGE_TYPE(image1d_t, int, AT_1D, 1, 0, 0)
IMAGE_TYPE(image1d_buffer_t, int, AT_1D, 1, 0, 1)
SAMPLED_READS(image1d_array_t, int2, float2, AT_1DA, FAT_1DA, 1, 1)
IMAGE_TYPE(image1d_array_t, int2, AT_1DA, 1, 1, 0)
EACH_ACCESS(ARRAY, image1d_array_t)
SAMPLED_READS(image2d_t, int2, float2, AT_2D, FAT_2D, 2, 0)
IMAGE_TYPE(image2d_t, int2, AT_2D, 2, 0, 0)
EACH_ACCESS(HEIGHT, image2d_t)
SAMPLED_READS(image2d_array_t, int4, float4, AT_3D, FAT_3D, 2, 1)
IMAGE_TYPE(image2d_array_t, int4, AT_3D, 2, 1, 0)
EACH_ACCESS(HEIGHT, image2d_array_t)
EACH_ACCESS(ARRAY, image2d_array_t)
SAMPLED_READS(image3d_t, int4, float4, AT_3D, FAT_3D, 3, 0)
IMAGE_TYPE(image3d_t, int4, AT_3D, 3, 0, 0)
EACH_ACCESS(DEPTH, image3d_t)
