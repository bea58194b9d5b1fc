/*
 * Miscellaneous vector functions (OpenCL C 3.0, 6.15.13): shuffle and
 * shuffle2, and from the relational functions (6.15.6) select and
 * bitselect, for every element type and width.
 *
 * shuffle's mask is the unsigned integer type of the element's size; only
 * its low bits count (mask % m, a power of two). With a constant mask, as
 * is usual, the element moves inline into one shufflevector.
 */
#include "builtins.h"

/* M(T, U, ...): each element type with the unsigned type of its size. */
#define WEFT_EACH_ELEMENT(M, ...)                                            \
  M(char, uchar, __VA_ARGS__) M(uchar, uchar, __VA_ARGS__)                   \
  M(short, ushort, __VA_ARGS__) M(ushort, ushort, __VA_ARGS__)               \
  M(int, uint, __VA_ARGS__) M(uint, uint, __VA_ARGS__)                       \
  M(long, ulong, __VA_ARGS__) M(ulong, ulong, __VA_ARGS__)                   \
  M(float, uint, __VA_ARGS__) M(double, ulong, __VA_ARGS__)

#define WEFT_SHUFFLE(T, U, m, n)                                             \
  T##n WEFT_OVERLOAD shuffle(T##m x, U##n mask) {                            \
    T##n r;                                                                  \
    for (int i = 0; i < n; i++) r[i] = x[mask[i] & (m - 1)];                 \
    return r;                                                                \
  }                                                                          \
  T##n WEFT_OVERLOAD shuffle2(T##m x, T##m y, U##n mask) {                   \
    T##n r;                                                                  \
    __typeof__(__builtin_shufflevector(x, y, WEFT_IOTA_##m)) xy =            \
        __builtin_shufflevector(x, y, WEFT_IOTA_##m); /* x then y */          \
    for (int i = 0; i < n; i++) r[i] = xy[mask[i] & (2 * m - 1)];            \
    return r;                                                                \
  }

/* 0, 1, ... 2m - 1: the indices that concatenate two vectors of m. */
#define WEFT_IOTA_2 0, 1, 2, 3
#define WEFT_IOTA_4 WEFT_IOTA_2, 4, 5, 6, 7
#define WEFT_IOTA_8 WEFT_IOTA_4, 8, 9, 10, 11, 12, 13, 14, 15
#define WEFT_IOTA_16                                                         \
  WEFT_IOTA_8, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31

#define WEFT_SHUFFLE_TO(T, U, m)                                             \
  WEFT_SHUFFLE(T, U, m, 2) WEFT_SHUFFLE(T, U, m, 4)                          \
  WEFT_SHUFFLE(T, U, m, 8) WEFT_SHUFFLE(T, U, m, 16)
#define WEFT_SHUFFLES(T, U, _)                                               \
  WEFT_SHUFFLE_TO(T, U, 2) WEFT_SHUFFLE_TO(T, U, 4)                          \
  WEFT_SHUFFLE_TO(T, U, 8) WEFT_SHUFFLE_TO(T, U, 16)
WEFT_EACH_ELEMENT(WEFT_SHUFFLES, _)

/* select: b where c is true, else a. A scalar c is true when not zero, a
 * vector component when its most significant bit is set; c may be the
 * signed (I) or unsigned (U) integer type of the element's size. */
#define WEFT_SELECT_S(N, T, I, C)                                            \
  T WEFT_OVERLOAD select(T a, T b, C c) { return c ? b : a; }
#define WEFT_SELECT_V(N, T, I, C)                                            \
  T##N WEFT_OVERLOAD select(T##N a, T##N b, C##N c) {                        \
    return __builtin_astype(c, I##N) < (I##N)0 ? b : a;                         \
  }
#define WEFT_SELECT_WIDTH(N, K, T, I, U)                                     \
  WEFT_SELECT_##K(N, T, I, I) WEFT_SELECT_##K(N, T, I, U)

#define WEFT_SELECTS(T, I, U) WEFT_EACH_N(WEFT_SELECT_WIDTH, T, I, U)
WEFT_SELECTS(char, char, uchar)
WEFT_SELECTS(uchar, char, uchar)
WEFT_SELECTS(short, short, ushort)
WEFT_SELECTS(ushort, short, ushort)
WEFT_SELECTS(int, int, uint)
WEFT_SELECTS(uint, int, uint)
WEFT_SELECTS(long, long, ulong)
WEFT_SELECTS(ulong, long, ulong)
WEFT_SELECTS(float, int, uint)
WEFT_SELECTS(double, long, ulong)

/* bitselect: each bit from b where the bit of c is set, else from a. */
#define WEFT_BITSELECT(N, K, T, U)                                           \
  T##N WEFT_OVERLOAD bitselect(T##N a, T##N b, T##N c) {                     \
    U##N m = __builtin_astype(c, U##N);                                      \
    U##N r = (__builtin_astype(a, U##N) & ~m) | (__builtin_astype(b, U##N) & m); \
    return __builtin_astype(r, T##N);                                        \
  }
#define WEFT_BITSELECTS(T, U, _) WEFT_EACH_N(WEFT_BITSELECT, T, U)
WEFT_EACH_ELEMENT(WEFT_BITSELECTS, _)
