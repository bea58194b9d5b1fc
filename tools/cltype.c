/* cltype.c: OpenCL C scalar and vector types for argument specs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cltype.h"

static const struct {
  const char *name;
  size_t size;
} scalars[] = {
    [CLTYPE_CHAR] = {"char", 1},     [CLTYPE_UCHAR] = {"uchar", 1},
    [CLTYPE_SHORT] = {"short", 2},   [CLTYPE_USHORT] = {"ushort", 2},
    [CLTYPE_INT] = {"int", 4},       [CLTYPE_UINT] = {"uint", 4},
    [CLTYPE_LONG] = {"long", 8},     [CLTYPE_ULONG] = {"ulong", 8},
    [CLTYPE_FLOAT] = {"float", 4},   [CLTYPE_DOUBLE] = {"double", 8},
};
#define NUM_SCALARS (sizeof scalars / sizeof *scalars)

/* Parses the vector width after a scalar name: "" is 1, else 2 3 4 8 16. */
static int parse_width(const char *text, size_t length, unsigned *width) {
  static const char *const widths[] = {"", "2", "3", "4", "8", "16"};
  static const unsigned values[] = {1, 2, 3, 4, 8, 16};
  for (size_t i = 0; i < sizeof widths / sizeof *widths; i++)
    if (strlen(widths[i]) == length && !strncmp(text, widths[i], length)) {
      *width = values[i];
      return 0;
    }
  return -1;
}

int cltype_parse(const char *text, size_t length, cltype *out) {
  for (size_t i = 0; i < NUM_SCALARS; i++) {
    size_t n = strlen(scalars[i].name);
    if (n <= length && !strncmp(text, scalars[i].name, n) &&
        !parse_width(text + n, length - n, &out->width)) {
      out->scalar = (cltype_scalar)i;
      return 0;
    }
  }
  return -1;
}

void cltype_name(cltype type, char *out, size_t size) {
  if (type.width == 1)
    snprintf(out, size, "%s", scalars[type.scalar].name);
  else
    snprintf(out, size, "%s%u", scalars[type.scalar].name, type.width);
}

size_t cltype_scalar_size(cltype_scalar scalar) { return scalars[scalar].size; }

int cltype_is_float(cltype_scalar scalar) {
  return scalar == CLTYPE_FLOAT || scalar == CLTYPE_DOUBLE;
}

static int is_signed(cltype_scalar scalar) {
  return scalar == CLTYPE_CHAR || scalar == CLTYPE_SHORT ||
         scalar == CLTYPE_INT || scalar == CLTYPE_LONG;
}

unsigned cltype_slots(cltype type) { return type.width == 3 ? 4 : type.width; }

size_t cltype_size(cltype type) {
  return cltype_scalar_size(type.scalar) * cltype_slots(type);
}

/* Stores the low bytes of v: on the little-endian hosts Weft runs on, this
 * is the two's-complement wrap an OpenCL C integer conversion performs. */
void cltype_store_integer(cltype_scalar scalar, uint64_t v, void *dst) {
  if (scalar == CLTYPE_FLOAT) {
    float f = (float)v;
    memcpy(dst, &f, sizeof f);
  } else if (scalar == CLTYPE_DOUBLE) {
    double d = (double)v;
    memcpy(dst, &d, sizeof d);
  } else {
    memcpy(dst, &v, cltype_scalar_size(scalar));
  }
}

void cltype_store_real(cltype_scalar scalar, double v, void *dst) {
  if (scalar == CLTYPE_FLOAT) {
    float f = (float)v;
    memcpy(dst, &f, sizeof f);
  } else if (scalar == CLTYPE_DOUBLE) {
    memcpy(dst, &v, sizeof v);
  } else {
    cltype_store_integer(scalar, (uint64_t)(int64_t)v, dst);
  }
}

static int parse_signed(cltype_scalar scalar, const char *text, void *dst) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 0);
  unsigned bits = 8 * (unsigned)cltype_scalar_size(scalar);
  long long max = bits == 64 ? INT64_MAX : (1LL << (bits - 1)) - 1;
  if (*end || errno || v > max || v < -max - 1) return -1;
  cltype_store_integer(scalar, (uint64_t)v, dst);
  return 0;
}

static int parse_unsigned(cltype_scalar scalar, const char *text, void *dst) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 0);
  unsigned bits = 8 * (unsigned)cltype_scalar_size(scalar);
  unsigned long long max = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
  /* strtoull accepts "-1" and wraps it; a negative unsigned is a mistake. */
  if (strchr(text, '-') || *end || errno || v > max) return -1;
  cltype_store_integer(scalar, v, dst);
  return 0;
}

static int parse_real(cltype_scalar scalar, const char *text, void *dst) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  /* ERANGE also flags underflow, which rounds to a fine denormal or zero. */
  if (*end || (errno == ERANGE && isinf(v))) return -1;
  if (scalar == CLTYPE_FLOAT && isinf((float)v) && !isinf(v)) return -1;
  cltype_store_real(scalar, v, dst);
  return 0;
}

int cltype_parse_scalar(cltype_scalar scalar, const char *text,
                        size_t length, void *dst) {
  char copy[64];
  if (length == 0 || length >= sizeof copy) return -1;
  memcpy(copy, text, length);
  copy[length] = 0;
  if (cltype_is_float(scalar)) return parse_real(scalar, copy, dst);
  if (is_signed(scalar)) return parse_signed(scalar, copy, dst);
  return parse_unsigned(scalar, copy, dst);
}

static void print_scalar(cltype_scalar scalar, const unsigned char *src,
                         FILE *out) {
  union {
    int8_t c; uint8_t uc; int16_t s; uint16_t us; int32_t i; uint32_t ui;
    int64_t l; uint64_t ul; float f; double d;
  } v;
  memcpy(&v, src, cltype_scalar_size(scalar));
  switch (scalar) {
  case CLTYPE_CHAR: fprintf(out, "%d", v.c); break;
  case CLTYPE_UCHAR: fprintf(out, "%u", v.uc); break;
  case CLTYPE_SHORT: fprintf(out, "%d", v.s); break;
  case CLTYPE_USHORT: fprintf(out, "%u", v.us); break;
  case CLTYPE_INT: fprintf(out, "%d", (int)v.i); break;
  case CLTYPE_UINT: fprintf(out, "%u", (unsigned)v.ui); break;
  case CLTYPE_LONG: fprintf(out, "%lld", (long long)v.l); break;
  case CLTYPE_ULONG: fprintf(out, "%llu", (unsigned long long)v.ul); break;
  case CLTYPE_FLOAT: fprintf(out, "%g", v.f); break;
  case CLTYPE_DOUBLE: fprintf(out, "%g", v.d); break;
  }
}

void cltype_print(cltype type, const void *src, FILE *out) {
  const unsigned char *bytes = src;
  size_t size = cltype_scalar_size(type.scalar);
  if (type.width == 1) {
    print_scalar(type.scalar, bytes, out);
    return;
  }
  fputc('(', out);
  for (unsigned c = 0; c < type.width; c++) {
    if (c) fputc(',', out);
    print_scalar(type.scalar, bytes + c * size, out);
  }
  fputc(')', out);
}
