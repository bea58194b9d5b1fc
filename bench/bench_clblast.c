/* bench_clblast.c: a real client, CLBlast (Debian's libclblast), on Weft
 * and on a peer platform through the same ICD loader: CLBlastSgemm, a
 * row-major n x n product, C = A * B.
 *
 * CLBlast picks its kernels' parameters from its database by device; on
 * a CPU it knows nothing of, the defaults: Xgemm in groups of 8 x 16,
 * each work-item a 4 x 2 block of C in private arrays (registers on a
 * GPU) across the barriers of its __local tiles. Each runtime's first
 * call builds CLBlast's program (not timed); then the best of the timed
 * calls, each to clFinish. 256 entries of C are checked against the
 * host's sums. Prints "routine,weft_ms,peer_ms,weft_over_peer" (below 1:
 * Weft is faster) and each side's GFLOP/s. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h" /* first: it names the OpenCL version CLBlast's
                       headers include */
#include <clblast_c.h>

#define WEFT_PLATFORM "Weft"
#define NVIDIA_PLATFORM "NVIDIA CUDA"

/* Entries of C checked against the host. */
#define CHECKED 256

typedef struct product {
  size_t n;
  float *a, *b, *c;
} product;

/* One CLBlastSgemm on rt's queue, to its end; milliseconds. */
static double sgemm_once(bench_cl *rt, size_t n, cl_mem a, cl_mem b,
                         cl_mem c) {
  double start = bench_now_ms();
  CLBlastStatusCode s = CLBlastSgemm(
      CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
      1.0f, a, 0, n, b, 0, n, 0.0f, c, 0, n, &rt->queue, NULL);
  if (s != CLBlastSuccess) {
    bench_note("CLBlastSgemm failed with status %d", (int)s);
    exit(1);
  }
  CL_CHECK(clFinish(rt->queue));
  return bench_now_ms() - start;
}

/* Whether the sampled entries of p->c are A * B's within rounding. */
static int product_right(const char *who, const product *p) {
  size_t n = p->n, bad = 0;
  for (size_t s = 0; s < CHECKED; s++) {
    size_t i = s * 7919 % n, j = s * 104729 % n;
    double sum = 0.0, magnitude = 0.0;
    for (size_t k = 0; k < n; k++) {
      double term = (double)p->a[i * n + k] * p->b[k * n + j];
      sum += term;
      magnitude += fabs(term);
    }
    double got = p->c[i * n + j];
    if (!(fabs(got - sum) <= 2.0 * (double)n * FLT_EPSILON * magnitude)) {
      if (!bad)
        bench_note("%s: C[%zu][%zu] = %g, the host's %g", who, i, j, got, sum);
      bad++;
    }
  }
  return bad == 0;
}

/* The best of reps timed calls on rt, after one untimed; the product
 * read back into p->c. */
static double time_sgemm(bench_cl *rt, const char *who, product *p, int reps,
                         int *right) {
  size_t bytes = p->n * p->n * sizeof(float);
  cl_mem a = bench_cl_buffer(rt, bytes, CL_MEM_READ_ONLY, p->a);
  cl_mem b = bench_cl_buffer(rt, bytes, CL_MEM_READ_ONLY, p->b);
  cl_mem c = bench_cl_buffer(rt, bytes, CL_MEM_READ_WRITE, NULL);
  sgemm_once(rt, p->n, a, b, c);
  double best = INFINITY;
  for (int r = 0; r < reps; r++) {
    double ms = sgemm_once(rt, p->n, a, b, c);
    if (ms < best) best = ms;
  }
  CL_CHECK(clEnqueueReadBuffer(rt->queue, c, CL_TRUE, 0, bytes, p->c, 0, NULL,
                               NULL));
  *right = product_right(who, p);
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
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
  product p = {.n = options.quick ? 128 : options.gpu ? 4096 : 1024};
  int reps = options.quick ? 2 : 5;
  size_t count = p.n * p.n;
  p.a = bench_alloc(count * sizeof *p.a);
  p.b = bench_alloc(count * sizeof *p.b);
  p.c = bench_alloc(count * sizeof *p.c);
  bench_random_floats(p.a, count, 21, -1.0f, 1.0f);
  bench_random_floats(p.b, count, 22, -1.0f, 1.0f);
  /* The peer first: PoCL must be the first platform opened (common.h). */
  bench_cl rts[2] = {{0}};
  bench_cl_open(&rts[1], peer, type);
  bench_cl_open(&rts[0], WEFT_PLATFORM, type);
  bench_note("CLBlastSgemm %zu x %zu, Weft beside \"%s\" on the %s", p.n, p.n,
             peer, options.gpu ? "GPU" : "CPU");
  int right[2];
  double ms[2];
  ms[1] = time_sgemm(&rts[1], peer, &p, reps, &right[1]);
  ms[0] = time_sgemm(&rts[0], WEFT_PLATFORM, &p, reps, &right[0]);
  double flops = 2.0 * (double)p.n * (double)p.n * (double)p.n;
  bench_note("GFLOP/s: Weft %.1f, %s %.1f", flops / ms[0] * 1e-6, peer,
             flops / ms[1] * 1e-6);
  bench_csv_open(options.csv_path, "routine,weft_ms,peer_ms,weft_over_peer", 1);
  bench_csv_line("sgemm,%.6g,%.6g,%.3f", ms[0], ms[1], ms[0] / ms[1]);
  bench_csv_close();
  for (int r = 0; r < 2; r++) bench_cl_close(&rts[r]);
  free(p.a);
  free(p.b);
  free(p.c);
  return right[0] && right[1] ? 0 : 1;
}
