/*
 * Relational functions (OpenCL C 3.0, 6.15.9) and select and bitselect.
 *
 * A scalar test returns int 1 or 0; a vector test returns -1 (all bits set)
 * or 0 per component, in the signed integer type of the component's size.
 * That is what OpenCL C's comparison and logical operators give, so one
 * expression serves both. The comparisons are IEEE ones (false for NaN,
 * except isnotequal and isunordered); the classifications look at the bits,
 * so -cl-fast-relaxed-math (which lets the compiler assume no NaN or
 * infinity in arithmetic) cannot fold them away.
 */
#include "builtins.h"

/* T: the float type; R: what a test returns; I: the signed integer of T's
 * size, which holds its bits; inf and min: the bits of infinity and of the
 * smallest normal number. The magnitude is the bits without the sign. */
#define WEFT_RELATIONAL(T, R, I, inf, min)                                   \
  R WEFT_OVERLOAD isequal(T x, T y) { return x == y; }                       \
  R WEFT_OVERLOAD isnotequal(T x, T y) { return x != y; }                    \
  R WEFT_OVERLOAD isgreater(T x, T y) { return x > y; }                      \
  R WEFT_OVERLOAD isgreaterequal(T x, T y) { return x >= y; }                \
  R WEFT_OVERLOAD isless(T x, T y) { return x < y; }                         \
  R WEFT_OVERLOAD islessequal(T x, T y) { return x <= y; }                   \
  R WEFT_OVERLOAD islessgreater(T x, T y) { return x < y || x > y; }         \
  R WEFT_OVERLOAD isordered(T x, T y) { return x == x && y == y; }           \
  R WEFT_OVERLOAD isunordered(T x, T y) { return x != x || y != y; }         \
  R WEFT_OVERLOAD isfinite(T x) {                                            \
    return (WEFT_AS(x, I) & (I)(inf | (inf - 1))) < (I)(inf);                \
  }                                                                          \
  R WEFT_OVERLOAD isinf(T x) {                                               \
    return (WEFT_AS(x, I) & (I)(inf | (inf - 1))) == (I)(inf);               \
  }                                                                          \
  R WEFT_OVERLOAD isnan(T x) {                                               \
    return (WEFT_AS(x, I) & (I)(inf | (inf - 1))) > (I)(inf);                \
  }                                                                          \
  R WEFT_OVERLOAD isnormal(T x) {                                            \
    I m = WEFT_AS(x, I) & (I)(inf | (inf - 1));                              \
    return m >= (I)(min) && m < (I)(inf);                                    \
  }                                                                          \
  R WEFT_OVERLOAD signbit(T x) { return WEFT_AS(x, I) < (I)0; }

/* A vector's tests return its integer type; a scalar's return int. */
#define WEFT_RELATIONAL_VECTOR(T, I, inf, min)                               \
  WEFT_RELATIONAL(T, I, I, inf, min)
#define WEFT_RELATIONAL_FLOAT(F, I, inf, min)                                \
  WEFT_RELATIONAL(F, int, I, inf, min)                                       \
  WEFT_EACH_VECTOR_PAIR(WEFT_RELATIONAL_VECTOR, F, I, inf, min)
WEFT_RELATIONAL_FLOAT(float, int, 0x7f800000, 0x00800000)
WEFT_RELATIONAL_FLOAT(double, long, 0x7ff0000000000000l, 0x0010000000000000l)

/* any and all look at the most significant bit of each component. */
#define WEFT_ANY_ALL_VECTOR(T, S, _)                                         \
  int WEFT_OVERLOAD any(T x) { return __builtin_reduce_or(x) < 0; }          \
  int WEFT_OVERLOAD all(T x) { return __builtin_reduce_and(x) < 0; }
#define WEFT_ANY_ALL(S)                                                      \
  int WEFT_OVERLOAD any(S x) { return x < 0; }                               \
  int WEFT_OVERLOAD all(S x) { return x < 0; }                               \
  WEFT_EACH_VECTOR(WEFT_ANY_ALL_VECTOR, S, _)
WEFT_ANY_ALL(char)
WEFT_ANY_ALL(short)
WEFT_ANY_ALL(int)
WEFT_ANY_ALL(long)

/* bitselect takes each bit from b where c has a one, else from a; floats
 * go through the unsigned integer of their size. */
#define WEFT_BITSELECT(T, U, _)                                              \
  T WEFT_OVERLOAD bitselect(T a, T b, T c) {                                 \
    U ua = WEFT_AS(a, U), ub = WEFT_AS(b, U), uc = WEFT_AS(c, U);            \
    return WEFT_AS((U)((ua & ~uc) | (ub & uc)), T);                          \
  }
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, char, uchar, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, uchar, uchar, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, short, ushort, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, ushort, ushort, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, int, uint, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, uint, uint, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, long, ulong, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, ulong, ulong, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, float, uint, _)
WEFT_EACH_WIDTH_PAIR(WEFT_BITSELECT, double, ulong, _)

/* select gives b where c is true, else a: a scalar c is true when not zero,
 * a vector component when its most significant bit is set. OpenCL C's
 * ternary operator has exactly these rules. */
#define WEFT_SELECT(T, M, _)                                                 \
  T WEFT_OVERLOAD select(T a, T b, M c) { return c ? b : a; }
#define WEFT_SELECT_BOTH(T, I, U)                                            \
  WEFT_EACH_WIDTH_PAIR(WEFT_SELECT, T, I, _)                                 \
  WEFT_EACH_WIDTH_PAIR(WEFT_SELECT, T, U, _)
WEFT_SELECT_BOTH(char, char, uchar)
WEFT_SELECT_BOTH(uchar, char, uchar)
WEFT_SELECT_BOTH(short, short, ushort)
WEFT_SELECT_BOTH(ushort, short, ushort)
WEFT_SELECT_BOTH(int, int, uint)
WEFT_SELECT_BOTH(uint, int, uint)
WEFT_SELECT_BOTH(long, long, ulong)
WEFT_SELECT_BOTH(ulong, long, ulong)
WEFT_SELECT_BOTH(float, int, uint)
WEFT_SELECT_BOTH(double, long, ulong)
