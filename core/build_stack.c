/* build_stack.c: builds on a stack of Weft's own (build_stack.h). */
#include "core/build_stack.h"

#include <pthread.h>

#define BUILD_STACK ((size_t)1 << 30)

typedef struct call {
  int (*fn)(void *arg);
  void *arg;
  int rc;
} call;

static void *run(void *arg) {
  call *c = arg;
  c->rc = c->fn(c->arg);
  return NULL;
}

int weft__on_build_stack(int (*fn)(void *arg), void *arg) {
  call c = {fn, arg, 0};
  pthread_attr_t attr;
  pthread_t thread;
  int started = !pthread_attr_init(&attr) &&
                !pthread_attr_setstacksize(&attr, BUILD_STACK) &&
                !pthread_create(&thread, &attr, run, &c);
  pthread_attr_destroy(&attr);
  if (started) pthread_join(thread, NULL);
  else run(&c);
  return c.rc;
}

/* One operation's arguments, whichever it is. */
typedef struct operation {
  weft_device *dev;
  const char *source, *options;
  const void *ir;
  size_t length;
  const weft_jit_header *headers;
  unsigned num_headers;
  weft_binary **out;
  void **ir_out;
  size_t *size_out;
  char **log;
} operation;

static int build(void *arg) {
  operation *o = arg;
  return o->dev->ops->build(o->dev, o->source, o->length, o->options, o->out,
                            o->log);
}

static int build_ir(void *arg) {
  operation *o = arg;
  return o->dev->ops->build_ir(o->dev, o->ir, o->length, o->options, o->out,
                               o->log);
}

static int compile(void *arg) {
  operation *o = arg;
  return o->dev->ops->compile(o->dev, o->source, o->length, o->options,
                              o->headers, o->num_headers, o->ir_out,
                              o->size_out, o->log);
}

int weft__device_build(weft_device *dev, const char *source, size_t length,
                       const char *options, weft_binary **out, char **log) {
  operation o = {.dev = dev, .source = source, .length = length,
                 .options = options, .out = out, .log = log};
  return weft__on_build_stack(build, &o);
}

int weft__device_build_ir(weft_device *dev, const void *ir, size_t size,
                          const char *options, weft_binary **out, char **log) {
  operation o = {.dev = dev, .ir = ir, .length = size, .options = options,
                 .out = out, .log = log};
  return weft__on_build_stack(build_ir, &o);
}

int weft__device_compile(weft_device *dev, const char *source, size_t length,
                         const char *options, const weft_jit_header *headers,
                         unsigned num_headers, void **ir, size_t *size,
                         char **log) {
  operation o = {.dev = dev, .source = source, .length = length,
                 .options = options, .headers = headers,
                 .num_headers = num_headers, .ir_out = ir, .size_out = size,
                 .log = log};
  return weft__on_build_stack(compile, &o);
}
