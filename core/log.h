/* log.h: WEFT_LOG's lines (log.c): whether a topic (WEFT_LOG_* of
 * config.h) is on, a line of it ("weft[TOPIC]: ..." on stderr, nothing
 * when off), and a clock for the times they report. */
#ifndef WEFT_CORE_LOG_H
#define WEFT_CORE_LOG_H

#include <stddef.h>

#include "core/config.h"

int weft__logging(unsigned topic);
void weft__log(unsigned topic, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
double weft__log_now(void);
/* The topics a word of WEFT_LOG names (length bytes at word), or 0. */
unsigned weft__log_topic(const char *word, size_t length);

#endif /* WEFT_CORE_LOG_H */
