/* guarded.c: buffer storage fenced by guard pages (guarded.h). */
#include "backend/cpu/guarded.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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


/* ------------------------------------------------------------ mappings */

/* An allocation's mapping: its first guard page, the read-write bytes
 * after it (the buffer at their end, other pages in front closed where a
 * larger mapping is reused), and whether it has guards. */
typedef struct mapping {
  char *base;
  size_t rw;
  int guard;
} mapping;

/* Read-write bytes from which a freed mapping is kept for reuse. */
#define LARGE ((size_t)1 << 20)

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* The page after the read-write ones: where the data and its slack end. */
static char *end_of(mapping m) { return m.base + page_size() + m.rw; }

static void unmap(mapping m) {
  if (m.guard) atomic_fetch_sub(&guarded_count, 1);
  munmap(m.base, m.rw + 2 * page_size());
}

/* ------------------------------------------------ mappings out of layout */

/* The mappings whose layout their buffer's size does not give, keyed by
 * their end: those without guards (past the limit) and the large ones
 * (which may be reused for a smaller buffer). An open-addressing table. */
static pthread_mutex_t irregular_lock = PTHREAD_MUTEX_INITIALIZER;
static mapping *irregular;
static size_t irregular_capacity, irregular_used;
#define TOMBSTONE ((char *)1)

static size_t slot_of(const char *end, size_t capacity) {
  return ((uintptr_t)end >> 12) * 0x9e3779b97f4a7c15ull % capacity;
}

static int irregular_add_locked(mapping m);

static int irregular_grow(void) {
  size_t old = irregular_capacity;
  mapping *slots = irregular;
  irregular_capacity = old ? 2 * old : 256;
  irregular = calloc(irregular_capacity, sizeof *irregular);
  if (!irregular) {
    irregular = slots;
    irregular_capacity = old;
    return -1;
  }
  irregular_used = 0;
  for (size_t i = 0; i < old; i++)
    if (slots[i].base && slots[i].base != TOMBSTONE)
      irregular_add_locked(slots[i]);
  free(slots);
  return 0;
}

static int irregular_add_locked(mapping m) {
  if (2 * (irregular_used + 1) > irregular_capacity && irregular_grow())
    return -1;
  size_t i = slot_of(end_of(m), irregular_capacity);
  while (irregular[i].base && irregular[i].base != TOMBSTONE)
    i = (i + 1) % irregular_capacity;
  irregular[i] = m;
  irregular_used++;
  return 0;
}

static int irregular_add(mapping m) {
  pthread_mutex_lock(&irregular_lock);
  int rc = irregular_add_locked(m);
  pthread_mutex_unlock(&irregular_lock);
  return rc;
}

/* Takes the mapping ending at end out of the table; 1 if it was there. */
static int irregular_take(char *end, mapping *out) {
  pthread_mutex_lock(&irregular_lock);
  int found = 0;
  for (size_t i = irregular_capacity ? slot_of(end, irregular_capacity) : 0;
       irregular_capacity && irregular[i].base;
       i = (i + 1) % irregular_capacity)
    if (irregular[i].base != TOMBSTONE && end_of(irregular[i]) == end) {
      *out = irregular[i];
      irregular[i].base = TOMBSTONE;
      found = 1;
      break;
    }
  pthread_mutex_unlock(&irregular_lock);
  return found;
}

/* ----------------------------------------------- freed mappings, reused */

/* Large mappings freed lately, kept to be reused: a fresh mapping's every
 * page faults and is zeroed by the kernel on its first touch (a virtual
 * machine's host adds its own), which was most of the time of the CTS's
 * strided async copies (buffers of 7 to 380 MB, each size allocated and
 * freed once, some 300 in all). A buffer takes the smallest kept mapping
 * that holds it, up to four times its size. Kept pages are given to the
 * kernel to reclaim under memory pressure (MADV_FREE), and at most
 * kept_limit() bytes of them are kept, the oldest going first. */
#define KEPT 8
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static mapping kept[KEPT];
static unsigned kept_count;
static size_t kept_bytes;

/* A sixteenth of the machine's memory, at most 2 GiB: read once. */
static pthread_once_t kept_limit_once = PTHREAD_ONCE_INIT;
static size_t kept_limit_bytes;

static void read_kept_limit(void) {
  long pages = sysconf(_SC_PHYS_PAGES);
  size_t most = (size_t)1 << 31, sixteenth = (size_t)pages / 16 * page_size();
  kept_limit_bytes = pages > 0 && sixteenth < most ? sixteenth : most;
}

static size_t kept_limit(void) {
  pthread_once(&kept_limit_once, read_kept_limit);
  return kept_limit_bytes;
}

static void kept_remove_locked(unsigned i) {
  kept_bytes -= kept[i].rw;
  memmove(&kept[i], &kept[i + 1], (kept_count - i - 1) * sizeof *kept);
  kept_count--;
}

/* Takes a kept mapping of rw bytes or a few times more; 1 if there was. */
static int reuse(size_t rw, mapping *out) {
  if (rw < LARGE) return 0;
  pthread_mutex_lock(&kept_lock);
  unsigned best = KEPT;
  for (unsigned i = 0; i < kept_count; i++)
    if (kept[i].rw >= rw && kept[i].rw / 4 <= rw &&
        (best == KEPT || kept[i].rw < kept[best].rw))
      best = i;
  if (best < KEPT) {
    *out = kept[best];
    kept_remove_locked(best);
  }
  pthread_mutex_unlock(&kept_lock);
  return best < KEPT;
}

/* Keeps m for reuse, unmapping the oldest beyond the limits; 0 when m is
 * not to be kept (the caller unmaps it). */
static int keep(mapping m) {
  if (m.rw < LARGE) return 0;
  size_t limit = kept_limit();
  if (m.rw > limit) return 0;
#ifdef MADV_FREE
  (void)madvise(m.base + page_size(), m.rw, MADV_FREE);
#endif
  mapping gone[KEPT];
  unsigned n = 0;
  pthread_mutex_lock(&kept_lock);
  while (kept_count == KEPT || (kept_count && kept_bytes + m.rw > limit)) {
    gone[n++] = kept[0];
    kept_remove_locked(0);
  }
  kept[kept_count++] = m;
  kept_bytes += m.rw;
  pthread_mutex_unlock(&kept_lock);
  for (unsigned i = 0; i < n; i++) unmap(gone[i]);
  return 1;
}

/* --------------------------------------------------------- new mappings */

/* A large buffer is asked to be backed by transparent huge pages (where
 * the system has them "madvise"d, Debian's default): a first touch then
 * faults once per 2 MiB, not per 4 KiB. Only a hint: where the kernel
 * refuses, pages stay small. */
#define HUGE_PAGE ((size_t)2 << 20)
static void prefer_huge_pages(char *pages, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (bytes >= 2 * HUGE_PAGE) (void)madvise(pages, bytes, MADV_HUGEPAGE);
#else
  (void)pages;
  (void)bytes;
#endif
}

/* A new mapping of rw read-write bytes (all closed where guarded: the
 * caller opens its pages); 0 when nothing could be mapped. */
static int map_new(size_t rw, mapping *out) {
  /* Guards for a quarter of the process's mappings (a guarded allocation
   * takes two or three: guard, data, guard, the guards merging with
   * neighbours'). */
  int guard = atomic_fetch_add(&guarded_count, 1) < weft__map_count_limit() / 4;
  if (!guard) atomic_fetch_sub(&guarded_count, 1);
  int prot = guard ? PROT_NONE : PROT_READ | PROT_WRITE;
  char *base = mmap(NULL, rw + 2 * page_size(), prot,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    if (guard) atomic_fetch_sub(&guarded_count, 1);
    return 0;
  }
  prefer_huge_pages(base + page_size(), rw);
  *out = (mapping){base, rw, guard};
  return 1;
}

/* Opens the last `used` read-write bytes of m, closing those in front (a
 * reused mapping had another buffer's layout); 0 on failure. */
static int open_pages(mapping m, size_t used) {
  char *pages = m.base + page_size();
  if (!m.guard) return 1;
  if (m.rw > used && mprotect(pages, m.rw - used, PROT_NONE)) return 0;
  return !mprotect(pages + m.rw - used, used, PROT_READ | PROT_WRITE);
}

/* ------------------------------------------------------------ the API */

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
  size_t data, rw;
  if (size > SIZE_MAX / 4) return -1;
  layout(size, alignment, &data, &rw);
  mapping m;
  int reused = reuse(rw, &m);
  if (!reused && !map_new(rw, &m)) return -1;
  int irregular = !m.guard || m.rw >= LARGE;
  if (!open_pages(m, rw) || (irregular && irregular_add(m))) {
    unmap(m);
    return -1;
  }
  /* Zero-filled, as a new mapping is (MADV_FREE may have left old bytes). */
  if (reused) memset(end_of(m) - rw, 0, rw);
  *out = end_of(m) - data;
  return 0;
}

void weft__guarded_free(void *p, size_t size) {
  if (!p) return;
  /* The data and its slack end the read-write pages, less than a page
   * (the alignment's most) after the data's rounded size. */
  size_t page = page_size(), rw = round_up(size + WEFT_GUARDED_SLACK, page);
  char *end = (char *)round_up((uintptr_t)p + size + WEFT_GUARDED_SLACK, page);
  mapping m;
  if (!irregular_take(end, &m)) {
    assert(rw < LARGE);
    m = (mapping){end - rw - page, rw, 1};
  }
  if (!keep(m)) unmap(m);
}
