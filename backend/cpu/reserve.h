/*
 * reserve.h: memory kept from one work-group or launch to the next (a
 * worker's private memory for region-scheduled groups, check mode's race
 * records), mapped so that only the pages touched cost memory, and grown
 * by mapping anew (reserve.c).
 */
#ifndef WEFT_BACKEND_CPU_RESERVE_H
#define WEFT_BACKEND_CPU_RESERVE_H

#include <stddef.h>

/* Grows *mem (*capacity bytes, both 0 at first) to size bytes; the
 * contents are not kept. 0, or -1 with *mem NULL and *capacity 0. */
int weft__reserve(char **mem, size_t *capacity, size_t size);

/* Unmaps what weft__reserve mapped (nothing for a NULL *mem). */
void weft__reserve_free(char **mem, size_t *capacity);

#endif /* WEFT_BACKEND_CPU_RESERVE_H */
