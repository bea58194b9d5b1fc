/*
 * Relational functions (OpenCL C 3.0, 6.15.6): classification of floats.
 * A scalar test returns 1 or 0; a vector test returns -1 (all bits set) or 0
 * per component, which is what OpenCL C's comparison operators give, so one
 * expression serves both.
 */
#include "builtins.h"

#define WEFT_CLASSIFY(T, R)                                                  \
  R WEFT_OVERLOAD isnan(T x) { return x != x; }                              \
  R WEFT_OVERLOAD isinf(T x) { return __builtin_elementwise_abs(x) == (T)INFINITY; } \
  R WEFT_OVERLOAD isfinite(T x) { return __builtin_elementwise_abs(x) < (T)INFINITY; } \
  R WEFT_OVERLOAD isequal(T x, T y) { return x == y; }                       \
  R WEFT_OVERLOAD isnotequal(T x, T y) { return x != y; }                    \
  R WEFT_OVERLOAD isgreater(T x, T y) { return x > y; }                      \
  R WEFT_OVERLOAD isless(T x, T y) { return x < y; }

#define WEFT_CLASSIFY_ALL(F, I)                                              \
  WEFT_CLASSIFY(F, int) WEFT_CLASSIFY(F##2, I##2) WEFT_CLASSIFY(F##3, I##3)  \
  WEFT_CLASSIFY(F##4, I##4) WEFT_CLASSIFY(F##8, I##8)                        \
  WEFT_CLASSIFY(F##16, I##16)

WEFT_CLASSIFY_ALL(float, int)
WEFT_CLASSIFY_ALL(double, long)
