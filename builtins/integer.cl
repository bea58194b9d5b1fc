/*
 * Integer functions (OpenCL C 3.0, 6.15.3): the part the foundation needs.
 */
#include "builtins.h"

WEFT_EACH_INTEGER(WEFT_DEF2, min, __builtin_elementwise_min(x, y))
WEFT_EACH_INTEGER(WEFT_DEF2, max, __builtin_elementwise_max(x, y))
WEFT_EACH_INTEGER(WEFT_DEF3, clamp,
                  __builtin_elementwise_min(__builtin_elementwise_max(x, y), z))

#define WEFT_INT_VECTOR_SCALAR(V, S, _)                                      \
  V WEFT_OVERLOAD min(V x, S y) { return min(x, (V)y); }                     \
  V WEFT_OVERLOAD max(V x, S y) { return max(x, (V)y); }                     \
  V WEFT_OVERLOAD clamp(V x, S lo, S hi) { return clamp(x, (V)lo, (V)hi); }
WEFT_EACH_INTEGER_VECTOR(WEFT_INT_VECTOR_SCALAR, _)

/* abs returns the unsigned type of the same width. */
#define WEFT_ABS(T, U)                                                       \
  U WEFT_OVERLOAD abs(T x) { return __builtin_convertvector(                  \
      __builtin_elementwise_abs(x), U); }
#define WEFT_ABS_SCALAR(T, U)                                                \
  U WEFT_OVERLOAD abs(T x) { return (U)(x < 0 ? -x : x); }
#define WEFT_ABS_UNSIGNED(T, _)                                              \
  T WEFT_OVERLOAD abs(T x) { return x; }
#define WEFT_ABS_SIGNED(S, U)                                                \
  WEFT_ABS_SCALAR(S, U) WEFT_ABS(S##2, U##2) WEFT_ABS(S##3, U##3)            \
  WEFT_ABS(S##4, U##4) WEFT_ABS(S##8, U##8) WEFT_ABS(S##16, U##16)
WEFT_ABS_SIGNED(char, uchar)
WEFT_ABS_SIGNED(short, ushort)
WEFT_ABS_SIGNED(int, uint)
WEFT_ABS_SIGNED(long, ulong)
WEFT_EACH_WIDTH(WEFT_ABS_UNSIGNED, uchar, _)
WEFT_EACH_WIDTH(WEFT_ABS_UNSIGNED, ushort, _)
WEFT_EACH_WIDTH(WEFT_ABS_UNSIGNED, uint, _)
WEFT_EACH_WIDTH(WEFT_ABS_UNSIGNED, ulong, _)

/* mul24 and mad24 may assume 24-bit operands; a full multiply is exact. */
WEFT_EACH_WIDTH(WEFT_DEF2, int, mul24, x * y)
WEFT_EACH_WIDTH(WEFT_DEF2, uint, mul24, x * y)
WEFT_EACH_WIDTH(WEFT_DEF3, int, mad24, x * y + z)
WEFT_EACH_WIDTH(WEFT_DEF3, uint, mad24, x * y + z)
