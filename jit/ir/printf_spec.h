/*
 * printf_spec.h: the conversion specifications of OpenCL C's printf
 * (§6.15.14.2): %[flags][width][.precision][vector][length]conversion.
 * The JIT reads them to learn the vector arguments' types (the x86-64
 * calling convention passes a small vector as a double or an integer);
 * the back end reads them to format. Plain C, no LLVM.
 */
#ifndef WEFT_JIT_PRINTF_SPEC_H
#define WEFT_JIT_PRINTF_SPEC_H

typedef struct weft_printf_spec {
  char flags[8];
  int width, precision; /* -1: not given */
  int vector;           /* elements asked for by the v specifier; 0: none */
  char length[3];       /* "", "hh", "h", "hl", "l" */
  char conversion;      /* one of diouxXcfFeEgGaAsp */
} weft_printf_spec;

/* Finds the next conversion in the format from *text: copies the plain
 * text before it (with %% as %) through emit (when not NULL), parses it
 * into s and moves *text past it. Returns 1 for a conversion, 0 at the
 * end of the format, -1 for an invalid specification. */
int weft__printf_next(const char **text, weft_printf_spec *s,
                      void (*emit)(void *arg, const char *s, unsigned long n),
                      void *arg);

/* The bytes of one element the length modifier names (1 for hh, 2 for h,
 * 4 for hl, 8 for l), or 0 when it names none. */
unsigned weft__printf_element_size(const weft_printf_spec *s);

#endif
