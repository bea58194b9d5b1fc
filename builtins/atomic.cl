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

/*
 * The atomics of OpenCL C 2.0 and 3.0 (6.15.12) on the C11 atomic types, in
 * the generic address space and, as 3.0 declares them, in __global and
 * __local. They use the memory order they are given: a constant order (the
 * common case) folds to one instruction once the call is inlined. Every
 * scope is carried out as memory_scope_all_devices: work-groups run on
 * different threads, and the stronger scope is always correct.
 */
#define WEFT_SCOPE(s) ((void)(s))

/* M(AS) for the generic, __global and __local address spaces. */
#define WEFT_EACH_ATOMIC_SPACE(M) M() M(__global) M(__local)

/* atomic_init, load, store and exchange of one type A holding T. */
#define WEFT_C11_ACCESS(AS, A, T)                                            \
  void WEFT_OVERLOAD atomic_init(volatile AS A *p, T v) {                    \
    __c11_atomic_init(p, v);                                                 \
  }                                                                          \
  void WEFT_OVERLOAD atomic_store(volatile AS A *p, T v) {                   \
    __c11_atomic_store(p, v, WEFT_SC);                                       \
  }                                                                          \
  void WEFT_OVERLOAD atomic_store_explicit(volatile AS A *p, T v,            \
                                          memory_order o) {                  \
    __c11_atomic_store(p, v, o);                                             \
  }                                                                          \
  void WEFT_OVERLOAD atomic_store_explicit(volatile AS A *p, T v,            \
                                          memory_order o, memory_scope s) {  \
    WEFT_SCOPE(s);                                                           \
    __c11_atomic_store(p, v, o);                                             \
  }                                                                          \
  T WEFT_OVERLOAD atomic_load(volatile AS A *p) {                            \
    return __c11_atomic_load(p, WEFT_SC);                                    \
  }                                                                          \
  T WEFT_OVERLOAD atomic_load_explicit(volatile AS A *p, memory_order o) {   \
    return __c11_atomic_load(p, o);                                          \
  }                                                                          \
  T WEFT_OVERLOAD atomic_load_explicit(volatile AS A *p, memory_order o,     \
                                       memory_scope s) {                     \
    WEFT_SCOPE(s);                                                           \
    return __c11_atomic_load(p, o);                                          \
  }                                                                          \
  T WEFT_OVERLOAD atomic_exchange(volatile AS A *p, T v) {                   \
    return __c11_atomic_exchange(p, v, WEFT_SC);                             \
  }                                                                          \
  T WEFT_OVERLOAD atomic_exchange_explicit(volatile AS A *p, T v,            \
                                           memory_order o) {                 \
    return __c11_atomic_exchange(p, v, o);                                   \
  }                                                                          \
  T WEFT_OVERLOAD atomic_exchange_explicit(volatile AS A *p, T v,            \
                                           memory_order o, memory_scope s) { \
    WEFT_SCOPE(s);                                                           \
    return __c11_atomic_exchange(p, v, o);                                   \
  }

/* compare_exchange_strong or _weak (K) on A in AS, with expected in EAS.
 * Floats compare their bits, as C11 specifies. */
#define WEFT_C11_CAS(K, AS, EAS, A, T)                                       \
  bool WEFT_OVERLOAD atomic_compare_exchange_##K(volatile AS A *p,           \
                                                 EAS T *expected, T v) {     \
    return __c11_atomic_compare_exchange_##K(p, expected, v, WEFT_SC,        \
                                             WEFT_SC);                       \
  }                                                                          \
  bool WEFT_OVERLOAD atomic_compare_exchange_##K##_explicit(                 \
      volatile AS A *p, EAS T *expected, T v, memory_order success,          \
      memory_order failure) {                                                \
    return __c11_atomic_compare_exchange_##K(p, expected, v, success,        \
                                             failure);                       \
  }                                                                          \
  bool WEFT_OVERLOAD atomic_compare_exchange_##K##_explicit(                 \
      volatile AS A *p, EAS T *expected, T v, memory_order success,          \
      memory_order failure, memory_scope s) {                                \
    WEFT_SCOPE(s);                                                           \
    return __c11_atomic_compare_exchange_##K(p, expected, v, success,        \
                                             failure);                       \
  }

/* The expected value lives in the generic space for a generic atomic, and
 * in any named space for a named one. */
#define WEFT_C11_CAS_SPACES(K, A, T)                                         \
  WEFT_C11_CAS(K, , , A, T)                                                  \
  WEFT_C11_CAS(K, __global, __global, A, T)                                  \
  WEFT_C11_CAS(K, __global, __local, A, T)                                   \
  WEFT_C11_CAS(K, __global, __private, A, T)                                 \
  WEFT_C11_CAS(K, __local, __global, A, T)                                   \
  WEFT_C11_CAS(K, __local, __local, A, T)                                    \
  WEFT_C11_CAS(K, __local, __private, A, T)

/* atomic_fetch_OP on A holding T, with an operand of type V. */
#define WEFT_C11_FETCH(AS, OP, A, T, V)                                      \
  T WEFT_OVERLOAD atomic_fetch_##OP(volatile AS A *p, V v) {                 \
    return __c11_atomic_fetch_##OP(p, (T)v, WEFT_SC);                        \
  }                                                                          \
  T WEFT_OVERLOAD atomic_fetch_##OP##_explicit(volatile AS A *p, V v,        \
                                               memory_order o) {             \
    return __c11_atomic_fetch_##OP(p, (T)v, o);                              \
  }                                                                          \
  T WEFT_OVERLOAD atomic_fetch_##OP##_explicit(                              \
      volatile AS A *p, V v, memory_order o, memory_scope s) {               \
    WEFT_SCOPE(s);                                                           \
    return __c11_atomic_fetch_##OP(p, (T)v, o);                              \
  }

#define WEFT_C11_FETCH_ALL(AS, A, T, V)                                      \
  WEFT_C11_FETCH(AS, add, A, T, V) WEFT_C11_FETCH(AS, sub, A, T, V)          \
  WEFT_C11_FETCH(AS, or, A, T, V) WEFT_C11_FETCH(AS, xor, A, T, V)           \
  WEFT_C11_FETCH(AS, and, A, T, V) WEFT_C11_FETCH(AS, min, A, T, V)          \
  WEFT_C11_FETCH(AS, max, A, T, V)

#define WEFT_C11_INTEGER(AS)                                                 \
  WEFT_C11_FETCH_ALL(AS, atomic_int, int, int)                               \
  WEFT_C11_FETCH_ALL(AS, atomic_uint, uint, uint)                            \
  WEFT_C11_FETCH_ALL(AS, atomic_long, long, long)                            \
  WEFT_C11_FETCH_ALL(AS, atomic_ulong, ulong, ulong)                         \
  /* atomic_(u)intptr_t with an operand of the other signedness, as in       \
   * (uintptr_t, ptrdiff_t) for add and sub; the operation is done in the    \
   * atomic's own type. */                                                   \
  WEFT_C11_FETCH_ALL(AS, atomic_uintptr_t, uintptr_t, intptr_t)              \
  WEFT_C11_FETCH_ALL(AS, atomic_intptr_t, intptr_t, uintptr_t)

#define WEFT_C11_ACCESS_ALL(AS)                                              \
  WEFT_C11_ACCESS(AS, atomic_int, int)                                       \
  WEFT_C11_ACCESS(AS, atomic_uint, uint)                                     \
  WEFT_C11_ACCESS(AS, atomic_long, long)                                     \
  WEFT_C11_ACCESS(AS, atomic_ulong, ulong)                                   \
  WEFT_C11_ACCESS(AS, atomic_float, float)                                   \
  WEFT_C11_ACCESS(AS, atomic_double, double)

/* atomic_flag is an atomic_int holding 0 (clear) or 1 (set). */
#define WEFT_C11_FLAG(AS)                                                    \
  bool WEFT_OVERLOAD atomic_flag_test_and_set(volatile AS atomic_flag *p) {  \
    return __c11_atomic_exchange(p, 1, WEFT_SC);                             \
  }                                                                          \
  bool WEFT_OVERLOAD atomic_flag_test_and_set_explicit(                      \
      volatile AS atomic_flag *p, memory_order o) {                          \
    return __c11_atomic_exchange(p, 1, o);                                   \
  }                                                                          \
  bool WEFT_OVERLOAD atomic_flag_test_and_set_explicit(                      \
      volatile AS atomic_flag *p, memory_order o, memory_scope s) {          \
    WEFT_SCOPE(s);                                                           \
    return __c11_atomic_exchange(p, 1, o);                                   \
  }                                                                          \
  void WEFT_OVERLOAD atomic_flag_clear(volatile AS atomic_flag *p) {         \
    __c11_atomic_store(p, 0, WEFT_SC);                                       \
  }                                                                          \
  void WEFT_OVERLOAD atomic_flag_clear_explicit(volatile AS atomic_flag *p,  \
                                                memory_order o) {            \
    __c11_atomic_store(p, 0, o);                                             \
  }                                                                          \
  void WEFT_OVERLOAD atomic_flag_clear_explicit(                             \
      volatile AS atomic_flag *p, memory_order o, memory_scope s) {          \
    WEFT_SCOPE(s);                                                           \
    __c11_atomic_store(p, 0, o);                                             \
  }

WEFT_EACH_ATOMIC_SPACE(WEFT_C11_ACCESS_ALL)
WEFT_EACH_ATOMIC_SPACE(WEFT_C11_INTEGER)
WEFT_EACH_ATOMIC_SPACE(WEFT_C11_FLAG)

#define WEFT_C11_CAS_ALL(K)                                                  \
  WEFT_C11_CAS_SPACES(K, atomic_int, int)                                    \
  WEFT_C11_CAS_SPACES(K, atomic_uint, uint)                                  \
  WEFT_C11_CAS_SPACES(K, atomic_long, long)                                  \
  WEFT_C11_CAS_SPACES(K, atomic_ulong, ulong)                                \
  WEFT_C11_CAS_SPACES(K, atomic_float, float)                                \
  WEFT_C11_CAS_SPACES(K, atomic_double, double)

WEFT_C11_CAS_ALL(strong)
WEFT_C11_CAS_ALL(weak)

void WEFT_OVERLOAD atomic_work_item_fence(cl_mem_fence_flags flags,
                                          memory_order o, memory_scope s) {
  /* Other work-items may run on other threads whatever the flags and the
   * scope, so this is a thread fence; a relaxed one is no fence. */
  (void)flags;
  WEFT_SCOPE(s);
  __c11_atomic_thread_fence(o);
}
