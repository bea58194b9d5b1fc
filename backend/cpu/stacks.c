/* stacks.c: lazily mapped work-item stacks with guard pages (see stacks.h). */
#include "backend/cpu/stacks.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

void weft__stacks_init(weft_stacks *s, size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  s->size = (size + page - 1) / page * page;
  s->guard = page;
  s->count = s->capacity = 0;
  s->bases = NULL;
}

void weft__stacks_fini(weft_stacks *s) {
  for (unsigned i = 0; i < s->count; i++)
    munmap(s->bases[i], s->guard + s->size);
  free(s->bases);
  s->bases = NULL;
  s->count = s->capacity = 0;
}

static int map_one(weft_stacks *s) {
  if (s->count == s->capacity) {
    unsigned capacity = s->capacity ? 2 * s->capacity : 64;
    char **grown = realloc(s->bases, capacity * sizeof *grown);
    if (!grown) return -1;
    s->bases = grown;
    s->capacity = capacity;
  }
  /* MAP_NORESERVE: only the pages a work-item touches cost memory. */
  void *p = mmap(NULL, s->guard + s->size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (p == MAP_FAILED) return -1;
  if (mprotect(p, s->guard, PROT_NONE)) {
    munmap(p, s->guard + s->size);
    return -1;
  }
  s->bases[s->count++] = p;
  return 0;
}

void *weft__stacks_get(weft_stacks *s, unsigned i) {
  while (s->count <= i)
    if (map_one(s)) return NULL;
  return s->bases[i] + s->guard;
}

int weft__stacks_guard_hit(const weft_stacks *s, const void *addr) {
  const char *a = addr;
  for (unsigned i = 0; s && i < s->count; i++)
    if (a >= s->bases[i] && a < s->bases[i] + s->guard) return (int)i;
  return -1;
}

int weft__stacks_contain(const weft_stacks *s, const void *addr) {
  const char *a = addr;
  for (unsigned i = 0; s && i < s->count; i++) {
    const char *lo = s->bases[i] + s->guard;
    if (a >= lo && a < lo + s->size) return 1;
  }
  return 0;
}
