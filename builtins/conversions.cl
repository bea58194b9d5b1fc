/*
 * Explicit conversions (OpenCL C 3.0, 6.4.3): convert_<dst>[_sat][_<mode>]
 * for every pair of the ten scalar types, scalar and of 2, 3, 4, 8 and 16
 * components (the same on both sides).
 *
 * Each public function is one line calling weft_cvt_<dst>(x, mode, sat);
 * those helpers are overloaded on the source type, inlined, and the constant
 * mode and sat fold away. What a helper does depends only on the kind of its
 * two types, so it is written once per kind:
 *   - integer to integer: wrap around, or clamp in the source type (_sat);
 *   - float to integer: round in the float type (rtz by default), then
 *     convert; _sat clamps and sends NaN to 0;
 *   - to float or double: round to nearest is the hardware conversion (the
 *     default); the directed modes take that result and step it one ulp when
 *     the exact value lies on the wrong side, which is found exactly (never
 *     by changing the floating-point environment).
 * Everything is branch-free and elementwise, so vectors stay vectors.
 */
#include "builtins.h"

#define WEFT_DEFAULT 0

/* Range of each integer type, and its kind: SMALL (exact in float), I32
 * (exact in double), I64, or a floating-point type. The destination group
 * says which modes and helpers a destination type has. */
#define WEFT_MIN_char CHAR_MIN
#define WEFT_MAX_char CHAR_MAX
#define WEFT_MIN_uchar 0
#define WEFT_MAX_uchar UCHAR_MAX
#define WEFT_MIN_short SHRT_MIN
#define WEFT_MAX_short SHRT_MAX
#define WEFT_MIN_ushort 0
#define WEFT_MAX_ushort USHRT_MAX
#define WEFT_MIN_int INT_MIN
#define WEFT_MAX_int INT_MAX
#define WEFT_MIN_uint 0
#define WEFT_MAX_uint UINT_MAX
#define WEFT_MIN_long LONG_MIN
#define WEFT_MAX_long LONG_MAX
#define WEFT_MIN_ulong 0
#define WEFT_MAX_ulong ULONG_MAX

#define WEFT_KIND_char SMALL
#define WEFT_KIND_uchar SMALL
#define WEFT_KIND_short SMALL
#define WEFT_KIND_ushort SMALL
#define WEFT_KIND_int I32
#define WEFT_KIND_uint I32
#define WEFT_KIND_long I64
#define WEFT_KIND_ulong I64
#define WEFT_KIND_float F32
#define WEFT_KIND_double F64

#define WEFT_GROUP_char INT
#define WEFT_GROUP_uchar INT
#define WEFT_GROUP_short INT
#define WEFT_GROUP_ushort INT
#define WEFT_GROUP_int INT
#define WEFT_GROUP_uint INT
#define WEFT_GROUP_long INT
#define WEFT_GROUP_ulong INT
#define WEFT_GROUP_float FLOAT
#define WEFT_GROUP_double DOUBLE

/* ---- Helpers that differ between scalars (K = S) and vectors (K = V). */

/* A comparison as a mask of all ones or zeros in the integer type T. Scalar
 * comparisons give 1 or 0; vector ones -1 or 0 in their operands' width. */
#define WEFT_MASK_S(T, c) ((T)-(c))
#define WEFT_MASK_V(T, c) __builtin_convertvector(c, T)

/* ---- Directed rounding of a result rounded to nearest. */

/* r was rounded to nearest; up and down are masks of the components whose
 * exact value lies above or below r. The directed modes move those one ulp
 * by stepping the bit pattern: +1 moves away from zero, -1 toward it, which
 * also takes an overflowed infinity back to the largest finite value. */
#define WEFT_DIRECTED(N, K, F, I)                                            \
  static F##N WEFT_OVERLOAD weft_directed(F##N r, I##N up, I##N down,        \
                                          int mode) {                        \
    I##N bits = __builtin_astype(r, I##N);                                   \
    I##N neg = bits >> (8 * sizeof(I) - 1); /* 0, or -1 when negative */     \
    I##N toward_pos = neg | 1;              /* the step that goes up */      \
    if (mode == WEFT_RTP) bits += up & toward_pos;                           \
    if (mode == WEFT_RTN) bits -= down & toward_pos;                         \
    if (mode == WEFT_RTZ) bits += (up & neg) | (down & ~neg);                \
    return __builtin_astype(bits, F##N);                                     \
  }

/* double to float. x - (double)r has the sign of the rounding error, also
 * when r overflowed to infinity; it is NaN (no step) for NaN and inf. */
#define WEFT_D2F(N, K)                                                       \
  static float##N WEFT_OVERLOAD weft_d2f(double##N x, int mode) {            \
    float##N r = WEFT_CVT_##K(x, float##N);                                  \
    if (mode <= WEFT_RTE) return r;                                          \
    double##N err = x - WEFT_CVT_##K(r, double##N);                          \
    return weft_directed(r, WEFT_MASK_##K(int##N, err > 0),                  \
                         WEFT_MASK_##K(int##N, err < 0), mode);              \
  }

/* 64-bit integer to double. x = hi * 2^32 + lo with both parts exact in
 * double and |hi * 2^32| >= lo, so Fast2Sum gives the exact error of the
 * rounded sum, which is the rounded x. */
#define WEFT_L2D(N, K, L, H)                                                 \
  static double##N WEFT_OVERLOAD weft_l2d(L##N x, int mode) {                \
    double##N r = WEFT_CVT_##K(x, double##N);                                \
    if (mode <= WEFT_RTE) return r;                                          \
    double##N hi = WEFT_CVT_##K(WEFT_CVT_##K(x >> 32, H##N), double##N);     \
    double##N lo = WEFT_CVT_##K(WEFT_CVT_##K(x, uint##N), double##N);        \
    hi *= 0x1p32;                                                            \
    double##N err = lo - (r - hi);                                           \
    return weft_directed(r, WEFT_MASK_##K(long##N, err > 0),                 \
                         WEFT_MASK_##K(long##N, err < 0), mode);             \
  }

#define WEFT_ROUNDING_HELPERS(N, K, _)                                       \
  WEFT_DIRECTED(N, K, float, int)                                            \
  WEFT_DIRECTED(N, K, double, long)                                          \
  WEFT_D2F(N, K)                                                             \
  WEFT_L2D(N, K, long, int)                                                  \
  WEFT_L2D(N, K, ulong, uint)
WEFT_EACH_N(WEFT_ROUNDING_HELPERS, _)

/* Rounds a float or double to an integral value in the given mode. */
#define WEFT_ROUND_INTEGRAL(T, _)                                            \
  static T WEFT_OVERLOAD weft_round_integral(T x, int mode) {                \
    if (mode == WEFT_RTE) return __builtin_elementwise_roundeven(x);         \
    if (mode == WEFT_RTP) return __builtin_elementwise_ceil(x);              \
    if (mode == WEFT_RTN) return __builtin_elementwise_floor(x);             \
    return __builtin_elementwise_trunc(x);                                   \
  }
WEFT_EACH_FLOAT(WEFT_ROUND_INTEGRAL, _)

/* ---- One helper weft_cvt_<D>(S x, mode, sat) per kind of (D, S). */

/* The source values that saturate to themselves, as source values: the
 * intersection of the two ranges. Minimums compare exactly as long,
 * maximums as ulong. */
#define WEFT_LO(D, S)                                                        \
  ((S)((long)WEFT_MIN_##D > (long)WEFT_MIN_##S ? (long)WEFT_MIN_##D          \
                                               : (long)WEFT_MIN_##S))
#define WEFT_HI(D, S)                                                        \
  ((S)((ulong)WEFT_MAX_##D < (ulong)WEFT_MAX_##S ? (ulong)WEFT_MAX_##D       \
                                                 : (ulong)WEFT_MAX_##S))

#define WEFT_CVT_INT_FROM_INT(D, S, N, K)                                    \
  static D##N WEFT_OVERLOAD weft_cvt_##D(S##N x, int mode, bool sat) {       \
    if (sat)                                                                 \
      x = __builtin_elementwise_min(                                         \
          __builtin_elementwise_max(x, (S##N)WEFT_LO(D, S)),                 \
          (S##N)WEFT_HI(D, S));                                              \
    return WEFT_CVT_##K(x, D##N);                                            \
  }
#define WEFT_CVT_INT_SMALL WEFT_CVT_INT_FROM_INT
#define WEFT_CVT_INT_I32 WEFT_CVT_INT_FROM_INT
#define WEFT_CVT_INT_I64 WEFT_CVT_INT_FROM_INT

/* Float to integer. Out of range without _sat the result is undefined, and
 * the conversion does not trap (exceptions are masked). With _sat, hi is
 * max + 1, a power of two, exact in every float type; the components at or
 * above it are converted from 0 and then replaced by max. */
#define WEFT_CVT_INT_FROM_FLOAT(D, S, N, K)                                  \
  static D##N WEFT_OVERLOAD weft_cvt_##D(S##N x, int mode, bool sat) {       \
    S##N r = weft_round_integral(x, mode);                                   \
    if (!sat) return WEFT_CVT_##K(r, D##N);                                  \
    S##N lo = (S##N)WEFT_MIN_##D, hi = (S##N)WEFT_MAX_##D + (S##N)1;         \
    S##N c = r < lo ? lo : r;                                                \
    c = ((c >= hi) | (c != c)) ? (S##N)0 : c; /* too large, or NaN */        \
    D##N v = WEFT_CVT_##K(c, D##N);                                          \
    D##N over = WEFT_MASK_##K(D##N, r >= hi);                                \
    return (v & ~over) | ((D##N)WEFT_MAX_##D & over);                        \
  }
#define WEFT_CVT_INT_F32 WEFT_CVT_INT_FROM_FLOAT
#define WEFT_CVT_INT_F64 WEFT_CVT_INT_FROM_FLOAT

/* To float: small integers are exact; 32-bit ones are exact in double, and
 * rounding that double once in the mode is rounding x. A 64-bit integer is
 * rounded to double and then to float in the same directed mode, which is
 * also rounding x once: the double result never crosses a float. */
#define WEFT_CVT_FLOAT_SMALL(D, S, N, K)                                     \
  static float##N WEFT_OVERLOAD weft_cvt_float(S##N x, int mode, bool sat) { \
    return WEFT_CVT_##K(x, float##N);                                        \
  }
#define WEFT_CVT_FLOAT_I32(D, S, N, K)                                       \
  static float##N WEFT_OVERLOAD weft_cvt_float(S##N x, int mode, bool sat) { \
    if (mode <= WEFT_RTE) return WEFT_CVT_##K(x, float##N);                  \
    return weft_d2f(WEFT_CVT_##K(x, double##N), mode);                       \
  }
#define WEFT_CVT_FLOAT_I64(D, S, N, K)                                       \
  static float##N WEFT_OVERLOAD weft_cvt_float(S##N x, int mode, bool sat) { \
    if (mode <= WEFT_RTE) return WEFT_CVT_##K(x, float##N);                  \
    return weft_d2f(weft_l2d(x, mode), mode);                                \
  }
#define WEFT_CVT_FLOAT_F32(D, S, N, K)                                       \
  static float##N WEFT_OVERLOAD weft_cvt_float(S##N x, int mode, bool sat) { \
    return x;                                                                \
  }
#define WEFT_CVT_FLOAT_F64(D, S, N, K)                                       \
  static float##N WEFT_OVERLOAD weft_cvt_float(S##N x, int mode, bool sat) { \
    return weft_d2f(x, mode);                                                \
  }

/* To double, only 64-bit integers can be inexact. */
#define WEFT_CVT_DOUBLE_EXACT(D, S, N, K)                                    \
  static double##N WEFT_OVERLOAD weft_cvt_double(S##N x, int mode,           \
                                                 bool sat) {                 \
    return WEFT_CVT_##K(x, double##N);                                       \
  }
#define WEFT_CVT_DOUBLE_SMALL WEFT_CVT_DOUBLE_EXACT
#define WEFT_CVT_DOUBLE_I32 WEFT_CVT_DOUBLE_EXACT
#define WEFT_CVT_DOUBLE_F32 WEFT_CVT_DOUBLE_EXACT
#define WEFT_CVT_DOUBLE_F64 WEFT_CVT_DOUBLE_EXACT
#define WEFT_CVT_DOUBLE_I64(D, S, N, K)                                      \
  static double##N WEFT_OVERLOAD weft_cvt_double(S##N x, int mode,           \
                                                 bool sat) {                 \
    return weft_l2d(x, mode);                                                \
  }

/* ---- The public functions. */

#define WEFT_CONVERT_ONE(D, S, N, sat, SAT, mode, MODE)                      \
  D##N WEFT_OVERLOAD convert_##D##N##sat##mode(S##N x) {                     \
    return weft_cvt_##D(x, MODE, SAT);                                       \
  }

#define WEFT_CONVERT_MODES(D, S, N, sat, SAT)                                \
  WEFT_CONVERT_ONE(D, S, N, sat, SAT, , WEFT_DEFAULT)                        \
  WEFT_CONVERT_ONE(D, S, N, sat, SAT, _rte, WEFT_RTE)                        \
  WEFT_CONVERT_ONE(D, S, N, sat, SAT, _rtz, WEFT_RTZ)                        \
  WEFT_CONVERT_ONE(D, S, N, sat, SAT, _rtp, WEFT_RTP)                        \
  WEFT_CONVERT_ONE(D, S, N, sat, SAT, _rtn, WEFT_RTN)

/* Only integer destinations have _sat forms. */
#define WEFT_SATURATING_INT(D, S, N) WEFT_CONVERT_MODES(D, S, N, _sat, true)
#define WEFT_SATURATING_FLOAT(D, S, N)
#define WEFT_SATURATING_DOUBLE(D, S, N)

#define WEFT_CAT3(a, b, c) WEFT_CAT3_(a, b, c)
#define WEFT_CAT3_(a, b, c) a##b##c
#define WEFT_CAT4(a, b, c, d) WEFT_CAT4_(a, b, c, d)
#define WEFT_CAT4_(a, b, c, d) a##b##c##d

#define WEFT_CONVERT_WIDTH(N, K, D, S)                                       \
  WEFT_CAT4(WEFT_CVT_, WEFT_GROUP_##D, _, WEFT_KIND_##S)(D, S, N, K)         \
  WEFT_CONVERT_MODES(D, S, N, , false)                                       \
  WEFT_CAT3(WEFT_SATURATING_, WEFT_GROUP_##D, )(D, S, N)

#define WEFT_CONVERT_PAIR(D, S) WEFT_EACH_N(WEFT_CONVERT_WIDTH, D, S)

/* Every destination D, for one source S. */
#define WEFT_CONVERT_FROM(S, _)                                              \
  WEFT_CONVERT_PAIR(char, S) WEFT_CONVERT_PAIR(uchar, S)                     \
  WEFT_CONVERT_PAIR(short, S) WEFT_CONVERT_PAIR(ushort, S)                   \
  WEFT_CONVERT_PAIR(int, S) WEFT_CONVERT_PAIR(uint, S)                       \
  WEFT_CONVERT_PAIR(long, S) WEFT_CONVERT_PAIR(ulong, S)                     \
  WEFT_CONVERT_PAIR(float, S) WEFT_CONVERT_PAIR(double, S)

WEFT_EACH_SCALAR(WEFT_CONVERT_FROM, _)
