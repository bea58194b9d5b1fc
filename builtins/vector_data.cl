/*
 * Vector data load and store functions (OpenCL C 3.0, 6.15.7): vloadn and
 * vstoren of every element type, and the half forms that convert between
 * half in memory and float or double in registers.
 *
 * Every function exists for each address space a program may pass: the
 * named ones (OpenCL C 1.x programs see only those), __constant for loads,
 * and the generic one (OpenCL C 2.0 and 3.0). The pointer is aligned only to
 * its element, so vectors move through under-aligned copies of their types;
 * the 3-component forms move three packed elements.
 *
 * half is only a storage format here (cl_khr_fp16 is not reported): halves
 * are read and written as their ushort bit patterns and converted with
 * integer arithmetic, exactly, in each rounding mode, with subnormals,
 * infinities and NaN.
 */
#include "builtins.h"

/* The generic address space is spelled by no qualifier. */
#define WEFT_EACH_STORE_SPACE(M, ...)                                        \
  M(__global, __VA_ARGS__) M(__local, __VA_ARGS__)                           \
  M(__private, __VA_ARGS__) M(, __VA_ARGS__)
#define WEFT_EACH_LOAD_SPACE(M, ...)                                         \
  WEFT_EACH_STORE_SPACE(M, __VA_ARGS__) M(__constant, __VA_ARGS__)

/* ---- vloadn, vstoren */

/* weft_u_<T><n>: the vector type aligned only as its element. */
#define WEFT_UNALIGNED(N, K, T)                                              \
  typedef T##N weft_u_##T##N __attribute__((aligned(sizeof(T))));
#define WEFT_UNALIGNED_ALL(T, _) WEFT_EACH_N(WEFT_UNALIGNED, T)
WEFT_EACH_SCALAR(WEFT_UNALIGNED_ALL, _)

#define WEFT_VLOAD(AS, T, n)                                                 \
  T##n WEFT_OVERLOAD vload##n(size_t i, const AS T *p) {                     \
    return *(const AS weft_u_##T##n *)(p + i * n);                           \
  }
#define WEFT_VSTORE(AS, T, n)                                                \
  void WEFT_OVERLOAD vstore##n(T##n v, size_t i, AS T *p) {                  \
    *(AS weft_u_##T##n *)(p + i * n) = v;                                    \
  }
#define WEFT_VLOAD3(AS, T)                                                   \
  T##3 WEFT_OVERLOAD vload3(size_t i, const AS T *p) {                       \
    p += 3 * i;                                                              \
    return (T##3)(p[0], p[1], p[2]);                                         \
  }
#define WEFT_VSTORE3(AS, T)                                                  \
  void WEFT_OVERLOAD vstore3(T##3 v, size_t i, AS T *p) {                    \
    p += 3 * i;                                                              \
    p[0] = v.x;                                                              \
    p[1] = v.y;                                                              \
    p[2] = v.z;                                                              \
  }

#define WEFT_VLOADS(AS, T)                                                   \
  WEFT_VLOAD(AS, T, 2) WEFT_VLOAD3(AS, T) WEFT_VLOAD(AS, T, 4)               \
  WEFT_VLOAD(AS, T, 8) WEFT_VLOAD(AS, T, 16)
#define WEFT_VSTORES(AS, T)                                                  \
  WEFT_VSTORE(AS, T, 2) WEFT_VSTORE3(AS, T) WEFT_VSTORE(AS, T, 4)            \
  WEFT_VSTORE(AS, T, 8) WEFT_VSTORE(AS, T, 16)

#define WEFT_VLOADS_ALL(T, _) WEFT_EACH_LOAD_SPACE(WEFT_VLOADS, T)
#define WEFT_VSTORES_ALL(T, _) WEFT_EACH_STORE_SPACE(WEFT_VSTORES, T)
WEFT_EACH_SCALAR(WEFT_VLOADS_ALL, _)
WEFT_EACH_SCALAR(WEFT_VSTORES_ALL, _)

/* ---- Conversions between half bit patterns and float or double. */

/* half to float is exact. Normal numbers rebias the exponent (15 to 127)
 * and widen the fraction; infinity and NaN keep their payload under an
 * all-ones exponent; zero and subnormals are m * 2^-24, computed exactly in
 * float. */
#define WEFT_HALF_TO_FLOAT(N, K, _)                                          \
  static float##N WEFT_OVERLOAD weft_half_to_float(ushort##N h) {            \
    uint##N u = WEFT_CVT_##K(h, uint##N);                                    \
    uint##N sign = (u & 0x8000) << 16, em = u & 0x7fff;                      \
    uint##N bits = (em << 13) + ((127 - 15) << 23);                          \
    bits = em >= 0x7c00 ? bits + ((128 - 16) << 23) : bits;                  \
    float##N sub = WEFT_CVT_##K(em, float##N) * 0x1p-24f;                    \
    bits = em < 0x400 ? __builtin_astype(sub, uint##N) : bits;               \
    return __builtin_astype(bits | sign, float##N);                          \
  }
WEFT_EACH_N(WEFT_HALF_TO_FLOAT, _)

/* float or double (F, with bits U, FRAC fraction bits and exponent bias
 * BIAS) to the bit pattern of a half, rounded in the mode. The magnitude is
 * cut to a half's precision, q, keeping the dropped bits, rem, and what of
 * them is half an ulp (halfway); q + 1 is the next half up in magnitude, also
 * across the subnormal-normal boundary and into infinity. */
#define WEFT_TO_HALF(N, K, F, U, FRAC, BIAS)                                 \
  static ushort##N WEFT_OVERLOAD weft_to_half(F##N x, int mode) {            \
    U##N bits = __builtin_astype(x, U##N);                                   \
    U##N sign = bits >> (8 * sizeof(U) - 1), a = bits & ((U)-1 >> 1);        \
    /* Normal halves (a >= 2^-14): rebias the exponent, cut the fraction. */ \
    U##N t = a - ((U)(BIAS - 15) << FRAC);                                   \
    U##N q = t >> (FRAC - 10), rem = t & (((U)1 << (FRAC - 10)) - 1);        \
    U##N halfway = (U##N)((U)1 << (FRAC - 11));                              \
    /* Subnormal halves: the significand in units of 2^-24. A shift past     \
     * all its bits leaves rem = significand < halfway: tiny, but not zero. */ \
    U##N e = a >> FRAC;                                                      \
    U##N m = (a & (((U)1 << FRAC) - 1)) | (e != 0 ? (U##N)1 << FRAC : 0);    \
    U##N s = (U)(BIAS + FRAC - 24) - (e != 0 ? e : (U##N)1);                 \
    s = s > (U)(FRAC + 2) ? (U##N)(FRAC + 2) : s;                            \
    U##N normal = (U)(BIAS - 14) << FRAC;                                    \
    q = a < normal ? m >> s : q;                                             \
    rem = a < normal ? m & (((U##N)1 << s) - 1) : rem;                       \
    halfway = a < normal ? (U##N)1 << (s - 1) : halfway;                     \
    /* Round, and handle what is beyond the finite halves. */                \
    U##N h = q, over;                                                        \
    if (mode == WEFT_RTE) {                                                  \
      h = ((rem > halfway) | ((rem == halfway) & ((q & 1) != 0))) ? q + 1 : q;\
      over = 0x7c00;                                                         \
    } else if (mode == WEFT_RTZ) {                                           \
      over = 0x7bff;                                                         \
    } else if (mode == WEFT_RTP) {                                           \
      h = ((rem != 0) & (sign == 0)) ? q + 1 : q;                            \
      over = sign == 0 ? (U##N)0x7c00 : (U##N)0x7bff;                        \
    } else {                                                                 \
      h = ((rem != 0) & (sign != 0)) ? q + 1 : q;                            \
      over = sign != 0 ? (U##N)0x7c00 : (U##N)0x7bff;                        \
    }                                                                        \
    U##N inf = (U)(2 * BIAS + 1) << FRAC;                                    \
    h = a >= ((U)(BIAS + 16) << FRAC) ? over : h; /* 2^16 and up */          \
    h = a == inf ? (U##N)0x7c00 : h;                                         \
    h = a > inf ? 0x7e00 | ((a >> (FRAC - 10)) & 0x3ff) : h; /* quiet NaN */ \
    return WEFT_CVT_##K(h | (sign << 15), ushort##N);                        \
  }
#define WEFT_TO_HALF_BOTH(N, K, _)                                           \
  WEFT_TO_HALF(N, K, float, uint, 23, 127)                                   \
  WEFT_TO_HALF(N, K, double, ulong, 52, 1023)
WEFT_EACH_N(WEFT_TO_HALF_BOTH, _)

/* ---- vload_half, vloada_half, vstore_half, vstorea_half */

/* Reading n halves: vload_half from p + i * n, vloada_half from the
 * aligned p + i * n (i * 4 for n = 3). */
#define WEFT_VLOAD_HALF(AS, _)                                               \
  float WEFT_OVERLOAD vload_half(size_t i, const AS half *p) {               \
    return weft_half_to_float(((const AS ushort *)p)[i]);                    \
  }                                                                          \
  float WEFT_OVERLOAD vloada_half(size_t i, const AS half *p) {              \
    return vload_half(i, p);                                                 \
  }                                                                          \
  WEFT_VLOAD_HALF_N(AS, 2) WEFT_VLOAD_HALF_N(AS, 4)                          \
  WEFT_VLOAD_HALF_N(AS, 8) WEFT_VLOAD_HALF_N(AS, 16)                         \
  float3 WEFT_OVERLOAD vload_half3(size_t i, const AS half *p) {             \
    return weft_half_to_float(vload3(i, (const AS ushort *)p));              \
  }                                                                          \
  float3 WEFT_OVERLOAD vloada_half3(size_t i, const AS half *p) {            \
    return weft_half_to_float(((const AS ushort4 *)p)[i].xyz);               \
  }
#define WEFT_VLOAD_HALF_N(AS, n)                                             \
  float##n WEFT_OVERLOAD vload_half##n(size_t i, const AS half *p) {         \
    return weft_half_to_float(vload##n(i, (const AS ushort *)p));            \
  }                                                                          \
  float##n WEFT_OVERLOAD vloada_half##n(size_t i, const AS half *p) {        \
    return weft_half_to_float(((const AS ushort##n *)p)[i]);                 \
  }
WEFT_EACH_LOAD_SPACE(WEFT_VLOAD_HALF, _)

/* Writing n halves rounded in a mode, from float or double (F): the same
 * layouts as the loads. */
#define WEFT_VSTORE_HALF(AS, F, mode, MODE)                                  \
  void WEFT_OVERLOAD vstore_half##mode(F x, size_t i, AS half *p) {          \
    ((AS ushort *)p)[i] = weft_to_half(x, MODE);                             \
  }                                                                          \
  void WEFT_OVERLOAD vstorea_half##mode(F x, size_t i, AS half *p) {         \
    ((AS ushort *)p)[i] = weft_to_half(x, MODE);                             \
  }                                                                          \
  WEFT_VSTORE_HALF_N(AS, F, 2, mode, MODE)                                   \
  WEFT_VSTORE_HALF_N(AS, F, 4, mode, MODE)                                   \
  WEFT_VSTORE_HALF_N(AS, F, 8, mode, MODE)                                   \
  WEFT_VSTORE_HALF_N(AS, F, 16, mode, MODE)                                  \
  void WEFT_OVERLOAD vstore_half3##mode(F##3 x, size_t i, AS half *p) {      \
    vstore3(weft_to_half(x, MODE), i, (AS ushort *)p);                       \
  }                                                                          \
  void WEFT_OVERLOAD vstorea_half3##mode(F##3 x, size_t i, AS half *p) {     \
    vstore3(weft_to_half(x, MODE), 0, (AS ushort *)p + 4 * i);               \
  }
#define WEFT_VSTORE_HALF_N(AS, F, n, mode, MODE)                             \
  void WEFT_OVERLOAD vstore_half##n##mode(F##n x, size_t i, AS half *p) {    \
    vstore##n(weft_to_half(x, MODE), i, (AS ushort *)p);                     \
  }                                                                          \
  void WEFT_OVERLOAD vstorea_half##n##mode(F##n x, size_t i, AS half *p) {   \
    ((AS ushort##n *)p)[i] = weft_to_half(x, MODE);                          \
  }

#define WEFT_VSTORE_HALF_MODES(AS, F)                                        \
  WEFT_VSTORE_HALF(AS, F, , WEFT_RTE)                                        \
  WEFT_VSTORE_HALF(AS, F, _rte, WEFT_RTE)                                    \
  WEFT_VSTORE_HALF(AS, F, _rtz, WEFT_RTZ)                                    \
  WEFT_VSTORE_HALF(AS, F, _rtp, WEFT_RTP)                                    \
  WEFT_VSTORE_HALF(AS, F, _rtn, WEFT_RTN)
WEFT_EACH_STORE_SPACE(WEFT_VSTORE_HALF_MODES, float)
WEFT_EACH_STORE_SPACE(WEFT_VSTORE_HALF_MODES, double)
