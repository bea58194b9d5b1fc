/*
 * Integer functions (OpenCL C 3.0, 6.15.4) for char, uchar, short, ushort,
 * int, uint, long and ulong, scalars and vectors of 2, 3, 4, 8 and 16.
 *
 * Most are one expression that serves scalars and vectors alike: clang's
 * elementwise builtins become LLVM intrinsics (llvm.sadd.sat, llvm.abs) and
 * OpenCL C's vector ternary selects per component. Arithmetic that could
 * overflow is done on the unsigned twin type, which wraps, so the optimizer
 * may assume nothing. Scalar char and short are promoted to int by C's rules;
 * each expression below is also right after that promotion.
 */
#include "builtins.h"

/* M(CVT, A, B, ...) for types A and B at each width, and
 * M4(CVT, A, B, C, D, ...) for four types. */
#define WEFT_EACH_WIDTH_CVT(M, A, B, ...)                                    \
  M(WEFT_CVT_S, A, B, __VA_ARGS__)                                      \
  M(WEFT_CVT_V, A##2, B##2, __VA_ARGS__)                                \
  M(WEFT_CVT_V, A##3, B##3, __VA_ARGS__)                                \
  M(WEFT_CVT_V, A##4, B##4, __VA_ARGS__)                                \
  M(WEFT_CVT_V, A##8, B##8, __VA_ARGS__)                                \
  M(WEFT_CVT_V, A##16, B##16, __VA_ARGS__)
#define WEFT_EACH_WIDTH_CVT4(M4, A, B, C, D, ...)                            \
  M4(WEFT_CVT_S, A, B, C, D, __VA_ARGS__)                               \
  M4(WEFT_CVT_V, A##2, B##2, C##2, D##2, __VA_ARGS__)                   \
  M4(WEFT_CVT_V, A##3, B##3, C##3, D##3, __VA_ARGS__)                   \
  M4(WEFT_CVT_V, A##4, B##4, C##4, D##4, __VA_ARGS__)                   \
  M4(WEFT_CVT_V, A##8, B##8, C##8, D##8, __VA_ARGS__)                   \
  M4(WEFT_CVT_V, A##16, B##16, C##16, D##16, __VA_ARGS__)

/* M(T, U, bits) for each integer type T and its unsigned twin U. */
#define WEFT_EACH_INTEGER_TWIN(M)                                            \
  WEFT_EACH_WIDTH_PAIR(M, char, uchar, 8)                                    \
  WEFT_EACH_WIDTH_PAIR(M, uchar, uchar, 8)                                   \
  WEFT_EACH_WIDTH_PAIR(M, short, ushort, 16)                                 \
  WEFT_EACH_WIDTH_PAIR(M, ushort, ushort, 16)                                \
  WEFT_EACH_WIDTH_PAIR(M, int, uint, 32)                                     \
  WEFT_EACH_WIDTH_PAIR(M, uint, uint, 32)                                    \
  WEFT_EACH_WIDTH_PAIR(M, long, ulong, 64)                                   \
  WEFT_EACH_WIDTH_PAIR(M, ulong, ulong, 64)

WEFT_EACH_INTEGER(WEFT_DEF2, min, __builtin_elementwise_min(x, y))
WEFT_EACH_INTEGER(WEFT_DEF2, max, __builtin_elementwise_max(x, y))
WEFT_EACH_INTEGER(WEFT_DEF3, clamp,
                  __builtin_elementwise_min(__builtin_elementwise_max(x, y), z))
/* Saturating arithmetic is llvm.sadd.sat and its kin, but the builtins
 * promote scalar char and short to int, where nothing saturates: those
 * clamp the exact int result instead. */
#define WEFT_SAT(T, ...)                                                     \
  T WEFT_OVERLOAD add_sat(T x, T y) {                                        \
    return __builtin_elementwise_add_sat(x, y);                              \
  }                                                                          \
  T WEFT_OVERLOAD sub_sat(T x, T y) {                                        \
    return __builtin_elementwise_sub_sat(x, y);                              \
  }
#define WEFT_SAT_SMALL(T, lo, hi)                                            \
  T WEFT_OVERLOAD add_sat(T x, T y) { return clamp(x + y, lo, hi); }         \
  T WEFT_OVERLOAD sub_sat(T x, T y) { return clamp(x - y, lo, hi); }         \
  WEFT_EACH_VECTOR(WEFT_SAT, T, _)
WEFT_SAT_SMALL(char, CHAR_MIN, CHAR_MAX)
WEFT_SAT_SMALL(uchar, 0, UCHAR_MAX)
WEFT_SAT_SMALL(short, SHRT_MIN, SHRT_MAX)
WEFT_SAT_SMALL(ushort, 0, USHRT_MAX)
WEFT_EACH_WIDTH(WEFT_SAT, int, _)
WEFT_EACH_WIDTH(WEFT_SAT, uint, _)
WEFT_EACH_WIDTH(WEFT_SAT, long, _)
WEFT_EACH_WIDTH(WEFT_SAT, ulong, _)
/* (x + y) >> 1 and (x + y + 1) >> 1 without the sum overflowing. */
#define WEFT_ONE(x) ((__typeof__(x))1)
WEFT_EACH_INTEGER(WEFT_DEF2, hadd, (x >> 1) + (y >> 1) + (x & y & WEFT_ONE(x)))
WEFT_EACH_INTEGER(WEFT_DEF2, rhadd,
                  (x >> 1) + (y >> 1) + ((x | y) & WEFT_ONE(x)))

#define WEFT_INT_VECTOR_SCALAR(V, S, _)                                      \
  V WEFT_OVERLOAD min(V x, S y) { return min(x, (V)y); }                     \
  V WEFT_OVERLOAD max(V x, S y) { return max(x, (V)y); }                     \
  V WEFT_OVERLOAD clamp(V x, S lo, S hi) { return clamp(x, (V)lo, (V)hi); }
WEFT_EACH_INTEGER_VECTOR(WEFT_INT_VECTOR_SCALAR, _)

/*
 * The functions that work on the bits, as the unsigned twin U. popcount is
 * the classic count with shifts and masks, which LLVM recognizes as
 * llvm.ctpop (one instruction where the CPU has it); clz smears the highest
 * set bit to the right and counts the zeros left; ctz counts the ones below
 * the lowest set bit. A shift by the width or more is harmless in the
 * smear: OpenCL C masks a vector's shift count to the element width, and a
 * promoted scalar shifts in zeros.
 */
#define WEFT_TWIN(T, U, bits)                                                \
  U WEFT_OVERLOAD abs_diff(T x, T y) {                                       \
    return WEFT_AS(max(x, y), U) - WEFT_AS(min(x, y), U);                    \
  }                                                                          \
  T WEFT_OVERLOAD popcount(T x) {                                            \
    U v = WEFT_AS(x, U);                                                     \
    v = v - ((v >> 1) & (U)0x5555555555555555ul);                            \
    v = (v & (U)0x3333333333333333ul) +                                      \
        ((v >> 2) & (U)0x3333333333333333ul);                                \
    v = (v + (v >> 4)) & (U)0x0f0f0f0f0f0f0f0ful;                            \
    if (bits > 8) {                                                          \
      v = v * (U)0x0101010101010101ul; /* wraps before the shift */          \
      v = v >> (bits - 8);                                                   \
    }                                                                        \
    return WEFT_AS(v, T);                                                    \
  }                                                                          \
  T WEFT_OVERLOAD clz(T x) {                                                 \
    U v = WEFT_AS(x, U);                                                     \
    v |= v >> 1; v |= v >> 2; v |= v >> 4;                                   \
    v |= v >> 8; v |= v >> 16; v |= v >> 32;                                 \
    return popcount(WEFT_AS((U)~v, T));                                      \
  }                                                                          \
  T WEFT_OVERLOAD ctz(T x) {                                                 \
    U v = WEFT_AS(x, U);                                                     \
    return popcount(WEFT_AS((U)(~v & (v - (U)1)), T));                       \
  }                                                                          \
  /* Rotate left by i modulo the width, as a funnel shift on U. */           \
  T WEFT_OVERLOAD rotate(T x, T i) {                                         \
    U v = WEFT_AS(x, U), mask = (U)(bits - 1), n = WEFT_AS(i, U) & mask;     \
    return WEFT_AS((U)((v << n) | (v >> (((U)bits - n) & mask))), T);        \
  }
WEFT_EACH_INTEGER_TWIN(WEFT_TWIN)

/* abs of the most negative value is its magnitude as U: llvm.abs is told
 * that it is not poison, and the scalar negates after the conversion. */
#define WEFT_ABS_SCALAR(T, U)                                                \
  U WEFT_OVERLOAD abs(T x) { return x < 0 ? -(U)x : (U)x; }
#define WEFT_ABS_VECTOR(T, U, _)                                             \
  U WEFT_OVERLOAD abs(T x) { return WEFT_AS(__builtin_elementwise_abs(x), U); }
#define WEFT_ABS_UNSIGNED(T, _)                                              \
  T WEFT_OVERLOAD abs(T x) { return x; }
#define WEFT_ABS_SIGNED(T, U)                                                \
  WEFT_ABS_SCALAR(T, U) WEFT_EACH_VECTOR_PAIR(WEFT_ABS_VECTOR, T, U, _)      \
  WEFT_EACH_WIDTH(WEFT_ABS_UNSIGNED, U, _)
WEFT_ABS_SIGNED(char, uchar)
WEFT_ABS_SIGNED(short, ushort)
WEFT_ABS_SIGNED(int, uint)
WEFT_ABS_SIGNED(long, ulong)

/* The high half of the product, through the double-width type W. */
#define WEFT_MUL_HI_WIDE(CVT, T, W, bits)                                    \
  T WEFT_OVERLOAD mul_hi(T x, T y) {                                         \
    return CVT((CVT(x, W) * CVT(y, W)) >> bits, T);                          \
  }
WEFT_EACH_WIDTH_CVT(WEFT_MUL_HI_WIDE, char, short, 8)
WEFT_EACH_WIDTH_CVT(WEFT_MUL_HI_WIDE, uchar, ushort, 8)
WEFT_EACH_WIDTH_CVT(WEFT_MUL_HI_WIDE, short, int, 16)
WEFT_EACH_WIDTH_CVT(WEFT_MUL_HI_WIDE, ushort, uint, 16)
WEFT_EACH_WIDTH_CVT(WEFT_MUL_HI_WIDE, int, long, 32)
WEFT_EACH_WIDTH_CVT(WEFT_MUL_HI_WIDE, uint, ulong, 32)

/* The 64-bit scalars multiply in 128 bits (one mulq on x86-64). */
long WEFT_OVERLOAD mul_hi(long x, long y) {
  return (long)(((__int128)x * y) >> 64);
}
ulong WEFT_OVERLOAD mul_hi(ulong x, ulong y) {
  return (ulong)(((unsigned __int128)x * y) >> 64);
}

/* 64-bit vectors multiply in 32-bit halves, which vectorizes (pmuludq). The
 * signed high half is the unsigned one less y where x < 0 and x where y < 0
 * (modulo 2^64). */
#define WEFT_MUL_HI_64(T, U, _)                                              \
  static U WEFT_OVERLOAD weft_mul_hi_u64(U x, U y) {                         \
    U m = 0xfffffffful;                                                      \
    U ll = (x & m) * (y & m), lh = (x & m) * (y >> 32);                      \
    U hl = (x >> 32) * (y & m), hh = (x >> 32) * (y >> 32);                  \
    U mid = (ll >> 32) + (lh & m) + (hl & m);                                \
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);                       \
  }                                                                          \
  U WEFT_OVERLOAD mul_hi(U x, U y) { return weft_mul_hi_u64(x, y); }         \
  T WEFT_OVERLOAD mul_hi(T x, T y) {                                         \
    U ux = WEFT_AS(x, U), uy = WEFT_AS(y, U);                                \
    U hi = weft_mul_hi_u64(ux, uy);                                          \
    hi -= (x < 0 ? uy : (U)0) + (y < 0 ? ux : (U)0);                         \
    return WEFT_AS(hi, T);                                                   \
  }
WEFT_EACH_VECTOR_PAIR(WEFT_MUL_HI_64, long, ulong, _)

/* mad_hi wraps around, so it adds in the unsigned type. */
#define WEFT_WRAPPING(T, U, _)                                               \
  T WEFT_OVERLOAD mad_hi(T x, T y, T z) {                                    \
    return WEFT_AS((U)(WEFT_AS(mul_hi(x, y), U) + WEFT_AS(z, U)), T);        \
  }
WEFT_EACH_INTEGER_TWIN(WEFT_WRAPPING)

/* mul24 and mad24 may assume 24-bit operands; the full 32-bit product (the
 * low half of a wider one) is exact for those and defined for the rest. */
#define WEFT_24(T, U, _)                                                     \
  T WEFT_OVERLOAD mul24(T x, T y) {                                          \
    return WEFT_AS(WEFT_AS(x, U) * WEFT_AS(y, U), T);                        \
  }                                                                          \
  T WEFT_OVERLOAD mad24(T x, T y, T z) {                                     \
    return WEFT_AS(WEFT_AS(x, U) * WEFT_AS(y, U) + WEFT_AS(z, U), T);        \
  }
WEFT_EACH_WIDTH_PAIR(WEFT_24, int, uint, _)
WEFT_EACH_WIDTH_PAIR(WEFT_24, uint, uint, _)

/* mad_sat: x * y + z is exact in the double-width type W, then clamped. */
#define WEFT_MAD_SAT_WIDE(CVT, T, W, lo, hi)                                 \
  T WEFT_OVERLOAD mad_sat(T x, T y, T z) {                                   \
    W r = CVT(x, W) * CVT(y, W) + CVT(z, W);                                 \
    return CVT(clamp(r, (W)(lo), (W)(hi)), T);                               \
  }
WEFT_EACH_WIDTH_CVT(WEFT_MAD_SAT_WIDE, char, short, CHAR_MIN, CHAR_MAX)
WEFT_EACH_WIDTH_CVT(WEFT_MAD_SAT_WIDE, uchar, ushort, 0, UCHAR_MAX)
WEFT_EACH_WIDTH_CVT(WEFT_MAD_SAT_WIDE, short, int, SHRT_MIN, SHRT_MAX)
WEFT_EACH_WIDTH_CVT(WEFT_MAD_SAT_WIDE, ushort, uint, 0, USHRT_MAX)
WEFT_EACH_WIDTH_CVT(WEFT_MAD_SAT_WIDE, int, long, INT_MIN, INT_MAX)
WEFT_EACH_WIDTH_CVT(WEFT_MAD_SAT_WIDE, uint, ulong, 0, UINT_MAX)

long WEFT_OVERLOAD mad_sat(long x, long y, long z) {
  __int128 r = (__int128)x * y + z;
  return r > LONG_MAX ? LONG_MAX : r < LONG_MIN ? LONG_MIN : (long)r;
}
ulong WEFT_OVERLOAD mad_sat(ulong x, ulong y, ulong z) {
  unsigned __int128 r = (unsigned __int128)x * y + z;
  return r > ULONG_MAX ? ULONG_MAX : (ulong)r;
}

/* 64-bit vectors: the 128-bit sum is hi:lo; it fits in 64 bits when hi is
 * the sign extension of lo (zero for ulong). */
#define WEFT_MAD_SAT_64(T, U, _)                                             \
  T WEFT_OVERLOAD mad_sat(T x, T y, T z) {                                   \
    U lo = WEFT_AS(x, U) * WEFT_AS(y, U), sum = lo + WEFT_AS(z, U);          \
    T hi = mul_hi(x, y) + (z >> 63) + (sum < lo ? (T)1 : (T)0);              \
    T r = WEFT_AS(sum, T);                                                   \
    return hi == r >> 63 ? r : hi < 0 ? (T)LONG_MIN : (T)LONG_MAX;           \
  }                                                                          \
  U WEFT_OVERLOAD mad_sat(U x, U y, U z) {                                   \
    U lo = x * y, sum = lo + z;                                              \
    U hi = mul_hi(x, y) + (sum < lo ? (U)1 : (U)0);                          \
    return hi == 0 ? sum : (U)ULONG_MAX;                                     \
  }
WEFT_EACH_VECTOR_PAIR(WEFT_MAD_SAT_64, long, ulong, _)

/* upsample: hi in the upper half, lo in the lower, built unsigned. */
#define WEFT_UPSAMPLE(CVT, T, W, U, UW, bits)                                \
  W WEFT_OVERLOAD upsample(T hi, U lo) {                                     \
    UW h = CVT(WEFT_AS(hi, U), UW);                                          \
    return WEFT_AS((UW)((h << bits) | CVT(lo, UW)), W);                      \
  }
WEFT_EACH_WIDTH_CVT4(WEFT_UPSAMPLE, char, short, uchar, ushort, 8)
WEFT_EACH_WIDTH_CVT4(WEFT_UPSAMPLE, uchar, ushort, uchar, ushort, 8)
WEFT_EACH_WIDTH_CVT4(WEFT_UPSAMPLE, short, int, ushort, uint, 16)
WEFT_EACH_WIDTH_CVT4(WEFT_UPSAMPLE, ushort, uint, ushort, uint, 16)
WEFT_EACH_WIDTH_CVT4(WEFT_UPSAMPLE, int, long, uint, ulong, 32)
WEFT_EACH_WIDTH_CVT4(WEFT_UPSAMPLE, uint, ulong, uint, ulong, 32)

/*
 * cl_khr_extended_bit_ops: a field of count bits from bit offset (offset
 * + count at most the width, as the extension requires), worked on as the
 * unsigned twin U; S is the signed twin. A field of no bits inserts
 * nothing and extracts 0 (the shifts below would be by the width, which
 * OpenCL C takes modulo the width).
 */
#define WEFT_BITFIELD(T, S, U, bits, REVERSE)                                \
  T WEFT_OVERLOAD bitfield_insert(T base, T insert, uint offset,             \
                                  uint count) {                              \
    if (!count) return base;                                                 \
    U mask = (U)((U)((U)~(U)0 >> (bits - count)) << offset);                 \
    U field = (U)(WEFT_AS(insert, U) << offset) & mask;                      \
    return WEFT_AS((U)((WEFT_AS(base, U) & (U)~mask) | field), T);           \
  }                                                                          \
  U WEFT_OVERLOAD bitfield_extract_unsigned(T base, uint offset,             \
                                            uint count) {                    \
    if (!count) return (U)0;                                                 \
    U ones = (U)((U)~(U)0 >> (bits - count));                               \
    return (U)(WEFT_AS(base, U) >> offset) & ones;                           \
  }                                                                          \
  /* The field moved to the top, then shifted down with its sign. */         \
  S WEFT_OVERLOAD bitfield_extract_signed(T base, uint offset, uint count) { \
    if (!count) return (S)0;                                                 \
    U top = (U)(WEFT_AS(base, U) << (bits - offset - count));                \
    return (S)(WEFT_AS(top, S) >> (bits - count));                           \
  }                                                                          \
  T WEFT_OVERLOAD bit_reverse(T x) {                                         \
    return WEFT_AS(REVERSE(WEFT_AS(x, U)), T);                               \
  }
/* A scalar's bits reversed at its own width (the elementwise builtin
 * would promote a char or short to int first), a vector's lane by lane. */
#define WEFT_EACH_WIDTH_TRIPLE(M, A, B, C, bits)                             \
  M(A, B, C, bits, __builtin_bitreverse##bits)                               \
  M(A##2, B##2, C##2, bits, __builtin_elementwise_bitreverse)                \
  M(A##3, B##3, C##3, bits, __builtin_elementwise_bitreverse)                \
  M(A##4, B##4, C##4, bits, __builtin_elementwise_bitreverse)                \
  M(A##8, B##8, C##8, bits, __builtin_elementwise_bitreverse)                \
  M(A##16, B##16, C##16, bits, __builtin_elementwise_bitreverse)
WEFT_EACH_WIDTH_TRIPLE(WEFT_BITFIELD, char, char, uchar, 8)
WEFT_EACH_WIDTH_TRIPLE(WEFT_BITFIELD, uchar, char, uchar, 8)
WEFT_EACH_WIDTH_TRIPLE(WEFT_BITFIELD, short, short, ushort, 16)
WEFT_EACH_WIDTH_TRIPLE(WEFT_BITFIELD, ushort, short, ushort, 16)
WEFT_EACH_WIDTH_TRIPLE(WEFT_BITFIELD, int, int, uint, 32)
WEFT_EACH_WIDTH_TRIPLE(WEFT_BITFIELD, uint, int, uint, 32)
WEFT_EACH_WIDTH_TRIPLE(WEFT_BITFIELD, long, long, ulong, 64)
WEFT_EACH_WIDTH_TRIPLE(WEFT_BITFIELD, ulong, long, ulong, 64)

/*
 * cl_khr_integer_dot_product: four 8-bit products summed in int (they fit:
 * 4 * 255 * 255 at most), signed or not as the operands are, and added to
 * an accumulator with saturation. A packed operand is the four bytes of a
 * uint, its first component in the lowest byte.
 */
#define WEFT_DOT4(R, A, B)                                                   \
  R WEFT_OVERLOAD dot(A##4 a, B##4 b) {                                      \
    int4 p = __builtin_convertvector(a, int4) * __builtin_convertvector(b, int4); \
    return (R)(p.x + p.y + p.z + p.w);                                       \
  }                                                                          \
  R WEFT_OVERLOAD dot_acc_sat(A##4 a, B##4 b, R acc) {                       \
    return add_sat(dot(a, b), acc);                                          \
  }
WEFT_DOT4(uint, uchar, uchar)
WEFT_DOT4(int, char, char)
WEFT_DOT4(int, uchar, char)
WEFT_DOT4(int, char, uchar)

#define WEFT_DOT_PACKED(R, A, B, name)                                       \
  R WEFT_OVERLOAD dot_4x8packed_##name(uint a, uint b) {                     \
    return dot(WEFT_AS(a, A##4), WEFT_AS(b, B##4));                          \
  }                                                                          \
  R WEFT_OVERLOAD dot_acc_sat_4x8packed_##name(uint a, uint b, R acc) {      \
    return dot_acc_sat(WEFT_AS(a, A##4), WEFT_AS(b, B##4), acc);             \
  }
WEFT_DOT_PACKED(uint, uchar, uchar, uu_uint)
WEFT_DOT_PACKED(int, char, char, ss_int)
WEFT_DOT_PACKED(int, uchar, char, us_int)
WEFT_DOT_PACKED(int, char, uchar, su_int)
