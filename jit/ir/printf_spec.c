/* printf_spec.c: parsing printf conversion specifications (see
 * printf_spec.h). */
#include "jit/ir/printf_spec.h"

#include <string.h>

static int parse_number(const char **p) {
  int n = 0;
  while (**p >= '0' && **p <= '9' && n < 100000) n = n * 10 + (*(*p)++ - '0');
  return n;
}

/* Parses the specification after a '%'; 0 on success, -1 if invalid. */
static int parse_spec(const char **p, weft_printf_spec *s) {
  memset(s, 0, sizeof *s);
  s->width = s->precision = -1;
  size_t nf = 0;
  while (**p && strchr("-+ #0", **p) && nf < sizeof s->flags - 1)
    s->flags[nf++] = *(*p)++;
  if (**p >= '0' && **p <= '9') s->width = parse_number(p);
  if (**p == '.') {
    (*p)++;
    s->precision = parse_number(p);
  }
  if (**p == 'v') {
    (*p)++;
    s->vector = parse_number(p);
    if (s->vector != 2 && s->vector != 3 && s->vector != 4 && s->vector != 8 &&
        s->vector != 16)
      return -1;
  }
  if (!strncmp(*p, "hh", 2) || !strncmp(*p, "hl", 2)) {
    memcpy(s->length, *p, 2);
    *p += 2;
  } else if (**p == 'h' || **p == 'l') {
    s->length[0] = *(*p)++;
  }
  s->conversion = **p;
  if (!s->conversion || !strchr("diouxXcfFeEgGaAsp", s->conversion)) return -1;
  (*p)++;
  /* hl only qualifies vectors; vectors of %c, %s or %p do not exist. */
  if (!strcmp(s->length, "hl") && !s->vector) return -1;
  if (s->vector && strchr("csp", s->conversion)) return -1;
  return 0;
}

int weft__printf_next(const char **text, weft_printf_spec *s,
                      void (*emit)(void *arg, const char *s, unsigned long n),
                      void *arg) {
  const char *p = *text;
  for (;;) {
    const char *pct = strchr(p, '%');
    size_t plain = pct ? (size_t)(pct - p) : strlen(p);
    if (emit && plain) emit(arg, p, plain);
    if (!pct) {
      *text = p + plain;
      return 0;
    }
    p = pct + 1;
    if (*p != '%') break;
    if (emit) emit(arg, "%", 1);
    p++;
  }
  int rc = parse_spec(&p, s);
  *text = p;
  return rc ? -1 : 1;
}

unsigned weft__printf_element_size(const weft_printf_spec *s) {
  if (!strcmp(s->length, "hh")) return 1;
  if (!strcmp(s->length, "h")) return 2;
  if (!strcmp(s->length, "hl")) return 4;
  if (!strcmp(s->length, "l")) return 8;
  return 0;
}
