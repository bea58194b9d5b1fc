/*
 * Math functions (OpenCL C 3.0, 6.15.2), for float and double of every
 * width, accurate to the specification's bounds (7.4) and edge cases (7.5).
 *
 * - Transcendental functions are SLEEF's (math_sleef.cl), within 1 ulp
 *   (sinpi, cospi, hypot: 0.5; erfc: 1.5), with its own handling of
 *   subnormals, infinities and huge trigonometric arguments.
 * - Exact functions are LLVM intrinsics (floor, fma, sqrt...) or bit
 *   manipulation on the number's fields, vectorized as written.
 * - The rest is derived from those, with its error budget said where it is
 *   not plain.
 * half_ and native_ functions are in math_half_native.cl.
 */
#include "math_shared.h"

#define FP WEFT_FP

/* ---------------------------------------------------------- conversions */

/* Element-wise conversions for scalars and vectors alike. */
#define CONVERT_V(name, from, to, n)                                         \
  static to##n WEFT_OVERLOAD name(from##n x) {                               \
    return __builtin_convertvector(x, to##n);                                \
  }
#define CONVERT(name, from, to)                                              \
  static to WEFT_OVERLOAD name(from x) { return (to)x; }                     \
  CONVERT_V(name, from, to, 2) CONVERT_V(name, from, to, 3)                  \
  CONVERT_V(name, from, to, 4) CONVERT_V(name, from, to, 8)                  \
  CONVERT_V(name, from, to, 16)

CONVERT(bits_to_int, int, int)     /* an exponent field to int */
CONVERT(bits_to_int, long, int)
CONVERT(fp_to_int, float, int)     /* integral values only */
CONVERT(fp_to_int, double, int)
CONVERT(bits_to_fp, int, float)
CONVERT(bits_to_fp, long, double)
CONVERT(int_to_double, int, double)
CONVERT(float_to_double, float, double)
CONVERT(double_to_float, double, float)
CONVERT(__weft_math_to_long, int, long)

/* ------------------------------------------------------- from SLEEF */

#define FROM_SLEEF1(name, suffix)                                            \
  WEFT_EACH_FLOAT(WEFT_DEF1, name, __weft_sleef_##name##suffix(x))
#define FROM_SLEEF2(name, suffix)                                            \
  WEFT_EACH_FLOAT(WEFT_DEF2, name, __weft_sleef_##name##suffix(x, y))

FROM_SLEEF1(acos, _u10)
FROM_SLEEF1(asin, _u10)
FROM_SLEEF1(atan, _u10)
FROM_SLEEF2(atan2, _u10)
FROM_SLEEF1(atanh, _u10)
FROM_SLEEF1(cbrt, _u10)
FROM_SLEEF1(cos, _u10)
FROM_SLEEF1(erf, _u10)
FROM_SLEEF1(erfc, _u15)
WEFT_EACH_WIDTH(WEFT_DEF1, double, exp, __weft_sleef_exp_u10(x))
FROM_SLEEF1(exp2, _u10)
FROM_SLEEF1(exp10, _u10)
FROM_SLEEF1(expm1, _u10)
FROM_SLEEF2(hypot, _u05)
FROM_SLEEF1(lgamma, _u10)
/* float log: SLEEF's 3.5-ulp form, twice as fast, is within 2.845 ulp of
 * every float (tested exhaustively on SLEEF 3.5.1, every ISA variant; the
 * worst input, 0x1.21bd82p+0, is among the test's edge cases); the bound
 * is 3. */
WEFT_EACH_WIDTH(WEFT_DEF1, float, log, __weft_sleef_log_u35(x))
WEFT_EACH_WIDTH(WEFT_DEF1, double, log, __weft_sleef_log_u10(x))
FROM_SLEEF1(log2, _u10)
FROM_SLEEF1(log10, _u10)
FROM_SLEEF1(sin, _u10)
FROM_SLEEF1(tan, _u10)
FROM_SLEEF1(tanh, _u10)

/* SLEEF's functions where they are wrong: at the ends of their ranges,
 * and in the sign of some zeros. */
#define AMENDED(T, B, I, U, S, W)                                            \
  /* asinh and acosh square x: from 2^64 (2^512) on, they overflow. */      \
  T WEFT_OVERLOAD asinh(T x) {                                               \
    T r = __weft_sleef_asinh_u10(x);                                         \
    B big = fabs(x) > FP(S, LOG_ONLY);                                       \
    if (any_set(big)) r = big ? copysign(log(fabs(x)) + FP(S, LN2), x) : r;  \
    return r;                                                                \
  }                                                                          \
  T WEFT_OVERLOAD acosh(T x) {                                               \
    T r = __weft_sleef_acosh_u10(x);                                         \
    B big = x > FP(S, LOG_ONLY);                                             \
    if (any_set(big)) r = big ? log(x) + FP(S, LN2) : r;                     \
    return r;                                                                \
  }                                                                          \
  /* log1p turns infinite near the largest numbers. */                      \
  T WEFT_OVERLOAD log1p(T x) {                                               \
    T r = __weft_sleef_log1p_u10(x);                                         \
    B big = x > FP(S, LOG_ONLY);                                             \
    if (any_set(big)) r = big ? log(x) : r;                                  \
    return r;                                                                \
  }                                                                          \
  /* sinh and cosh overflow once exp(|x|) does, below where they should: */ \
  /* there, exp(|x| / 2)^2 / 2 stays within 2.5 ulp (the bound is 4).   */ \
  static T WEFT_OVERLOAD half_exp_squared(T ax) {                            \
    T e = exp(ax * (T)0.5);                                                  \
    return e * (e * (T)0.5);                                                 \
  }                                                                          \
  T WEFT_OVERLOAD sinh(T x) {                                                \
    T r = __weft_sleef_sinh_u10(x);                                          \
    B over = fabs(x) > FP(S, EXP_OVER);                                      \
    if (any_set(over)) r = over ? copysign(half_exp_squared(fabs(x)), x) : r; \
    return r;                                                                \
  }                                                                          \
  T WEFT_OVERLOAD cosh(T x) {                                                \
    T r = __weft_sleef_cosh_u10(x);                                          \
    B over = fabs(x) > FP(S, EXP_OVER);                                      \
    if (any_set(over)) r = over ? half_exp_squared(fabs(x)) : r;             \
    return r;                                                                \
  }                                                                          \
  /* pow overflows just below the largest numbers (SLEEF 3.5's         */ \
  /* pow(DBL_MAX, 1) and pow(2, 1023.9999999) are inf): there, the     */ \
  /* result is |x|^(y-1) * |x| for |x| > 1, |x|^(y+1) / |x| below 1   */ \
  /* (y -+ 1 is exact where the result can be so large: y < 2^53),     */ \
  /* one rounding more than pow's 1 ulp (the bound is 16).              */ \
  T WEFT_OVERLOAD pow(T x, T y) {                                            \
    T r = __weft_sleef_pow_u10(x, y);                                        \
    B over = fabs(r) == FP(S, INF) && fabs(x) < FP(S, INF) &&               \
             fabs(y) < FP(S, INF) && x != 0;                                 \
    if (any_set(over)) {                                                     \
      T ax = fabs(x);                                                        \
      T near = ax > 1 ? __weft_sleef_pow_u10(ax, y - 1) * ax                 \
                      : __weft_sleef_pow_u10(ax, y + 1) / ax;                \
      r = over ? copysign(near, r) : r;                                      \
    }                                                                        \
    return r;                                                                \
  }                                                                          \
  /* SLEEF's sinpi and cospi are exact at the integers and half-integers */ \
  /* only for small |x| (and give up from 2^30 or so in double): x is    */ \
  /* first reduced, exactly, to [-1, 1] (they have a period of 2). 7.5   */ \
  /* wants sinpi(n) = +-0 with n's sign and cospi(n + 0.5) = +0.          */ \
  static T WEFT_OVERLOAD reduce_pi(T x) { return x - 2 * rint(x * (T)0.5); } \
  T WEFT_OVERLOAD sinpi(T x) {                                               \
    T r = __weft_sleef_sinpi_u05(reduce_pi(x));                              \
    return r == 0 ? copysign((T)0, x) : r;                                   \
  }                                                                          \
  T WEFT_OVERLOAD cospi(T x) {                                               \
    return __weft_sleef_cospi_u05(reduce_pi(x)) + (T)0;                      \
  }

/* Whether any lane of a comparison's result is set. */
#define ANY_SET(T, B, I, U, S, W)                                            \
  static int WEFT_OVERLOAD any_set(B mask) { return LANES_ANY##W(mask); }
#define LANES_ANY(mask) ((mask) != 0)
#define LANES_ANY2 __builtin_reduce_or
#define LANES_ANY3 __builtin_reduce_or
#define LANES_ANY4 __builtin_reduce_or
#define LANES_ANY8 __builtin_reduce_or
#define LANES_ANY16 __builtin_reduce_or
WEFT_MATH_TYPES(ANY_SET)
WEFT_MATH_TYPES(AMENDED)

/* fmod: SLEEF's on vectors, exact while |x / y| stays below
 * FP(S, FMOD_RANGE) and both are finite (it gives NaN once x / y
 * overflows); otherwise the C library's, exact everywhere, lane by lane.
 * Scalars take the C library's at once. NVIDIA GPUs have libdevice's exact
 * fmod instead (nvptx/math_libdevice.cl). */
#ifndef __NVPTX__
#define FMOD_C_float __builtin_fmodf
#define FMOD_C_double __builtin_fmod
#define FMOD(T, B, I, U, S, W)                                               \
  T WEFT_OVERLOAD fmod(T x, T y) { FMOD_BODY##W(T, B, S, W) }
#define FMOD_BODY(T, B, S, W) return FMOD_C_##S(x, y);
#define FMOD_BODY_VECTOR(T, B, S, n)                                         \
  B sleef_exact = fabs(x) < fabs(y) * FP(S, FMOD_RANGE) &&                   \
                  fabs(y) < FP(S, INF);                                      \
  if (!any_set(!sleef_exact)) return __weft_sleef_fmod(x, y);                \
  T r;                                                                       \
  for (int i = 0; i < n; i++) r[i] = FMOD_C_##S(x[i], y[i]);                 \
  return r;
#define FMOD_BODY2(T, B, S, W) FMOD_BODY_VECTOR(T, B, S, 2)
#define FMOD_BODY3(T, B, S, W) FMOD_BODY_VECTOR(T, B, S, 3)
#define FMOD_BODY4(T, B, S, W) FMOD_BODY_VECTOR(T, B, S, 4)
#define FMOD_BODY8(T, B, S, W) FMOD_BODY_VECTOR(T, B, S, 8)
#define FMOD_BODY16(T, B, S, W) FMOD_BODY_VECTOR(T, B, S, 16)
WEFT_MATH_TYPES(FMOD)
#endif

/* tgamma. SLEEF's loses hundreds of ulps where the result is subnormal
 * (x in (-184, -170) in double, and (-45, -35) in float). float goes
 * through double, where those results are normal. In double, there,
 * Gamma(x) = Gamma(x + 16) / (x (x + 1) ... (x + 15)): the x + j are exact
 * (one binade), and the 16 roundings of the product and quotient, with
 * SLEEF's 1 ulp, stay within 9 ulp (the bound is 16). */
#define TGAMMA_double(T, B, I, U, S, W)                                      \
  T WEFT_OVERLOAD tgamma(T x) {                                              \
    T r = __weft_sleef_tgamma_u10(x);                                        \
    B tiny = x < -170 && x > -185;                                           \
    if (!any_set(tiny)) return r;                                            \
    T product = x;                                                           \
    for (int j = 1; j < 16; j++) product *= x + j;                           \
    return tiny ? __weft_sleef_tgamma_u10(x + 16) / product : r;             \
  }
#define TGAMMA_float(T, B, I, U, S, W)                                       \
  T WEFT_OVERLOAD tgamma(T x) {                                              \
    return double_to_float(tgamma(float_to_double(x)));                      \
  }
#define TGAMMA(T, B, I, U, S, W) TGAMMA_##S(T, B, I, U, S, W)
WEFT_MATH_TYPES(TGAMMA)

/* float exp is written here rather than called: inlined, LLVM compiles it
 * at the kernel's own width (and across work-items), where a call to
 * SLEEF costs about as much as its arithmetic. x = k ln2 + r, |r| <= ln2/2
 * (ln2 in two parts, k ln2_hi exact); e^r by its Taylor polynomial of
 * degree 7 (truncation below 0.13 ulp), then times 2^k in two steps, each
 * factor a normal number, so that only the last rounds, subnormal results
 * included. Within 1.06 ulp of every float (tested exhaustively against
 * double; the bound is 3). */
#define EXP_FLOAT(T, B, I, U, S, W)                                          \
  T WEFT_OVERLOAD exp(T x) {                                                 \
    /* beyond these, e^x rounds to +inf or +0 */                             \
    T c = x > 89.0f ? (T)89.0f : x < -104.0f ? (T)-104.0f : x;               \
    /* rint by the 1.5 * 2^23 trick: no SSE4.1 needed, |c / ln2| < 2^22 */   \
    T k = (c * 0x1.715476p+0f + 0x1.8p23f) - 0x1.8p23f;                      \
    T r = c - k * 0x1.62e4p-1f; /* exact: ln2_hi has 16 bits, |k| < 2^8 */   \
    r = r - k * 0x1.7f7d1cp-20f;                                             \
    T p = (T)(1.0f / 5040);                                                  \
    p = p * r + (T)(1.0f / 720);                                             \
    p = p * r + (T)(1.0f / 120);                                             \
    p = p * r + (T)(1.0f / 24);                                              \
    p = p * r + (T)(1.0f / 6);                                               \
    p = p * r + (T)0.5f;                                                     \
    T e = 1.0f + (r + r * r * p);                                            \
    I n = fp_to_int(k), n1 = n >> 1;                                         \
    e *= __builtin_astype((n1 + 127) << 23, T);                              \
    e *= __builtin_astype((n - n1 + 127) << 23, T);                          \
    return x != x ? x : e;                                                   \
  }
#define EXP_FLOAT_ROW(T, B, I, U, S, W) EXP_FLOAT_##S(T, B, I, U, S, W)
#define EXP_FLOAT_float EXP_FLOAT
#define EXP_FLOAT_double(T, B, I, U, S, W)
WEFT_MATH_TYPES(EXP_FLOAT_ROW)

/* ------------------------------------------------- exact, as intrinsics */

WEFT_EACH_FLOAT(WEFT_DEF1, ceil, __builtin_elementwise_ceil(x))
WEFT_EACH_FLOAT(WEFT_DEF1, floor, __builtin_elementwise_floor(x))
WEFT_EACH_FLOAT(WEFT_DEF1, trunc, __builtin_elementwise_trunc(x))
WEFT_EACH_FLOAT(WEFT_DEF1, round, __builtin_elementwise_round(x))
WEFT_EACH_FLOAT(WEFT_DEF1, rint, __builtin_elementwise_roundeven(x))
WEFT_EACH_FLOAT(WEFT_DEF1, fabs, __builtin_elementwise_abs(x))
WEFT_EACH_FLOAT(WEFT_DEF2, copysign, __builtin_elementwise_copysign(x, y))
WEFT_EACH_FLOAT(WEFT_DEF3, fma, __builtin_elementwise_fma(x, y, z))
WEFT_EACH_FLOAT(WEFT_DEF1, sqrt, __builtin_elementwise_sqrt(x))
/* Two roundings: within 1 ulp (the bound is 2). NVIDIA GPUs have
 * libdevice's instead (nvptx/math_libdevice.cl): a correctly rounded
 * square root and division are two long sequences there. */
#ifndef __NVPTX__
WEFT_EACH_FLOAT(WEFT_DEF1, rsqrt, 1 / __builtin_elementwise_sqrt(x))
#endif
/* Contracted to one fma where the CPU has it: the specification allows
 * either that or a rounded multiply and add. */
WEFT_EACH_FLOAT(WEFT_DEF3, mad, x * y + z)
/* llvm.minnum and maxnum: a NaN loses to a number, as 7.5 asks. */
WEFT_EACH_FLOAT(WEFT_DEF2, fmin, __builtin_elementwise_min(x, y))
WEFT_EACH_FLOAT(WEFT_DEF2, fmax, __builtin_elementwise_max(x, y))

/* fmin(floatn, float) and fmax(floatn, float) are in common.cl. */

/* ------------------------------------------------------------- simple */

#define SIMPLE(T, B, I, U, S, W)                                             \
  T WEFT_OVERLOAD fdim(T x, T y) {                                           \
    T nan_or_zero = x != x || y != y ? x + y : (T)0;                         \
    return x > y ? x - y : nan_or_zero;                                      \
  }                                                                          \
  T WEFT_OVERLOAD maxmag(T x, T y) {                                         \
    T ax = fabs(x), ay = fabs(y);                                            \
    return ax > ay ? x : ay > ax ? y : fmax(x, y);                           \
  }                                                                          \
  T WEFT_OVERLOAD minmag(T x, T y) {                                         \
    T ax = fabs(x), ay = fabs(y);                                            \
    return ax < ay ? x : ay < ax ? y : fmin(x, y);                           \
  }                                                                          \
  T WEFT_OVERLOAD nan(U code) {                                              \
    return __builtin_astype((code & FP(S, MMASK)) | FP(S, QNAN), T);         \
  }
WEFT_MATH_TYPES(SIMPLE)

/* ---------------------------------------------- the exponent, as bits */

/* The unbiased exponent of finite nonzero x, subnormals included. */
#define EXPONENT(T, B, I, U, S, W)                                           \
  static B WEFT_OVERLOAD exponent(T x) {                                     \
    T ax = fabs(x);                                                          \
    B tiny = ax < FP(S, MIN);                                                \
    B bits = __builtin_astype(tiny ? ax * FP(S, SCALE) : ax, B);             \
    B e = bits >> FP(S, MANT);                                               \
    return e - FP(S, BIAS) - (tiny ? (B)FP(S, SCALE_LOG) : (B)0);            \
  }                                                                          \
  I WEFT_OVERLOAD ilogb(T x) {                                               \
    T ax = fabs(x);                                                          \
    B r = exponent(x);                                                       \
    r = ax == 0 ? (B)FP_ILOGB0 : r;                                          \
    r = ax == FP(S, INF) ? (B)INT_MAX : r;                                   \
    return bits_to_int(ax != ax ? (B)FP_ILOGBNAN : r);                       \
  }                                                                          \
  T WEFT_OVERLOAD logb(T x) {                                                \
    T ax = fabs(x), r = bits_to_fp(exponent(x));                             \
    r = ax == 0 ? -FP(S, INF) : r;                                           \
    return ax == FP(S, INF) || ax != ax ? ax : r;                            \
  }
WEFT_MATH_TYPES(EXPONENT)

/* x * 2^n in at most three multiplications, as musl's scalbn: the first
 * two keep the value normal (or overflow anyway), so only the last one
 * rounds, once, even to a subnormal. */
#define LDEXP(T, B, I, U, S, W)                                              \
  T WEFT_OVERLOAD ldexp(T x, I n) {                                          \
    typedef FP(S, SBITS) bits;                                               \
    const bits bias = FP(S, BIAS), low = 1 - bias;                           \
    const bits step = bias - 1 - (FP(S, MANT) + 1);                          \
    const S big = __builtin_astype((bits)(2 * bias) << FP(S, MANT), S);      \
    const S small = __builtin_astype((bits)(bias - step) << FP(S, MANT), S); \
    B k = FP(S, INT_TO_BITS)(n);                                             \
    for (int i = 0; i < 2; i++) {                                            \
      B up = k > bias, down = k < low;                                       \
      x = up ? x * big : down ? x * small : x;                               \
      k = up ? k - bias : down ? k + step : k;                               \
    }                                                                        \
    k = k > bias ? (B)bias : k < low ? (B)low : k;                           \
    return x * __builtin_astype((k + bias) << FP(S, MANT), T);               \
  }
WEFT_MATH_TYPES(LDEXP)
#define LDEXP_SCALAR_N(V, S, I)                                              \
  V WEFT_OVERLOAD ldexp(V x, int n) { return ldexp(x, (I)n); }
/* vectors only: the scalar form is the one above */
LDEXP_SCALAR_N(float2, float, int2) LDEXP_SCALAR_N(float3, float, int3)
LDEXP_SCALAR_N(float4, float, int4) LDEXP_SCALAR_N(float8, float, int8)
LDEXP_SCALAR_N(float16, float, int16) LDEXP_SCALAR_N(double2, double, int2)
LDEXP_SCALAR_N(double3, double, int3) LDEXP_SCALAR_N(double4, double, int4)
LDEXP_SCALAR_N(double8, double, int8) LDEXP_SCALAR_N(double16, double, int16)

#define NEXTAFTER(T, B, I, U, S, W)                                          \
  T WEFT_OVERLOAD nextafter(T x, T y) {                                      \
    B bits = __builtin_astype(x, B);                                         \
    B away_from_zero = (x < y) == (x > 0);                                   \
    T r = __builtin_astype(bits + (away_from_zero ? (B)1 : (B)-1), T);      \
    T denorm = FP(S, DENORM);                                                \
    r = x == 0 ? copysign(denorm, y) : r;                                    \
    r = x == y ? y : r;                                                      \
    return x != x || y != y ? x + y : r;                                     \
  }
WEFT_MATH_TYPES(NEXTAFTER)

/* ------------------------------------------------------------ derived */

/* Dividing by the rounded pi costs at most 1 ulp over the base function's
 * (within 2 ulp; bounds 5 and 6), and keeps the special values exact:
 * the rounded pi/2, pi and pi/4 are the rounded pi over 2, 1 and 4. */
#define BY_PI(T, B, I, U, S, W)                                              \
  T WEFT_OVERLOAD acospi(T x) { return acos(x) / FP(S, PI); }               \
  T WEFT_OVERLOAD asinpi(T x) { return asin(x) / FP(S, PI); }               \
  T WEFT_OVERLOAD atanpi(T x) { return atan(x) / FP(S, PI); }               \
  T WEFT_OVERLOAD atan2pi(T y, T x) {                                        \
    T r = atan2(y, x) / FP(S, PI);                                           \
    B corner = fabs(x) == FP(S, INF) && fabs(y) == FP(S, INF);               \
    return corner ? copysign(x > 0 ? (T)0.25 : (T)0.75, y) : r;              \
  }                                                                          \
  /* sinpi and cospi are within 0.506 ulp and exact at the poles and   */   \
  /* zeros, which 7.5 lists: tanpi(n + 0.5) = +-inf, tanpi(n) = +-0.   */   \
  T WEFT_OVERLOAD tanpi(T x) { return sinpi(x) / cospi(x); }
WEFT_MATH_TYPES(BY_PI)

/* powr is pow without pow's conventions for negative, zero, infinite and
 * unit arguments (7.5). */
#define POWR(T, B, I, U, S, W)                                               \
  T WEFT_OVERLOAD powr(T x, T y) {                                           \
    const T inf = FP(S, INF);                                                \
    B nan_result = x < 0 || (x == 0 && y == 0) || (x == inf && y == 0) ||    \
                   (x == 1 && fabs(y) == inf) || x != x || y != y;           \
    return nan_result ? (T)FP(S, QNANV) : pow(fabs(x), y);                     \
  }
WEFT_MATH_TYPES(POWR)

/* pown and rootn on float: in double, where n is exact and 1/n has a
 * relative error of 2^-53 (the result's error stays within 1 ulp). */
#define POWN_ROOTN_float(T, B, I, U, S, W)                                   \
  T WEFT_OVERLOAD pown(T x, I n) {                                           \
    return double_to_float(pow(float_to_double(x), int_to_double(n)));       \
  }                                                                          \
  T WEFT_OVERLOAD rootn(T x, I n) {                                          \
    double##W r = pow(float_to_double(fabs(x)), 1.0 / int_to_double(n));     \
    return rootn_signs(x, n, double_to_float(r));                            \
  }

/* On double, n is exact too; 1/n is not, and pow(x, 1/n) is off by
 * x^(e/n) with e = 1 - n * (1/n): a factor 1 + log(x) * e / n (up to 2^-43
 * off 1, hundreds of ulps), which one fma takes out. */
#define POWN_ROOTN_double(T, B, I, U, S, W)                                  \
  T WEFT_OVERLOAD pown(T x, I n) { return pow(x, int_to_double(n)); }        \
  T WEFT_OVERLOAD rootn(T x, I n) {                                          \
    T dn = int_to_double(n), ax = fabs(x), r = 1 / dn;                       \
    T y = pow(ax, r);                                                        \
    T cy = y * __weft_sleef_log_u35(ax) * (fma(-dn, r, (T)1) / dn);          \
    y = cy - cy == 0 ? y + cy : y; /* not for 0, inf, NaN */                 \
    return rootn_signs(x, n, y);                                             \
  }

/* rootn's result from y = |x|^(1/n): odd roots keep x's sign, 7.5's NaNs. */
#define ROOTN_SIGNS(T, B, I, U, S, W)                                        \
  static T WEFT_OVERLOAD rootn_signs(T x, I n, T y) {                        \
    B wide = FP(S, INT_TO_BITS)(n);                                          \
    B odd = (wide & 1) != 0;                                                 \
    y = odd ? copysign(y, x) : y;                                            \
    return wide == 0 || (x < 0 && !odd) ? (T)FP(S, QNANV) : y;                 \
  }
WEFT_MATH_TYPES(ROOTN_SIGNS)
#define POWN_ROOTN(T, B, I, U, S, W) POWN_ROOTN_##S(T, B, I, U, S, W)
WEFT_MATH_TYPES(POWN_ROOTN)

/* ---------------------------------------------------- remainder, remquo */

/* x - k * y for the integer k nearest x / y (ties to even), exactly, and
 * k's low seven bits. |x| is first reduced modulo 128 |y| (exactly, by
 * fmod; an infinite 128 |y| leaves it whole), which keeps k's low bits and
 * its parity. Then k < 129: k = rint(r / |y|) can be off by one, and
 * x - k |y| is exact in an fma, so one correction step each way ends it. */
#define REMQUO_CORE(T, B, I, U, S, W)                                        \
  static T WEFT_OVERLOAD remquo_core(T x, T y, private I *quo) {             \
    T ax = fabs(x), ay = fabs(y);                                            \
    T r = fmod(ax, ay * 128);                                                \
    T k = rint(r / ay);                                                      \
    r = fma(-k, ay, r);                                                      \
    B odd = k * (T)0.5 != floor(k * (T)0.5);                                 \
    B up = 2 * r > ay || (2 * r == ay && odd);                               \
    k = up ? k + 1 : k;                                                      \
    r = up ? r - ay : r;                                                     \
    B down = 2 * r < -ay || (2 * r == -ay && odd);                           \
    k = down ? k - 1 : k;                                                    \
    r = down ? r + ay : r;                                                   \
    /* finite x by an infinite y: k = 0 and x itself */                      \
    B y_inf = ay == FP(S, INF) && ax < FP(S, INF);                                  \
    r = y_inf ? ax : r;                                                      \
    k = y_inf || r != r ? (T)0 : k;                                          \
    T low7 = k - 128 * floor(k / 128);                                       \
    *quo = fp_to_int((x < 0) != (y < 0) ? -low7 : low7);                     \
    return copysign((T)1, x) * r;                                            \
  }                                                                          \
  T WEFT_OVERLOAD remainder(T x, T y) {                                      \
    I quo;                                                                   \
    return remquo_core(x, y, &quo);                                          \
  }
WEFT_MATH_TYPES(REMQUO_CORE)

/* ------------------------------------------------ pointer arguments */

/* Each is defined for __private pointers; the generic, __global and
 * __local overloads store what the __private one gives. */
#define OTHER_SPACES(M, ...)                                                 \
  M(, __VA_ARGS__) M(__global, __VA_ARGS__) M(__local, __VA_ARGS__)
#define STORE1(AS, name, T, P)                                               \
  T WEFT_OVERLOAD name(T x, AS P *out) {                                     \
    P v;                                                                     \
    T r = name(x, &v);                                                       \
    *out = v;                                                                \
    return r;                                                                \
  }
#define STORE2(AS, name, T, P)                                               \
  T WEFT_OVERLOAD name(T x, T y, AS P *out) {                                \
    P v;                                                                     \
    T r = name(x, y, &v);                                                    \
    *out = v;                                                                \
    return r;                                                                \
  }

#define POINTERS(T, B, I, U, S, W)                                           \
  T WEFT_OVERLOAD fract(T x, __private T *iptr) {                            \
    T fl = floor(x);                                                         \
    T r = fmin(x - fl, (T)FP(S, BELOW1));                                    \
    r = fabs(x) == FP(S, INF) ? copysign((T)0, x) : r;                       \
    *iptr = fl;                                                              \
    return x == 0 || x != x ? x : r;                                         \
  }                                                                          \
  T WEFT_OVERLOAD frexp(T x, __private I *exp) {                             \
    T ax = fabs(x);                                                          \
    B special = ax == 0 || ax == FP(S, INF) || ax != ax;                     \
    B e = exponent(x) + 1;                                                   \
    *exp = bits_to_int(special ? (B)0 : e);                                  \
    return special ? x : ldexp(x, bits_to_int(-e));                          \
  }                                                                          \
  T WEFT_OVERLOAD modf(T x, __private T *iptr) {                             \
    T t = trunc(x);                                                          \
    *iptr = t;                                                               \
    return copysign(fabs(x) == FP(S, INF) ? (T)0 : x - t, x);                \
  }                                                                          \
  T WEFT_OVERLOAD sincos(T x, __private T *cosval) {                         \
    *cosval = cos(x);                                                        \
    return sin(x);                                                           \
  }                                                                          \
  /* The sign of Gamma(x): negative between an odd negative integer and */  \
  /* the next; 0 at the poles (zero, negative integers), as 7.5 says.  */  \
  T WEFT_OVERLOAD lgamma_r(T x, __private I *signp) {                        \
    T fl = floor(x), halved = fl * (T)0.5;                                     \
    B sign = x <= 0 && x == fl ? (B)0 : (B)1;                                \
    sign = x < 0 && x != fl && halved != floor(halved) ? (B)-1 : sign;           \
    *signp = bits_to_int(sign);                                              \
    return lgamma(x);                                                        \
  }                                                                          \
  T WEFT_OVERLOAD remquo(T x, T y, __private I *quo) {                       \
    return remquo_core(x, y, quo);                                           \
  }                                                                          \
  OTHER_SPACES(STORE1, fract, T, T)                                          \
  OTHER_SPACES(STORE1, frexp, T, I)                                          \
  OTHER_SPACES(STORE1, modf, T, T)                                           \
  OTHER_SPACES(STORE1, sincos, T, T)                                         \
  OTHER_SPACES(STORE1, lgamma_r, T, I)                                       \
  OTHER_SPACES(STORE2, remquo, T, I)
WEFT_MATH_TYPES(POINTERS)
