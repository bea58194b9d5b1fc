/* cuda_host_pages.c: host memory mapped for GPUs, page by page, shared by
 * the buffers over it (see cuda_device.h).
 *
 * The driver registers host memory in whole pages and refuses to register
 * a page twice (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED), yet two
 * buffers over the caller's memory (WEFT_MEM_USE_HOST_PTR) may share a
 * page: two images in one malloc'd block, a buffer and its neighbour. So
 * registrations are kept as page intervals with a count of the buffers
 * over each: a new range counts the intervals it meets and registers only
 * its gaps; an interval is unregistered when no buffer is over it. An
 * interval is never split, and a held range stays covered, so releasing a
 * range drops exactly the intervals holding it took. Registrations are
 * portable (every context sees them), so the list is the process's.
 *
 * The driver's copies fail (CUDA_ERROR_INVALID_VALUE) on host memory that
 * is registered in part, or across two registrations, which a caller's
 * memory next to a buffer's may well be: copies go in pieces that each lie
 * in one interval or outside all (weft__cuda_pages_piece). */
#include <assert.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend/cuda/cuda_device.h"

typedef struct interval {
  uintptr_t start, end; /* page-aligned, [start, end) */
  unsigned holders;
} interval;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static interval *list; /* sorted by start, disjoint */
static size_t count, capacity;

static void page_range(void *p, size_t size, uintptr_t *start, uintptr_t *end) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  *start = (uintptr_t)p & ~(page - 1);
  *end = ((uintptr_t)p + (size ? size : 1) + page - 1) & ~(page - 1);
}

/* Inserts [start, end) with no holder yet, keeping the list sorted. */
static int insert(uintptr_t start, uintptr_t end) {
  if (count == capacity) {
    size_t grown_capacity = capacity ? 2 * capacity : 16;
    interval *grown = realloc(list, grown_capacity * sizeof *grown);
    if (!grown) return WEFT_ENOMEM;
    list = grown;
    capacity = grown_capacity;
  }
  size_t i = count;
  while (i > 0 && list[i - 1].start > start) {
    list[i] = list[i - 1];
    i--;
  }
  list[i] = (interval){start, end, 0};
  count++;
  return 0;
}

/* Registers [start, end), a gap of the list, and records it. */
static int register_gap(cuda_device *gpu, uintptr_t start, uintptr_t end,
                        weft_msg *msg) {
  const weft_cuda_api *api = gpu->api;
  int rc = weft__cuda_fail(
      gpu, api->cuMemHostRegister((void *)start, end - start,
                                  CU_MEMHOSTREGISTER_DEVICEMAP |
                                      CU_MEMHOSTREGISTER_PORTABLE),
      "registering the host memory", WEFT_ENOMEM, msg);
  if (!rc && insert(start, end)) {
    api->cuMemHostUnregister((void *)start);
    rc = WEFT_ENOMEM;
  }
  return rc;
}

/* Unregisters and forgets the intervals no buffer is over. */
static void remove_unheld(cuda_device *gpu) {
  size_t kept = 0;
  for (size_t i = 0; i < count; i++) {
    if (!list[i].holders) gpu->api->cuMemHostUnregister((void *)list[i].start);
    else list[kept++] = list[i];
  }
  count = kept;
}

/* The parts of [start, end) no interval covers, into gaps (room for
 * count + 1); how many. */
static size_t find_gaps(uintptr_t start, uintptr_t end, interval *gaps) {
  size_t n = 0;
  uintptr_t at = start;
  for (size_t i = 0; i < count && at < end; i++) {
    if (list[i].end <= at) continue;
    if (list[i].start >= end) break;
    if (list[i].start > at) gaps[n++] = (interval){at, list[i].start, 0};
    at = list[i].end;
  }
  if (at < end) gaps[n++] = (interval){at, end, 0};
  return n;
}

int weft__cuda_pages_hold(cuda_device *gpu, void *p, size_t size,
                          weft_msg *msg) {
  uintptr_t start, end;
  page_range(p, size, &start, &end);
  pthread_mutex_lock(&lock);
  interval *gaps = malloc((count + 1) * sizeof *gaps);
  int rc = gaps ? 0 : WEFT_ENOMEM;
  size_t n = gaps ? find_gaps(start, end, gaps) : 0;
  for (size_t i = 0; i < n && !rc; i++)
    rc = register_gap(gpu, gaps[i].start, gaps[i].end, msg);
  free(gaps);
  /* Every interval that meets the range, old or new, gains this holder;
   * on failure the new ones, still unheld, go. */
  for (size_t i = 0; i < count && !rc; i++)
    if (list[i].end > start && list[i].start < end) list[i].holders++;
  if (rc) remove_unheld(gpu);
  pthread_mutex_unlock(&lock);
  return rc;
}

void weft__cuda_pages_release(cuda_device *gpu, void *p, size_t size) {
  uintptr_t start, end;
  page_range(p, size, &start, &end);
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < count; i++)
    if (list[i].end > start && list[i].start < end) {
      assert(list[i].holders > 0);
      list[i].holders--;
    }
  remove_unheld(gpu);
  pthread_mutex_unlock(&lock);
}

size_t weft__cuda_pages_piece(const void *p, size_t size) {
  uintptr_t from = (uintptr_t)p, to = from + size, end = to;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < count; i++) {
    if (list[i].end <= from) continue;
    /* Inside an interval: up to its end; before one: up to its start. */
    end = list[i].start <= from ? list[i].end : list[i].start;
    break;
  }
  pthread_mutex_unlock(&lock);
  return (end < to ? end : to) - from;
}
