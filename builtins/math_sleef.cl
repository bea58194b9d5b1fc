/*
 * __weft_sleef_NAME_U: one SLEEF function as an overload for every float
 * and double width (see math_shared.h).
 *
 * Scalars and 128-bit vectors (float4, double2) are passed in xmm registers
 * under any build flags, so SLEEF's functions of those widths are called
 * directly. Wider vectors go through math_sleef_wide.cl's helpers. float2
 * and float3 ride in a float4, double3 in a double4; the spare lanes repeat
 * a real one, so they never take a slow path of their own.
 */
#include "math_shared.h"

/* const: SLEEF's functions touch no memory of ours. */
#define NARROW1(T, f) T __attribute__((const)) f(T);
#define NARROW2(T, f) T __attribute__((const)) f(T, T);
#define HELPER1(T, f) void f(private T *);
#define HELPER2(T, f) void f(private T *, private const T *);

/* SLEEF's scalar and 128-bit functions, and the wide helpers. */
#define DECLARE(n, name, suffix)                                             \
  NARROW##n(float, Sleef_##name##f##suffix)                                  \
  NARROW##n(float4, Sleef_##name##f4##suffix)                                \
  NARROW##n(double, Sleef_##name##suffix)                                    \
  NARROW##n(double2, Sleef_##name##d2##suffix)                               \
  HELPER##n(float8, __weft_sleef_##name##f8##suffix)                         \
  HELPER##n(float16, __weft_sleef_##name##f16##suffix)                       \
  HELPER##n(double4, __weft_sleef_##name##d4##suffix)                        \
  HELPER##n(double8, __weft_sleef_##name##d8##suffix)

/* Overloads of one argument. */
#define OVERLOADS1(name, suffix)                                             \
  DECLARE(1, name, suffix)                                                   \
  float WEFT_OVERLOAD __weft_sleef_##name##suffix(float x) {                 \
    return Sleef_##name##f##suffix(x);                                       \
  }                                                                          \
  float2 WEFT_OVERLOAD __weft_sleef_##name##suffix(float2 x) {               \
    return Sleef_##name##f4##suffix(x.xyxy).lo;                              \
  }                                                                          \
  float3 WEFT_OVERLOAD __weft_sleef_##name##suffix(float3 x) {               \
    return Sleef_##name##f4##suffix(x.xyzz).xyz;                             \
  }                                                                          \
  float4 WEFT_OVERLOAD __weft_sleef_##name##suffix(float4 x) {               \
    return Sleef_##name##f4##suffix(x);                                      \
  }                                                                          \
  float8 WEFT_OVERLOAD __weft_sleef_##name##suffix(float8 x) {               \
    __weft_sleef_##name##f8##suffix(&x);                                     \
    return x;                                                                \
  }                                                                          \
  float16 WEFT_OVERLOAD __weft_sleef_##name##suffix(float16 x) {             \
    __weft_sleef_##name##f16##suffix(&x);                                    \
    return x;                                                                \
  }                                                                          \
  double WEFT_OVERLOAD __weft_sleef_##name##suffix(double x) {               \
    return Sleef_##name##suffix(x);                                          \
  }                                                                          \
  double2 WEFT_OVERLOAD __weft_sleef_##name##suffix(double2 x) {             \
    return Sleef_##name##d2##suffix(x);                                      \
  }                                                                          \
  double3 WEFT_OVERLOAD __weft_sleef_##name##suffix(double3 x) {             \
    double4 v = x.xyzz;                                                      \
    __weft_sleef_##name##d4##suffix(&v);                                     \
    return v.xyz;                                                            \
  }                                                                          \
  double4 WEFT_OVERLOAD __weft_sleef_##name##suffix(double4 x) {             \
    __weft_sleef_##name##d4##suffix(&x);                                     \
    return x;                                                                \
  }                                                                          \
  double8 WEFT_OVERLOAD __weft_sleef_##name##suffix(double8 x) {             \
    __weft_sleef_##name##d8##suffix(&x);                                     \
    return x;                                                                \
  }                                                                          \
  double16 WEFT_OVERLOAD __weft_sleef_##name##suffix(double16 x) {           \
    double8 lo = x.lo, hi = x.hi;                                            \
    __weft_sleef_##name##d8##suffix(&lo);                                    \
    __weft_sleef_##name##d8##suffix(&hi);                                    \
    return (double16)(lo, hi);                                               \
  }

/* Overloads of two arguments. */
#define OVERLOADS2(name, suffix)                                             \
  DECLARE(2, name, suffix)                                                   \
  float WEFT_OVERLOAD __weft_sleef_##name##suffix(float x, float y) {        \
    return Sleef_##name##f##suffix(x, y);                                    \
  }                                                                          \
  float2 WEFT_OVERLOAD __weft_sleef_##name##suffix(float2 x, float2 y) {     \
    return Sleef_##name##f4##suffix(x.xyxy, y.xyxy).lo;                      \
  }                                                                          \
  float3 WEFT_OVERLOAD __weft_sleef_##name##suffix(float3 x, float3 y) {     \
    return Sleef_##name##f4##suffix(x.xyzz, y.xyzz).xyz;                     \
  }                                                                          \
  float4 WEFT_OVERLOAD __weft_sleef_##name##suffix(float4 x, float4 y) {     \
    return Sleef_##name##f4##suffix(x, y);                                   \
  }                                                                          \
  float8 WEFT_OVERLOAD __weft_sleef_##name##suffix(float8 x, float8 y) {     \
    __weft_sleef_##name##f8##suffix(&x, &y);                                 \
    return x;                                                                \
  }                                                                          \
  float16 WEFT_OVERLOAD __weft_sleef_##name##suffix(float16 x, float16 y) {  \
    __weft_sleef_##name##f16##suffix(&x, &y);                                \
    return x;                                                                \
  }                                                                          \
  double WEFT_OVERLOAD __weft_sleef_##name##suffix(double x, double y) {     \
    return Sleef_##name##suffix(x, y);                                       \
  }                                                                          \
  double2 WEFT_OVERLOAD __weft_sleef_##name##suffix(double2 x, double2 y) {  \
    return Sleef_##name##d2##suffix(x, y);                                   \
  }                                                                          \
  double3 WEFT_OVERLOAD __weft_sleef_##name##suffix(double3 x, double3 y) {  \
    double4 v = x.xyzz, w = y.xyzz;                                          \
    __weft_sleef_##name##d4##suffix(&v, &w);                                 \
    return v.xyz;                                                            \
  }                                                                          \
  double4 WEFT_OVERLOAD __weft_sleef_##name##suffix(double4 x, double4 y) {  \
    __weft_sleef_##name##d4##suffix(&x, &y);                                 \
    return x;                                                                \
  }                                                                          \
  double8 WEFT_OVERLOAD __weft_sleef_##name##suffix(double8 x, double8 y) {  \
    __weft_sleef_##name##d8##suffix(&x, &y);                                 \
    return x;                                                                \
  }                                                                          \
  double16 WEFT_OVERLOAD __weft_sleef_##name##suffix(double16 x,             \
                                                     double16 y) {           \
    double8 lo = x.lo, hi = x.hi, ylo = y.lo, yhi = y.hi;                    \
    __weft_sleef_##name##d8##suffix(&lo, &ylo);                              \
    __weft_sleef_##name##d8##suffix(&hi, &yhi);                              \
    return (double16)(lo, hi);                                               \
  }

WEFT_SLEEF_FUNCTIONS(OVERLOADS1, OVERLOADS2)
