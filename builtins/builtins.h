/*
 * builtins.h: macros shared by the OpenCL C builtin library.
 *
 * Builtins are overloaded functions (the declarations in opencl-c.h carry
 * __attribute__((overloadable))), so every definition here is one too. The
 * WEFT_EACH_* macros stamp a definition M(T, ...) out for a scalar type and
 * each of its vector widths, so a table of types is written once.
 */
#ifndef WEFT_BUILTINS_H
#define WEFT_BUILTINS_H

#define WEFT_OVERLOAD __attribute__((overloadable))

/* M(T, ...) for T and its vectors of 2, 3, 4, 8 and 16. */
#define WEFT_EACH_WIDTH(M, T, ...)                                           \
  M(T, __VA_ARGS__) M(T##2, __VA_ARGS__) M(T##3, __VA_ARGS__)                \
  M(T##4, __VA_ARGS__) M(T##8, __VA_ARGS__) M(T##16, __VA_ARGS__)

/* M(V, S, ...) for the vector types V of a scalar S. */
#define WEFT_EACH_VECTOR(M, S, ...)                                          \
  M(S##2, S, __VA_ARGS__) M(S##3, S, __VA_ARGS__) M(S##4, S, __VA_ARGS__)    \
  M(S##8, S, __VA_ARGS__) M(S##16, S, __VA_ARGS__)

#define WEFT_EACH_FLOAT(M, ...)                                              \
  WEFT_EACH_WIDTH(M, float, __VA_ARGS__)                                     \
  WEFT_EACH_WIDTH(M, double, __VA_ARGS__)

#define WEFT_EACH_FLOAT_VECTOR(M, ...)                                       \
  WEFT_EACH_VECTOR(M, float, __VA_ARGS__)                                    \
  WEFT_EACH_VECTOR(M, double, __VA_ARGS__)

#define WEFT_EACH_INTEGER(M, ...)                                            \
  WEFT_EACH_WIDTH(M, char, __VA_ARGS__)                                      \
  WEFT_EACH_WIDTH(M, uchar, __VA_ARGS__)                                     \
  WEFT_EACH_WIDTH(M, short, __VA_ARGS__)                                     \
  WEFT_EACH_WIDTH(M, ushort, __VA_ARGS__)                                    \
  WEFT_EACH_WIDTH(M, int, __VA_ARGS__)                                       \
  WEFT_EACH_WIDTH(M, uint, __VA_ARGS__)                                      \
  WEFT_EACH_WIDTH(M, long, __VA_ARGS__)                                      \
  WEFT_EACH_WIDTH(M, ulong, __VA_ARGS__)

#define WEFT_EACH_INTEGER_VECTOR(M, ...)                                     \
  WEFT_EACH_VECTOR(M, char, __VA_ARGS__)                                     \
  WEFT_EACH_VECTOR(M, uchar, __VA_ARGS__)                                    \
  WEFT_EACH_VECTOR(M, short, __VA_ARGS__)                                    \
  WEFT_EACH_VECTOR(M, ushort, __VA_ARGS__)                                   \
  WEFT_EACH_VECTOR(M, int, __VA_ARGS__)                                      \
  WEFT_EACH_VECTOR(M, uint, __VA_ARGS__)                                     \
  WEFT_EACH_VECTOR(M, long, __VA_ARGS__)                                     \
  WEFT_EACH_VECTOR(M, ulong, __VA_ARGS__)

/* M(A, B, ...) for types A and B at the same width: scalars and vectors, or
 * vectors only (an integer type and its unsigned twin, a float type and the
 * integer type of its comparisons). */
#define WEFT_EACH_WIDTH_PAIR(M, A, B, ...)                                   \
  M(A, B, __VA_ARGS__) WEFT_EACH_VECTOR_PAIR(M, A, B, __VA_ARGS__)
#define WEFT_EACH_VECTOR_PAIR(M, A, B, ...)                                  \
  M(A##2, B##2, __VA_ARGS__) M(A##3, B##3, __VA_ARGS__)                      \
  M(A##4, B##4, __VA_ARGS__) M(A##8, B##8, __VA_ARGS__)                      \
  M(A##16, B##16, __VA_ARGS__)

/* x converted to type T with C's rules (truncation toward zero from
 * floating point, round to nearest to it, wrap-around between integers): a
 * cast for scalars (S); OpenCL C has no casts between vector types, so
 * vectors (V) convert element by element. S and V are WEFT_EACH_N's K. */
#define WEFT_CVT_S(x, T) ((T)(x))
#define WEFT_CVT_V(x, T) __builtin_convertvector(x, T)

/* M(N, K, ...) for each width suffix N (empty for scalars, then 2, 3, 4, 8,
 * 16), with K = S for the scalar and V for vectors: T##N names the type,
 * and K picks the spelling of what differs, e.g. __builtin_convertvector
 * takes only vectors. */
#define WEFT_EACH_N(M, ...)                                                  \
  M(, S, __VA_ARGS__) M(2, V, __VA_ARGS__) M(3, V, __VA_ARGS__)              \
  M(4, V, __VA_ARGS__) M(8, V, __VA_ARGS__) M(16, V, __VA_ARGS__)

/* x's bits as type T, of the same size. */
#define WEFT_AS(x, T) __builtin_astype((x), T)

/* Rounding modes of conversions (convert_T_rte ...), 0 being the default
 * of the conversion. */
#define WEFT_RTE 1
#define WEFT_RTZ 2
#define WEFT_RTP 3
#define WEFT_RTN 4

/* M(T, ...) for each of the ten scalar types, integers first. */
#define WEFT_EACH_SCALAR(M, ...)                                             \
  M(char, __VA_ARGS__) M(uchar, __VA_ARGS__) M(short, __VA_ARGS__)           \
  M(ushort, __VA_ARGS__) M(int, __VA_ARGS__) M(uint, __VA_ARGS__)            \
  M(long, __VA_ARGS__) M(ulong, __VA_ARGS__) M(float, __VA_ARGS__)           \
  M(double, __VA_ARGS__)

/* Definitions of name(x), name(x, y) and name(x, y, z) as one expression. */
#define WEFT_DEF1(T, name, expr)                                             \
  T WEFT_OVERLOAD name(T x) { return expr; }
#define WEFT_DEF2(T, name, expr)                                             \
  T WEFT_OVERLOAD name(T x, T y) { return expr; }
#define WEFT_DEF3(T, name, expr)                                             \
  T WEFT_OVERLOAD name(T x, T y, T z) { return expr; }

#endif
