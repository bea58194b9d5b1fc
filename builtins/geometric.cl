/*
 * Geometric functions (OpenCL C 3.0, 6.15.8) for floats and doubles of 1 to
 * 4 components.
 *
 * length, distance and normalize must not overflow or underflow where the
 * result is representable. For doubles, the vector is scaled by a power of
 * two (which is exact) where its sum of squares would overflow or lose bits
 * to underflow. Floats are computed in double, where their squares are
 * exact and can neither overflow nor underflow, so their results are
 * correctly rounded but for a rare double rounding.
 */
#include "builtins.h"

static float WEFT_OVERLOAD weft_sum(float x) { return x; }
static float WEFT_OVERLOAD weft_sum(float2 x) { return x.x + x.y; }
static float WEFT_OVERLOAD weft_sum(float3 x) { return x.x + x.y + x.z; }
static float WEFT_OVERLOAD weft_sum(float4 x) { return (x.x + x.y) + (x.z + x.w); }
static double WEFT_OVERLOAD weft_sum(double x) { return x; }
static double WEFT_OVERLOAD weft_sum(double2 x) { return x.x + x.y; }
static double WEFT_OVERLOAD weft_sum(double3 x) { return x.x + x.y + x.z; }
static double WEFT_OVERLOAD weft_sum(double4 x) { return (x.x + x.y) + (x.z + x.w); }

/* The largest component (a NaN is passed over unless all are NaN). */
static double WEFT_OVERLOAD weft_max(double x) { return x; }
#define WEFT_MAX(T)                                                          \
  static double WEFT_OVERLOAD weft_max(T x) { return __builtin_reduce_max(x); }
WEFT_MAX(double2)
WEFT_MAX(double3)
WEFT_MAX(double4)

#define WEFT_SQRT(x) __builtin_elementwise_sqrt(x)

/* Powers of two that bring a double sum of squares for length back into
 * range: below 2^-900 the squares of the small components may be
 * subnormal; after the scaling even 2^-1074 squares to a normal number,
 * and 4 * (2^1024 * 2^-600)^2 does not overflow. Components too small for
 * the scaled sum are too small to change the length. */
#define WEFT_DOWN 0x1p-600
#define WEFT_SMALL 0x1p-900
#define WEFT_UP 0x1p563

/* normalize scales by the power of two that brings the largest magnitude m
 * into [2, 4) (a subnormal m: below 2): the sum of squares is then in
 * range, and a component that the scaling makes subnormal has a subnormal
 * result too, so no precision is lost that the result could hold.
 * Infinities become +-1 and the rest +-0, as the spec says; a NaN makes
 * every component NaN; a zero vector is its own result. */
#define WEFT_GEOMETRIC_DOUBLE(T)                                             \
  double WEFT_OVERLOAD dot(T x, T y) { return weft_sum(x * y); }             \
  double WEFT_OVERLOAD length(T p) {                                         \
    double l2 = weft_sum(p * p);                                             \
    if (l2 == INFINITY) {                                                    \
      p *= WEFT_DOWN;                                                        \
      return WEFT_SQRT(weft_sum(p * p)) / WEFT_DOWN;                         \
    }                                                                        \
    if (l2 < WEFT_SMALL) {                                                   \
      p *= WEFT_UP;                                                          \
      return WEFT_SQRT(weft_sum(p * p)) / WEFT_UP;                           \
    }                                                                        \
    return WEFT_SQRT(l2);                                                    \
  }                                                                          \
  double WEFT_OVERLOAD distance(T p0, T p1) { return length(p0 - p1); }      \
  T WEFT_OVERLOAD normalize(T p) {                                           \
    T a = __builtin_elementwise_abs(p);                                      \
    double m = weft_max(a); /* passes over NaN, unless all are */            \
    if (m == INFINITY) {                                                     \
      p = a == INFINITY ? __builtin_elementwise_copysign((T)1, p) : p * 0.0; \
      m = 1;                                                                 \
    }                                                                        \
    if (m == 0) return weft_sum(a) == 0 ? p : (T)NAN;                        \
    ulong e = as_ulong(m) >> 52;                                             \
    p *= as_double((2047 - (e ? e : 1)) << 52); /* 2^(1024 - e), normal */   \
    return p / WEFT_SQRT(weft_sum(p * p));                                   \
  }

WEFT_GEOMETRIC_DOUBLE(double)
WEFT_GEOMETRIC_DOUBLE(double2)
WEFT_GEOMETRIC_DOUBLE(double3)
WEFT_GEOMETRIC_DOUBLE(double4)

/* Floats: dot in float, the rest through double (D, converted by CVT). The
 * fast_ forms stay in float, as the spec's formulas do: a sum of squares
 * beyond FLT_MAX is undefined for them, and fast_normalize may return p
 * when it is below FLT_MIN (here: when it is 0). */
#define WEFT_GEOMETRIC_FLOAT(CVT, F, D, _)                                   \
  float WEFT_OVERLOAD dot(F x, F y) { return weft_sum(x * y); }              \
  float WEFT_OVERLOAD length(F p) {                                          \
    D d = CVT(p, D);                                                         \
    return (float)WEFT_SQRT(weft_sum(d * d));                                \
  }                                                                          \
  float WEFT_OVERLOAD distance(F p0, F p1) {                                 \
    D d = CVT(p0, D) - CVT(p1, D);                                           \
    return (float)WEFT_SQRT(weft_sum(d * d));                                \
  }                                                                          \
  F WEFT_OVERLOAD normalize(F p) { return CVT(normalize(CVT(p, D)), F); }    \
  float WEFT_OVERLOAD fast_length(F p) {                                     \
    return WEFT_SQRT(weft_sum(p * p));                                       \
  }                                                                          \
  float WEFT_OVERLOAD fast_distance(F p0, F p1) {                            \
    return fast_length(p0 - p1);                                             \
  }                                                                          \
  F WEFT_OVERLOAD fast_normalize(F p) {                                      \
    float l2 = weft_sum(p * p);                                              \
    return l2 == 0 ? p : p * (1 / WEFT_SQRT(l2));                            \
  }

WEFT_GEOMETRIC_FLOAT(WEFT_CVT_S, float, double, _)
WEFT_GEOMETRIC_FLOAT(WEFT_CVT_V, float2, double2, _)
WEFT_GEOMETRIC_FLOAT(WEFT_CVT_V, float3, double3, _)
WEFT_GEOMETRIC_FLOAT(WEFT_CVT_V, float4, double4, _)

/* cross of 4-component vectors ignores w and returns w = 0. */
#define WEFT_CROSS(T)                                                        \
  T WEFT_OVERLOAD cross(T a, T b) {                                          \
    T r = a.yzxw * b.zxyw - a.zxyw * b.yzxw;                                 \
    r.w = 0;                                                                 \
    return r;                                                                \
  }
WEFT_CROSS(float4)
WEFT_CROSS(double4)
#define WEFT_CROSS3(T)                                                       \
  T WEFT_OVERLOAD cross(T a, T b) { return a.yzx * b.zxy - a.zxy * b.yzx; }
WEFT_CROSS3(float3)
WEFT_CROSS3(double3)
