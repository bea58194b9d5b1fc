/*
 * guarded.h: the CPU device's buffer and SVM storage, out of the
 * application's heap and fenced by guard pages. Each allocation is a
 * mapping of its own: a guard page, the data placed at the end of its
 * read-write pages, and a guard page after, so that a kernel writing past
 * the end of a buffer faults at once (reported with the work-item) instead
 * of corrupting the host's memory; only the slack of the alignment, inside
 * the mapping, lies between the data and the guard. Guard pages split
 * mappings, of which a process has a limited number (vm.max_map_count):
 * past a quarter of that, allocations are mapped without guards (still
 * out of the heap).
 */
#ifndef WEFT_BACKEND_CPU_GUARDED_H
#define WEFT_BACKEND_CPU_GUARDED_H

#include <stddef.h>

/* Bytes past a buffer's end that land in its own slack. */
#define WEFT_GUARDED_SLACK 1024

/* size bytes (zero-filled) aligned to alignment (a power of two from 128
 * to the page size), in *out. 0, or -1 when nothing could be mapped. */
int weft__guarded_alloc(size_t size, size_t alignment, void **out);

/* Frees what weft__guarded_alloc gave for the same size. */
void weft__guarded_free(void *data, size_t size);

/* The process's limit on mappings, vm.max_map_count (65530 when it cannot
 * be read): buffers take up to a quarter of it with guards, and resident
 * work-groups' stacks share the rest (executor.c: max_resident). */
long weft__map_count_limit(void);

#endif
