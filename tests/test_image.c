/* test_image.c: images and samplers on every device (core/image.c,
 * builtins/image.cl): every format's encoding both ways, the sampler's
 * addressing and filtering against the specification's formulas, every
 * image type, the queries, and the errors. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* OpenCL C's sampler bits, as the host gives them. */
#define CLK_NORMALIZED_COORDS_TRUE WEFT_SAMPLER_NORMALIZED
#define CLK_ADDRESS_CLAMP_TO_EDGE WEFT_SAMPLER_CLAMP_TO_EDGE
#define CLK_ADDRESS_CLAMP WEFT_SAMPLER_CLAMP
#define CLK_ADDRESS_REPEAT WEFT_SAMPLER_REPEAT
#define CLK_ADDRESS_MIRRORED_REPEAT WEFT_SAMPLER_MIRRORED_REPEAT
#define CLK_FILTER_NEAREST WEFT_SAMPLER_NEAREST
#define CLK_FILTER_LINEAR WEFT_SAMPLER_LINEAR

/* A kernel of source (built for CL3.0) on context ctx. */
static weft_kernel *image_kernel(weft_context *ctx, const char *source,
                                 const char *name) {
  weft_program *p = support_build(ctx, source, "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, name, &k), p);
  weft_program_release(p);
  return k;
}

static weft_buffer *image2d(weft_context *ctx, unsigned order, unsigned type,
                            size_t w, size_t h, void *host) {
  weft_image_desc d = {CL_MEM_OBJECT_IMAGE2D, order, type, w, h, 0, 0, 0, 0, NULL};
  weft_buffer *im;
  CHECK_OK(weft_image_create(ctx, host ? WEFT_MEM_COPY_HOST_PTR : 0, &d, host,
                             &im), ctx);
  return im;
}

static void launch(weft_kernel *k, size_t x, size_t y) {
  size_t global[2] = {x, y};
  CHECK_OK(weft_kernel_launch(k, y > 1 ? 2 : 1, NULL, global, NULL), k);
}

/* ---------------------------------------------------------- reading back */

/* Elements written by the host come back through read_imagef without a
 * sampler, and through the buffer functions unchanged. */
TEST(read_2d_float_elements) {
  weft_context *ctx = support_context();
  float host[3][4][4];
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 4; x++)
      for (int c = 0; c < 4; c++) host[y][x][c] = (float)(100 * y + 10 * x + c);
  weft_buffer *im = image2d(ctx, CL_RGBA, CL_FLOAT, 4, 3, host);
  weft_kernel *k = image_kernel(ctx,
      "kernel void k(read_only image2d_t im, global float4 *out) {\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  out[y * 4 + x] = read_imagef(im, (int2)(x, y));\n"
      "}\n", "k");
  weft_buffer *out = support_buffer(ctx, sizeof host, NULL);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, im), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, out), k);
  launch(k, 4, 3);
  float got[3][4][4];
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  CHECK(!memcmp(got, host, sizeof got));
  CHECK_OK(weft_buffer_read(im, 0, sizeof got, got), im);
  CHECK(!memcmp(got, host, sizeof got));
  weft_buffer_release(out);
  weft_buffer_release(im);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Every format: write_image{f,i,ui} of one value per channel stores the
 * format's encoding (checked against one computed here), and reading it
 * back gives the value (normalized: to the format's precision). */
static const char *round_trip_source =
    "kernel void f(write_only image1d_t w, read_only image1d_t r,\n"
    "              float4 v, global float4 *out) {\n"
    "  write_imagef(w, 0, v);\n"
    "  out[0] = read_imagef(r, 0);\n"
    "}\n"
    "kernel void i(write_only image1d_t w, read_only image1d_t r,\n"
    "              int4 v, global int4 *out) {\n"
    "  write_imagei(w, 0, v);\n"
    "  out[0] = read_imagei(r, 0);\n"
    "}\n"
    "kernel void u(write_only image1d_t w, read_only image1d_t r,\n"
    "              uint4 v, global uint4 *out) {\n"
    "  write_imageui(w, 0, v);\n"
    "  out[0] = read_imageui(r, 0);\n"
    "}\n";

/* The value of channel index c (r, g, b, a) the order keeps, or the
 * default (0, or 1 for alpha) it reads back as. */
static double channel_after(unsigned order, int c, const double v[4]) {
  int keeps[4] = {0, 0, 0, 0};
  switch (order) {
  case CL_R: keeps[0] = 1; break;
  case CL_A: keeps[3] = 1; break;
  case CL_RG: keeps[0] = keeps[1] = 1; break;
  case CL_RA: keeps[0] = keeps[3] = 1; break;
  case CL_RGB: keeps[0] = keeps[1] = keeps[2] = 1; break;
  case CL_INTENSITY: return v[0];
  case CL_LUMINANCE: return c == 3 ? 1 : v[0];
  default: keeps[0] = keeps[1] = keeps[2] = keeps[3] = 1; break;
  }
  return keeps[c] ? v[c] : (c == 3 ? 1 : 0);
}

/* The stored channels of v in the order's storage order. */
static int storage_order(unsigned order, int *pick) {
  static const int rgba[4] = {0, 1, 2, 3}, bgra[4] = {2, 1, 0, 3},
                   argb[4] = {3, 0, 1, 2};
  const int *from = order == CL_BGRA ? bgra : order == CL_ARGB ? argb : rgba;
  memcpy(pick, from, 4 * sizeof *pick);
  switch (order) {
  case CL_A: pick[0] = 3; return 1;
  case CL_RA: pick[1] = 3; return 2;
  case CL_R: case CL_INTENSITY: case CL_LUMINANCE: return 1;
  case CL_RG: return 2;
  default: return 4;
  }
}

static int is_integer(unsigned type) {
  return type >= CL_SIGNED_INT8 && type <= CL_UNSIGNED_INT32;
}

/* The bytes a normalized or float channel value v is stored as. */
static void encode(unsigned type, double v, unsigned char *p) {
  switch (type) {
  case CL_UNORM_INT8: *p = (unsigned char)lrint(fmin(fmax(v, 0), 1) * 255); break;
  case CL_SNORM_INT8: *(signed char *)p = (signed char)lrint(fmin(fmax(v, -1), 1) * 127); break;
  case CL_UNORM_INT16: { unsigned short s = (unsigned short)lrint(fmin(fmax(v, 0), 1) * 65535); memcpy(p, &s, 2); break; }
  case CL_SNORM_INT16: { short s = (short)lrint(fmin(fmax(v, -1), 1) * 32767); memcpy(p, &s, 2); break; }
  case CL_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
  case CL_HALF_FLOAT: { /* the values used are exact in half */
    float f = (float)v;
    unsigned bits;
    memcpy(&bits, &f, 4);
    unsigned short h = (unsigned short)((bits >> 16 & 0x8000) |
                                        (f == 0 ? 0 : (((bits >> 23 & 0xff) - 112) << 10 | (bits >> 13 & 0x3ff))));
    memcpy(p, &h, 2);
    break;
  }
  }
}

static double precision(unsigned type) {
  switch (type) {
  case CL_UNORM_INT8: return 1 / 255.0;
  case CL_SNORM_INT8: return 1 / 127.0;
  case CL_UNORM_INT16: return 1 / 65535.0;
  case CL_SNORM_INT16: return 1 / 32767.0;
  case CL_UNORM_SHORT_565: case CL_UNORM_SHORT_555: return 1 / 31.0;
  case CL_UNORM_INT_101010: return 1 / 1023.0;
  default: return 0;
  }
}

static void round_trip(weft_context *ctx, weft_program *p, unsigned order,
                       unsigned type) {
  size_t size = weft_image_element_size(order, type);
  CHECK(size > 0 && size <= 16);
  int integer = is_integer(type);
  int is_signed = type == CL_SIGNED_INT8 || type == CL_SIGNED_INT16 || type == CL_SIGNED_INT32;
  const char *name = integer ? (is_signed ? "i" : "u") : "f";
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, name, &k), p);
  weft_image_desc d = {CL_MEM_OBJECT_IMAGE1D, order, type, 1, 0, 0, 0, 0, 0, NULL};
  weft_buffer *im, *out = support_buffer(ctx, 16, NULL);
  CHECK_OK(weft_image_create(ctx, 0, &d, NULL, &im), ctx);
  double v[4] = {0.25, 0.5, 0.75, 1.0};
  int iv[4] = {-7, 100, 3, 127};
  unsigned uv[4] = {7, 100, 3, 200};
  float fv[4];
  for (int c = 0; c < 4; c++) fv[c] = (float)v[c];
  if (type == CL_SNORM_INT8 || type == CL_SNORM_INT16) fv[0] = -0.5f, v[0] = -0.5;
  CHECK_OK(weft_kernel_set_arg_image(k, 0, im), k);
  CHECK_OK(weft_kernel_set_arg_image(k, 1, im), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 2, integer ? (is_signed ? (void *)iv : (void *)uv)
                                                   : (void *)fv, 16), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 3, out), k);
  launch(k, 1, 1);
  /* A second launch reads what the first wrote. */
  launch(k, 1, 1);
  unsigned char stored[16] = {0}, want[16] = {0};
  CHECK_OK(weft_buffer_read(im, 0, size, stored), im);
  int pick[4], n = storage_order(order, pick);
  size_t channel = size / (size_t)(order == CL_RGB ? 1 : n);
  if (order == CL_RGB) {
    /* packed: r, g, b from the top bits down */
    unsigned word = 0;
    if (type == CL_UNORM_INT_101010)
      word = (unsigned)lrint(v[0] * 1023) << 20 | (unsigned)lrint(v[1] * 1023) << 10 | (unsigned)lrint(v[2] * 1023);
    else if (type == CL_UNORM_SHORT_565)
      word = (unsigned)lrint(v[0] * 31) << 11 | (unsigned)lrint(v[1] * 63) << 5 | (unsigned)lrint(v[2] * 31);
    else
      word = (unsigned)lrint(v[0] * 31) << 10 | (unsigned)lrint(v[1] * 31) << 5 | (unsigned)lrint(v[2] * 31);
    memcpy(want, &word, size);
  } else {
    for (int c = 0; c < n; c++) {
      unsigned char *at = want + (size_t)c * channel;
      if (!integer) encode(type, v[pick[c]], at);
      else if (is_signed) { long long x = iv[pick[c]]; memcpy(at, &x, channel); }
      else { unsigned long long x = uv[pick[c]]; memcpy(at, &x, channel); }
    }
  }
  if (memcmp(stored, want, size))
    FAIL("format %#x %#x: stored %02x%02x%02x%02x..., expected %02x%02x%02x%02x...",
         order, type, stored[0], stored[1], stored[2], stored[3], want[0],
         want[1], want[2], want[3]);
  if (integer) {
    int got[4];
    CHECK_OK(weft_buffer_read(out, 0, 16, got), out);
    for (int c = 0; c < 4; c++) {
      double expect = channel_after(order, c, is_signed ? (double[4]){iv[0], iv[1], iv[2], iv[3]}
                                                        : (double[4]){uv[0], uv[1], uv[2], uv[3]});
      if (got[c] != (int)expect)
        FAIL("format %#x %#x: channel %d read %d, not %g", order, type, c, got[c], expect);
    }
  } else {
    float got[4];
    CHECK_OK(weft_buffer_read(out, 0, 16, got), out);
    for (int c = 0; c < 4; c++) {
      double expect = channel_after(order, c, v);
      if (fabs(got[c] - expect) > precision(type) / 2 + 1e-6)
        FAIL("format %#x %#x: channel %d read %g, not %g", order, type, c, got[c], expect);
    }
  }
  weft_buffer_release(out);
  weft_buffer_release(im);
  weft_kernel_release(k);
}

TEST(every_format_both_ways) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, round_trip_source, "-cl-std=CL3.0");
  unsigned formats[256][2];
  size_t n = weft_image_formats(formats, 256);
  CHECK(n >= 40 && n <= 256);
  for (size_t i = 0; i < n; i++) round_trip(ctx, p, formats[i][0], formats[i][1]);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* ------------------------------------------------------------- samplers */

/* A 1D image of 4 floats 10, 20, 30, 40 sampled at coordinates by a
 * sampler of the given bits (a kernel argument, and the same bits as a
 * sampler written in the program). */
static const char *sample_source =
    "kernel void s(read_only image1d_t im, sampler_t smp, global float *at,\n"
    "              global float *out) {\n"
    "  int i = get_global_id(0);\n"
    "  out[i] = read_imagef(im, smp, at[i]).x;\n"
    "}\n"
    "constant sampler_t repeat_linear = CLK_NORMALIZED_COORDS_TRUE |\n"
    "    CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;\n"
    "kernel void inline_sampler(read_only image1d_t im, global float *at,\n"
    "                           global float *out) {\n"
    "  int i = get_global_id(0);\n"
    "  const sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;\n"
    "  out[2 * i] = read_imagef(im, nearest, at[i]).x;\n"
    "  out[2 * i + 1] = read_imagef(im, repeat_linear, at[i]).x;\n"
    "}\n";

/* The specification's formulas (OpenCL 3.0, 8.2) for a 1D image of
 * values[4], with border colour (0, 0, 0, 1): the expected result. */
static double element(const double *values, int i) {
  return i < 0 || i > 3 ? 0 : values[i];
}

static double reference(const double *values, unsigned bits, double s) {
  int normalized = bits & CLK_NORMALIZED_COORDS_TRUE, w = 4;
  unsigned mode = bits & 0xE;
  int linear = (bits & CLK_FILTER_LINEAR) != 0;
  double u;
  if (normalized && mode == CLK_ADDRESS_REPEAT) {
    u = (s - floor(s)) * w;
    if (!linear) {
      int i = (int)floor(u);
      return element(values, i > w - 1 ? i - w : i);
    }
    int i0 = (int)floor(u - 0.5), i1 = i0 + 1;
    double a = (u - 0.5) - floor(u - 0.5);
    if (i0 < 0) i0 += w;
    if (i1 > w - 1) i1 -= w;
    return (1 - a) * element(values, i0) + a * element(values, i1);
  }
  if (normalized && mode == CLK_ADDRESS_MIRRORED_REPEAT) {
    double m = fabs(s - 2 * nearbyint(0.5 * s));
    u = m * w;
    if (!linear) return element(values, (int)fmin(floor(u), w - 1));
    int i0 = (int)floor(u - 0.5), i1 = i0 + 1;
    double a = (u - 0.5) - floor(u - 0.5);
    i0 = i0 < 0 ? 0 : i0;
    i1 = i1 > w - 1 ? w - 1 : i1;
    return (1 - a) * element(values, i0) + a * element(values, i1);
  }
  u = normalized ? s * w : s;
  int clamp_edge = mode != CLK_ADDRESS_CLAMP;
#define ADDRESS(i) (clamp_edge ? ((i) < 0 ? 0 : (i) > w - 1 ? w - 1 : (i)) \
                               : ((i) < -1 ? -1 : (i) > w ? w : (i)))
  if (!linear) return element(values, ADDRESS((int)floor(u)));
  int i0 = (int)floor(u - 0.5);
  double a = (u - 0.5) - floor(u - 0.5);
  return (1 - a) * element(values, ADDRESS(i0)) + a * element(values, ADDRESS(i0 + 1));
#undef ADDRESS
}

/* Whether got is what sampler bits give at s (of a 1D image of 4
 * elements): the formulas' value, or on texture hardware (the GPU) that at
 * a coordinate off by up to 1/256 of an element (its fixed-point
 * coordinates), within 1/256 of the largest difference of two elements
 * (its 8-bit filtering weights). */
static int sampled(const double *values, unsigned bits, double s, float got,
                   int hardware) {
  if (fabs(got - reference(values, bits, s)) <= 1e-3) return 1;
  double step = (bits & CLK_NORMALIZED_COORDS_TRUE ? 0.25 : 1.0) / 256;
  double slack = bits & CLK_FILTER_LINEAR ? 40.0 / 256 : 0;
  for (int k = -1; hardware && k <= 1; k++)
    if (fabs(got - reference(values, bits, s + k * step)) <= 1e-3 + slack)
      return 1;
  return 0;
}

TEST(sampler_addressing_and_filtering) {
  weft_context *ctx = support_context();
  int hardware = support_device_info().kind == WEFT_DEVICE_GPU;
  float texels[4] = {10, 20, 30, 40};
  static const double values[4] = {10, 20, 30, 40};
  weft_image_desc d = {CL_MEM_OBJECT_IMAGE1D, CL_R, CL_FLOAT, 4, 0, 0, 0, 0, 0, NULL};
  weft_buffer *im;
  CHECK_OK(weft_image_create(ctx, WEFT_MEM_COPY_HOST_PTR, &d, texels, &im), ctx);
  weft_program *p = support_build(ctx, sample_source, "-cl-std=CL3.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "s", &k), p);
  enum { N = 48 };
  float at[N], unit[N], got[N];
  for (int i = 0; i < N; i++) {
    at[i] = -1.3f + 0.13f * (float)i; /* -1.3 .. 4.8 */
    unit[i] = at[i] / 4;              /* normalized, -0.325 .. 1.2 */
  }
  weft_buffer *coords = support_buffer(ctx, sizeof at, at),
              *normalized_coords = support_buffer(ctx, sizeof unit, unit),
              *out = support_buffer(ctx, sizeof got, NULL);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, im), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 3, out), k);
  static const unsigned modes[] = {CLK_ADDRESS_CLAMP_TO_EDGE, CLK_ADDRESS_CLAMP,
                                   CLK_ADDRESS_REPEAT, CLK_ADDRESS_MIRRORED_REPEAT};
  for (int normalized = 0; normalized < 2; normalized++)
    for (int m = 0; m < 4; m++)
      for (int linear = 0; linear < 2; linear++) {
        if (!normalized && m >= 2) continue; /* repeats need normalized */
        unsigned bits = (normalized ? CLK_NORMALIZED_COORDS_TRUE : 0) | modes[m] |
                        (linear ? CLK_FILTER_LINEAR : CLK_FILTER_NEAREST);
        CHECK_OK(weft_kernel_set_arg_sampler(k, 1, bits), k);
        CHECK_OK(weft_kernel_set_arg_buffer(k, 2, normalized ? normalized_coords
                                                             : coords), k);
        launch(k, N, 1);
        CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
        for (int i = 0; i < N; i++) {
          double s = normalized ? unit[i] : at[i];
          if (!sampled(values, bits, s, got[i], hardware))
            FAIL("sampler %#x at %g: %g, not %g", bits, s, got[i],
                 reference(values, bits, s));
        }
      }
  weft_kernel_release(k);
  /* Samplers written in the program. */
  CHECK_OK(weft_kernel_create(p, "inline_sampler", &k), p);
  weft_buffer *out2 = support_buffer(ctx, 2 * sizeof got, NULL);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, im), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, coords), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, out2), k);
  /* (The repeating sampler reads at[i] as normalized.) */
  launch(k, N, 1);
  float got2[2 * N];
  CHECK_OK(weft_buffer_read(out2, 0, sizeof got2, got2), out2);
  for (int i = 0; i < N; i++) {
    CHECK(sampled(values, CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST, at[i],
                  got2[2 * i], hardware));
    CHECK(sampled(values, CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT |
                              CLK_FILTER_LINEAR,
                  at[i], got2[2 * i + 1], hardware));
  }
  weft_buffer_release(out2);
  weft_buffer_release(normalized_coords);
  weft_buffer_release(coords);
  weft_buffer_release(out);
  weft_buffer_release(im);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* Bilinear filtering of a 2D UNORM_INT8 image: the weights of the four
 * elements around the coordinate. */
TEST(bilinear_2d) {
  weft_context *ctx = support_context();
  unsigned char texels[2][2] = {{0, 255}, {51, 204}}; /* 0, 1, 0.2, 0.8 */
  weft_buffer *im = image2d(ctx, CL_R, CL_UNORM_INT8, 2, 2, texels);
  weft_kernel *k = image_kernel(ctx,
      "kernel void k(read_only image2d_t im, global float *out) {\n"
      "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
      "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
      "  out[0] = read_imagef(im, s, (float2)(1.0f, 1.0f)).x;\n"
      "  out[1] = read_imagef(im, s, (float2)(1.25f, 0.5f)).x;\n"
      "  out[2] = read_imagef(im, s, (float2)(0.0f, 2.0f)).w;\n"
      "}\n", "k");
  weft_buffer *out = support_buffer(ctx, 3 * sizeof(float), NULL);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, im), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, out), k);
  launch(k, 1, 1);
  float got[3];
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  /* The middle: all four equally. */
  CHECK(fabsf(got[0] - 0.5f) < 1e-5f);
  /* Row 0 only, 3/4 of the way from x=0 to x=1. */
  CHECK(fabsf(got[1] - 0.75f) < 1e-5f);
  CHECK(got[2] == 1.0f); /* CL_R reads alpha as 1 */
  weft_buffer_release(out);
  weft_buffer_release(im);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Read-only images of one or two axes whose rows the texture hardware
 * can address are read through it on a device that has one (the GPU):
 * linear filtering then weighs with 8 fractional bits, as OpenCL allows,
 * where the CPU computes the weight in full. Launches see what earlier
 * ones wrote (no stale texture cache), integer coordinates clamp to the
 * edge, and a 1D buffer image is read by index. */
TEST(texture_reads) {
  weft_context *ctx = support_context();
  int hardware = support_device_info().kind == WEFT_DEVICE_GPU;
  /* 32 floats a row: a 128-byte pitch, a multiple of every GPU's texture
   * pitch alignment. */
  float texels[2][32] = {{0}};
  texels[0][1] = texels[1][1] = 256;
  texels[0][31] = 5;
  weft_buffer *im = image2d(ctx, CL_R, CL_FLOAT, 32, 2, texels);
  weft_image_desc d1 = {CL_MEM_OBJECT_IMAGE1D, CL_R, CL_FLOAT, 32, 0, 0, 0, 0, 0, NULL};
  weft_buffer *im1;
  CHECK_OK(weft_image_create(ctx, WEFT_MEM_COPY_HOST_PTR, &d1, texels[0], &im1), ctx);
  weft_buffer *mem = support_buffer(ctx, sizeof texels[0], texels[0]);
  weft_image_desc db = {CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_R, CL_FLOAT, 32, 0, 0, 0, 0, 0, mem};
  weft_buffer *imb;
  CHECK_OK(weft_image_create(ctx, 0, &db, NULL, &imb), ctx);
  weft_kernel *k = image_kernel(ctx,
      "kernel void k(read_only image2d_t im, read_only image1d_t im1,\n"
      "              read_only image1d_buffer_t imb, global float *out) {\n"
      "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
      "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
      "  const sampler_t n = CLK_NORMALIZED_COORDS_TRUE |\n"
      "      CLK_ADDRESS_REPEAT | CLK_FILTER_NEAREST;\n"
      "  float x = 1.0f + 1.0f / 1024;\n"
      "  out[0] = read_imagef(im, s, (float2)(x, 1.0f)).x;\n"
      "  out[1] = read_imagef(im1, s, x).x;\n"
      "  out[2] = read_imagef(im, n, (float2)(1.5f / 32 + 1, 0.25f)).x;\n"
      "  out[3] = read_imagef(im1, 1).x + read_imagef(imb, 1).x;\n"
      "  out[4] = read_imagef(im, (int2)(3, 0)).x;\n"
      "  const sampler_t e = CLK_NORMALIZED_COORDS_FALSE |\n"
      "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
      "  out[5] = read_imagef(im, e, (int2)(40, 0)).x;\n"
      "}\n", "k");
  weft_kernel *w = image_kernel(ctx,
      "kernel void w(write_only image2d_t im) {\n"
      "  write_imagef(im, (int2)(get_global_id(0), 0), (float4)(7));\n"
      "}\n", "w");
  weft_buffer *out = support_buffer(ctx, 6 * sizeof(float), NULL);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, im), k);
  CHECK_OK(weft_kernel_set_arg_image(k, 1, im1), k);
  CHECK_OK(weft_kernel_set_arg_image(k, 2, imb), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 3, out), k);
  CHECK_OK(weft_kernel_set_arg_image(w, 0, im), w);
  launch(k, 1, 1);
  float got[6];
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  /* Weight 0.5 + 1/1024 of 256: 128.25 in full, 128 in 8 bits. */
  float filtered = hardware ? 128.0f : 128.25f;
  if (got[0] != filtered || got[1] != filtered)
    FAIL("linear filtering gave %.9g (2D) and %.9g (1D), not %g", got[0],
         got[1], filtered);
  CHECK_EQ(got[2], 256.0f); /* repeat: x = 1.5/32 + 1 wraps to element 1 */
  CHECK_EQ(got[3], 512.0f);
  CHECK_EQ(got[4], 0.0f);
  /* Integer coordinates past the edge, clamped to it (the hardware's
   * integer coordinates would give the border). */
  CHECK_EQ(got[5], 5.0f);
  launch(w, 32, 1);
  launch(k, 1, 1);
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  CHECK_EQ(got[4], 7.0f); /* the write of the launch before */
  weft_buffer_release(out);
  weft_buffer_release(imb);
  weft_buffer_release(mem);
  weft_buffer_release(im1);
  weft_buffer_release(im);
  weft_kernel_release(w);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Arrays and 3D images are read through the texture hardware on the GPU,
 * from a copy in a CUDA array (backend/cuda/cuda_image_arrays.c): linear
 * filtering in 3D and within a layer (8-bit weights there, as in
 * texture_reads), an array's layer rounded to even and clamped, normalized
 * coordinates that repeat, and every way of writing the image between
 * launches seen by the next read: a kernel, a write of its memory, a
 * fill. On the CPU the same values from the software reads. */
static const char *array_reads_source =
    "kernel void k(read_only image3d_t v, read_only image2d_array_t a,\n"
    "              read_only image1d_array_t b, global float *out) {\n"
    "  const sampler_t lin = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
    "  const sampler_t near = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;\n"
    "  const sampler_t rep = CLK_NORMALIZED_COORDS_TRUE |\n"
    "      CLK_ADDRESS_REPEAT | CLK_FILTER_NEAREST;\n"
    "  out[0] = read_imagef(v, lin, (float4)(1.5f, 2.0f, 2.5f, 0)).x;\n"
    "  out[1] = read_imagef(a, lin, (float4)(2.0f, 1.5f, 1.6f, 0)).x;\n"
    "  out[2] = read_imagef(a, near, (float4)(0.5f, 0.5f, 7.0f, 0)).x;\n"
    "  out[3] = read_imagef(a, near, (float4)(3.5f, 3.5f, -2.0f, 0)).x;\n"
    "  out[4] = read_imagef(b, lin, (float2)(3.0f, 0.5f)).x;\n"
    "  out[5] = read_imagef(v, (int4)(3, 3, 3, 0)).x;\n"
    "  out[6] = read_imagef(a, (int4)(2, 1, 1, 0)).x;\n"
    "  out[7] = read_imagef(b, (int2)(1, 2)).x;\n"
    "  out[8] = read_imagef(v, rep, (float4)(1.125f, 0.375f, 0.875f, 0)).x;\n"
    "  out[9] = read_imagef(v, lin, (float4)(1.0f + 1.0f / 1024, 0.5f, 0.5f, 0)).x;\n"
    "}\n"
    "kernel void w(write_only image3d_t v) {\n"
    "  write_imagef(v, (int4)(3, 3, 3, 0), (float4)(-1.0f));\n"
    "}\n";

TEST(array_and_3d_texture_reads) {
  weft_context *ctx = support_context();
  int hardware = support_device_info().kind == WEFT_DEVICE_GPU;
  float v[4][4][4], a[3][4][4], b[3][4];
  for (int z = 0; z < 4; z++)
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < 4; x++) {
        v[z][y][x] = (float)(x + 10 * y + 100 * z);
        if (z < 3) a[z][y][x] = (float)(x + 10 * y + 100 * z);
        if (z < 3 && y == 0) b[z][x] = (float)(x + 100 * z);
      }
  weft_image_desc dv = {CL_MEM_OBJECT_IMAGE3D, CL_R, CL_FLOAT, 4, 4, 4, 0, 0, 0, NULL};
  weft_image_desc da = {CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_R, CL_FLOAT, 4, 4, 0, 3, 0, 0, NULL};
  weft_image_desc db = {CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_R, CL_FLOAT, 4, 0, 0, 3, 0, 0, NULL};
  weft_buffer *iv, *ia, *ib;
  CHECK_OK(weft_image_create(ctx, WEFT_MEM_COPY_HOST_PTR, &dv, v, &iv), ctx);
  CHECK_OK(weft_image_create(ctx, WEFT_MEM_COPY_HOST_PTR, &da, a, &ia), ctx);
  CHECK_OK(weft_image_create(ctx, WEFT_MEM_COPY_HOST_PTR, &db, b, &ib), ctx);
  weft_kernel *k = image_kernel(ctx, array_reads_source, "k");
  weft_kernel *w = image_kernel(ctx, array_reads_source, "w");
  weft_buffer *out = support_buffer(ctx, 10 * sizeof(float), NULL);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, iv), k);
  CHECK_OK(weft_kernel_set_arg_image(k, 1, ia), k);
  CHECK_OK(weft_kernel_set_arg_image(k, 2, ib), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 3, out), k);
  CHECK_OK(weft_kernel_set_arg_image(w, 0, iv), w);
  launch(k, 1, 1);
  float got[10];
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  static const float expect[9] = {216, 211.5f, 200, 33, 2.5f, 333, 112, 201, 310};
  for (int i = 0; i < 9; i++)
    if (got[i] != expect[i]) FAIL("read %d gave %g, not %g", i, got[i], expect[i]);
  /* Weight 0.5 + 1/1024: in full on the CPU, in 8 bits by the hardware. */
  float filtered = hardware ? 0.5f : 0.5f + 1.0f / 1024;
  if (got[9] != filtered)
    FAIL("linear filtering in 3D gave %.9g, not %.9g", got[9], filtered);
  /* A kernel's write, then a write of the memory, then a fill. */
  launch(w, 1, 1);
  launch(k, 1, 1);
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  CHECK(got[5] == -1.0f);
  weft_image_desc described;
  CHECK_OK(weft_image_describe(ia, &described), ia);
  float five = 5;
  CHECK_OK(weft_buffer_write(ia, described.slice_pitch + described.row_pitch +
                                     2 * sizeof five, sizeof five, &five), ia);
  launch(k, 1, 1);
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  CHECK(got[6] == 5.0f);
  float nine[4] = {9, 9, 9, 9};
  size_t origin[3] = {0, 0, 0}, region[3] = {4, 4, 4};
  CHECK_OK(weft_image_fill(iv, nine, origin, region), iv);
  launch(k, 1, 1);
  CHECK_OK(weft_buffer_read(out, 0, sizeof got, got), out);
  CHECK(got[0] == 9.0f && got[5] == 9.0f);
  weft_buffer_release(out);
  weft_buffer_release(ib);
  weft_buffer_release(ia);
  weft_buffer_release(iv);
  weft_kernel_release(w);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* ------------------------------------------------ types, layers, queries */

/* Each image type: its queries, and a copy through write and read of
 * every element (arrays by layer, 3D by slice), pitches of host data
 * taken into account. */
static const char *types_source =
    "kernel void q1(read_only image1d_array_t a, read_only image2d_array_t b,\n"
    "               write_only image3d_t c, read_write image2d_t d,\n"
    "               global int *out) {\n"
    "  out[0] = get_image_width(a); out[1] = get_image_array_size(a);\n"
    "  out[2] = get_image_width(b); out[3] = get_image_height(b);\n"
    "  out[4] = get_image_array_size(b);\n"
    "  int4 dim = get_image_dim(c);\n"
    "  out[5] = dim.x; out[6] = dim.y; out[7] = dim.z; out[8] = dim.w;\n"
    "  out[9] = get_image_channel_order(d);\n"
    "  out[10] = get_image_channel_data_type(d);\n"
    "  int2 d2 = get_image_dim(d); out[11] = d2.x; out[12] = d2.y;\n"
    "}\n"
    "kernel void copy3d(read_only image3d_t from, write_only image3d_t to) {\n"
    "  int4 at = (int4)(get_global_id(0), get_global_id(1), get_global_id(2), 0);\n"
    "  write_imageui(to, at, read_imageui(from, at) + 1);\n"
    "}\n"
    "kernel void layers(read_only image2d_array_t from, sampler_t s,\n"
    "                   global uint *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1), l = get_global_id(2);\n"
    "  out[(l * 2 + y) * 3 + x] = read_imageui(from, s,\n"
    "      (float4)(x + 0.5f, y + 0.5f, l, 0)).x;\n"
    "}\n"
    "kernel void rw(read_write image2d_t im) {\n"
    "  int2 at = (int2)(get_global_id(0), 0);\n"
    "  write_imagei(im, at, read_imagei(im, at) * 2);\n"
    "}\n";

TEST(types_layers_and_queries) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, types_source, "-cl-std=CL3.0");
  weft_kernel *q;
  CHECK_OK(weft_kernel_create(p, "q1", &q), p);
  weft_image_desc d1 = {CL_MEM_OBJECT_IMAGE1D_ARRAY, CL_RGBA, CL_UNORM_INT8, 5, 0, 0, 3, 0, 0, NULL};
  weft_image_desc d2 = {CL_MEM_OBJECT_IMAGE2D_ARRAY, CL_R, CL_UNSIGNED_INT32, 3, 2, 0, 4, 0, 0, NULL};
  weft_image_desc d3 = {CL_MEM_OBJECT_IMAGE3D, CL_R, CL_UNSIGNED_INT16, 3, 2, 2, 0, 0, 0, NULL};
  weft_image_desc d4 = {CL_MEM_OBJECT_IMAGE2D, CL_RG, CL_SIGNED_INT16, 7, 1, 0, 0, 0, 0, NULL};
  /* A 2D array from host data with padded rows and slices. */
  unsigned host2[4][3][4]; /* 4 layers, rows of 4 (3 used), 3 rows (2 used) */
  for (int l = 0; l < 4; l++)
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 4; x++) host2[l][y][x] = (unsigned)(100 * l + 10 * y + x);
  d2.row_pitch = sizeof host2[0][0];
  d2.slice_pitch = sizeof host2[0];
  weft_buffer *a, *b, *c, *dd;
  CHECK_OK(weft_image_create(ctx, 0, &d1, NULL, &a), ctx);
  CHECK_OK(weft_image_create(ctx, WEFT_MEM_COPY_HOST_PTR, &d2, host2, &b), ctx);
  CHECK_OK(weft_image_create(ctx, 0, &d3, NULL, &c), ctx);
  CHECK_OK(weft_image_create(ctx, 0, &d4, NULL, &dd), ctx);
  weft_buffer *out = support_ints(ctx, 13, -1);
  CHECK_OK(weft_kernel_set_arg_image(q, 0, a), q);
  CHECK_OK(weft_kernel_set_arg_image(q, 1, b), q);
  CHECK_OK(weft_kernel_set_arg_image(q, 2, c), q);
  CHECK_OK(weft_kernel_set_arg_image(q, 3, dd), q);
  CHECK_OK(weft_kernel_set_arg_buffer(q, 4, out), q);
  launch(q, 1, 1);
  int got[13];
  support_read_ints(out, got, 13);
  int want[13] = {5, 3, 3, 2, 4, 3, 2, 2, 0, CL_RG, CL_SIGNED_INT16, 7, 1};
  for (int i = 0; i < 13; i++) CHECK_EQ(got[i], want[i]);
  /* Described with the storage's packed pitches. */
  weft_image_desc back;
  CHECK_OK(weft_image_describe(b, &back), b);
  CHECK_EQ(back.row_pitch, 12);
  CHECK_EQ(back.slice_pitch, 24);
  CHECK_EQ(back.array_size, 4);
  CHECK_EQ(back.depth, 0);
  /* Layers through a sampler (unnormalized, nearest). */
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "layers", &k), p);
  weft_buffer *lo = support_ints(ctx, 24, -1);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_sampler(k, 1, CLK_ADDRESS_CLAMP_TO_EDGE), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, lo), k);
  size_t global[3] = {3, 2, 4};
  CHECK_OK(weft_kernel_launch(k, 3, NULL, global, NULL), k);
  int layers[24];
  support_read_ints(lo, layers, 24);
  for (int l = 0; l < 4; l++)
    for (int y = 0; y < 2; y++)
      for (int x = 0; x < 3; x++)
        CHECK_EQ(layers[(l * 2 + y) * 3 + x], 100 * l + 10 * y + x);
  weft_kernel_release(k);
  /* 3D: every element, through write-only and read-only arguments. */
  unsigned short host3[2][2][3];
  for (int i = 0; i < 12; i++) (&host3[0][0][0])[i] = (unsigned short)(i * 1000);
  weft_buffer *from;
  d3.row_pitch = d3.slice_pitch = 0;
  CHECK_OK(weft_image_create(ctx, WEFT_MEM_COPY_HOST_PTR | WEFT_MEM_READ_ONLY,
                             &d3, host3, &from), ctx);
  CHECK_OK(weft_kernel_create(p, "copy3d", &k), p);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, from), k);
  CHECK_OK(weft_kernel_set_arg_image(k, 1, c), k);
  size_t g3[3] = {3, 2, 2};
  CHECK_OK(weft_kernel_launch(k, 3, NULL, g3, NULL), k);
  unsigned short copied[12];
  CHECK_OK(weft_buffer_read(c, 0, sizeof copied, copied), c);
  for (int i = 0; i < 12; i++) CHECK_EQ(copied[i], i * 1000 + 1);
  /* A read-only image cannot be a write_only argument. */
  CHECK_FAILS(weft_kernel_set_arg_image(k, 1, from), WEFT_EINVAL, k,
              "the image was made read-only");
  weft_kernel_release(k);
  /* read_write: read, then write the same element. */
  short host4[7][2];
  for (int i = 0; i < 7; i++) host4[i][0] = (short)(i - 3), host4[i][1] = (short)(100 * i);
  CHECK_OK(weft_buffer_write(dd, 0, sizeof host4, host4), dd);
  CHECK_OK(weft_kernel_create(p, "rw", &k), p);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, dd), k);
  launch(k, 7, 1);
  short doubled[7][2];
  CHECK_OK(weft_buffer_read(dd, 0, sizeof doubled, doubled), dd);
  for (int i = 0; i < 7; i++) {
    CHECK_EQ(doubled[i][0], 2 * (i - 3));
    CHECK_EQ(doubled[i][1], 200 * i);
  }
  weft_kernel_release(k);
  weft_buffer *all[] = {a, b, c, dd, out, lo, from};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) weft_buffer_release(all[i]);
  weft_kernel_release(q);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* A 1D buffer image is the buffer's memory: what the kernel writes through
 * the image, the buffer holds. Elements outside an image are the border
 * colour to reads and untouched by writes. */
TEST(buffer_image_and_outside_elements) {
  weft_context *ctx = support_context();
  weft_buffer *mem = support_ints(ctx, 16, 0);
  weft_image_desc d = {CL_MEM_OBJECT_IMAGE1D_BUFFER, CL_RGBA, CL_SIGNED_INT32, 4, 0, 0, 0, 0, 0, mem};
  weft_buffer *im;
  CHECK_OK(weft_image_create(ctx, 0, &d, NULL, &im), ctx);
  weft_image_desc back;
  CHECK_OK(weft_image_describe(im, &back), im);
  CHECK(back.buffer == mem);
  weft_kernel *k = image_kernel(ctx,
      "kernel void k(write_only image1d_buffer_t w, read_only image1d_buffer_t r,\n"
      "              global int4 *out) {\n"
      "  int i = get_global_id(0);\n"
      "  write_imagei(w, i, (int4)(i, -i, 2 * i, 7));\n"
      "  out[i] = read_imagei(r, i + 1000);\n"
      "}\n", "k");
  weft_buffer *out = support_ints(ctx, 24, -1);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, im), k);
  CHECK_OK(weft_kernel_set_arg_image(k, 1, im), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, out), k);
  launch(k, 6, 1); /* two work-items past the end */
  int got[24];
  support_read_ints(mem, got, 16);
  for (int i = 0; i < 4; i++) {
    CHECK_EQ(got[4 * i], i);
    CHECK_EQ(got[4 * i + 1], -i);
    CHECK_EQ(got[4 * i + 2], 2 * i);
    CHECK_EQ(got[4 * i + 3], 7);
  }
  support_read_ints(out, got, 24);
  for (int i = 0; i < 24; i++) CHECK_EQ(got[i], 0); /* RGBA's border */
  weft_buffer_release(out);
  weft_buffer_release(im);
  weft_buffer_release(mem);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Arguments are told apart by their types with typedefs resolved: a
 * typedef of an image is an image, a pointer to a struct named image_* or
 * pipeline_* is a buffer (the CTS's kernel_image_methods passes one). */
TEST(argument_kinds_by_base_type) {
  weft_context *ctx = support_context();
  weft_kernel *k = image_kernel(ctx,
      "typedef image2d_t picture;\n"
      "typedef struct { int width, height; } image_data;\n"
      "typedef struct { int stages; } pipeline_t;\n"
      "kernel void k(read_only picture im, global image_data *out,\n"
      "              global pipeline_t *p) {\n"
      "  out->width = get_image_width(im);\n"
      "  out->height = get_image_height(im);\n"
      "  p->stages = 3;\n"
      "}\n", "k");
  weft_arg_info info;
  CHECK_OK(weft_kernel_arg_info(k, 0, &info), k);
  CHECK_EQ(info.kind, WEFT_ARG_IMAGE);
  CHECK_OK(weft_kernel_arg_info(k, 1, &info), k);
  CHECK_EQ(info.kind, WEFT_ARG_BUFFER);
  CHECK_OK(weft_kernel_arg_info(k, 2, &info), k);
  CHECK_EQ(info.kind, WEFT_ARG_BUFFER);
  weft_buffer *im = image2d(ctx, CL_RGBA, CL_FLOAT, 5, 3, NULL),
              *out = support_ints(ctx, 2, 0), *p = support_ints(ctx, 1, 0);
  CHECK_OK(weft_kernel_set_arg_image(k, 0, im), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, out), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, p), k);
  launch(k, 1, 1);
  int got[2];
  support_read_ints(out, got, 2);
  CHECK_EQ(got[0], 5);
  CHECK_EQ(got[1], 3);
  support_read_ints(p, got, 1);
  CHECK_EQ(got[0], 3);
  weft_buffer_release(im);
  weft_buffer_release(out);
  weft_buffer_release(p);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* weft_image_fill encodes the colour as the writes do (a float colour
 * into half and 8-bit normalized elements, an unsigned one saturated into
 * 16 bits), fills only its region, and refuses one that leaves the
 * image. */
TEST(fill_encodes_and_stays_in_its_region) {
  weft_context *ctx = support_context();
  weft_buffer *h = image2d(ctx, CL_RG, CL_HALF_FLOAT, 4, 3, NULL);
  float colour[4] = {0.5f, -2.0f, 9.0f, 9.0f};
  size_t origin[3] = {1, 1, 0}, region[3] = {2, 2, 1};
  CHECK_OK(weft_image_fill(h, colour, origin, region), h);
  unsigned short halfs[3][4][2];
  CHECK_OK(weft_buffer_read(h, 0, sizeof halfs, halfs), h);
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 4; x++) {
      int in = x >= 1 && x <= 2 && y >= 1;
      CHECK_EQ(halfs[y][x][0], in ? 0x3800 : 0); /* 0.5 */
      CHECK_EQ(halfs[y][x][1], in ? 0xc000 : 0); /* -2.0 */
    }
  weft_buffer *n = image2d(ctx, CL_BGRA, CL_UNORM_INT8, 2, 1, NULL);
  float rgba[4] = {1.0f, 0.2f, -1.0f, 0.5f};
  size_t all[3] = {2, 1, 1}, zero[3] = {0, 0, 0};
  CHECK_OK(weft_image_fill(n, rgba, zero, all), n);
  unsigned char bgra[2][4];
  CHECK_OK(weft_buffer_read(n, 0, sizeof bgra, bgra), n);
  for (int x = 0; x < 2; x++) {
    CHECK_EQ(bgra[x][0], 0);   /* b: -1 clamps to 0 */
    CHECK_EQ(bgra[x][1], 51);  /* g: 0.2 * 255 */
    CHECK_EQ(bgra[x][2], 255); /* r */
    CHECK_EQ(bgra[x][3], 128); /* a: 127.5 rounds to even */
  }
  weft_buffer *u = image2d(ctx, CL_RGBA, CL_UNSIGNED_INT16, 1, 1, NULL);
  unsigned big[4] = {70000, 5, 0, 65535};
  size_t one[3] = {1, 1, 1};
  CHECK_OK(weft_image_fill(u, big, zero, one), u);
  unsigned short got[4];
  CHECK_OK(weft_buffer_read(u, 0, sizeof got, got), u);
  CHECK_EQ(got[0], 65535);
  CHECK_EQ(got[1], 5);
  CHECK_EQ(got[3], 65535);
  size_t past[3] = {2, 3, 1};
  CHECK_FAILS(weft_image_fill(h, colour, origin, past), WEFT_ERANGE, h,
              "the region [1, 4) of axis 1 is not within the image's 3");
  weft_buffer *plain = support_buffer(ctx, 16, NULL);
  CHECK_EQ(weft_image_fill(plain, colour, origin, region), WEFT_EINVAL);
  weft_buffer_release(plain);
  weft_buffer_release(h);
  weft_buffer_release(n);
  weft_buffer_release(u);
  weft_context_release(ctx);
}

/* --------------------------------------------------------------- errors */

TEST(errors) {
  weft_context *ctx = support_context();
  weft_buffer *im = NULL;
  weft_image_desc d = {CL_MEM_OBJECT_IMAGE2D, CL_RGB, CL_FLOAT, 4, 4, 0, 0, 0, 0, NULL};
  CHECK_FAILS(weft_image_create(ctx, 0, &d, NULL, &im), WEFT_EINVAL, ctx,
              "image format (order 0x10b4, type 0x10de) is not one Weft has");
  CHECK_EQ(weft_image_element_size(CL_BGRA, CL_FLOAT), 0);
  CHECK_EQ(weft_image_element_size(CL_BGRA, CL_UNORM_INT8), 4);
  d.channel_order = CL_RGBA;
  d.width = 0;
  CHECK_FAILS(weft_image_create(ctx, 0, &d, NULL, &im), WEFT_EINVAL, ctx,
              "image sizes 0 x 4 x 1");
  d.width = 4;
  d.row_pitch = 64;
  CHECK_FAILS(weft_image_create(ctx, 0, &d, NULL, &im), WEFT_EINVAL, ctx,
              "pitches are given without host memory");
  float host[64];
  d.row_pitch = 60; /* less than a row's 64 bytes */
  CHECK_FAILS(weft_image_create(ctx, WEFT_MEM_COPY_HOST_PTR, &d, host, &im),
              WEFT_EINVAL, ctx, "do not fit rows of 64 bytes");
  d.row_pitch = 0;
  d.type = 0x1234;
  CHECK_FAILS(weft_image_create(ctx, 0, &d, NULL, &im), WEFT_EINVAL, ctx,
              "not an image type");
  d.type = CL_MEM_OBJECT_IMAGE2D;
  CHECK_OK(weft_image_create(ctx, WEFT_MEM_WRITE_ONLY, &d, NULL, &im), ctx);
  weft_kernel *k = image_kernel(ctx,
      "kernel void k(read_only image2d_t im, sampler_t s, global float4 *o) {\n"
      "  o[0] = read_imagef(im, s, (float2)(0));\n"
      "}\n", "k");
  weft_buffer *plain = support_buffer(ctx, 64, NULL);
  CHECK_FAILS(weft_kernel_set_arg_image(k, 0, im), WEFT_EINVAL, k,
              "the image was made write-only");
  CHECK_FAILS(weft_kernel_set_arg_image(k, 0, plain), WEFT_EINVAL, k,
              "not an image");
  CHECK_FAILS(weft_kernel_set_arg_buffer(k, 0, plain), WEFT_EARGKIND, k,
              "takes an image, not a buffer");
  CHECK_FAILS(weft_kernel_set_arg_sampler(k, 1, 0x40), WEFT_EINVAL, k,
              "sampler bits 0x40 are not CLK_* bits");
  CHECK_FAILS(weft_kernel_set_arg_sampler(k, 2, 0), WEFT_EARGKIND, k,
              "takes a buffer, not a sampler");
  CHECK_EQ(weft_image_describe(plain, &d), WEFT_EINVAL);
  weft_arg_info info;
  CHECK_OK(weft_kernel_arg_info(k, 0, &info), k);
  CHECK_EQ(info.kind, WEFT_ARG_IMAGE);
  CHECK_EQ(info.access, WEFT_IMAGE_READ_ONLY);
  CHECK_OK(weft_kernel_arg_info(k, 1, &info), k);
  CHECK_EQ(info.kind, WEFT_ARG_SAMPLER);
  weft_buffer_release(plain);
  weft_buffer_release(im);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

TEST_MAIN()
