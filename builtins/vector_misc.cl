/*
 * Miscellaneous vector functions (OpenCL C 3.0, 6.15.13): shuffle and
 * shuffle2 for every element type and width. (vec_step is an operator;
 * select and bitselect are relational functions, in relational.cl.)
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
