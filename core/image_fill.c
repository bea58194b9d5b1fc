/* image_fill.c: weft_image_fill (weft.h): a colour encoded in an image's
 * format on the host, as the image builtins' writes encode it
 * (builtins/image.cl), then stored in every element of a region. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "builtins/image_layout.h"
#include "core/handles.h"

/* v * scale rounded to nearest even, saturated to [lo, hi] (NaN: 0). */
static long scaled(float v, float scale, long lo, long hi) {
  if (isnan(v)) return 0;
  float x = v * scale;
  if (x <= (float)lo) return lo;
  if (x >= (float)hi) return hi;
  return lrintf(x);
}

static long saturated(long long v, long long lo, long long hi) {
  return (long)(v < lo ? lo : v > hi ? hi : v);
}

/* Which of (r, g, b, a) each stored channel is, and how many there are. */
static int channels(int order, int pick[4]) {
  static const int rgba[4] = {0, 1, 2, 3};
  memcpy(pick, rgba, sizeof rgba);
  switch (order) {
  case WEFT_CL_A: pick[0] = 3; return 1;
  case WEFT_CL_RA: pick[1] = 3; return 2;
  case WEFT_CL_RG: return 2;
  case WEFT_CL_RGB: return 3;
  case WEFT_CL_BGRA: pick[0] = 2; pick[2] = 0; return 4;
  case WEFT_CL_ARGB: pick[0] = 3; pick[1] = 0; pick[2] = 1; pick[3] = 2; return 4;
  case WEFT_CL_RGBA: return 4;
  default: return 1; /* R, INTENSITY, LUMINANCE */
  }
}

/* One channel c of a float colour, stored at p. */
static void put_float(int type, float c, unsigned char *p, int i) {
  switch (type) {
  case WEFT_CL_UNORM_INT8: p[i] = (unsigned char)scaled(c, 255, 0, 255); break;
  case WEFT_CL_SNORM_INT8: ((int8_t *)p)[i] = (int8_t)scaled(c, 127, -128, 127); break;
  case WEFT_CL_UNORM_INT16: ((uint16_t *)p)[i] = (uint16_t)scaled(c, 65535, 0, 65535); break;
  case WEFT_CL_SNORM_INT16: ((int16_t *)p)[i] = (int16_t)scaled(c, 32767, -32768, 32767); break;
  case WEFT_CL_HALF_FLOAT: ((_Float16 *)p)[i] = (_Float16)c; break;
  case WEFT_CL_FLOAT: ((float *)p)[i] = c; break;
  default: break;
  }
}

/* The element bytes of colour for l's format, into out. */
static void encode(const weft_image_layout *l, const void *color,
                   unsigned char *out) {
  const float *f = color;
  const int32_t *si = color;
  const uint32_t *ui = color;
  memset(out, 0, 16);
  int type = l->channel_type;
  if (type == WEFT_CL_UNORM_SHORT_565 || type == WEFT_CL_UNORM_SHORT_555) {
    int g = type == WEFT_CL_UNORM_SHORT_565 ? 63 : 31, shift = g == 63 ? 11 : 10;
    uint16_t w = (uint16_t)(scaled(fminf(fmaxf(f[0], 0), 1), 31, 0, 31) << shift |
                            scaled(fminf(fmaxf(f[1], 0), 1), (float)g, 0, g) << 5 |
                            scaled(fminf(fmaxf(f[2], 0), 1), 31, 0, 31));
    memcpy(out, &w, 2);
    return;
  }
  if (type == WEFT_CL_UNORM_INT_101010) {
    uint32_t w = (uint32_t)(scaled(f[0], 1023, 0, 1023) << 20 |
                            scaled(f[1], 1023, 0, 1023) << 10 |
                            scaled(f[2], 1023, 0, 1023));
    memcpy(out, &w, 4);
    return;
  }
  int pick[4], n = channels(l->channel_order, pick);
  for (int i = 0; i < n; i++) {
    int c = pick[i];
    switch (type) {
    case WEFT_CL_SIGNED_INT8: ((int8_t *)out)[i] = (int8_t)saturated(si[c], INT8_MIN, INT8_MAX); break;
    case WEFT_CL_SIGNED_INT16: ((int16_t *)out)[i] = (int16_t)saturated(si[c], INT16_MIN, INT16_MAX); break;
    case WEFT_CL_SIGNED_INT32: ((int32_t *)out)[i] = si[c]; break;
    case WEFT_CL_UNSIGNED_INT8: out[i] = (uint8_t)saturated(ui[c], 0, UINT8_MAX); break;
    case WEFT_CL_UNSIGNED_INT16: ((uint16_t *)out)[i] = (uint16_t)saturated(ui[c], 0, UINT16_MAX); break;
    case WEFT_CL_UNSIGNED_INT32: ((uint32_t *)out)[i] = ui[c]; break;
    default: put_float(type, f[c], out, i); break;
    }
  }
}

int weft_image_fill(weft_buffer *b, const void *color, const size_t origin[3],
                    const size_t region[3]) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER) || !b->image || !color || !origin ||
      !region)
    return WEFT_EINVAL;
  const weft_image_layout *l = b->image;
  size_t limit[3] = {(size_t)l->width, (size_t)l->height,
                     (size_t)l->depth * (size_t)l->array_size};
  for (int d = 0; d < 3; d++)
    if (!region[d] || origin[d] > limit[d] || region[d] > limit[d] - origin[d])
      return weft__fail(&b->object, WEFT_ERANGE, "the region [%zu, %zu) of "
                        "axis %d is not within the image's %zu", origin[d],
                        origin[d] + region[d], d, limit[d]);
  unsigned char element[16];
  encode(l, color, element);
  size_t es = (size_t)l->element_size;
  for (size_t z = 0; z < region[2]; z++)
    for (size_t y = 0; y < region[1]; y++) {
      size_t at = origin[0] * es + (origin[1] + y) * l->row_pitch +
                  (origin[2] + z) * l->slice_pitch;
      int rc = weft_buffer_fill(b, element, es, at, region[0] * es);
      if (rc) return rc;
    }
  return 0;
}
