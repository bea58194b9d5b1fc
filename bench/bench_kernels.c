/*
 * bench_kernels.c: four kernels on Weft and on PoCL, in one process.
 *
 *   vecadd          c = a + b over 16M floats (memory bound)
 *   matmul          512x512 floats, 16x16 tiles in __local memory, two
 *                   barriers per tile step (Weft switches work-items there)
 *   reduce          16M floats summed in groups of 256 through __local
 *                   memory, one partial sum per group (a barrier per level)
 *   empty_launch    launch and wait of an empty kernel (launch latency)
 *
 * Both runtimes build the same OpenCL C source. Weft launches are
 * synchronous; PoCL's are clEnqueueNDRangeKernel + clFinish. Buffers are
 * made once. Each kernel runs once untimed (PoCL generates a kernel's code
 * at its first launch, Weft maps its per-work-item memory), then
 * the runtimes take turns, and each reports the median. The outputs start
 * as NaN and are checked against the host afterwards: a kernel that skips
 * work fails the benchmark.
 *
 * CSV on stdout: benchmark,weft_ms,pocl_ms,pocl_over_weft (above 1: Weft is
 * faster).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char *source = BENCH_KERNELS_SOURCE BENCH_MORE_KERNELS_SOURCE
    "__kernel void empty(void) {}\n";

enum { TILE = 16, REDUCE_GROUP = 256 };

typedef struct sizes {
  size_t vecadd_n;   /* floats per vector (saxpy's too) */
  size_t matmul_n;   /* rows (and columns) */
  size_t reduce_n;   /* floats summed */
  size_t mandel_n;   /* pixels a side */
  unsigned mandel_iterations; /* the most iterations a pixel */
  int reps;          /* timed runs of each kernel, per runtime */
  int launches;      /* empty launches timed, per runtime */
} sizes;

/* --quick divides the work by 16 (matmul: 1/16 of the elements). */
static const sizes full_sizes = {1u << 24, 512, 1u << 24, 1024, 256, 11, 1000};
static const sizes quick_sizes = {1u << 20, 128, 1u << 20, 256, 64, 3, 100};

typedef struct runtimes {
  weft_context *weft;
  bench_cl pocl;
} runtimes;

/* One kernel of the source, in both runtimes. */
typedef struct kernel_pair {
  weft_kernel *weft;
  cl_kernel pocl;
} kernel_pair;

/* One buffer, in both runtimes. */
typedef struct buffer_pair {
  weft_buffer *weft;
  cl_mem pocl;
  size_t size;
} buffer_pair;

/* An NDRange; local NULL lets each runtime choose. */
typedef struct ndrange {
  unsigned dims;
  size_t global[3];
  const size_t *local;
} ndrange;

/* ------------------------------------------------------ the two runtimes */

static kernel_pair make_kernels(runtimes *rt, const char *name) {
  kernel_pair k;
  k.weft = bench_weft_kernel(rt->weft, source, "", name);
  k.pocl = bench_cl_kernel(&rt->pocl, source, "", name);
  return k;
}

static void release_kernels(kernel_pair *k) {
  weft_kernel_release(k->weft);
  clReleaseKernel(k->pocl);
}

/* A buffer holding a copy of init in each runtime. */
static buffer_pair make_buffer(runtimes *rt, size_t size, const void *init) {
  buffer_pair b = {NULL, NULL, size};
  WEFT_CHECK(weft_buffer_create(rt->weft, size, WEFT_MEM_COPY_HOST_PTR,
                                (void *)init, &b.weft),
             rt->weft);
  b.pocl = bench_cl_buffer(&rt->pocl, size, CL_MEM_READ_WRITE, init);
  return b;
}

static void release_buffer(buffer_pair *b) {
  weft_buffer_release(b->weft);
  clReleaseMemObject(b->pocl);
}

static void read_buffer(runtimes *rt, buffer_pair *b, void *weft_out,
                        void *pocl_out) {
  WEFT_CHECK(weft_buffer_read(b->weft, 0, b->size, weft_out), b->weft);
  CL_CHECK(clEnqueueReadBuffer(rt->pocl.queue, b->pocl, CL_TRUE, 0, b->size,
                               pocl_out, 0, NULL, NULL));
}

static void set_buffer_arg(kernel_pair *k, int index, buffer_pair *b) {
  WEFT_CHECK(weft_kernel_set_arg_buffer(k->weft, index, b->weft), k->weft);
  CL_CHECK(clSetKernelArg(k->pocl, (cl_uint)index, sizeof b->pocl, &b->pocl));
}

static void set_value_arg(kernel_pair *k, int index, const void *value,
                          size_t size) {
  WEFT_CHECK(weft_kernel_set_arg_value(k->weft, index, value, size), k->weft);
  CL_CHECK(clSetKernelArg(k->pocl, (cl_uint)index, size, value));
}

static void set_local_arg(kernel_pair *k, int index, size_t size) {
  WEFT_CHECK(weft_kernel_set_arg_local(k->weft, index, size), k->weft);
  CL_CHECK(clSetKernelArg(k->pocl, (cl_uint)index, size, NULL));
}

/* One launch on Weft, waited for; returns its milliseconds. */
static double run_weft(kernel_pair *k, const ndrange *r) {
  double start = bench_now_ms();
  WEFT_CHECK(weft_kernel_launch(k->weft, r->dims, NULL, r->global, r->local),
             k->weft);
  return bench_now_ms() - start;
}

/* One launch on PoCL, waited for; returns its milliseconds. */
static double run_pocl(runtimes *rt, kernel_pair *k, const ndrange *r) {
  double start = bench_now_ms();
  CL_CHECK(clEnqueueNDRangeKernel(rt->pocl.queue, k->pocl, r->dims, NULL,
                                  r->global, r->local, 0, NULL, NULL));
  CL_CHECK(clFinish(rt->pocl.queue));
  return bench_now_ms() - start;
}

/* Runs the kernel once untimed on each runtime, then reps times each,
 * alternating which goes first so that a change in the machine's load
 * falls on both. Gives the medians. */
static void measure(runtimes *rt, kernel_pair *k, const ndrange *r, int reps,
                    double *weft_ms, double *pocl_ms) {
  double *w = malloc((size_t)reps * sizeof *w);
  double *p = malloc((size_t)reps * sizeof *p);
  if (!w || !p) bench_die("out of memory");
  run_weft(k, r);
  run_pocl(rt, k, r);
  for (int i = 0; i < reps; i++) {
    if (i % 2) {
      p[i] = run_pocl(rt, k, r);
      w[i] = run_weft(k, r);
    } else {
      w[i] = run_weft(k, r);
      p[i] = run_pocl(rt, k, r);
    }
  }
  *weft_ms = bench_median(w, reps);
  *pocl_ms = bench_median(p, reps);
  free(w);
  free(p);
}

/* Checks both runtimes' output (n floats of b) against want. */
static size_t check_output(runtimes *rt, buffer_pair *b, const char *name,
                           const double *want, const double *tolerance,
                           double tol, size_t n) {
  float *weft_out = malloc(b->size), *pocl_out = malloc(b->size);
  if (!weft_out || !pocl_out) bench_die("out of memory");
  read_buffer(rt, b, weft_out, pocl_out);
  char what[64];
  snprintf(what, sizeof what, "%s on Weft", name);
  size_t bad = bench_mismatches(what, weft_out, want, tolerance, tol, n);
  snprintf(what, sizeof what, "%s on PoCL", name);
  bad += bench_mismatches(what, pocl_out, want, tolerance, tol, n);
  free(weft_out);
  free(pocl_out);
  return bad;
}

static float *alloc_floats(size_t n) {
  return bench_alloc(n * sizeof(float));
}

static double *alloc_doubles(size_t n) {
  return bench_alloc(n * sizeof(double));
}

/* An output buffer that starts as NaN, so that elements a kernel fails to
 * write fail the check. */
static buffer_pair make_output(runtimes *rt, size_t n) {
  float *nan_fill = alloc_floats(n);
  for (size_t i = 0; i < n; i++) nan_fill[i] = NAN;
  buffer_pair b = make_buffer(rt, n * sizeof(float), nan_fill);
  free(nan_fill);
  return b;
}

/* Prints the row if both outputs were right; returns 1 if not. */
static int report(const char *name, size_t bad, double weft_ms,
                  double pocl_ms) {
  if (bad) {
    bench_note("%s: wrong results, no figures reported", name);
    return 1;
  }
  bench_csv_ratio(name, weft_ms, pocl_ms);
  return 0;
}

/* ------------------------------------------------------------ benchmarks */

/* Two vectors of n random floats in [-1, 1) on the host and in both
 * runtimes, and an output vector: vecadd's and saxpy's data. */
typedef struct vectors {
  size_t n;
  float *a, *b;
  buffer_pair ab, bb, out;
} vectors;

static vectors make_vectors(runtimes *rt, size_t n, unsigned seed) {
  vectors v = {n, alloc_floats(n), alloc_floats(n), {0}, {0}, {0}};
  bench_random_floats(v.a, n, seed, -1.0f, 1.0f);
  bench_random_floats(v.b, n, seed + 1, -1.0f, 1.0f);
  v.ab = make_buffer(rt, n * sizeof *v.a, v.a);
  v.bb = make_buffer(rt, n * sizeof *v.b, v.b);
  v.out = make_output(rt, n);
  return v;
}

/* The kernel's arguments first to first + 2: a, b and the output. */
static void set_vector_args(kernel_pair *k, int first, vectors *v) {
  set_buffer_arg(k, first, &v->ab);
  set_buffer_arg(k, first + 1, &v->bb);
  set_buffer_arg(k, first + 2, &v->out);
}

static void release_vectors(vectors *v) {
  free(v->a);
  free(v->b);
  release_buffer(&v->ab);
  release_buffer(&v->bb);
  release_buffer(&v->out);
}

static int bench_vecadd(runtimes *rt, const sizes *s) {
  vectors v = make_vectors(rt, s->vecadd_n, 1);
  kernel_pair k = make_kernels(rt, "vecadd");
  set_vector_args(&k, 0, &v);
  ndrange r = {1, {v.n, 1, 1}, NULL};
  double weft_ms, pocl_ms;
  measure(rt, &k, &r, s->reps, &weft_ms, &pocl_ms);
  /* A float sum is correctly rounded: the result must be exact. */
  double *want = alloc_doubles(v.n);
  for (size_t i = 0; i < v.n; i++) want[i] = (double)(v.a[i] + v.b[i]);
  size_t bad = check_output(rt, &v.out, "vecadd", want, NULL, 0.0, v.n);
  free(want);
  release_kernels(&k);
  release_vectors(&v);
  return report("vecadd", bad, weft_ms, pocl_ms);
}

/* z = a * x + y: exact in double, but a runtime may round the product or
 * fuse it with the add, so a float's rounding of each is allowed. */
static int bench_saxpy(runtimes *rt, const sizes *s) {
  float a = 1.5f;
  vectors v = make_vectors(rt, s->vecadd_n, 6); /* x and y */
  kernel_pair k = make_kernels(rt, "saxpy");
  set_value_arg(&k, 0, &a, sizeof a);
  set_vector_args(&k, 1, &v);
  ndrange r = {1, {v.n, 1, 1}, NULL};
  double weft_ms, pocl_ms;
  measure(rt, &k, &r, s->reps, &weft_ms, &pocl_ms);
  double *want = alloc_doubles(v.n), *tolerance = alloc_doubles(v.n);
  for (size_t i = 0; i < v.n; i++) {
    double product = (double)a * v.a[i];
    want[i] = product + v.b[i];
    tolerance[i] = FLT_EPSILON * (fabs(product) + fabs(want[i]));
  }
  size_t bad = check_output(rt, &v.out, "saxpy", want, tolerance, 0.0, v.n);
  free(want);
  free(tolerance);
  release_kernels(&k);
  release_vectors(&v);
  return report("saxpy", bad, weft_ms, pocl_ms);
}

/* Near the set's edge a pixel's count depends on the last bit of every
 * step (a runtime may fuse a multiply and an add): the counts must match
 * the host's float computation at all but 1 pixel in 200 of each output. */
static size_t mandelbrot_check(runtimes *rt, buffer_pair *b, size_t side,
                               unsigned iterations) {
  size_t n = side * side, bad = 0;
  float *weft_out = alloc_floats(n), *pocl_out = alloc_floats(n);
  read_buffer(rt, b, weft_out, pocl_out);
  size_t differ[2] = {0, 0};
  for (size_t p = 0; p < n; p++) {
    size_t x = p % side, y = p / side;
    float i = bench_mandelbrot_pixel(x, y, side, iterations);
    differ[0] += !(weft_out[p] == i);
    differ[1] += !(pocl_out[p] == i);
  }
  for (int r = 0; r < 2; r++)
    if (differ[r] > n / 200) {
      bench_note("mandelbrot on %s: %zu of %zu pixels differ from the host",
                 r ? "PoCL" : "Weft", differ[r], n);
      bad += differ[r];
    }
  free(weft_out);
  free(pocl_out);
  return bad;
}

static int bench_mandelbrot(runtimes *rt, const sizes *s) {
  size_t side = s->mandel_n;
  cl_uint iterations = s->mandel_iterations;
  buffer_pair out = make_output(rt, side * side);
  kernel_pair k = make_kernels(rt, "mandelbrot");
  set_buffer_arg(&k, 0, &out);
  set_value_arg(&k, 1, &iterations, sizeof iterations);
  ndrange r = {2, {side, side, 1}, NULL};
  double weft_ms, pocl_ms;
  measure(rt, &k, &r, s->reps, &weft_ms, &pocl_ms);
  size_t bad = mandelbrot_check(rt, &out, side, iterations);
  release_kernels(&k);
  release_buffer(&out);
  return report("mandelbrot", bad, weft_ms, pocl_ms);
}

static int bench_matmul(runtimes *rt, const sizes *s) {
  size_t n = s->matmul_n, count = n * n;
  float *a = alloc_floats(count), *b = alloc_floats(count);
  bench_random_floats(a, count, 3, -1.0f, 1.0f);
  bench_random_floats(b, count, 4, -1.0f, 1.0f);
  buffer_pair ab = make_buffer(rt, count * sizeof *a, a);
  buffer_pair bb = make_buffer(rt, count * sizeof *b, b);
  buffer_pair cb = make_output(rt, count);
  kernel_pair k = make_kernels(rt, "matmul");
  cl_uint n_arg = (cl_uint)n;
  set_buffer_arg(&k, 0, &ab);
  set_buffer_arg(&k, 1, &bb);
  set_buffer_arg(&k, 2, &cb);
  set_value_arg(&k, 3, &n_arg, sizeof n_arg);
  static const size_t local[3] = {TILE, TILE, 1};
  ndrange r = {2, {n, n, 1}, local};
  double weft_ms, pocl_ms;
  measure(rt, &k, &r, s->reps, &weft_ms, &pocl_ms);
  double *want = alloc_doubles(count), *tolerance = alloc_doubles(count);
  bench_matmul_reference(a, b, n, 0, 1.0, want, tolerance);
  size_t bad = check_output(rt, &cb, "matmul", want, tolerance, 0.0, count);
  free(want);
  free(tolerance);
  free(a);
  free(b);
  release_kernels(&k);
  release_buffer(&ab);
  release_buffer(&bb);
  release_buffer(&cb);
  return report("matmul", bad, weft_ms, pocl_ms);
}

/* The sum of each group of REDUCE_GROUP floats, in double, and a tolerance
 * for a float sum of non-negative terms in any order. */
static void reduce_reference(const float *in, size_t groups, double *want,
                             double *tolerance) {
  for (size_t g = 0; g < groups; g++) {
    double sum = 0.0;
    for (size_t i = 0; i < REDUCE_GROUP; i++) sum += in[g * REDUCE_GROUP + i];
    want[g] = sum;
    tolerance[g] = REDUCE_GROUP * FLT_EPSILON * sum;
  }
}

static int bench_reduce(runtimes *rt, const sizes *s) {
  size_t n = s->reduce_n, groups = n / REDUCE_GROUP;
  float *in = alloc_floats(n);
  bench_random_floats(in, n, 5, 0.0f, 1.0f);
  buffer_pair inb = make_buffer(rt, n * sizeof *in, in);
  buffer_pair partial = make_output(rt, groups);
  kernel_pair k = make_kernels(rt, "reduce");
  set_buffer_arg(&k, 0, &inb);
  set_buffer_arg(&k, 1, &partial);
  set_local_arg(&k, 2, REDUCE_GROUP * sizeof(float));
  static const size_t local[3] = {REDUCE_GROUP, 1, 1};
  ndrange r = {1, {n, 1, 1}, local};
  double weft_ms, pocl_ms;
  measure(rt, &k, &r, s->reps, &weft_ms, &pocl_ms);
  double *want = alloc_doubles(groups), *tolerance = alloc_doubles(groups);
  reduce_reference(in, groups, want, tolerance);
  size_t bad =
      check_output(rt, &partial, "reduce", want, tolerance, 0.0, groups);
  free(want);
  free(tolerance);
  free(in);
  release_kernels(&k);
  release_buffer(&inb);
  release_buffer(&partial);
  return report("reduce", bad, weft_ms, pocl_ms);
}

/* Launches of one work-item, each timed on its own, in blocks that
 * alternate between the runtimes. A launch is short enough for the
 * machine's load to change between blocks, not within one. */
enum { LATENCY_BLOCK = 100, LATENCY_WARMUP = 50 };

static int bench_empty_launch(runtimes *rt, const sizes *s) {
  kernel_pair k = make_kernels(rt, "empty");
  static const size_t local[3] = {1, 1, 1};
  ndrange r = {1, {1, 1, 1}, local};
  int n = s->launches;
  double *w = malloc((size_t)n * sizeof *w), *p = malloc((size_t)n * sizeof *p);
  if (!w || !p) bench_die("out of memory");
  for (int i = 0; i < LATENCY_WARMUP; i++) {
    run_weft(&k, &r);
    run_pocl(rt, &k, &r);
  }
  for (int done = 0; done < n; done += LATENCY_BLOCK) {
    int end = done + LATENCY_BLOCK < n ? done + LATENCY_BLOCK : n;
    for (int i = done; i < end; i++) w[i] = run_weft(&k, &r);
    for (int i = done; i < end; i++) p[i] = run_pocl(rt, &k, &r);
  }
  double weft_ms = bench_median(w, n), pocl_ms = bench_median(p, n);
  free(w);
  free(p);
  release_kernels(&k);
  /* Nothing to check but the launches' status, checked by run_*. */
  return report("empty_launch", 0, weft_ms, pocl_ms);
}

int main(int argc, char **argv) {
  bench_options options;
  bench_parse_options(argc, argv, &options);
  const sizes *s = options.quick ? &quick_sizes : &full_sizes;
  runtimes rt;
  rt.weft = bench_weft_context();
  bench_pocl_open(&rt.pocl);
  bench_csv_open(options.csv_path, "benchmark,weft_ms,pocl_ms,pocl_over_weft",
                 1);
  int failed = 0;
  bench_note("vecadd: %zu floats", s->vecadd_n);
  failed += bench_vecadd(&rt, s);
  bench_note("saxpy: %zu floats", s->vecadd_n);
  failed += bench_saxpy(&rt, s);
  bench_note("mandelbrot: %zux%zu pixels, up to %u iterations", s->mandel_n,
             s->mandel_n, s->mandel_iterations);
  failed += bench_mandelbrot(&rt, s);
  bench_note("matmul: %zux%zu floats", s->matmul_n, s->matmul_n);
  failed += bench_matmul(&rt, s);
  bench_note("reduce: %zu floats", s->reduce_n);
  failed += bench_reduce(&rt, s);
  bench_note("empty_launch: %d launches", s->launches);
  failed += bench_empty_launch(&rt, s);
  bench_csv_close();
  bench_cl_close(&rt.pocl);
  weft_context_release(rt.weft);
  return failed ? 1 : 0;
}
