/*
 * test_math_accuracy.c: the math builtins (OpenCL C 3.0, 6.15.2-3) against
 * MPFR, in float and double, at every vector width.
 *
 * One program per type holds a kernel per width; each kernel computes every
 * function of the table below on that function's inputs (edge cases, then
 * pseudo-random values over all bit patterns and over a range of its own).
 * Every width gets the same inputs, and each result is checked against the
 * infinitely precise value (MPFR, 128 bits) with the specification's bound
 * in ulps (7.4), or bit for bit where the function is exact. Results that
 * the reference gives as exactly zero or infinite, and NaNs, must match
 * exactly (zeros with their sign), as 7.5 asks of prescribed special cases.
 * The worst error of each function is printed.
 *
 * Other tests here: the relaxed bounds under -cl-fast-relaxed-math, 7.5's
 * special cases one by one, pointer arguments in every address space, and a
 * kernel that calls every math declaration of opencl-c.h.
 */
#include <ctype.h>
#include <float.h>
#include <stdarg.h>
#include <math.h>
#include <stdint.h> /* before mpfr.h, for mpfr_pown */
#include <mpfr.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* ---------------------------------------------------------------- table */

enum kind {
  F1,  /* T f(T) */
  F2,  /* T f(T, T) */
  F3,  /* T f(T, T, T) */
  FI,  /* T f(T, intn) */
  FP,  /* T f(T, T *) */
  FIP, /* T f(T, intn *) */
  RQ,  /* T remquo(T, T, intn *) */
  IL,  /* intn ilogb(T) */
};

#define EXACT -1.0 /* the correctly rounded result, bit for bit */
#define NONE -2.0  /* no such function for the type */

/* How a float function is held under -cl-fast-relaxed-math (7.4's third
 * table); functions it does not list keep their full bound. */
enum relaxed {
  R_FULL,   /* the full profile's bound */
  R_4096,   /* 4096 ulp */
  R_8192,   /* derived functions, or non-derived ones at 8192 ulp */
  R_ABS_PI, /* absolute error 2^-11 on [-pi, pi], nothing asked outside */
  R_ABS_1,  /* absolute error 2^-11 on [-1, 1], nothing asked outside */
  R_EXP,    /* 3 + floor(|2x|) ulp */
  R_LOG,    /* absolute error 2^-21 on [0.5, 2], 3 ulp elsewhere */
};

/* X(name, kind, float bound, double bound, random range of the first
 * argument, of the second (F2, F3, RQ) or of n (FI), relaxed rule). */
#define FUNCTIONS(X)                                                         \
  X(acos, F1, 4, 4, -1, 1, 0, 0, R_4096)                                     \
  X(acosh, F1, 4, 4, 1, 1e4, 0, 0, R_8192)                                   \
  X(acospi, F1, 5, 5, -1, 1, 0, 0, R_8192)                                   \
  X(asin, F1, 4, 4, -1, 1, 0, 0, R_4096)                                     \
  X(asinh, F1, 4, 4, -1e4, 1e4, 0, 0, R_8192)                                \
  X(asinpi, F1, 5, 5, -1, 1, 0, 0, R_8192)                                   \
  X(atan, F1, 5, 5, -1e3, 1e3, 0, 0, R_4096)                                 \
  X(atan2, F2, 6, 6, -1e3, 1e3, -1e3, 1e3, R_8192)                           \
  X(atanh, F1, 5, 5, -1, 1, 0, 0, R_FULL)                                    \
  X(atanpi, F1, 5, 5, -1e3, 1e3, 0, 0, R_8192)                               \
  X(atan2pi, F2, 6, 6, -1e3, 1e3, -1e3, 1e3, R_8192)                         \
  X(cbrt, F1, 2, 2, -1e6, 1e6, 0, 0, R_8192)                                 \
  X(ceil, F1, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                         \
  X(copysign, F2, EXACT, EXACT, -1e3, 1e3, -1, 1, R_FULL)                    \
  X(cos, F1, 4, 4, -1e4, 1e4, 0, 0, R_ABS_PI)                                \
  X(cosh, F1, 4, 4, -90, 90, 0, 0, R_8192)                                   \
  X(cospi, F1, 4, 4, -1e3, 1e3, 0, 0, R_ABS_1)                               \
  X(erfc, F1, 16, 16, -5, 30, 0, 0, R_FULL)                                  \
  X(erf, F1, 16, 16, -6, 6, 0, 0, R_FULL)                                    \
  X(exp, F1, 3, 3, -105, 90, 0, 0, R_EXP)                                    \
  X(exp2, F1, 3, 3, -150, 130, 0, 0, R_EXP)                                  \
  X(exp10, F1, 3, 3, -46, 39, 0, 0, R_8192)                                  \
  X(expm1, F1, 3, 3, -20, 90, 0, 0, R_8192)                                  \
  X(fabs, F1, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                         \
  X(fdim, F2, EXACT, EXACT, -1e3, 1e3, -1e3, 1e3, R_FULL)                    \
  X(floor, F1, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                        \
  X(fma, F3, EXACT, EXACT, -1e3, 1e3, -1e3, 1e3, R_FULL)                     \
  X(fmax, F2, EXACT, EXACT, -1e3, 1e3, -1e3, 1e3, R_FULL)                    \
  X(fmin, F2, EXACT, EXACT, -1e3, 1e3, -1e3, 1e3, R_FULL)                    \
  X(fmod, F2, EXACT, EXACT, -1e6, 1e6, -100, 100, R_FULL)                    \
  X(fract, FP, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                        \
  X(frexp, FIP, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                       \
  X(hypot, F2, 4, 4, -1e10, 1e10, -1e10, 1e10, R_FULL)                       \
  X(ilogb, IL, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                        \
  X(ldexp, FI, EXACT, EXACT, -1e3, 1e3, -1200, 1200, R_FULL)                 \
  X(lgamma, F1, 1e9, 1e9, -60, 60, 0, 0, R_FULL)                             \
  X(lgamma_r, FIP, 1e9, 1e9, -60, 60, 0, 0, R_FULL)                          \
  X(log, F1, 3, 3, 0, 1e6, 0, 0, R_LOG)                                      \
  X(log2, F1, 3, 3, 0, 1e6, 0, 0, R_LOG)                                     \
  X(log10, F1, 3, 3, 0, 1e6, 0, 0, R_LOG)                                    \
  X(log1p, F1, 2, 2, -1, 1e3, 0, 0, R_8192)                                  \
  X(logb, F1, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                         \
  X(mad, F3, EXACT, EXACT, -1e3, 1e3, -1e3, 1e3, R_FULL)                     \
  X(maxmag, F2, EXACT, EXACT, -1e3, 1e3, -1e3, 1e3, R_FULL)                  \
  X(minmag, F2, EXACT, EXACT, -1e3, 1e3, -1e3, 1e3, R_FULL)                  \
  X(modf, FP, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                         \
  X(nextafter, F2, EXACT, EXACT, -1e3, 1e3, -1e3, 1e3, R_FULL)               \
  X(pow, F2, 16, 16, 0, 100, -20, 20, R_8192)                                \
  X(pown, FI, 16, 16, -10, 10, -40, 40, R_8192)                              \
  X(powr, F2, 16, 16, 0, 100, -20, 20, R_8192)                               \
  X(remainder, F2, EXACT, EXACT, -1e6, 1e6, -100, 100, R_FULL)               \
  X(remquo, RQ, EXACT, EXACT, -1e6, 1e6, -100, 100, R_FULL)                  \
  X(rint, F1, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                         \
  X(rootn, FI, 16, 16, -1e6, 1e6, -20, 20, R_8192)                           \
  X(round, F1, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                        \
  X(rsqrt, F1, 2, 2, 0, 1e6, 0, 0, R_FULL)                                   \
  X(sin, F1, 4, 4, -1e4, 1e4, 0, 0, R_ABS_PI)                                \
  X(sincos, FP, 4, 4, -1e4, 1e4, 0, 0, R_ABS_PI)                             \
  X(sinh, F1, 4, 4, -90, 90, 0, 0, R_8192)                                   \
  X(sinpi, F1, 4, 4, -1e3, 1e3, 0, 0, R_ABS_1)                               \
  X(sqrt, F1, EXACT, EXACT, 0, 1e6, 0, 0, R_FULL)                            \
  X(tan, F1, 5, 5, -1e4, 1e4, 0, 0, R_8192)                                  \
  X(tanh, F1, 5, 5, -20, 20, 0, 0, R_FULL)                                   \
  X(tanpi, F1, 6, 6, -1e3, 1e3, 0, 0, R_8192)                                \
  X(tgamma, F1, 16, 16, -40, 40, 0, 0, R_FULL)                               \
  X(trunc, F1, EXACT, EXACT, -1e3, 1e3, 0, 0, R_FULL)                        \
  HALF_NATIVE(X, half)                                                       \
  HALF_NATIVE(X, native)

/* half_ functions: 8192 ulp on their domains (6.15.3); native_ ones have
 * an implementation-defined accuracy, held here to the same. */
#define HALF_NATIVE(X, p)                                                    \
  X(p##_cos, F1, 8192, NONE, -65536, 65536, 0, 0, R_FULL)                    \
  X(p##_divide, F2, 8192, NONE, -1e3, 1e3, -1e3, 1e3, R_FULL)                \
  X(p##_exp, F1, 8192, NONE, -105, 90, 0, 0, R_FULL)                         \
  X(p##_exp2, F1, 8192, NONE, -150, 130, 0, 0, R_FULL)                       \
  X(p##_exp10, F1, 8192, NONE, -46, 39, 0, 0, R_FULL)                        \
  X(p##_log, F1, 8192, NONE, 0, 1e6, 0, 0, R_FULL)                           \
  X(p##_log2, F1, 8192, NONE, 0, 1e6, 0, 0, R_FULL)                          \
  X(p##_log10, F1, 8192, NONE, 0, 1e6, 0, 0, R_FULL)                         \
  X(p##_powr, F2, 8192, NONE, 0, 100, -20, 20, R_FULL)                       \
  X(p##_recip, F1, 8192, NONE, -1e3, 1e3, 0, 0, R_FULL)                      \
  X(p##_rsqrt, F1, 8192, NONE, 0, 1e6, 0, 0, R_FULL)                         \
  X(p##_sin, F1, 8192, NONE, -65536, 65536, 0, 0, R_FULL)                    \
  X(p##_sqrt, F1, 8192, NONE, 0, 1e6, 0, 0, R_FULL)                          \
  X(p##_tan, F1, 8192, NONE, -65536, 65536, 0, 0, R_FULL)

#define AS_ID(name, ...) FN_##name,
enum fn_id { FUNCTIONS(AS_ID) NUM_FUNCTIONS };

typedef struct fn {
  const char *name;
  enum kind kind;
  double bound[2]; /* float, double */
  double lo, hi, lo2, hi2;
  enum relaxed relaxed;
} fn;

#define AS_ROW(name, kind, bf, bd, lo, hi, lo2, hi2, relaxed)                \
  {#name, kind, {bf, bd}, lo, hi, lo2, hi2, relaxed},
static const fn functions[NUM_FUNCTIONS] = {FUNCTIONS(AS_ROW)};

static int has_arg2(enum kind k) { return k == F2 || k == F3 || k == RQ; }
static int has_out2(enum kind k) { return k == FP; }

/* Functions whose inputs stay inside [lo, hi] (beyond the edge cases):
 * half_ functions are only defined there. */
static int limited_domain(int id) { return !strncmp(functions[id].name, "half_", 5); }

/* fmin, fmax, maxmag and minmag may return either zero of +-0 (C99 F.9.9);
 * so may everything under -cl-fast-relaxed-math (-cl-no-signed-zeros). */
static int zero_sign_free(int id) {
  return id == FN_fmin || id == FN_fmax || id == FN_maxmag || id == FN_minmag;
}

/* -------------------------------------------------------------- formats */

typedef struct format {
  int is_double;
  const char *type; /* "float" or "double" */
  int bits;         /* significand bits */
  int emin, emax;   /* MPFR exponents (x = m 2^e, 0.5 <= m < 1) of the
                       smallest subnormal and the largest finite value */
  size_t size;
} format;

static const format formats[2] = {
    {0, "float", 24, -148, 128, sizeof(float)},
    {1, "double", 53, -1073, 1024, sizeof(double)},
};

/* Rounds to the format (for inputs: they must be representable). */
static double to_format(const format *f, double x) {
  return f->is_double ? x : (double)(float)x;
}

/* --------------------------------------------------------------- inputs */

static uint64_t rng_state;
static uint64_t next_random(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1DULL;
}

/* A value of any bit pattern (NaNs and infinities included). */
static double random_bits(const format *f) {
  uint64_t r = next_random();
  if (f->is_double) {
    double d;
    memcpy(&d, &r, sizeof d);
    return d;
  }
  uint32_t u = (uint32_t)(r >> 32);
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

static double random_in(const format *f, double lo, double hi) {
  double u = (double)(next_random() >> 11) / 9007199254740992.0;
  return to_format(f, lo + (hi - lo) * u);
}

/* The edge cases of one argument. */
static size_t edge_values(const format *f, double *v) {
  double pi = 3.14159265358979323846;
  double base[] = {0, 1, 0.5, 2, 3, 1.5, 2.5, 10, 100, 1e10, 1e20, 1e30, 1e-10,
                   pi / 4, pi / 2, pi, 3 * pi / 2, 2 * pi, 5 * pi / 2, 1e5 * pi,
                   88.72, 89, 103.5, 150, 709.78, 711, 1e38, 0x1p100, 0x1p-60,
                   /* where float log (SLEEF's 3.5-ulp form) errs most */
                   0x1.21bd82p+0,
                   /* where tgamma is subnormal (SLEEF's erred there) */
                   35.999, 36.75, 40.5, 44.25, 170.5, 171.0187, 171.999875,
                   175.25, 180.5,
                   183.75};
  size_t n = 0;
  for (size_t i = 0; i < sizeof base / sizeof *base; i++) {
    v[n++] = to_format(f, base[i]);
    v[n++] = -to_format(f, base[i]);
  }
  double tiny = f->is_double ? 0x1p-1074 : 0x1p-149;
  double min = f->is_double ? DBL_MIN : FLT_MIN;
  double max = f->is_double ? DBL_MAX : FLT_MAX;
  double one_up = f->is_double ? nextafter(1.0, 2.0) : nextafterf(1.0f, 2.0f);
  double one_down = f->is_double ? nextafter(1.0, 0.0) : nextafterf(1.0f, 0.0f);
  double more[] = {tiny, min - tiny, min, max, INFINITY, one_up, one_down};
  for (size_t i = 0; i < sizeof more / sizeof *more; i++) {
    v[n++] = more[i];
    v[n++] = -more[i];
  }
  v[n++] = NAN;
  return n;
}

/* Fewer edge cases, for the cross products of two arguments. */
static size_t edge_values_short(const format *f, double *v) {
  double tiny = f->is_double ? 0x1p-1074 : 0x1p-149;
  double min = f->is_double ? DBL_MIN : FLT_MIN;
  double max = f->is_double ? DBL_MAX : FLT_MAX;
  double base[] = {0, tiny, min, 0.5, 1, 1.5, 2, 3, 10, 1e10, max, INFINITY};
  size_t n = 0;
  for (size_t i = 0; i < sizeof base / sizeof *base; i++) {
    v[n++] = base[i];
    v[n++] = -base[i];
  }
  v[n++] = NAN;
  return n;
}

static const int edge_ints[] = {0, 1, -1, 2, -2, 3, -3, 4, 5, -5, 7, 64, -64,
                                200, -200, 2000, -2000, INT32_MAX, INT32_MIN};
#define NUM_EDGE_INTS (sizeof edge_ints / sizeof *edge_ints)

/* The inputs of every function: n of each argument. */
typedef struct inputs {
  size_t n;
  double *a[NUM_FUNCTIONS], *b[NUM_FUNCTIONS], *c[NUM_FUNCTIONS];
  int *k[NUM_FUNCTIONS];
} inputs;

static void fill_random(const format *f, const fn *d, double *a, double *b,
                        double *c, int *k, size_t from, size_t n, int limited) {
  for (size_t i = from; i < n; i++) {
    int bits = !limited && i % 4 == 0; /* a quarter of any bit pattern */
    a[i] = bits ? random_bits(f) : random_in(f, d->lo, d->hi);
    b[i] = bits && i % 8 ? random_bits(f) : random_in(f, d->lo2, d->hi2);
    c[i] = i % 3 ? random_in(f, d->lo2, d->hi2) : random_bits(f);
    k[i] = (int)floor(d->lo2 + (d->hi2 - d->lo2) *
                                   ((double)(next_random() >> 11) / 0x1p53));
    if (limited && !(a[i] >= d->lo && a[i] <= d->hi)) a[i] = 0;
  }
}

/* Edge cases first: alone, in pairs (two arguments), with edge integers. */
static size_t fill_edges(const format *f, const fn *d, double *a, double *b,
                         double *c, int *k, size_t n) {
  double one[160], two[64];
  size_t n1 = edge_values(f, one), n2 = edge_values_short(f, two), m = 0;
  if (d->kind == F1 || d->kind == FP || d->kind == FIP || d->kind == IL) {
    for (size_t i = 0; i < n1 && m < n; i++) a[m++] = one[i];
  } else if (d->kind == FI) {
    for (size_t i = 0; i < n2; i++)
      for (size_t j = 0; j < NUM_EDGE_INTS && m < n; j++, m++) {
        a[m] = two[i];
        k[m] = edge_ints[j];
      }
  } else {
    for (size_t i = 0; i < n2; i++)
      for (size_t j = 0; j < n2 && m < n; j++, m++) {
        a[m] = two[i];
        b[m] = two[j];
        c[m] = two[(i + j) % n2];
      }
  }
  for (size_t i = m; i < n; i++) k[i] = 0;
  return m;
}

static void make_inputs(const format *f, inputs *in, size_t n, uint64_t seed) {
  rng_state = seed;
  in->n = n;
  for (int id = 0; id < NUM_FUNCTIONS; id++) {
    in->a[id] = calloc(n, sizeof(double));
    in->b[id] = calloc(n, sizeof(double));
    in->c[id] = calloc(n, sizeof(double));
    in->k[id] = calloc(n, sizeof(int));
    const fn *d = &functions[id];
    size_t m = fill_edges(f, d, in->a[id], in->b[id], in->c[id], in->k[id], n);
    fill_random(f, d, in->a[id], in->b[id], in->c[id], in->k[id], m, n,
                limited_domain(id));
  }
}

static void free_inputs(inputs *in) {
  for (int id = 0; id < NUM_FUNCTIONS; id++) {
    free(in->a[id]);
    free(in->b[id]);
    free(in->c[id]);
    free(in->k[id]);
  }
}

/* ----------------------------------------------------------- references */

#define REF_BITS 128

/* What a function should give for one input. For exact functions the
 * values are rounded to the format (subnormals included), for the others
 * they are kept at REF_BITS. */
typedef struct expected {
  mpfr_t r, r2; /* the result, and the second one (FP) */
  long i;       /* the int result (FIP, RQ, IL) */
  int check_i;  /* whether i is prescribed */
} expected;

static int mpfr_rsqrt(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) {
  mpfr_sqrt(r, x, rnd); /* sqrt(-0) = -0, so rsqrt(-0) = -inf */
  return mpfr_ui_div(r, 1, r, rnd);
}

static int mpfr_recip(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) {
  return mpfr_ui_div(r, 1, x, rnd);
}

static int mpfr_lgamma_plain(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) {
  int sign;
  return mpfr_lgamma(r, &sign, x, rnd);
}

typedef int (*mpfr1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*mpfr2)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

/* The MPFR function of a function of one argument (or NULL). */
static mpfr1 unary_reference(int id) {
  switch (id) {
  case FN_acos: return mpfr_acos;
  case FN_acosh: return mpfr_acosh;
  case FN_acospi: return mpfr_acospi;
  case FN_asin: return mpfr_asin;
  case FN_asinh: return mpfr_asinh;
  case FN_asinpi: return mpfr_asinpi;
  case FN_atan: return mpfr_atan;
  case FN_atanh: return mpfr_atanh;
  case FN_atanpi: return mpfr_atanpi;
  case FN_cbrt: return mpfr_cbrt;
  case FN_cos: case FN_half_cos: case FN_native_cos: return mpfr_cos;
  case FN_cosh: return mpfr_cosh;
  case FN_cospi: return mpfr_cospi;
  case FN_erfc: return mpfr_erfc;
  case FN_erf: return mpfr_erf;
  case FN_exp: case FN_half_exp: case FN_native_exp: return mpfr_exp;
  case FN_exp2: case FN_half_exp2: case FN_native_exp2: return mpfr_exp2;
  case FN_exp10: case FN_half_exp10: case FN_native_exp10: return mpfr_exp10;
  case FN_expm1: return mpfr_expm1;
  case FN_fabs: return mpfr_abs;
  case FN_lgamma: return mpfr_lgamma_plain;
  case FN_log: case FN_half_log: case FN_native_log: return mpfr_log;
  case FN_log2: case FN_half_log2: case FN_native_log2: return mpfr_log2;
  case FN_log10: case FN_half_log10: case FN_native_log10: return mpfr_log10;
  case FN_log1p: return mpfr_log1p;
  case FN_half_recip: case FN_native_recip: return mpfr_recip;
  case FN_rsqrt: case FN_half_rsqrt: case FN_native_rsqrt: return mpfr_rsqrt;
  case FN_sin: case FN_half_sin: case FN_native_sin: return mpfr_sin;
  case FN_sinh: return mpfr_sinh;
  case FN_sinpi: return mpfr_sinpi;
  case FN_sqrt: case FN_half_sqrt: case FN_native_sqrt: return mpfr_sqrt;
  case FN_tan: case FN_half_tan: case FN_native_tan: return mpfr_tan;
  case FN_tanh: return mpfr_tanh;
  case FN_tanpi: return mpfr_tanpi;
  case FN_tgamma: return mpfr_gamma;
  default: return NULL;
  }
}

static int mpfr_maxmag(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr y,
                       mpfr_rnd_t rnd) {
  int c = mpfr_cmpabs(x, y);
  if (mpfr_nan_p(x) || mpfr_nan_p(y) || c == 0) return mpfr_max(r, x, y, rnd);
  return mpfr_set(r, c > 0 ? x : y, rnd);
}

static int mpfr_minmag(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr y,
                       mpfr_rnd_t rnd) {
  int c = mpfr_cmpabs(x, y);
  if (mpfr_nan_p(x) || mpfr_nan_p(y) || c == 0) return mpfr_min(r, x, y, rnd);
  return mpfr_set(r, c < 0 ? x : y, rnd);
}

/* powr(x, NaN) and powr(NaN, y) are NaN (7.5), even for x = 1. */
static int mpfr_powr_opencl(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr y,
                            mpfr_rnd_t rnd) {
  if (mpfr_nan_p(x) || mpfr_nan_p(y)) {
    mpfr_set_nan(r);
    return 0;
  }
  return mpfr_powr(r, x, y, rnd);
}

/* The MPFR function of a function of two arguments (or NULL). */
static mpfr2 binary_reference(int id) {
  switch (id) {
  case FN_atan2: return mpfr_atan2;
  case FN_atan2pi: return mpfr_atan2pi;
  case FN_fdim: return mpfr_dim;
  case FN_fmax: return mpfr_max;
  case FN_fmin: return mpfr_min;
  case FN_fmod: return mpfr_fmod;
  case FN_hypot: return mpfr_hypot;
  case FN_maxmag: return mpfr_maxmag;
  case FN_minmag: return mpfr_minmag;
  case FN_pow: return mpfr_pow;
  case FN_powr: case FN_half_powr: case FN_native_powr: return mpfr_powr_opencl;
  case FN_remainder: return mpfr_remainder;
  case FN_half_divide: case FN_native_divide: return mpfr_div;
  default: return NULL;
  }
}

/* Sets up MPFR's exponent range as the format's, so that results round
 * into its subnormals as the hardware does. */
static void format_range(const format *f) {
  mpfr_set_emin(f->emin);
  mpfr_set_emax(f->emax);
}

static void full_range(void) {
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
}

/* The special functions, whose OpenCL conventions MPFR lacks. */
static int reference_special(int id, const format *f, double a, double b,
                             double c, int k, expected *e) {
  mpfr_t x, y, z;
  mpfr_inits2(64, x, y, z, (mpfr_ptr)0);
  mpfr_set_d(x, a, MPFR_RNDN);
  mpfr_set_d(y, b, MPFR_RNDN);
  mpfr_set_d(z, c, MPFR_RNDN);
  int inex = 0, finite = isfinite(a);
  switch (id) {
  case FN_ceil: inex = mpfr_ceil(e->r, x); break;
  case FN_floor: inex = mpfr_floor(e->r, x); break;
  case FN_trunc: inex = mpfr_trunc(e->r, x); break;
  case FN_round: inex = mpfr_round(e->r, x); break;
  case FN_rint: inex = mpfr_roundeven(e->r, x); break;
  case FN_sqrt: inex = mpfr_sqrt(e->r, x, MPFR_RNDN); break;
  case FN_fma: inex = mpfr_fma(e->r, x, y, z, MPFR_RNDN); break;
  case FN_mad: /* a rounded product and sum; fma is checked apart */
    inex = mpfr_mul(e->r, x, y, MPFR_RNDN);
    inex = mpfr_subnormalize(e->r, inex, MPFR_RNDN);
    inex = mpfr_add(e->r, e->r, z, MPFR_RNDN);
    break;
  case FN_ldexp: inex = mpfr_mul_2si(e->r, x, k, MPFR_RNDN); break;
  case FN_copysign: /* MPFR keeps no sign of a NaN */
    mpfr_set_d(e->r, copysign(a, b), MPFR_RNDN);
    break;
  case FN_nextafter: /* the C library's is exact, subnormals included */
    mpfr_set_d(e->r, f->is_double ? nextafter(a, b) : nextafterf(a, b),
               MPFR_RNDN);
    break;
  case FN_logb:
  case FN_ilogb:
    if (a == 0) mpfr_set_inf(e->r, -1), e->i = INT32_MIN;
    else if (isinf(a)) mpfr_set_inf(e->r, 1), e->i = INT32_MAX;
    else if (isnan(a)) mpfr_set_nan(e->r), e->i = INT32_MAX;
    else mpfr_set_si(e->r, e->i = mpfr_get_exp(x) - 1, MPFR_RNDN);
    e->check_i = id == FN_ilogb;
    break;
  case FN_fract: /* fmin(x - floor(x), the float below 1) */
    mpfr_floor(e->r2, x);
    mpfr_sub(e->r, x, e->r2, MPFR_RNDN);
    mpfr_set_d(y, f->is_double ? 0x1.fffffffffffffp-1 : 0x1.fffffep-1f,
               MPFR_RNDN);
    if (mpfr_cmp(e->r, y) > 0) mpfr_set(e->r, y, MPFR_RNDN);
    if (isinf(a)) mpfr_set_zero(e->r, a > 0 ? 1 : -1);
    if (a == 0) mpfr_set(e->r, x, MPFR_RNDN); /* keeps -0 */
    if (isnan(a)) mpfr_set_nan(e->r);
    break;
  case FN_modf: mpfr_modf(e->r2, e->r, x, MPFR_RNDN); break;
  case FN_frexp: {
    mpfr_exp_t ex = 0;
    mpfr_frexp(&ex, e->r, x, MPFR_RNDN);
    e->i = finite && a != 0 ? ex : 0;
    e->check_i = 1;
    break;
  }
  case FN_remquo: {
    long q = 0;
    mpfr_remquo(e->r, &q, x, y, MPFR_RNDN);
    int specials = !finite || b == 0 || isnan(b);
    e->i = specials ? 0 : (q < 0 ? -(-q & 127) : q & 127);
    e->check_i = 1;
    break;
  }
  default:
    mpfr_clears(x, y, z, (mpfr_ptr)0);
    return 0;
  }
  mpfr_clears(x, y, z, (mpfr_ptr)0);
  mpfr_subnormalize(e->r, inex, MPFR_RNDN);
  return 1;
}

/* Fills e for input i of function id. */
static void reference(int id, const format *f, double a, double b, double c,
                      int k, expected *e) {
  int exact = functions[id].bound[f->is_double] == EXACT;
  mpfr_set_prec(e->r, exact ? f->bits : REF_BITS);
  mpfr_set_prec(e->r2, exact ? f->bits : REF_BITS);
  e->check_i = 0;
  if (exact) format_range(f);
  if (!reference_special(id, f, a, b, c, k, e)) {
    mpfr_t x, y;
    mpfr_inits2(64, x, y, (mpfr_ptr)0);
    mpfr_set_d(x, a, MPFR_RNDN);
    mpfr_set_d(y, b, MPFR_RNDN);
    mpfr1 u = unary_reference(id);
    mpfr2 w = binary_reference(id);
    int inex = 0;
    if (u) inex = u(e->r, x, MPFR_RNDN);
    else if (w) inex = w(e->r, x, y, MPFR_RNDN);
    else if (id == FN_pown) inex = mpfr_pown(e->r, x, k, MPFR_RNDN);
    else if (id == FN_rootn) inex = mpfr_rootn_si(e->r, x, k, MPFR_RNDN);
    else if (id == FN_sincos) mpfr_sin_cos(e->r, e->r2, x, MPFR_RNDN);
    else if (id == FN_lgamma_r) {
      int sign = 0;
      mpfr_lgamma(e->r, &sign, x, MPFR_RNDN);
      /* 7.5: 0 at the poles; no sign asked of infinities and NaNs */
      int pole = a <= 0 && a == floor(a);
      e->i = pole ? 0 : sign;
      e->check_i = isfinite(a);
    } else {
      FAIL("no reference for %s", functions[id].name);
    }
    if (exact) mpfr_subnormalize(e->r, inex, MPFR_RNDN);
    mpfr_clears(x, y, (mpfr_ptr)0);
  }
  full_range();
}

/* ---------------------------------------------------------------- errors */

/* The error of got from ref in ulps of the format at ref (the spacing of
 * the format's numbers at |ref|, subnormal spacing below the normal
 * range); 0 for a match, INFINITY for a wrong NaN, zero or infinity (a
 * zero of either sign if any_zero). */
static double ulp_error(const format *f, double got, mpfr_srcptr ref,
                        int any_zero) {
  if (mpfr_nan_p(ref) || isnan(got))
    return mpfr_nan_p(ref) && isnan(got) ? 0 : INFINITY;
  if (mpfr_zero_p(ref) || mpfr_inf_p(ref)) {
    double want = mpfr_get_d(ref, MPFR_RNDN);
    int same_sign = signbit(got) == signbit(want) || (any_zero && got == 0);
    return got == want && same_sign ? 0 : INFINITY;
  }
  double rounded = f->is_double ? mpfr_get_d(ref, MPFR_RNDN)
                                : mpfr_get_flt(ref, MPFR_RNDN);
  if (isinf(rounded) && got == rounded) return 0; /* overflowed, as it must */
  /* An overflow where the result is finite is no error of some ulps: the
   * CTS calls it infinite (SLEEF's pow(DBL_MAX, 1) gave inf). */
  if (isinf(got) && !isinf(rounded)) return INFINITY;
  long e = mpfr_get_exp(ref) - 1; /* 2^e <= |ref| < 2^(e+1) */
  long lowest = f->emin + f->bits - 2;
  if (e < lowest) e = lowest;
  mpfr_t d;
  mpfr_init2(d, REF_BITS + 64);
  if (isinf(got)) /* one step past the largest finite number */
    mpfr_set_si_2exp(d, got > 0 ? 1 : -1, f->emax, MPFR_RNDN);
  else
    mpfr_set_d(d, got, MPFR_RNDN);
  mpfr_sub(d, d, ref, MPFR_RNDN);
  mpfr_mul_2si(d, d, f->bits - 1 - e, MPFR_RNDN);
  double err = fabs(mpfr_get_d(d, MPFR_RNDN));
  mpfr_clear(d);
  return err;
}

/* Whether got is exactly the rounded reference (any NaN for a NaN). */
static int exact_match(const format *f, int id, double got, mpfr_srcptr ref) {
  double want = mpfr_get_d(ref, MPFR_RNDN);
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
  if (zero_sign_free(id) && got == 0 && want == 0) return 1;
  (void)f;
  return got == want && signbit(got) == signbit(want);
}

/* ------------------------------------------------------- kernels, runs */

static const int widths[] = {1, 2, 3, 4, 8, 16};
#define NUM_WIDTHS 6

static void append(char **s, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void append(char **s, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  *s = realloc(*s, *len + (size_t)n + 1);
  va_start(ap, fmt);
  vsnprintf(*s + *len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  *len += (size_t)n;
}

/* The statement that computes function id at offset o. */
static void append_call(char **s, size_t *len, int id, const char *t,
                        const char *it) {
  const char *name = functions[id].name;
  switch (functions[id].kind) {
  case F1: append(s, len, "  r[o] = %s(a[o]);\n", name); break;
  case F2: append(s, len, "  r[o] = %s(a[o], b[o]);\n", name); break;
  case F3: append(s, len, "  r[o] = %s(a[o], b[o], c[o]);\n", name); break;
  case FI: append(s, len, "  r[o] = %s(a[o], k[o]);\n", name); break;
  case FP:
    append(s, len, "  { %s t; r[o] = %s(a[o], &t); r2[o] = t; }\n", t, name);
    break;
  case FIP:
    append(s, len, "  { %s t; r[o] = %s(a[o], &t); ri[o] = t; }\n", it, name);
    break;
  case RQ:
    append(s, len, "  { %s t; r[o] = %s(a[o], b[o], &t); ri[o] = t; }\n", it,
           name);
    break;
  case IL: append(s, len, "  ri[o] = %s(a[o]);\n", name); break;
  }
}

/* A kernel per width, k1 ... k16, each computing every function of the
 * type on its slice of the buffers. */
static char *program_source(const format *f) {
  char *s = NULL;
  size_t len = 0;
  if (f->is_double) append(&s, &len, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
  for (int w = 0; w < NUM_WIDTHS; w++) {
    char t[16] = "", it[16] = "";
    if (widths[w] > 1) {
      snprintf(t, sizeof t, "%s%d", f->type, widths[w]);
      snprintf(it, sizeof it, "int%d", widths[w]);
    } else {
      snprintf(t, sizeof t, "%s", f->type);
      snprintf(it, sizeof it, "int");
    }
    append(&s, &len,
           "__kernel void k%d(__global const %s *a, __global const %s *b,\n"
           "    __global const %s *c, __global const %s *k, __global %s *r,\n"
           "    __global %s *r2, __global %s *ri, uint count) {\n"
           "  uint i = get_global_id(0), o;\n",
           widths[w], t, t, t, it, t, t, it);
    for (int id = 0; id < NUM_FUNCTIONS; id++) {
      if (functions[id].bound[f->is_double] == NONE) continue;
      append(&s, &len, "  o = %du * count + i;\n", id);
      append_call(&s, &len, id, t, it);
    }
    append(&s, &len, "}\n");
  }
  return s;
}

/* Results of one width: per function, n values. */
typedef struct results {
  double *r[NUM_FUNCTIONS], *r2[NUM_FUNCTIONS];
  int *ri[NUM_FUNCTIONS];
} results;

/* Where element i of a function's slice lies in a buffer of vectors of
 * width w (a 3-vector takes the room of 4). */
static size_t slot(size_t id, size_t i, size_t n, int w) {
  size_t stride = w == 3 ? 4 : (size_t)w;
  return id * (n / (size_t)w) * stride + (i / (size_t)w) * stride + i % (size_t)w;
}

static void pack(const format *f, void *buf, size_t id, const double *v,
                 size_t n, int w) {
  for (size_t i = 0; i < n; i++) {
    size_t s = slot(id, i, n, w);
    if (f->is_double) ((double *)buf)[s] = v[i];
    else ((float *)buf)[s] = (float)v[i];
  }
}

static void unpack(const format *f, const void *buf, size_t id, double *v,
                   size_t n, int w) {
  for (size_t i = 0; i < n; i++) {
    size_t s = slot(id, i, n, w);
    v[i] = f->is_double ? ((const double *)buf)[s] : ((const float *)buf)[s];
  }
}

static weft_buffer *make_buffer(weft_context *ctx, size_t size, void *init) {
  return support_buffer(ctx, size, init);
}

/* Runs the kernel of width w over the inputs; fills res. */
static void run_width(weft_context *ctx, weft_program *p, const format *f,
                      const inputs *in, int w, results *res) {
  size_t n = in->n, stride = w == 3 ? 4 : (size_t)w;
  size_t count = n / (size_t)w, elems = NUM_FUNCTIONS * count * stride;
  size_t fsize = elems * f->size, isize = elems * sizeof(int);
  void *a = calloc(1, fsize), *b = calloc(1, fsize), *c = calloc(1, fsize);
  int *k = calloc(elems, sizeof(int));
  for (size_t id = 0; id < NUM_FUNCTIONS; id++) {
    pack(f, a, id, in->a[id], n, w);
    pack(f, b, id, in->b[id], n, w);
    pack(f, c, id, in->c[id], n, w);
    for (size_t i = 0; i < n; i++) k[slot(id, i, n, w)] = in->k[id][i];
  }
  weft_buffer *bufs[7] = {make_buffer(ctx, fsize, a), make_buffer(ctx, fsize, b),
                          make_buffer(ctx, fsize, c), make_buffer(ctx, isize, k),
                          make_buffer(ctx, fsize, NULL),
                          make_buffer(ctx, fsize, NULL),
                          make_buffer(ctx, isize, NULL)};
  char name[8];
  snprintf(name, sizeof name, "k%d", w);
  weft_kernel *kern;
  CHECK_OK(weft_kernel_create(p, name, &kern), p);
  for (int i = 0; i < 7; i++)
    CHECK_OK(weft_kernel_set_arg_buffer(kern, i, bufs[i]), kern);
  unsigned count_arg = (unsigned)count;
  CHECK_OK(weft_kernel_set_arg_value(kern, 7, &count_arg, sizeof count_arg), kern);
  CHECK_OK(weft_kernel_launch(kern, 1, NULL, &count, NULL), kern);
  CHECK_OK(weft_buffer_read(bufs[4], 0, fsize, a), bufs[4]);
  CHECK_OK(weft_buffer_read(bufs[5], 0, fsize, b), bufs[5]);
  CHECK_OK(weft_buffer_read(bufs[6], 0, isize, k), bufs[6]);
  for (size_t id = 0; id < NUM_FUNCTIONS; id++) {
    res->r[id] = calloc(n, sizeof(double));
    res->r2[id] = calloc(n, sizeof(double));
    res->ri[id] = calloc(n, sizeof(int));
    unpack(f, a, id, res->r[id], n, w);
    unpack(f, b, id, res->r2[id], n, w);
    for (size_t i = 0; i < n; i++) res->ri[id][i] = k[slot(id, i, n, w)];
  }
  for (int i = 0; i < 7; i++) weft_buffer_release(bufs[i]);
  weft_kernel_release(kern);
  free(a);
  free(b);
  free(c);
  free(k);
}

static void free_results(results *res) {
  for (int id = 0; id < NUM_FUNCTIONS; id++) {
    free(res->r[id]);
    free(res->r2[id]);
    free(res->ri[id]);
  }
}

/* ---------------------------------------------------------------- checks */

/* The bound a result is held to, in ulps, under relaxed math (or not). */
static double relaxed_bound(int id, double x, double full, double *abs_err) {
  *abs_err = 0;
  switch (functions[id].relaxed) {
  case R_FULL: return full;
  case R_4096: return 4096;
  case R_8192: return 8192;
  case R_ABS_PI:
    if (fabs(x) > 3.14159265358979323846) return INFINITY;
    *abs_err = 0x1p-11;
    return full;
  case R_ABS_1:
    if (fabs(x) > 1) return INFINITY;
    *abs_err = 0x1p-11;
    return full;
  case R_EXP: return 3 + floor(fabs(2 * x));
  case R_LOG:
    if (x >= 0.5 && x <= 2) *abs_err = 0x1p-21;
    return 3;
  }
  return full;
}

typedef struct report {
  double worst[NUM_FUNCTIONS];
  int failures, shown[NUM_FUNCTIONS];
} report;

static void note_failure(report *rep, const format *f, int id, int w,
                         double a, double b, int k, const char *what,
                         double got, double want, double err) {
  rep->failures++;
  if (rep->shown[id]++ < 4)
    fprintf(stderr,
            "%s %s(%a, %a, %d) width %d: %s %a, expected %a (%g ulp)\n",
            f->type, functions[id].name, a, b, k, w, what, got, want, err);
}

/* Checks one result of function id (input i) of the run at width w. */
static void check_value(report *rep, const format *f, int id, int w,
                        const inputs *in, size_t i, const expected *e,
                        const results *res, int relaxed) {
  const fn *d = &functions[id];
  double a = in->a[id][i], b = in->b[id][i];
  int k = in->k[id][i];
  double bound = d->bound[f->is_double], abs_err = 0;
  if (relaxed) {
    /* finite math only: no infinities or NaNs in or out */
    if (!isfinite(a) || (has_arg2(d->kind) && !isfinite(b)) ||
        !mpfr_number_p(e->r) || fabs(mpfr_get_d(e->r, MPFR_RNDN)) > FLT_MAX)
      return;
    bound = relaxed_bound(id, a, bound == EXACT ? 0.5 : bound, &abs_err);
    if (isinf(bound)) return;
  }
  if (d->kind != IL) {
    double got = res->r[id][i];
    if (id == FN_mad) {
      /* either a correctly rounded fma or a rounded product and sum */
      double fused = f->is_double ? fma(a, b, in->c[id][i])
                                  : fmaf((float)a, (float)b, (float)in->c[id][i]);
      if (got == fused || (isnan(got) && isnan(fused))) goto second;
    }
    if (bound == EXACT && !relaxed) {
      if (!exact_match(f, id, got, e->r))
        note_failure(rep, f, id, w, a, b, k, "got", got,
                     mpfr_get_d(e->r, MPFR_RNDN), INFINITY);
    } else {
      double err = ulp_error(f, got, e->r, relaxed || zero_sign_free(id));
      if (abs_err > 0 && isfinite(got) &&
          fabs(got - mpfr_get_d(e->r, MPFR_RNDN)) <= abs_err)
        err = 0;
      if (err > rep->worst[id]) rep->worst[id] = err;
      if (!(err <= bound))
        note_failure(rep, f, id, w, a, b, k, "got", got,
                     mpfr_get_d(e->r, MPFR_RNDN), err);
    }
  }
second:
  if (has_out2(d->kind)) {
    double got2 = res->r2[id][i];
    int ok = bound == EXACT ? exact_match(f, id, got2, e->r2)
                            : ulp_error(f, got2, e->r2, relaxed) <= bound;
    if (relaxed && id == FN_sincos) /* cos, as sin: R_ABS_PI */
      ok = fabs(a) > 3.14159265358979323846 ||
           fabs(got2 - mpfr_get_d(e->r2, MPFR_RNDN)) <= 0x1p-11;
    if (!ok)
      note_failure(rep, f, id, w, a, b, k, "second result", got2,
                   mpfr_get_d(e->r2, MPFR_RNDN), INFINITY);
  }
  if (e->check_i && res->ri[id][i] != e->i)
    note_failure(rep, f, id, w, a, b, k, "int result", res->ri[id][i],
                 (double)e->i, INFINITY);
}

/* Builds the type's program with options, runs every width, and checks
 * every result against the references. */
static void check_type(const format *f, size_t n, const char *options,
                       int relaxed) {
  inputs in;
  make_inputs(f, &in, n, 0x9e3779b97f4a7c15ULL + (uint64_t)f->is_double);
  char *src = program_source(f);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, src, options);
  free(src);
  results res[NUM_WIDTHS];
  for (int w = 0; w < NUM_WIDTHS; w++) run_width(ctx, p, f, &in, widths[w], &res[w]);
  report rep = {{0}, 0, {0}};
  expected e;
  mpfr_inits2(REF_BITS, e.r, e.r2, (mpfr_ptr)0);
  for (int id = 0; id < NUM_FUNCTIONS; id++) {
    if (functions[id].bound[f->is_double] == NONE) continue;
    for (size_t i = 0; i < n; i++) {
      reference(id, f, in.a[id][i], in.b[id][i], in.c[id][i], in.k[id][i], &e);
      for (int w = 0; w < NUM_WIDTHS; w++)
        check_value(&rep, f, id, widths[w], &in, i, &e, &res[w], relaxed);
    }
  }
  mpfr_clears(e.r, e.r2, (mpfr_ptr)0);
  printf("%s%s: worst errors in ulps\n", f->type, relaxed ? " (relaxed)" : "");
  for (int id = 0; id < NUM_FUNCTIONS; id++) {
    double bound = functions[id].bound[f->is_double];
    if (bound == NONE) continue;
    if (bound == EXACT) printf("  %-14s exact\n", functions[id].name);
    else printf("  %-14s %8.3f (bound %g)\n", functions[id].name, rep.worst[id], bound);
  }
  for (int w = 0; w < NUM_WIDTHS; w++) free_results(&res[w]);
  free_inputs(&in);
  weft_program_release(p);
  weft_context_release(ctx);
  if (rep.failures) FAIL("%d results out of bounds", rep.failures);
}

/* ----------------------------------------------------------------- tests */

/* 2400 inputs per function: a multiple of every width (3 and 16 too). */
enum { INPUTS = 2400 };

TEST(float_functions) { check_type(&formats[0], INPUTS, "-cl-std=CL1.2", 0); }

TEST(double_functions) { check_type(&formats[1], INPUTS, "-cl-std=CL1.2", 0); }

TEST(float_functions_relaxed) {
  check_type(&formats[0], INPUTS, "-cl-std=CL1.2 -cl-fast-relaxed-math", 1);
}

/* --------------------------------------------------------- special cases */

/* 7.5's special cases (and some of C99 F.9's, which it keeps), exactly:
 * values, signs of zeros, and the second and int results. */
typedef struct special {
  int id;
  double x, y;
  int n;
  double want, want2; /* want2 checked for FP functions */
  int want_i, check_i;
} special;

#define ANY 0x1.23456789p+99 /* a value not checked here */
#define S1(f, x, w) {FN_##f, x, 0, 0, w, 0, 0, 0}
#define S2(f, x, y, w) {FN_##f, x, y, 0, w, 0, 0, 0}
#define SN(f, x, n, w) {FN_##f, x, 0, n, w, 0, 0, 0}
#define SP(f, x, w, w2) {FN_##f, x, 0, 0, w, w2, 0, 0}
#define SI(f, x, y, w, i) {FN_##f, x, y, 0, w, 0, i, 1}

static const special specials[] = {
    S1(acospi, 1, 0), S1(acospi, 2, NAN), S1(asinpi, 0, 0),
    S1(asinpi, -0.0, -0.0), S1(asinpi, -2, NAN), S1(atanpi, 0, 0),
    S1(atanpi, -0.0, -0.0), S1(atanpi, INFINITY, 0.5),
    S1(atanpi, -INFINITY, -0.5),
    S2(atan2pi, 0, -0.0, 1), S2(atan2pi, -0.0, -0.0, -1),
    S2(atan2pi, 0, 0, 0), S2(atan2pi, -0.0, 0, -0.0),
    S2(atan2pi, 0, -3, 1), S2(atan2pi, -0.0, -3, -1),
    S2(atan2pi, 0, 3, 0), S2(atan2pi, -0.0, 3, -0.0),
    S2(atan2pi, -3, 0, -0.5), S2(atan2pi, -3, -0.0, -0.5),
    S2(atan2pi, 3, 0, 0.5), S2(atan2pi, 3, -0.0, 0.5),
    S2(atan2pi, 3, -INFINITY, 1), S2(atan2pi, -3, -INFINITY, -1),
    S2(atan2pi, 3, INFINITY, 0), S2(atan2pi, -3, INFINITY, -0.0),
    S2(atan2pi, INFINITY, 3, 0.5), S2(atan2pi, -INFINITY, -3, -0.5),
    S2(atan2pi, INFINITY, -INFINITY, 0.75),
    S2(atan2pi, -INFINITY, -INFINITY, -0.75),
    S2(atan2pi, INFINITY, INFINITY, 0.25),
    S2(atan2pi, -INFINITY, INFINITY, -0.25),
    S1(ceil, -0.5, -0.0), S1(ceil, -0.0, -0.0),
    S1(cospi, 0, 1), S1(cospi, -0.0, 1), S1(cospi, 0.5, 0),
    S1(cospi, -0.5, 0), S1(cospi, 1.5, 0), S1(cospi, -1001.5, 0),
    S1(cospi, 1, -1), S1(cospi, INFINITY, NAN), S1(cospi, -INFINITY, NAN),
    S1(exp10, -INFINITY, 0), S1(exp10, INFINITY, INFINITY),
    S2(fdim, 1, NAN, NAN), S2(fdim, NAN, 1, NAN), S2(fdim, 2, 2, 0),
    S2(fmod, 0, NAN, NAN), S2(fmod, -0.0, NAN, NAN), S2(fmod, -0.0, 3, -0.0),
    SI(frexp, INFINITY, 0, INFINITY, 0), SI(frexp, -INFINITY, 0, -INFINITY, 0),
    SI(frexp, NAN, 0, NAN, 0), SI(frexp, -0.0, 0, -0.0, 0),
    SI(frexp, 12, 0, 0.75, 4),
    SP(fract, 0, 0, 0), SP(fract, -0.0, -0.0, -0.0),
    SP(fract, INFINITY, 0, INFINITY), SP(fract, -INFINITY, -0.0, -INFINITY),
    SP(fract, NAN, NAN, NAN), SP(fract, -2.25, 0.75, -3),
    SI(lgamma_r, 0, 0, INFINITY, 0), SI(lgamma_r, -0.0, 0, INFINITY, 0),
    SI(lgamma_r, -3, 0, INFINITY, 0), SI(lgamma_r, -0.5, 0, ANY, -1),
    SI(lgamma_r, -1.5, 0, ANY, 1), SI(lgamma_r, 2.5, 0, ANY, 1),
    SI(lgamma_r, -2.5, 0, ANY, -1),
    S2(nextafter, -0.0, 1, 0x1p-149), S2(nextafter, 0, -1, -0x1p-149),
    S2(pow, 0, -INFINITY, INFINITY), S2(pow, -0.0, -INFINITY, INFINITY),
    S2(pow, NAN, 0, 1), S2(pow, 1, NAN, 1), S2(pow, -1, INFINITY, 1),
    S2(pow, -1, -INFINITY, 1), S2(pow, -0.0, -3, -INFINITY),
    S2(pow, -0.0, 3, -0.0), S2(pow, -2, 3, -8),
    SN(pown, 0, 0, 1), SN(pown, NAN, 0, 1), SN(pown, INFINITY, 0, 1),
    SN(pown, 0, -3, INFINITY), SN(pown, -0.0, -3, -INFINITY),
    SN(pown, 0, -2, INFINITY), SN(pown, -0.0, -2, INFINITY),
    SN(pown, 0, 2, 0), SN(pown, -0.0, 2, 0), SN(pown, 0, 3, 0),
    SN(pown, -0.0, 3, -0.0), SN(pown, -2, 3, -8), SN(pown, -2, -1, -0.5),
    S2(powr, 2, 0, 1), S2(powr, 2, -0.0, 1), S2(powr, 0, -2, INFINITY),
    S2(powr, -0.0, -2, INFINITY), S2(powr, 0, -INFINITY, INFINITY),
    S2(powr, -0.0, -INFINITY, INFINITY), S2(powr, 0, 3, 0),
    S2(powr, -0.0, 3, 0), S2(powr, 1, 5, 1), S2(powr, -1, 2, NAN),
    S2(powr, 0, 0, NAN), S2(powr, -0.0, -0.0, NAN), S2(powr, INFINITY, 0, NAN),
    S2(powr, 1, INFINITY, NAN), S2(powr, 1, -INFINITY, NAN),
    S2(powr, 2, NAN, NAN), S2(powr, NAN, 1, NAN), S2(powr, 1, NAN, NAN),
    S1(rint, -0.5, -0.0), S1(rint, -0.25, -0.0), S1(rint, 2.5, 2),
    SI(remquo, INFINITY, 1, NAN, 0), SI(remquo, 1, 0, NAN, 0),
    SI(remquo, NAN, 1, NAN, 0), SI(remquo, 1, NAN, NAN, 0),
    SI(remquo, 7, 2, -1, 4), SI(remquo, -7, 2, 1, -4),
    SI(remquo, 5, -2, 1, -2), SI(remquo, 1, INFINITY, 1, 0),
    SN(rootn, 0, -3, INFINITY), SN(rootn, -0.0, -3, -INFINITY),
    SN(rootn, 0, -2, INFINITY), SN(rootn, -0.0, -2, INFINITY),
    SN(rootn, 0, 2, 0), SN(rootn, -0.0, 2, 0), SN(rootn, 0, 3, 0),
    SN(rootn, -0.0, 3, -0.0), SN(rootn, -8, 2, NAN), SN(rootn, 5, 0, NAN),
    SN(rootn, 4, 2, 2), SN(rootn, -INFINITY, 3, -INFINITY),
    S1(round, -0.25, -0.0), S1(round, -0.5, -1), S1(round, 2.5, 3),
    S1(sinpi, 0, 0), S1(sinpi, -0.0, -0.0), S1(sinpi, 3, 0),
    S1(sinpi, -3, -0.0), S1(sinpi, 0x1p30, 0), S1(sinpi, -0x1p30, -0.0),
    S1(sinpi, 0.5, 1), S1(sinpi, INFINITY, NAN), S1(sinpi, -INFINITY, NAN),
    S1(tanpi, 0, 0), S1(tanpi, -0.0, -0.0), S1(tanpi, INFINITY, NAN),
    S1(tanpi, 2, 0), S1(tanpi, -2, -0.0), S1(tanpi, 3, -0.0),
    S1(tanpi, -3, 0), S1(tanpi, 0.5, INFINITY), S1(tanpi, 2.5, INFINITY),
    S1(tanpi, 1.5, -INFINITY), S1(tanpi, -0.5, -INFINITY),
    S1(tanpi, -1.5, INFINITY), S1(trunc, -0.5, -0.0),
    SP(modf, INFINITY, 0, INFINITY), SP(modf, -INFINITY, -0.0, -INFINITY),
    SP(modf, -2.5, -0.5, -2), SP(modf, -0.0, -0.0, -0.0),
    SP(modf, NAN, NAN, NAN),
    SI(ilogb, 0, 0, 0, INT32_MIN), SI(ilogb, NAN, 0, 0, INT32_MAX),
    SI(ilogb, INFINITY, 0, 0, INT32_MAX), SI(ilogb, 0x1p-149, 0, 0, -149),
    S1(logb, 0, -INFINITY), S1(logb, -INFINITY, INFINITY),
    S1(logb, 0x1p-149, -149),
    /* some of C99 F.9's, which 7.5 keeps */
    S1(exp, 0, 1), S1(exp, -INFINITY, 0), S1(log, 1, 0), S1(log, 0, -INFINITY),
    S1(log, -1, NAN), S1(cos, 0, 1), S1(sin, -0.0, -0.0), S1(tan, -0.0, -0.0),
    S1(sqrt, -0.0, -0.0), S1(rsqrt, 0, INFINITY), S1(cbrt, -0.0, -0.0),
    S2(hypot, INFINITY, NAN, INFINITY), S2(hypot, NAN, -INFINITY, INFINITY),
    S1(lgamma, 1, 0), S1(lgamma, 2, 0), S1(tgamma, -INFINITY, NAN),
    S1(tgamma, 0, INFINITY), S1(tgamma, -0.0, -INFINITY), S1(tgamma, -2, NAN),
    S1(expm1, -INFINITY, -1), S1(expm1, -0.0, -0.0), S1(log1p, -1, -INFINITY),
    S1(log1p, -0.0, -0.0), S1(erf, INFINITY, 1), S1(erfc, INFINITY, 0),
    S1(tanh, INFINITY, 1), S1(atanh, 1, INFINITY), S1(acosh, 1, 0),
    S1(asinh, -0.0, -0.0), S2(atan2, 0, 3, 0), S2(atan2, -0.0, 3, -0.0),
    S2(fmax, NAN, 2, 2), S2(fmin, 2, NAN, 2), S2(maxmag, -3, 2, -3),
    S2(minmag, -3, 2, 2), S2(copysign, 2, -0.0, -2),
    S1(half_exp, 0, 1), S1(half_log, 1, 0), S1(half_cos, 0, 1),
    S1(half_sin, -0.0, -0.0), S1(half_sqrt, INFINITY, INFINITY),
    S1(half_recip, 0, INFINITY), S2(half_powr, -1, 2, NAN),
};
#define NUM_SPECIALS (sizeof specials / sizeof *specials)

static int same(double got, double want) {
  if (isnan(want)) return isnan(got);
  return got == want && signbit(got) == signbit(want);
}

static void check_specials(const format *f) {
  enum { N = 48 };
  inputs in;
  make_inputs(f, &in, N, 1);
  /* each function's inputs: its entries, over and over */
  size_t count[NUM_FUNCTIONS] = {0}, first[NUM_FUNCTIONS];
  for (size_t j = NUM_SPECIALS; j-- > 0;) first[specials[j].id] = j;
  for (size_t j = 0; j < NUM_SPECIALS; j++) count[specials[j].id]++;
  for (int id = 0; id < NUM_FUNCTIONS; id++)
    for (size_t i = 0; count[id] && i < N; i++) {
      const special *sp = &specials[first[id] + i % count[id]];
      in.a[id][i] = sp->x;
      in.b[id][i] = sp->y;
      in.k[id][i] = sp->n;
    }
  char *src = program_source(f);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, src, NULL);
  free(src);
  int failures = 0;
  for (int w = 0; w < NUM_WIDTHS; w++) {
    results res;
    run_width(ctx, p, f, &in, widths[w], &res);
    for (int id = 0; id < NUM_FUNCTIONS; id++) {
      if (functions[id].bound[f->is_double] == NONE) continue;
      for (size_t i = 0; count[id] && i < N; i++) {
        const special *sp = &specials[first[id] + i % count[id]];
        double want = sp->want;
        if (id == FN_nextafter && f->is_double) want = copysign(0x1p-1074, want);
        int ok = functions[id].kind == IL || want == ANY ||
                 same(res.r[id][i], want);
        ok &= functions[id].kind != FP || same(res.r2[id][i], sp->want2);
        ok &= !sp->check_i || res.ri[id][i] == sp->want_i;
        if (!ok && failures++ < 20)
          fprintf(stderr, "%s%d %s(%a, %a, %d): %a, %a, %d; expected %a, %a, %d\n",
                  f->type, widths[w], functions[id].name, sp->x, sp->y, sp->n,
                  res.r[id][i], res.r2[id][i], res.ri[id][i], want, sp->want2,
                  sp->want_i);
      }
    }
    free_results(&res);
  }
  free_inputs(&in);
  weft_program_release(p);
  weft_context_release(ctx);
  if (failures) FAIL("%d special cases wrong", failures);
}

TEST(special_cases_float) { check_specials(&formats[0]); }

TEST(special_cases_double) { check_specials(&formats[1]); }

/* ---------------------------------------------------- address spaces */

/* Each function with a pointer argument, through a pointer into each
 * address space: the named overloads in OpenCL C 1.2, the generic one
 * (pointing into each space) in 3.0. Every way must give and store what
 * the __private way gives and stores. */
static const struct {
  const char *name, *args;
  int int_out;
} pointer_calls[] = {
    {"fract", "x[i]", 0},         {"modf", "x[i]", 0},
    {"sincos", "x[i]", 0},        {"frexp", "x[i]", 1},
    {"lgamma_r", "x[i]", 1},      {"remquo", "x[i], x[i] * 0.375f + 1.25f", 1},
};
#define NUM_POINTER_CALLS 6
static const char *const space_types[][3] = {
    {"float", "int", "4"},     {"float3", "int3", "16"},
    {"float16", "int16", "64"}, {"double", "int", "8"},
    {"double4", "int4", "32"}, {"double16", "int16", "128"}};

/* Slot s (0..5) of call c for item i: value and stored result for the
 * __private, __global and __local ways. */
static char *spaces_source(void) {
  char *s = NULL;
  size_t len = 0;
  append(&s, &len, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
                   "#define AT(c, s) ((c * 6 + s) * n + i)\n");
  for (int t = 0; t < 6; t++) {
    const char *T = space_types[t][0], *I = space_types[t][1];
    append(&s, &len,
           "__kernel void k_%s(__global const %s *x, __global %s *r,\n"
           "                  __global %s *ri) {\n"
           "  __local %s lt[16]; __local %s li[16];\n"
           "  size_t i = get_global_id(0), l = get_local_id(0);\n"
           "  size_t n = get_global_size(0);\n"
           "  %s pt; %s pi;\n",
           T, T, T, I, T, I, T, I);
    for (int c = 0; c < NUM_POINTER_CALLS; c++) {
      const char *f = pointer_calls[c].name, *a = pointer_calls[c].args;
      const char *out = pointer_calls[c].int_out ? "ri" : "r";
      const char *pv = pointer_calls[c].int_out ? "pi" : "pt";
      const char *lv = pointer_calls[c].int_out ? "li" : "lt";
      append(&s, &len,
             "  r[AT(%d, 0)] = %s(%s, &%s); %s[AT(%d, 1)] = %s;\n"
             "  r[AT(%d, 2)] = %s(%s, &%s[AT(%d, 3)]);\n"
             "  r[AT(%d, 4)] = %s(%s, &%s[l]); %s[AT(%d, 5)] = %s[l];\n",
             c, f, a, pv, out, c, pv, c, f, a, out, c, c, f, a, lv, out, c, lv);
    }
    append(&s, &len, "}\n");
  }
  return s;
}

static void check_spaces(const char *options) {
  enum { N = 16 };
  static const double values[] = {2.75, -2.25, 0.5, -0.0, 1e10, -7.5, 3.0,
                                  0x1p-140, INFINITY, -1e-3, 100.5, NAN, -4};
  weft_context *ctx = support_context();
  char *src = spaces_source();
  weft_program *p = support_build(ctx, src, options);
  free(src);
  for (int t = 0; t < 6; t++) {
    size_t size = (size_t)atoi(space_types[t][2]), isize = size / (t < 3 ? 1 : 2);
    int is_double = t >= 3;
    size_t lanes = size / (is_double ? 8 : 4);
    unsigned char *x = calloc(N, size);
    for (size_t j = 0; j < N * lanes; j++) {
      double v = values[j % (sizeof values / sizeof *values)];
      if (is_double) ((double *)x)[j] = v;
      else ((float *)x)[j] = (float)v;
    }
    size_t rsize = NUM_POINTER_CALLS * 6 * N * size;
    size_t risize = NUM_POINTER_CALLS * 6 * N * isize;
    weft_buffer *bx = support_buffer(ctx, N * size, x);
    weft_buffer *br = support_buffer(ctx, rsize, NULL);
    weft_buffer *bri = support_buffer(ctx, risize, NULL);
    char name[32];
    snprintf(name, sizeof name, "k_%s", space_types[t][0]);
    weft_kernel *k;
    CHECK_OK(weft_kernel_create(p, name, &k), p);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bx), k);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 1, br), k);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 2, bri), k);
    size_t global = N, local = N;
    CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
    unsigned char *r = malloc(rsize), *ri = malloc(risize);
    CHECK_OK(weft_buffer_read(br, 0, rsize, r), br);
    CHECK_OK(weft_buffer_read(bri, 0, risize, ri), bri);
    for (int c = 0; c < NUM_POINTER_CALLS; c++)
      for (size_t i = 0; i < N; i++) {
        int io = pointer_calls[c].int_out;
        unsigned char *out = io ? ri : r;
        size_t osize = io ? isize : size;
        /* A 3-vector's fourth lane is padding that a store leaves
         * undefined (the GPU fills it as it likes): compare three. */
        int three = strchr(space_types[t][0], '3') != NULL;
        size_t used = three ? size / 4 * 3 : size;
        size_t oused = three ? osize / 4 * 3 : osize;
#define SLOT(base, sz, s) ((base) + (((size_t)c * 6 + (s)) * N + i) * (sz))
        if (memcmp(SLOT(r, size, 0), SLOT(r, size, 2), used) ||
            memcmp(SLOT(r, size, 0), SLOT(r, size, 4), used) ||
            memcmp(SLOT(out, osize, 1), SLOT(out, osize, 3), oused) ||
            memcmp(SLOT(out, osize, 1), SLOT(out, osize, 5), oused))
          FAIL("%s (%s, %s): the address spaces disagree at item %zu",
               pointer_calls[c].name, space_types[t][0], options, i);
#undef SLOT
      }
    free(x);
    free(r);
    free(ri);
    weft_buffer_release(bx);
    weft_buffer_release(br);
    weft_buffer_release(bri);
    weft_kernel_release(k);
  }
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(pointer_arguments_in_every_space) {
  check_spaces("-cl-std=CL1.2"); /* __private, __global, __local */
  check_spaces("-cl-std=CL3.0"); /* generic, into each of them */
}

/* ------------------------------------------------------------------ nan */

/* nan(code) is a quiet NaN (its code in the significand) for every type
 * and width. */
TEST(nan_is_quiet) {
  static const char *source =
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "__kernel void k(__global const uint *c, __global uint *f,\n"
      "                __global ulong *d) {\n"
      "  size_t i = get_global_id(0);\n"
      "  uint u = c[i]; ulong l = (ulong)u << 20 | u;\n"
      "  float16 f16 = nan((uint16)u); float3 f3 = nan((uint3)u);\n"
      "  double8 d8 = nan((ulong8)l); double3 d3 = nan((ulong3)l);\n"
      "  f[4 * i] = as_uint(nan(u)); f[4 * i + 1] = as_uint(f16.sf);\n"
      "  f[4 * i + 2] = as_uint(f3.z); f[4 * i + 3] = as_uint(nan((uint2)u).y);\n"
      "  d[3 * i] = as_ulong(nan(l)); d[3 * i + 1] = as_ulong(d8.s7);\n"
      "  d[3 * i + 2] = as_ulong(d3.y);\n"
      "}\n";
  enum { N = 8 };
  uint32_t codes[N] = {0, 1, 0x12345, 0x7fffff, 0xffffffffu, 0x400000, 77, 0x800000};
  uint32_t f[4 * N];
  uint64_t d[3 * N];
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *bc = support_buffer(ctx, sizeof codes, codes);
  weft_buffer *bf = support_buffer(ctx, sizeof f, NULL);
  weft_buffer *bd = support_buffer(ctx, sizeof d, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bc), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bf), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, bd), k);
  size_t global = N;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  CHECK_OK(weft_buffer_read(bf, 0, sizeof f, f), bf);
  CHECK_OK(weft_buffer_read(bd, 0, sizeof d, d), bd);
  for (int i = 0; i < 4 * N; i++)
    if ((f[i] & 0x7fc00000u) != 0x7fc00000u)
      FAIL("float nan(%#x): %#x is not a quiet NaN", codes[i / 4], f[i]);
  for (int i = 0; i < 3 * N; i++)
    if ((d[i] & 0x7ff8000000000000ull) != 0x7ff8000000000000ull)
      FAIL("double nan: %#llx is not a quiet NaN", (unsigned long long)d[i]);
  weft_buffer_release(bc);
  weft_buffer_release(bf);
  weft_buffer_release(bd);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* --------------------------------------------------- every declaration */

/* Whether name is one of the math functions (6.15.2, 6.15.3). */
static int is_math_name(const char *name) {
  if (!strcmp(name, "nan")) return 1;
  for (int id = 0; id < NUM_FUNCTIONS; id++)
    if (!strcmp(name, functions[id].name)) return 1;
  return 0;
}

/* An expression of type t (as the header spells it) for a call. */
static void argument(char **s, size_t *len, const char *t) {
  char base[64];
  snprintf(base, sizeof base, "%s", t);
  char *star = strchr(base, '*');
  if (!star) {
    int fp = !strncmp(base, "float", 5) || !strncmp(base, "double", 6);
    append(s, len, "(%s)%s", base, fp ? "v" : "n");
    return;
  }
  while (star > base && star[-1] == ' ') star--;
  *star = 0;
  const char *space = !strncmp(base, "__global ", 9)    ? "gp"
                      : !strncmp(base, "__local ", 8)   ? "lp"
                      : !strncmp(base, "__private ", 10) ? "pp"
                                                         : "gp";
  append(s, len, "(%s *)%s", base, space);
}

/* A kernel calling each math declaration of opencl-c.h that names an
 * address space (named) or not (generic: pointer arguments only). */
static char *declarations_source(int generic, int is_double, int *count) {
  char path[512];
  snprintf(path, sizeof path, "%s/include/opencl-c.h", WEFT_CLANG_RESOURCE_DIR);
  FILE *h = fopen(path, "r");
  if (!h) FAIL("cannot read %s", path);
  char *s = NULL;
  size_t len = 0;
  append(&s, &len,
         "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
         "__kernel void k(__global char *gp, __local char *lp, float v, int n) {\n"
         "  __private char pp[128] __attribute__((aligned(128)));\n");
  char line[512];
  *count = 0;
  while (fgets(line, sizeof line, h)) {
    char ret[32], name[48], args[256];
    if (sscanf(line, "%31s __ovld __cnfn %47[a-z0-9_](%255[^)]);", ret, name, args) != 3 &&
        sscanf(line, "%31s __ovld %47[a-z0-9_](%255[^)]);", ret, name, args) != 3)
      continue;
    if (!is_math_name(name) || strstr(line, "half ") || strstr(line, "half*") ||
        !strncmp(ret, "half", 4) || strstr(args, "half"))
      continue;
    int pointer = strchr(args, '*') != NULL;
    int named = strstr(args, "__global") || strstr(args, "__local") ||
                strstr(args, "__private");
    if (generic ? !pointer || named : pointer && !named) continue;
    int doubles = strstr(args, "double") || strstr(ret, "double");
    if (doubles != is_double) continue;
    append(&s, &len, "  *(__global %s *)(gp + %d * 128) = %s(", ret, *count, name);
    char *save = NULL;
    int first = 1;
    for (char *a = strtok_r(args, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
      while (*a == ' ') a++;
      if (!first) append(&s, &len, ", ");
      argument(&s, &len, a);
      first = 0;
    }
    append(&s, &len, ");\n");
    ++*count;
  }
  fclose(h);
  append(&s, &len, "}\n");
  return s;
}

/* Every math declaration builds, links (no builtin missing, nothing left
 * unresolved in the JIT) and runs; in three programs, each a test, since
 * each takes seconds to build. */
static void build_declarations(int generic, int is_double) {
  int count;
  char *src = declarations_source(generic, is_double, &count);
  if (count < (generic ? 36 : 400))
    FAIL("only %d math declarations found in opencl-c.h", count);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, src, generic ? "-cl-std=CL3.0" : NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *out = support_buffer(ctx, (size_t)count * 128, NULL);
  float v = 0.75f;
  int n = 3;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, out), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 1, 256), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 2, &v, sizeof v), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 3, &n, sizeof n), k);
  size_t one = 1;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &one, &one), k);
  printf("%d math declarations (%s, %s) build and run\n", count,
         is_double ? "double" : "float",
         generic ? "generic address space" : "named address spaces");
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
  free(src);
}

TEST(every_float_declaration_links) { build_declarations(0, 0); }

TEST(every_double_declaration_links) { build_declarations(0, 1); }

TEST(every_generic_declaration_links) {
  build_declarations(1, 0);
  build_declarations(1, 1);
}

TEST_MAIN()
