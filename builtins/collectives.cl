/*
 * Work-group collective functions (OpenCL C 3.0, 6.15.16): broadcast,
 * any, all, reduce and scans, over a per-group scratch area of __local
 * memory that the JIT provides (__weft_wg_scratch: one slot per work-item
 * of the largest group, and one more).
 *
 * Every work-item of the group reaches a collective, as with barrier():
 * each stores its value, the first work-item folds them in order (so a
 * float reduction gives the same result on every run), and after a second
 * barrier each reads its answer. A third barrier keeps the next collective
 * from overwriting the scratch before every work-item has read it. On the
 * GPU the reductions and scans go by warps instead (below).
 */
#include "builtins.h"

__local ulong *__weft_wg_scratch(void) __attribute__((const));

#define WEFT_FENCE CLK_LOCAL_MEM_FENCE

static size_t WEFT_OVERLOAD group_items(void) {
  return get_local_size(0) * get_local_size(1) * get_local_size(2);
}

/* The identities of the operations, per type. */
#define IDENT_int_add 0
#define IDENT_int_min INT_MAX
#define IDENT_int_max INT_MIN
#define IDENT_uint_add 0u
#define IDENT_uint_min UINT_MAX
#define IDENT_uint_max 0u
#define IDENT_long_add 0l
#define IDENT_long_min LONG_MAX
#define IDENT_long_max LONG_MIN
#define IDENT_ulong_add 0ul
#define IDENT_ulong_min ULONG_MAX
#define IDENT_ulong_max 0ul
#define IDENT_float_add 0.0f
#define IDENT_float_min INFINITY
#define IDENT_float_max (-INFINITY)
#define IDENT_double_add 0.0
#define IDENT_double_min ((double)INFINITY)
#define IDENT_double_max (-(double)INFINITY)

#define OP_add(a, b) ((a) + (b))
#define OP_min(a, b) ((b) < (a) ? (b) : (a))
#define OP_max(a, b) ((b) > (a) ? (b) : (a))

#ifdef __NVPTX__
/* On the GPU each warp folds its values by shuffles (its sub-group's
 * functions, sub_groups.cl), leaves its total in the scratch, and after a
 * barrier every thread folds the warps' totals (at most 32, read from
 * shared memory at once by the whole warp), in warp order; a second
 * barrier keeps the next collective from overwriting them. */
#define REDUCE(T, op)                                                        \
  T __attribute__((overloadable, convergent)) work_group_reduce_##op(T x) { \
    __local T *s = (__local T *)__weft_wg_scratch();                         \
    T part = sub_group_reduce_##op(x);                                       \
    if (get_sub_group_local_id() == 0) s[get_sub_group_id()] = part;         \
    barrier(WEFT_FENCE);                                                     \
    T acc = s[0];                                                            \
    for (uint i = 1, n = get_num_sub_groups(); i < n; i++)                   \
      acc = OP_##op(acc, s[i]);                                              \
    barrier(WEFT_FENCE);                                                     \
    return acc;                                                              \
  }

/* scans: the warp's own scan after the fold of the warps before it. */
#define SCAN_BODY(T, op)                                                     \
  static T WEFT_OVERLOAD scan_##op(T x, int inclusive) {                     \
    __local T *s = (__local T *)__weft_wg_scratch();                         \
    uint w = get_sub_group_id();                                             \
    T mine = inclusive ? sub_group_scan_inclusive_##op(x)                    \
                       : sub_group_scan_exclusive_##op(x);                   \
    if (get_sub_group_local_id() == get_sub_group_size() - 1)                \
      s[w] = inclusive ? mine : OP_##op(mine, x);                            \
    barrier(WEFT_FENCE);                                                     \
    T before = IDENT_##T##_##op;                                             \
    for (uint i = 0; i < w; i++) before = OP_##op(before, s[i]);             \
    barrier(WEFT_FENCE);                                                     \
    return OP_##op(before, mine);                                            \
  }
#else
/* reduce: the fold of every work-item's value, for each. */
#define REDUCE(T, op)                                                        \
  T __attribute__((overloadable, convergent)) work_group_reduce_##op(T x) { \
    __local T *s = (__local T *)__weft_wg_scratch();                         \
    size_t id = get_local_linear_id(), n = group_items();                    \
    s[id] = x;                                                               \
    barrier(WEFT_FENCE);                                                     \
    if (id == 0) {                                                           \
      T acc = s[0];                                                          \
      for (size_t i = 1; i < n; i++) acc = OP_##op(acc, s[i]);               \
      s[n] = acc;                                                            \
    }                                                                        \
    barrier(WEFT_FENCE);                                                     \
    T r = s[n];                                                              \
    barrier(WEFT_FENCE);                                                     \
    return r;                                                                \
  }

/* scans: the first work-item turns the values into running folds in
 * place; inclusive reads its own, exclusive the one before (or the
 * identity). */
#define SCAN_BODY(T, op)                                                     \
  static T WEFT_OVERLOAD scan_##op(T x, int inclusive) {                     \
    __local T *s = (__local T *)__weft_wg_scratch();                         \
    size_t id = get_local_linear_id(), n = group_items();                    \
    s[id] = x;                                                               \
    barrier(WEFT_FENCE);                                                     \
    if (id == 0)                                                             \
      for (size_t i = 1; i < n; i++) s[i] = OP_##op(s[i - 1], s[i]);         \
    barrier(WEFT_FENCE);                                                     \
    T r = inclusive ? s[id] : id ? s[id - 1] : (T)IDENT_##T##_##op;          \
    barrier(WEFT_FENCE);                                                     \
    return r;                                                                \
  }

#endif

/* The scans of either kind, over scan_op. */
#define SCAN(T, op)                                                          \
  SCAN_BODY(T, op)                                                           \
  T __attribute__((overloadable, convergent))                                \
      work_group_scan_inclusive_##op(T x) {                                  \
    return scan_##op(x, 1);                                                  \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      work_group_scan_exclusive_##op(T x) {                                  \
    return scan_##op(x, 0);                                                  \
  }

/* broadcast: the value of the work-item named, for each. */
#define BROADCAST(T)                                                         \
  static T WEFT_OVERLOAD broadcast(T x, size_t from) {                       \
    /* The result slot: a work-item's own may be in a sub-group's use  */ \
    /* (sub_groups.cl) until that sub-group reaches this barrier.       */ \
    __local T *s = (__local T *)(__weft_wg_scratch() + group_items());       \
    if (get_local_linear_id() == from) s[0] = x;                             \
    barrier(WEFT_FENCE);                                                     \
    T r = s[0];                                                              \
    barrier(WEFT_FENCE);                                                     \
    return r;                                                                \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      work_group_broadcast(T x, size_t lx) {                                 \
    return broadcast(x, lx);                                                 \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      work_group_broadcast(T x, size_t lx, size_t ly) {                      \
    return broadcast(x, ly * get_local_size(0) + lx);                        \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      work_group_broadcast(T x, size_t lx, size_t ly, size_t lz) {           \
    return broadcast(x, (lz * get_local_size(1) + ly) * get_local_size(0) +  \
                            lx);                                             \
  }

#define ALL_OF(T)                                                            \
  REDUCE(T, add) REDUCE(T, min) REDUCE(T, max)                               \
  SCAN(T, add) SCAN(T, min) SCAN(T, max) BROADCAST(T)

ALL_OF(int)
ALL_OF(uint)
ALL_OF(long)
ALL_OF(ulong)
ALL_OF(float)
ALL_OF(double)

int __attribute__((overloadable, convergent)) work_group_any(int p) {
  return work_group_reduce_max(p != 0 ? 1 : 0);
}

int __attribute__((overloadable, convergent)) work_group_all(int p) {
  return work_group_reduce_min(p != 0 ? 1 : 0);
}
