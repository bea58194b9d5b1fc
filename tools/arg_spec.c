/* arg_spec.c: parsing `weft run --arg` specs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arg_spec.h"

#define TYPE_CHARS "abcdefghijklmnopqrstuvwxyz0123456789"
#define SPEC_FORMS "TYPE=VALUE, TYPE[N], TYPE[N]=INIT, local[BYTES] or " \
                   "'local TYPE[N]'"

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t size, const char *format, ...) {
  va_list ap;
  va_start(ap, format);
  vsnprintf(err, size, format, ap);
  va_end(ap);
  return -1;
}

static int parse_type(const char *text, size_t length, cltype *type,
                      char *err, size_t size) {
  if (!cltype_parse(text, length, type)) return 0;
  return fail(err, size, "unknown type '%.*s' (the types are char, uchar, "
              "short, ushort, int, uint, long, ulong, float and double, "
              "alone or as vectors of 2, 3, 4, 8 or 16)", (int)length, text);
}

/* Reads "V,V,..." into dst, one V per component of type. With broadcast, a
 * single V stands for every component. The padding of a vector of 3 is
 * left as it was (zero). */
static int parse_components(cltype type, const char *text, int broadcast,
                            unsigned char *dst, char *err, size_t size) {
  size_t scalar_size = cltype_scalar_size(type.scalar);
  char name[CLTYPE_NAME_MAX], scalar_name[CLTYPE_NAME_MAX];
  cltype_name(type, name, sizeof name);
  cltype_name((cltype){type.scalar, 1}, scalar_name, sizeof scalar_name);
  unsigned n = 0;
  const char *p = text;
  for (;;) {
    size_t length = strcspn(p, ",");
    if (n < type.width &&
        cltype_parse_scalar(type.scalar, p, length, dst + n * scalar_size))
      return fail(err, size, "'%.*s' is not a valid %s", (int)length, p,
                  scalar_name);
    n++;
    if (!p[length]) break;
    p += length + 1;
  }
  if (n == 1 && broadcast)
    for (unsigned c = 1; c < type.width; c++)
      memcpy(dst + c * scalar_size, dst, scalar_size);
  else if (n != type.width)
    return fail(err, size, "'%s' has %u component%s, but %s takes %u", text,
                n, n == 1 ? "" : "s", name, type.width);
  return 0;
}

/* Reads "[N]" at text into spec's count and bytes; *end is what follows. */
static int parse_array(const char *text, arg_spec *spec, const char **end,
                       char *err, size_t size) {
  char *after;
  errno = 0;
  unsigned long long n = text[0] == '[' && text[1] >= '0' && text[1] <= '9'
                             ? strtoull(text + 1, &after, 10)
                             : 0;
  if (n == 0 || errno || *after != ']')
    return fail(err, size, "expected a positive element count in brackets "
                "after the type, as in float[1024]");
  size_t element = cltype_size(spec->type);
  if (n > SIZE_MAX / element)
    return fail(err, size, "%llu elements of %zu bytes do not fit in memory",
                n, element);
  spec->count = (size_t)n;
  spec->bytes = (size_t)n * element;
  *end = after + 1;
  return 0;
}

/* "local[BYTES]" or "local TYPE[N]". */
static int parse_local(const char *text, arg_spec *spec, char *err,
                       size_t size) {
  const char *p = text + strlen("local");
  const char *end;
  spec->kind = ARG_SPEC_LOCAL;
  spec->type = (cltype){CLTYPE_UCHAR, 1};
  if (*p == ' ') {
    p += strspn(p, " ");
    size_t length = strspn(p, TYPE_CHARS);
    if (parse_type(p, length, &spec->type, err, size)) return -1;
    p += length;
  }
  if (parse_array(p, spec, &end, err, size)) return -1;
  if (*end)
    return fail(err, size, "unexpected '%s' after local memory; local "
                "memory starts undefined and takes no initializer", end);
  return 0;
}

static int parse_seed(const char *text, arg_spec *spec, char *err,
                      size_t size) {
  char *end;
  errno = 0;
  spec->seed = strtoull(text, &end, 0);
  spec->has_seed = 1;
  if (!*text || *end || errno || *text == '-')
    return fail(err, size, "'%s' is not a seed (a non-negative integer)",
                text);
  return 0;
}

/* The part after "TYPE[N]=". */
static int parse_init(const char *text, arg_spec *spec, char *err,
                      size_t size) {
  if (!strcmp(text, "iota")) {
    spec->init = ARG_INIT_IOTA;
  } else if (!strcmp(text, "random")) {
    spec->init = ARG_INIT_RANDOM;
  } else if (!strncmp(text, "random:", 7)) {
    spec->init = ARG_INIT_RANDOM;
    return parse_seed(text + 7, spec, err, size);
  } else if (!strncmp(text, "fill:", 5)) {
    spec->init = ARG_INIT_FILL;
    return parse_components(spec->type, text + 5, 1, spec->value, err, size);
  } else if (!strncmp(text, "file:", 5) && text[5]) {
    spec->init = ARG_INIT_FILE;
    spec->path = text + 5;
  } else if (!strcmp(text, "undefined")) {
    spec->init = ARG_INIT_UNDEFINED;
  } else {
    return fail(err, size, "unknown initializer '%s' (use iota, random, "
                "random:SEED, fill:V, file:PATH or undefined)", text);
  }
  return 0;
}

int arg_spec_parse(const char *text, arg_spec *spec, char *err, size_t size) {
  memset(spec, 0, sizeof *spec);
  spec->text = text;
  if (!strncmp(text, "local[", 6) || !strncmp(text, "local ", 6))
    return parse_local(text, spec, err, size);
  size_t length = strspn(text, TYPE_CHARS);
  if (length == 0 || (text[length] != '=' && text[length] != '['))
    return fail(err, size, "expected " SPEC_FORMS);
  if (parse_type(text, length, &spec->type, err, size)) return -1;
  if (text[length] == '=') {
    spec->kind = ARG_SPEC_VALUE;
    spec->bytes = cltype_size(spec->type);
    return parse_components(spec->type, text + length + 1, 0, spec->value,
                            err, size);
  }
  const char *end;
  spec->kind = ARG_SPEC_BUFFER;
  if (parse_array(text + length, spec, &end, err, size)) return -1;
  if (*end == '=') return parse_init(end + 1, spec, err, size);
  if (*end)
    return fail(err, size, "unexpected '%s' after the buffer; expected "
                "=INIT or nothing", end);
  return 0;
}
