/* bench_clblast.c: a real client, CLBlast (Debian's libclblast), on Weft
 * and on a peer platform through the same ICD loader: a product of
 * matrices (CLBlastSgemm, row-major, C = A * B), a matrix times a vector
 * both ways (Sgemv, y = A x and A^T x), and four reductions over a long
 * vector (Sdot, Sasum, Snrm2, iSamax).
 *
 * CLBlast picks its kernels' parameters from its database by device; on
 * a CPU it knows nothing of, the defaults: Xgemm in groups of 8 x 16,
 * each work-item a 4 x 2 block of C in private arrays (registers on a
 * GPU) across the barriers of its __local tiles; the reductions' first
 * kernel a grid-stride loop per work-item (`id += WGS1 * num_groups`)
 * before a __local tree. Each runtime's first call of a routine builds
 * CLBlast's program (not timed); then the best of the timed calls, each
 * to clFinish. Every result is checked against the host's (C and y at
 * 256 entries; the dot product is x's with itself, so that every
 * reduction sums positive terms and a lost part shows). Prints "routine,weft_ms,peer_ms,weft_over_peer" (below
 * 1: Weft is faster), and the product's GFLOP/s; exits 1 when one of
 * Weft's results is wrong (a peer's is only said). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h" /* first: it names the OpenCL version CLBlast's
                       headers include */
#include <clblast_c.h>

#define WEFT_PLATFORM "Weft"
#define NVIDIA_PLATFORM "NVIDIA CUDA"

/* Entries of a matrix or vector result checked against the host. */
#define CHECKED 256

typedef enum { SGEMM, SGEMV, SGEMV_T, SDOT, SASUM, SNRM2, ISAMAX, ROUTINES } routine;
static const char *const names[ROUTINES] = {"sgemm", "sgemv", "sgemv_t", "sdot",
                                            "sasum", "snrm2", "isamax"};

/* Whether r works on the matrices (the others reduce a vector). */
static int on_matrices(routine r) { return r == SGEMM || r == SGEMV || r == SGEMV_T; }

/* The host's operands and a result read back. */
typedef struct operands {
  size_t side;    /* the matrices' (sgemm, sgemv) */
  size_t length;  /* the reductions' vectors */
  float *a, *b;   /* side x side; b is also the vectors' x, y */
  float *out;     /* side x side floats at least */
} operands;

/* One call of r on rt's queue, to its end; milliseconds. m holds the
 * device's A, B and the result. */
static double call_once(bench_cl *rt, routine r, const operands *o,
                        const cl_mem m[3]) {
  size_t n = o->side, len = o->length;
  cl_command_queue *q = &rt->queue;
  double start = bench_now_ms();
  CLBlastStatusCode s = CLBlastSuccess;
  switch (r) {
  case SGEMM:
    s = CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo,
                     CLBlastTransposeNo, n, n, n, 1.0f, m[0], 0, n, m[1], 0, n,
                     0.0f, m[2], 0, n, q, NULL);
    break;
  case SGEMV:
  case SGEMV_T:
    s = CLBlastSgemv(CLBlastLayoutRowMajor,
                     r == SGEMV ? CLBlastTransposeNo : CLBlastTransposeYes, n, n,
                     1.0f, m[0], 0, n, m[1], 0, 1, 0.0f, m[2], 0, 1, q, NULL);
    break;
  case SDOT: s = CLBlastSdot(len, m[2], 0, m[0], 0, 1, m[0], 0, 1, q, NULL); break;
  case SASUM: s = CLBlastSasum(len, m[2], 0, m[0], 0, 1, q, NULL); break;
  case SNRM2: s = CLBlastSnrm2(len, m[2], 0, m[0], 0, 1, q, NULL); break;
  case ISAMAX: s = CLBlastiSamax(len, m[2], 0, m[0], 0, 1, q, NULL); break;
  default: break;
  }
  if (s != CLBlastSuccess) {
    bench_note("CLBlast's %s failed with status %d", names[r], (int)s);
    exit(1);
  }
  CL_CHECK(clFinish(*q));
  return bench_now_ms() - start;
}

/* Whether got is want within n terms' rounding of their magnitude. */
static int close_to(double got, double want, double magnitude, size_t n) {
  return fabs(got - want) <= 2.0 * (double)n * FLT_EPSILON * magnitude;
}

/* Whether a reduction's got is want (a sum of positive terms) within
 * the float rounding of sums in any order: a part left out (a group's,
 * a work-item's) is more. */
static int sum_close_to(double got, double want) {
  return fabs(got - want) <= 1e-4 * want;
}

/* Entry (i, j) of A B (sgemm), or entry i of A x (sgemv) or A^T x
 * (sgemv_t): whether got is right. */
static int entry_right(const operands *o, routine r, size_t i, size_t j,
                       float got) {
  size_t n = o->side;
  double sum = 0.0, magnitude = 0.0;
  for (size_t k = 0; k < n; k++) {
    double a = r == SGEMV_T ? o->a[k * n + i] : o->a[i * n + k];
    double term = a * (r == SGEMM ? o->b[k * n + j] : o->b[k]);
    sum += term;
    magnitude += fabs(term);
  }
  return close_to(got, sum, magnitude, n);
}

/* Whether the result of r read back into o->out is the host's. */
static int result_right(routine r, const operands *o) {
  size_t n = o->side, len = o->length;
  const float *x = o->a;
  if (on_matrices(r)) {
    for (size_t s = 0; s < CHECKED; s++) {
      size_t i = s * 7919 % n, j = s * 104729 % n;
      float got = r == SGEMM ? o->out[i * n + j] : o->out[i];
      if (!entry_right(o, r, i, j, got)) return 0;
    }
    return 1;
  }
  double sum = 0.0;
  size_t best = 0;
  for (size_t i = 0; i < len; i++) {
    sum += r == SASUM ? fabs((double)x[i]) : (double)x[i] * x[i];
    if (fabsf(x[i]) > fabsf(x[best])) best = i;
  }
  if (r == ISAMAX) {
    unsigned got;
    memcpy(&got, o->out, sizeof got);
    return got < len && fabsf(x[got]) == fabsf(x[best]);
  }
  double got = o->out[0];
  return sum_close_to(r == SNRM2 ? got * got : got, sum);
}

/* The best of reps timed calls of r on rt, after one untimed; the result
 * read back into o->out and checked. */
static double time_routine(bench_cl *rt, const char *who, routine r,
                           operands *o, int reps, int *right) {
  int matrix = on_matrices(r);
  size_t count = matrix ? o->side * o->side : o->length;
  size_t out = (r == SGEMM ? count : matrix ? o->side : 1) * sizeof(float);
  cl_mem m[3] = {
      bench_cl_buffer(rt, count * sizeof(float), CL_MEM_READ_ONLY, o->a),
      bench_cl_buffer(rt, count * sizeof(float), CL_MEM_READ_ONLY, o->b),
      bench_cl_buffer(rt, out, CL_MEM_READ_WRITE, NULL)};
  call_once(rt, r, o, m);
  double best = INFINITY;
  for (int k = 0; k < reps; k++) {
    double ms = call_once(rt, r, o, m);
    if (ms < best) best = ms;
  }
  CL_CHECK(clEnqueueReadBuffer(rt->queue, m[2], CL_TRUE, 0, out, o->out, 0,
                               NULL, NULL));
  *right = result_right(r, o);
  if (!*right) bench_note("%s: CLBlast's %s differs from the host's", who,
                          names[r]);
  for (int k = 0; k < 3; k++) clReleaseMemObject(m[k]);
  return best;
}

int main(int argc, char **argv) {
  bench_options options;
  bench_parse_options(argc, argv, &options);
  cl_device_type type = options.gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_CPU;
  const char *peer = options.peer ? options.peer
                     : options.gpu ? NVIDIA_PLATFORM
                                   : BENCH_POCL_PLATFORM;
  setenv("OCL_ICD_VENDORS", WEFT_ICD_POCL_DIR, 0);
  operands o = {.side = options.quick ? 128 : options.gpu ? 4096 : 1024,
                .length = options.quick ? (size_t)1 << 16 : (size_t)1 << 24};
  int reps = options.quick ? 2 : 5;
  size_t count = o.side * o.side > o.length ? o.side * o.side : o.length;
  o.a = bench_alloc(count * sizeof *o.a);
  o.b = bench_alloc(count * sizeof *o.b);
  o.out = bench_alloc(count * sizeof *o.out);
  bench_random_floats(o.a, count, 21, -1.0f, 1.0f);
  bench_random_floats(o.b, count, 22, -1.0f, 1.0f);
  /* The peer first: PoCL must be the first platform opened (common.h). */
  bench_cl rts[2] = {{0}};
  bench_cl_open(&rts[1], peer, type);
  bench_cl_open(&rts[0], WEFT_PLATFORM, type);
  bench_note("CLBlast: matrices %zu x %zu, vectors of %zu; Weft beside \"%s\" "
             "on the %s", o.side, o.side, o.length, peer,
             options.gpu ? "GPU" : "CPU");
  bench_csv_open(options.csv_path, "routine,weft_ms,peer_ms,weft_over_peer", 1);
  int weft_right = 1;
  for (routine r = 0; r < ROUTINES; r++) {
    int right[2];
    double ms[2];
    ms[1] = time_routine(&rts[1], peer, r, &o, reps, &right[1]);
    ms[0] = time_routine(&rts[0], WEFT_PLATFORM, r, &o, reps, &right[0]);
    weft_right = weft_right && right[0];
    bench_csv_line("%s,%.6g,%.6g,%.3f", names[r], ms[0], ms[1], ms[0] / ms[1]);
    if (r == SGEMM) {
      double flops = 2.0 * (double)o.side * (double)o.side * (double)o.side;
      bench_note("sgemm GFLOP/s: Weft %.1f, %s %.1f", flops / ms[0] * 1e-6,
                 peer, flops / ms[1] * 1e-6);
    }
  }
  bench_csv_close();
  for (int k = 0; k < 2; k++) bench_cl_close(&rts[k]);
  free(o.a);
  free(o.b);
  free(o.out);
  return weft_right ? 0 : 1;
}
