/*
 * sub_group_lanes.h: what a sub-group function asks of a jammed call
 * that runs its whole sub-group side by side (jit/cpu/jam_sub_groups.c):
 * the CPU's sub_groups.cl passes it as the `what` of
 * __weft_sub_group_fold_<type>(x, what). Shared by the builtins (OpenCL
 * C) and the JIT (C).
 */
#ifndef WEFT_SUB_GROUP_LANES_H
#define WEFT_SUB_GROUP_LANES_H

/* Kinds: the fold of the whole sub-group, or each lane's running fold
 * up to and with it, or before it (the identity for the first). */
#define WEFT_LANES_REDUCE 0
#define WEFT_LANES_INCLUSIVE 1
#define WEFT_LANES_EXCLUSIVE 2
/* Operations, named as the builtins' (sub_group_reduce_<op>). */
#define WEFT_LANES_add 0
#define WEFT_LANES_min 1
#define WEFT_LANES_max 2
#define WEFT_LANES_WHAT(kind, op) ((kind) * 4 + (op))
#define WEFT_LANES_KIND(what) ((what) / 4)
#define WEFT_LANES_OP(what) ((what) % 4)

#endif /* WEFT_SUB_GROUP_LANES_H */
