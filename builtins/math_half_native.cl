/*
 * half_ and native_ math functions (OpenCL C 3.0, 6.15.3), float only.
 *
 * half_ functions may be off by 8192 ulp but keep the full functions' edge
 * cases (7.5); native_ ones have an implementation-defined accuracy. Both
 * take SLEEF's faster 3.5-ulp forms where SLEEF has one (sin, cos, tan, log,
 * log2, exp2, exp10), and the full functions otherwise: at 1 to 3.5 ulp, no
 * cheaper form would be worth its special cases.
 */
#include "math_shared.h"

#define BOTH1(name, expr)                                                    \
  WEFT_EACH_WIDTH(WEFT_DEF1, float, half_##name, expr)                       \
  WEFT_EACH_WIDTH(WEFT_DEF1, float, native_##name, expr)
#define BOTH2(name, expr)                                                    \
  WEFT_EACH_WIDTH(WEFT_DEF2, float, half_##name, expr)                       \
  WEFT_EACH_WIDTH(WEFT_DEF2, float, native_##name, expr)

BOTH1(cos, __weft_sleef_cos_u35(x))
BOTH1(sin, __weft_sleef_sin_u35(x))
BOTH1(tan, __weft_sleef_tan_u35(x))
BOTH1(exp, exp(x))
BOTH1(exp2, __weft_sleef_exp2_u35(x))
BOTH1(exp10, __weft_sleef_exp10_u35(x))
BOTH1(log, __weft_sleef_log_u35(x))
BOTH1(log2, __weft_sleef_log2_u35(x))
BOTH1(log10, log10(x))
BOTH1(recip, 1 / x)
BOTH1(rsqrt, rsqrt(x))
BOTH1(sqrt, sqrt(x))
BOTH2(divide, x / y)
BOTH2(powr, powr(x, y))
