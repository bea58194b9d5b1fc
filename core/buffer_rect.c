/* buffer_rect.c: rectangle transfers between buffers and host memory
 * (weft.h's weft_buffer_*_rect): the rectangles checked, then moved row by
 * row with the plain transfers, which keep check mode's shadows. */
#include <stdint.h>
#include <string.h>

#include "core/handles.h"

/* A rectangle with its pitches made explicit (0: tightly packed). */
typedef struct rect {
  size_t origin[3];
  size_t row, slice;
} rect;

static rect resolve(const weft_rect *at, const size_t *region) {
  rect r;
  memcpy(r.origin, at->origin, sizeof r.origin);
  r.row = at->row_pitch ? at->row_pitch : region[0];
  r.slice = at->slice_pitch ? at->slice_pitch : region[1] * r.row;
  return r;
}

/* Whether r fits in size bytes for region. Every step is overflow-checked:
 * a pitch of 2^63 must not wrap into a small offset that passes. */
static int fits(const rect *r, const size_t *region, size_t size) {
  size_t rows, z, y, zs, yr, end;
  if (r->row < region[0] || __builtin_mul_overflow(region[1], r->row, &rows) ||
      r->slice < rows || r->slice % r->row)
    return 0;
  if (__builtin_add_overflow(r->origin[2], region[2] - 1, &z) ||
      __builtin_add_overflow(r->origin[1], region[1] - 1, &y) ||
      __builtin_mul_overflow(z, r->slice, &zs) ||
      __builtin_mul_overflow(y, r->row, &yr) ||
      __builtin_add_overflow(zs, yr, &end) ||
      __builtin_add_overflow(end, r->origin[0], &end) ||
      __builtin_add_overflow(end, region[0], &end))
    return 0;
  return end <= size;
}

/* Where row k (y + z * region[1]) of r starts, from its buffer's start. */
static size_t row_at(const rect *r, const size_t *region, size_t k) {
  size_t y = k % region[1], z = k / region[1];
  return (r->origin[2] + z) * r->slice + (r->origin[1] + y) * r->row +
         r->origin[0];
}

/* Whether a copy's rectangles share a byte of one root buffer. Rows are
 * disjoint and ascending (row pitch >= width, slice pitch >= rows * row
 * pitch), so for each source row a binary search finds the one
 * destination row that can meet it: the last to start before the source
 * row ends. Positions are device addresses, which sub-buffers of one
 * buffer share. */
static int overlap(weft_buffer *src, const rect *s, weft_buffer *dst,
                   const rect *d, const size_t *region) {
  if (weft__buffer_root(src, NULL) != weft__buffer_root(dst, NULL))
    return 0;
  uintptr_t s0 = (uintptr_t)src->mem, d0 = (uintptr_t)dst->mem;
  size_t rows = region[1] * region[2], width = region[0];
  for (size_t i = 0; i < rows; i++) {
    uintptr_t from = s0 + row_at(s, region, i);
    size_t lo = 0, hi = rows;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (d0 + row_at(d, region, mid) < from + width) lo = mid + 1;
      else hi = mid;
    }
    if (lo && d0 + row_at(d, region, lo - 1) + width > from) return 1;
  }
  return 0;
}

int weft_buffer_check_rect(weft_buffer *src, const weft_rect *src_at,
                           weft_buffer *dst, const weft_rect *dst_at,
                           const size_t region[3]) {
  if ((src && !weft__object_is(src, WEFT_KIND_BUFFER)) ||
      (dst && !weft__object_is(dst, WEFT_KIND_BUFFER)) || !src_at || !dst_at ||
      !region || !region[0] || !region[1] || !region[2])
    return WEFT_EINVAL;
  if (src && dst && src->context != dst->context) return WEFT_EINVAL;
  rect s = resolve(src_at, region), d = resolve(dst_at, region);
  if (!fits(&s, region, src ? src->size : SIZE_MAX) ||
      !fits(&d, region, dst ? dst->size : SIZE_MAX))
    return WEFT_ERANGE;
  if (src && dst && overlap(src, &s, dst, &d, region)) return WEFT_EOVERLAP;
  return 0;
}

/* Moves region row by row: host is the side whose buffer is NULL. */
static int rows(weft_buffer *src, const weft_rect *src_at, weft_buffer *dst,
                const weft_rect *dst_at, void *host, const size_t *region) {
  int rc = weft_buffer_check_rect(src, src_at, dst, dst_at, region);
  if (rc) return rc;
  rect s = resolve(src_at, region), d = resolve(dst_at, region);
  size_t n = region[1] * region[2], width = region[0];
  for (size_t k = 0; k < n && !rc; k++) {
    size_t from = row_at(&s, region, k), to = row_at(&d, region, k);
    if (!dst) rc = weft_buffer_read(src, from, width, (char *)host + to);
    else if (!src)
      rc = weft_buffer_write(dst, to, width, (const char *)host + from);
    else rc = weft_buffer_copy(src, from, dst, to, width);
  }
  return rc;
}

int weft_buffer_read_rect(weft_buffer *b, const weft_rect *at, void *host,
                          const weft_rect *host_at, const size_t region[3]) {
  if (!b || !host) return WEFT_EINVAL;
  return rows(b, at, NULL, host_at, host, region);
}

int weft_buffer_write_rect(weft_buffer *b, const weft_rect *at,
                           const void *host, const weft_rect *host_at,
                           const size_t region[3]) {
  if (!b || !host) return WEFT_EINVAL;
  return rows(NULL, host_at, b, at, (void *)host, region);
}

int weft_buffer_copy_rect(weft_buffer *src, const weft_rect *src_at,
                          weft_buffer *dst, const weft_rect *dst_at,
                          const size_t region[3]) {
  if (!src || !dst) return WEFT_EINVAL;
  return rows(src, src_at, dst, dst_at, NULL, region);
}
