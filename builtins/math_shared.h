/*
 * math_shared.h: what the math builtins (math.cl, math_sleef.cl,
 * math_sleef_wide.cl, math_half_native.cl) share.
 *
 * Transcendental functions come from SLEEF (libsleef, which libweft links):
 * its functions of 1, 4, 8 and 16 floats and of 1, 2, 4 and 8 doubles, with
 * the error bound in their names (_u10: 1.0 ulp, _u05: 0.5 ulp, _u35: 3.5
 * ulp). math_sleef.cl turns each into an overloaded __weft_sleef_NAME_U for
 * every float and double width; the builtins are written on top of those.
 */
#ifndef WEFT_MATH_SHARED_H
#define WEFT_MATH_SHARED_H

#include "builtins.h"

/* X1(name, suffix) for the SLEEF functions of one argument, X2 for those of
 * two. The suffix includes its underscore; the exact functions have none. */
#define WEFT_SLEEF_FUNCTIONS(X1, X2)                                         \
  X1(acos, _u10) X1(acosh, _u10) X1(asin, _u10) X1(asinh, _u10)              \
  X1(atan, _u10) X2(atan2, _u10) X1(atanh, _u10) X1(cbrt, _u10)              \
  X1(cos, _u10) X1(cosh, _u10) X1(cospi, _u05) X1(erf, _u10)                 \
  X1(erfc, _u15) X1(exp, _u10) X1(exp2, _u10) X1(exp10, _u10)                \
  X1(expm1, _u10) X2(hypot, _u05) X1(lgamma, _u10) X1(log, _u10)             \
  X1(log2, _u10) X1(log10, _u10) X1(log1p, _u10) X2(pow, _u10)               \
  X1(sin, _u10) X1(sinh, _u10) X1(sinpi, _u05) X1(tan, _u10)                 \
  X1(tanh, _u10) X1(tgamma, _u10) X2(fmod, )                                \
  /* the faster forms, for half_ and native_ functions and rootn */          \
  X1(cos, _u35) X1(sin, _u35) X1(tan, _u35) X1(log, _u35) X1(log2, _u35)     \
  X1(exp2, _u35) X1(exp10, _u35)

/* M(T, B, I, U, S, W) for each float and double type T: B is the signed
 * integer type of T's bits, I the int type of T's width (exponents,
 * pown's n), U the unsigned type of T's bits (nan's code), S the scalar
 * type and W the width's suffix (empty for scalars). */
#define WEFT_MATH_TYPES(M)                                                   \
  M(float, int, int, uint, float, )                                          \
  M(float2, int2, int2, uint2, float, 2)                                     \
  M(float3, int3, int3, uint3, float, 3)                                     \
  M(float4, int4, int4, uint4, float, 4)                                     \
  M(float8, int8, int8, uint8, float, 8)                                     \
  M(float16, int16, int16, uint16, float, 16)                                \
  M(double, long, int, ulong, double, )                                      \
  M(double2, long2, int2, ulong2, double, 2)                                 \
  M(double3, long3, int3, ulong3, double, 3)                                 \
  M(double4, long4, int4, ulong4, double, 4)                                 \
  M(double8, long8, int8, ulong8, double, 8)                                 \
  M(double16, long16, int16, ulong16, double, 16)

/* The layout of float and double: WEFT_FP(S, MANT) and so on. */
#define WEFT_FP(S, what) WEFT_FP_##what##_##S
#define WEFT_FP_SBITS_float int       /* the scalar bits type */
#define WEFT_FP_SBITS_double long
#define WEFT_FP_MANT_float 23           /* explicit mantissa bits */
#define WEFT_FP_MANT_double 52
#define WEFT_FP_BIAS_float 127          /* exponent bias */
#define WEFT_FP_BIAS_double 1023
#define WEFT_FP_MMASK_float 0x7fffffu   /* mantissa field */
#define WEFT_FP_MMASK_double 0xfffffffffffffUL
#define WEFT_FP_QNAN_float 0x7fc00000u  /* the default quiet NaN's bits */
#define WEFT_FP_QNAN_double 0x7ff8000000000000UL
#define WEFT_FP_MIN_float FLT_MIN       /* smallest normal */
#define WEFT_FP_MIN_double DBL_MIN
#define WEFT_FP_DENORM_float 0x1p-149f  /* smallest subnormal */
#define WEFT_FP_DENORM_double 0x1p-1074
#define WEFT_FP_BELOW1_float 0x1.fffffep-1f /* largest below 1 */
#define WEFT_FP_BELOW1_double 0x1.fffffffffffffp-1
/* A power of two that makes any subnormal normal, and its exponent. */
#define WEFT_FP_SCALE_float 0x1p64f
#define WEFT_FP_SCALE_double 0x1p128
#define WEFT_FP_SCALE_LOG_float 64
#define WEFT_FP_SCALE_LOG_double 128
#define WEFT_FP_LN2_float M_LN2_F
#define WEFT_FP_LN2_double M_LN2
/* Where SLEEF's asinh, acosh and log1p stop (x * x or 1 + x overflow) and
 * ln(2x), ln(x) give the result to the last bit already. */
#define WEFT_FP_LOG_ONLY_float 0x1p30f
#define WEFT_FP_LOG_ONLY_double 0x1p60
/* Where SLEEF's fmod stays exact: |x / y| below this (it gives NaN once
 * x / y overflows). */
#define WEFT_FP_FMOD_RANGE_float 0x1p100f
#define WEFT_FP_FMOD_RANGE_double 0x1p900
/* Where SLEEF's sinh and cosh overflow early (exp(|x|) does). */
#define WEFT_FP_EXP_OVER_float 88.0f
#define WEFT_FP_EXP_OVER_double 709.0
#define WEFT_FP_PI_float M_PI_F
#define WEFT_FP_PI_double M_PI
#define WEFT_FP_INF_float INFINITY
#define WEFT_FP_INF_double ((double)INFINITY)
#define WEFT_FP_QNANV_float NAN
#define WEFT_FP_QNANV_double ((double)NAN)
/* int exponents widened to the bits type (long for double) */
#define WEFT_FP_INT_TO_BITS_float
#define WEFT_FP_INT_TO_BITS_double __weft_math_to_long

/* Declares __weft_sleef_NAME_U(T) (or (T, T)) for every float type T. */
#define WEFT_SLEEF_DECLARE_ONE1(T, name) T WEFT_OVERLOAD name(T);
#define WEFT_SLEEF_DECLARE_ONE2(T, name) T WEFT_OVERLOAD name(T, T);
#define WEFT_SLEEF_DECLARE1(name, suffix)                                    \
  WEFT_EACH_FLOAT(WEFT_SLEEF_DECLARE_ONE1, __weft_sleef_##name##suffix)
#define WEFT_SLEEF_DECLARE2(name, suffix)                                    \
  WEFT_EACH_FLOAT(WEFT_SLEEF_DECLARE_ONE2, __weft_sleef_##name##suffix)
WEFT_SLEEF_FUNCTIONS(WEFT_SLEEF_DECLARE1, WEFT_SLEEF_DECLARE2)

#endif
