/*
 * log.c: WEFT_LOG=device,build,cache,launch (or all): what Weft did and
 * why, a line each on stderr ("weft[build]: ..."), for a user asking why
 * a kernel builds or runs as it does, as PoCL's POCL_DEBUG answers. Off
 * by default; a line costs nothing when its topic is off.
 */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/config.h"

int weft__logging(unsigned topic) { return (weft__config()->log & topic) != 0; }

/* WEFT_LOG's words (config.c reads them with weft__log_topic). */
static const struct {
  const char *word;
  unsigned topics;
} topics[] = {{"device", WEFT_LOG_DEVICE}, {"build", WEFT_LOG_BUILD},
              {"cache", WEFT_LOG_CACHE},   {"launch", WEFT_LOG_LAUNCH},
              {"all", WEFT_LOG_ALL}};
#define NUM_TOPICS (sizeof topics / sizeof *topics)

unsigned weft__log_topic(const char *word, size_t length) {
  for (size_t i = 0; i < NUM_TOPICS; i++)
    if (strlen(topics[i].word) == length &&
        !strncmp(word, topics[i].word, length))
      return topics[i].topics;
  return 0;
}

static const char *topic_name(unsigned topic) {
  for (size_t i = 0; i < NUM_TOPICS; i++)
    if (topics[i].topics == topic) return topics[i].word;
  return "?";
}

void weft__log(unsigned topic, const char *format, ...) {
  if (!weft__logging(topic)) return;
  char line[1024];
  va_list ap;
  va_start(ap, format);
  vsnprintf(line, sizeof line, format, ap);
  va_end(ap);
  /* One call: lines of threads that log at once do not mix. */
  fprintf(stderr, "weft[%s]: %s\n", topic_name(topic), line);
}

double weft__log_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
