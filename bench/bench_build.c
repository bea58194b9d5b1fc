/*
 * bench_build.c: how long a 60-line kernel takes to build, cold, in ms.
 *
 *   device_create      Weft: weft_device_get + weft_context_create (starts
 *                      the thread pool and the JIT). PoCL: platform and
 *                      device look-up, context and queue (the ICD loader
 *                      loads PoCL and its LLVM then; Weft's LLVM is loaded
 *                      with the program, before main, and is not counted).
 *   first_build        the process's first build, after device creation
 *   first_build_run    the same build, plus creating its two kernels and
 *                      running each once on a small NDRange
 *   build_median       the median of builds of distinct variants, after
 *                      the first
 *   build_run_median   the same builds, plus the kernels' first runs
 *
 * What happens once per process (device creation, the first build) is
 * measured in fresh processes: this program runs itself again with
 * --first, several times, and reports the medians. Those children open
 * Weft first or PoCL first in turn.
 *
 * The _run rows matter because the runtimes split the work differently:
 * Weft generates machine code in weft_program_build, PoCL in the first
 * clEnqueueNDRangeKernel of each kernel. Every variant starts with its own
 * "#define VARIANT n" line, so no cache can serve it, and PoCL's kernel
 * cache is off (POCL_KERNEL_CACHE=0). Every run's output is checked
 * against the host.
 *
 * CSV on stdout: what,weft_ms,pocl_ms,pocl_over_weft.
 */
#include <errno.h> /* program_invocation_name */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* Sixty lines of image/signal-processing style OpenCL C: helpers, loops,
 * __local memory with a barrier, float4 geometry and math builtins. */
static const char *body =
    "/* A 1D filter: Gaussian smoothing over a halo held in __local memory,\n"
    " * edges kept, a tone curve; and a shading kernel on float4 points. */\n"
    "#define GROUP 64\n"
    "#define RADIUS 4\n"
    "#define SPAN (GROUP + 2 * RADIUS)\n"
    "\n"
    "float gauss_weight(int d, float sigma) {\n"
    "  return exp(-(float)(d * d) / (2.0f * sigma * sigma));\n"
    "}\n"
    "\n"
    "int mirror(int i, int n) {\n"
    "  if (i < 0) i = -i;\n"
    "  if (i >= n) i = 2 * n - 2 - i;\n"
    "  return i;\n"
    "}\n"
    "\n"
    "float smooth_at(__local const float *tile, int centre, float sigma) {\n"
    "  float sum = 0.0f, norm = 0.0f;\n"
    "  for (int d = -RADIUS; d <= RADIUS; d++) {\n"
    "    float w = gauss_weight(d, sigma);\n"
    "    sum = fma(w, tile[centre + d], sum);\n"
    "    norm += w;\n"
    "  }\n"
    "  return sum / norm;\n"
    "}\n"
    "\n"
    "float tone(float x, float gamma) {\n"
    "  float y = pow(fabs(x), gamma);\n"
    "  return copysign(clamp(y, 0.0f, 4.0f), x);\n"
    "}\n"
    "\n"
    "__kernel void filter(__global const float *in, __global float *out,\n"
    "                     int n, float sigma, float gamma) {\n"
    "  __local float tile[SPAN];\n"
    "  int lid = get_local_id(0), gid = get_global_id(0);\n"
    "  int base = (int)get_group_id(0) * GROUP - RADIUS;\n"
    "  for (int i = lid; i < SPAN; i += GROUP)\n"
    "    tile[i] = in[mirror(base + i, n)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int c = lid + RADIUS;\n"
    "  float s = smooth_at(tile, c, sigma);\n"
    "  float edge = 0.5f * fabs(tile[c + 1] - tile[c - 1]);\n"
    "  float v = mix(s, tile[c], smoothstep(0.0f, 1.0f, edge));\n"
    "  out[gid] = tone(v, gamma) + 0.125f * sin(v) * cos(v);\n"
    "}\n"
    "\n"
    "float4 rotate_z(float4 p, float angle) {\n"
    "  float c = cos(angle), s = sin(angle);\n"
    "  return (float4)(c * p.x - s * p.y, s * p.x + c * p.y, p.z, 0.0f);\n"
    "}\n"
    "\n"
    "__kernel void shade(__global const float4 *points,\n"
    "                    __global float *light, float4 sun, float angle) {\n"
    "  int i = get_global_id(0);\n"
    "  float4 p = rotate_z(points[i], angle);\n"
    "  float4 n = normalize(p);\n"
    "  float d = distance(p, sun);\n"
    "  float lambert = max(dot(n, normalize(sun)), 0.0f);\n"
    "  light[i] = lambert * sqrt(1.0f / (1.0f + d * d)) +\n"
    "             0.1f * length(cross(n, sun));\n"
    "}\n";

enum { GROUP = 64, RADIUS = 4, N = 1024 };
/* Builds of distinct variants, and fresh processes for the first build. */
enum { MAX_VARIANTS = 10, MAX_FIRSTS = 5 };
static const float SIGMA = 1.5f, GAMMA = 0.8f, ANGLE = 0.3f;
static const float SUN[4] = {2.0f, -1.0f, 3.0f, 0.0f};

/* The source of variant v: its own first line, then the body. */
static char *variant_source(unsigned v) {
  char *text = NULL;
  if (asprintf(&text, "#define VARIANT %u\n%s", v, body) < 0)
    bench_die("out of memory");
  return text;
}

/* -------------------------------------------------------- host reference */

typedef struct inputs {
  float signal[N];       /* the filter's input */
  float points[N * 4];   /* the shader's float4 points */
  double filter_want[N];
  double shade_want[N];
} inputs;

static int mirror(int i, int n) {
  if (i < 0) i = -i;
  if (i >= n) i = 2 * n - 2 - i;
  return i;
}

static double smoothstep(double e0, double e1, double x) {
  double t = fmin(fmax((x - e0) / (e1 - e0), 0.0), 1.0);
  return t * t * (3.0 - 2.0 * t);
}

static double filter_at(const float *in, int gid) {
  double sum = 0.0, norm = 0.0;
  for (int d = -RADIUS; d <= RADIUS; d++) {
    double w = exp(-(double)(d * d) / (2.0 * SIGMA * SIGMA));
    sum += w * in[mirror(gid + d, N)];
    norm += w;
  }
  double s = sum / norm, x = in[gid];
  double edge = 0.5 * fabs(in[mirror(gid + 1, N)] - in[mirror(gid - 1, N)]);
  double v = s + (x - s) * smoothstep(0.0, 1.0, edge);
  double y = fmin(fmax(pow(fabs(v), GAMMA), 0.0), 4.0);
  return copysign(y, v) + 0.125 * sin(v) * cos(v);
}

static double length3(const double *v) {
  return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static double shade_at(const float *point) {
  double c = cos(ANGLE), s = sin(ANGLE);
  double p[3] = {c * point[0] - s * point[1], s * point[0] + c * point[1],
                 point[2]};
  double sun[3] = {SUN[0], SUN[1], SUN[2]};
  double lp = length3(p), ls = length3(sun);
  double n[3] = {p[0] / lp, p[1] / lp, p[2] / lp};
  double delta[3] = {p[0] - sun[0], p[1] - sun[1], p[2] - sun[2]};
  double d = length3(delta);
  double lambert =
      fmax((n[0] * sun[0] + n[1] * sun[1] + n[2] * sun[2]) / ls, 0.0);
  double x[3] = {n[1] * sun[2] - n[2] * sun[1], n[2] * sun[0] - n[0] * sun[2],
                 n[0] * sun[1] - n[1] * sun[0]};
  return lambert * sqrt(1.0 / (1.0 + d * d)) + 0.1 * length3(x);
}

static void make_inputs(inputs *in) {
  bench_random_floats(in->signal, N, 11, -2.0f, 2.0f);
  bench_random_floats(in->points, N * 4, 12, 0.5f, 1.5f);
  for (int i = 0; i < N; i++) {
    in->points[4 * i + 3] = 0.0f; /* w takes no part in the geometry */
    in->filter_want[i] = filter_at(in->signal, i);
    in->shade_want[i] = shade_at(&in->points[4 * i]);
  }
}

/* OpenCL's math builtins may be off by a few ulp (pow by 16): the results
 * are of order 1, so 1e-4 leaves a margin and still catches real errors. */
#define TOLERANCE 1e-4

static size_t check(const char *what, const float *got, const double *want) {
  return bench_mismatches(what, got, want, NULL, TOLERANCE, N);
}

/* ------------------------------------------------------------------ Weft */

typedef struct weft_side {
  weft_context *ctx;
  weft_buffer *signal, *points, *filtered, *light;
} weft_side;

static void weft_spoil(weft_side *w);

/* Opens the device; returns how long that took, in ms. */
static double weft_open(weft_side *w, const inputs *in) {
  double start = bench_now_ms();
  w->ctx = bench_weft_context();
  double ms = bench_now_ms() - start;
  WEFT_CHECK(weft_buffer_create(w->ctx, sizeof in->signal,
                                WEFT_MEM_COPY_HOST_PTR, (void *)in->signal,
                                &w->signal),
             w->ctx);
  WEFT_CHECK(weft_buffer_create(w->ctx, sizeof in->points,
                                WEFT_MEM_COPY_HOST_PTR, (void *)in->points,
                                &w->points),
             w->ctx);
  WEFT_CHECK(weft_buffer_create(w->ctx, N * sizeof(float), 0, NULL,
                                &w->filtered),
             w->ctx);
  WEFT_CHECK(weft_buffer_create(w->ctx, N * sizeof(float), 0, NULL, &w->light),
             w->ctx);
  weft_spoil(w);
  return ms;
}

static void weft_close(weft_side *w) {
  weft_buffer_release(w->signal);
  weft_buffer_release(w->points);
  weft_buffer_release(w->filtered);
  weft_buffer_release(w->light);
  weft_context_release(w->ctx);
}

static weft_program *weft_build(weft_side *w, const char *source) {
  weft_program *program;
  WEFT_CHECK(weft_program_create(w->ctx, source, 0, &program), w->ctx);
  int rc = weft_program_build(program, "");
  if (rc != WEFT_OK)
    bench_die("Weft build failed: %s\n%s", weft_strerror(rc),
              weft_program_build_log(program));
  return program;
}

/* Creates both kernels and runs each once. */
static void weft_run(weft_side *w, weft_program *program) {
  weft_kernel *filter, *shade;
  WEFT_CHECK(weft_kernel_create(program, "filter", &filter), program);
  WEFT_CHECK(weft_kernel_create(program, "shade", &shade), program);
  int n = N;
  WEFT_CHECK(weft_kernel_set_arg_buffer(filter, 0, w->signal), filter);
  WEFT_CHECK(weft_kernel_set_arg_buffer(filter, 1, w->filtered), filter);
  WEFT_CHECK(weft_kernel_set_arg_value(filter, 2, &n, sizeof n), filter);
  WEFT_CHECK(weft_kernel_set_arg_value(filter, 3, &SIGMA, sizeof SIGMA),
             filter);
  WEFT_CHECK(weft_kernel_set_arg_value(filter, 4, &GAMMA, sizeof GAMMA),
             filter);
  WEFT_CHECK(weft_kernel_set_arg_buffer(shade, 0, w->points), shade);
  WEFT_CHECK(weft_kernel_set_arg_buffer(shade, 1, w->light), shade);
  WEFT_CHECK(weft_kernel_set_arg_value(shade, 2, SUN, sizeof SUN), shade);
  WEFT_CHECK(weft_kernel_set_arg_value(shade, 3, &ANGLE, sizeof ANGLE), shade);
  size_t global = N, local = GROUP;
  WEFT_CHECK(weft_kernel_launch(filter, 1, NULL, &global, &local), filter);
  WEFT_CHECK(weft_kernel_launch(shade, 1, NULL, &global, NULL), shade);
  weft_kernel_release(filter);
  weft_kernel_release(shade);
}

/* Fills the outputs with NaN, so that a run that writes nothing fails the
 * check. */
static void weft_spoil(weft_side *w) {
  float nan_fill[N];
  for (int i = 0; i < N; i++) nan_fill[i] = NAN;
  WEFT_CHECK(weft_buffer_write(w->filtered, 0, sizeof nan_fill, nan_fill),
             w->filtered);
  WEFT_CHECK(weft_buffer_write(w->light, 0, sizeof nan_fill, nan_fill),
             w->light);
}

/* Checks the outputs, then spoils them for the next variant's check. */
static size_t weft_check(weft_side *w, const inputs *in) {
  float got[N];
  size_t bad = 0;
  WEFT_CHECK(weft_buffer_read(w->filtered, 0, sizeof got, got), w->filtered);
  bad += check("filter on Weft", got, in->filter_want);
  WEFT_CHECK(weft_buffer_read(w->light, 0, sizeof got, got), w->light);
  bad += check("shade on Weft", got, in->shade_want);
  weft_spoil(w);
  return bad;
}

/* ----------------------------------------------------------------- PoCL */

typedef struct pocl_side {
  bench_cl cl;
  cl_mem signal, points, filtered, light;
} pocl_side;

static void pocl_spoil(pocl_side *p);

/* Opens the device; returns how long that took, in ms. */
static double pocl_open(pocl_side *p, const inputs *in) {
  double start = bench_now_ms();
  bench_pocl_open(&p->cl);
  double ms = bench_now_ms() - start;
  p->signal = bench_cl_buffer(&p->cl, sizeof in->signal, CL_MEM_READ_ONLY,
                                in->signal);
  p->points = bench_cl_buffer(&p->cl, sizeof in->points, CL_MEM_READ_ONLY,
                                in->points);
  p->filtered = bench_cl_buffer(&p->cl, N * sizeof(float), CL_MEM_READ_WRITE,
                                  NULL);
  p->light = bench_cl_buffer(&p->cl, N * sizeof(float), CL_MEM_READ_WRITE,
                               NULL);
  pocl_spoil(p);
  return ms;
}

static void pocl_close(pocl_side *p) {
  clReleaseMemObject(p->signal);
  clReleaseMemObject(p->points);
  clReleaseMemObject(p->filtered);
  clReleaseMemObject(p->light);
  bench_cl_close(&p->cl);
}

static cl_kernel pocl_kernel(cl_program program, const char *name) {
  cl_int rc;
  cl_kernel k = clCreateKernel(program, name, &rc);
  bench_cl_check(rc, "clCreateKernel");
  return k;
}

/* Creates both kernels and runs each once (PoCL generates their code now). */
static void pocl_run(pocl_side *p, cl_program program) {
  cl_kernel filter = pocl_kernel(program, "filter");
  cl_kernel shade = pocl_kernel(program, "shade");
  cl_int n = N;
  CL_CHECK(clSetKernelArg(filter, 0, sizeof p->signal, &p->signal));
  CL_CHECK(clSetKernelArg(filter, 1, sizeof p->filtered, &p->filtered));
  CL_CHECK(clSetKernelArg(filter, 2, sizeof n, &n));
  CL_CHECK(clSetKernelArg(filter, 3, sizeof SIGMA, &SIGMA));
  CL_CHECK(clSetKernelArg(filter, 4, sizeof GAMMA, &GAMMA));
  CL_CHECK(clSetKernelArg(shade, 0, sizeof p->points, &p->points));
  CL_CHECK(clSetKernelArg(shade, 1, sizeof p->light, &p->light));
  CL_CHECK(clSetKernelArg(shade, 2, sizeof SUN, SUN));
  CL_CHECK(clSetKernelArg(shade, 3, sizeof ANGLE, &ANGLE));
  size_t global = N, local = GROUP;
  CL_CHECK(clEnqueueNDRangeKernel(p->cl.queue, filter, 1, NULL, &global,
                                  &local, 0, NULL, NULL));
  CL_CHECK(clEnqueueNDRangeKernel(p->cl.queue, shade, 1, NULL, &global, NULL,
                                  0, NULL, NULL));
  CL_CHECK(clFinish(p->cl.queue));
  clReleaseKernel(filter);
  clReleaseKernel(shade);
}

static void pocl_spoil(pocl_side *p) {
  float nan_fill[N];
  for (int i = 0; i < N; i++) nan_fill[i] = NAN;
  CL_CHECK(clEnqueueWriteBuffer(p->cl.queue, p->filtered, CL_TRUE, 0,
                                sizeof nan_fill, nan_fill, 0, NULL, NULL));
  CL_CHECK(clEnqueueWriteBuffer(p->cl.queue, p->light, CL_TRUE, 0,
                                sizeof nan_fill, nan_fill, 0, NULL, NULL));
}

/* Checks the outputs, then spoils them for the next variant's check. */
static size_t pocl_check(pocl_side *p, const inputs *in) {
  float got[N];
  size_t bad = 0;
  cl_command_queue q = p->cl.queue;
  CL_CHECK(clEnqueueReadBuffer(q, p->filtered, CL_TRUE, 0, sizeof got, got, 0,
                               NULL, NULL));
  bad += check("filter on PoCL", got, in->filter_want);
  CL_CHECK(clEnqueueReadBuffer(q, p->light, CL_TRUE, 0, sizeof got, got, 0,
                               NULL, NULL));
  bad += check("shade on PoCL", got, in->shade_want);
  pocl_spoil(p);
  return bad;
}

/* ------------------------------------------------------------- timings */

/* The times of one variant: the build, and the build with the first runs. */
typedef struct timing {
  double build_ms;
  double build_run_ms;
} timing;

static timing weft_variant(weft_side *w, const inputs *in, unsigned v,
                           size_t *bad) {
  char *source = variant_source(v);
  timing t;
  double start = bench_now_ms();
  weft_program *program = weft_build(w, source);
  t.build_ms = bench_now_ms() - start;
  weft_run(w, program);
  t.build_run_ms = bench_now_ms() - start;
  weft_program_release(program);
  free(source);
  *bad += weft_check(w, in);
  return t;
}

static timing pocl_variant(pocl_side *p, const inputs *in, unsigned v,
                           size_t *bad) {
  char *source = variant_source(v);
  timing t;
  double start = bench_now_ms();
  cl_program program = bench_cl_program(&p->cl, source, "");
  t.build_ms = bench_now_ms() - start;
  pocl_run(p, program);
  t.build_run_ms = bench_now_ms() - start;
  clReleaseProgram(program);
  free(source);
  *bad += pocl_check(p, in);
  return t;
}

/* Everything measured, for one runtime. */
typedef struct results {
  double device_ms[MAX_FIRSTS];
  timing first[MAX_FIRSTS];
  double build_ms[MAX_VARIANTS];
  double build_run_ms[MAX_VARIANTS];
} results;

/* The child: opens both devices and builds the variant once on each, in
 * the order asked, checks the results, and prints the six times. */
static int first_child(unsigned variant, int pocl_goes_first) {
  static inputs in;
  make_inputs(&in);
  size_t bad = 0;
  weft_side w;
  pocl_side p;
  double weft_device_ms = 0, pocl_device_ms = 0;
  timing weft_first, pocl_first;
  if (pocl_goes_first) {
    pocl_device_ms = pocl_open(&p, &in);
    pocl_first = pocl_variant(&p, &in, variant, &bad);
  }
  weft_device_ms = weft_open(&w, &in);
  weft_first = weft_variant(&w, &in, variant, &bad);
  if (!pocl_goes_first) {
    pocl_device_ms = pocl_open(&p, &in);
    pocl_first = pocl_variant(&p, &in, variant, &bad);
  }
  weft_close(&w);
  pocl_close(&p);
  if (bad) return 1;
  printf("%.6f %.6f %.6f %.6f %.6f %.6f\n", weft_device_ms,
         weft_first.build_ms, weft_first.build_run_ms, pocl_device_ms,
         pocl_first.build_ms, pocl_first.build_run_ms);
  return 0;
}

/* Runs count children ("self --first variant order") and gathers their
 * figures; returns the number that failed. */
static int measure_firsts(int count, results *weft, results *pocl) {
  int failed = 0;
  for (int k = 0; k < count; k++) {
    char variant[16], text[256];
    /* Distinct variants for distinct processes, should a cache appear. */
    snprintf(variant, sizeof variant, "%d", 100 + k);
    char *args[] = {program_invocation_name, "--first", variant,
                    k % 2 ? "pocl" : "weft", NULL};
    char *env[] = {NULL};
    if (bench_run_self(args, env, text, sizeof text) ||
        sscanf(text, "%lf %lf %lf %lf %lf %lf", &weft->device_ms[k],
               &weft->first[k].build_ms, &weft->first[k].build_run_ms,
               &pocl->device_ms[k], &pocl->first[k].build_ms,
               &pocl->first[k].build_run_ms) != 6) {
      bench_note("first build in a fresh process: run %d failed", k);
      failed++;
    }
  }
  return failed;
}

/* Variants 1..count, new to both runtimes, which take turns going first. */
static void measure_variants(weft_side *w, pocl_side *p, const inputs *in,
                             int count, results *weft, results *pocl,
                             size_t *bad) {
  for (int i = 0; i < count; i++) {
    unsigned v = (unsigned)i + 1;
    timing wt, pt;
    if (i % 2) {
      pt = pocl_variant(p, in, v, bad);
      wt = weft_variant(w, in, v, bad);
    } else {
      wt = weft_variant(w, in, v, bad);
      pt = pocl_variant(p, in, v, bad);
    }
    weft->build_ms[i] = wt.build_ms;
    weft->build_run_ms[i] = wt.build_run_ms;
    pocl->build_ms[i] = pt.build_ms;
    pocl->build_run_ms[i] = pt.build_run_ms;
  }
}

/* The medians of the first builds' figures. */
static timing median_first(const results *r, int count) {
  double build[MAX_FIRSTS], build_run[MAX_FIRSTS];
  for (int k = 0; k < count; k++) {
    build[k] = r->first[k].build_ms;
    build_run[k] = r->first[k].build_run_ms;
  }
  return (timing){bench_median(build, count), bench_median(build_run, count)};
}

static void print_csv(const char *path, const results *weft,
                      const results *pocl, int firsts, int variants) {
  timing weft_first = median_first(weft, firsts);
  timing pocl_first = median_first(pocl, firsts);
  bench_csv_open(path, "what,weft_ms,pocl_ms,pocl_over_weft", 1);
  bench_csv_ratio("device_create", bench_median(weft->device_ms, firsts),
                  bench_median(pocl->device_ms, firsts));
  bench_csv_ratio("first_build", weft_first.build_ms, pocl_first.build_ms);
  bench_csv_ratio("first_build_run", weft_first.build_run_ms,
                  pocl_first.build_run_ms);
  bench_csv_ratio("build_median", bench_median(weft->build_ms, variants),
                  bench_median(pocl->build_ms, variants));
  bench_csv_ratio("build_run_median",
                  bench_median(weft->build_run_ms, variants),
                  bench_median(pocl->build_run_ms, variants));
  bench_csv_close();
}

int main(int argc, char **argv) {
  /* Before the first OpenCL call (here or in a child, which inherits it):
   * PoCL reads it when it starts. */
  setenv("POCL_KERNEL_CACHE", "0", 1);
  if (argc == 4 && !strcmp(argv[1], "--first"))
    return first_child((unsigned)strtoul(argv[2], NULL, 10),
                       !strcmp(argv[3], "pocl"));
  bench_options options;
  bench_parse_options(argc, argv, &options);
  int firsts = options.quick ? 1 : MAX_FIRSTS;
  int variants = options.quick ? 3 : MAX_VARIANTS;
  static results weft, pocl;
  bench_note("device creation and first build: %d fresh processes", firsts);
  int failed = measure_firsts(firsts, &weft, &pocl);

  static inputs in;
  make_inputs(&in);
  size_t bad = 0;
  weft_side w;
  pocl_side p;
  weft_open(&w, &in);
  pocl_open(&p, &in);
  /* Variant 0 is built untimed: the medians are of builds after the
   * first, which the children measured. */
  weft_variant(&w, &in, 0, &bad);
  pocl_variant(&p, &in, 0, &bad);
  bench_note("%d builds of distinct variants", variants);
  measure_variants(&w, &p, &in, variants, &weft, &pocl, &bad);
  weft_close(&w);
  pocl_close(&p);
  if (bad || failed) bench_die("wrong results, no figures reported");
  print_csv(options.csv_path, &weft, &pocl, firsts, variants);
  return 0;
}
