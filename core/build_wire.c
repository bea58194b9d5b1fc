/* build_wire.c: requests and replies of builds in a helper process, as
 * bytes (build_wire.h). */
#include "core/build_wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REQUEST_MAGIC "WEFT-BUILD-REQUEST-1"
#define REPLY_MAGIC "WEFT-BUILD-REPLY-1"

/* ------------------------------------------------------------ writing */

void weft__wire_append(weft_wire *w, const void *bytes, size_t n) {
  if (w->failed) return;
  if (w->capacity - w->size < n) {
    size_t want = w->capacity ? w->capacity : 4096;
    while (want - w->size < n) want *= 2;
    unsigned char *grown = realloc(w->data, want);
    if (!grown) {
      w->failed = 1;
      return;
    }
    w->data = grown;
    w->capacity = want;
  }
  if (n) memcpy(w->data + w->size, bytes, n);
  w->size += n;
}

static void put_u64(weft_wire *w, uint64_t v) { weft__wire_append(w, &v, sizeof v); }

/* A byte string with its length; NULL is told apart from "". */
static void put_bytes(weft_wire *w, const void *bytes, size_t n) {
  put_u64(w, bytes ? (uint64_t)n : UINT64_MAX);
  if (bytes) weft__wire_append(w, bytes, n);
}

static void put_string(weft_wire *w, const char *s) {
  put_bytes(w, s, s ? strlen(s) : 0);
}

void weft__wire_put_request(weft_wire *w, const weft_build_request *r) {
  weft__wire_append(w, REQUEST_MAGIC, sizeof REQUEST_MAGIC);
  put_u64(w, (uint64_t)r->op);
  put_u64(w, (uint64_t)(int64_t)r->device);
  put_u64(w, r->sm);
  put_bytes(w, r->source, r->length);
  put_string(w, r->options);
  put_u64(w, r->num_headers);
  for (unsigned i = 0; i < r->num_headers; i++) {
    put_string(w, r->headers[i].name);
    put_string(w, r->headers[i].source);
  }
}

void weft__wire_put_reply(weft_wire *w, const weft_build_reply *r) {
  weft__wire_append(w, REPLY_MAGIC, sizeof REPLY_MAGIC);
  put_u64(w, (uint64_t)(int64_t)r->rc);
  put_string(w, r->log ? r->log : "");
  put_u64(w, r->kind);
  put_bytes(w, r->payload, r->size);
}

/* ------------------------------------------------------------ reading */

typedef struct reader {
  const unsigned char *data;
  size_t size, at;
  int bad;
} reader;

static int get(reader *r, void *out, size_t n) {
  if (r->bad || r->size - r->at < n) return r->bad = 1, -1;
  memcpy(out, r->data + r->at, n);
  r->at += n;
  return 0;
}

static uint64_t get_u64(reader *r) {
  uint64_t v = 0;
  get(r, &v, sizeof v);
  return v;
}

/* A malloc'd copy of a byte string, NUL-terminated (NULL for a NULL
 * one, or on a bad length: r->bad tells which). */
static char *get_bytes(reader *r, size_t *length) {
  uint64_t n = get_u64(r);
  if (r->bad || n == UINT64_MAX) return NULL;
  char *copy = n <= r->size - r->at ? malloc((size_t)n + 1) : NULL;
  if (!copy || get(r, copy, (size_t)n)) {
    free(copy);
    r->bad = 1;
    return NULL;
  }
  copy[n] = 0;
  if (length) *length = (size_t)n;
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
  uint64_t op = get_u64(&r), device = get_u64(&r), sm = get_u64(&r);
  out->op = (weft_build_op)op;
  out->device = (int)(int64_t)device;
  out->sm = (unsigned)sm;
  out->source = get_bytes(&r, &out->length);
  out->options = get_bytes(&r, NULL);
  uint64_t headers = get_u64(&r);
  if (!r.bad && op <= WEFT_BUILD_PTX && out->device >= -1 &&
      out->device < 64 && sm < 100000 && out->source &&
      headers <= (r.size - r.at) / 16 &&
      (!headers || (out->headers = calloc((size_t)headers,
                                          sizeof *out->headers)))) {
    weft_jit_header *h = (weft_jit_header *)out->headers;
    for (; out->num_headers < headers && !r.bad; out->num_headers++) {
      h[out->num_headers].name = get_bytes(&r, NULL);
      h[out->num_headers].source = get_bytes(&r, NULL);
      if (!h[out->num_headers].name || !h[out->num_headers].source) r.bad = 1;
    }
  } else {
    r.bad = 1;
  }
  if (r.bad || r.at != r.size) {
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
  out->rc = (int)(int64_t)get_u64(&r);
  out->log = get_bytes(&r, NULL);
  out->kind = (unsigned)get_u64(&r);
  out->payload = (unsigned char *)get_bytes(&r, &out->size);
  if (r.bad || !out->log || r.at != r.size) {
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
