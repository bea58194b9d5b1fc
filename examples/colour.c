/*
 * colour.c: converts a 1024x1024 RGBA image to YCbCr (the full-range
 * BT.601 conversion of JPEG), one work-item per pixel.
 *
 * The kernel needs no barrier and no __local memory, so the launch passes
 * no local size and lets Weft pick one (weft_kernel_suggest_local_size
 * tells which). The host converts every pixel and compares each channel.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "weft/weft.h"

enum { WIDTH = 1024, HEIGHT = 1024, PIXELS = WIDTH * HEIGHT };

/* A pixel is a uchar4 (r, g, b, a) here and four bytes on the host. Plain
 * C conversions turn a uchar into a float and a clamped float back into a
 * uchar: no convert_* builtin is needed. Alpha passes through. */
static const char *source =
    "uchar to_byte(float v) { return (uchar)clamp(v + 0.5f, 0.0f, 255.0f); }\n"
    "\n"
    "__kernel void rgb_to_ycbcr(__global const uchar4 *rgb,\n"
    "                           __global uchar4 *ycc) {\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  uchar4 p = rgb[i];\n"
    "  float r = p.x, g = p.y, b = p.z;\n"
    "  float y = 0.299f * r + 0.587f * g + 0.114f * b;\n"
    "  float cb = 128.0f - 0.168736f * r - 0.331264f * g + 0.5f * b;\n"
    "  float cr = 128.0f + 0.5f * r - 0.418688f * g - 0.081312f * b;\n"
    "  ycc[i] = (uchar4)(to_byte(y), to_byte(cb), to_byte(cr), p.w);\n"
    "}\n";

/* Stops the program with Weft's explanation when a call fails. */
#define CHECK(call, object) check((call), (object), #call)

static void check(int rc, const void *object, const char *call) {
  if (rc == WEFT_OK) return;
  fprintf(stderr, "colour: %s failed: %s\n  %s\n", call, weft_strerror(rc),
          object ? weft_errmsg(object) : "");
  exit(EXIT_FAILURE);
}

/* Compiles source and returns its kernel called name. The kernel keeps its
 * program alive, so the program's reference is dropped here. */
static weft_kernel *build_kernel(weft_context *ctx, const char *source,
                                 const char *name) {
  weft_program *program;
  CHECK(weft_program_create(ctx, source, 0, &program), ctx);
  int rc = weft_program_build(program, "");
  if (rc != WEFT_OK) {
    fprintf(stderr, "colour: build failed: %s\n%s\n", weft_strerror(rc),
            weft_program_build_log(program));
    exit(EXIT_FAILURE);
  }
  weft_kernel *kernel;
  CHECK(weft_kernel_create(program, name, &kernel), program);
  weft_program_release(program);
  return kernel;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Rounds to the nearest byte, as the kernel's to_byte does. */
static uint8_t to_byte(float v) {
  return (uint8_t)(v < -0.5f ? 0.0f : v > 254.5f ? 255.0f : v + 0.5f);
}

/* The host's conversion of one pixel, with the kernel's formulas. */
static void rgb_to_ycbcr(const uint8_t *p, uint8_t *out) {
  float r = p[0], g = p[1], b = p[2];
  out[0] = to_byte(0.299f * r + 0.587f * g + 0.114f * b);
  out[1] = to_byte(128.0f - 0.168736f * r - 0.331264f * g + 0.5f * b);
  out[2] = to_byte(128.0f + 0.5f * r - 0.418688f * g - 0.081312f * b);
  out[3] = p[3];
}

/* Returns the largest difference between a channel and the host's
 * conversion, naming the first pixel that is off by more than 1. The kernel
 * may fuse a multiply and an add where the host rounds twice, which can
 * move a value that lies near .5 to the next byte: 1 apart is accepted. */
static int largest_difference(const uint8_t *rgb, const uint8_t *ycc) {
  int largest = 0;
  for (size_t i = 0; i < 4 * (size_t)PIXELS; i += 4) {
    uint8_t want[4];
    rgb_to_ycbcr(rgb + i, want);
    for (size_t c = 0; c < 4; c++) {
      int diff = abs(ycc[i + c] - want[c]);
      if (diff > 1 && largest <= 1)
        fprintf(stderr, "colour: pixel %zu channel %zu is %d, the host says "
                "%d\n", i / 4, c, ycc[i + c], want[c]);
      if (diff > largest) largest = diff;
    }
  }
  return largest;
}

int main(void) {
  /* A test image: red and green ramps, blue and alpha in patterns. */
  static uint8_t rgb[4 * PIXELS], ycc[4 * PIXELS];
  for (size_t i = 0; i < PIXELS; i++) {
    size_t x = i % WIDTH, y = i / WIDTH;
    rgb[4 * i] = (uint8_t)(x * 255 / (WIDTH - 1));
    rgb[4 * i + 1] = (uint8_t)(y * 255 / (HEIGHT - 1));
    rgb[4 * i + 2] = (uint8_t)(x ^ y);
    rgb[4 * i + 3] = (uint8_t)(x + y);
  }

  weft_device *device;
  weft_context *ctx;
  CHECK(weft_device_get(0, &device), NULL);
  CHECK(weft_context_create(device, &ctx), device);
  weft_kernel *kernel = build_kernel(ctx, source, "rgb_to_ycbcr");

  weft_buffer *in, *out;
  unsigned in_flags = WEFT_MEM_READ_ONLY | WEFT_MEM_COPY_HOST_PTR;
  CHECK(weft_buffer_create(ctx, sizeof rgb, in_flags, rgb, &in), ctx);
  CHECK(weft_buffer_create(ctx, sizeof ycc, WEFT_MEM_WRITE_ONLY, NULL, &out),
        ctx);
  CHECK(weft_kernel_set_arg_buffer(kernel, 0, in), kernel);
  CHECK(weft_kernel_set_arg_buffer(kernel, 1, out), kernel);
  size_t global[2] = {WIDTH, HEIGHT}, local[3]; /* all three are filled */
  CHECK(weft_kernel_suggest_local_size(kernel, 2, global, local), kernel);
  double start = now_ms();
  CHECK(weft_kernel_launch(kernel, 2, NULL, global, NULL), kernel);
  double ms = now_ms() - start;
  CHECK(weft_buffer_read(out, 0, sizeof ycc, ycc), out);

  printf("colour: %dx%d pixels to YCbCr, local size picked by Weft %zux%zu, "
         "%.1f ms\n", WIDTH, HEIGHT, local[0], local[1], ms);
  for (size_t i = 0; i < 4 * (size_t)PIXELS; i += 4 * (PIXELS / 3 + 1))
    printf("  pixel %7zu: rgb %3d %3d %3d -> ycbcr %3d %3d %3d\n", i / 4,
           rgb[i], rgb[i + 1], rgb[i + 2], ycc[i], ycc[i + 1], ycc[i + 2]);
  int largest = largest_difference(rgb, ycc);
  if (largest > 1) return EXIT_FAILURE;
  printf("  every pixel matches the host, within %d in rounding: ok\n",
         largest);

  weft_buffer_release(in);
  weft_buffer_release(out);
  weft_kernel_release(kernel);
  weft_context_release(ctx);
  return EXIT_SUCCESS;
}
