/* byte_io.c: byte strings written and read back (byte_io.h). */
#include "jit/cache/byte_io.h"

#include <stdlib.h>
#include <string.h>

void weft__bytes_put(weft_byte_writer *w, const void *bytes, size_t n) {
  if (w->failed) return;
  if (w->capacity - w->size < n) {
    size_t capacity = w->capacity ? 2 * w->capacity : 256;
    while (capacity - w->size < n) capacity *= 2;
    unsigned char *grown = realloc(w->data, capacity);
    if (!grown) {
      w->failed = 1;
      return;
    }
    w->data = grown;
    w->capacity = capacity;
  }
  if (n) memcpy(w->data + w->size, bytes, n);
  w->size += n;
}

void weft__bytes_put_u64(weft_byte_writer *w, uint64_t v) {
  weft__bytes_put(w, &v, sizeof v);
}

void weft__bytes_put_str(weft_byte_writer *w, const char *s) {
  weft__bytes_put_u64(w, strlen(s));
  weft__bytes_put(w, s, strlen(s));
}

uint64_t weft__bytes_get_u64(weft_byte_reader *r) {
  uint64_t v = 0;
  if (r->failed || r->size - r->at < sizeof v) {
    r->failed = 1;
    return 0;
  }
  memcpy(&v, r->data + r->at, sizeof v);
  r->at += sizeof v;
  return v;
}

unsigned weft__bytes_get_count(weft_byte_reader *r, size_t min_bytes) {
  uint64_t n = weft__bytes_get_u64(r);
  if (n > (r->size - r->at) / min_bytes) r->failed = 1;
  return r->failed ? 0 : (unsigned)n;
}

char *weft__bytes_get(weft_byte_reader *r, size_t n) {
  char *copy = !r->failed && n <= r->size - r->at ? malloc(n + 1) : NULL;
  if (!copy) {
    r->failed = 1;
    return NULL;
  }
  memcpy(copy, r->data + r->at, n);
  copy[n] = 0;
  r->at += n;
  return copy;
}

char *weft__bytes_get_str(weft_byte_reader *r) {
  uint64_t n = weft__bytes_get_u64(r);
  if (r->failed || n > r->size - r->at) {
    r->failed = 1;
    return NULL;
  }
  return weft__bytes_get(r, (size_t)n);
}
