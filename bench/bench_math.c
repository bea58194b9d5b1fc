/*
 * bench_math.c: math builtins on Weft and on PoCL, in one process.
 *
 *   FN_floatW          r = FN(x) (pow: FN(x, y)) over 16M floats taken as
 *                      floatW vectors, for FN in sin, exp, log, pow, sqrt
 *                      and W in 4, 8, 16: milliseconds per launch
 *   build_50_builtins  building a kernel that calls 50 different math
 *                      builtins (Weft links only those from its library)
 *   build_run_50_builtins  the same, plus creating the kernel and running it
 *                      once (PoCL generates its code at the first launch)
 *   build_trivial, build_run_trivial  the same for a one-line kernel
 *
 * Inputs are the same for every width and runtime; each output starts as
 * NaN and is checked against the host's double-precision result within the
 * specification's bound (4 ulp for sin, 3 for exp, log and sqrt, 16 for
 * pow). Launches alternate between the runtimes; each reports the median.
 * Builds use sources no cache has seen (a "#define VARIANT n" line), with
 * PoCL's kernel cache and Weft's disk cache off.
 *
 * CSV on stdout: benchmark,weft_ms,pocl_ms,pocl_over_weft (above 1: Weft is
 * faster).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define FUNCTIONS(X)                                                         \
  X(sin, "sin(a)", -100, 100, 4)                                             \
  X(exp, "exp(a)", -80, 80, 3)                                               \
  X(log, "log(a)", 1e-3, 1e6, 3)                                             \
  X(pow, "pow(a, y[i])", 1e-2, 10, 16)                                       \
  X(sqrt, "sqrt(a)", 0, 1e6, 3)

typedef struct function {
  const char *name, *expr;
  float lo, hi;
  double ulps;
} function;

#define AS_ROW(name, expr, lo, hi, ulps) {#name, expr, lo, hi, ulps},
static const function functions[] = {FUNCTIONS(AS_ROW)};
enum { NUM_FUNCTIONS = sizeof functions / sizeof *functions };
static const int widths[] = {4, 8, 16};
enum { NUM_WIDTHS = 3 };

typedef struct runtimes {
  weft_context *weft;
  bench_cl pocl;
} runtimes;

/* ------------------------------------------------------------ throughput */

/* One kernel per function and width: k_sin_4 ... */
static char *throughput_source(void) {
  static char source[8192];
  size_t len = 0;
  for (int f = 0; f < NUM_FUNCTIONS; f++)
    for (int w = 0; w < NUM_WIDTHS; w++)
      len += (size_t)snprintf(
          source + len, sizeof source - len,
          "__kernel void k_%s_%d(__global const float%d *x,\n"
          "    __global const float%d *y, __global float%d *r) {\n"
          "  size_t i = get_global_id(0);\n"
          "  float%d a = x[i];\n"
          "  r[i] = %s;\n"
          "}\n",
          functions[f].name, widths[w], widths[w], widths[w], widths[w],
          widths[w], functions[f].expr);
  return source;
}

static double host_result(int f, float x, float y) {
  switch (f) {
  case 0: return sin((double)x);
  case 1: return exp((double)x);
  case 2: return log((double)x);
  case 3: return pow((double)x, (double)y);
  default: return sqrt((double)x);
  }
}

/* The bound in absolute terms: ulps of the float result. */
static double tolerance_of(double want, double ulps) {
  int e;
  frexp(want, &e);
  if (e < -125) e = -125;
  return ulps * ldexp(1.0, e - 24) + 1e-45;
}

typedef struct data {
  size_t n;
  float *x, *y, *out;
  double *want[NUM_FUNCTIONS], *tolerance[NUM_FUNCTIONS];
  weft_buffer *wx, *wy, *wr;
  cl_mem px, py, pr;
} data;

static void make_data(runtimes *rt, data *d, size_t n, int f) {
  d->n = n;
  d->x = malloc(n * sizeof(float));
  d->y = malloc(n * sizeof(float));
  d->out = malloc(n * sizeof(float));
  if (!d->x || !d->y || !d->out) bench_die("out of memory");
  bench_random_floats(d->x, n, 11 + (unsigned)f, functions[f].lo,
                      functions[f].hi);
  bench_random_floats(d->y, n, 97, -5, 5);
  size_t size = n * sizeof(float);
  WEFT_CHECK(weft_buffer_create(rt->weft, size, WEFT_MEM_COPY_HOST_PTR, d->x,
                                &d->wx), rt->weft);
  WEFT_CHECK(weft_buffer_create(rt->weft, size, WEFT_MEM_COPY_HOST_PTR, d->y,
                                &d->wy), rt->weft);
  WEFT_CHECK(weft_buffer_create(rt->weft, size, 0, NULL, &d->wr), rt->weft);
  d->px = bench_cl_buffer(&rt->pocl, size, CL_MEM_READ_ONLY, d->x);
  d->py = bench_cl_buffer(&rt->pocl, size, CL_MEM_READ_ONLY, d->y);
  d->pr = bench_cl_buffer(&rt->pocl, size, CL_MEM_READ_WRITE, NULL);
  double *want = malloc(n * sizeof(double)), *tol = malloc(n * sizeof(double));
  if (!want || !tol) bench_die("out of memory");
  for (size_t i = 0; i < n; i++) {
    want[i] = host_result(f, d->x[i], d->y[i]);
    tol[i] = tolerance_of(want[i], functions[f].ulps);
  }
  d->want[f] = want;
  d->tolerance[f] = tol;
}

static void free_data(data *d, int f) {
  weft_buffer_release(d->wx);
  weft_buffer_release(d->wy);
  weft_buffer_release(d->wr);
  clReleaseMemObject(d->px);
  clReleaseMemObject(d->py);
  clReleaseMemObject(d->pr);
  free(d->x);
  free(d->y);
  free(d->out);
  free(d->want[f]);
  free(d->tolerance[f]);
}

/* Fills both outputs with NaN, so that skipped elements fail the check. */
static void poison_outputs(runtimes *rt, data *d) {
  for (size_t i = 0; i < d->n; i++) d->out[i] = NAN;
  size_t size = d->n * sizeof(float);
  WEFT_CHECK(weft_buffer_write(d->wr, 0, size, d->out), d->wr);
  CL_CHECK(clEnqueueWriteBuffer(rt->pocl.queue, d->pr, CL_TRUE, 0, size,
                                d->out, 0, NULL, NULL));
}

static double run_weft(weft_kernel *k, size_t global) {
  double start = bench_now_ms();
  WEFT_CHECK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  return bench_now_ms() - start;
}

static double run_pocl(runtimes *rt, cl_kernel k, size_t global) {
  double start = bench_now_ms();
  CL_CHECK(clEnqueueNDRangeKernel(rt->pocl.queue, k, 1, NULL, &global, NULL,
                                  0, NULL, NULL));
  CL_CHECK(clFinish(rt->pocl.queue));
  return bench_now_ms() - start;
}

/* Checks both runtimes' outputs; returns the number of wrong elements. */
static size_t check(runtimes *rt, data *d, int f, const char *name) {
  size_t size = d->n * sizeof(float), bad = 0;
  char what[64];
  WEFT_CHECK(weft_buffer_read(d->wr, 0, size, d->out), d->wr);
  snprintf(what, sizeof what, "%s on Weft", name);
  bad += bench_mismatches(what, d->out, d->want[f], d->tolerance[f], 0, d->n);
  CL_CHECK(clEnqueueReadBuffer(rt->pocl.queue, d->pr, CL_TRUE, 0, size,
                               d->out, 0, NULL, NULL));
  snprintf(what, sizeof what, "%s on PoCL", name);
  bad += bench_mismatches(what, d->out, d->want[f], d->tolerance[f], 0, d->n);
  return bad;
}

/* One function at one width: both runtimes, alternating; medians. */
static int bench_one(runtimes *rt, weft_program *wp, cl_program pp, data *d,
                     int f, int w, int reps) {
  char name[32], row[32];
  snprintf(name, sizeof name, "k_%s_%d", functions[f].name, widths[w]);
  snprintf(row, sizeof row, "%s_float%d", functions[f].name, widths[w]);
  weft_kernel *wk;
  WEFT_CHECK(weft_kernel_create(wp, name, &wk), wp);
  cl_int rc;
  cl_kernel pk = clCreateKernel(pp, name, &rc);
  bench_cl_check(rc, "clCreateKernel");
  weft_buffer *wargs[3] = {d->wx, d->wy, d->wr};
  cl_mem pargs[3] = {d->px, d->py, d->pr};
  for (int a = 0; a < 3; a++) {
    WEFT_CHECK(weft_kernel_set_arg_buffer(wk, a, wargs[a]), wk);
    CL_CHECK(clSetKernelArg(pk, (cl_uint)a, sizeof(cl_mem), &pargs[a]));
  }
  size_t global = d->n / (size_t)widths[w];
  poison_outputs(rt, d);
  run_weft(wk, global); /* untimed: PoCL compiles at its first launch */
  run_pocl(rt, pk, global);
  double *wt = malloc((size_t)reps * sizeof *wt), *pt = malloc((size_t)reps * sizeof *pt);
  for (int i = 0; i < reps; i++) {
    if (i % 2) {
      pt[i] = run_pocl(rt, pk, global);
      wt[i] = run_weft(wk, global);
    } else {
      wt[i] = run_weft(wk, global);
      pt[i] = run_pocl(rt, pk, global);
    }
  }
  size_t bad = check(rt, d, f, row);
  if (!bad) bench_csv_ratio(row, bench_median(wt, reps), bench_median(pt, reps));
  else bench_note("%s: wrong results, no figures reported", row);
  free(wt);
  free(pt);
  weft_kernel_release(wk);
  clReleaseKernel(pk);
  return bad != 0;
}

static int bench_throughput(runtimes *rt, size_t n, int reps) {
  const char *source = throughput_source();
  weft_program *wp;
  WEFT_CHECK(weft_program_create(rt->weft, source, 0, &wp), rt->weft);
  WEFT_CHECK(weft_program_build(wp, NULL), wp);
  cl_program pp = bench_cl_program(&rt->pocl, source, "");
  int failed = 0;
  for (int f = 0; f < NUM_FUNCTIONS; f++) {
    data d;
    make_data(rt, &d, n, f);
    for (int w = 0; w < NUM_WIDTHS; w++)
      failed |= bench_one(rt, wp, pp, &d, f, w, reps);
    free_data(&d, f);
  }
  weft_program_release(wp);
  clReleaseProgram(pp);
  return failed;
}

/* ----------------------------------------------------------------- builds */

/* 50 different math builtins on float4, summed. */
static const char *const fifty[] = {
    "acos(t)", "acosh(1 + a)", "acospi(t)", "asin(t)", "asinh(a)",
    "asinpi(t)", "atan(a)", "atan2(a, b)", "atanh(t)", "atanpi(a)",
    "atan2pi(a, b)", "cbrt(a)", "ceil(a)", "copysign(a, b)", "cos(a)",
    "cosh(t)", "cospi(a)", "erfc(a)", "erf(a)", "exp(t)",
    "exp2(t)", "exp10(t)", "expm1(t)", "fabs(a)", "fdim(a, b)",
    "floor(a)", "fma(a, b, t)", "fmax(a, b)", "fmin(a, b)", "fmod(a, b)",
    "hypot(a, b)", "lgamma(a)", "log(1 + a)", "log2(1 + a)", "log10(1 + a)",
    "log1p(a)", "logb(a)", "mad(a, b, t)", "maxmag(a, b)", "minmag(a, b)",
    "pow(1 + a, t)", "powr(1 + a, t)", "remainder(a, b)", "rint(a)",
    "round(a)", "rsqrt(1 + a)", "sin(a)", "sinh(t)", "tan(t)", "tgamma(t)"};
enum { NUM_FIFTY = sizeof fifty / sizeof *fifty };

static char *build_source(int builtins, int variant) {
  static char source[8192];
  size_t len = (size_t)snprintf(
      source, sizeof source,
      "#define VARIANT %d\n"
      "__kernel void k(__global const float4 *x, __global float4 *r) {\n"
      "  size_t i = get_global_id(0);\n"
      "  float4 a = x[i] + VARIANT, b = a * 0.5f + 1, t = a * 0.01f;\n"
      "  float4 s = 0;\n",
      variant);
  for (int j = 0; j < (builtins ? NUM_FIFTY : 0); j++)
    len += (size_t)snprintf(source + len, sizeof source - len,
                            "  s += %s;\n", fifty[j]);
  snprintf(source + len, sizeof source - len,
           "  r[i] = s + a;\n"
           "}\n");
  return source;
}

typedef struct build_times {
  double build_ms, build_run_ms;
} build_times;

/* Builds, creates the kernel and runs it on one float4. */
static build_times weft_build(runtimes *rt, const char *source,
                              weft_buffer *x, weft_buffer *r) {
  double start = bench_now_ms();
  weft_program *p;
  WEFT_CHECK(weft_program_create(rt->weft, source, 0, &p), rt->weft);
  WEFT_CHECK(weft_program_build(p, NULL), p);
  build_times t = {bench_now_ms() - start, 0};
  weft_kernel *k;
  WEFT_CHECK(weft_kernel_create(p, "k", &k), p);
  WEFT_CHECK(weft_kernel_set_arg_buffer(k, 0, x), k);
  WEFT_CHECK(weft_kernel_set_arg_buffer(k, 1, r), k);
  size_t one = 1;
  WEFT_CHECK(weft_kernel_launch(k, 1, NULL, &one, NULL), k);
  t.build_run_ms = bench_now_ms() - start;
  weft_kernel_release(k);
  weft_program_release(p);
  return t;
}

static build_times pocl_build(runtimes *rt, const char *source, cl_mem x,
                              cl_mem r) {
  double start = bench_now_ms();
  cl_program p = bench_cl_program(&rt->pocl, source, "");
  build_times t = {bench_now_ms() - start, 0};
  cl_int rc;
  cl_kernel k = clCreateKernel(p, "k", &rc);
  bench_cl_check(rc, "clCreateKernel");
  CL_CHECK(clSetKernelArg(k, 0, sizeof x, &x));
  CL_CHECK(clSetKernelArg(k, 1, sizeof r, &r));
  size_t one = 1;
  CL_CHECK(clEnqueueNDRangeKernel(rt->pocl.queue, k, 1, NULL, &one, NULL, 0,
                                  NULL, NULL));
  CL_CHECK(clFinish(rt->pocl.queue));
  t.build_run_ms = bench_now_ms() - start;
  clReleaseKernel(k);
  clReleaseProgram(p);
  return t;
}

/* Medians of builds of distinct variants, the runtimes taking turns. */
static void bench_builds(runtimes *rt, int builtins, int reps) {
  static const float x[4] = {0.25f, 0.5f, 0.75f, 1.0f};
  weft_buffer *wx, *wr;
  WEFT_CHECK(weft_buffer_create(rt->weft, sizeof x, WEFT_MEM_COPY_HOST_PTR,
                                (void *)x, &wx), rt->weft);
  WEFT_CHECK(weft_buffer_create(rt->weft, sizeof x, 0, NULL, &wr), rt->weft);
  cl_mem px = bench_cl_buffer(&rt->pocl, sizeof x, CL_MEM_READ_ONLY, x);
  cl_mem pr = bench_cl_buffer(&rt->pocl, sizeof x, CL_MEM_READ_WRITE, NULL);
  double wb[16], wbr[16], pb[16], pbr[16];
  /* variant 0 untimed: each runtime's first build loads what it needs */
  weft_build(rt, build_source(builtins, 0), wx, wr);
  pocl_build(rt, build_source(builtins, 0), px, pr);
  for (int i = 0; i < reps; i++) {
    int v = 1 + i + (builtins ? 1000 : 0);
    build_times w = weft_build(rt, build_source(builtins, v), wx, wr);
    build_times p = pocl_build(rt, build_source(builtins, v), px, pr);
    wb[i] = w.build_ms;
    wbr[i] = w.build_run_ms;
    pb[i] = p.build_ms;
    pbr[i] = p.build_run_ms;
  }
  const char *what = builtins ? "50_builtins" : "trivial";
  char row[48];
  snprintf(row, sizeof row, "build_%s", what);
  bench_csv_ratio(row, bench_median(wb, reps), bench_median(pb, reps));
  snprintf(row, sizeof row, "build_run_%s", what);
  bench_csv_ratio(row, bench_median(wbr, reps), bench_median(pbr, reps));
  weft_buffer_release(wx);
  weft_buffer_release(wr);
  clReleaseMemObject(px);
  clReleaseMemObject(pr);
}

int main(int argc, char **argv) {
  /* Before the first OpenCL or Weft call, which read them. */
  setenv("POCL_KERNEL_CACHE", "0", 1);
  setenv("WEFT_CACHE_DIR", "off", 1);
  bench_options options;
  bench_parse_options(argc, argv, &options);
  size_t n = options.quick ? (size_t)1 << 20 : (size_t)1 << 24;
  int reps = options.quick ? 3 : 7, build_reps = options.quick ? 2 : 7;
  runtimes rt;
  rt.weft = bench_weft_context();
  bench_pocl_open(&rt.pocl);
  bench_csv_open(options.csv_path, "benchmark,weft_ms,pocl_ms,pocl_over_weft",
                 1);
  bench_note("throughput: %zu floats per launch", n);
  int failed = bench_throughput(&rt, n, reps);
  bench_note("builds: %d variants each", build_reps);
  bench_builds(&rt, 1, build_reps);
  bench_builds(&rt, 0, build_reps);
  bench_csv_close();
  bench_cl_close(&rt.pocl);
  weft_context_release(rt.weft);
  if (failed) bench_die("wrong results");
  return 0;
}
