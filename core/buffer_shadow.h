/*
 * buffer_shadow.h: which bytes of a buffer have been written, for check
 * mode's uninitialised-read check (buffer_shadow.c). Internal to core/.
 */
#ifndef WEFT_CORE_BUFFER_SHADOW_H
#define WEFT_CORE_BUFFER_SHADOW_H

#include <stddef.h>

#include "core/handles.h"

/* A root buffer's shadow_state. */
enum {
  WEFT_SHADOW_NONE,      /* its bytes are not followed */
  WEFT_SHADOW_UNTOUCHED, /* made without data, nothing wrote it yet */
  WEFT_SHADOW_TRACKED    /* every write since it was made is in shadow */
};

/* A program was built: with a kernel that checks buffers' reads, the
 * buffers made from now on get a shadow at once. */
void weft__shadow_program_built(const weft_binary *binary);

/* A new root buffer, its contents undefined (WEFT_MEM_UNDEFINED) or
 * not (host data, or the native API's zeros). */
void weft__shadow_created(weft_buffer *b, int undefined);

/* The host wrote size bytes of b at offset. */
void weft__shadow_written(weft_buffer *b, size_t offset, size_t size);

/* The host copied size bytes from src at src_offset to dst at dst_offset. */
void weft__shadow_copied(weft_buffer *src, size_t src_offset, weft_buffer *dst,
                         size_t dst_offset, size_t size);

/* Before a launch of k: k->arg_shadows for a kernel built with the check
 * (WEFT_KERNEL_ARG_SHADOWS), made for untouched buffers; for one built
 * without, its buffers' bytes are no longer followed (it may write them). */
void weft__shadow_launch(weft_kernel *k);

/* A root buffer's end. */
void weft__shadow_free(weft_buffer *b);

#endif
