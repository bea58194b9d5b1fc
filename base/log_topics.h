/* log_topics.h: WEFT_LOG's topics and their words (log_topics.c), shared
 * by the reader of WEFT_LOG (config.c) and the writer of its lines
 * (log.c), so that neither includes the other. */
#ifndef WEFT_BASE_LOG_TOPICS_H
#define WEFT_BASE_LOG_TOPICS_H

#include <stddef.h>

#define WEFT_LOG_DEVICE 1u  /* the devices found, and the settings read */
#define WEFT_LOG_BUILD 2u   /* each build: options, time, result */
#define WEFT_LOG_CACHE 4u   /* where each build came from */
#define WEFT_LOG_LAUNCH 8u  /* each launch: sizes, how it runs, time */
#define WEFT_LOG_ALL 15u

/* The topics a word of WEFT_LOG names (length bytes at word), or 0. */
unsigned weft__log_topic(const char *word, size_t length);
/* The word of one topic ("build"), "?" for none. */
const char *weft__log_topic_name(unsigned topic);

#endif /* WEFT_BASE_LOG_TOPICS_H */
