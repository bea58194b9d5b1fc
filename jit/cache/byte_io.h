/*
 * byte_io.h: byte strings written and read back: a string that grows as
 * values are appended (failed, and nothing more appended, once memory ran
 * out), and a reader that never reads past its end (failed once asked
 * to). Integers are the host's own: the bytes are read by the same build
 * of Weft on the same machine (the kernel cache's descriptions,
 * binary_io.h; a build helper's messages, core/build_wire.h).
 */
#ifndef WEFT_JIT_BYTE_IO_H
#define WEFT_JIT_BYTE_IO_H

#include <stddef.h>
#include <stdint.h>

typedef struct weft_byte_writer {
  unsigned char *data;
  size_t size, capacity;
  int failed;
} weft_byte_writer;

void weft__bytes_put(weft_byte_writer *w, const void *bytes, size_t n);
void weft__bytes_put_u64(weft_byte_writer *w, uint64_t v);
/* A string with its length (no NUL). */
void weft__bytes_put_str(weft_byte_writer *w, const char *s);

typedef struct weft_byte_reader {
  const unsigned char *data;
  size_t size, at;
  int failed;
} weft_byte_reader;

uint64_t weft__bytes_get_u64(weft_byte_reader *r);
/* A count that the remaining bytes could hold, at least min_bytes each. */
unsigned weft__bytes_get_count(weft_byte_reader *r, size_t min_bytes);
/* n bytes as a malloc'd copy with a NUL after them (they may hold NULs
 * themselves), or NULL, failed, past the end or without memory. */
char *weft__bytes_get(weft_byte_reader *r, size_t n);
/* A string put by weft__bytes_put_str, malloc'd. */
char *weft__bytes_get_str(weft_byte_reader *r);

#endif
