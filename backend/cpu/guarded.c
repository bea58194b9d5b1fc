/* guarded.c: buffer storage fenced by guard pages (guarded.h). */
#include "backend/cpu/guarded.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Live allocations with guards, and how many may be. */
static atomic_long guarded_count;

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static pthread_once_t map_count_once = PTHREAD_ONCE_INIT;
static long map_count_limit;

static void read_map_count(void) {
  long max = 65530;
  FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
  if (f) {
    if (fscanf(f, "%ld", &max) != 1 || max < 1024) max = 65530;
    fclose(f);
  }
  map_count_limit = max;
}

long weft__map_count_limit(void) {
  pthread_once(&map_count_once, read_map_count);
  return map_count_limit;
}


/* ------------------------------------------- allocations without guards */

/* The bases of allocations made without guards (past the limit), so that
 * freeing one does not count it among the guarded: an open-addressing set,
 * rarely used. */
static pthread_mutex_t plain_lock = PTHREAD_MUTEX_INITIALIZER;
static void **plain;
static size_t plain_capacity, plain_used;
#define TOMBSTONE ((void *)1)

static size_t slot_of(const void *p, size_t capacity) {
  return ((uintptr_t)p >> 12) * 0x9e3779b97f4a7c15ull % capacity;
}

static int plain_add_locked(void *p);

static int plain_grow(void) {
  size_t old = plain_capacity;
  void **slots = plain;
  plain_capacity = old ? 2 * old : 256;
  plain = calloc(plain_capacity, sizeof *plain);
  if (!plain) {
    plain = slots;
    plain_capacity = old;
    return -1;
  }
  plain_used = 0;
  for (size_t i = 0; i < old; i++)
    if (slots[i] && slots[i] != TOMBSTONE) plain_add_locked(slots[i]);
  free(slots);
  return 0;
}

static int plain_add_locked(void *p) {
  if (2 * (plain_used + 1) > plain_capacity && plain_grow()) return -1;
  size_t i = slot_of(p, plain_capacity);
  while (plain[i] && plain[i] != TOMBSTONE) i = (i + 1) % plain_capacity;
  plain[i] = p;
  plain_used++;
  return 0;
}

/* Removes p if it is there; 1 if it was. */
static int plain_remove(void *p) {
  pthread_mutex_lock(&plain_lock);
  int found = 0;
  for (size_t i = plain_capacity ? slot_of(p, plain_capacity) : 0;
       plain_capacity && plain[i]; i = (i + 1) % plain_capacity)
    if (plain[i] == p) {
      plain[i] = TOMBSTONE;
      found = 1;
      break;
    }
  pthread_mutex_unlock(&plain_lock);
  return found;
}

/* ------------------------------------------------------------ the API */

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* The layout of an allocation: bytes from the data's start to the end of
 * the read-write pages (the data, rounded to the alignment, and the
 * slack), and of those pages. */
static void layout(size_t size, size_t alignment, size_t *data, size_t *rw) {
  assert(alignment >= 128 && alignment <= page_size() &&
         !(alignment & (alignment - 1)));
  *data = round_up(size + WEFT_GUARDED_SLACK, alignment);
  *rw = round_up(*data, page_size());
}

int weft__guarded_alloc(size_t size, size_t alignment, void **out) {
  size_t data, rw, page = page_size();
  if (size > SIZE_MAX / 4) return -1;
  layout(size, alignment, &data, &rw);
  /* Guards for a quarter of the process's mappings (a guarded allocation
   * takes two or three: guard, data, guard, the guards merging with
   * neighbours'). */
  int guard = atomic_fetch_add(&guarded_count, 1) < weft__map_count_limit() / 4;
  if (!guard) atomic_fetch_sub(&guarded_count, 1);
  int prot = guard ? PROT_NONE : PROT_READ | PROT_WRITE;
  char *base = mmap(NULL, rw + 2 * page, prot,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  int failed = base == MAP_FAILED;
  if (!failed && guard) failed = mprotect(base + page, rw, PROT_READ | PROT_WRITE);
  if (!failed && !guard) {
    pthread_mutex_lock(&plain_lock);
    failed = plain_add_locked(base);
    pthread_mutex_unlock(&plain_lock);
  }
  if (failed) {
    if (base != MAP_FAILED) munmap(base, rw + 2 * page);
    if (guard) atomic_fetch_sub(&guarded_count, 1);
    return -1;
  }
  *out = base + page + rw - data;
  return 0;
}

void weft__guarded_free(void *p, size_t size) {
  if (!p) return;
  /* The data and its slack end the read-write pages and start within
   * their first, whatever the alignment was. */
  size_t page = page_size(), rw = round_up(size + WEFT_GUARDED_SLACK, page);
  char *base = (char *)((uintptr_t)p / page * page) - page;
  if (!plain_remove(base)) atomic_fetch_sub(&guarded_count, 1);
  munmap(base, rw + 2 * page);
}
