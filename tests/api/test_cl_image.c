/* test_cl_image.c: images and samplers through OpenCL: what the device
 * reports, creating images and their queries, every command on them
 * (read, write, copy, fill, map, to and from buffers), sampler objects as
 * kernel arguments, and the error codes of each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cl_support.h"

static cl_env open_with_images(void) {
  cl_env e = cl_env_open();
  cl_bool images = CL_FALSE;
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_IMAGE_SUPPORT, sizeof images,
                           &images, NULL));
  CHECK(images == CL_TRUE); /* on every device */
  return e;
}

static cl_mem image2d(cl_context ctx, cl_channel_order o, cl_channel_type t,
                      size_t w, size_t h, cl_mem_flags flags, void *host) {
  cl_image_format f = {o, t};
  cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = w,
                     .image_height = h};
  cl_int rc;
  cl_mem m = clCreateImage(ctx, flags, &f, &d, host, &rc);
  CL_CHECK(rc);
  return m;
}

TEST(device_reports_images) {
  cl_env e = open_with_images();
  size_t w, d3, layers, buffer;
  cl_uint reads, samplers;
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof w, &w, NULL));
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_IMAGE3D_MAX_DEPTH, sizeof d3, &d3, NULL));
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, sizeof layers, &layers, NULL));
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, sizeof buffer, &buffer, NULL));
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_MAX_READ_IMAGE_ARGS, sizeof reads, &reads, NULL));
  CL_CHECK(clGetDeviceInfo(e.dev, CL_DEVICE_MAX_SAMPLERS, sizeof samplers, &samplers, NULL));
  /* OpenCL 3.0's least for a device with images. */
  CHECK(w >= 16384 && d3 >= 2048 && layers >= 2048 && buffer >= 65536);
  CHECK(reads >= 128 && samplers >= 16);
  cl_uint n = 0;
  CL_CHECK(clGetSupportedImageFormats(e.ctx, CL_MEM_READ_WRITE,
                                      CL_MEM_OBJECT_IMAGE2D, 0, NULL, &n));
  CHECK(n >= 40);
  cl_image_format *formats = calloc(n, sizeof *formats);
  CL_CHECK(clGetSupportedImageFormats(e.ctx, CL_MEM_READ_WRITE,
                                      CL_MEM_OBJECT_IMAGE2D, n, formats, NULL));
  /* The minimum list (OpenCL 3.0, 5.3.2.1) is there. */
  static const cl_image_format required[] = {
      {CL_RGBA, CL_UNORM_INT8},  {CL_RGBA, CL_UNORM_INT16}, {CL_RGBA, CL_SIGNED_INT8},
      {CL_RGBA, CL_SIGNED_INT16}, {CL_RGBA, CL_SIGNED_INT32}, {CL_RGBA, CL_UNSIGNED_INT8},
      {CL_RGBA, CL_UNSIGNED_INT16}, {CL_RGBA, CL_UNSIGNED_INT32}, {CL_RGBA, CL_HALF_FLOAT},
      {CL_RGBA, CL_FLOAT}, {CL_BGRA, CL_UNORM_INT8}, {CL_R, CL_FLOAT}};
  for (size_t r = 0; r < sizeof required / sizeof *required; r++) {
    int found = 0;
    for (cl_uint i = 0; i < n; i++)
      found |= formats[i].image_channel_order == required[r].image_channel_order &&
               formats[i].image_channel_data_type == required[r].image_channel_data_type;
    if (!found) FAIL("format %#x %#x is missing", required[r].image_channel_order,
                     required[r].image_channel_data_type);
  }
  free(formats);
  cl_env_close(&e);
}

/* A 2D image from host data: its queries; a region read back with host
 * pitches; a region written; a kernel samples it through a sampler object
 * (bilinear, unnormalized) and writes another image. */
TEST(create_read_write_and_sample) {
  cl_env e = open_with_images();
  unsigned char host[4][8][4]; /* 8 x 4 RGBA8 */
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 8; x++)
      for (int c = 0; c < 4; c++) host[y][x][c] = (unsigned char)(y * 40 + x * 4 + c);
  cl_mem im = image2d(e.ctx, CL_RGBA, CL_UNORM_INT8, 8, 4,
                      CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host);
  size_t v;
  CL_CHECK(clGetImageInfo(im, CL_IMAGE_WIDTH, sizeof v, &v, NULL));
  CHECK_EQ(v, 8);
  CL_CHECK(clGetImageInfo(im, CL_IMAGE_HEIGHT, sizeof v, &v, NULL));
  CHECK_EQ(v, 4);
  CL_CHECK(clGetImageInfo(im, CL_IMAGE_ELEMENT_SIZE, sizeof v, &v, NULL));
  CHECK_EQ(v, 4);
  CL_CHECK(clGetImageInfo(im, CL_IMAGE_ROW_PITCH, sizeof v, &v, NULL));
  CHECK_EQ(v, 32);
  CL_CHECK(clGetImageInfo(im, CL_IMAGE_DEPTH, sizeof v, &v, NULL));
  CHECK_EQ(v, 0);
  cl_image_format f;
  CL_CHECK(clGetImageInfo(im, CL_IMAGE_FORMAT, sizeof f, &f, NULL));
  CHECK_EQ(f.image_channel_order, CL_RGBA);
  cl_mem_object_type type;
  CL_CHECK(clGetMemObjectInfo(im, CL_MEM_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_MEM_OBJECT_IMAGE2D);
  /* Elements (2..5, 1..2) into rows 20 bytes apart. */
  unsigned char got[2][20];
  memset(got, 0xee, sizeof got);
  size_t origin[3] = {2, 1, 0}, region[3] = {4, 2, 1};
  CL_CHECK(clEnqueueReadImage(e.q, im, CL_TRUE, origin, region, 20, 0, got, 0,
                              NULL, NULL));
  for (int y = 0; y < 2; y++) {
    CHECK(!memcmp(got[y], host[1 + y][2], 16));
    CHECK_EQ(got[y][16], 0xee);
  }
  /* Write element (7, 3). */
  unsigned char white[4] = {255, 255, 255, 255};
  size_t corner[3] = {7, 3, 0}, one[3] = {1, 1, 1};
  CL_CHECK(clEnqueueWriteImage(e.q, im, CL_TRUE, corner, one, 0, 0, white, 0,
                               NULL, NULL));
  /* Sample the middle of four elements through a sampler object. */
  cl_int rc;
  cl_sampler s = clCreateSampler(e.ctx, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE,
                                 CL_FILTER_LINEAR, &rc);
  CL_CHECK(rc);
  cl_kernel k = cl_kernel_from(e.ctx,
      "kernel void k(read_only image2d_t im, sampler_t s, write_only image2d_t out) {\n"
      "  int x = get_global_id(0), y = get_global_id(1);\n"
      "  write_imagef(out, (int2)(x, y), read_imagef(im, s, (float2)(x + 1, y + 1)));\n"
      "}\n", "k");
  cl_mem out = image2d(e.ctx, CL_RGBA, CL_FLOAT, 7, 3, CL_MEM_WRITE_ONLY, NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof im, &im));
  CL_CHECK(clSetKernelArg(k, 1, sizeof s, &s));
  CL_CHECK(clSetKernelArg(k, 2, sizeof out, &out));
  size_t global[2] = {7, 3};
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 2, NULL, global, NULL, 0, NULL, NULL));
  float sampled[3][7][4];
  size_t all[3] = {7, 3, 1}, zero[3] = {0, 0, 0};
  CL_CHECK(clEnqueueReadImage(e.q, out, CL_TRUE, zero, all, 0, 0, sampled, 0,
                              NULL, NULL));
  host[3][7][0] = host[3][7][1] = host[3][7][2] = host[3][7][3] = 255;
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 7; x++)
      for (int c = 0; c < 4; c++) {
        double want = (host[y][x][c] + host[y][x + 1][c] + host[y + 1][x][c] +
                       host[y + 1][x + 1][c]) / 4.0 / 255.0;
        if (fabs(sampled[y][x][c] - want) > 1e-5)
          FAIL("(%d, %d) channel %d: %g, not %g", x, y, c, sampled[y][x][c], want);
      }
  clReleaseKernel(k);
  clReleaseSampler(s);
  clReleaseMemObject(out);
  clReleaseMemObject(im);
  cl_env_close(&e);
}

/* Copies between images and buffers, a fill, and a map of a region. */
TEST(copy_fill_and_map) {
  cl_env e = open_with_images();
  int src_host[3][5];
  for (int i = 0; i < 15; i++) (&src_host[0][0])[i] = i * 11;
  cl_mem a = image2d(e.ctx, CL_R, CL_SIGNED_INT32, 5, 3,
                     CL_MEM_COPY_HOST_PTR, src_host);
  cl_mem b = image2d(e.ctx, CL_R, CL_SIGNED_INT32, 4, 4, 0, NULL);
  int minus[4] = {-1, -1, -1, -1};
  size_t zero[3] = {0, 0, 0}, whole_b[3] = {4, 4, 1};
  CL_CHECK(clEnqueueFillImage(e.q, b, minus, zero, whole_b, 0, NULL, NULL));
  /* a's (1..3, 0..1) to b's (0..2, 2..3). */
  size_t so[3] = {1, 0, 0}, dO[3] = {0, 2, 0}, region[3] = {3, 2, 1};
  CL_CHECK(clEnqueueCopyImage(e.q, a, b, so, dO, region, 0, NULL, NULL));
  int got[4][4];
  CL_CHECK(clEnqueueReadImage(e.q, b, CL_TRUE, zero, whole_b, 0, 0, got, 0,
                              NULL, NULL));
  for (int y = 0; y < 4; y++)
    for (int x = 0; x < 4; x++) {
      int want = y >= 2 && x < 3 ? src_host[y - 2][x + 1] : -1;
      CHECK_EQ(got[y][x], want);
    }
  /* Image to buffer and back into another place. */
  cl_mem buf = cl_buffer(e.ctx, 64, NULL);
  CL_CHECK(clEnqueueCopyImageToBuffer(e.q, a, buf, so, region, 8, 0, NULL, NULL));
  int packed[16] = {0};
  CL_CHECK(clEnqueueReadBuffer(e.q, buf, CL_TRUE, 0, sizeof packed, packed, 0,
                               NULL, NULL));
  for (int y = 0; y < 2; y++)
    for (int x = 0; x < 3; x++) CHECK_EQ(packed[2 + y * 3 + x], src_host[y][x + 1]);
  size_t to[3] = {1, 0, 0};
  CL_CHECK(clEnqueueCopyBufferToImage(e.q, buf, b, 8, to, region, 0, NULL, NULL));
  /* Map b's second row, elements 1..3. */
  size_t row_pitch = 0, slice_pitch = 7;
  size_t mo[3] = {1, 1, 0}, mr[3] = {3, 1, 1};
  cl_int rc;
  int *p = clEnqueueMapImage(e.q, b, CL_TRUE, CL_MAP_READ, mo, mr, &row_pitch,
                             &slice_pitch, 0, NULL, NULL, &rc);
  CL_CHECK(rc);
  CHECK_EQ(row_pitch, 16);
  CHECK_EQ(slice_pitch, 0);
  for (int x = 0; x < 3; x++) CHECK_EQ(p[x], src_host[1][x + 1]);
  CL_CHECK(clEnqueueUnmapMemObject(e.q, b, p, 0, NULL, NULL));
  /* A float fill of a normalized format is rounded. */
  cl_mem n8 = image2d(e.ctx, CL_RGBA, CL_UNORM_INT8, 2, 2, 0, NULL);
  float colour[4] = {0.5f, 1.0f, 2.0f, -1.0f};
  size_t whole_n[3] = {2, 2, 1};
  CL_CHECK(clEnqueueFillImage(e.q, n8, colour, zero, whole_n, 0, NULL, NULL));
  unsigned char bytes[16];
  CL_CHECK(clEnqueueReadImage(e.q, n8, CL_TRUE, zero, whole_n, 0, 0, bytes, 0,
                              NULL, NULL));
  for (int i = 0; i < 4; i++) {
    CHECK_EQ(bytes[4 * i], 128);
    CHECK_EQ(bytes[4 * i + 1], 255);
    CHECK_EQ(bytes[4 * i + 2], 255);
    CHECK_EQ(bytes[4 * i + 3], 0);
  }
  cl_mem all[] = {a, b, buf, n8};
  for (size_t i = 0; i < 4; i++) clReleaseMemObject(all[i]);
  cl_env_close(&e);
}

/* Arrays and 3D images: layers and slices through reads and writes with
 * slice pitches, and a kernel that reads a layer by coordinates. */
TEST(arrays_and_3d) {
  cl_env e = open_with_images();
  cl_image_format f = {CL_R, CL_UNSIGNED_INT16};
  cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D_ARRAY, .image_width = 3,
                     .image_height = 2, .image_array_size = 4};
  cl_int rc;
  cl_mem arr = clCreateImage(e.ctx, 0, &f, &d, NULL, &rc);
  CL_CHECK(rc);
  unsigned short layers[4][2][3];
  for (int i = 0; i < 24; i++) (&layers[0][0][0])[i] = (unsigned short)(i * 3);
  size_t zero[3] = {0, 0, 0}, all[3] = {3, 2, 4};
  CL_CHECK(clEnqueueWriteImage(e.q, arr, CL_TRUE, zero, all, 0, 0, layers, 0,
                               NULL, NULL));
  size_t v;
  CL_CHECK(clGetImageInfo(arr, CL_IMAGE_ARRAY_SIZE, sizeof v, &v, NULL));
  CHECK_EQ(v, 4);
  CL_CHECK(clGetImageInfo(arr, CL_IMAGE_SLICE_PITCH, sizeof v, &v, NULL));
  CHECK_EQ(v, 12);
  cl_kernel k = cl_kernel_from(e.ctx,
      "kernel void k(read_only image2d_array_t a, global uint *out) {\n"
      "  int l = get_global_id(0);\n"
      "  out[l] = read_imageui(a, (int4)(2, 1, l, 0)).x;\n"
      "}\n", "k");
  cl_mem out = cl_buffer(e.ctx, 16, NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof arr, &arr));
  CL_CHECK(clSetKernelArg(k, 1, sizeof out, &out));
  size_t four = 4;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &four, NULL, 0, NULL, NULL));
  unsigned got[4];
  CL_CHECK(clEnqueueReadBuffer(e.q, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
  for (int l = 0; l < 4; l++) CHECK_EQ(got[l], layers[l][1][2]);
  /* Layer 2 alone, into a host with padded rows and slices. */
  unsigned short padded[1][2][4];
  memset(padded, 0, sizeof padded);
  size_t layer2[3] = {0, 0, 2}, one_layer[3] = {3, 2, 1};
  CL_CHECK(clEnqueueReadImage(e.q, arr, CL_TRUE, layer2, one_layer, 8, 16,
                              padded, 0, NULL, NULL));
  for (int y = 0; y < 2; y++)
    for (int x = 0; x < 3; x++) CHECK_EQ(padded[0][y][x], layers[2][y][x]);
  /* A 1D array: layers are origin[1] and region[1]. */
  cl_image_desc d1 = {.image_type = CL_MEM_OBJECT_IMAGE1D_ARRAY, .image_width = 5,
                      .image_array_size = 3};
  cl_mem a1 = clCreateImage(e.ctx, 0, &f, &d1, NULL, &rc);
  CL_CHECK(rc);
  unsigned short rows[3][5];
  for (int i = 0; i < 15; i++) (&rows[0][0])[i] = (unsigned short)(1000 + i);
  size_t a1_all[3] = {5, 3, 1};
  CL_CHECK(clEnqueueWriteImage(e.q, a1, CL_TRUE, zero, a1_all, 0, 0, rows, 0,
                               NULL, NULL));
  unsigned short back[2][8]; /* layers 1..2, 16 bytes apart */
  size_t from[3] = {0, 1, 0}, two[3] = {5, 2, 1};
  CL_CHECK(clEnqueueReadImage(e.q, a1, CL_TRUE, from, two, 0, 16, back, 0, NULL, NULL));
  for (int l = 0; l < 2; l++)
    for (int x = 0; x < 5; x++) CHECK_EQ(back[l][x], rows[l + 1][x]);
  /* 3D from host data, read back one slice. */
  float cube[2][2][2] = {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}};
  cl_image_format ff = {CL_R, CL_FLOAT};
  cl_mem c3 = clCreateImage3D(e.ctx, CL_MEM_COPY_HOST_PTR, &ff, 2, 2, 2, 0, 0,
                              cube, &rc);
  CL_CHECK(rc);
  float slice[2][2];
  size_t z1[3] = {0, 0, 1}, face[3] = {2, 2, 1};
  CL_CHECK(clEnqueueReadImage(e.q, c3, CL_TRUE, z1, face, 0, 0, slice, 0, NULL, NULL));
  CHECK(!memcmp(slice, cube[1], sizeof slice));
  clReleaseKernel(k);
  cl_mem objects[] = {arr, out, a1, c3};
  for (size_t i = 0; i < 4; i++) clReleaseMemObject(objects[i]);
  cl_env_close(&e);
}

TEST(samplers) {
  cl_env e = open_with_images();
  cl_int rc;
  cl_sampler_properties props[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
  cl_sampler s = clCreateSamplerWithProperties(e.ctx, props, &rc);
  CL_CHECK(rc);
  cl_bool normalized;
  cl_addressing_mode a;
  cl_filter_mode f;
  CL_CHECK(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof normalized, &normalized, NULL));
  CL_CHECK(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof a, &a, NULL));
  CL_CHECK(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof f, &f, NULL));
  CHECK(normalized == CL_TRUE && a == CL_ADDRESS_CLAMP && f == CL_FILTER_LINEAR);
  size_t size;
  CL_CHECK(clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &size));
  CHECK_EQ(size, sizeof props);
  cl_uint refs;
  CL_CHECK(clRetainSampler(s));
  CL_CHECK(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof refs, &refs, NULL));
  CHECK_EQ(refs, 2);
  CL_CHECK(clReleaseSampler(s));
  cl_sampler_properties twice[] = {CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR,
                                   CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
  CHECK(!clCreateSamplerWithProperties(e.ctx, twice, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_VALUE);
  CHECK(!clCreateSampler(e.ctx, CL_TRUE, 0x1234, CL_FILTER_NEAREST, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_VALUE);
  /* Arguments: a sampler where one is taken; access qualifiers. */
  cl_program p = cl_build(e.ctx,
      "kernel void k(read_only image2d_t im, sampler_t s, write_only image1d_t w,\n"
      "              global float4 *o) {\n"
      "  o[0] = read_imagef(im, s, (float2)(0.5f));\n"
      "  write_imagef(w, 0, o[0]);\n"
      "}\n", "-cl-kernel-arg-info");
  cl_kernel k = clCreateKernel(p, "k", &rc);
  CL_CHECK(rc);
  CL_CHECK(clSetKernelArg(k, 1, sizeof s, &s));
  cl_mem buf = cl_buffer(e.ctx, 16, NULL);
  CL_CHECK_ERR(clSetKernelArg(k, 1, sizeof buf, &buf), CL_INVALID_SAMPLER);
  CL_CHECK_ERR(clSetKernelArg(k, 0, sizeof buf, &buf), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clSetKernelArg(k, 1, 4, &s), CL_INVALID_ARG_SIZE);
  cl_mem ro = image2d(e.ctx, CL_RGBA, CL_FLOAT, 2, 2, CL_MEM_READ_ONLY, NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof ro, &ro));
  cl_image_format rf = {CL_RGBA, CL_FLOAT};
  cl_image_desc d1 = {.image_type = CL_MEM_OBJECT_IMAGE1D, .image_width = 1};
  cl_mem ro1 = clCreateImage(e.ctx, CL_MEM_READ_ONLY, &rf, &d1, NULL, &rc);
  CL_CHECK(rc);
  CL_CHECK_ERR(clSetKernelArg(k, 2, sizeof ro1, &ro1), CL_INVALID_ARG_VALUE);
  cl_kernel_arg_access_qualifier access;
  CL_CHECK(clGetKernelArgInfo(k, 0, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, NULL));
  CHECK_EQ(access, CL_KERNEL_ARG_ACCESS_READ_ONLY);
  CL_CHECK(clGetKernelArgInfo(k, 2, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof access, &access, NULL));
  CHECK_EQ(access, CL_KERNEL_ARG_ACCESS_WRITE_ONLY);
  char name[32];
  CL_CHECK(clGetKernelArgInfo(k, 1, CL_KERNEL_ARG_TYPE_NAME, sizeof name, name, NULL));
  CHECK_STR_CONTAINS(name, "sampler_t");
  CL_CHECK_ERR(clReleaseSampler(NULL), CL_INVALID_SAMPLER);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseSampler(s);
  clReleaseMemObject(buf);
  clReleaseMemObject(ro);
  clReleaseMemObject(ro1);
  cl_env_close(&e);
}

TEST(errors) {
  cl_env e = open_with_images();
  cl_int rc;
  cl_image_format bad = {CL_RGB, CL_FLOAT}, nonsense = {0x1, CL_FLOAT},
                  good = {CL_RGBA, CL_UNORM_INT8};
  cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 4,
                     .image_height = 4};
  CHECK(!clCreateImage(e.ctx, 0, &bad, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_IMAGE_FORMAT_NOT_SUPPORTED);
  CHECK(!clCreateImage(e.ctx, 0, &nonsense, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  CHECK(!clCreateImage(e.ctx, 0, NULL, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  d.image_width = 1 << 20;
  CHECK(!clCreateImage(e.ctx, 0, &good, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_SIZE);
  d.image_width = 4;
  d.image_row_pitch = 64;
  CHECK(!clCreateImage(e.ctx, 0, &good, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_DESCRIPTOR);
  d.image_row_pitch = 0;
  char host[64];
  CHECK(!clCreateImage(e.ctx, 0, &good, &d, host, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_HOST_PTR);
  d.image_type = CL_MEM_OBJECT_BUFFER;
  CHECK(!clCreateImage(e.ctx, 0, &good, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_DESCRIPTOR);
  d.image_type = CL_MEM_OBJECT_IMAGE2D;
  cl_mem im = clCreateImage(e.ctx, 0, &good, &d, NULL, &rc);
  CL_CHECK(rc);
  /* Buffer commands take no image, image commands no buffer. */
  cl_mem buf = cl_buffer(e.ctx, 64, NULL);
  CL_CHECK_ERR(clEnqueueReadBuffer(e.q, im, CL_TRUE, 0, 4, host, 0, NULL, NULL),
               CL_INVALID_MEM_OBJECT);
  size_t zero[3] = {0, 0, 0}, region[3] = {4, 4, 1}, past[3] = {4, 5, 1};
  CL_CHECK_ERR(clEnqueueReadImage(e.q, buf, CL_TRUE, zero, region, 0, 0, host,
                                  0, NULL, NULL), CL_INVALID_MEM_OBJECT);
  CL_CHECK_ERR(clEnqueueReadImage(e.q, im, CL_TRUE, zero, past, 0, 0, host, 0,
                                  NULL, NULL), CL_INVALID_VALUE);
  size_t flat[3] = {4, 4, 2};
  CL_CHECK_ERR(clEnqueueReadImage(e.q, im, CL_TRUE, zero, flat, 0, 0, host, 0,
                                  NULL, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clEnqueueReadImage(e.q, im, CL_TRUE, zero, region, 0, 64, host,
                                  0, NULL, NULL), CL_INVALID_VALUE);
  cl_image_format other = {CL_RGBA, CL_SIGNED_INT8};
  cl_mem im2 = clCreateImage(e.ctx, 0, &other, &d, NULL, &rc);
  CL_CHECK(rc);
  CL_CHECK_ERR(clEnqueueCopyImage(e.q, im, im2, zero, zero, region, 0, NULL, NULL),
               CL_IMAGE_FORMAT_MISMATCH);
  CL_CHECK_ERR(clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof(size_t), host, NULL),
               CL_INVALID_MEM_OBJECT);
  cl_buffer_region sub = {0, 16};
  CHECK(!clCreateSubBuffer(im, 0, CL_BUFFER_CREATE_TYPE_REGION, &sub, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_MEM_OBJECT);
  /* A 1D buffer image over a buffer: its memory. */
  /* (A row pitch may be given: the CTS gives the buffer's size.) */
  cl_image_desc db = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER,
                      .image_width = 16, .image_row_pitch = 64, .buffer = buf};
  cl_mem ib = clCreateImage(e.ctx, 0, &good, &db, NULL, &rc);
  CL_CHECK(rc);
  cl_mem assoc;
  CL_CHECK(clGetMemObjectInfo(ib, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL));
  CHECK(assoc == buf);
  unsigned char rgba[4] = {1, 2, 3, 4};
  size_t at[3] = {3, 0, 0}, one[3] = {1, 1, 1};
  CL_CHECK(clEnqueueWriteImage(e.q, ib, CL_TRUE, at, one, 0, 0, rgba, 0, NULL, NULL));
  unsigned char bytes[4];
  CL_CHECK(clEnqueueReadBuffer(e.q, buf, CL_TRUE, 12, 4, bytes, 0, NULL, NULL));
  CHECK(!memcmp(bytes, rgba, 4));
  db.image_width = 17;
  CHECK(!clCreateImage(e.ctx, 0, &good, &db, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_SIZE);
  cl_mem objects[] = {ib, im, im2, buf};
  for (size_t i = 0; i < 4; i++) clReleaseMemObject(objects[i]);
  cl_env_close(&e);
}

/* A 2D image over a buffer (cl_khr_image2d_from_buffer) is the buffer's
 * memory, rows a given pitch apart: a kernel reads what the host wrote
 * into the buffer and writes what the host then reads from it; the image
 * names its buffer; wrong pitches, sizes and sources are refused. */
TEST(image_2d_over_a_buffer) {
  cl_env e = open_with_images();
  enum { W = 5, H = 3, PITCH = 32 }; /* rows of 20 bytes, 32 apart */
  unsigned char bytes[H * PITCH];
  for (int i = 0; i < H * PITCH; i++) bytes[i] = (unsigned char)i;
  cl_mem buf = cl_buffer(e.ctx, sizeof bytes, bytes);
  cl_image_format f = {CL_RGBA, CL_UNSIGNED_INT8};
  cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = W,
                     .image_height = H, .image_row_pitch = PITCH, .buffer = buf};
  cl_int rc;
  cl_mem im = clCreateImage(e.ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &rc);
  CL_CHECK(rc);
  size_t v;
  CL_CHECK(clGetImageInfo(im, CL_IMAGE_ROW_PITCH, sizeof v, &v, NULL));
  CHECK_EQ(v, PITCH);
  cl_mem named;
  CL_CHECK(clGetImageInfo(im, CL_IMAGE_BUFFER, sizeof named, &named, NULL));
  CHECK(named == buf);
  /* Each element's channels plus 100, through the image. */
  cl_program p = cl_build(e.ctx,
      "kernel void k(read_write image2d_t im) {\n"
      "  int2 at = (int2)(get_global_id(0), get_global_id(1));\n"
      "  uint4 v = read_imageui(im, at);\n"
      "  write_imageui(im, at, v + 100);\n"
      "}\n", "-cl-std=CL3.0");
  cl_kernel k = clCreateKernel(p, "k", &rc);
  CL_CHECK(rc);
  clReleaseProgram(p);
  CL_CHECK(clSetKernelArg(k, 0, sizeof im, &im));
  size_t global[2] = {W, H};
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 2, NULL, global, NULL, 0, NULL, NULL));
  unsigned char after[H * PITCH];
  CL_CHECK(clEnqueueReadBuffer(e.q, buf, CL_TRUE, 0, sizeof after, after, 0, NULL, NULL));
  for (int i = 0; i < H * PITCH; i++) {
    int in_row = i % PITCH < W * 4;
    unsigned char want = (unsigned char)(in_row ? bytes[i] + 100 : bytes[i]);
    if (after[i] != want) FAIL("byte %d: %d, not %d", i, after[i], want);
  }
  clReleaseKernel(k);
  /* A pitch that is no whole number of elements, or less than a row; a
   * buffer too small for the rows; host memory; an image for a buffer. */
  d.image_row_pitch = 30;
  CHECK(!clCreateImage(e.ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  d.image_row_pitch = 16;
  CHECK(!clCreateImage(e.ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  d.image_row_pitch = PITCH;
  d.image_height = H + 1;
  CHECK(!clCreateImage(e.ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_DESCRIPTOR);
  d.image_height = H;
  CHECK(!clCreateImage(e.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &f, &d,
                       bytes, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_VALUE);
  d.buffer = im;
  CHECK(!clCreateImage(e.ctx, CL_MEM_READ_WRITE, &f, &d, NULL, &rc));
  CL_CHECK_ERR(rc, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
  /* Without a pitch, rows are packed. */
  d.buffer = buf;
  d.image_row_pitch = 0;
  cl_mem packed = clCreateImage(e.ctx, CL_MEM_READ_ONLY, &f, &d, NULL, &rc);
  CL_CHECK(rc);
  CL_CHECK(clGetImageInfo(packed, CL_IMAGE_ROW_PITCH, sizeof v, &v, NULL));
  CHECK_EQ(v, W * 4);
  clReleaseMemObject(packed);
  clReleaseMemObject(im);
  clReleaseMemObject(buf);
  cl_env_close(&e);
}

TEST_MAIN()
