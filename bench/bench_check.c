/*
 * bench_check.c: what check mode costs. Four kernels, each run in one
 * process by
 *
 *   Weft            the plain build
 *   Weft memory     the same source built with -cl-weft-check=memory
 *   Weft races      ... with -cl-weft-check=races
 *   Weft all        ... with -cl-weft-check=all (memory, uninitialised
 *                   reads, races, loops' stop points, division warnings)
 *   Oclgrind        Debian's oclgrind (21.10), through the ICD loader,
 *                   with its default checks (memory)
 *
 * on the same sizes, as medians. Oclgrind interprets every instruction, so
 * the sizes are small enough for it; --quick makes them smaller still.
 * Every run's output is compared with the host's: a run that skipped work,
 * or that the checks changed, fails the benchmark.
 *
 *   vecadd      c = a + b                            (memory bound)
 *   matmul      16x16 tiles in __local memory, barriers
 *   reduce      a __local tree per group of 256, barriers
 *   histogram   256 __local bins, local then global atomics
 *
 * CSV on stdout: kernel,items,weft_ms,memory_ms,races_ms,all_ms,
 * oclgrind_ms,memory_over_weft,races_over_weft,all_over_weft,
 * oclgrind_over_all (how many times faster than Oclgrind the run with
 * every check is).
 */
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const char *source = BENCH_KERNELS_SOURCE
    "__kernel void histogram(__global const uchar *data,\n"
    "                        __global uint *bins) {\n"
    "  __local uint local_bins[256];\n"
    "  uint lid = get_local_id(0);\n"
    "  local_bins[lid] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_inc(&local_bins[data[get_global_id(0)]]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_add(&bins[lid], local_bins[lid]);\n"
    "}\n";

/* The builds the benchmark compares, by runtime (Oclgrind last). */
static const char *const weft_options[] = {"", "-cl-weft-check=memory",
                                           "-cl-weft-check=races",
                                           "-cl-weft-check=all"};
enum { PLAIN, MEMORY, RACES, ALL, GRIND, RUNTIMES };
#define OCLGRIND_PLATFORM "Oclgrind"

enum { VECADD, MATMUL, REDUCE, HISTOGRAM, KERNELS };
static const char *const names[KERNELS] = {"vecadd", "matmul", "reduce",
                                           "histogram"};

/* A kernel's launch: its range, and its buffers' sizes and contents. */
typedef struct job {
  unsigned dims;
  size_t global[2], local[2];
  unsigned num_buffers;
  size_t sizes[3];
  void *init[3];       /* NULL: an output, filled with NaN bytes */
  unsigned out;        /* the buffer whose result is checked */
  size_t local_arg;    /* bytes of a __local argument (reduce), or 0 */
  int has_n;           /* matmul's uint n after the buffers */
  unsigned n;
  double *want;        /* the host's result, per element of out */
  double tolerance;
} job;

/* The three runtimes' kernels for one job. */
typedef struct runs {
  weft_kernel *weft[GRIND];
  weft_buffer *weft_buffers[3];
  cl_kernel grind;
  cl_mem grind_buffers[3];
} runs;

static struct {
  weft_context *weft;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
} rt;

/* ------------------------------------------------------------- the jobs */

static float *random_floats(size_t n, unsigned seed) {
  float *v = malloc(n * sizeof *v);
  if (!v) bench_die("out of memory");
  bench_random_floats(v, n, seed, -1, 1);
  return v;
}

static double *doubles(size_t n) {
  double *v = calloc(n, sizeof *v);
  if (!v) bench_die("out of memory");
  return v;
}

static job vecadd_job(size_t n) {
  float *a = random_floats(n, 1), *b = random_floats(n, 2);
  job j = {.dims = 1, .global = {n}, .local = {256}, .num_buffers = 3,
           .sizes = {n * 4, n * 4, n * 4}, .init = {a, b, NULL}, .out = 2};
  j.want = doubles(n);
  for (size_t i = 0; i < n; i++) j.want[i] = (double)a[i] + b[i];
  j.tolerance = 1e-6;
  return j;
}

static job matmul_job(unsigned n) {
  size_t e = (size_t)n * n;
  float *a = random_floats(e, 3), *b = random_floats(e, 4);
  job j = {.dims = 2, .global = {n, n}, .local = {16, 16}, .num_buffers = 3,
           .sizes = {e * 4, e * 4, e * 4}, .init = {a, b, NULL}, .out = 2};
  j.has_n = 1;
  j.n = n;
  j.want = doubles(e);
  for (unsigned r = 0; r < n; r++)
    for (unsigned c = 0; c < n; c++)
      for (unsigned k = 0; k < n; k++)
        j.want[r * n + c] += (double)a[r * n + k] * b[k * n + c];
  j.tolerance = 1e-3;
  return j;
}

static job reduce_job(size_t n) {
  float *in = random_floats(n, 5);
  job j = {.dims = 1, .global = {n}, .local = {256}, .num_buffers = 2,
           .sizes = {n * 4, n / 256 * 4}, .init = {in, NULL}, .out = 1};
  j.local_arg = 256 * sizeof(float);
  j.want = doubles(n / 256);
  for (size_t i = 0; i < n; i++) j.want[i / 256] += in[i];
  j.tolerance = 1e-3;
  return j;
}

static job histogram_job(size_t n) {
  unsigned char *data = malloc(n);
  unsigned *bins = calloc(256, sizeof *bins);
  if (!data || !bins) bench_die("out of memory");
  for (size_t i = 0; i < n; i++) data[i] = (unsigned char)((i * 2654435761u) >> 13);
  job j = {.dims = 1, .global = {n}, .local = {256}, .num_buffers = 2,
           .sizes = {n, 256 * 4}, .init = {data, bins}, .out = 1};
  j.want = doubles(256);
  for (size_t i = 0; i < n; i++) j.want[data[i]] += 1;
  return j;
}

/* ------------------------------------------------------- the runtimes */

/* Oclgrind's ICD, alone in a folder of its own, for the loader. */
static void use_oclgrind(void) {
  static char dir[] = "/tmp/weft-bench-check-XXXXXX";
  if (!mkdtemp(dir)) bench_die("cannot make a folder for Oclgrind's ICD");
  char path[128];
  snprintf(path, sizeof path, "%s/oclgrind.icd", dir);
  FILE *f = fopen(path, "w");
  if (!f) bench_die("cannot write %s", path);
  fprintf(f, "%s\n", WEFT_OCLGRIND_ICD);
  fclose(f);
  setenv("OCL_ICD_VENDORS", dir, 1);
  cl_platform_id platform;
  cl_uint count = 0;
  if (clGetPlatformIDs(1, &platform, &count) != CL_SUCCESS || !count)
    bench_die("Oclgrind's platform (%s) is missing: install oclgrind",
              WEFT_OCLGRIND_ICD);
  CL_CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &rt.device, NULL));
  cl_int rc;
  rt.context = clCreateContext(NULL, 1, &rt.device, NULL, NULL, &rc);
  bench_cl_check(rc, "clCreateContext");
  /* Oclgrind 21.10 is OpenCL 1.2: its queues come from the 1.2 call (the
   * 2.0 one spins in the ICD loader). */
  rt.queue = clCreateCommandQueue(rt.context, rt.device, 0, &rc);
  bench_cl_check(rc, "clCreateCommandQueue");
  unlink(path);
  rmdir(dir);
}

static cl_kernel grind_kernel(const char *name) {
  cl_int rc;
  cl_program p = clCreateProgramWithSource(rt.context, 1, &source, NULL, &rc);
  bench_cl_check(rc, "clCreateProgramWithSource");
  CL_CHECK(clBuildProgram(p, 1, &rt.device, "", NULL, NULL));
  cl_kernel k = clCreateKernel(p, name, &rc);
  bench_cl_check(rc, "clCreateKernel");
  clReleaseProgram(p);
  return k;
}

/* The output's bytes before each run: NaN, so skipped work shows. */
static void *poison(size_t size) {
  void *p = malloc(size);
  if (!p) bench_die("out of memory");
  memset(p, 0xff, size);
  return p;
}

static void set_args(runs *r, const job *j) {
  weft_kernel *const *ks = r->weft;
  for (unsigned b = 0; b < j->num_buffers; b++) {
    void *init = j->init[b] ? j->init[b] : poison(j->sizes[b]);
    WEFT_CHECK(weft_buffer_create(rt.weft, j->sizes[b], WEFT_MEM_COPY_HOST_PTR,
                                  init, &r->weft_buffers[b]), rt.weft);
    cl_int rc;
    r->grind_buffers[b] = clCreateBuffer(
        rt.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, j->sizes[b], init, &rc);
    bench_cl_check(rc, "clCreateBuffer");
    if (!j->init[b]) free(init);
    for (int k = 0; k < GRIND; k++)
      WEFT_CHECK(weft_kernel_set_arg_buffer(ks[k], (int)b, r->weft_buffers[b]), ks[k]);
    CL_CHECK(clSetKernelArg(r->grind, b, sizeof(cl_mem), &r->grind_buffers[b]));
  }
  unsigned extra = j->num_buffers;
  for (int k = 0; k < GRIND && j->local_arg; k++)
    WEFT_CHECK(weft_kernel_set_arg_local(ks[k], (int)extra, j->local_arg), ks[k]);
  if (j->local_arg) CL_CHECK(clSetKernelArg(r->grind, extra, j->local_arg, NULL));
  for (int k = 0; k < GRIND && j->has_n; k++)
    WEFT_CHECK(weft_kernel_set_arg_value(ks[k], (int)extra, &j->n, sizeof j->n), ks[k]);
  if (j->has_n) CL_CHECK(clSetKernelArg(r->grind, extra, sizeof j->n, &j->n));
}

/* ------------------------------------------------------------- running */

/* The output buffer reset (histogram bins to 0, else NaN). */
static void reset_output(runs *r, const job *j, int grind) {
  size_t size = j->sizes[j->out];
  void *bytes = j->init[j->out] ? j->init[j->out] : poison(size);
  if (grind)
    CL_CHECK(clEnqueueWriteBuffer(rt.queue, r->grind_buffers[j->out], CL_TRUE, 0,
                                  size, bytes, 0, NULL, NULL));
  else
    WEFT_CHECK(weft_buffer_write(r->weft_buffers[j->out], 0, size, bytes),
               r->weft_buffers[j->out]);
  if (!j->init[j->out]) free(bytes);
}

/* Compares the output with the host's result. */
static void verify(runs *r, const job *j, int grind, const char *who) {
  size_t n = j->sizes[j->out] / 4;
  float *got = malloc(n * sizeof *got);
  unsigned *counts = (unsigned *)got;
  if (!got) bench_die("out of memory");
  if (grind)
    CL_CHECK(clEnqueueReadBuffer(rt.queue, r->grind_buffers[j->out], CL_TRUE, 0,
                                 n * 4, got, 0, NULL, NULL));
  else
    WEFT_CHECK(weft_buffer_read(r->weft_buffers[j->out], 0, n * 4, got),
               r->weft_buffers[j->out]);
  int is_counts = j->init[j->out] != NULL;
  for (size_t i = 0; i < n; i++) {
    double v = is_counts ? counts[i] : got[i];
    if (!(fabs(v - j->want[i]) <= j->tolerance * (1 + fabs(j->want[i]))))
      bench_die("%s gave %g at %zu, expected %g", who, v, i, j->want[i]);
  }
  free(got);
}

/* One timed run of runtime which (PLAIN ... GRIND). */
static double run_once(runs *r, const job *j, int which) {
  reset_output(r, j, which == GRIND);
  double start = bench_now_ms();
  if (which == GRIND) {
    CL_CHECK(clEnqueueNDRangeKernel(rt.queue, r->grind, j->dims, NULL, j->global,
                                    j->local, 0, NULL, NULL));
    CL_CHECK(clFinish(rt.queue));
  } else {
    weft_kernel *k = r->weft[which];
    WEFT_CHECK(weft_kernel_launch(k, j->dims, NULL, j->global, j->local), k);
  }
  double ms = bench_now_ms() - start;
  static const char *const who[] = {"Weft", "Weft memory", "Weft races",
                                    "Weft all", "Oclgrind"};
  verify(r, j, which == GRIND, who[which]);
  return ms;
}

static void measure(const char *name, const job *j, int reps) {
  runs r = {0};
  for (int k = 0; k < GRIND; k++)
    r.weft[k] = bench_weft_kernel(rt.weft, source, weft_options[k], name);
  r.grind = grind_kernel(name);
  set_args(&r, j);
  double ms[RUNTIMES][16];
  for (int which = 0; which < RUNTIMES; which++) run_once(&r, j, which); /* warm */
  for (int i = 0; i < reps; i++)
    for (int which = 0; which < RUNTIMES; which++)
      ms[which][i] = run_once(&r, j, which);
  double m[RUNTIMES];
  for (int which = 0; which < RUNTIMES; which++)
    m[which] = bench_median(ms[which], reps);
  size_t items = j->global[0] * (j->dims > 1 ? j->global[1] : 1);
  bench_csv_line("%s,%zu,%.3f,%.3f,%.3f,%.3f,%.1f,%.2f,%.2f,%.2f,%.0f", name,
                 items, m[PLAIN], m[MEMORY], m[RACES], m[ALL], m[GRIND],
                 m[MEMORY] / m[PLAIN], m[RACES] / m[PLAIN], m[ALL] / m[PLAIN],
                 m[GRIND] / m[ALL]);
  for (unsigned b = 0; b < j->num_buffers; b++) {
    weft_buffer_release(r.weft_buffers[b]);
    clReleaseMemObject(r.grind_buffers[b]);
  }
  for (int k = 0; k < GRIND; k++) weft_kernel_release(r.weft[k]);
  clReleaseKernel(r.grind);
}

int main(int argc, char **argv) {
  bench_options options;
  bench_parse_options(argc, argv, &options);
  int shift = options.quick ? 4 : 0;
  int reps = options.quick ? 3 : 5;
  rt.weft = bench_weft_context();
  use_oclgrind();
  bench_csv_open(options.csv_path,
                 "kernel,items,weft_ms,memory_ms,races_ms,all_ms,oclgrind_ms,"
                 "memory_over_weft,races_over_weft,all_over_weft,"
                 "oclgrind_over_all",
                 1);
  job jobs[KERNELS] = {vecadd_job((size_t)1 << (20 - shift)),
                       matmul_job(256u >> (shift / 2)),
                       reduce_job((size_t)1 << (20 - shift)),
                       histogram_job((size_t)1 << (20 - shift))};
  for (int k = 0; k < KERNELS; k++) {
    bench_note("%s", names[k]);
    measure(names[k], &jobs[k], reps);
  }
  bench_csv_close();
  weft_context_release(rt.weft);
  return 0;
}
