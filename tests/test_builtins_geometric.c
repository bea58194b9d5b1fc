/* test_builtins_geometric.c: the geometric functions of OpenCL C 3.0
 * (6.15.8) for float and double vectors of 1 to 4 components, against long
 * double references, on vectors of ordinary, huge, tiny (subnormal) and
 * mixed magnitudes, zeros, infinities and NaNs. length, distance and
 * normalize must neither overflow nor underflow where the result is
 * representable; the bounds are the conformance suite's, tighter for float
 * where Weft computes in double. */
#include <float.h>
#include <math.h>

#include "builtins_support.h"

#define LANES 3072 /* blocks of 12 lanes: a vector never straddles two */
#define REGION (LANES / 3 * 4 * 8) /* bytes of output per function */

static const int geo_widths[] = {1, 2, 3, 4};

/* A random magnitude 2^lo to 2^hi with a random sign and mantissa. */
static double magnitude(int lo, int hi) {
  uint64_t r = bs_random();
  double v = ldexp(1 + (double)(r >> 12) / 0x1p52, lo + (int)(r % (uint64_t)(hi - lo + 1)));
  return r & 2048 ? -v : v;
}

/* Lanes in blocks of 12, each block one kind of vector. */
static void make_lanes(int is_double, uint64_t *out) {
  int emax = is_double ? 1023 : 127, emin = is_double ? -1074 : -149;
  int nmin = is_double ? -1022 : -126;
  double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0,
                       is_double ? DBL_MAX : FLT_MAX, is_double ? 0x1p-1074 : 0x1p-149};
  for (int l = 0; l < LANES; l++) {
    int kind = (l / 12) % 8;
    uint64_t r = bs_random();
    double v;
    switch (kind) {
    case 0: v = magnitude(-8, 9); break;                    /* ordinary */
    case 1: v = magnitude(emax - 12, emax); break;          /* huge */
    case 2: v = magnitude(emin, nmin + 4); break;           /* tiny */
    case 3: v = r & 1 ? magnitude(emax - 40, emax) : magnitude(emin, nmin + 60); break;
    case 4: v = specials[r % 8]; break;
    case 5: v = r % 3 ? 0.0 : -0.0; break;                  /* zero vectors */
    case 6: v = magnitude(emin, emax); break;               /* anything */
    default: v = r & 1 ? magnitude(emax / 2 - 4, emax / 2 + 4) : magnitude(-2, 2);
    }
    out[l] = bs_to_bits(is_double, v);
  }
}

typedef struct gcase {
  int is_double;
  uint64_t *x, *y;
} gcase;

/* The worst error seen, in ulp, per function: reported, so the margin to
 * each bound is visible in the test log. */
static double worst[8];

static void fail_vector(const char *what, int n, const long double *x,
                        const long double *y, int comp, double got, long double want) {
  char a[256] = "", b[256] = "";
  for (int k = 0; k < n; k++) {
    snprintf(a + strlen(a), sizeof a - strlen(a), " %La", x[k]);
    snprintf(b + strlen(b), sizeof b - strlen(b), " %La", y[k]);
  }
  FAIL("%s of width %d, component %d: x=(%s ) y=(%s ) gave %a, expected %La",
       what, n, comp, a, b, got, want);
}

static void check_geometric(int n, const uint8_t *out, void *data) {
  gcase *c = data;
  int D = c->is_double, bytes = D ? 8 : 4;
  long double eps = D ? DBL_EPSILON : FLT_EPSILON, tiny = D ? 0x1p-1074L : 0x1p-149L;
  long double big = D ? DBL_MAX : FLT_MAX;
  /* The conformance suite's bounds, and Weft's for float (through double). */
  double len_ulps = D ? 3 + 0.5 * (0.5 * n + 0.5 * (n - 1)) : 1;
  double dist_ulps = D ? 3 + 1.5 * n + 0.5 * (n - 1) : 1;
  double norm_ulps = D ? 2.5 + 0.5 * n + 0.5 * (n - 1) : 1;
  double fast_ulps = 8192 + 1.5 * n + 0.5 * (n - 1);
  for (int item = 0; item < LANES / n; item++) {
    long double x[4], y[4], sxx = 0, sdd = 0, dot = 0, maxv = 0, maxx = 0;
    int overflow = 0;
    for (int k = 0; k < n; k++) {
      x[k] = bs_from_bits(D, c->x[item * n + k]);
      y[k] = bs_from_bits(D, c->y[item * n + k]);
      sxx += x[k] * x[k];
      sdd += (x[k] - y[k]) * (x[k] - y[k]);
      dot += x[k] * y[k];
      overflow |= fabsl(x[k] * y[k]) > big;
      maxv = fmaxl(maxv, fmaxl(fabsl(x[k]), fabsl(y[k])));
      maxx = fmaxl(maxx, fabsl(x[k]));
    }
#define SCALAR(f) bs_from_bits(D, bs_get(out + (f) * REGION, bytes, item))
#define VECTOR(f, k) bs_from_bits(D, bs_get(out + (f) * REGION, bytes, bs_slot(item * n + (k), n)))
    /* dot: within (2n - 1) eps of the largest square, unless a product
     * overflows on the way (the specification promises nothing then). */
    double got = SCALAR(0);
    if (overflow) {
    } else if (isnan(dot) || isinf(dot)) {
      if (!(isnan(got) ? isnan(dot) : got == dot)) fail_vector("dot", n, x, y, 0, got, dot);
    } else if (!(isinf(got) && isinf(bs_rounded(D, dot))) &&
               !(fabsl(got - dot) <= maxv * maxv * (2 * n - 1) * eps + n * tiny)) {
      fail_vector("dot", n, x, y, 0, got, dot);
    }
    double e = bs_ulp_error(D, SCALAR(1), sqrtl(sxx));
    worst[1] = fmax(worst[1], e);
    if (!(e <= len_ulps)) fail_vector("length", n, x, y, 0, SCALAR(1), sqrtl(sxx));
    e = bs_ulp_error(D, SCALAR(2), sqrtl(sdd));
    worst[2] = fmax(worst[2], e);
    if (!(e <= dist_ulps)) fail_vector("distance", n, x, y, 0, SCALAR(2), sqrtl(sdd));

    /* normalize: p for a zero vector (signs kept), NaN everywhere for a
     * NaN, infinities as +-1 and the rest as +-0, else p / length. */
    long double p[4], s = sxx;
    int has_nan = 0;
    for (int k = 0; k < n; k++) has_nan |= isnan(x[k]);
    for (int k = 0; k < n; k++) p[k] = x[k];
    if (isinf(maxx) && !has_nan) {
      s = 0;
      for (int k = 0; k < n; k++) {
        p[k] = isinf(x[k]) ? copysignl(1, x[k]) : copysignl(0, x[k]);
        s += p[k] * p[k];
      }
    }
    for (int k = 0; k < n; k++) {
      double g = VECTOR(3, k);
      if (s == 0) {
        if (bs_to_bits(D, g) != bs_to_bits(D, (double)x[k]))
          fail_vector("normalize (zero vector)", n, x, y, k, g, x[k]);
        continue;
      }
      long double w = has_nan ? NAN : p[k] / sqrtl(s);
      e = bs_ulp_error(D, g, w);
      worst[3] = fmax(worst[3], e);
      if (!(e <= norm_ulps)) fail_vector("normalize", n, x, y, k, g, w);
    }

    /* cross: per component within 3 eps of the largest square (the
     * suite's bound), w exactly 0; skipped where a product overflows. */
    if (n >= 3) {
      long double w3[3] = {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                           x[0] * y[1] - x[1] * y[0]};
      int finite = 1;
      for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++) finite &= fabsl(x[k] * y[j]) <= big;
      for (int k = 0; k < 3 && finite; k++) {
        double g = VECTOR(4, k);
        if (!(fabsl(g - w3[k]) <= maxv * maxv * 3 * eps + 2 * tiny))
          fail_vector("cross", n, x, y, k, g, w3[k]);
      }
      if (n == 4 && VECTOR(4, 3) != 0) fail_vector("cross", n, x, y, 3, VECTOR(4, 3), 0);
    }

    /* The fast_ forms are defined while the sums of squares stay within
     * [FLT_MIN, FLT_MAX] (the suite keeps components in 2^-62..2^62). */
    if (!D) {
      if (sxx >= FLT_MIN && sxx <= FLT_MAX) {
        e = bs_ulp_error(0, SCALAR(5), sqrtl(sxx));
        worst[5] = fmax(worst[5], e);
        if (!(e <= fast_ulps)) fail_vector("fast_length", n, x, y, 0, SCALAR(5), sqrtl(sxx));
        for (int k = 0; k < n; k++) {
          double g = VECTOR(7, k);
          e = bs_ulp_error(0, g, x[k] / sqrtl(sxx));
          worst[7] = fmax(worst[7], e);
          if (!(e <= fast_ulps)) fail_vector("fast_normalize", n, x, y, k, g, x[k] / sqrtl(sxx));
        }
      }
      if (sxx == 0)
        for (int k = 0; k < n; k++)
          if (bs_to_bits(0, VECTOR(7, k)) != bs_to_bits(0, (double)x[k]))
            fail_vector("fast_normalize (zero vector)", n, x, y, k, VECTOR(7, k), x[k]);
      if (sdd >= FLT_MIN && sdd <= FLT_MAX) {
        /* x - y rounds to float first, as the spec's formula does. */
        long double sd = 0;
        for (int k = 0; k < n; k++) {
          long double d = (float)(x[k] - y[k]);
          sd += d * d;
        }
        e = bs_ulp_error(0, SCALAR(6), sqrtl(sd));
        worst[6] = fmax(worst[6], e);
        if (!(e <= fast_ulps)) fail_vector("fast_distance", n, x, y, 0, SCALAR(6), sqrtl(sd));
      }
    }
  }
}

static void check_geometric_type(int is_double) {
  static uint64_t x[LANES], y[LANES];
  make_lanes(is_double, x);
  make_lanes(is_double, y);
  const char *F = is_double ? "double" : "float";
  bs_text s = {0};
  for (int n = 1; n <= 4; n++) {
    const char *T = bs_vec(F, n);
    bs_append(&s, "__kernel void k%d(__global const %s *a, __global const %s *b,"
              " __global char *out) {\n  size_t i = get_global_id(0);\n"
              "  %s x = a[i], y = b[i];\n"
              "  ((__global %s *)out)[i] = dot(x, y);\n"
              "  ((__global %s *)(out + %d))[i] = length(x);\n"
              "  ((__global %s *)(out + %d))[i] = distance(x, y);\n"
              "  ((__global %s *)(out + %d))[i] = normalize(x);\n",
              n, T, T, T, F, F, REGION, F, 2 * REGION, T, 3 * REGION);
    if (n >= 3)
      bs_append(&s, "  ((__global %s *)(out + %d))[i] = cross(x, y);\n", T, 4 * REGION);
    if (!is_double)
      bs_append(&s, "  ((__global float *)(out + %d))[i] = fast_length(x);\n"
                "  ((__global float *)(out + %d))[i] = fast_distance(x, y);\n"
                "  ((__global %s *)(out + %d))[i] = fast_normalize(x);\n",
                5 * REGION, 6 * REGION, T, 7 * REGION);
    bs_append(&s, "}\n");
  }
  uint64_t *lanes[2] = {x, y};
  int bytes[2] = {is_double ? 8 : 4, is_double ? 8 : 4};
  gcase c = {is_double, x, y};
  bs_run r = {.source = s.s, .prefix = "k", .widths = geo_widths,
              .num_widths = 4, .lanes = LANES, .nargs = 2, .args = lanes,
              .bytes = bytes, .nout = 8, .region = REGION,
              .check = check_geometric, .data = &c};
  bs_run_widths(&r);
  free(s.s);
  static const char *names[8] = {"dot", "length", "distance", "normalize", "cross",
                                 "fast_length", "fast_distance", "fast_normalize"};
  for (int f = 1; f < 8; f++)
    if (f != 4 && (is_double ? f < 5 : 1))
      printf("%s %s: worst error %.3f ulp\n", F, names[f], worst[f]);
}

TEST(float_geometric_functions) { check_geometric_type(0); }

TEST(double_geometric_functions) { check_geometric_type(1); }

/* A kernel that calls every geometric declaration of the header builds:
 * none is missing from the library. */
TEST(every_declaration_links) {
  bs_text s = {0};
  bs_begin_every_declaration(&s);
  for (int fi = 0; fi < 2; fi++) {
    const char *S = fi ? "double" : "float";
    for (int n = 1; n <= 4; n++) {
      const char *T = bs_vec(S, n);
      bs_append(&s, "  { %s x = *(__global const %s *)in, y = x + 1;\n"
                "    USE(dot(x, y)); USE(distance(x, y)); USE(length(x));\n"
                "    USE(normalize(x));\n", T, T);
      if (n >= 3) bs_append(&s, "    USE(cross(x, y));\n");
      if (!fi)
        bs_append(&s, "    USE(fast_distance(x, y)); USE(fast_length(x));\n"
                  "    USE(fast_normalize(x));\n");
      bs_append(&s, "  }\n");
    }
  }
  bs_append(&s, "}\n");
  bs_build_and_free(&s);
}

TEST_MAIN()
