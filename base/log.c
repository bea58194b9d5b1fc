/*
 * log.c: WEFT_LOG=device,build,cache,launch (or all): what Weft did and
 * why, a line each on stderr ("weft[build]: ..."), for a user asking why
 * a kernel builds or runs as it does, as PoCL's POCL_DEBUG answers. Off
 * by default; a line costs nothing when its topic is off.
 */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "base/config.h"

int weft__logging(unsigned topic) { return (weft__config()->log & topic) != 0; }

void weft__log(unsigned topic, const char *format, ...) {
  if (!weft__logging(topic)) return;
  char line[1024];
  va_list ap;
  va_start(ap, format);
  vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  /* One call: lines of threads that log at once do not mix. */
  fprintf(stderr, "weft[%s]: %s\n", weft__log_topic_name(topic), line);
}

double weft__log_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
