/*
 * Math functions (OpenCL C 3.0, 6.15.2): the part the foundation needs.
 *
 * Each maps to an LLVM intrinsic through clang's elementwise builtins, which
 * take scalars and vectors alike; the x86-64 back end lowers them to
 * instructions (sqrt, floor, fma) or to libm calls (sin, exp) that meet the
 * specification's ULP bounds. The complete library, with vectorized
 * transcendental functions, is its own piece of work.
 */
#include "builtins.h"

WEFT_EACH_FLOAT(WEFT_DEF1, sqrt, __builtin_elementwise_sqrt(x))
WEFT_EACH_FLOAT(WEFT_DEF1, rsqrt, 1 / __builtin_elementwise_sqrt(x))
WEFT_EACH_FLOAT(WEFT_DEF1, fabs, __builtin_elementwise_abs(x))
WEFT_EACH_FLOAT(WEFT_DEF1, floor, __builtin_elementwise_floor(x))
WEFT_EACH_FLOAT(WEFT_DEF1, ceil, __builtin_elementwise_ceil(x))
WEFT_EACH_FLOAT(WEFT_DEF1, trunc, __builtin_elementwise_trunc(x))
WEFT_EACH_FLOAT(WEFT_DEF1, round, __builtin_elementwise_round(x))
WEFT_EACH_FLOAT(WEFT_DEF1, rint, __builtin_elementwise_roundeven(x))
WEFT_EACH_FLOAT(WEFT_DEF1, exp, __builtin_elementwise_exp(x))
WEFT_EACH_FLOAT(WEFT_DEF1, exp2, __builtin_elementwise_exp2(x))
WEFT_EACH_FLOAT(WEFT_DEF1, log, __builtin_elementwise_log(x))
WEFT_EACH_FLOAT(WEFT_DEF1, log2, __builtin_elementwise_log2(x))
WEFT_EACH_FLOAT(WEFT_DEF1, log10, __builtin_elementwise_log10(x))
WEFT_EACH_FLOAT(WEFT_DEF1, sin, __builtin_elementwise_sin(x))
WEFT_EACH_FLOAT(WEFT_DEF1, cos, __builtin_elementwise_cos(x))
WEFT_EACH_FLOAT(WEFT_DEF1, tan, __builtin_elementwise_tan(x))
WEFT_EACH_FLOAT(WEFT_DEF2, pow, __builtin_elementwise_pow(x, y))
WEFT_EACH_FLOAT(WEFT_DEF2, fmin, __builtin_elementwise_min(x, y))
WEFT_EACH_FLOAT(WEFT_DEF2, fmax, __builtin_elementwise_max(x, y))
WEFT_EACH_FLOAT(WEFT_DEF2, copysign, __builtin_elementwise_copysign(x, y))
WEFT_EACH_FLOAT(WEFT_DEF3, fma, __builtin_elementwise_fma(x, y, z))
WEFT_EACH_FLOAT(WEFT_DEF3, mad, x * y + z)

/* The native_ forms may trade accuracy for speed; these are the full ones. */
WEFT_EACH_WIDTH(WEFT_DEF1, float, native_sqrt, __builtin_elementwise_sqrt(x))
WEFT_EACH_WIDTH(WEFT_DEF1, float, native_rsqrt, 1 / __builtin_elementwise_sqrt(x))
WEFT_EACH_WIDTH(WEFT_DEF1, float, native_recip, 1 / x)
WEFT_EACH_WIDTH(WEFT_DEF1, float, native_exp, __builtin_elementwise_exp(x))
WEFT_EACH_WIDTH(WEFT_DEF1, float, native_log, __builtin_elementwise_log(x))
WEFT_EACH_WIDTH(WEFT_DEF1, float, native_sin, __builtin_elementwise_sin(x))
WEFT_EACH_WIDTH(WEFT_DEF1, float, native_cos, __builtin_elementwise_cos(x))
WEFT_EACH_WIDTH(WEFT_DEF2, float, native_divide, x / y)
