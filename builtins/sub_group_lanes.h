/*
 * sub_group_lanes.h: what a sub-group function asks of a jammed call
 * that runs its whole sub-group side by side (jit/cpu/jam_sub_groups.c):
 * the CPU's sub_groups.cl passes it as the `what` of
 * __weft_sub_group_fold_<type>(x, what). Shared by the builtins (OpenCL
 * C) and the JIT (C).
 */
#ifndef WEFT_SUB_GROUP_LANES_H
#define WEFT_SUB_GROUP_LANES_H

/* Kinds: the fold of the whole sub-group (from the first lane's value);
 * each lane's running fold up to and with it, or before it (the
 * identity for the first), from the identity (the uniform scans) or from
 * the first lane's value (the non-uniform ones: the same but for -0.0
 * and NaNs). */
#define WEFT_LANES_REDUCE 0
#define WEFT_LANES_INCLUSIVE 1
#define WEFT_LANES_EXCLUSIVE 2
#define WEFT_LANES_INCLUSIVE_FIRST 3
#define WEFT_LANES_EXCLUSIVE_FIRST 4
/* Operations, named as the builtins' (sub_group_reduce_<op>); the
 * logical ones fold values made 0 or 1, bitwise. */
#define WEFT_LANES_add 0
#define WEFT_LANES_min 1
#define WEFT_LANES_max 2
#define WEFT_LANES_mul 3
#define WEFT_LANES_and 4
#define WEFT_LANES_or 5
#define WEFT_LANES_xor 6
#define WEFT_LANES_logical_and WEFT_LANES_and
#define WEFT_LANES_logical_or WEFT_LANES_or
#define WEFT_LANES_logical_xor WEFT_LANES_xor
/* The mark of a uniform function's fold (sub_group_reduce_add and the
 * like), which every lane of the sub-group must come to: a jam takes
 * the others in a branch that lanes take differently, the lanes that
 * come folded (jam_predicate.c), and leaves these to the slots, which
 * report a sub-group that parts ways there. */
#define WEFT_LANES_ALL 64
#define WEFT_LANES_WHAT(kind, op) ((kind) * 8 + (op))
#define WEFT_LANES_KIND(what) ((what) / 8 % 8)
#define WEFT_LANES_OP(what) ((what) % 8)

#endif /* WEFT_SUB_GROUP_LANES_H */
