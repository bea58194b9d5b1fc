/* jam.h: what the files of jamming share (jam.c, the jammed bodies;
 * jam_scope.c, the blocks one runs; jam_lanes.c, vectors taken apart into
 * lanes; jam_loops.c, loops left at different turns; jam_ids.c and
 * jam_blocks.c, ids that step with x or are shared in blocks;
 * jam_predicate.c, branches made straight-line code, and jam_masked.c,
 * their accesses of consecutive elements as vectors; jam_sub_groups.c,
 * sub-group functions across lanes): the state of one jamming. Internal
 * to them; passes.h has the entry points. */
#ifndef WEFT_JIT_CPU_JAM_H
#define WEFT_JIT_CPU_JAM_H

#include "jit/cpu/passes.h"

/* jam_scope.c: the blocks a jammed function runs, and what decides
 * whether and how wide to jam them. */
typedef struct weft_jam_scope {
  LLVMValueRef body;
  weft_cfg g;
  unsigned char *reached; /* by g's block index */
} weft_jam_scope;

/* The blocks body's entry reaches when the body runs in region state
 * state (regions.c), or in any (state < 0). 0 when out of memory. */
int weft__jam_scope_make(LLVMValueRef body, int state, weft_jam_scope *s);
void weft__jam_scope_free(weft_jam_scope *s);
int weft__jam_scope_reaches(const weft_jam_scope *s, LLVMBasicBlockRef bb);
/* The body's parameters, blocks and instructions. */
unsigned weft__jam_scope_values(const weft_jam_scope *s);
/* The instructions of the reached blocks. */
unsigned weft__jam_scope_size(const weft_jam_scope *s);
/* The bytes of the reached fixed-size private variables (SIZE_MAX when
 * one has a size known only at run time). */
size_t weft__jam_scope_private_bytes(const weft_jam_scope *s,
                                     LLVMTargetDataRef layout);
/* Whether the reached blocks hold a loop, and whether those loops only
 * compute (no access to memory in any). */
int weft__jam_scope_loops(const weft_jam_scope *s, int *only_compute);
/* The most lanes of a reached vector value (1 without vectors). */
unsigned weft__jam_scope_widest_vector(const weft_jam_scope *s);

/* What inst does with memory: reads it (loads), writes it or has other
 * effects (stores, atomics, fences, volatile accesses, calls that are not
 * pure), or makes it (allocas). */
#define WEFT_JAM_READS 1u
#define WEFT_JAM_WRITES 2u
#define WEFT_JAM_ALLOCATES 4u
unsigned weft__jam_memory(LLVMValueRef inst);

/* jam_loops.c: a loop whose work-items leave at different turns, run
 * while any is in it. */
#define WEFT_JAM_MOST_EXITS 4
#define WEFT_JAM_MOST_READS 16
typedef struct weft_jam_loop {
  LLVMBasicBlockRef header, latch, exit; /* the body's */
  /* Its exit tests, each dominating the latch, and whether each stays in
   * the loop on true (its successor 0). */
  LLVMValueRef branches[WEFT_JAM_MOST_EXITS];
  int stay_on_true[WEFT_JAM_MOST_EXITS];
  unsigned num_exits;
  /* Its loads after the first test (`while (i < n) s += a[i]`'s a[i]):
   * a work-item that has left must not make them again (a[n] may be past
   * the buffer), so each work-item's is masked by its stay flag. */
  LLVMValueRef reads[WEFT_JAM_MOST_READS];
  unsigned num_reads;
  /* Per work-item, the jammed function's: in the loop at the turn's
   * start; still in it after the tests made so far; and per read and
   * work-item (r * width + item), the stay flag where the read is. */
  LLVMValueRef *active, *stay, *read_masks;
} weft_jam_loop;
#define WEFT_JAM_MOST_LOOPS 8
#define WEFT_JAM_MOST_STEPS 8

/* jam_blocks.c: an int that steps with x shifted right by bits (shift)
 * or masked with its low bits (the same for the work-items of an aligned
 * block of 2^bits, or work-item k's k & (2^bits - 1)). */
#define WEFT_JAM_MOST_BLOCKS 8
/* Branches that differ between work-items noted for predication. */
#define WEFT_JAM_MOST_DIVERGING 8
typedef struct weft_jam_block {
  LLVMValueRef inst;
  unsigned bits;
  int shift;
} weft_jam_block;

typedef struct weft_jam {
  const weft_jam_scope *scope;
  LLVMValueRef body, fn;
  LLVMContextRef context;
  unsigned width;
  unsigned vector_bits; /* of the machine's registers: narrower vectors
                           are taken apart (jam_lanes.c) */
  /* Whole sub-groups of this many work-items side by side, whose
   * functions fold the clones (jam_sub_groups.c); 0 in other jams. */
  unsigned sub_group_width;
  /* Every parameter, block and instruction of the body gets an index. */
  LLVMValueRef *keys; /* open addressing, capacity a power of 2 */
  unsigned *slots;
  unsigned capacity, count;
  LLVMValueRef *olds;        /* by index: the body's value */
  unsigned char *varying;    /* by index: may differ between work-items */
  unsigned char *finished;   /* by index: made whole in the first pass
                                (a lane of a split vector, a masked exit) */
  LLVMValueRef *copies;      /* by index * width + work-item */
  /* By index * width + work-item: a varying vector value's lanes, made
   * apart (NULL where it is made whole, in copies). */
  LLVMValueRef **lanes;
  weft_jam_loop loops[WEFT_JAM_MOST_LOOPS];
  unsigned num_loops;
  /* The branches that differ between work-items that refused the body,
   * the first WEFT_JAM_MOST_DIVERGING in the body's order. */
  LLVMValueRef diverging[WEFT_JAM_MOST_DIVERGING];
  unsigned num_diverging;
  /* The values whose ints' extensions this build made x's plus one a
   * work-item, and whether with sign (jam_ids.c). */
  LLVMValueRef steps[WEFT_JAM_MOST_STEPS];
  unsigned char step_signed[WEFT_JAM_MOST_STEPS];
  unsigned num_steps;
  /* The shifts and masks of such ints, found by the analysis (jam_blocks.c),
   * unless no_blocks. */
  weft_jam_block blocks[WEFT_JAM_MOST_BLOCKS];
  unsigned num_blocks;
  int no_blocks, no_steps; /* neither blocks nor steps (jam_ids.c) */
  /* For a jam of whole sub-groups with either: the region state it runs,
   * its name, whether its atomics are unmasked afterwards; the same jam
   * without them (weft__jam_plain), which runs the call where its ints
   * wrap or are not aligned. */
  int state, unmask;
  const char *name;
  LLVMValueRef fallback;
  /* The jammed function returns the region state its way out gives (a
   * region with more than one: each a constant, which its work-items,
   * sharing their branches, share). */
  int stating;
} weft_jam;

/* The index of v, or j->count when v is none of the body's (a constant,
 * a global, metadata). */
unsigned weft__jam_index(const weft_jam *j, LLVMValueRef v);

/* What stands for the body's v in work-item item's clones (v itself for
 * a constant or a global). */
LLVMValueRef weft__jam_copy(const weft_jam *j, LLVMValueRef v, unsigned item);
/* The jammed function's block for the body's bb. */
LLVMBasicBlockRef weft__jam_block(const weft_jam *j, LLVMBasicBlockRef bb);

/* jam_lanes.c. Makes work-item by work-item the lanes of the varying
 * vector instruction inst apart, at the builder, when it is elementwise
 * (arithmetic, compares, casts, selects, inserts, shuffles, phis, the
 * elementwise intrinsics), or notes an extractelement of such lanes;
 * returns 0 (nothing made) otherwise. A phi's lanes get their incoming
 * values from weft__jam_lanes_phi, once every block is made. */
int weft__jam_split(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst);
void weft__jam_lanes_phi(weft_jam *j, LLVMBuilderRef b, LLVMValueRef phi,
                         unsigned item);
/* Whether work-item item's v is made of lanes apart. */
int weft__jam_is_split(const weft_jam *j, LLVMValueRef v, unsigned item);
/* Work-item item's v, made whole at the builder where it is in lanes. */
LLVMValueRef weft__jam_whole(weft_jam *j, LLVMBuilderRef b, LLVMValueRef v,
                             unsigned item);
/* Work-items first to first + n - 1's v (scalars), whole, as one vector
 * at the builder: a sub-group's lanes, a jam's work-items. */
LLVMValueRef weft__jam_items_vector(weft_jam *j, LLVMBuilderRef b,
                                   LLVMValueRef v, unsigned first,
                                   unsigned n);

/* jam_loops.c. Finds the loops of j's scope whose one way out is a test
 * that differs between work-items and that can run masked, and marks
 * their header phis varying: 1 when it found some (mark the varying
 * values again, then call it again), 0 when none more, -1 when such a
 * loop cannot be masked (the body is not jammed). */
int weft__jam_loops_find(weft_jam *j);
/* Whether branch is the exit test of one of those loops. */
int weft__jam_loops_is_exit(const weft_jam *j, LLVMValueRef branch);
/* At the start of a block's clone, before its phis: a masked loop's
 * header gets its work-items' active flags. */
void weft__jam_loops_begin(weft_jam *j, LLVMBuilderRef b,
                           LLVMBasicBlockRef header);
/* In place of a masked loop's exit test: the work-items that stay, and a
 * branch that stays while any does. */
void weft__jam_loops_exit(weft_jam *j, LLVMBuilderRef b, LLVMValueRef branch);
/* What work-item item's clone of the header phi phi gets from the body's
 * block from: next, or, from a masked loop's latch for a work-item that
 * has left, now (what the phi holds), selected at the builder. */
LLVMValueRef weft__jam_loops_carry(weft_jam *j, LLVMBuilderRef b,
                                   LLVMValueRef phi, LLVMBasicBlockRef from,
                                   unsigned item, LLVMValueRef next,
                                   LLVMValueRef now);
/* Where a block's clone makes inst's: notes, if it is a masked loop's
 * read after its first test, each work-item's stay flag there. */
void weft__jam_loops_note_read(weft_jam *j, LLVMValueRef inst);
/* The masked loop inst is in, or NULL. Where a block's clone is being
 * made, its stay[] are each work-item's flag of being still in the loop
 * there (after the tests before it this turn). */
const weft_jam_loop *weft__jam_loops_around(const weft_jam *j,
                                            LLVMValueRef inst);
/* Once every block is made: the active flags' incoming values, and the
 * noted reads masked. */
void weft__jam_loops_finish(weft_jam *j, LLVMBuilderRef b);

/* jam_predicate.c. Makes the conditional branch (that differs between
 * work-items) straight-line code where it skips or chooses between
 * short runs of blocks that only compute, load and store (and in a body
 * only a jam of whole sub-groups runs, call sub-group functions:
 * weft__jam_lanes_mask): their accesses
 * masked, their values selected. 1 when it did (the body changed). */
int weft__jam_predicate(LLVMValueRef branch);
/* The atomics that predication sent to a private word where their mask
 * is off, in fn (a jammed function, or the body itself once jammed),
 * branched around again: each runs where its mask is set and nowhere
 * else (a locked operation a lane costs about as much as the rest). */
void weft__jam_atomics_unmask(LLVMValueRef fn);
/* masked_address's choice that address is (a select of the element
 * where the mask is set, a private word elsewhere, marked so, through a
 * cast of the address space the jam may have put between), or NULL. */
LLVMValueRef weft__jam_masked_choice(LLVMValueRef address);
/* jam_masked.c. Where inst is such an access of an element whose index
 * steps with x, one a lane, makes its clones at the builder one masked
 * vector access of the lanes' elements: 1 (finished); else 0, nothing
 * made. */
int weft__jam_masked_vector(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst);
/* Whether values of type t can be loaded and stored masked (scalars and
 * vectors of integers, floats and pointers). */
int weft__jam_maskable_type(LLVMTypeRef t);
/* The load or store inst, at the builder, made a masked one (mask an
 * i1): it touches the program's memory only where mask is set (a
 * scalar's goes to a private word elsewhere). inst is deleted. */
void weft__jam_mask_access(LLVMBuilderRef b, LLVMValueRef inst,
                           LLVMValueRef mask);

/* jam.c. The jam j is of whole sub-groups, made without steps or
 * blocks (named j's name with ".plain"); NULL when it cannot be made. */
LLVMValueRef weft__jam_plain(const weft_jam *j);

/* jam_ids.c. Where inst extends again the 32 bits of a value that steps
 * with x (weft__steps_with_x: an int's global id), makes its clones at
 * the builder, x's and x's plus k, and notes the value: 1 (finished);
 * else 0, nothing made. */
int weft__jam_id(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst);
/* Once the jammed function is made: where weft__jam_id made clones or
 * the analysis found blocks (jam_blocks.c), a test first that runs the
 * call's work-items one at a time through the body where their ints
 * would wrap or a block's int is not aligned (in a jam of whole
 * sub-groups, whose functions need all their lanes at once, the jam made
 * without either: weft__jam_plain). 0 when that one cannot be made (the
 * jam may not be used). */
int weft__jam_ids_guard(weft_jam *j, LLVMBuilderRef b);

/* jam_blocks.c. Notes, before the varying values are marked, the masks
 * by a power of 2 of an int that steps with x through truncations (of
 * no more bits than the narrowest jam's work-items), and its shifts (of
 * as many bits or more) where shifts says so: the shifts it found. */
unsigned weft__jam_blocks_find(weft_jam *j, int shifts);
/* Whether v is such a shift: shared by the work-items of a jam no wider
 * than weft__jam_blocks_widest (UINT32_MAX when there is none). */
int weft__jam_blocks_shared(const weft_jam *j, LLVMValueRef v);
unsigned weft__jam_blocks_widest(const weft_jam *j);
/* Whether every block of j holds every call by itself: a jam of one
 * whole sub-group, whose call starts on a multiple of the width in a row
 * whose x size is one (build.c: such jams run only there), and blocks of
 * the local x id (or linear id) no narrower than the call (shifts) nor
 * wider (masks). */
int weft__jam_blocks_local(const weft_jam *j);
/* Where inst is such a mask, makes its clones the constants k's low bits
 * (finished): 1; else 0. */
int weft__jam_block_mask(weft_jam *j, LLVMValueRef inst);
/* At the builder, whether the call's first work-item's ints are each a
 * multiple of its block (NULL without blocks). */
LLVMValueRef weft__jam_blocks_aligned(const weft_jam *j, LLVMBuilderRef b);

/* jam_sub_groups.c. The lanes call (weft__jam_is_lanes_call) at the
 * builder made one that only the lanes whose mask (an i1) is set come
 * to (it may be replaced: the call is then deleted; a non-uniform pick
 * of a lane that did not come is undefined as it stands). */
void weft__jam_lanes_mask(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef mask);
/* In a jam of whole sub-groups, makes inst's clones at the builder when
 * it is __weft_sub_group_lanes() (1) or a fold or a pick across the
 * lanes; 0 (nothing made) otherwise. */
int weft__jam_sub_group_call(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst);

#endif
