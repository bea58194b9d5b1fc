/*
 * The sub-group functions of the cl_khr_subgroup_* extensions, which may
 * be called where a sub-group's work-items have parted ways: only those
 * that meet take part (non_uniform_vote, non_uniform_arithmetic, ballot,
 * shuffle, shuffle_relative, clustered_reduce, rotate).
 *
 * Each work-item stores its value in its slot and waits at the sub-group's
 * converge point (sub_groups.h), which answers with the mask of those that
 * met there; each then reads what it needs from the others' slots (a fold
 * in lane order, so that a float reduction is the same on every run), and
 * they meet again before any of them may store its next value. A lane
 * outside the mask gives an undefined value (here: its slot's last one).
 * On the CPU, in a jammed call that runs whole sub-groups side by side
 * (IF_LANES, sub_groups.h; jit/cpu/jam_sub_groups.c), every lane comes
 * to every function, and the folds and picks take the lanes' values from
 * each other, in the same order, without slots.
 */
#include "sub_groups.h"

/* The lanes of mask below n. */
static inline uint below(uint mask, uint n) {
  return n >= 32 ? mask : mask & ((1u << n) - 1);
}

/* ---------------------------------------------------------------- vote */

int __attribute__((overloadable, convergent)) sub_group_elect(void) {
  IF_LANES(get_sub_group_local_id() == ctz(LANES_ACTIVE()));
  uint mask = __weft_sub_group_converge();
  return get_sub_group_local_id() == ctz(mask);
}

/* Each lane's value in its slot; the mask of those that met. */
#define SHARE(T, x) (SLOT(T, get_local_linear_id()) = (x), __weft_sub_group_converge())
/* After reading the others' slots: none may store before all have read. */
#define DONE_READING() __weft_sub_group_converge()

#define FOLD_MASK(T, op, mask, out)                                          \
  do {                                                                       \
    uint m_ = (mask), base_ = sub_group_base();                              \
    T acc_ = SLOT(T, base_ + ctz(m_));                                       \
    for (m_ &= m_ - 1; m_; m_ &= m_ - 1)                                     \
      acc_ = OP_##op(acc_, SLOT(T, base_ + ctz(m_)));                        \
    out = acc_;                                                              \
  } while (0)

#define ALL_EQUAL(T)                                                         \
  int __attribute__((overloadable, convergent))                              \
      sub_group_non_uniform_all_equal(T x) {                                 \
    IF_LANES(LANES_FOLD(int, x == LANES_PICK(T, x, ctz(LANES_ACTIVE())),    \
                        WEFT_LANES_REDUCE, and));                            \
    uint mask = SHARE(T, x), base = sub_group_base();                        \
    int r = 1;                                                               \
    for (uint m = mask; m; m &= m - 1) r &= SLOT(T, base + ctz(m)) == x;     \
    DONE_READING();                                                          \
    return r;                                                                \
  }

/* ---------------------------------------------------------- arithmetic */

/* What a lane shares for an operation: its value, or for the logical
 * ones whether it is true (a lone lane's 5 reduces to 1). */
#define PREP_add(x) (x)
#define PREP_mul(x) (x)
#define PREP_min(x) (x)
#define PREP_max(x) (x)
#define PREP_and(x) (x)
#define PREP_or(x) (x)
#define PREP_xor(x) (x)
#define PREP_logical_and(x) ((x) != 0)
#define PREP_logical_or(x) ((x) != 0)
#define PREP_logical_xor(x) ((x) != 0)

/* reduce: the fold of the lanes that met; scans: of those up to this one
 * (inclusive) or before it (exclusive: the identity for the first). */
#ifdef __NVPTX__
/* On the GPU, an integer's of 32 bits or fewer: one redux.sync among the
 * lanes that met, where the GPU has it (sub_groups.h). */
#define REDUX_MET(T, op, x)                                                  \
  IF_REDUX(T, op, PREP_##op(x), __weft_sub_group_converge())
#else
#define REDUX_MET(T, op, x)
#endif
#define NON_UNIFORM(T, op)                                                   \
  T __attribute__((overloadable, convergent))                                \
      sub_group_non_uniform_reduce_##op(T x) {                               \
    IF_LANES(LANES_FOLD(T, PREP_##op(x), WEFT_LANES_REDUCE, op));            \
    REDUX_MET(T, op, x);                                                     \
    uint mask = SHARE(T, PREP_##op(x));                                   \
    T r;                                                                     \
    FOLD_MASK(T, op, mask, r);                                               \
    DONE_READING();                                                          \
    return r;                                                                \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      sub_group_non_uniform_scan_inclusive_##op(T x) {                       \
    IF_LANES(LANES_FOLD(T, PREP_##op(x), WEFT_LANES_INCLUSIVE_FIRST, op));   \
    uint mask = SHARE(T, PREP_##op(x));                                   \
    T r;                                                                     \
    FOLD_MASK(T, op, below(mask, get_sub_group_local_id() + 1), r);         \
    DONE_READING();                                                          \
    return r;                                                                \
  }                                                                          \
  T __attribute__((overloadable, convergent))                                \
      sub_group_non_uniform_scan_exclusive_##op(T x) {                       \
    IF_LANES(LANES_FOLD(T, PREP_##op(x), WEFT_LANES_EXCLUSIVE_FIRST, op));   \
    uint mask = below(SHARE(T, PREP_##op(x)), get_sub_group_local_id());    \
    T r = IDENT_##op(T);                                                     \
    if (mask) FOLD_MASK(T, op, mask, r);                                     \
    DONE_READING();                                                          \
    return r;                                                                \
  }

/* clustered reduce: the fold of the lanes of this one's cluster (of
 * clustersize, a power of two) that met; in a jam of whole sub-groups
 * (IF_LANES), of the cluster's lanes in order, each picked. */
#ifdef __NVPTX__
#define LANES_CLUSTERED(T, op)
#else
#define LANES_CLUSTERED(T, op)                                               \
  static T WEFT_OVERLOAD lanes_clustered_##op(T x, uint clustersize) {       \
    uint first = get_sub_group_local_id() & ~(clustersize - 1);              \
    /* Powers of two: a cluster no wider than the sub-group lies in it. */   \
    uint n = min(clustersize, __weft_sub_group_width());                     \
    T r = LANES_PICK_ALL(T, x, first);                                       \
    for (uint i = 1; i < n; i++) {                                           \
      T y = LANES_PICK_ALL(T, x, first + i); /* OP_ may name it twice */     \
      r = OP_##op(r, y);                                                     \
    }                                                                        \
    return r;                                                                \
  }
#endif
#define CLUSTERED(T, op)                                                     \
  LANES_CLUSTERED(T, op)                                                     \
  T __attribute__((overloadable, convergent))                                \
      sub_group_clustered_reduce_##op(T x, uint clustersize) {               \
    IF_LANES(lanes_clustered_##op(PREP_##op(x), clustersize));               \
    uint mask = SHARE(T, PREP_##op(x)),                                   \
         first = get_sub_group_local_id() & ~(clustersize - 1);              \
    uint cluster = below(mask >> first, clustersize) << first;               \
    T r;                                                                     \
    FOLD_MASK(T, op, cluster, r);                                            \
    DONE_READING();                                                          \
    return r;                                                                \
  }

#define ARITHMETIC(T)                                                        \
  NON_UNIFORM(T, add) NON_UNIFORM(T, mul) NON_UNIFORM(T, min)                \
  NON_UNIFORM(T, max) CLUSTERED(T, add) CLUSTERED(T, mul)                    \
  CLUSTERED(T, min) CLUSTERED(T, max) ALL_EQUAL(T)
#define BITWISE(T)                                                           \
  NON_UNIFORM(T, and) NON_UNIFORM(T, or) NON_UNIFORM(T, xor)                 \
  CLUSTERED(T, and) CLUSTERED(T, or) CLUSTERED(T, xor)

/* ------------------------------------------------------ shuffles, rotate */

/* The lane delta after this one, going round the sub-group (delta may be
 * negative, and the sub-group's size not a power of two). */
static inline uint rotated(int delta) {
  int n = (int)get_sub_group_size();
  return (uint)(((int)get_sub_group_local_id() + delta % n + n) % n);
}

#ifdef __NVPTX__
/* The value of lane from (of the sub-group), undefined where it did not
 * meet or is out of range; from may use me, this one's lane. On the GPU
 * one shuffle among the lanes that met. */
#define FROM_LANE(T, name, params, from)                                     \
  T __attribute__((overloadable, convergent)) name params {                  \
    uint met = __weft_sub_group_converge();                                  \
    uint me = get_sub_group_local_id(), src = (from);                        \
    T r = warp_idx(x, src & 31, met);                                        \
    return src < __weft_sub_group_width() ? r : x;                           \
  }
#else
/* The value of lane from (of the sub-group), undefined where it did not
 * meet or is out of range; from may use me, this one's lane. */
#define FROM_LANE(T, name, params, from)                                     \
  T __attribute__((overloadable, convergent)) name params {                  \
    if (__weft_sub_group_lanes()) {                                          \
      uint me = get_sub_group_local_id(), src = (from);                      \
      T picked = LANES_PICK(T, x, src); /* every lane picks: no branch */    \
      return src < __weft_sub_group_width() ? picked : x;                    \
    }                                                                        \
    SHARE(T, x);                                                             \
    uint me = get_sub_group_local_id(), src = (from);                        \
    T r = src < __weft_sub_group_width() ? SLOT(T, sub_group_base() + src) : x; \
    DONE_READING();                                                          \
    return r;                                                                \
  }

#endif

#define SHUFFLES(T)                                                          \
  FROM_LANE(T, sub_group_shuffle, (T x, uint id), id)                        \
  FROM_LANE(T, sub_group_shuffle_xor, (T x, uint mask), me ^ mask)           \
  FROM_LANE(T, sub_group_shuffle_up, (T x, uint delta), me - delta)          \
  FROM_LANE(T, sub_group_shuffle_down, (T x, uint delta), me + delta)        \
  FROM_LANE(T, sub_group_rotate, (T x, int delta), rotated(delta))           \
  FROM_LANE(T, sub_group_clustered_rotate, (T x, int delta, uint size),      \
            (me & ~(size - 1)) + ((me + (uint)delta) & (size - 1)))

/* ---------------------------------------------------------------- ballot */

/* The x of the lowest lane that met. */
#ifdef __NVPTX__
#define FIRST_LANE(T, x)                                                     \
  uint mask = __weft_sub_group_converge();                                   \
  return warp_idx(x, ctz(mask), mask)
#else
#define FIRST_LANE(T, x)                                                     \
  IF_LANES(LANES_PICK(T, x, ctz(LANES_ACTIVE())));                           \
  uint mask = SHARE(T, x);                                                   \
  T r = SLOT(T, sub_group_base() + ctz(mask));                               \
  DONE_READING();                                                            \
  return r
#endif

#define BROADCASTS(T)                                                        \
  FROM_LANE(T, sub_group_non_uniform_broadcast, (T x, uint id), id)          \
  T __attribute__((overloadable, convergent)) sub_group_broadcast_first(T x) { \
    FIRST_LANE(T, x);                                                        \
  }

/* A vector's non-uniform broadcast: lane by lane of it. */
#define VECTOR_BROADCAST(V, S, ...)                                          \
  WEFT_LANE_BY_LANE(V, S, sub_group_non_uniform_broadcast)

/* Ballots: a bit per lane in .x (sub-groups have at most 32 lanes); on
 * the GPU, vote.ballot.sync. */
uint4 __attribute__((overloadable, convergent)) sub_group_ballot(int p) {
#ifdef __NVPTX__
  return (uint4)(__nvvm_vote_ballot_sync(__weft_sub_group_converge(), p != 0),
                 0, 0, 0);
#else
  IF_LANES((uint4)(LANES_FOLD(uint, (uint)(p != 0) << get_sub_group_local_id(),
                              WEFT_LANES_REDUCE, or),
                   0, 0, 0));
  uint mask = SHARE(int, p != 0), base = sub_group_base(), bits = 0;
  for (uint m = mask; m; m &= m - 1)
    bits |= (uint)SLOT(int, base + ctz(m)) << ctz(m);
  DONE_READING();
  return (uint4)(bits, 0, 0, 0);
#endif
}

int __attribute__((overloadable, convergent)) sub_group_inverse_ballot(uint4 v) {
  return (v.x >> get_sub_group_local_id()) & 1;
}

int __attribute__((overloadable)) sub_group_ballot_bit_extract(uint4 v,
                                                               uint index) {
  return index < 32 && (v.x >> index) & 1;
}

uint __attribute__((overloadable)) sub_group_ballot_bit_count(uint4 v) {
  return popcount(below(v.x, get_sub_group_size()));
}

uint __attribute__((overloadable)) sub_group_ballot_inclusive_scan(uint4 v) {
  return popcount(below(v.x, get_sub_group_local_id() + 1));
}

uint __attribute__((overloadable)) sub_group_ballot_exclusive_scan(uint4 v) {
  return popcount(below(v.x, get_sub_group_local_id()));
}

uint __attribute__((overloadable)) sub_group_ballot_find_lsb(uint4 v) {
  return ctz(below(v.x, get_sub_group_size()));
}

uint __attribute__((overloadable)) sub_group_ballot_find_msb(uint4 v) {
  return 31 - clz(below(v.x, get_sub_group_size()));
}

uint4 __attribute__((overloadable)) get_sub_group_eq_mask(void) {
  return (uint4)(1u << get_sub_group_local_id(), 0, 0, 0);
}

uint4 __attribute__((overloadable)) get_sub_group_ge_mask(void) {
  uint me = get_sub_group_local_id();
  return (uint4)(below(~0u, get_sub_group_size()) & ~below(~0u, me), 0, 0, 0);
}

uint4 __attribute__((overloadable)) get_sub_group_gt_mask(void) {
  uint me = get_sub_group_local_id();
  return (uint4)(below(~0u, get_sub_group_size()) & ~below(~0u, me + 1), 0, 0,
                 0);
}

uint4 __attribute__((overloadable)) get_sub_group_le_mask(void) {
  return (uint4)(below(~0u, get_sub_group_local_id() + 1), 0, 0, 0);
}

uint4 __attribute__((overloadable)) get_sub_group_lt_mask(void) {
  return (uint4)(below(~0u, get_sub_group_local_id()), 0, 0, 0);
}

/* ----------------------------------------------------------------- types */

#define INTEGER(T) ARITHMETIC(T) BITWISE(T) SHUFFLES(T) BROADCASTS(T)
#define FLOATING(T) ARITHMETIC(T) SHUFFLES(T) BROADCASTS(T)

INTEGER(char)
INTEGER(uchar)
INTEGER(short)
INTEGER(ushort)
INTEGER(int)
INTEGER(uint)
INTEGER(long)
INTEGER(ulong)
FLOATING(float)
FLOATING(double)

/* Predicates: logical and, or and xor of ints; all and any are the first
 * two's reductions. */
NON_UNIFORM(int, logical_and)
NON_UNIFORM(int, logical_or)
NON_UNIFORM(int, logical_xor)

int __attribute__((overloadable, convergent)) sub_group_non_uniform_all(int p) {
  return sub_group_non_uniform_reduce_logical_and(p);
}

int __attribute__((overloadable, convergent)) sub_group_non_uniform_any(int p) {
  return sub_group_non_uniform_reduce_logical_or(p);
}
CLUSTERED(int, logical_and)
CLUSTERED(int, logical_or)
CLUSTERED(int, logical_xor)

WEFT_EACH_VECTOR(VECTOR_BROADCAST, char)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, uchar)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, short)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, ushort)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, int)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, uint)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, long)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, ulong)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, float)
WEFT_EACH_VECTOR(VECTOR_BROADCAST, double)
