/*
 * Atomic functions of OpenCL C 1.2 (6.12.11) on __global and __local memory,
 * and their 1.0 atom_* spellings from the cl_khr_*_atomics extensions,
 * including the 64-bit ones of cl_khr_int64_*_atomics.
 *
 * Work-groups run on different threads, so these are real atomic
 * read-modify-writes. They are sequentially consistent: on x86-64 a locked
 * instruction costs the same either way, and user spin locks built on
 * atomic_cmpxchg then need no extra fences.
 */
#include "builtins.h"

#define WEFT_SC __ATOMIC_SEQ_CST

#define WEFT_RMW(name, builtin, T, AS)                                       \
  T WEFT_OVERLOAD name(volatile AS T *p, T v) { return builtin(p, v, WEFT_SC); }

#define WEFT_INCDEC(name, builtin, T, AS)                                    \
  T WEFT_OVERLOAD name(volatile AS T *p) { return builtin(p, (T)1, WEFT_SC); }

#define WEFT_CMPXCHG(name, T, AS)                                            \
  T WEFT_OVERLOAD name(volatile AS T *p, T expected, T desired) {            \
    __atomic_compare_exchange_n(p, &expected, desired, false, WEFT_SC,       \
                                WEFT_SC);                                    \
    return expected;                                                         \
  }

/* One integer type in one address space, under one family of names. */
#define WEFT_ATOMICS(P, T, AS)                                               \
  WEFT_RMW(P##_add, __atomic_fetch_add, T, AS)                               \
  WEFT_RMW(P##_sub, __atomic_fetch_sub, T, AS)                               \
  WEFT_RMW(P##_xchg, __atomic_exchange_n, T, AS)                             \
  WEFT_RMW(P##_min, __atomic_fetch_min, T, AS)                               \
  WEFT_RMW(P##_max, __atomic_fetch_max, T, AS)                               \
  WEFT_RMW(P##_and, __atomic_fetch_and, T, AS)                               \
  WEFT_RMW(P##_or, __atomic_fetch_or, T, AS)                                 \
  WEFT_RMW(P##_xor, __atomic_fetch_xor, T, AS)                               \
  WEFT_INCDEC(P##_inc, __atomic_fetch_add, T, AS)                            \
  WEFT_INCDEC(P##_dec, __atomic_fetch_sub, T, AS)                            \
  WEFT_CMPXCHG(P##_cmpxchg, T, AS)

#define WEFT_ATOMICS_BOTH_SPACES(P, T)                                       \
  WEFT_ATOMICS(P, T, __global) WEFT_ATOMICS(P, T, __local)

WEFT_ATOMICS_BOTH_SPACES(atomic, int)
WEFT_ATOMICS_BOTH_SPACES(atomic, uint)
WEFT_ATOMICS_BOTH_SPACES(atom, int)
WEFT_ATOMICS_BOTH_SPACES(atom, uint)
WEFT_ATOMICS_BOTH_SPACES(atom, long)
WEFT_ATOMICS_BOTH_SPACES(atom, ulong)

/* atomic_xchg on float exchanges the bits through an int of the same size. */
#define WEFT_XCHG_FLOAT(name, AS)                                            \
  float WEFT_OVERLOAD name(volatile AS float *p, float v) {                  \
    return as_float(                                                         \
        __atomic_exchange_n((volatile AS int *)p, as_int(v), WEFT_SC));      \
  }

WEFT_XCHG_FLOAT(atomic_xchg, __global)
WEFT_XCHG_FLOAT(atomic_xchg, __local)
WEFT_XCHG_FLOAT(atom_xchg, __global)
WEFT_XCHG_FLOAT(atom_xchg, __local)
