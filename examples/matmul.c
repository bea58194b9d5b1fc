/*
 * matmul.c: C = A * B for 512x512 floats, tiled in __local memory.
 *
 * A work-group of TILE x TILE work-items computes one TILE x TILE tile of
 * C. It walks along a row of tiles of A and a column of tiles of B: at each
 * step every work-item copies one element of each into __local memory, so
 * the group reads every element of A and B from global memory once per
 * step instead of TILE times. The host checks every element against a
 * plain triple loop.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "weft/weft.h"

enum { N = 512, TILE = 16 };

/* Barrier (1): a work-item must not use the tiles before all the others
 * have stored their elements. Barrier (2): it must not overwrite them with
 * the next step's elements while others still read this step's. */
static const char *source =
    "__kernel void matmul(__global const float *a, __global const float *b,\n"
    "                     __global float *c, uint n) {\n"
    "  __local float a_tile[TILE][TILE], b_tile[TILE][TILE];\n"
    "  uint row = get_global_id(1), col = get_global_id(0);\n"
    "  uint y = get_local_id(1), x = get_local_id(0);\n"
    "  float sum = 0.0f;\n"
    "  for (uint step = 0; step < n; step += TILE) {\n"
    "    a_tile[y][x] = a[row * n + step + x];\n"
    "    b_tile[y][x] = b[(step + y) * n + col];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);   /* (1) the tiles are full */\n"
    "    for (uint k = 0; k < TILE; k++) sum += a_tile[y][k] * b_tile[k][x];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);   /* (2) nobody reads them now */\n"
    "  }\n"
    "  c[row * n + col] = sum;\n"
    "}\n";

/* Stops the program with Weft's explanation when a call fails. */
#define CHECK(call, object) check((call), (object), #call)

static void check(int rc, const void *object, const char *call) {
  if (rc == WEFT_OK) return;
  fprintf(stderr, "matmul: %s failed: %s\n  %s\n", call, weft_strerror(rc),
          object ? weft_errmsg(object) : "");
  exit(EXIT_FAILURE);
}

/* Compiles source and returns its kernel called name. The kernel keeps its
 * program alive, so the program's reference is dropped here. */
static weft_kernel *build_kernel(weft_context *ctx, const char *source,
                                 const char *options, const char *name) {
  weft_program *program;
  CHECK(weft_program_create(ctx, source, 0, &program), ctx);
  int rc = weft_program_build(program, options);
  if (rc != WEFT_OK) {
    fprintf(stderr, "matmul: build failed: %s\n%s\n", weft_strerror(rc),
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

/* Compares c with a triple loop in double precision. A float dot product
 * of length N can be off by up to about N * FLT_EPSILON / 2 times the sum
 * of the magnitudes of its products, whatever the order of the additions;
 * twice that is the tolerance. Returns the number of bad elements. */
static size_t count_mismatches(const float *a, const float *b, const float *c) {
  size_t bad = 0;
  for (size_t i = 0; i < N; i++)
    for (size_t j = 0; j < N; j++) {
      double sum = 0.0, magnitude = 0.0;
      for (size_t k = 0; k < N; k++) {
        double product = (double)a[i * N + k] * b[k * N + j];
        sum += product;
        magnitude += fabs(product);
      }
      if (fabs(c[i * N + j] - sum) > N * FLT_EPSILON * magnitude && !bad++)
        fprintf(stderr, "matmul: c[%zu][%zu] is %.6f, the host says %.6f\n",
                i, j, c[i * N + j], sum);
    }
  return bad;
}

int main(void) {
  static float a[N * N], b[N * N], c[N * N];
  srand(7);
  for (size_t i = 0; i < N * N; i++) {
    a[i] = 2.0f * rand() / (float)RAND_MAX - 1.0f;
    b[i] = 2.0f * rand() / (float)RAND_MAX - 1.0f;
  }

  weft_device *device;
  weft_context *ctx;
  CHECK(weft_device_get(0, &device), NULL);
  CHECK(weft_context_create(device, &ctx), device);
  char options[32];
  snprintf(options, sizeof options, "-DTILE=%d", TILE);
  weft_kernel *kernel = build_kernel(ctx, source, options, "matmul");

  weft_buffer *a_buf, *b_buf, *c_buf;
  unsigned in_flags = WEFT_MEM_READ_ONLY | WEFT_MEM_COPY_HOST_PTR;
  CHECK(weft_buffer_create(ctx, sizeof a, in_flags, a, &a_buf), ctx);
  CHECK(weft_buffer_create(ctx, sizeof b, in_flags, b, &b_buf), ctx);
  CHECK(weft_buffer_create(ctx, sizeof c, WEFT_MEM_WRITE_ONLY, NULL, &c_buf),
        ctx);
  uint32_t n = N;
  CHECK(weft_kernel_set_arg_buffer(kernel, 0, a_buf), kernel);
  CHECK(weft_kernel_set_arg_buffer(kernel, 1, b_buf), kernel);
  CHECK(weft_kernel_set_arg_buffer(kernel, 2, c_buf), kernel);
  CHECK(weft_kernel_set_arg_value(kernel, 3, &n, sizeof n), kernel);
  size_t global[2] = {N, N}, local[2] = {TILE, TILE};
  double start = now_ms();
  CHECK(weft_kernel_launch(kernel, 2, NULL, global, local), kernel);
  double ms = now_ms() - start;
  CHECK(weft_buffer_read(c_buf, 0, sizeof c, c), c_buf);

  printf("matmul: %dx%d floats, tiles of %dx%d, %.1f ms (%.2f GFLOP/s)\n", N,
         N, TILE, TILE, ms, 2.0 * N * N * N / (ms * 1e6));
  printf("  c[0][0] = %.4f, c[1][2] = %.4f, c[%d][%d] = %.4f\n", c[0],
         c[N + 2], N - 1, N - 1, c[N * N - 1]);
  size_t bad = count_mismatches(a, b, c);
  if (bad) {
    fprintf(stderr, "matmul: %zu of %d elements differ from the host\n", bad,
            N * N);
    return EXIT_FAILURE;
  }
  printf("  all %d elements match the host loop: ok\n", N * N);

  weft_buffer_release(a_buf);
  weft_buffer_release(b_buf);
  weft_buffer_release(c_buf);
  weft_kernel_release(kernel);
  weft_context_release(ctx);
  return EXIT_SUCCESS;
}
