/*
 * stacks.h: work-item stacks for one worker thread.
 *
 * A stack is mapped the first time a group needs it and kept for the groups
 * that follow on the same thread, so steady-state barriers map nothing. Each
 * has a PROT_NONE guard page below it: generated code probes every page of a
 * large frame, so an overflow faults on the guard, and the fault handler can
 * tell which work-item overflowed.
 */
#ifndef WEFT_BACKEND_CPU_STACKS_H
#define WEFT_BACKEND_CPU_STACKS_H

#include <stddef.h>

typedef struct weft_stacks {
  size_t size;        /* usable bytes per stack */
  size_t guard;       /* bytes of guard below each */
  unsigned count;     /* stacks mapped so far */
  unsigned capacity;
  char **bases;       /* each mapping starts with its guard */
} weft_stacks;

void weft__stacks_init(weft_stacks *s, size_t size);
void weft__stacks_fini(weft_stacks *s);

/* The lowest usable address of stack i, mapping stacks up to i if needed,
 * or NULL if mmap fails. */
void *weft__stacks_get(weft_stacks *s, unsigned i);

/* The index of the stack whose guard page holds addr, or -1 (also for s
 * NULL: no stacks). */
int weft__stacks_guard_hit(const weft_stacks *s, const void *addr);

/* Whether addr lies in the usable part of one of the stacks (0 for s
 * NULL). */
int weft__stacks_contain(const weft_stacks *s, const void *addr);

#endif
