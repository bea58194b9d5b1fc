/*
 * build_wire.h: what a process that builds in a helper (build_isolated.h)
 * and the helper (build_helper.c) say to each other, as bytes: the
 * request (what to build, for which device) on the helper's standard
 * input, the reply (status, log, the result) on its standard output.
 * Integers are the host's own (both ends run the same library on the same
 * machine); every length is checked against what was received.
 */
#ifndef WEFT_CORE_BUILD_WIRE_H
#define WEFT_CORE_BUILD_WIRE_H

#include <stddef.h>

#include "jit/cache/byte_io.h"
#include "jit/jit.h"

/* The device operation a helper runs (build_stack.h's). */
typedef enum weft_build_op {
  WEFT_BUILD_SOURCE, /* build: source to a binary */
  WEFT_BUILD_IR,     /* build_ir: a linked object to a binary */
  WEFT_BUILD_COMPILE, /* compile: source to an object, no kernels */
  WEFT_BUILD_PTX      /* weft_compile_ptx: source to PTX, no device */
} weft_build_op;

typedef struct weft_build_request {
  weft_build_op op;
  int device;              /* its index in weft_device_get's order */
  unsigned sm;             /* WEFT_BUILD_PTX's architecture */
  const char *source;      /* the source, or the IR for WEFT_BUILD_IR */
  size_t length;
  const char *options;     /* may be NULL */
  const weft_jit_header *headers; /* WEFT_BUILD_COMPILE's */
  unsigned num_headers;
} weft_build_request;

typedef struct weft_build_reply {
  int rc;                  /* the operation's status */
  char *log;               /* its log, never NULL once decoded */
  unsigned kind;           /* weft_cache_kind of payload (builds) */
  unsigned char *payload;  /* a build's cache entry, a compile's object */
  size_t size;
} weft_build_reply;

/* What a request or reply is written into (jit/cache/byte_io.h). */
typedef weft_byte_writer weft_wire;

/* The encoding of a request or reply appended to w. */
void weft__wire_put_request(weft_wire *w, const weft_build_request *r);
void weft__wire_put_reply(weft_wire *w, const weft_build_reply *r);

/* Decodes data[size] into r, whose strings and arrays are malloc'd (free
 * with the functions below): 0, or -1 when the bytes are not a whole
 * request or reply. */
int weft__wire_get_request(const unsigned char *data, size_t size,
                           weft_build_request *r);
int weft__wire_get_reply(const unsigned char *data, size_t size,
                         weft_build_reply *r);

void weft__wire_request_free(weft_build_request *r);
void weft__wire_reply_free(weft_build_reply *r);

#endif
