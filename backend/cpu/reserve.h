/*
 * reserve.h: memory kept from one work-group or launch to the next, grown
 * when a launch needs more (reserve.c): mapped, so that only the pages
 * touched cost memory (a worker's private memory for region-scheduled
 * groups, check mode's race records), or from the heap.
 */
#ifndef WEFT_BACKEND_CPU_RESERVE_H
#define WEFT_BACKEND_CPU_RESERVE_H

#include <stddef.h>

/* Grows *mem (*capacity bytes, both 0 at first) to size bytes; the
 * contents are not kept. 0, or -1 with *mem NULL and *capacity 0. */
int weft__reserve(char **mem, size_t *capacity, size_t size);

/* The same from the heap, aligned for __local memory (WEFT_LOCAL_ALIGN),
 * for memory there is much of (a group's __local memory; a cooperative
 * group's private memory, as a process has few mappings and every
 * resident group holds two: its stack and its guard). Freed with free(). */
int weft__reserve_heap_grow(char **mem, size_t *capacity, size_t size);
/* Inline: a cooperative group's start asks twice, and the memory is
 * nearly always there already. */
static inline int weft__reserve_heap(char **mem, size_t *capacity,
                                     size_t size) {
  return size <= *capacity ? 0 : weft__reserve_heap_grow(mem, capacity, size);
}

/* Unmaps what weft__reserve mapped (nothing for a NULL *mem). */
void weft__reserve_free(char **mem, size_t *capacity);

#endif /* WEFT_BACKEND_CPU_RESERVE_H */
