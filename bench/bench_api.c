/*
 * bench_api.c: Weft and PoCL as OpenCL platforms, through the same ICD
 * loader and the same host code, as an unmodified application sees them.
 *
 *   launch_finish        an empty kernel: clEnqueueNDRangeKernel + clFinish
 *   launch_event_wait    the same, waiting on the launch's event instead
 *   read_blocking        a blocking 4-byte clEnqueueReadBuffer
 *   build_cold           a program no cache has seen: build and first launch
 *   rebuild_in_process   the same source built again in the process (a new
 *                        program object): build and first launch
 *   rebuild_new_process  the same source built by a later process, from the
 *                        runtime's kernel cache on disk: build, first launch
 *
 * Launch rows are medians of per-call times over many calls (in ms, so
 * 0.001 is 1 us), and their 99th percentiles (the rows ending _p99).
 * With --load N, N threads of busy work at nice 19 share the machine
 * (a CI machine is busy: latency must not depend on where the scheduler
 * puts the runtime's threads). Each runtime's kernel cache lives in a fresh folder of
 * this run (WEFT_CACHE_DIR, POCL_CACHE_DIR), so "cold" is cold. PoCL
 * generates code at the first launch of a kernel, Weft at build: the build
 * rows include the first launch so both are complete.
 *
 * CSV on stdout: what,weft_ms,pocl_ms,pocl_over_weft.
 *
 * With --gpu, the same rows for Weft's GPU device (a CUDA GPU, where the
 * rebuilds come from the kernel cache's PTX) beside Weft's CPU device:
 * what,weft_gpu_ms,weft_cpu_ms,cpu_over_gpu. PoCL is not needed then.
 */
#include <errno.h> /* program_invocation_name */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

#define WEFT_PLATFORM "Weft"

static const char *empty_source = "__kernel void empty(void) {}\n";

/* A 40-line kernel, so that build times mean something; the variant line
 * makes each cold build a source no cache has seen. */
static const char *build_body =
    "float smooth(__global const float *in, int i, int n) {\n"
    "  float s = 0.0f;\n"
    "  for (int d = -3; d <= 3; d++) {\n"
    "    int j = clamp(i + d, 0, n - 1);\n"
    "    s += in[j] * exp(-(float)(d * d) / 4.0f);\n"
    "  }\n"
    "  return s;\n"
    "}\n"
    "__kernel void filter(__global const float *in, __global float *out,\n"
    "                     int n) {\n"
    "  int i = get_global_id(0);\n"
    "  __local float tile[64];\n"
    "  tile[get_local_id(0)] = smooth(in, i, n);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  float m = tile[(get_local_id(0) + 1) % 64];\n"
    "  out[i] = VARIANT + sqrt(fabs(m)) + pow(fabs(tile[get_local_id(0)]), 0.5f);\n"
    "}\n";

/* A platform and the type of its device that a runtime opens. */
typedef struct target {
  const char *platform;
  cl_device_type type;
} target;

typedef struct runtime {
  target what;
  bench_cl cl;
} runtime;

static void open_runtime(runtime *r, target what) {
  r->what = what;
  bench_cl_open(&r->cl, what.platform, what.type);
}

static cl_kernel kernel_of(cl_program p, const char *name) {
  cl_int err;
  cl_kernel k = clCreateKernel(p, name, &err);
  CL_CHECK(err);
  return k;
}

/* ---------------------------------------------------------- latencies */

typedef enum latency_kind { FINISH, EVENT_WAIT, READ } latency_kind;

/* The median time of one call of the kind, over reps calls, and the
 * 99th percentile (ms[0], ms[1]). */
static void latency_ms(runtime *r, latency_kind kind, int reps, double ms[2]) {
  cl_program p = bench_cl_program(&r->cl, empty_source, "");
  cl_kernel k = kernel_of(p, "empty");
  cl_int err;
  cl_mem m = clCreateBuffer(r->cl.context, CL_MEM_READ_WRITE, 64, NULL, &err);
  CL_CHECK(err);
  size_t one = 1;
  double *t = malloc((size_t)reps * sizeof *t);
  int value;
  for (int i = -reps / 10; i < reps; i++) { /* the first tenth warms up */
    double start = bench_now_ms();
    if (kind == READ) {
      CL_CHECK(clEnqueueReadBuffer(r->cl.queue, m, CL_TRUE, 0, sizeof value, &value,
                                   0, NULL, NULL));
    } else if (kind == FINISH) {
      CL_CHECK(clEnqueueNDRangeKernel(r->cl.queue, k, 1, NULL, &one, &one, 0, NULL,
                                      NULL));
      CL_CHECK(clFinish(r->cl.queue));
    } else {
      cl_event e;
      CL_CHECK(clEnqueueNDRangeKernel(r->cl.queue, k, 1, NULL, &one, &one, 0, NULL,
                                      &e));
      CL_CHECK(clWaitForEvents(1, &e));
      clReleaseEvent(e);
    }
    if (i >= 0) t[i] = bench_now_ms() - start;
  }
  ms[0] = bench_median(t, reps);
  ms[1] = bench_percentile(t, reps, 99.0);
  free(t);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

/* -------------------------------------------------------------- builds */

/* Builds variant's source and runs its kernel once; returns the ms. */
static double build_and_run_ms(runtime *r, int variant) {
  char options[32];
  snprintf(options, sizeof options, "-DVARIANT=%d", variant);
  float in[256] = {0}, out[256];
  cl_int err;
  double start = bench_now_ms();
  cl_program p = bench_cl_program(&r->cl, build_body, options);
  cl_kernel k = kernel_of(p, "filter");
  cl_mem a = clCreateBuffer(r->cl.context, CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
  CL_CHECK(err);
  cl_mem b = clCreateBuffer(r->cl.context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  CL_CHECK(err);
  int n = 256;
  CL_CHECK(clSetKernelArg(k, 0, sizeof a, &a));
  CL_CHECK(clSetKernelArg(k, 1, sizeof b, &b));
  CL_CHECK(clSetKernelArg(k, 2, sizeof n, &n));
  size_t global = 256, local = 64;
  CL_CHECK(clEnqueueNDRangeKernel(r->cl.queue, k, 1, NULL, &global, &local, 0, NULL,
                                  NULL));
  CL_CHECK(clEnqueueReadBuffer(r->cl.queue, b, CL_TRUE, 0, sizeof out, out, 0, NULL,
                               NULL));
  double ms = bench_now_ms() - start;
  /* sqrt(0) + pow(0, 0.5) + VARIANT */
  for (int i = 0; i < 256; i++)
    if (out[i] != (float)variant) bench_die("filter gave %g, not %d", out[i], variant);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return ms;
}

/* The child of rebuild_new_process: "--child PLATFORM TYPE VARIANT"
 * prints the ms of one build and run. */
static int child_main(const char *platform, const char *type, int variant) {
  runtime r;
  open_runtime(&r, (target){platform, (cl_device_type)atoll(type)});
  printf("%f\n", build_and_run_ms(&r, variant));
  bench_cl_close(&r.cl);
  return 0;
}

/* A later process's build of a variant this run built already. */
static double new_process_ms(target what, int variant) {
  char v[16], type[24], out[64];
  snprintf(v, sizeof v, "%d", variant);
  snprintf(type, sizeof type, "%llu", (unsigned long long)what.type);
  char *args[] = {program_invocation_name, "--child", (char *)what.platform,
                  type, v, NULL};
  char *env[] = {NULL};
  if (bench_run_self(args, env, out, sizeof out))
    bench_die("the child build on %s failed", what.platform);
  return atof(out);
}

/* Cold, then again in this process, then in new processes, per variant:
 * medians of each. */
static void build_rows(runtime *measured, runtime *reference, int variants) {
  double cold[2][16], again[2][16], later[2][16];
  runtime *rs[2] = {measured, reference};
  for (int v = 0; v < variants; v++)
    for (int i = 0; i < 2; i++) {
      int variant = 1000 + v;
      cold[i][v] = build_and_run_ms(rs[i], variant);
      again[i][v] = build_and_run_ms(rs[i], variant);
      later[i][v] = new_process_ms(rs[i]->what, variant);
    }
  bench_csv_ratio("build_cold", bench_median(cold[0], variants),
                  bench_median(cold[1], variants));
  bench_csv_ratio("rebuild_in_process", bench_median(again[0], variants),
                  bench_median(again[1], variants));
  bench_csv_ratio("rebuild_new_process", bench_median(later[0], variants),
                  bench_median(later[1], variants));
}

static char cache_root[] = "/tmp/weft-bench-api-XXXXXX";

/* Fresh cache folders for both runtimes, and the loader pointed at both. */
static void set_environment(void) {
  char *dir = mkdtemp(cache_root);
  if (!dir) bench_die("mkdtemp failed: %s", strerror(errno));
  char path[64];
  snprintf(path, sizeof path, "%s/weft", dir);
  setenv("WEFT_CACHE_DIR", path, 1);
  snprintf(path, sizeof path, "%s/pocl", dir);
  setenv("POCL_CACHE_DIR", path, 1);
  setenv("POCL_KERNEL_CACHE", "1", 1);
  setenv("OCL_ICD_VENDORS", WEFT_ICD_POCL_DIR, 0);
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "--child"))
    return child_main(argv[2], argv[3], atoi(argv[4]));
  bench_options options;
  bench_parse_options(argc, argv, &options);
  set_environment();
  if (options.load) {
    bench_note("%d load threads at nice 19", options.load);
    bench_start_load(options.load);
  }
  runtime measured, reference;
  if (options.gpu) {
    open_runtime(&measured, (target){WEFT_PLATFORM, CL_DEVICE_TYPE_GPU});
    open_runtime(&reference, (target){WEFT_PLATFORM, CL_DEVICE_TYPE_CPU});
  } else {
    open_runtime(&measured, (target){WEFT_PLATFORM, CL_DEVICE_TYPE_CPU});
    open_runtime(&reference, (target){BENCH_POCL_PLATFORM, CL_DEVICE_TYPE_CPU});
  }
  int reps = options.quick ? 200 : 5000;
  bench_csv_open(options.csv_path,
                 options.gpu ? "what,weft_gpu_ms,weft_cpu_ms,cpu_over_gpu"
                             : "what,weft_ms,pocl_ms,pocl_over_weft",
                 1);
  static const char *const names[] = {"launch_finish", "launch_event_wait",
                                      "read_blocking"};
  for (int kind = FINISH; kind <= READ; kind++) {
    bench_note("%s: %d calls each", names[kind], reps);
    double w[2], p[2];
    latency_ms(&measured, (latency_kind)kind, reps, w);
    latency_ms(&reference, (latency_kind)kind, reps, p);
    bench_csv_ratio(names[kind], w[0], p[0]);
    char p99[64];
    snprintf(p99, sizeof p99, "%s_p99", names[kind]);
    bench_csv_ratio(p99, w[1], p[1]);
  }
  int variants = options.quick ? 1 : 5;
  bench_note("builds: %d variants, cold, again, in a new process", variants);
  build_rows(&measured, &reference, variants);
  bench_csv_close();
  bench_cl_close(&measured.cl);
  bench_cl_close(&reference.cl);
  char command[64];
  snprintf(command, sizeof command, "rm -rf '%s'", cache_root);
  return system(command) == 0 ? 0 : 1;
}
