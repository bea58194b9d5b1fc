/* common.c: options, checks and runtime set-up for the benchmarks of
 * bench/ (see common.h). */
#include "common.h"

#include <dlfcn.h>
#include <float.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ the program */

static void usage(void) {
  fprintf(stderr,
          "usage: %s [--quick] [--csv PATH] [--gpu] [--load N] [--peer NAME]\n"
          "          [--only KERNEL] [--scaling] [--alone] [--weft-options OPTS]\n"
          "  --quick     small sizes and few repetitions (a smoke test)\n"
          "  --csv PATH  also write the CSV to PATH\n"
          "  --gpu       bench_api: Weft's GPU device beside its CPU device;\n"
          "              bench_peers: both runtimes' GPU devices\n"
          "  --load N    N threads of busy work at nice 19 beside the runs\n"
          "  --peer NAME bench_peers: the platform beside Weft (default PoCL,\n"
          "              with --gpu \"NVIDIA CUDA\")\n"
          "  --only KERNEL  bench_peers: that kernel's row alone\n"
          "  --scaling   bench_peers: Weft alone on 1, 2, 4 ... threads up to\n"
          "              the usable CPUs, speedups over one thread\n"
          "  --alone     bench_peers: Weft alone (what --scaling runs)\n"
          "  --weft-options OPTS  bench_peers: Weft's build options (e.g.\n"
          "              -cl-weft-no-stream, to compare with the default)\n",
          program_invocation_short_name);
  exit(2);
}

void bench_parse_options(int argc, char **argv, bench_options *options) {
  *options = (bench_options){0, NULL, 0, 0, NULL, NULL, 0, 0, ""};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick"))
      options->quick = 1;
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
      options->csv_path = argv[++i];
    else if (!strcmp(argv[i], "--gpu"))
      options->gpu = 1;
    else if (!strcmp(argv[i], "--peer") && i + 1 < argc)
      options->peer = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc)
      options->only = argv[++i];
    else if (!strcmp(argv[i], "--scaling"))
      options->scaling = 1;
    else if (!strcmp(argv[i], "--alone"))
      options->alone = 1;
    else if (!strcmp(argv[i], "--weft-options") && i + 1 < argc)
      options->weft_options = argv[++i];
    else if (!strcmp(argv[i], "--load") && i + 1 < argc) {
      options->load = atoi(argv[++i]);
      if (options->load < 1 || options->load > 256) usage();
    }
    else
      usage();
  }
}

/* A load thread: on Linux a thread's nice value is its own. */
static void *busy(void *arg) {
  (void)arg;
  setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
  for (volatile unsigned long spins = 0;; spins++) {
  }
  return NULL;
}

void bench_start_load(int n) {
  for (int i = 0; i < n; i++) {
    pthread_t t;
    if (pthread_create(&t, NULL, busy, NULL))
      bench_die("cannot start a load thread");
    pthread_detach(t);
  }
}

/* The child's side of bench_run_self: never returns. */
static _Noreturn void exec_self(char *const args[], char *const env[],
                                int out_fd) {
  dup2(out_fd, STDOUT_FILENO);
  close(out_fd);
  for (size_t i = 0; env[i]; i++) putenv(env[i]);
  execv("/proc/self/exe", args);
  _exit(127);
}

int bench_run_self(char *const args[], char *const env[], char *out,
                   size_t size) {
  int fds[2];
  if (pipe(fds)) bench_die("pipe failed: %s", strerror(errno));
  /* Nothing buffered may reach the child's stdout twice. */
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) bench_die("fork failed: %s", strerror(errno));
  if (pid == 0) {
    close(fds[0]);
    exec_self(args, env, fds[1]);
  }
  close(fds[1]);
  size_t used = 0;
  ssize_t got;
  while (used + 1 < size &&
         (got = read(fds[0], out + used, size - 1 - used)) > 0)
    used += (size_t)got;
  out[used] = 0;
  close(fds[0]);
  int status;
  if (waitpid(pid, &status, 0) < 0) return -1;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ------------------------------------------------------------------- CSV */

void bench_csv_ratio(const char *name, double weft_ms, double pocl_ms) {
  bench_csv_line("%s,%.6g,%.6g,%.3f", name, weft_ms, pocl_ms,
                 pocl_ms / weft_ms);
}

/* ---------------------------------------------------------------- checks */

void *bench_alloc(size_t bytes) {
  void *p = malloc(bytes);
  if (!p) bench_die("out of memory (%zu bytes)", bytes);
  return p;
}

/* xorshift32: reproducible everywhere, unlike rand(). */
static uint32_t xorshift_start(unsigned seed) { return seed * 2654435761u + 1; }

static uint32_t xorshift_next(uint32_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

void bench_random_floats(float *v, size_t n, unsigned seed, float lo,
                         float hi) {
  uint32_t x = xorshift_start(seed);
  for (size_t i = 0; i < n; i++)
    v[i] = lo + (hi - lo) * (float)(xorshift_next(&x) >> 8) / 16777216.0f;
}

void bench_random_uints(uint32_t *v, size_t n, unsigned seed) {
  uint32_t x = xorshift_start(seed);
  for (size_t i = 0; i < n; i++) v[i] = xorshift_next(&x);
}

void bench_matmul_reference(const void *a, const void *b, size_t n,
                            int is_double, double slack, double *want,
                            double *tolerance) {
  double eps = is_double ? DBL_EPSILON : FLT_EPSILON;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      double sum = 0.0, magnitude = 0.0;
      for (size_t k = 0; k < n; k++) {
        double x = is_double ? ((const double *)a)[i * n + k]
                             : ((const float *)a)[i * n + k];
        double y = is_double ? ((const double *)b)[k * n + j]
                             : ((const float *)b)[k * n + j];
        sum += x * y;
        magnitude += fabs(x * y);
      }
      want[i * n + j] = sum;
      tolerance[i * n + j] = slack * (double)n * eps * magnitude;
    }
}

size_t bench_mismatches(const char *what, const float *got, const double *want,
                        const double *tolerance, double tol, size_t n) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    double limit = tolerance ? tolerance[i] : tol;
    /* Written so that a NaN fails the test. */
    if (fabs((double)got[i] - want[i]) <= limit) continue;
    if (!bad++)
      bench_note("%s: element %zu is %.9g, the host says %.9g (tolerance "
                 "%.3g)", what, i, got[i], want[i], limit);
  }
  if (bad) bench_note("%s: %zu of %zu elements are wrong", what, bad, n);
  return bad;
}

float bench_mandelbrot_pixel(size_t x, size_t y, size_t side,
                             unsigned iterations) {
  float cr = -2.0f + 3.0f * x / side, ci = -1.5f + 3.0f * y / side;
  float zr = 0.0f, zi = 0.0f;
  unsigned i = 0;
  while (i < iterations && zr * zr + zi * zi <= 4.0f) {
    float t = zr * zr - zi * zi + cr;
    zi = 2.0f * zr * zi + ci;
    zr = t;
    i++;
  }
  return (float)i;
}

/* ------------------------------------------------------------------ Weft */

void bench_weft_check(int status, const void *object, const char *call) {
  if (status == WEFT_OK) return;
  bench_die("%s failed: %s\n  %s", call, weft_strerror(status),
            object ? weft_errmsg(object) : "");
}

weft_context *bench_weft_context(void) {
  weft_device *device;
  weft_context *ctx;
  WEFT_CHECK(weft_device_get(0, &device), NULL);
  WEFT_CHECK(weft_context_create(device, &ctx), device);
  return ctx;
}

weft_kernel *bench_weft_kernel(weft_context *ctx, const char *source,
                               const char *options, const char *name) {
  weft_program *program;
  WEFT_CHECK(weft_program_create(ctx, source, 0, &program), ctx);
  int rc = weft_program_build(program, options);
  if (rc != WEFT_OK)
    bench_die("Weft build failed: %s\n%s", weft_strerror(rc),
              weft_program_build_log(program));
  weft_kernel *kernel;
  WEFT_CHECK(weft_kernel_create(program, name, &kernel), program);
  weft_program_release(program);
  return kernel;
}

/* ------------------------------------------- OpenCL platforms; PoCL */

void bench_cl_check(cl_int status, const char *call) {
  if (status != CL_SUCCESS)
    bench_die("%s failed: OpenCL error %d", call, status);
}

static cl_platform_id find_platform(const char *wanted) {
  cl_uint count = 0;
  cl_int rc = clGetPlatformIDs(0, NULL, &count);
  if (rc != CL_SUCCESS || count == 0)
    bench_die("no OpenCL platform (error %d): is pocl-opencl-icd installed?",
              rc);
  cl_platform_id platforms[16];
  if (count > 16) count = 16;
  CL_CHECK(clGetPlatformIDs(count, platforms, NULL));
  for (cl_uint i = 0; i < count; i++) {
    char name[256] = "";
    CL_CHECK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name,
                               name, NULL));
    if (!strcmp(name, wanted)) return platforms[i];
  }
  bench_die("no OpenCL platform is named \"%s\" (OCL_ICD_VENDORS=%s)", wanted,
            getenv("OCL_ICD_VENDORS") ? getenv("OCL_ICD_VENDORS") : "unset");
}

/* Loads PoCL before the ICD loader does, with RTLD_DEEPBIND. Weft links
 * libclang-cpp.so.19, whose C++ symbols carry no version, so it puts
 * clang::* in the process's global scope; PoCL's libclang-cpp.so.15 would
 * then bind its own calls to Clang 19's functions and crash in
 * clBuildProgram. DEEPBIND makes PoCL and its libraries look in their own
 * scope first. When the loader opens PoCL later, it gets this copy. */
static void preload_pocl(void) {
  static const char *const names[] = {"libpocl.so.2", "libpocl.so"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)) return;
  bench_note("cannot preload PoCL (%s): its builds may crash", dlerror());
}

void bench_cl_open(bench_cl *rt, const char *platform, cl_device_type type) {
  cl_int rc;
  if (!strcmp(platform, BENCH_POCL_PLATFORM)) preload_pocl();
  rt->platform = find_platform(platform);
  if (clGetDeviceIDs(rt->platform, type, 1, &rt->device, NULL) != CL_SUCCESS)
    bench_die("the platform \"%s\" has no %s device", platform,
              type == CL_DEVICE_TYPE_GPU ? "GPU" : "CPU");
  rt->context = clCreateContext(NULL, 1, &rt->device, NULL, NULL, &rc);
  bench_cl_check(rc, "clCreateContext");
  rt->queue = clCreateCommandQueueWithProperties(rt->context, rt->device,
                                                 NULL, &rc);
  bench_cl_check(rc, "clCreateCommandQueueWithProperties");
}

void bench_pocl_open(bench_cl *pocl) {
  bench_cl_open(pocl, BENCH_POCL_PLATFORM, CL_DEVICE_TYPE_CPU);
}

void bench_cl_close(bench_cl *rt) {
  clReleaseCommandQueue(rt->queue);
  clReleaseContext(rt->context);
}

cl_program bench_cl_program(bench_cl *rt, const char *source,
                            const char *options) {
  cl_int rc;
  cl_program program =
      clCreateProgramWithSource(rt->context, 1, &source, NULL, &rc);
  bench_cl_check(rc, "clCreateProgramWithSource");
  rc = clBuildProgram(program, 1, &rt->device, options, NULL, NULL);
  if (rc == CL_SUCCESS) return program;
  static char log[16384];
  clGetProgramBuildInfo(program, rt->device, CL_PROGRAM_BUILD_LOG,
                        sizeof log, log, NULL);
  bench_die("the build failed (error %d):\n%s", rc, log);
}

cl_kernel bench_cl_kernel(bench_cl *rt, const char *source,
                          const char *options, const char *name) {
  cl_int rc;
  cl_program program = bench_cl_program(rt, source, options);
  cl_kernel kernel = clCreateKernel(program, name, &rc);
  bench_cl_check(rc, "clCreateKernel");
  /* The kernel holds on to its program. */
  clReleaseProgram(program);
  return kernel;
}

cl_mem bench_cl_buffer(bench_cl *rt, size_t size, cl_mem_flags flags,
                       const void *init) {
  cl_int rc;
  if (init) flags |= CL_MEM_COPY_HOST_PTR;
  cl_mem mem = clCreateBuffer(rt->context, flags, size, (void *)init, &rc);
  bench_cl_check(rc, "clCreateBuffer");
  return mem;
}
