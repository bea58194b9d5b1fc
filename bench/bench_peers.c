/*
 * bench_peers.c: a broad set of kernels on Weft and on a peer runtime,
 * both reached as OpenCL platforms through the same ICD loader and the
 * same host code, as an unmodified application sees them.
 *
 *   By default the peer is PoCL, on the CPU. With --gpu, both run on their
 *   GPU device and the peer defaults to NVIDIA's OpenCL driver ("NVIDIA
 *   CUDA"; put its .icd beside Weft's in OCL_ICD_VENDORS). --peer NAME
 *   names another platform.
 *
 * The kernels: streaming (vecadd, saxpy, daxpy), compute with a loop per
 * work-item whose trip count differs (mandelbrot) or not (n-body),
 * matrix products (naive in float and double, and in __local tiles),
 * __local trees (reduce, scan), atomics (histograms into global or
 * __local bins), stencils (2D 5-point, 3D 7-point), a convolution with
 * __constant weights, a bitonic sort (many small launches), one group
 * of 1024 work-items keeping 2 KiB of private memory each across a
 * barrier, and reads of an RGBA image without a sampler (image_copy) and
 * through a bilinear one (image_blur), and eight trilinear reads of a 3D
 * image a voxel (volume_blur).
 *
 * Every launch is clEnqueueNDRangeKernel(s) + clFinish, timed on the host.
 * The runtimes take turns (alternating which goes first), each turn one
 * untimed run (first-launch costs, a GPU's context switch) and a few timed
 * ones, until each has run reps times or spent the time budget, and each
 * reports the median.
 * Outputs are checked against the host afterwards, on both runtimes: a
 * kernel that skips work fails the benchmark (exit status 1).
 *
 * CSV on stdout: kernel,weft_ms,peer_ms,weft_over_peer (below 1: Weft is
 * faster; the performance issue's goal is at most 0.8 on the CPU beside
 * PoCL, at most 1.0 on the GPU beside NVIDIA's driver).
 */
#include <errno.h> /* program_invocation_name */
#include <float.h>
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define WEFT_PLATFORM "Weft"
#define NVIDIA_PLATFORM "NVIDIA CUDA"

/* The kernels beyond those common.h shares. */
static const char *source =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" BENCH_KERNELS_SOURCE
    BENCH_MORE_KERNELS_SOURCE
    "__kernel void daxpy(double a, __global const double *x,\n"
    "                    __global const double *y, __global double *z) {\n"
    "  size_t i = get_global_id(0);\n"
    "  z[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void matmul_naive(__global const float *a,\n"
    "                           __global const float *b, __global float *c,\n"
    "                           uint n) {\n"
    "  uint row = get_global_id(1), col = get_global_id(0);\n"
    "  float sum = 0.0f;\n"
    "  for (uint k = 0; k < n; k++) sum += a[row * n + k] * b[k * n + col];\n"
    "  c[row * n + col] = sum;\n"
    "}\n"
    /* Each work-item keeps a 2x4 block of c in a private array across
     * the barriers, as CLBlast's Xgemm does (its registers, a GPU's). */
    "#define RT 32\n"
    "__kernel void matmul_registers(__global const float *a,\n"
    "                               __global const float *b,\n"
    "                               __global float *c, uint n) {\n"
    "  __local float at[RT][RT];\n"
    "  __local float4 bt[RT][RT / 4];\n"
    "  int lx = get_local_id(0), ly = get_local_id(1);\n"
    "  int item = ly * 8 + lx, gx = get_group_id(0), gy = get_group_id(1);\n"
    "  float4 acc[2];\n"
    "  for (int i = 0; i < 2; i++) acc[i] = (float4)(0.0f);\n"
    "  for (uint k0 = 0; k0 < n; k0 += RT) {\n"
    "    for (int e = item; e < RT * RT; e += 128)\n"
    "      at[e / RT][e % RT] = a[(gy * RT + e / RT) * n + k0 + e % RT];\n"
    "    for (int e = item; e < RT * RT / 4; e += 128)\n"
    "      bt[e / 8][e % 8] =\n"
    "          vload4(0, b + (k0 + e / 8) * n + gx * RT + 4 * (e % 8));\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int k = 0; k < RT; k++) {\n"
    "      float av[2];\n"
    "      for (int i = 0; i < 2; i++) av[i] = at[2 * ly + i][k];\n"
    "      for (int i = 0; i < 2; i++) acc[i] += av[i] * bt[k][lx];\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  for (int i = 0; i < 2; i++)\n"
    "    vstore4(acc[i], 0, c + (gy * RT + 2 * ly + i) * n + gx * RT + 4 * lx);\n"
    "}\n"
    "__kernel void matmul_naive_double(__global const double *a,\n"
    "                                  __global const double *b,\n"
    "                                  __global double *c, uint n) {\n"
    "  uint row = get_global_id(1), col = get_global_id(0);\n"
    "  double sum = 0.0;\n"
    "  for (uint k = 0; k < n; k++) sum += a[row * n + k] * b[k * n + col];\n"
    "  c[row * n + col] = sum;\n"
    "}\n"
    "__kernel void histogram_global(__global const uint *in,\n"
    "                               __global uint *bins) {\n"
    "  atomic_inc(&bins[in[get_global_id(0)] & 255]);\n"
    "}\n"
    "__kernel void histogram_local(__global const uint *in,\n"
    "                              __global uint *bins,\n"
    "                              __local uint *local_bins) {\n"
    "  uint lid = get_local_id(0), n = get_local_size(0);\n"
    "  for (uint b = lid; b < 256; b += n) local_bins[b] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_inc(&local_bins[in[get_global_id(0)] & 255]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint b = lid; b < 256; b += n)\n"
    "    if (local_bins[b]) atomic_add(&bins[b], local_bins[b]);\n"
    "}\n"
    "__kernel void stencil2d(__global const float *in, __global float *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  int w = get_global_size(0), h = get_global_size(1), i = y * w + x;\n"
    "  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {\n"
    "    out[i] = in[i];\n"
    "    return;\n"
    "  }\n"
    "  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] +\n"
    "                   in[i + w]);\n"
    "}\n"
    "__kernel void stencil3d(__global const float *in, __global float *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  int w = get_global_size(0), h = get_global_size(1);\n"
    "  int d = get_global_size(2), plane = w * h;\n"
    "  int i = z * plane + y * w + x;\n"
    "  if (x == 0 || y == 0 || z == 0 || x == w - 1 || y == h - 1 ||\n"
    "      z == d - 1) {\n"
    "    out[i] = in[i];\n"
    "    return;\n"
    "  }\n"
    "  out[i] = 0.25f * in[i] + 0.125f * (in[i - 1] + in[i + 1] +\n"
    "           in[i - w] + in[i + w] + in[i - plane] + in[i + plane]);\n"
    "}\n"
    "__kernel void scan(__global const uint *in, __global uint *out,\n"
    "                   __local uint *tmp) {\n"
    "  uint lid = get_local_id(0), n = get_local_size(0);\n"
    "  tmp[lid] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (uint offset = 1; offset < n; offset *= 2) {\n"
    "    uint v = lid >= offset ? tmp[lid - offset] : 0;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    tmp[lid] += v;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[get_global_id(0)] = tmp[lid];\n"
    "}\n"
    "__kernel void bitonic_step(__global uint *data, uint j, uint k) {\n"
    "  uint i = get_global_id(0), partner = i ^ j;\n"
    "  if (partner <= i) return;\n"
    "  uint a = data[i], b = data[partner];\n"
    "  if ((a > b) == ((i & k) == 0)) {\n"
    "    data[i] = b;\n"
    "    data[partner] = a;\n"
    "  }\n"
    "}\n"
    "__kernel void nbody(__global const float4 *pos, __global float4 *acc,\n"
    "                    uint n) {\n"
    "  float4 p = pos[get_global_id(0)];\n"
    "  float3 a = (float3)(0.0f);\n"
    "  for (uint j = 0; j < n; j++) {\n"
    "    float4 q = pos[j];\n"
    "    float3 d = q.xyz - p.xyz;\n"
    "    float inv = rsqrt(dot(d, d) + 0.01f);\n"
    "    a += q.w * inv * inv * inv * d;\n"
    "  }\n"
    "  acc[get_global_id(0)] = (float4)(a, 0.0f);\n"
    "}\n"
    "__kernel void private_barrier(__global const float *in,\n"
    "                              __global float *out) {\n"
    "  float p[512];\n"
    "  size_t i = get_global_id(0);\n"
    "  for (int k = 0; k < 512; k++) p[k] = in[(i + k) % get_global_size(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  float s = 0.0f;\n"
    "  for (int k = 0; k < 512; k++) s += p[k] * (float)(k & 7);\n"
    "  out[i] = s;\n"
    "}\n"
    "__kernel void convolve(__global const float *in, __global float *out,\n"
    "                       __constant float *weights) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  int w = get_global_size(0), h = get_global_size(1);\n"
    "  float s = 0.0f;\n"
    "  for (int dy = -2; dy <= 2; dy++)\n"
    "    for (int dx = -2; dx <= 2; dx++) {\n"
    "      int sx = clamp(x + dx, 0, w - 1), sy = clamp(y + dy, 0, h - 1);\n"
    "      s += weights[(dy + 2) * 5 + dx + 2] * in[sy * w + sx];\n"
    "    }\n"
    "  out[y * w + x] = s;\n"
    "}\n"
    "__kernel void image_copy(__read_only image2d_t src, __global float *out) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 v = read_imagef(src, (int2)(x, y));\n"
    "  out[y * get_global_size(0) + x] = dot(v, (float4)(0.299f, 0.587f, 0.114f, 0.25f));\n"
    "}\n"
    "__kernel void image_blur(__read_only image2d_t src, __global float *out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float4 sum = 0.0f;\n"
    "  for (int dy = -1; dy <= 1; dy++)\n"
    "    for (int dx = -1; dx <= 1; dx++)\n"
    "      sum += read_imagef(src, s, (float2)(x + 0.75f + 1.5f * dx,\n"
    "                                          y + 0.25f + 1.5f * dy));\n"
    "  out[y * get_global_size(0) + x] =\n"
    "      dot(sum, (float4)(0.299f, 0.587f, 0.114f, 0.0f)) / 9.0f;\n"
    "}\n"
    "__kernel void volume_blur(__read_only image3d_t src, __global float *out) {\n"
    "  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE |\n"
    "      CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;\n"
    "  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "  float4 sum = 0.0f;\n"
    "  for (int dz = -1; dz <= 1; dz += 2)\n"
    "    for (int dy = -1; dy <= 1; dy += 2)\n"
    "      for (int dx = -1; dx <= 1; dx += 2)\n"
    "        sum += read_imagef(src, s, (float4)(x + 0.75f + 0.75f * dx,\n"
    "            y + 0.25f + 0.75f * dy, z + 0.5f + 0.75f * dz, 0.0f));\n"
    "  size_t w = get_global_size(0), h = get_global_size(1);\n"
    "  out[(z * h + y) * w + x] =\n"
    "      dot(sum, (float4)(0.299f, 0.587f, 0.114f, 0.0f)) / 8.0f;\n"
    "}\n";

/* ------------------------------------------------------------ the cases */

typedef enum arg_kind {
  ARG_IN,     /* a buffer holding a copy of data */
  ARG_OUT,    /* a buffer, filled with 0xff bytes (NaN) before the runs */
  ARG_VALUE,  /* bytes bytes of data, by value */
  ARG_LOCAL,  /* __local memory of bytes bytes */
  ARG_SOURCE, /* like ARG_IN, but not a kernel argument: the launch
                 copies it into the buffer before it (bitonic) */
  ARG_IMAGE,  /* a read-only 2D CL_RGBA CL_UNORM_INT8 image holding a
                 copy of data, a pixel per work-item of the case */
  ARG_VOLUME, /* the same in 3D */
} arg_kind;

typedef struct arg {
  arg_kind kind;
  size_t bytes;
  const void *data;
} arg;

typedef enum elem_type { ELEM_FLOAT, ELEM_DOUBLE, ELEM_UINT } elem_type;

enum { MAX_ARGS = 5 };

typedef struct bench_case bench_case;

/* One runtime's objects for a case. */
typedef struct side {
  bench_cl *rt;
  cl_kernel kernel;
  cl_mem buffers[MAX_ARGS];
} side;

struct bench_case {
  const char *name, *kernel;
  cl_uint dims;
  size_t global[3];
  size_t local[3]; /* local[0] == 0: NULL, each runtime chooses */
  arg args[MAX_ARGS];
  int nargs;
  int out;       /* the argument checked */
  int zero_out;  /* the output is zeroed before each launch (histograms) */
  /* Several launches in place of one, or NULL. */
  void (*launch)(side *s, const bench_case *c);
  /* What out must hold: count elements of type, want[i] within tol[i]
   * (or within tol_all if tol is NULL); at most bad_allowed may differ. */
  elem_type type;
  size_t count;
  double *want, *tol;
  double tol_all;
  size_t bad_allowed;
};

typedef struct sizes {
  size_t stream_n;      /* elements of vecadd, saxpy, daxpy, reductions */
  size_t matmul_n;      /* matrices' side (float: naive, tiled, registers; a
                           multiple of 32) */
  size_t dmatmul_n;     /* the double naive product's side */
  size_t image_n;       /* stencil2d, convolve: pixels a side */
  size_t volume_n;      /* stencil3d: cells a side */
  size_t mandel_n;      /* pixels a side */
  unsigned mandel_iterations;
  size_t bodies;        /* n-body */
  unsigned sort_log2;   /* bitonic: 2^sort_log2 keys */
  size_t picture_n;     /* image_copy, image_blur: pixels a side */
  size_t voxels_n;      /* volume_blur: voxels a side */
  int reps;             /* the most timed runs per runtime, BLOCKs */
  double budget_s;      /* the time a kernel's runs may take, per runtime */
} sizes;

static const sizes cpu_sizes = {1u << 24, 512, 256, 2048, 256, 1024, 256,
                                4096, 20, 1024, 96, 12, 1.5};
static const sizes gpu_sizes = {1u << 26, 2048, 1024, 8192, 512, 4096, 1024,
                                32768, 24, 4096, 192, 20, 1.5};
static const sizes quick_sizes = {1u << 18, 128, 64, 256, 32, 128, 64, 512,
                                  12, 64, 16, 4, 0.2};

/* ------------------------------------------------------- host arrays */

static double *alloc_doubles(size_t n) {
  return bench_alloc(n * sizeof(double));
}

static float *random_floats(size_t n, unsigned seed, float lo, float hi) {
  float *v = bench_alloc(n * sizeof *v);
  bench_random_floats(v, n, seed, lo, hi);
  return v;
}

static double *random_doubles(size_t n, unsigned seed) {
  float *f = random_floats(n, seed, -1.0f, 1.0f);
  double *v = alloc_doubles(n);
  for (size_t i = 0; i < n; i++) v[i] = f[i];
  free(f);
  return v;
}

static uint32_t *random_uints(size_t n, unsigned seed) {
  uint32_t *v = bench_alloc(n * sizeof *v);
  bench_random_uints(v, n, seed);
  return v;
}

/* ------------------------------------------------------ the references */

/* Element-wise a*x + y (vecadd: a = 1), exactly as the device rounds. */
static void axpy_reference(bench_case *c, double a, const float *x,
                           const float *y, size_t n) {
  c->want = alloc_doubles(n);
  c->tol = alloc_doubles(n);
  for (size_t i = 0; i < n; i++) {
    c->want[i] = (double)(float)(a * x[i]) + y[i];
    /* A fused multiply-add rounds once, the host twice. */
    c->tol[i] = 2.0 * FLT_EPSILON * (fabs(a * x[i]) + fabs(y[i]));
  }
}

/* ------------------------------------------------------- making a case */

static void add_arg(bench_case *c, arg_kind kind, size_t bytes,
                    const void *data) {
  if (c->nargs == MAX_ARGS) bench_die("%s: too many arguments", c->name);
  c->args[c->nargs++] = (arg){kind, bytes, data};
}

static bench_case new_case(const char *name, const char *kernel,
                           cl_uint dims, size_t x, size_t y, size_t z) {
  bench_case c;
  memset(&c, 0, sizeof c);
  c.name = name;
  c.kernel = kernel;
  c.dims = dims;
  c.global[0] = x;
  c.global[1] = y;
  c.global[2] = z;
  return c;
}

static void set_output(bench_case *c, int arg_index, elem_type type,
                       size_t count) {
  c->out = arg_index;
  c->type = type;
  c->count = count;
}

/* Values passed by value live as long as the program: static storage. */
static const float saxpy_a = 2.5f;
static const double daxpy_a = -1.25;
static cl_uint matmul_side, dmatmul_side, mandel_iterations, body_count;

static bench_case vecadd_case(const sizes *s) {
  size_t n = s->stream_n;
  bench_case c = new_case("vecadd", "vecadd", 1, n, 1, 1);
  float *a = random_floats(n, 1, -1.0f, 1.0f);
  float *b = random_floats(n, 2, -1.0f, 1.0f);
  add_arg(&c, ARG_IN, n * sizeof *a, a);
  add_arg(&c, ARG_IN, n * sizeof *b, b);
  add_arg(&c, ARG_OUT, n * sizeof(float), NULL);
  set_output(&c, 2, ELEM_FLOAT, n);
  axpy_reference(&c, 1.0, a, b, n);
  return c;
}

static bench_case saxpy_case(const sizes *s) {
  size_t n = s->stream_n;
  bench_case c = new_case("saxpy", "saxpy", 1, n, 1, 1);
  float *x = random_floats(n, 3, -1.0f, 1.0f);
  float *y = random_floats(n, 4, -1.0f, 1.0f);
  add_arg(&c, ARG_VALUE, sizeof saxpy_a, &saxpy_a);
  add_arg(&c, ARG_IN, n * sizeof *x, x);
  add_arg(&c, ARG_IN, n * sizeof *y, y);
  add_arg(&c, ARG_OUT, n * sizeof(float), NULL);
  set_output(&c, 3, ELEM_FLOAT, n);
  axpy_reference(&c, saxpy_a, x, y, n);
  return c;
}

static bench_case daxpy_case(const sizes *s) {
  size_t n = s->stream_n / 2; /* the same bytes as saxpy */
  bench_case c = new_case("daxpy", "daxpy", 1, n, 1, 1);
  double *x = random_doubles(n, 5), *y = random_doubles(n, 6);
  add_arg(&c, ARG_VALUE, sizeof daxpy_a, &daxpy_a);
  add_arg(&c, ARG_IN, n * sizeof *x, x);
  add_arg(&c, ARG_IN, n * sizeof *y, y);
  add_arg(&c, ARG_OUT, n * sizeof(double), NULL);
  set_output(&c, 3, ELEM_DOUBLE, n);
  c.want = alloc_doubles(n);
  for (size_t i = 0; i < n; i++) c.want[i] = daxpy_a * x[i] + y[i];
  c.tol_all = 4.0 * DBL_EPSILON;
  return c;
}

static bench_case mandelbrot_case(const sizes *s) {
  size_t side = s->mandel_n;
  bench_case c = new_case("mandelbrot", "mandelbrot", 2, side, side, 1);
  mandel_iterations = s->mandel_iterations;
  add_arg(&c, ARG_OUT, side * side * sizeof(float), NULL);
  add_arg(&c, ARG_VALUE, sizeof mandel_iterations, &mandel_iterations);
  set_output(&c, 0, ELEM_FLOAT, side * side);
  c.want = alloc_doubles(side * side);
  for (size_t p = 0; p < side * side; p++)
    c.want[p] = bench_mandelbrot_pixel(p % side, p / side, side,
                                       mandel_iterations);
  /* Fused multiply-adds move a few pixels on the set's edge. */
  c.bad_allowed = side * side / 200;
  return c;
}

/* How a product's work is split: an element per work-item (in groups of
 * 16x16 when tiled), or a 2x4 block per work-item in groups of 8x16. */
enum { MATMUL_NAIVE, MATMUL_TILED, MATMUL_REGISTERS };

static bench_case matmul_case(const char *name, const char *kernel,
                              size_t n, int split, int is_double) {
  bench_case c = split == MATMUL_REGISTERS
                     ? new_case(name, kernel, 2, n / 4, n / 2, 1)
                     : new_case(name, kernel, 2, n, n, 1);
  if (split == MATMUL_TILED) {
    c.local[0] = c.local[1] = 16;
    c.local[2] = 1;
  } else if (split == MATMUL_REGISTERS) {
    c.local[0] = 8;
    c.local[1] = 16;
    c.local[2] = 1;
  }
  size_t elem = is_double ? sizeof(double) : sizeof(float);
  void *a, *b;
  if (is_double) {
    a = random_doubles(n * n, 7);
    b = random_doubles(n * n, 8);
  } else {
    a = random_floats(n * n, 7, -1.0f, 1.0f);
    b = random_floats(n * n, 8, -1.0f, 1.0f);
  }
  cl_uint *side = is_double ? &dmatmul_side : &matmul_side;
  *side = (cl_uint)n;
  add_arg(&c, ARG_IN, n * n * elem, a);
  add_arg(&c, ARG_IN, n * n * elem, b);
  add_arg(&c, ARG_OUT, n * n * elem, NULL);
  add_arg(&c, ARG_VALUE, sizeof *side, side);
  set_output(&c, 2, is_double ? ELEM_DOUBLE : ELEM_FLOAT, n * n);
  c.want = alloc_doubles(n * n);
  c.tol = alloc_doubles(n * n);
  bench_matmul_reference(a, b, n, is_double, 2.0, c.want, c.tol);
  return c;
}

enum { GROUP = 256, BINS = 256 };

static bench_case reduce_case(const sizes *s) {
  size_t n = s->stream_n, groups = n / GROUP;
  bench_case c = new_case("reduce", "reduce", 1, n, 1, 1);
  c.local[0] = GROUP;
  float *in = random_floats(n, 9, 0.0f, 1.0f);
  add_arg(&c, ARG_IN, n * sizeof *in, in);
  add_arg(&c, ARG_OUT, groups * sizeof(float), NULL);
  add_arg(&c, ARG_LOCAL, GROUP * sizeof(float), NULL);
  set_output(&c, 1, ELEM_FLOAT, groups);
  c.want = alloc_doubles(groups);
  for (size_t g = 0; g < groups; g++) {
    double sum = 0.0;
    for (size_t i = 0; i < GROUP; i++) sum += in[g * GROUP + i];
    c.want[g] = sum;
  }
  c.tol_all = GROUP * FLT_EPSILON * GROUP;
  return c;
}

static bench_case histogram_case(const sizes *s, int local) {
  size_t n = s->stream_n;
  bench_case c = new_case(local ? "histogram_local" : "histogram_global",
                          local ? "histogram_local" : "histogram_global", 1,
                          n, 1, 1);
  if (local) c.local[0] = GROUP;
  uint32_t *in = random_uints(n, 10);
  add_arg(&c, ARG_IN, n * sizeof *in, in);
  add_arg(&c, ARG_OUT, BINS * sizeof(uint32_t), NULL);
  if (local) add_arg(&c, ARG_LOCAL, BINS * sizeof(uint32_t), NULL);
  set_output(&c, 1, ELEM_UINT, BINS);
  c.zero_out = 1;
  c.want = alloc_doubles(BINS);
  memset(c.want, 0, BINS * sizeof *c.want);
  for (size_t i = 0; i < n; i++) c.want[in[i] & (BINS - 1)] += 1.0;
  return c;
}

static bench_case stencil2d_case(const sizes *s) {
  size_t w = s->image_n, n = w * w;
  bench_case c = new_case("stencil2d", "stencil2d", 2, w, w, 1);
  float *in = random_floats(n, 11, 0.0f, 1.0f);
  add_arg(&c, ARG_IN, n * sizeof *in, in);
  add_arg(&c, ARG_OUT, n * sizeof(float), NULL);
  set_output(&c, 1, ELEM_FLOAT, n);
  c.want = alloc_doubles(n);
  for (size_t y = 0; y < w; y++)
    for (size_t x = 0; x < w; x++) {
      size_t i = y * w + x;
      int edge = x == 0 || y == 0 || x == w - 1 || y == w - 1;
      c.want[i] = edge ? in[i]
                       : 0.2 * ((double)in[i] + in[i - 1] + in[i + 1] +
                                in[i - w] + in[i + w]);
    }
  c.tol_all = 8.0 * FLT_EPSILON;
  return c;
}

static bench_case stencil3d_case(const sizes *s) {
  size_t w = s->volume_n, plane = w * w, n = plane * w;
  bench_case c = new_case("stencil3d", "stencil3d", 3, w, w, w);
  float *in = random_floats(n, 12, 0.0f, 1.0f);
  add_arg(&c, ARG_IN, n * sizeof *in, in);
  add_arg(&c, ARG_OUT, n * sizeof(float), NULL);
  set_output(&c, 1, ELEM_FLOAT, n);
  c.want = alloc_doubles(n);
  for (size_t i = 0; i < n; i++) {
    size_t x = i % w, y = i / w % w, z = i / plane;
    int edge = x == 0 || y == 0 || z == 0 || x == w - 1 || y == w - 1 ||
               z == w - 1;
    c.want[i] = edge ? in[i]
                     : 0.25 * in[i] +
                           0.125 * ((double)in[i - 1] + in[i + 1] +
                                    in[i - w] + in[i + w] + in[i - plane] +
                                    in[i + plane]);
  }
  c.tol_all = 8.0 * FLT_EPSILON;
  return c;
}

static bench_case scan_case(const sizes *s) {
  size_t n = s->stream_n;
  bench_case c = new_case("scan", "scan", 1, n, 1, 1);
  c.local[0] = GROUP;
  uint32_t *in = random_uints(n, 13);
  for (size_t i = 0; i < n; i++) in[i] &= 0xffff;
  add_arg(&c, ARG_IN, n * sizeof *in, in);
  add_arg(&c, ARG_OUT, n * sizeof(uint32_t), NULL);
  add_arg(&c, ARG_LOCAL, GROUP * sizeof(uint32_t), NULL);
  set_output(&c, 1, ELEM_UINT, n);
  c.want = alloc_doubles(n);
  double sum = 0.0;
  for (size_t i = 0; i < n; i++) {
    sum = (i % GROUP ? sum : 0.0) + in[i];
    c.want[i] = sum;
  }
  return c;
}

/* Every stage of the sorting network, after a fresh copy of the keys. */
static void bitonic_launch(side *s, const bench_case *c) {
  cl_mem data = s->buffers[0];
  CL_CHECK(clEnqueueCopyBuffer(s->rt->queue, s->buffers[1], data, 0, 0,
                               c->args[1].bytes, 0, NULL, NULL));
  for (cl_uint k = 2; k <= c->global[0]; k *= 2)
    for (cl_uint j = k / 2; j > 0; j /= 2) {
      CL_CHECK(clSetKernelArg(s->kernel, 1, sizeof j, &j));
      CL_CHECK(clSetKernelArg(s->kernel, 2, sizeof k, &k));
      CL_CHECK(clEnqueueNDRangeKernel(s->rt->queue, s->kernel, 1, NULL,
                                      c->global, NULL, 0, NULL, NULL));
    }
}

static int compare_uints(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static bench_case bitonic_case(const sizes *s) {
  size_t n = (size_t)1 << s->sort_log2;
  bench_case c = new_case("bitonic_sort", "bitonic_step", 1, n, 1, 1);
  uint32_t *keys = random_uints(n, 14);
  add_arg(&c, ARG_OUT, n * sizeof *keys, NULL);
  add_arg(&c, ARG_SOURCE, n * sizeof *keys, keys);
  set_output(&c, 0, ELEM_UINT, n);
  c.launch = bitonic_launch;
  uint32_t *sorted = bench_alloc(n * sizeof *sorted);
  memcpy(sorted, keys, n * sizeof *sorted);
  qsort(sorted, n, sizeof *sorted, compare_uints);
  c.want = alloc_doubles(n);
  for (size_t i = 0; i < n; i++) c.want[i] = sorted[i];
  free(sorted);
  return c;
}

static bench_case nbody_case(const sizes *s) {
  size_t n = s->bodies;
  bench_case c = new_case("nbody", "nbody", 1, n, 1, 1);
  float *pos = random_floats(4 * n, 15, -1.0f, 1.0f);
  for (size_t i = 0; i < n; i++) pos[4 * i + 3] = 0.5f + 0.5f * pos[4 * i + 3];
  body_count = (cl_uint)n;
  add_arg(&c, ARG_IN, 4 * n * sizeof *pos, pos);
  add_arg(&c, ARG_OUT, 4 * n * sizeof(float), NULL);
  add_arg(&c, ARG_VALUE, sizeof body_count, &body_count);
  set_output(&c, 1, ELEM_FLOAT, 4 * n);
  c.want = alloc_doubles(4 * n);
  c.tol = alloc_doubles(4 * n);
  for (size_t i = 0; i < n; i++) {
    double a[3] = {0, 0, 0}, magnitude[3] = {0, 0, 0};
    for (size_t j = 0; j < n; j++) {
      double d[3], r2 = 0.01;
      for (int k = 0; k < 3; k++) {
        d[k] = (double)pos[4 * j + k] - pos[4 * i + k];
        r2 += d[k] * d[k];
      }
      double f = pos[4 * j + 3] / (r2 * sqrt(r2));
      for (int k = 0; k < 3; k++) {
        a[k] += f * d[k];
        magnitude[k] += fabs(f * d[k]);
      }
    }
    for (int k = 0; k < 4; k++) {
      c.want[4 * i + k] = k < 3 ? a[k] : 0.0;
      /* rsqrt may be off by a few ulp (OpenCL allows 2 ulp, native
       * versions more): 1e-4 of the terms' magnitudes. */
      c.tol[4 * i + k] = k < 3 ? 1e-4 * magnitude[k] + 1e-6 : 0.0;
    }
  }
  return c;
}

static float conv_weights[25];

static bench_case convolve_case(const sizes *s) {
  size_t w = s->image_n, n = w * w;
  bench_case c = new_case("convolve", "convolve", 2, w, w, 1);
  float *in = random_floats(n, 16, 0.0f, 1.0f);
  bench_random_floats(conv_weights, 25, 17, -0.5f, 0.5f);
  add_arg(&c, ARG_IN, n * sizeof *in, in);
  add_arg(&c, ARG_OUT, n * sizeof(float), NULL);
  add_arg(&c, ARG_IN, sizeof conv_weights, conv_weights);
  set_output(&c, 1, ELEM_FLOAT, n);
  c.want = alloc_doubles(n);
  c.tol = alloc_doubles(n);
  for (size_t y = 0; y < w; y++)
    for (size_t x = 0; x < w; x++) {
      double sum = 0.0, magnitude = 0.0;
      for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
          long sx = (long)x + dx, sy = (long)y + dy, last = (long)w - 1;
          sx = sx < 0 ? 0 : sx > last ? last : sx;
          sy = sy < 0 ? 0 : sy > last ? last : sy;
          double term = (double)conv_weights[(dy + 2) * 5 + dx + 2] *
                        in[(size_t)sy * w + (size_t)sx];
          sum += term;
          magnitude += fabs(term);
        }
      c.want[y * w + x] = sum;
      c.tol[y * w + x] = 50.0 * FLT_EPSILON * magnitude + 1e-30;
    }
  return c;
}

/* Channel c of element (x, y, z) of an RGBA UNORM_INT8 image or volume
 * of n a side, clamped to its edge, as a float (a picture's z is 0). */
static double voxel(const uint8_t *rgba, size_t n, long x, long y, long z,
                    int c) {
  long last = (long)n - 1;
  x = x < 0 ? 0 : x > last ? last : x;
  y = y < 0 ? 0 : y > last ? last : y;
  z = z < 0 ? 0 : z > last ? last : z;
  return rgba[(((size_t)z * n + (size_t)y) * n + (size_t)x) * 4 + (size_t)c] /
         255.0;
}

static double texel(const uint8_t *rgba, size_t n, long x, long y, int c) {
  return voxel(rgba, n, x, y, 0, c);
}

/* The luminance weights the image kernels apply (alpha's is image_copy's). */
static const double luma[4] = {0.299, 0.587, 0.114, 0.25};

/* What a kernel over an n x n picture gives at pixel (x, y). */
typedef double (*pixel_fn)(const uint8_t *rgba, size_t n, long x, long y);

/* An image kernel's case: a random picture, and out's pixels as pixel
 * computes them, within tol. */
static bench_case picture_case(const sizes *s, const char *name,
                               pixel_fn pixel, double tol) {
  size_t n = s->picture_n;
  bench_case c = new_case(name, name, 2, n, n, 1);
  uint8_t *rgba = (uint8_t *)random_uints(n * n, 19);
  add_arg(&c, ARG_IMAGE, n * n * 4, rgba);
  add_arg(&c, ARG_OUT, n * n * sizeof(float), NULL);
  set_output(&c, 1, ELEM_FLOAT, n * n);
  c.want = alloc_doubles(n * n);
  for (size_t y = 0; y < n; y++)
    for (size_t x = 0; x < n; x++)
      c.want[y * n + x] = pixel(rgba, n, (long)x, (long)y);
  c.tol_all = tol;
  return c;
}

/* image_copy: the pixel read without a sampler, its channels weighed. */
static double copy_pixel(const uint8_t *rgba, size_t n, long x, long y) {
  double v = 0.0;
  for (int ch = 0; ch < 4; ch++) v += luma[ch] * texel(rgba, n, x, y, ch);
  return v;
}

/* image_blur: nine bilinear reads around the pixel (unnormalized
 * coordinates, clamp to edge), their luminance averaged: OpenCL's
 * formulas in double. */
static double blur_pixel(const uint8_t *rgba, size_t n, long x, long y) {
  double sum = 0.0;
  for (int dy = -1; dy <= 1; dy++)
    for (int dx = -1; dx <= 1; dx++) {
      double u = (double)x + 0.75 + 1.5 * dx - 0.5;
      double v = (double)y + 0.25 + 1.5 * dy - 0.5;
      long i = (long)floor(u), j = (long)floor(v);
      double a = u - floor(u), b = v - floor(v);
      for (int ch = 0; ch < 3; ch++)
        sum += luma[ch] * ((1 - a) * (1 - b) * texel(rgba, n, i, j, ch) +
                           a * (1 - b) * texel(rgba, n, i + 1, j, ch) +
                           (1 - a) * b * texel(rgba, n, i, j + 1, ch) +
                           a * b * texel(rgba, n, i + 1, j + 1, ch));
    }
  return sum / 9.0;
}

static bench_case image_copy_case(const sizes *s) {
  return picture_case(s, "image_copy", copy_pixel, 1e-5);
}

/* GPUs weigh with 8 fractional bits (NVIDIA's driver and Weft's
 * textures), so each tap may be off by up to 1/256 of its neighbours'
 * difference. */
static bench_case image_blur_case(const sizes *s) {
  return picture_case(s, "image_blur", blur_pixel, 2.0 / 256);
}

/* volume_blur: eight trilinear reads around the voxel (unnormalized
 * coordinates, clamp to edge), their luminance averaged. */
static double blur_voxel(const uint8_t *rgba, size_t n, long x, long y,
                         long z) {
  double sum = 0.0;
  for (int d = 0; d < 8; d++) {
    double c[3] = {(double)x + 0.75 + 0.75 * (d & 1 ? 1 : -1) - 0.5,
                   (double)y + 0.25 + 0.75 * (d & 2 ? 1 : -1) - 0.5,
                   (double)z + 0.5 + 0.75 * (d & 4 ? 1 : -1) - 0.5};
    long i[3];
    double a[3];
    for (int k = 0; k < 3; k++) {
      i[k] = (long)floor(c[k]);
      a[k] = c[k] - floor(c[k]);
    }
    for (int corner = 0; corner < 8; corner++) {
      double weight = 1.0;
      long at[3];
      for (int k = 0; k < 3; k++) {
        int high = corner >> k & 1;
        at[k] = i[k] + high;
        weight *= high ? a[k] : 1 - a[k];
      }
      for (int ch = 0; ch < 3; ch++)
        sum += weight * luma[ch] * voxel(rgba, n, at[0], at[1], at[2], ch);
    }
  }
  return sum / 8.0;
}

/* GPUs weigh with 8 fractional bits in each of three axes. */
static bench_case volume_blur_case(const sizes *s) {
  size_t n = s->voxels_n, count = n * n * n;
  bench_case c = new_case("volume_blur", "volume_blur", 3, n, n, n);
  uint8_t *rgba = (uint8_t *)random_uints(count, 20);
  add_arg(&c, ARG_VOLUME, count * 4, rgba);
  add_arg(&c, ARG_OUT, count * sizeof(float), NULL);
  set_output(&c, 1, ELEM_FLOAT, count);
  c.want = alloc_doubles(count);
  for (size_t z = 0; z < n; z++)
    for (size_t y = 0; y < n; y++)
      for (size_t x = 0; x < n; x++)
        c.want[(z * n + y) * n + x] =
            blur_voxel(rgba, n, (long)x, (long)y, (long)z);
  c.tol_all = 3.0 / 256;
  return c;
}

/* One group of 1024 work-items, each with 2 KiB of private memory kept
 * across a barrier (the regions keep it per work-item). */
static bench_case private_barrier_case(void) {
  size_t n = 1024;
  bench_case c = new_case("private_barrier", "private_barrier", 1, n, 1, 1);
  c.local[0] = n;
  float *in = random_floats(n, 18, 0.0f, 1.0f);
  add_arg(&c, ARG_IN, n * sizeof *in, in);
  add_arg(&c, ARG_OUT, n * sizeof(float), NULL);
  set_output(&c, 1, ELEM_FLOAT, n);
  c.want = alloc_doubles(n);
  c.tol = alloc_doubles(n);
  for (size_t i = 0; i < n; i++) {
    double sum = 0.0, magnitude = 0.0;
    for (size_t k = 0; k < 512; k++) {
      double term = (double)in[(i + k) % n] * (double)(k & 7);
      sum += term;
      magnitude += fabs(term);
    }
    c.want[i] = sum;
    c.tol[i] = 512.0 * FLT_EPSILON * magnitude + 1e-30;
  }
  return c;
}

/* --------------------------------------------------------- the runtimes */

static void make_side(side *s, bench_cl *rt, cl_program program,
                      const bench_case *c) {
  cl_int rc;
  s->rt = rt;
  s->kernel = clCreateKernel(program, c->kernel, &rc);
  bench_cl_check(rc, "clCreateKernel");
  cl_uint index = 0;
  for (int i = 0; i < c->nargs; i++) {
    const arg *a = &c->args[i];
    s->buffers[i] = NULL;
    switch (a->kind) {
    case ARG_IN:
    case ARG_SOURCE:
      s->buffers[i] = bench_cl_buffer(rt, a->bytes, CL_MEM_READ_WRITE, a->data);
      break;
    case ARG_OUT: {
      s->buffers[i] = bench_cl_buffer(rt, a->bytes, CL_MEM_READ_WRITE, NULL);
      unsigned char ones = 0xff;
      CL_CHECK(clEnqueueFillBuffer(rt->queue, s->buffers[i], &ones, 1, 0,
                                   a->bytes, 0, NULL, NULL));
      break;
    }
    case ARG_IMAGE:
    case ARG_VOLUME: {
      cl_image_format format = {CL_RGBA, CL_UNORM_INT8};
      cl_image_desc desc = {.image_type = a->kind == ARG_VOLUME
                                              ? CL_MEM_OBJECT_IMAGE3D
                                              : CL_MEM_OBJECT_IMAGE2D,
                            .image_width = c->global[0],
                            .image_height = c->global[1],
                            .image_depth = a->kind == ARG_VOLUME ? c->global[2] : 0};
      s->buffers[i] = clCreateImage(rt->context,
                                    CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    &format, &desc, (void *)a->data, &rc);
      bench_cl_check(rc, "clCreateImage");
      break;
    }
    case ARG_VALUE:
      CL_CHECK(clSetKernelArg(s->kernel, index++, a->bytes, a->data));
      break;
    case ARG_LOCAL:
      CL_CHECK(clSetKernelArg(s->kernel, index++, a->bytes, NULL));
      break;
    }
    if (s->buffers[i] && a->kind != ARG_SOURCE)
      CL_CHECK(clSetKernelArg(s->kernel, index++, sizeof s->buffers[i],
                              &s->buffers[i]));
  }
  CL_CHECK(clFinish(rt->queue));
}

static void release_side(side *s, const bench_case *c) {
  for (int i = 0; i < c->nargs; i++)
    if (s->buffers[i]) clReleaseMemObject(s->buffers[i]);
  clReleaseKernel(s->kernel);
}

/* One run of the case, waited for; returns its milliseconds. */
static double run_once(side *s, const bench_case *c) {
  double start = bench_now_ms();
  if (c->zero_out) {
    cl_uint zero = 0;
    CL_CHECK(clEnqueueFillBuffer(s->rt->queue, s->buffers[c->out], &zero,
                                 sizeof zero, 0, c->args[c->out].bytes, 0,
                                 NULL, NULL));
  }
  if (c->launch)
    c->launch(s, c);
  else
    CL_CHECK(clEnqueueNDRangeKernel(s->rt->queue, s->kernel, c->dims, NULL,
                                    c->global, c->local[0] ? c->local : NULL,
                                    0, NULL, NULL));
  CL_CHECK(clFinish(s->rt->queue));
  return bench_now_ms() - start;
}

/* The runtimes measured: Weft and the peer, or Weft alone (--alone, what
 * --scaling runs for each thread count). */
static int sides = 2;

/* Runs per turn: a runtime runs one untimed, then BLOCK timed. Two GPU
 * runtimes' contexts take turns on the GPU, and the first launch after
 * the other context's costs a context switch (tens of microseconds on an
 * H100, more than half of vecadd's time): it is not the kernel's. */
enum { BLOCK = 4 };

/* The runtimes take turns, alternating which goes first, until each ran
 * s->reps times or both spent the budget (at least one turn each). */
static void measure(side pair[2], const bench_case *c, const sizes *s,
                    double ms[2]) {
  int most = s->reps + BLOCK;
  double *times[2];
  for (int r = 0; r < sides; r++) times[r] = alloc_doubles((size_t)most);
  double spent[2] = {0, 0};
  int runs = 0;
  for (int turn = 0;
       runs < s->reps && (!runs || spent[0] < s->budget_s * 1e3 ||
                          (sides == 2 && spent[1] < s->budget_s * 1e3));
       turn++) {
    for (int k = 0; k < sides; k++) {
      int r = (turn + k) % sides;
      run_once(&pair[r], c);
      for (int i = 0; i < BLOCK; i++) {
        times[r][runs + i] = run_once(&pair[r], c);
        spent[r] += times[r][runs + i];
      }
    }
    runs += BLOCK;
  }
  for (int r = 0; r < sides; r++) {
    ms[r] = bench_median(times[r], runs);
    free(times[r]);
  }
}

static double element(const void *v, elem_type type, size_t i) {
  return type == ELEM_FLOAT    ? ((const float *)v)[i]
         : type == ELEM_DOUBLE ? ((const double *)v)[i]
                               : ((const uint32_t *)v)[i];
}

/* The number of out's elements that differ from the host's, or 0 where
 * no more than c->bad_allowed do. */
static size_t check(side *s, const bench_case *c, const char *runtime) {
  size_t bytes = c->args[c->out].bytes;
  void *got = bench_alloc(bytes);
  CL_CHECK(clEnqueueReadBuffer(s->rt->queue, s->buffers[c->out], CL_TRUE, 0,
                               bytes, got, 0, NULL, NULL));
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < c->count; i++) {
    double v = element(got, c->type, i);
    double limit = c->tol ? c->tol[i] : c->tol_all;
    /* Written so that a NaN fails. */
    if (fabs(v - c->want[i]) <= limit) continue;
    if (!bad++) first = i;
  }
  if (bad > c->bad_allowed) {
    double v = element(got, c->type, first);
    bench_note("%s on %s: %zu of %zu elements are wrong; element %zu is "
               "%.9g, the host says %.9g (tolerance %.3g)",
               c->name, runtime, bad, c->count, first, v, c->want[first],
               c->tol ? c->tol[first] : c->tol_all);
  }
  free(got);
  return bad > c->bad_allowed ? bad : 0;
}

static void free_case(bench_case *c) {
  for (int i = 0; i < c->nargs; i++)
    if (c->args[i].kind == ARG_IN || c->args[i].kind == ARG_SOURCE ||
        c->args[i].kind == ARG_IMAGE || c->args[i].kind == ARG_VOLUME)
      if (c->args[i].data != conv_weights) free((void *)c->args[i].data);
  free(c->want);
  free(c->tol);
}

/* Makes, times and checks one case on both runtimes; returns 1 if either
 * got it wrong. */
static int run_case(bench_case c, bench_cl rts[2], cl_program programs[2],
                    const char *peer, const sizes *s) {
  bench_note("%s: %zu x %zu x %zu", c.name, c.global[0], c.global[1],
             c.global[2]);
  side pair[2];
  for (int r = 0; r < sides; r++)
    make_side(&pair[r], &rts[r], programs[r], &c);
  double ms[2];
  measure(pair, &c, s, ms);
  size_t bad = check(&pair[0], &c, WEFT_PLATFORM);
  if (sides == 2) bad += check(&pair[1], &c, peer);
  if (!bad && sides == 2)
    bench_csv_line("%s,%.6g,%.6g,%.3f", c.name, ms[0], ms[1], ms[0] / ms[1]);
  else if (!bad)
    bench_csv_line("%s,%.6g", c.name, ms[0]);
  for (int r = 0; r < sides; r++) release_side(&pair[r], &c);
  free_case(&c);
  return bad != 0;
}

static int has_double(bench_cl *rt) {
  cl_device_fp_config fp64 = 0;
  clGetDeviceInfo(rt->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64,
                  NULL);
  return fp64 != 0;
}

/* --only KERNEL: the one row wanted, or NULL for all. */
static const char *only;

static int wanted(const char *name) { return !only || !strcmp(only, name); }

/* RUN(name, maker): the row called name, made (host reference and all)
 * only if it is wanted. */
#define RUN(name, maker)                                                     \
  (wanted(name) ? run_case(maker, rts, programs, peer, s) : 0)

static int run_all(bench_cl rts[2], cl_program programs[2], const char *peer,
                   const sizes *s) {
  int failed = 0;
  int doubles = has_double(&rts[0]) && (sides == 1 || has_double(&rts[1]));
  failed += RUN("vecadd", vecadd_case(s));
  failed += RUN("saxpy", saxpy_case(s));
  if (doubles) failed += RUN("daxpy", daxpy_case(s));
  failed += RUN("mandelbrot", mandelbrot_case(s));
  failed += RUN("matmul_naive", matmul_case("matmul_naive", "matmul_naive",
                                            s->matmul_n, MATMUL_NAIVE, 0));
  if (doubles)
    failed += RUN("matmul_naive_double",
                  matmul_case("matmul_naive_double", "matmul_naive_double",
                              s->dmatmul_n, MATMUL_NAIVE, 1));
  failed += RUN("matmul_tiled", matmul_case("matmul_tiled", "matmul",
                                            s->matmul_n, MATMUL_TILED, 0));
  failed += RUN("matmul_registers",
                matmul_case("matmul_registers", "matmul_registers",
                            s->matmul_n, MATMUL_REGISTERS, 0));
  failed += RUN("reduce", reduce_case(s));
  failed += RUN("scan", scan_case(s));
  failed += RUN("histogram_global", histogram_case(s, 0));
  failed += RUN("histogram_local", histogram_case(s, 1));
  failed += RUN("stencil2d", stencil2d_case(s));
  failed += RUN("stencil3d", stencil3d_case(s));
  failed += RUN("convolve", convolve_case(s));
  failed += RUN("nbody", nbody_case(s));
  failed += RUN("bitonic_sort", bitonic_case(s));
  failed += RUN("private_barrier", private_barrier_case());
  failed += RUN("image_copy", image_copy_case(s));
  failed += RUN("image_blur", image_blur_case(s));
  failed += RUN("volume_blur", volume_blur_case(s));
  return failed;
}

/* ------------------------------------------------------------ scaling */

/* The thread counts --scaling runs: powers of two below the usable CPUs,
 * and their number. */
static int thread_counts(int *counts, int most) {
  cpu_set_t set;
  int cpus = sched_getaffinity(0, sizeof set, &set) ? 1 : CPU_COUNT(&set);
  int n = 0;
  for (int t = 1; t < cpus && n < most - 1; t *= 2) counts[n++] = t;
  counts[n++] = cpus;
  return n;
}

enum { MAX_COUNTS = 16, MAX_ROWS = 32 };

/* --scaling: Weft alone on the CPU, a process per thread count
 * (WEFT_NUM_THREADS is read once), each kernel's time and its speedup
 * over one thread. */
static int scaling(const bench_options *o) {
  int counts[MAX_COUNTS], n = thread_counts(counts, MAX_COUNTS);
  char names[MAX_ROWS][32];
  double ms[MAX_ROWS][MAX_COUNTS];
  int rows = 0;
  static char out[1 << 16];
  for (int i = 0; i < n; i++) {
    char threads[40];
    snprintf(threads, sizeof threads, "WEFT_NUM_THREADS=%d", counts[i]);
    char *env[] = {threads, NULL};
    char *args[8] = {program_invocation_name, "--alone"};
    int a = 2;
    if (o->quick) args[a++] = "--quick";
    if (o->only) {
      args[a++] = "--only";
      args[a++] = (char *)o->only;
    }
    args[a] = NULL;
    bench_note("%d threads", counts[i]);
    if (bench_run_self(args, env, out, sizeof out))
      bench_die("the run on %d threads failed", counts[i]);
    int row = 0;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
      char name[32];
      double t;
      if (sscanf(line, "%31[^,],%lf", name, &t) != 2) continue; /* header */
      if (row == MAX_ROWS) break;
      if (i == 0) snprintf(names[rows++], sizeof names[0], "%s", name);
      else if (row >= rows || strcmp(names[row], name))
        bench_die("the run on %d threads gave other rows", counts[i]);
      ms[row++][i] = t;
    }
  }
  bench_csv_open(o->csv_path, "kernel,threads,weft_ms,speedup", 1);
  for (int r = 0; r < rows; r++)
    for (int i = 0; i < n; i++)
      bench_csv_line("%s,%d,%.6g,%.2f", names[r], counts[i], ms[r][i],
                     ms[r][0] / ms[r][i]);
  bench_csv_close();
  return 0;
}

int main(int argc, char **argv) {
  bench_options options;
  bench_parse_options(argc, argv, &options);
  only = options.only;
  if (options.scaling) return scaling(&options);
  if (options.alone) sides = 1;
  cl_device_type type = options.gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
  const char *peer = options.peer ? options.peer
                     : options.gpu ? NVIDIA_PLATFORM
                                   : BENCH_POCL_PLATFORM;
  setenv("OCL_ICD_VENDORS", WEFT_ICD_POCL_DIR, 0);
  const sizes *s = options.quick ? &quick_sizes
                   : options.gpu ? &gpu_sizes
                                 : &cpu_sizes;
  /* The peer first: PoCL must be the first platform opened (common.h). */
  bench_cl rts[2] = {{0}};
  if (sides == 2) bench_cl_open(&rts[1], peer, type);
  bench_cl_open(&rts[0], WEFT_PLATFORM, type);
  cl_program programs[2];
  for (int r = 0; r < sides; r++)
    programs[r] = bench_cl_program(&rts[r], source, r ? "" : options.weft_options);
  if (sides == 2)
    bench_note("Weft beside \"%s\" on the %s", peer,
               options.gpu ? "GPU" : "CPU");
  bench_csv_open(options.csv_path,
                 sides == 2 ? "kernel,weft_ms,peer_ms,weft_over_peer"
                            : "kernel,weft_ms",
                 1);
  int failed = run_all(rts, programs, peer, s);
  bench_csv_close();
  for (int r = 0; r < sides; r++) {
    clReleaseProgram(programs[r]);
    bench_cl_close(&rts[r]);
  }
  if (failed) bench_note("%d kernels gave wrong results", failed);
  return failed ? 1 : 0;
}
