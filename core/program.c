/* program.c: programs: source, build, log, kernel names. Binaries,
 * separate compilation and linking are in program_ir.c. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buffer_shadow.h"
#include "core/build_stack.h"
#include "core/handles.h"

int weft_program_create(weft_context *c, const char *source, size_t length,
                        weft_program **out) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT) || !out) return WEFT_EINVAL;
  if (!source) return weft__fail(&c->object, WEFT_EINVAL, "NULL source");
  if (!length) length = strlen(source);
  weft_program *p = weft__program_new(c);
  if (p && !(p->source = malloc(length + 1))) {
    weft_program_release(p);
    p = NULL;
  }
  if (!p) return weft__fail(&c->object, WEFT_ENOMEM, "out of memory");
  memcpy(p->source, source, length);
  p->source[length] = 0;
  p->length = length;
  *out = p;
  return 0;
}

weft_program *weft__program_new(weft_context *c) {
  weft_program *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  weft__object_init(&p->object, WEFT_KIND_PROGRAM);
  weft__lock_init(&p->build_lock, NULL);
  p->context = c;
  weft_context_retain(c);
  return p;
}

void weft_program_retain(weft_program *p) {
  if (weft__object_is(p, WEFT_KIND_PROGRAM)) weft__object_retain(&p->object);
}

void weft_program_release(weft_program *p) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM) || !weft__object_release(&p->object))
    return;
  weft_device *dev = p->context->device;
  if (p->binary) dev->ops->binary_free(dev->state, p->binary);
  for (unsigned i = 0; i < p->num_retired; i++)
    dev->ops->binary_free(dev->state, p->retired[i]);
  free(p->retired);
  weft_context *c = p->context;
  free(p->log);
  free(p->options);
  free(p->ir);
  free(p->source);
  weft__lock_destroy(&p->build_lock);
  weft__object_fini(&p->object);
  free(p);
  weft_context_release(c);
}

/* The first line of the log that reports an error (or else its first
 * line), for the message. */
static void first_error(const char *log, char *out, size_t size) {
  const char *line = strstr(log, "error:");
  if (!line) line = log;
  if (!*line) {
    snprintf(out, size, "see the build log");
    return;
  }
  while (line > log && line[-1] != '\n') line--;
  size_t n = strcspn(line, "\n");
  snprintf(out, size, "%.*s", (int)n, line);
}

int weft__program_done(weft_program *p, int rc, char *log, const char *what) {
  free(p->log);
  p->log = log;
  if (!rc && p->binary) weft__shadow_program_built(p->binary);
  if (!rc) return 0;
  char line[WEFT_MSG_MAX - 32];
  first_error(log ? log : "", line, sizeof line);
  return weft__fail(&p->object, rc, "%s failed: %s", what, line);
}

int weft__program_reset(weft_program *p) {
  assert(weft__lock_held(&p->build_lock));
  weft_device *dev = p->context->device;
  if (p->binary && atomic_load(&p->num_clones) > 0) {
    weft_binary **grown = realloc(p->retired, (p->num_retired + 1) * sizeof *grown);
    if (!grown) return weft__fail(&p->object, WEFT_ENOMEM, "out of memory");
    p->retired = grown;
    p->retired[p->num_retired++] = p->binary;
  } else if (p->binary) {
    dev->ops->binary_free(dev->state, p->binary);
  }
  p->binary = NULL;
  p->binary_type = WEFT_BINARY_NONE;
  return 0;
}

void weft__program_set_options(weft_program *p, const char *options) {
  char *copy = strdup(options ? options : "");
  pthread_mutex_lock(&p->object.lock);
  free(p->options);
  p->options = copy; /* NULL only out of memory: read as "" */
  pthread_mutex_unlock(&p->object.lock);
}

const char *weft_program_source(weft_program *p, size_t *length) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM)) return NULL;
  if (length) *length = p->source ? p->length : 0;
  return p->source;
}

long weft_program_options(weft_program *p, char *out, size_t size) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM) || (!out && size))
    return WEFT_EINVAL;
  pthread_mutex_lock(&p->object.lock);
  const char *o = p->options ? p->options : "";
  size_t n = strlen(o) + 1;
  if (size) {
    size_t take = n <= size ? n - 1 : size - 1;
    memcpy(out, o, take);
    out[take] = 0;
  }
  pthread_mutex_unlock(&p->object.lock);
  return (long)n;
}

int weft_program_build(weft_program *p, const char *options) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM)) return WEFT_EINVAL;
  weft__lock(&p->build_lock);
  if (atomic_load(&p->num_kernels) > 0) {
    weft__unlock(&p->build_lock);
    return weft__fail(&p->object, WEFT_EINVAL, "the program cannot be rebuilt "
                      "while kernels made from it exist");
  }
  int rc = weft__program_reset(p);
  if (rc) {
    weft__unlock(&p->build_lock);
    return rc;
  }
  if (p->source) {
    /* IR compiled earlier with other options no longer describes it. */
    free(p->ir);
    p->ir = NULL;
  }
  weft__program_set_options(p, options);
  weft_device *dev = p->context->device;
  weft_binary *binary = NULL;
  char *log = NULL;
  rc = p->source ? weft__device_build(dev, p->source, p->length, options,
                                      &binary, &log)
                 : weft__device_build_ir(dev, p->ir, p->ir_size, options,
                                         &binary, &log);
  p->binary = binary;
  if (!rc) p->binary_type = WEFT_BINARY_EXECUTABLE;
  rc = weft__program_done(p, rc, log, "build");
  weft__unlock(&p->build_lock);
  return rc;
}

int weft_program_build_cached(weft_program *p) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM)) return WEFT_EINVAL;
  weft__lock(&p->build_lock);
  int from = p->binary ? p->binary->from_cache : WEFT_ENOTBUILT;
  weft__unlock(&p->build_lock);
  return from;
}

const char *weft_program_build_log(weft_program *p) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM)) return "";
  return p->log ? p->log : "";
}

int weft_program_global_variables_size(weft_program *p, size_t *size) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM) || !size) return WEFT_EINVAL;
  if (!p->binary)
    return weft__fail(&p->object, WEFT_ENOTBUILT, "the program is not built");
  *size = p->binary->global_vars_size;
  return 0;
}

int weft_program_kernel_count(weft_program *p) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM)) return WEFT_EINVAL;
  if (!p->binary)
    return weft__fail(&p->object, WEFT_ENOTBUILT, "the program is not built");
  return (int)p->binary->num_kernels;
}

const char *weft_program_kernel_name(weft_program *p, int index) {
  if (weft_program_kernel_count(p) <= index || index < 0) return NULL;
  return p->binary->kernels[index].name;
}
