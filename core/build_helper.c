/* build_helper.c: the helper's side of builds in a helper process
 * (build_isolated.h): one request read from standard input, run, and its
 * reply written to standard output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/device.h"
#include "core/build_isolated.h"
#include "core/build_stack.h"
#include "core/handles.h"
#include "jit/cache/cache.h"
#include "jit/front/compile.h"
#include "weft/weft.h"

/* The program tools/build_helper.c calls this; nothing else should. */
WEFT_EXPORT int weft_build_helper_main(int argc, char **argv);

static int read_request(weft_wire *w) {
  unsigned char chunk[65536];
  for (;;) {
    ssize_t n = read(0, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) return w->failed ? -1 : 0;
    weft__bytes_put(w, chunk, (size_t)n);
  }
}

static int write_reply(const weft_wire *w) {
  for (size_t at = 0; at < w->size;) {
    ssize_t n = write(1, w->data + at, w->size - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    at += (size_t)n;
  }
  return 0;
}

/* A build's result: the cache entry it made or found, as its file's
 * bytes (the binary itself dies with this process). */
static int entry_of(int rc, weft_build_reply *reply, char **log) {
  weft_cache_kind kind = WEFT_CACHE_CODE;
  if (!rc) rc = weft__cache_remembered_bytes(&reply->payload, &reply->size, &kind);
  if (rc == WEFT_EINVAL)
    weft__log_append(log, "error: the build helper made no kernel-cache "
                          "entry to hand over\n");
  reply->kind = kind;
  return rc;
}

/* weft_compile_ptx's build: the PTX text is the result. */
static int run_ptx(const weft_build_request *r, weft_build_reply *reply) {
  char *ptx = NULL;
  int rc = weft_compile_ptx(r->source, r->length, r->options, r->sm, &ptx,
                            &reply->log);
  reply->payload = (unsigned char *)ptx;
  reply->size = ptx ? strlen(ptx) : 0;
  return rc;
}

/* Runs the request's device operation into reply. */
static void run(const weft_build_request *r, weft_build_reply *reply) {
  weft_device *dev = NULL;
  weft_binary *binary = NULL;
  void *ir = NULL;
  size_t size = 0;
  int rc = r->op == WEFT_BUILD_PTX ? 0 : weft_device_get(r->device, &dev);
  if (rc) {
    weft__log_append(&reply->log, "error: the build helper has no such device\n");
  } else if (r->op == WEFT_BUILD_PTX) {
    rc = run_ptx(r, reply);
  } else if (r->op == WEFT_BUILD_COMPILE) {
    rc = weft__device_compile(dev, r->source, r->length, r->options,
                              r->headers, r->num_headers, &ir, &size,
                              &reply->log);
    reply->payload = ir;
    reply->size = size;
  } else {
    rc = r->op == WEFT_BUILD_SOURCE
             ? weft__device_build(dev, r->source, r->length, r->options,
                                  &binary, &reply->log)
             : weft__device_build_ir(dev, r->source, r->length, r->options,
                                     &binary, &reply->log);
    rc = entry_of(rc, reply, &reply->log);
    if (binary) dev->ops->binary_free(dev->state, binary);
  }
  reply->rc = rc;
}

int weft_build_helper_main(int argc, char **argv) {
  (void)argv;
  if (argc != 1 || isatty(0)) {
    fprintf(stderr, "weft-build-helper: Weft runs this program itself to "
            "build under WEFT_BUILD_MEMORY; it takes no arguments\n");
    return 2;
  }
  weft__build_helper_mode();
  /* The process that asked logs the build (WEFT_LOG): not twice. */
  unsetenv("WEFT_LOG");
  weft__cache_remember();
  weft_wire in = {0}, out = {0};
  weft_build_request request;
  if (read_request(&in) || weft__wire_get_request(in.data, in.size, &request)) {
    fprintf(stderr, "weft-build-helper: the request is damaged\n");
    free(in.data);
    return 2;
  }
  free(in.data);
  weft_build_reply reply = {0};
  run(&request, &reply);
  weft__wire_put_reply(&out, &reply);
  int rc = out.failed || write_reply(&out) ? 1 : 0;
  free(out.data);
  weft__wire_request_free(&request);
  weft__wire_reply_free(&reply);
  return rc;
}
