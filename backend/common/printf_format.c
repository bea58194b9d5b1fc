/* printf_format.c: OpenCL C printf formatting (see printf_format.h). Each
 * conversion is handed to the C library's snprintf, element by element, so
 * the output is what the host's printf gives for the same values. */
#include "backend/common/printf_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/ir/printf_spec.h"

void weft__text_append(weft_text *t, const char *s, size_t n) {
  if (t->failed) return;
  if (t->length + n + 1 > t->capacity) {
    size_t capacity = t->capacity ? 2 * t->capacity : 256;
    while (capacity < t->length + n + 1) capacity *= 2;
    char *grown = realloc(t->data, capacity);
    if (!grown) {
      t->failed = 1;
      return;
    }
    t->data = grown;
    t->capacity = capacity;
  }
  memcpy(t->data + t->length, s, n);
  t->length += n;
  t->data[t->length] = 0;
}

void weft__text_free(weft_text *t) {
  free(t->data);
  *t = (weft_text){0};
}

/* The C format for one element: flags, width, precision, then length and
 * conversion as C spells them for the value passed. */
static void c_format(const weft_printf_spec *s, const char *length, char *out,
                     size_t size) {
  int n = snprintf(out, size, "%%%s", s->flags);
  if (s->width >= 0) n += snprintf(out + n, size - (size_t)n, "%d", s->width);
  if (s->precision >= 0)
    n += snprintf(out + n, size - (size_t)n, ".%d", s->precision);
  snprintf(out + n, size - (size_t)n, "%s%c", length, s->conversion);
}

static int is_signed_conversion(char c) { return c == 'd' || c == 'i'; }

/* An integer element, as the conversion and length modifier read it. */
static long long integer_of(const unsigned char *p, uint32_t size,
                            const weft_printf_spec *s) {
  long long v = 0;
  int is_signed = is_signed_conversion(s->conversion);
  int8_t i8;
  int16_t i16;
  int32_t i32;
  switch (size) {
  case 1:
    memcpy(&i8, p, 1);
    v = is_signed ? (long long)i8 : (long long)(uint8_t)i8;
    break;
  case 2:
    memcpy(&i16, p, 2);
    v = is_signed ? (long long)i16 : (long long)(uint16_t)i16;
    break;
  case 4:
    memcpy(&i32, p, 4);
    v = is_signed ? (long long)i32 : (long long)(uint32_t)i32;
    break;
  default: memcpy(&v, p, sizeof v); break;
  }
  /* hh and h convert the (promoted) value to char or short first. */
  if (!strcmp(s->length, "hh")) v = is_signed ? (signed char)v : (unsigned char)v;
  if (!strcmp(s->length, "h")) v = is_signed ? (short)v : (unsigned short)v;
  return v;
}

static double float_of(const unsigned char *p, uint32_t size) {
  if (size == 4) {
    float f;
    memcpy(&f, p, sizeof f);
    return f;
  }
  double d;
  memcpy(&d, p, sizeof d);
  return d;
}

/* snprintf of one value into t, however long the result. */
#define APPEND_FORMATTED(t, fmt, value)                                      \
  do {                                                                       \
    char small_[256];                                                        \
    int n_ = snprintf(small_, sizeof small_, fmt, value);                    \
    if (n_ < 0) return -1;                                                   \
    if ((size_t)n_ < sizeof small_) {                                        \
      weft__text_append(t, small_, (size_t)n_);                              \
    } else {                                                                 \
      char *big_ = malloc((size_t)n_ + 1);                                   \
      if (!big_) return -1;                                                  \
      snprintf(big_, (size_t)n_ + 1, fmt, value);                            \
      weft__text_append(t, big_, (size_t)n_);                                \
      free(big_);                                                            \
    }                                                                        \
  } while (0)

/* Formats one element of arg into t; -1 if the kinds do not match. */
static int format_element(weft_text *t, const weft_printf_spec *s,
                          const weft_printf_arg *a, const unsigned char *p) {
  char fmt[48];
  const void *ptr;
  switch (s->conversion) {
  case 'c':
    if (a->kind != WEFT_PRINTF_INT) return -1;
    c_format(s, "", fmt, sizeof fmt);
    APPEND_FORMATTED(t, fmt, (int)(unsigned char)integer_of(p, a->element_size, s));
    return 0;
  case 's':
  case 'p':
    if (a->kind != WEFT_PRINTF_POINTER) return -1;
    c_format(s, "", fmt, sizeof fmt);
    memcpy(&ptr, p, sizeof ptr);
    APPEND_FORMATTED(t, fmt, ptr);
    return 0;
  case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
    /* Half vectors would need cl_khr_fp16, which Weft does not report. */
    if (a->kind != WEFT_PRINTF_FLOAT || (a->element_size != 4 && a->element_size != 8))
      return -1;
    c_format(s, "", fmt, sizeof fmt);
    APPEND_FORMATTED(t, fmt, float_of(p, a->element_size));
    return 0;
  default: /* d i o u x X */
    if (a->kind != WEFT_PRINTF_INT) return -1;
    c_format(s, "ll", fmt, sizeof fmt);
    APPEND_FORMATTED(t, fmt, integer_of(p, a->element_size, s));
    return 0;
  }
}

/* Formats one conversion with its argument (all elements of a vector). */
static int format_arg(weft_text *t, const weft_printf_spec *s,
                      const weft_printf_arg *a, const unsigned char *values) {
  int elements = s->vector ? s->vector : 1;
  if ((uint32_t)elements != a->count) return -1;
  for (int i = 0; i < elements; i++) {
    if (i) weft__text_append(t, ",", 1);
    const unsigned char *p = values + a->offset + (size_t)i * a->element_size;
    if (format_element(t, s, a, p)) return -1;
  }
  return 0;
}

static void emit_text(void *t, const char *s, unsigned long n) {
  weft__text_append(t, s, n);
}

int weft__printf_format(weft_text *out, const char *format,
                        const weft_printf_arg *args, uint32_t num_args,
                        const unsigned char *values) {
  weft_text t = {0};
  uint32_t next = 0;
  int rc = 0, found;
  weft_printf_spec s;
  const char *p = format;
  while (!rc && (found = weft__printf_next(&p, &s, emit_text, &t)) != 0) {
    if (found < 0 || next >= num_args) rc = -1;
    else rc = format_arg(&t, &s, &args[next++], values);
  }
  if (!rc && !t.failed && t.length) weft__text_append(out, t.data, t.length);
  if (t.failed) rc = -1;
  weft__text_free(&t);
  return rc;
}
