/* log.h: WEFT_LOG's lines (log.c): whether a topic (WEFT_LOG_* of
 * log_topics.h) is on, a line of it ("weft[TOPIC]: ..." on stderr, nothing
 * when off), and a clock for the times they report. */
#ifndef WEFT_BASE_LOG_H
#define WEFT_BASE_LOG_H

#include <stddef.h>

#include "base/log_topics.h"

int weft__logging(unsigned topic);
void weft__log(unsigned topic, const char *format, ...)
    __attribute__((format(printf, 2, 3)));
double weft__log_now(void);

#endif /* WEFT_BASE_LOG_H */
