/* printf.c: printf() from kernels on the CPU. Each worker formats into a
 * buffer of its own, so work-items never wait on each other to print and
 * one work-item's lines stay in its order; the buffers go to stdout when
 * the launch ends (crashed or not), or sooner when one grows large. */
#include <stdio.h>

#include "backend/common/printf_format.h"
#include "backend/cpu/executor_internal.h"

/* A worker's buffer is written out once it holds this much. */
#define FLUSH_AT (1u << 20)

void weft__cpu_output_flush(weft_text *out) {
  if (!out->length) return;
  flockfile(stdout);
  fwrite(out->data, 1, out->length, stdout);
  fflush(stdout);
  funlockfile(stdout);
  out->length = 0;
  out->failed = 0;
}

int32_t weft__cpu_printf(weft_wg_ctx *ctx, const char *format,
                         const weft_printf_arg *args, uint32_t num_args,
                         const void *values) {
  weft_text *out = weft__group_output(ctx);
  int rc = weft__printf_format(out, format, args, num_args, values);
  if (out->length >= FLUSH_AT) weft__cpu_output_flush(out);
  return rc;
}
