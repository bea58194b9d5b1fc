/* program_ir.c: programs as the device's IR: binaries (Weft's container
 * around the IR), separate compilation and linking. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/build_stack.h"
#include "core/handles.h"
#include "jit/cache/cache.h"

/* The container: magic, format version, binary type, the device kind the
 * IR is for (the back end's name), a BLAKE3 hash of the IR (128 bits, as
 * hex digits), then the IR. The hash is checked before LLVM's reader sees
 * a byte: a damaged binary is refused, not read (LLVM's reader can crash
 * on damaged bitcode). */
#define BINARY_MAGIC "WEFTBIN\n"
#define BINARY_VERSION 2
typedef struct binary_header {
  char magic[8];
  uint32_t version;
  uint32_t type;
  char target[16];
  char checksum[32];
} binary_header;

static void checksum_of(const void *ir, size_t size, char out[32]) {
  weft_hasher h;
  weft__hash_init(&h);
  weft__hash_bytes(&h, ir, size);
  weft_cache_key key;
  weft__hash_key(&h, &key);
  memcpy(out, key.hex, 32);
}

/* LLVM bitcode starts with 'B', 'C', 0xc0, 0xde. */
static int is_bitcode(const unsigned char *p, size_t size) {
  return size >= 4 && p[0] == 'B' && p[1] == 'C' && p[2] == 0xc0 &&
         p[3] == 0xde;
}

/* Options OpenCL allows at link time (besides -create-library, handled
 * apart); they go to the build of the linked program. */
static const char *const link_options[] = {
    "-enable-link-options", "-cl-denorms-are-zero", "-cl-no-signed-zeros",
    "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
    "-cl-fast-relaxed-math", "-cl-no-subgroup-ifp",
};

int weft_program_create_binary(weft_context *c, const void *binary,
                               size_t size, weft_program **out) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT) || !out) return WEFT_EINVAL;
  const binary_header *h = binary;
  const char *target = c->device->ops->name;
  if (!binary || size < sizeof *h || memcmp(h->magic, BINARY_MAGIC, 8))
    return weft__fail(&c->object, WEFT_EINVAL, "not a Weft program binary");
  if (h->version != BINARY_VERSION)
    return weft__fail(&c->object, WEFT_EINVAL, "a program binary of another "
                      "version of Weft (%u; this one reads %u): build the "
                      "program from its source", h->version, BINARY_VERSION);
  char checksum[32];
  checksum_of(h + 1, size - sizeof *h, checksum);
  if (memcmp(checksum, h->checksum, sizeof checksum))
    return weft__fail(&c->object, WEFT_EINVAL, "the binary is damaged (its "
                      "checksum does not match)");
  if (h->type < WEFT_BINARY_OBJECT || h->type > WEFT_BINARY_EXECUTABLE ||
      strncmp(h->target, target, sizeof h->target) ||
      !is_bitcode((const unsigned char *)(h + 1), size - sizeof *h) ||
      c->device->ops->check_ir(c->device->state, h + 1, size - sizeof *h))
    return weft__fail(&c->object, WEFT_EINVAL, "the binary is damaged or for "
                      "another kind of device than '%s'", target);
  weft_program *p = weft__program_new(c);
  if (p) p->ir = malloc(size - sizeof *h);
  if (!p || !p->ir) {
    if (p) weft_program_release(p);
    return weft__fail(&c->object, WEFT_ENOMEM, "out of memory");
  }
  p->ir_size = size - sizeof *h;
  memcpy(p->ir, h + 1, p->ir_size);
  /* An executable's binary still has to be built into machine code; a
   * compiled object or library can be linked as it is. */
  p->binary_type = h->type == WEFT_BINARY_EXECUTABLE ? WEFT_BINARY_NONE
                                                      : (int)h->type;
  *out = p;
  return 0;
}

weft_program_binary_type weft_program_get_binary_type(weft_program *p) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM)) return WEFT_BINARY_NONE;
  weft__lock(&p->build_lock);
  weft_program_binary_type t = p->binary_type;
  weft__unlock(&p->build_lock);
  return t;
}

/* An executable built from source has no IR until asked for: compile it
 * with the build's options (build_lock held). */
static int make_ir(weft_program *p) {
  assert(weft__lock_held(&p->build_lock));
  weft_device *dev = p->context->device;
  char *log = NULL;
  int rc = weft__device_compile(dev, p->source, p->length, p->options, NULL,
                                0, &p->ir, &p->ir_size, &log);
  free(log);
  return rc;
}

int weft_program_get_binary(weft_program *p, void **binary, size_t *size) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM) || !binary || !size)
    return WEFT_EINVAL;
  weft__lock(&p->build_lock);
  int rc = 0;
  if (p->binary_type == WEFT_BINARY_NONE)
    rc = weft__fail(&p->object, WEFT_ENOTBUILT, "the program has no binary "
                    "before it is built or compiled");
  else if (!p->ir && make_ir(p))
    rc = weft__fail(&p->object, WEFT_EBUILD, "the program's IR cannot be "
                    "made again");
  binary_header h = {BINARY_MAGIC, BINARY_VERSION, (uint32_t)p->binary_type,
                     "", ""};
  snprintf(h.target, sizeof h.target, "%s", p->context->device->ops->name);
  if (!rc) checksum_of(p->ir, p->ir_size, h.checksum);
  unsigned char *out = rc ? NULL : malloc(sizeof h + p->ir_size);
  if (!rc && !out) rc = weft__fail(&p->object, WEFT_ENOMEM, "out of memory");
  if (!rc) {
    memcpy(out, &h, sizeof h);
    memcpy(out + sizeof h, p->ir, p->ir_size);
    *binary = out;
    *size = sizeof h + p->ir_size;
  }
  weft__unlock(&p->build_lock);
  return rc;
}

int weft_program_compile(weft_program *p, const char *options,
                         unsigned num_headers, const char *const *names,
                         const char *const *sources) {
  if (!weft__object_is(p, WEFT_KIND_PROGRAM)) return WEFT_EINVAL;
  if (num_headers && (!names || !sources))
    return weft__fail(&p->object, WEFT_EINVAL, "headers without names or "
                      "sources");
  weft_jit_header *headers = calloc(num_headers + 1, sizeof *headers);
  if (!headers) return weft__fail(&p->object, WEFT_ENOMEM, "out of memory");
  int rc = 0;
  for (unsigned i = 0; i < num_headers && !rc; i++) {
    if (!names[i] || !sources[i])
      rc = weft__fail(&p->object, WEFT_EINVAL, "header %u has no name or "
                      "no source", i);
    headers[i] = (weft_jit_header){names[i], sources[i]};
  }
  weft__lock(&p->build_lock);
  if (!rc && !p->source)
    rc = weft__fail(&p->object, WEFT_EINVAL, "only a program made from "
                    "source can be compiled");
  if (!rc && atomic_load(&p->num_kernels) > 0)
    rc = weft__fail(&p->object, WEFT_EINVAL, "the program cannot be compiled "
                    "while kernels made from it exist");
  if (!rc) rc = weft__program_reset(p);
  if (!rc) {
    free(p->ir);
    p->ir = NULL;
    weft__program_set_options(p, options);
    weft_device *dev = p->context->device;
    char *log = NULL;
    rc = weft__device_compile(dev, p->source, p->length, options, headers,
                              num_headers, &p->ir, &p->ir_size, &log);
    if (!rc) p->binary_type = WEFT_BINARY_OBJECT;
    rc = weft__program_done(p, rc, log, "compilation");
  }
  weft__unlock(&p->build_lock);
  free(headers);
  return rc;
}

/* Splits link options: *library set by -create-library; the rest, checked
 * against what OpenCL allows at link time, copied for the build. */
static int parse_link_options(weft_context *c, const char *options,
                              int *library, char **build_options) {
  *library = 0;
  *build_options = calloc(1, strlen(options ? options : "") + 1);
  if (!*build_options) return weft__fail(&c->object, WEFT_ENOMEM, "out of memory");
  for (const char *p = options ? options : ""; *p;) {
    p += strspn(p, " \t\n");
    size_t len = strcspn(p, " \t\n");
    if (!len) break;
    int known = len == 15 && !strncmp(p, "-create-library", len);
    *library |= known;
    for (size_t i = 0; !known && i < sizeof link_options / sizeof *link_options; i++)
      if (strlen(link_options[i]) == len && !strncmp(p, link_options[i], len)) {
        known = 1;
        strcat(strncat(*build_options, p, len), " ");
      }
    if (!known) {
      free(*build_options);
      return weft__fail(&c->object, WEFT_EOPTION, "'%.*s' is not a link "
                        "option", (int)len, p);
    }
    p += len;
  }
  return 0;
}

/* The inputs' IR, checked: objects or libraries of this context. */
static int gather_inputs(weft_context *c, unsigned count,
                         weft_program *const *inputs, const void **irs,
                         size_t *sizes) {
  for (unsigned i = 0; i < count; i++) {
    weft_program *in = inputs[i];
    if (!weft__object_is(in, WEFT_KIND_PROGRAM) || in->context != c)
      return weft__fail(&c->object, WEFT_EINVAL, "input %u is not a program "
                        "of this context", i);
    weft_program_binary_type t = weft_program_get_binary_type(in);
    if (t != WEFT_BINARY_OBJECT && t != WEFT_BINARY_LIBRARY)
      return weft__fail(&c->object, WEFT_ENOTBUILT, "input %u is not a "
                        "compiled object or a library", i);
    irs[i] = in->ir;
    sizes[i] = in->ir_size;
  }
  return 0;
}

int weft_program_link(weft_context *c, unsigned count,
                      weft_program *const *inputs, const char *options,
                      weft_program **out) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT) || !out) return WEFT_EINVAL;
  *out = NULL;
  if (!count || !inputs)
    return weft__fail(&c->object, WEFT_EINVAL, "nothing to link");
  int library;
  char *build_options;
  int rc = parse_link_options(c, options, &library, &build_options);
  if (rc) return rc;
  const void **irs = calloc(count, sizeof *irs);
  size_t *sizes = calloc(count, sizeof *sizes);
  weft_program *p = irs && sizes ? weft__program_new(c) : NULL;
  if (!p) rc = weft__fail(&c->object, WEFT_ENOMEM, "out of memory");
  if (!rc) rc = gather_inputs(c, count, inputs, irs, sizes);
  if (!rc) weft__program_set_options(p, options);
  weft_device *dev = c->device;
  char *log = NULL;
  if (!rc) {
    rc = dev->ops->link(dev->state, irs, sizes, count, &p->ir, &p->ir_size,
                        &log);
    if (!rc && library) p->binary_type = WEFT_BINARY_LIBRARY;
  }
  if (!rc && !library) {
    char *build_log = NULL;
    rc = weft__device_build_ir(dev, p->ir, p->ir_size, build_options,
                               &p->binary, &build_log);
    if (!rc) p->binary_type = WEFT_BINARY_EXECUTABLE;
    free(log);
    log = build_log;
  }
  free(irs);
  free(sizes);
  free(build_options);
  if (p && (p->ir || log)) {
    /* Linked, even if the build failed: the program carries the log. */
    rc = weft__program_done(p, rc, log, "link");
    if (rc) weft__fail(&c->object, rc, "%s", weft_errmsg(p));
    *out = p;
    return rc;
  }
  free(log);
  if (p) weft_program_release(p);
  return rc;
}
