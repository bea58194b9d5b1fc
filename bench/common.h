/*
 * common.h: what the benchmarks of bench/ share beyond bench_lib.h (the
 * clock, medians, CSV, messages, which `weft bench` uses too): the command
 * line (--quick, --csv PATH), the kernels two of them time, result
 * checks, and the set-up of the two runtimes they compare: Weft through
 * weft.h, PoCL through the OpenCL ICD loader.
 *
 * A failed call stops the program with the runtime's message: a benchmark
 * that goes on after an error would report the time of doing nothing.
 */
#ifndef WEFT_BENCH_COMMON_H
#define WEFT_BENCH_COMMON_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_lib.h"
#include "weft/weft.h"

/* -------------------------------------------------------- the kernels */

/* The kernels bench_kernels and bench_check both time: vecadd (c = a +
 * b), matmul (16x16 tiles in __local memory, two barriers a step) and
 * reduce (a __local tree per group, a barrier a level). */
#define BENCH_KERNELS_SOURCE \
    "__kernel void vecadd(__global const float *a, __global const float *b,\n" \
    "                     __global float *c) {\n" \
    "  size_t i = get_global_id(0);\n" \
    "  c[i] = a[i] + b[i];\n" \
    "}\n" \
    "\n" \
    "#define TILE 16\n" \
    "__kernel void matmul(__global const float *a, __global const float *b,\n" \
    "                     __global float *c, uint n) {\n" \
    "  __local float a_tile[TILE][TILE], b_tile[TILE][TILE];\n" \
    "  uint row = get_global_id(1), col = get_global_id(0);\n" \
    "  uint y = get_local_id(1), x = get_local_id(0);\n" \
    "  float sum = 0.0f;\n" \
    "  for (uint step = 0; step < n; step += TILE) {\n" \
    "    a_tile[y][x] = a[row * n + step + x];\n" \
    "    b_tile[y][x] = b[(step + y) * n + col];\n" \
    "    barrier(CLK_LOCAL_MEM_FENCE);\n" \
    "    for (uint k = 0; k < TILE; k++) sum += a_tile[y][k] * b_tile[k][x];\n" \
    "    barrier(CLK_LOCAL_MEM_FENCE);\n" \
    "  }\n" \
    "  c[row * n + col] = sum;\n" \
    "}\n" \
    "\n" \
    "__kernel void reduce(__global const float *in, __global float *partial,\n" \
    "                     __local float *scratch) {\n" \
    "  uint lid = get_local_id(0);\n" \
    "  scratch[lid] = in[get_global_id(0)];\n" \
    "  barrier(CLK_LOCAL_MEM_FENCE);\n" \
    "  for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {\n" \
    "    if (lid < s) scratch[lid] += scratch[lid + s];\n" \
    "    barrier(CLK_LOCAL_MEM_FENCE);\n" \
    "  }\n" \
    "  if (lid == 0) partial[get_group_id(0)] = scratch[0];\n" \
    "}\n" \
    "\n"

/* Two more, which bench_kernels and bench_peers time: saxpy (a scalar
 * argument; the same memory traffic as vecadd) and mandelbrot (a loop
 * whose trip count differs from work-item to work-item; a pixel's value is
 * its iteration count, bench_mandelbrot_pixel's on the host). */
#define BENCH_MORE_KERNELS_SOURCE \
    "__kernel void saxpy(float a, __global const float *x,\n" \
    "                    __global const float *y, __global float *z) {\n" \
    "  size_t i = get_global_id(0);\n" \
    "  z[i] = a * x[i] + y[i];\n" \
    "}\n" \
    "__kernel void mandelbrot(__global float *out, uint iterations) {\n" \
    "  uint x = get_global_id(0), y = get_global_id(1);\n" \
    "  uint width = get_global_size(0), height = get_global_size(1);\n" \
    "  float cr = -2.0f + 3.0f * x / width, ci = -1.5f + 3.0f * y / height;\n" \
    "  float zr = 0.0f, zi = 0.0f;\n" \
    "  uint i = 0;\n" \
    "  while (i < iterations && zr * zr + zi * zi <= 4.0f) {\n" \
    "    float t = zr * zr - zi * zi + cr;\n" \
    "    zi = 2.0f * zr * zi + ci;\n" \
    "    zr = t;\n" \
    "    i++;\n" \
    "  }\n" \
    "  out[y * width + x] = (float)i;\n" \
    "}\n"

/* The host's value of mandelbrot's pixel (x, y) of a square of side
 * pixels. A device that fuses multiply-adds may differ at a few pixels on
 * the set's edge: callers allow some. */
float bench_mandelbrot_pixel(size_t x, size_t y, size_t side,
                             unsigned iterations);

/* ---------------------------------------------------------------- timing */

/* Milliseconds on the monotonic clock (bench_lib.h's, as the programs
 * here count). */
static inline double bench_now_ms(void) { return bench_seconds() * 1e3; }

/* ------------------------------------------------------------ the program */

typedef struct bench_options {
  int quick;            /* --quick: small sizes, few repetitions */
  const char *csv_path; /* --csv PATH: also write the CSV there */
  int gpu;              /* --gpu: Weft's GPU beside its CPU (bench_api) */
  int load;             /* --load N: N low-priority busy threads beside */
  const char *peer;     /* --peer NAME: bench_peers' other platform */
  const char *only;     /* --only KERNEL: bench_peers runs that row alone */
  int scaling;          /* --scaling: bench_peers' thread-count sweep */
  int alone;            /* --alone: bench_peers measures Weft alone */
  const char *weft_options; /* --weft-options OPTS: bench_peers builds
                               Weft's program with them */
} bench_options;

/* Starts n threads that spin at the lowest priority (nice 19) until the
 * process ends: the busy machine latency must hold on (bench_api). */
void bench_start_load(int n);

/* Parses argv; prints the usage and exits on anything else. */
void bench_parse_options(int argc, char **argv, bench_options *options);

/* Runs this program again (/proc/self/exe) with the arguments args
 * (args[0] first, NULL last) and the variables env ("NAME=value", NULL
 * last) added to the environment, and captures what it prints on stdout in
 * out (NUL-terminated). Returns 0 if it exited with status 0. For what a
 * process measures only once: its first build, its fiber switch. */
int bench_run_self(char *const args[], char *const env[], char *out,
                   size_t size);


/* ------------------------------------------------------------------- CSV */

/* "name,weft_ms,pocl_ms,pocl_over_weft": a ratio above 1 means Weft is
 * faster. */
void bench_csv_ratio(const char *name, double weft_ms, double pocl_ms);

/* ---------------------------------------------------------------- checks */

/* malloc that stops the program when it fails. */
void *bench_alloc(size_t bytes);

/* Fills v with n uniform floats in [lo, hi), the same for a given seed. */
void bench_random_floats(float *v, size_t n, unsigned seed, float lo,
                         float hi);
/* Fills v with n uniform 32-bit integers, the same for a given seed. */
void bench_random_uints(uint32_t *v, size_t n, unsigned seed);

/* c = a * b for n x n matrices of float (or of double, is_double), in
 * double, and a tolerance per element: a dot product of length n can be
 * off by about n * epsilon / 2 times the sum of its products' magnitudes,
 * whatever the order of its additions (or fused multiply-adds); slack
 * times n * epsilon of it is allowed. */
void bench_matmul_reference(const void *a, const void *b, size_t n,
                            int is_double, double slack, double *want,
                            double *tolerance);

/* Counts the elements of got that differ from want by more than
 * tolerance[i] (or tol when tolerance is NULL), reporting the first on
 * stderr under the name what. NaN always differs. */
size_t bench_mismatches(const char *what, const float *got, const double *want,
                        const double *tolerance, double tol, size_t n);

/* ------------------------------------------------------------------ Weft */

#define WEFT_CHECK(call, object) bench_weft_check((call), (object), #call)
void bench_weft_check(int status, const void *object, const char *call);

/* A context on the CPU device. */
weft_context *bench_weft_context(void);

/* Builds source with options and returns its kernel called name (the
 * kernel keeps the program alive). */
weft_kernel *bench_weft_kernel(weft_context *ctx, const char *source,
                               const char *options, const char *name);

/* ------------------------------------------- OpenCL platforms; PoCL */

#define BENCH_POCL_PLATFORM "Portable Computing Language"

#define CL_CHECK(call) bench_cl_check((call), #call)
void bench_cl_check(cl_int status, const char *call);

/* A runtime reached through the ICD loader: PoCL, or any platform. */
typedef struct bench_cl {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
} bench_cl;

/* Finds the platform called platform among the ICD loader's platforms
 * and opens a context and an in-order queue on its first device of type.
 * PoCL must be the first platform a process opens (it is loaded with
 * RTLD_DEEPBIND then: see common.c). */
void bench_cl_open(bench_cl *rt, const char *platform, cl_device_type type);
/* PoCL's first CPU device (so the benchmarks keep comparing with PoCL
 * once Weft is an ICD too). */
void bench_pocl_open(bench_cl *pocl);
void bench_cl_close(bench_cl *rt);

/* Builds source with options for the runtime's device, or exits with the
 * log. */
cl_program bench_cl_program(bench_cl *rt, const char *source,
                            const char *options);

/* Builds source and returns its kernel called name. */
cl_kernel bench_cl_kernel(bench_cl *rt, const char *source,
                          const char *options, const char *name);

/* A buffer of size bytes, a copy of init unless init is NULL. */
cl_mem bench_cl_buffer(bench_cl *rt, size_t size, cl_mem_flags flags,
                       const void *init);

#endif
