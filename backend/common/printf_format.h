/*
 * printf_format.h: OpenCL C's printf (§6.15.14), formatted on the host.
 *
 * The JIT turns each printf call into a call with the format, a table that
 * describes each argument (kernel_abi.h: weft_printf_arg) and a block with
 * their values. This formats them as the specification says: the C
 * conversions, plus the vector specifier (%v4hlf: the elements formatted
 * alike and joined by commas). Any back end formats with it.
 */
#ifndef WEFT_BACKEND_COMMON_PRINTF_FORMAT_H
#define WEFT_BACKEND_COMMON_PRINTF_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "jit/kernel_abi.h"

/* Text that grows (the output of a worker, or of one printf). */
typedef struct weft_text {
  char *data;
  size_t length, capacity;
  int failed; /* out of memory: what was appended after is lost */
} weft_text;

void weft__text_append(weft_text *t, const char *s, size_t n);
void weft__text_free(weft_text *t);

/* Appends the formatted output to out. Returns 0, or -1 (and appends
 * nothing) when the format is invalid or does not match the arguments:
 * printf's return value. */
int weft__printf_format(weft_text *out, const char *format,
                        const weft_printf_arg *args, uint32_t num_args,
                        const unsigned char *values);

#endif
