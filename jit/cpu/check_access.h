/*
 * check_access.h: what check mode's passes (check_*.c, stop_points.c)
 * share: the accesses an instruction makes, the object a pointer comes
 * from, and the sites and reports of the checks. Internal to jit/.
 */
#ifndef WEFT_JIT_CHECK_ACCESS_H
#define WEFT_JIT_CHECK_ACCESS_H

#include "jit/cpu/passes.h"

/* The object a pointer points into: a kernel argument (a buffer, SVM or
 * __local pointer), or a variable (private, __local, __constant, program
 * scope) of a size known here. */
typedef struct weft_origin {
  LLVMValueRef base;        /* the argument or the variable */
  int arg;                  /* the kernel argument, or -1 */
  uint64_t extent;          /* the variable's bytes (arg -1) */
  weft_address_space space;
  const char *name;         /* the variable's name (arg -1), */
  size_t name_length;       /* of name_length bytes */
} weft_origin;

/* One pointer an instruction uses, for size bytes. */
typedef struct weft_access {
  LLVMValueRef pointer;
  LLVMValueRef size;        /* i64 */
  unsigned kind;            /* WEFT_ACCESS_READ, _WRITE, or both */
  weft_origin from;         /* filled by weft__origin_of */
  unsigned site;
} weft_access;

/* The accesses inst makes (0 to 2: a memcpy's destination, then source)
 * in out; returns how many. Loads, stores, atomics, memset, memcpy and
 * memmove. */
unsigned weft__accesses_of(LLVMTargetDataRef layout, LLVMValueRef inst,
                           weft_access *out);

/* The instructions of body that access memory, collected before a pass
 * moves any (the blocks change under a walk): malloc'd, or NULL when out
 * of memory. */
LLVMValueRef *weft__memory_instructions(LLVMValueRef body,
                                        LLVMTargetDataRef layout,
                                        unsigned *count);

/* The object pointer comes from, traced back through GEPs, casts, phis
 * and selects: 1 with *o filled, or 0 when it comes from memory, from an
 * integer, from two objects at once, or from something of unknown size. */
int weft__origin_of(LLVMValueRef body, const weft_kernel_desc *desc,
                    LLVMTargetDataRef layout, LLVMValueRef pointer,
                    weft_origin *o);

/* A site for inst, from what (its file and line are inst's; its
 * variable's name is the first name_length bytes of what->variable). */
int weft__check_site_add(weft_check_sites *sites, LLVMValueRef inst,
                         const weft_check_site *what, size_t name_length,
                         unsigned *index);

/* A site for inst's access a, of kind (WEFT_ACCESS_*) and a's object. */
int weft__check_site_of(weft_check_sites *sites, LLVMValueRef inst,
                        const weft_access *a, unsigned kind, unsigned *index);

/* The access's offset in its object, an i64 built at the builder's
 * position (its origin filled). */
LLVMValueRef weft__access_offset(LLVMBuilderRef b, const weft_access *a);

/* The bytes of argument arg's object from where it points on, for this
 * launch (ctx->arg_sizes[arg]), an invariant i64 load. */
LLVMValueRef weft__arg_extent(LLVMBuilderRef b, LLVMValueRef body, int arg);

/* Ends the block the builder is in, which falls through to at's block:
 * when failed (i1) holds, check_failed(site, offset, size) is called on
 * the way, with at's source location. */
void weft__check_failed_if(LLVMBuilderRef b, LLVMValueRef body,
                           LLVMValueRef failed, unsigned site,
                           LLVMValueRef offset, LLVMValueRef size,
                           LLVMValueRef at);

/* A call of the back end's check_failed at the builder's position, for
 * work-item (lx, ly, lz) of body, with at's source location. */
void weft__check_failed_call(LLVMBuilderRef b, LLVMValueRef body,
                             LLVMValueRef site, LLVMValueRef offset,
                             LLVMValueRef size, LLVMValueRef at);

#endif
