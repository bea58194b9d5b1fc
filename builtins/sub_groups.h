/*
 * sub_groups.h: what the sub-group functions (sub_groups.cl, the uniform
 * ones; sub_groups_non_uniform.cl, those of the cl_khr_subgroup_*
 * extensions) share: the primitives, each work-item's slot, identities
 * and operations.
 */
#ifndef WEFT_SUB_GROUPS_H
#define WEFT_SUB_GROUPS_H

#include "builtins.h"

/* The group's scratch area (collectives.cl's), the sub-group's width, its
 * barrier, and its converge point: the mask of the sub-group's work-items
 * that met there, a bit per sub-group local id (the JIT and
 * backend/cpu/sub_group.c on the CPU; activemask on the GPU). */
__local ulong *__weft_wg_scratch(void) __attribute__((const));
uint __weft_sub_group_width(void) __attribute__((const));
void __weft_sub_group_barrier(uint flags) __attribute__((convergent));
uint __weft_sub_group_converge(void) __attribute__((convergent));

#define WEFT_FENCE CLK_LOCAL_MEM_FENCE

#ifdef __NVPTX__
/* On the GPU a sub-group is a warp, and its functions move values between
 * lanes by shfl.sync instead of through the slots: warp_idx(x, lane, m)
 * is lane's x, warp_up(x, d, m) the x of d lanes below (its own below
 * lane 0), m the lanes taking part. __weft_sub_group_mask: the whole
 * sub-group's (nvptx/target.cl). */
uint __weft_sub_group_mask(void) __attribute__((const));

#define WARP_SHUFFLES_4(T)                                                   \
  static inline T WEFT_OVERLOAD warp_idx(T x, uint lane, uint m) {           \
    return as_##T(__nvvm_shfl_sync_idx_i32(m, as_int(x), (int)lane, 31));    \
  }                                                                          \
  static inline T WEFT_OVERLOAD warp_up(T x, uint d, uint m) {               \
    return as_##T(__nvvm_shfl_sync_up_i32(m, as_int(x), (int)d, 0));         \
  }
#define WARP_SHUFFLES_8(T)                                                   \
  static inline T WEFT_OVERLOAD warp_idx(T x, uint lane, uint m) {           \
    int2 v = as_int2(x);                                                     \
    v.x = __nvvm_shfl_sync_idx_i32(m, v.x, (int)lane, 31);                   \
    v.y = __nvvm_shfl_sync_idx_i32(m, v.y, (int)lane, 31);                   \
    return as_##T(v);                                                        \
  }                                                                          \
  static inline T WEFT_OVERLOAD warp_up(T x, uint d, uint m) {               \
    int2 v = as_int2(x);                                                     \
    v.x = __nvvm_shfl_sync_up_i32(m, v.x, (int)d, 0);                        \
    v.y = __nvvm_shfl_sync_up_i32(m, v.y, (int)d, 0);                        \
    return as_##T(v);                                                        \
  }
#define WARP_SHUFFLES_SMALL(T)                                               \
  static inline T WEFT_OVERLOAD warp_idx(T x, uint lane, uint m) {           \
    return (T)__nvvm_shfl_sync_idx_i32(m, (int)x, (int)lane, 31);            \
  }                                                                          \
  static inline T WEFT_OVERLOAD warp_up(T x, uint d, uint m) {               \
    return (T)__nvvm_shfl_sync_up_i32(m, (int)x, (int)d, 0);                 \
  }
WARP_SHUFFLES_SMALL(char)
WARP_SHUFFLES_SMALL(uchar)
WARP_SHUFFLES_SMALL(short)
WARP_SHUFFLES_SMALL(ushort)
WARP_SHUFFLES_4(int)
WARP_SHUFFLES_4(uint)
WARP_SHUFFLES_4(float)
WARP_SHUFFLES_8(long)
WARP_SHUFFLES_8(ulong)
WARP_SHUFFLES_8(double)

/* redux.sync (sm_80 and newer): the fold of the 32-bit integers of the
 * lanes in mask, in one instruction. Whether the GPU at hand has it, and
 * the instruction for each operation: the JIT makes both
 * (jit/ptx/ptx_redux.c), so that one library serves every GPU. */
int __weft_gpu_has_redux(void) __attribute__((const));
#define REDUX_DECLARE(op)                                                    \
  int __weft_redux_##op(int x, uint mask) __attribute__((convergent));
REDUX_DECLARE(add)
REDUX_DECLARE(min)
REDUX_DECLARE(max)
REDUX_DECLARE(umin)
REDUX_DECLARE(umax)
REDUX_DECLARE(and)
REDUX_DECLARE(or)
REDUX_DECLARE(xor)
/* Integers of 32 bits or fewer (widened: the signed ones keep their sign,
 * so a signed min is right for all but uint), and the operations redux
 * has (the logical ones of 0s and 1s are the bitwise ones). */
#define REDUX_TYPE(x)                                                        \
  _Generic((x), char: 1, uchar: 1, short: 1, ushort: 1, int: 1, uint: 1,     \
           default: 0)
#define REDUX_add(x, m) __weft_redux_add((int)(x), m)
#define REDUX_min(x, m)                                                      \
  _Generic((x), uint: __weft_redux_umin((int)(x), m),                        \
           default: __weft_redux_min((int)(x), m))
#define REDUX_max(x, m)                                                      \
  _Generic((x), uint: __weft_redux_umax((int)(x), m),                        \
           default: __weft_redux_max((int)(x), m))
#define REDUX_and(x, m) __weft_redux_and((int)(x), m)
#define REDUX_or(x, m) __weft_redux_or((int)(x), m)
#define REDUX_xor(x, m) __weft_redux_xor((int)(x), m)
#define REDUX_logical_and REDUX_and
#define REDUX_logical_or REDUX_or
#define REDUX_logical_xor REDUX_xor
#define REDUX_HAS_add 1
#define REDUX_HAS_min 1
#define REDUX_HAS_max 1
#define REDUX_HAS_and 1
#define REDUX_HAS_or 1
#define REDUX_HAS_xor 1
#define REDUX_HAS_logical_and 1
#define REDUX_HAS_logical_or 1
#define REDUX_HAS_logical_xor 1
#define REDUX_HAS_mul 0
#define REDUX_mul(x, m) (x) /* never taken: REDUX_HAS_mul */
/* Returns op's fold of x over the lanes in mask where redux can make it. */
#define IF_REDUX(T, op, x, mask)                                             \
  if (REDUX_HAS_##op && REDUX_TYPE(x) && __weft_gpu_has_redux())            \
    return (T)REDUX_##op(x, mask)
#endif

#ifndef __NVPTX__
#include "sub_group_lanes.h"
/* On the CPU, 1 in a jammed call that runs whole sub-groups side by side,
 * 0 elsewhere (the JIT says which: jit/cpu/jam_sub_groups.c), and there
 * the folds and picks across the sub-group's lanes: what
 * (sub_group_lanes.h) of the lanes' x, or the x of lane `from`. A pick
 * of a uniform function, which every lane must come to (a broadcast, a
 * clustered reduction's lanes), is a pickall: the jam takes folds and
 * picks where only some lanes come, and leaves pickalls and folds
 * marked WEFT_LANES_ALL to the slots there. */
int __weft_sub_group_lanes(void) __attribute__((const));
#define LANES_PRIMITIVES(T, S)                                               \
  T __weft_sub_group_fold_##S(T x, uint what)                                \
      __attribute__((const, convergent));                                    \
  T __weft_sub_group_pick_##S(T x, uint from)                                \
      __attribute__((const, convergent));                                    \
  T __weft_sub_group_pickall_##S(T x, uint from)                             \
      __attribute__((const, convergent));
LANES_PRIMITIVES(char, i8)
LANES_PRIMITIVES(uchar, u8)
LANES_PRIMITIVES(short, i16)
LANES_PRIMITIVES(ushort, u16)
LANES_PRIMITIVES(int, i32)
LANES_PRIMITIVES(uint, u32)
LANES_PRIMITIVES(long, i64)
LANES_PRIMITIVES(ulong, u64)
LANES_PRIMITIVES(float, f32)
LANES_PRIMITIVES(double, f64)
#define LANES_SUFFIX_char i8
#define LANES_SUFFIX_uchar u8
#define LANES_SUFFIX_short i16
#define LANES_SUFFIX_ushort u16
#define LANES_SUFFIX_int i32
#define LANES_SUFFIX_uint u32
#define LANES_SUFFIX_long i64
#define LANES_SUFFIX_ulong u64
#define LANES_SUFFIX_float f32
#define LANES_SUFFIX_double f64
#define LANES_CAT2(a, b) a##b
#define LANES_CAT(a, b) LANES_CAT2(a, b)
#define LANES_FOLD(T, x, kind, op)                                           \
  LANES_CAT(__weft_sub_group_fold_, LANES_SUFFIX_##T)(                       \
      x, WEFT_LANES_WHAT(kind, WEFT_LANES_##op))
#define LANES_FOLD_ALL(T, x, kind, op)                                       \
  LANES_CAT(__weft_sub_group_fold_, LANES_SUFFIX_##T)(                       \
      x, WEFT_LANES_ALL | WEFT_LANES_WHAT(kind, WEFT_LANES_##op))
#define LANES_PICK(T, x, from)                                               \
  LANES_CAT(__weft_sub_group_pick_, LANES_SUFFIX_##T)(x, from)
#define LANES_PICK_ALL(T, x, from)                                           \
  LANES_CAT(__weft_sub_group_pickall_, LANES_SUFFIX_##T)(x, from)
/* The lanes that came, a bit each (all of them but in a branch that
 * lanes take differently). */
#define LANES_ACTIVE()                                                       \
  LANES_FOLD(uint, 1u << get_sub_group_local_id(), WEFT_LANES_REDUCE, or)
/* In such a jam every lane of the sub-group comes to every function. */
#define IF_LANES(result)                                                     \
  if (__weft_sub_group_lanes()) return (result)
#else
#define IF_LANES(result)
#endif

/* Work-item i's slot (local linear id), as a T: 8 bytes whatever the
 * type, so that sub-groups doing different things at once never share
 * one. */
#define SLOT(T, i) (*(__local T *)(__weft_wg_scratch() + (i)))

/* The linear id of the sub-group's first work-item. The width is a power
 * of two (4 to 32): a mask, where `id - id % width` became a frozen id
 * (InstCombine, the width unknown when the builtins are built), which a
 * region saves across a barrier instead of making it again from the
 * local id (jit/cpu/regions.c). */
static inline uint sub_group_base(void) {
  return (uint)get_local_linear_id() & ~(__weft_sub_group_width() - 1u);
}

/* fn(V x, uint from) for a vector V of S: fn of each of x's lanes (the
 * vector broadcasts, over the scalar ones). */
#define WEFT_LANE_BY_LANE(V, S, fn)                                          \
  V __attribute__((overloadable, convergent)) fn(V x, uint from) {           \
    S lanes[sizeof(V) / sizeof(S)];                                          \
    *(V *)lanes = x;                                                         \
    for (uint i = 0; i < vec_step(V); i++) lanes[i] = fn(lanes[i], from);    \
    return *(V *)lanes;                                                      \
  }

#define IDENT_add(T) ((T)0)
#define IDENT_mul(T) ((T)1)
#define IDENT_and(T) ((T)~(T)0)
#define IDENT_or(T) ((T)0)
#define IDENT_xor(T) ((T)0)
#define IDENT_logical_and(T) 1
#define IDENT_logical_or(T) 0
#define IDENT_logical_xor(T) 0
#define IDENT_min(T) MAX_OF_##T
#define IDENT_max(T) MIN_OF_##T
#define MAX_OF_char CHAR_MAX
#define MIN_OF_char CHAR_MIN
#define MAX_OF_uchar UCHAR_MAX
#define MIN_OF_uchar ((uchar)0)
#define MAX_OF_short SHRT_MAX
#define MIN_OF_short SHRT_MIN
#define MAX_OF_ushort USHRT_MAX
#define MIN_OF_ushort ((ushort)0)
#define MAX_OF_int INT_MAX
#define MIN_OF_int INT_MIN
#define MAX_OF_uint UINT_MAX
#define MIN_OF_uint 0u
#define MAX_OF_long LONG_MAX
#define MIN_OF_long LONG_MIN
#define MAX_OF_ulong ULONG_MAX
#define MIN_OF_ulong 0ul
#define MAX_OF_float INFINITY
#define MIN_OF_float (-INFINITY)
#define MAX_OF_double ((double)INFINITY)
#define MIN_OF_double (-(double)INFINITY)

#define OP_add(a, b) ((a) + (b))
#define OP_mul(a, b) ((a) * (b))
#define OP_and(a, b) ((a) & (b))
#define OP_or(a, b) ((a) | (b))
#define OP_xor(a, b) ((a) ^ (b))
#define OP_logical_and(a, b) ((a) && (b))
#define OP_logical_or(a, b) ((a) || (b))
#define OP_logical_xor(a, b) (!(a) != !(b))
#define OP_min(a, b) ((b) < (a) ? (b) : (a))
#define OP_max(a, b) ((b) > (a) ? (b) : (a))

#endif /* WEFT_SUB_GROUPS_H */
