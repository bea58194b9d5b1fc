/*
 * Sub-group functions (OpenCL C 3.0, 6.15.19; cl_khr_subgroups and
 * cl_khr_subgroup_extended_types), over two primitives: the sub-group's
 * width (__weft_sub_group_width: the kernel's width on the CPU, which the
 * JIT makes a constant, a warp of 32 on the GPU) and a barrier of the
 * sub-group alone (__weft_sub_group_barrier: on the CPU the JIT makes
 * it a barrier that only the sub-group's work-items wait at, on fibers;
 * on the GPU bar.warp.sync). A sub-group is width consecutive local
 * linear ids; the last of a group may be smaller.
 *
 * On the CPU the collective functions go through the work-group scratch
 * area that collectives.cl uses, one 8-byte slot per work-item (whatever
 * the type, so that sub-groups doing different things at once never
 * share a slot): each work-item stores its value, the first of the sub-group
 * folds them in order (a float reduction gives the same result on every
 * run) into a slot no lane writes next, and after a second barrier each
 * reads its answer. Where a jammed call runs whole sub-groups side by
 * side (jit/cpu/jam_sub_groups.c), __weft_sub_group_lanes() is 1 and the
 * reductions, scans and broadcasts take the lanes' values from each
 * other there, in the same order; everywhere else it is 0.
 */
#include "sub_groups.h"

/* ------------------------------------------------------------ geometry */

static uint WEFT_OVERLOAD group_items(void) {
  return (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
}

static uint WEFT_OVERLOAD enqueued_items(void) {
  return (uint)(get_enqueued_local_size(0) * get_enqueued_local_size(1) *
                get_enqueued_local_size(2));
}

uint WEFT_OVERLOAD get_sub_group_local_id(void) {
  return (uint)get_local_linear_id() % __weft_sub_group_width();
}

uint WEFT_OVERLOAD get_sub_group_id(void) {
  return (uint)get_local_linear_id() / __weft_sub_group_width();
}

uint WEFT_OVERLOAD get_sub_group_size(void) {
  uint w = __weft_sub_group_width();
  /* A jam of whole sub-groups runs groups whose x size is a multiple of
   * the width only: every sub-group there is whole (and `lane == size -
   * 1` is a constant of each lane). */
  IF_LANES(w);
  uint left = group_items() - sub_group_base();
  return left < w ? left : w;
}

uint WEFT_OVERLOAD get_max_sub_group_size(void) {
  uint w = __weft_sub_group_width(), n = enqueued_items();
  return n < w ? n : w;
}

uint WEFT_OVERLOAD get_num_sub_groups(void) {
  uint w = __weft_sub_group_width();
  return (group_items() + w - 1) / w;
}

uint WEFT_OVERLOAD get_enqueued_num_sub_groups(void) {
  uint w = __weft_sub_group_width();
  return (enqueued_items() + w - 1) / w;
}

/* ------------------------------------------------------------- barrier */

void __attribute__((overloadable, convergent))
sub_group_barrier(cl_mem_fence_flags flags) {
  __weft_sub_group_barrier(flags);
}

void __attribute__((overloadable, convergent))
sub_group_barrier(cl_mem_fence_flags flags, memory_scope scope) {
  (void)scope; /* a barrier orders the sub-group's accesses in any scope */
  __weft_sub_group_barrier(flags);
}

/* ---------------------------------------------------------- collectives */

#ifdef __NVPTX__
/* On the GPU, shuffles within the warp (sub_groups.h): an inclusive scan
 * is a step up the lanes per power of two; a reduction, the last lane's
 * scan (an integer's of 32 bits or fewer one redux.sync, where the GPU
 * has it); a broadcast, one shuffle. */
#define SCAN_STEPS(T, op)                                                    \
  static T WEFT_OVERLOAD warp_scan_##op(T x) {                               \
    uint lane = get_sub_group_local_id(), m = __weft_sub_group_mask();       \
    for (uint d = 1; d < 32; d <<= 1) {                                      \
      T y = warp_up(x, d, m);                                                \
      if (lane >= d) x = OP_##op(y, x);                                      \
    }                                                                        \
    return x;                                                                \
  }
#define REDUCE(T, op)                                                        \
  T __attribute__((overloadable, convergent)) sub_group_reduce_##op(T x) {  \
    IF_REDUX(T, op, x, __weft_sub_group_mask());                             \
    return warp_idx(warp_scan_##op(x), get_sub_group_size() - 1,             \
                    __weft_sub_group_mask());                                \
  }
#define SCAN(T, op)                                                          \
  T __attribute__((overloadable, convergent))                                \
      sub_group_scan_inclusive_##op(T x) {                                   \
    return warp_scan_##op(x);                                                \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      sub_group_scan_exclusive_##op(T x) {                                   \
    T before = warp_up(warp_scan_##op(x), 1, __weft_sub_group_mask());       \
    return get_sub_group_local_id() ? before : IDENT_##op(T);               \
  }
#define BROADCAST(T)                                                         \
  T __attribute__((overloadable, convergent))                                \
      sub_group_broadcast(T x, uint from) {                                  \
    return warp_idx(x, from, __weft_sub_group_mask());                      \
  }
#define PREPARE(T) SCAN_STEPS(T, add) SCAN_STEPS(T, min) SCAN_STEPS(T, max)
#else
/* The sub-group's result slot: after the group's slots and the
 * work-group broadcast's (the JIT's scratch has one per sub-group of the
 * smallest width). Its lanes read it before any of them can reach the
 * next function's first barrier, after which its first lane may write
 * it again: two barriers a function, not three. */
#define RESULT(T)                                                            \
  (*(__local T *)(__weft_wg_scratch() + group_items() + 1 + get_sub_group_id()))

/* reduce: the fold of the sub-group's values, in lane order (a float
 * reduction gives the same result on every run), for each. */
#define REDUCE(T, op)                                                        \
  T __attribute__((overloadable, convergent)) sub_group_reduce_##op(T x) {  \
    IF_LANES(LANES_FOLD_ALL(T, x, WEFT_LANES_REDUCE, op));                   \
    uint id = (uint)get_local_linear_id(), base = sub_group_base();          \
    SLOT(T, id) = x;                                                         \
    __weft_sub_group_barrier(WEFT_FENCE);                                    \
    if (id == base) {                                                        \
      T acc = SLOT(T, base);                                                 \
      for (uint i = 1, n = get_sub_group_size(); i < n; i++)                 \
        acc = OP_##op(acc, SLOT(T, base + i));                               \
      RESULT(T) = acc;                                                       \
    }                                                                        \
    __weft_sub_group_barrier(WEFT_FENCE);                                    \
    return RESULT(T);                                                        \
  }

/* scans: the first work-item turns the slots into running folds in
 * place, each lane's own (up to it, or before it: the identity for the
 * first), so that each lane reads only its own slot, which no other lane
 * writes next. */
#define SCAN(T, op)                                                          \
  static T WEFT_OVERLOAD scan_##op(T x, int inclusive) {                     \
    IF_LANES(inclusive ? LANES_FOLD_ALL(T, x, WEFT_LANES_INCLUSIVE, op)      \
                       : LANES_FOLD_ALL(T, x, WEFT_LANES_EXCLUSIVE, op));    \
    uint id = (uint)get_local_linear_id(), base = sub_group_base();          \
    SLOT(T, id) = x;                                                         \
    __weft_sub_group_barrier(WEFT_FENCE);                                    \
    if (id == base) {                                                        \
      T acc = IDENT_##op(T);                                                 \
      for (uint i = base, end = base + get_sub_group_size(); i < end; i++) { \
        T value = SLOT(T, i);                                                \
        T next = OP_##op(acc, value);                                        \
        SLOT(T, i) = inclusive ? next : acc;                                 \
        acc = next;                                                          \
      }                                                                      \
    }                                                                        \
    __weft_sub_group_barrier(WEFT_FENCE);                                    \
    return SLOT(T, id);                                                      \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      sub_group_scan_inclusive_##op(T x) {                                   \
    return scan_##op(x, 1);                                                  \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      sub_group_scan_exclusive_##op(T x) {                                   \
    return scan_##op(x, 0);                                                  \
  }

/* broadcast: the value of the sub-group's work-item named, for each. */
#define BROADCAST(T)                                                         \
  T __attribute__((overloadable, convergent))                                \
      sub_group_broadcast(T x, uint from) {                                  \
    IF_LANES(LANES_PICK_ALL(T, x, from));                                    \
    uint id = (uint)get_local_linear_id(), base = sub_group_base();          \
    SLOT(T, id) = x;                                                         \
    __weft_sub_group_barrier(WEFT_FENCE);                                    \
    T r = SLOT(T, base + from);                                              \
    __weft_sub_group_barrier(WEFT_FENCE);                                    \
    return r;                                                                \
  }

#define PREPARE(T)
#endif

/* A vector's broadcast: one lane at a time (each a scalar's). */
#define BROADCAST_VECTOR(V, S, ...) WEFT_LANE_BY_LANE(V, S, sub_group_broadcast)

#define ALL_OF(T)                                                            \
  PREPARE(T) REDUCE(T, add) REDUCE(T, min) REDUCE(T, max)                   \
  SCAN(T, add) SCAN(T, min) SCAN(T, max) BROADCAST(T)

/* cl_khr_subgroups: 32- and 64-bit types. */
ALL_OF(int)
ALL_OF(uint)
ALL_OF(long)
ALL_OF(ulong)
ALL_OF(float)
ALL_OF(double)

/* cl_khr_subgroup_extended_types: 8- and 16-bit types too, and
 * broadcasts of vectors. */
ALL_OF(char)
ALL_OF(uchar)
ALL_OF(short)
ALL_OF(ushort)

WEFT_EACH_VECTOR(BROADCAST_VECTOR, char)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, uchar)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, short)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, ushort)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, int)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, uint)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, long)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, ulong)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, float)
WEFT_EACH_VECTOR(BROADCAST_VECTOR, double)

int __attribute__((overloadable, convergent)) sub_group_any(int p) {
  return sub_group_reduce_max(p != 0 ? 1 : 0);
}

int __attribute__((overloadable, convergent)) sub_group_all(int p) {
  return sub_group_reduce_min(p != 0 ? 1 : 0);
}
