/*
 * math_libdevice.cl: on NVIDIA GPUs, the __weft_sleef_NAME_U functions that
 * math.cl and math_half_native.cl are written over (math_shared.h) come
 * from libdevice, the CUDA toolkit's math library in bitcode, which the JIT
 * links into programs that call it (jit/ptx/ptx_libdevice.c). libdevice's
 * functions are within its documented bounds (at most 2 ulp for float
 * where OpenCL allows 3 or 4, and 1 to 2 for double); the error suffix of
 * a name (_u10, _u35) then only says which CPU form math.cl asked for.
 * Vectors go element by element: a GPU thread has no SIMD lanes to fill.
 */
#include "../math_shared.h"

/* libdevice's scalar functions: __nv_sinf(float), __nv_sin(double). */
#define DECLARE1(name, suffix)                                               \
  float __nv_##name##f(float);                                               \
  double __nv_##name(double);
#define DECLARE2(name, suffix)                                               \
  float __nv_##name##f(float, float);                                        \
  double __nv_##name(double, double);
WEFT_SLEEF_FUNCTIONS(DECLARE1, DECLARE2)

/* One overload per width, element by element over the scalar f. The loops
 * count elements with __builtin_vectorelements, not sizeof: a float3 is as
 * big as a float4, and writing its fourth element makes the whole vector
 * poison, which LLVM then drops with the store of it. */
#define VEC1(V, S, n, f)                                                     \
  V WEFT_OVERLOAD n(V x) {                                                   \
    V r;                                                                     \
    for (uint i = 0; i < __builtin_vectorelements(V); i++) r[i] = f(x[i]);   \
    return r;                                                                \
  }
#define VEC2(V, S, n, f)                                                     \
  V WEFT_OVERLOAD n(V x, V y) {                                              \
    V r;                                                                     \
    for (uint i = 0; i < __builtin_vectorelements(V); i++)                   \
      r[i] = f(x[i], y[i]);                                                  \
    return r;                                                                \
  }

#define OVERLOADS1(name, suffix)                                             \
  float WEFT_OVERLOAD __weft_sleef_##name##suffix(float x) {                 \
    return __nv_##name##f(x);                                                \
  }                                                                          \
  double WEFT_OVERLOAD __weft_sleef_##name##suffix(double x) {               \
    return __nv_##name(x);                                                   \
  }                                                                          \
  WEFT_EACH_VECTOR(VEC1, float, __weft_sleef_##name##suffix, __nv_##name##f) \
  WEFT_EACH_VECTOR(VEC1, double, __weft_sleef_##name##suffix, __nv_##name)
#define OVERLOADS2(name, suffix)                                             \
  float WEFT_OVERLOAD __weft_sleef_##name##suffix(float x, float y) {        \
    return __nv_##name##f(x, y);                                             \
  }                                                                          \
  double WEFT_OVERLOAD __weft_sleef_##name##suffix(double x, double y) {     \
    return __nv_##name(x, y);                                                \
  }                                                                          \
  WEFT_EACH_VECTOR(VEC2, float, __weft_sleef_##name##suffix, __nv_##name##f) \
  WEFT_EACH_VECTOR(VEC2, double, __weft_sleef_##name##suffix, __nv_##name)

WEFT_SLEEF_FUNCTIONS(OVERLOADS1, OVERLOADS2)

/* fmod is libdevice's, exact at every width: math.cl's CPU fmod calls the
 * C library's, which NVPTX lowers to x - trunc(x / y) * y (that rounds,
 * and makes fmod(-0, y) +0). */
#define FMOD(T, _) WEFT_DEF2(T, fmod, __weft_sleef_fmod(x, y))
WEFT_EACH_FLOAT(FMOD, _)

/* rsqrt is libdevice's: rsqrt.approx for float (libdevice documents at
 * most 2 ulp, OpenCL's bound), within 1 ulp for double. math.cl's
 * 1 / sqrt(x), a correctly rounded square root and division, is two long
 * sequences on the GPU: n-body ran at 1.8 times NVIDIA's driver's time. */
float __nv_rsqrtf(float);
double __nv_rsqrt(double);
float WEFT_OVERLOAD rsqrt(float x) { return __nv_rsqrtf(x); }
double WEFT_OVERLOAD rsqrt(double x) { return __nv_rsqrt(x); }
WEFT_EACH_VECTOR(VEC1, float, rsqrt, __nv_rsqrtf)
WEFT_EACH_VECTOR(VEC1, double, rsqrt, __nv_rsqrt)
