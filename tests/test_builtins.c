/* test_builtins.c: the builtins the foundation provides, against the host's
 * libm and plain C, in scalar and vector forms. (The complete library, with
 * the specification's ULP bounds, has its own suite.) */
#include <float.h>
#include <math.h>

#include "support.h"

#define N 256

/* Runs kernel "k" with in[N] = inputs and reads out[N * per_item] back. */
static void run(const char *source, const char *options, const float *in,
                float *out, size_t per_item) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *bin = support_buffer(ctx, N * sizeof(float), in);
  weft_buffer *bout = support_buffer(ctx, N * per_item * sizeof(float), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bin), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bout), k);
  size_t global = N;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  CHECK_OK(weft_buffer_read(bout, 0, N * per_item * sizeof(float), out), bout);
  weft_buffer_release(bin);
  weft_buffer_release(bout);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* Relative error in units of float epsilon, 0 for equal values. */
static double ulps(double got, double want) {
  if (got == want || (isnan(got) && isnan(want))) return 0;
  double scale = fabs(want) > 1e-30 ? fabs(want) : 1e-30;
  return fabs(got - want) / scale / FLT_EPSILON;
}

static void inputs(float *in) {
  for (int i = 0; i < N; i++) in[i] = (float)(i - N / 2) * 0.173f + 0.01f;
}

TEST(math_scalar) {
  static const char *source =
      "__kernel void k(__global const float *in, __global float *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  float x = in[i], a = fabs(x);\n"
      "  __global float *o = out + 12 * i;\n"
      "  o[0] = sqrt(a); o[1] = exp(x * 0.1f); o[2] = log(a + 1.0f);\n"
      "  o[3] = sin(x); o[4] = cos(x); o[5] = pow(a, 1.5f);\n"
      "  o[6] = floor(x); o[7] = ceil(x); o[8] = fma(x, x, 1.0f);\n"
      "  o[9] = rsqrt(a + 1.0f); o[10] = fmin(x, 0.5f); o[11] = tan(x * 0.1f);\n"
      "}\n";
  float in[N], out[N * 12];
  inputs(in);
  run(source, NULL, in, out, 12);
  for (int i = 0; i < N; i++) {
    float x = in[i], a = fabsf(x);
    double want[12] = {sqrt(a), exp(x * 0.1f), log(a + 1.0f), sin(x), cos(x),
                       pow(a, 1.5), floor(x), ceil(x), fma(x, x, 1.0),
                       1 / sqrt(a + 1.0), fmin(x, 0.5), tan(x * 0.1f)};
    for (int f = 0; f < 12; f++)
      if (ulps(out[12 * i + f], want[f]) > 4)
        FAIL("function %d of x=%g: %.9g, expected %.9g", f, x, out[12 * i + f],
             want[f]);
  }
}

TEST(math_vector_matches_scalar) {
  static const char *source =
      "__kernel void k(__global const float *in, __global float *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  float x = in[i];\n"
      "  float4 v = (float4)(x, x + 1.0f, x - 2.0f, -x);\n"
      "  float4 r = sin(v) + sqrt(fabs(v)) * exp(v * 0.01f);\n"
      "  float8 w = (float8)(v, v * 2.0f);\n"
      "  float8 m = clamp(w, -3.0f, 3.0f);\n"
      "  out[4 * i] = r.x + r.y + r.z + r.w;\n"
      "  out[4 * i + 1] = m.s0 + m.s5 + m.s7;\n"
      "  out[4 * i + 2] = dot(v, (float4)(1, 2, 3, 4)) + length(v.xyz);\n"
      "  out[4 * i + 3] = mix(x, 2.0f * x, 0.25f) + step(0.0f, x) + sign(x);\n"
      "}\n";
  float in[N], out[N * 4];
  inputs(in);
  run(source, NULL, in, out, 4);
  for (int i = 0; i < N; i++) {
    float x = in[i], v[4] = {x, x + 1, x - 2, -x};
    double r = 0, m = 0, d = 0, len = 0;
    for (int c = 0; c < 4; c++) r += sinf(v[c]) + sqrtf(fabsf(v[c])) * expf(v[c] * 0.01f);
    float w[8] = {v[0], v[1], v[2], v[3], 2 * v[0], 2 * v[1], 2 * v[2], 2 * v[3]};
    int picks[3] = {0, 5, 7};
    for (int c = 0; c < 3; c++) m += fminf(fmaxf(w[picks[c]], -3), 3);
    for (int c = 0; c < 4; c++) d += v[c] * (c + 1);
    for (int c = 0; c < 3; c++) len += v[c] * v[c];
    double s = (x + (2 * x - x) * 0.25) + (x >= 0) + (x > 0) - (x < 0);
    double want[4] = {r, m, d + sqrt(len), s};
    for (int f = 0; f < 4; f++)
      if (fabs(out[4 * i + f] - want[f]) > 1e-4 * (1 + fabs(want[f])))
        FAIL("value %d of x=%g: %.9g, expected %.9g", f, x, out[4 * i + f], want[f]);
  }
}

TEST(integer_and_relational) {
  static const char *source =
      "__kernel void k(__global const float *in, __global float *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  int n = (int)(in[i] * 10.0f);\n"
      "  int4 v = (int4)(n, -n, n * 3, 7);\n"
      "  int4 c = clamp(v, -20, 20);\n"
      "  out[6 * i] = (float)(c.x + c.y + c.z + c.w);\n"
      "  out[6 * i + 1] = (float)abs(n);\n"
      "  out[6 * i + 2] = (float)(max(n, 3) + min(n, -3));\n"
      "  out[6 * i + 3] = (float)mad24(n, 3, 1);\n"
      "  float4 f = (float4)(in[i], 1.0f / 0.0f, 0.0f / 0.0f, 1.0f);\n"
      "  int4 t = isnan(f) + 2 * isinf(f) + 4 * isfinite(f);\n"
      "  out[6 * i + 4] = (float)(t.x * 1000 + t.y * 100 + t.z * 10 + t.w);\n"
      "  out[6 * i + 5] = (float)(isnan(in[i]) + 2 * isfinite(in[i]));\n"
      "}\n";
  float in[N], out[N * 6];
  inputs(in);
  run(source, NULL, in, out, 6);
  for (int i = 0; i < N; i++) {
    int n = (int)(in[i] * 10.0f);
    int v[4] = {n, -n, n * 3, 7}, sum = 0;
    for (int c = 0; c < 4; c++) sum += v[c] < -20 ? -20 : v[c] > 20 ? 20 : v[c];
    CHECK_EQ(out[6 * i], sum);
    CHECK_EQ(out[6 * i + 1], abs(n));
    CHECK_EQ(out[6 * i + 2], (n > 3 ? n : 3) + (n < -3 ? n : -3));
    CHECK_EQ(out[6 * i + 3], n * 3 + 1);
    /* Vector tests give -1 for true: finite -4, inf -2, nan -1, finite -4. */
    CHECK_EQ(out[6 * i + 4], -4 * 1000 - 2 * 100 - 1 * 10 - 4);
    CHECK_EQ(out[6 * i + 5], 2); /* scalar tests give 1 */
  }
}

/* -cl-fast-relaxed-math may lose accuracy, but not correctness. */
TEST(fast_relaxed_math) {
  static const char *source =
      "__kernel void k(__global const float *in, __global float *out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  out[i] = native_sqrt(fabs(in[i])) + native_divide(in[i], 3.0f);\n"
      "}\n";
  float in[N], out[N];
  inputs(in);
  run(source, "-cl-fast-relaxed-math", in, out, 1);
  for (int i = 0; i < N; i++) {
    double want = sqrt(fabs(in[i])) + in[i] / 3.0;
    CHECK(fabs(out[i] - want) < 1e-4 * (1 + fabs(want)));
  }
}

TEST_MAIN()
