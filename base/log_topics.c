/* log_topics.c: WEFT_LOG's words (see log_topics.h). */
#include "base/log_topics.h"

#include <string.h>

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

const char *weft__log_topic_name(unsigned topic) {
  for (size_t i = 0; i < NUM_TOPICS; i++)
    if (topics[i].topics == topic) return topics[i].word;
  return "?";
}
