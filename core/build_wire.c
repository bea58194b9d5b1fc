/* build_wire.c: requests and replies of builds in a helper process, as
 * bytes (build_wire.h). */
#include "core/build_wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REQUEST_MAGIC "WEFT-BUILD-REQUEST-1"
#define REPLY_MAGIC "WEFT-BUILD-REPLY-1"

/* ------------------------------------------------------------ writing */

/* A byte string with its length; NULL is told apart from "" (a length no
 * string has). */
static void put_bytes(weft_wire *w, const void *bytes, size_t n) {
  weft__bytes_put_u64(w, bytes ? (uint64_t)n : UINT64_MAX);
  if (bytes) weft__bytes_put(w, bytes, n);
}

static void put_string(weft_wire *w, const char *s) {
  put_bytes(w, s, s ? strlen(s) : 0);
}

void weft__wire_put_request(weft_wire *w, const weft_build_request *r) {
  weft__bytes_put(w, REQUEST_MAGIC, sizeof REQUEST_MAGIC);
  weft__bytes_put_u64(w, (uint64_t)r->op);
  weft__bytes_put_u64(w, (uint64_t)(int64_t)r->device);
  weft__bytes_put_u64(w, r->sm);
  put_bytes(w, r->source, r->length);
  put_string(w, r->options);
  weft__bytes_put_u64(w, r->num_headers);
  for (unsigned i = 0; i < r->num_headers; i++) {
    put_string(w, r->headers[i].name);
    put_string(w, r->headers[i].source);
  }
}

void weft__wire_put_reply(weft_wire *w, const weft_build_reply *r) {
  weft__bytes_put(w, REPLY_MAGIC, sizeof REPLY_MAGIC);
  weft__bytes_put_u64(w, (uint64_t)(int64_t)r->rc);
  put_string(w, r->log ? r->log : "");
  weft__bytes_put_u64(w, r->kind);
  put_bytes(w, r->payload, r->size);
}

/* ------------------------------------------------------------ reading */

typedef weft_byte_reader reader;

/* A byte string put_bytes wrote, malloc'd and NUL-terminated; NULL for a
 * NULL one or on a bad length (r->failed tells which). */
static char *get_bytes(reader *r, size_t *length) {
  uint64_t n = weft__bytes_get_u64(r);
  if (r->failed || n == UINT64_MAX) return NULL;
  char *copy = n <= r->size - r->at ? weft__bytes_get(r, (size_t)n) : NULL;
  if (!copy) r->failed = 1;
  else if (length) *length = (size_t)n;
  return copy;
}

static int magic_is(reader *r, const char *magic, size_t n) {
  if (r->size < n || memcmp(r->data, magic, n)) return 0;
  r->at = n;
  return 1;
}

int weft__wire_get_request(const unsigned char *data, size_t size,
                           weft_build_request *out) {
  memset(out, 0, sizeof *out);
  reader r = {data, size, 0, 0};
  if (!magic_is(&r, REQUEST_MAGIC, sizeof REQUEST_MAGIC)) return -1;
  uint64_t op = weft__bytes_get_u64(&r), device = weft__bytes_get_u64(&r),
           sm = weft__bytes_get_u64(&r);
  out->op = (weft_build_op)op;
  out->device = (int)(int64_t)device;
  out->sm = (unsigned)sm;
  out->source = get_bytes(&r, &out->length);
  out->options = get_bytes(&r, NULL);
  uint64_t headers = weft__bytes_get_u64(&r);
  if (!r.failed && op <= WEFT_BUILD_PTX && out->device >= -1 &&
      out->device < 64 && sm < 100000 && out->source &&
      headers <= (r.size - r.at) / 16 &&
      (!headers || (out->headers = calloc((size_t)headers,
                                          sizeof *out->headers)))) {
    weft_jit_header *h = (weft_jit_header *)out->headers;
    for (; out->num_headers < headers && !r.failed; out->num_headers++) {
      h[out->num_headers].name = get_bytes(&r, NULL);
      h[out->num_headers].source = get_bytes(&r, NULL);
      if (!h[out->num_headers].name || !h[out->num_headers].source) r.failed = 1;
    }
  } else {
    r.failed = 1;
  }
  if (r.failed || r.at != r.size) {
    weft__wire_request_free(out);
    return -1;
  }
  return 0;
}

int weft__wire_get_reply(const unsigned char *data, size_t size,
                         weft_build_reply *out) {
  memset(out, 0, sizeof *out);
  reader r = {data, size, 0, 0};
  if (!magic_is(&r, REPLY_MAGIC, sizeof REPLY_MAGIC)) return -1;
  out->rc = (int)(int64_t)weft__bytes_get_u64(&r);
  out->log = get_bytes(&r, NULL);
  out->kind = (unsigned)weft__bytes_get_u64(&r);
  out->payload = (unsigned char *)get_bytes(&r, &out->size);
  if (r.failed || !out->log || r.at != r.size) {
    weft__wire_reply_free(out);
    return -1;
  }
  return 0;
}

void weft__wire_request_free(weft_build_request *r) {
  free((char *)r->source);
  free((char *)r->options);
  weft_jit_header *h = (weft_jit_header *)r->headers;
  for (unsigned i = 0; i < r->num_headers; i++) {
    free((char *)h[i].name);
    free((char *)h[i].source);
  }
  free(h);
  memset(r, 0, sizeof *r);
}

void weft__wire_reply_free(weft_build_reply *r) {
  free(r->log);
  free(r->payload);
  memset(r, 0, sizeof *r);
}
