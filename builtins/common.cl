/*
 * Common functions (OpenCL C 3.0, 6.15.6) for float and double, scalars and
 * vectors, with the overloads that take a scalar for some arguments.
 * clamp, max and min are fmin and fmax: a NaN argument gives the other one.
 */
#include "builtins.h"

WEFT_EACH_FLOAT(WEFT_DEF2, min, __builtin_elementwise_min(x, y))
WEFT_EACH_FLOAT(WEFT_DEF2, max, __builtin_elementwise_max(x, y))
WEFT_EACH_FLOAT(WEFT_DEF3, clamp,
                __builtin_elementwise_min(__builtin_elementwise_max(x, y), z))
WEFT_EACH_FLOAT(WEFT_DEF3, mix, x + (y - x) * z)
WEFT_EACH_FLOAT(WEFT_DEF1, degrees, x * (__typeof__(x))(180 / M_PI))
WEFT_EACH_FLOAT(WEFT_DEF1, radians, x * (__typeof__(x))(M_PI / 180))

/* step is 0 where x < edge, else 1 (a NaN x gives 1). */
#define WEFT_STEP(T, _)                                                      \
  T WEFT_OVERLOAD step(T edge, T x) { return x < edge ? (T)0 : (T)1; }
WEFT_EACH_FLOAT(WEFT_STEP, _)

/* sign keeps the sign of a zero and gives +0 for a NaN. */
#define WEFT_SIGN(T, _)                                                      \
  T WEFT_OVERLOAD sign(T x) {                                                \
    return x > (T)0 ? (T)1 : x < (T)0 ? (T)-1 : x == x ? x : (T)0;           \
  }
WEFT_EACH_FLOAT(WEFT_SIGN, _)

/* smoothstep with edges of type E: the same type as x, or its scalar. */
#define WEFT_SMOOTHSTEP(T, E, _)                                             \
  T WEFT_OVERLOAD smoothstep(E e0, E e1, T x) {                              \
    T t = clamp((x - (T)e0) / ((T)e1 - (T)e0), (T)0, (T)1);                  \
    return t * t * (3 - 2 * t);                                              \
  }
#define WEFT_SMOOTHSTEP_SAME(T, _) WEFT_SMOOTHSTEP(T, T, _)
WEFT_EACH_FLOAT(WEFT_SMOOTHSTEP_SAME, _)
WEFT_EACH_FLOAT_VECTOR(WEFT_SMOOTHSTEP, _)

/* The overloads that take scalars where the first argument is a vector. */
#define WEFT_VECTOR_SCALAR(V, S, _)                                          \
  V WEFT_OVERLOAD min(V x, S y) { return min(x, (V)y); }                     \
  V WEFT_OVERLOAD max(V x, S y) { return max(x, (V)y); }                     \
  V WEFT_OVERLOAD fmin(V x, S y) { return fmin(x, (V)y); }                   \
  V WEFT_OVERLOAD fmax(V x, S y) { return fmax(x, (V)y); }                   \
  V WEFT_OVERLOAD clamp(V x, S lo, S hi) { return clamp(x, (V)lo, (V)hi); }  \
  V WEFT_OVERLOAD mix(V x, V y, S a) { return mix(x, y, (V)a); }             \
  V WEFT_OVERLOAD step(S edge, V x) { return step((V)edge, x); }
WEFT_EACH_FLOAT_VECTOR(WEFT_VECTOR_SCALAR, _)
