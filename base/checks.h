/* checks.h: check mode's checks (WEFT_CHECK, -cl-weft-check=): what a
 * build instruments, as flags, and their words (checks.c), read both by
 * the configuration (config.c) and by the build options (jit/front/options.c). */
#ifndef WEFT_BASE_CHECKS_H
#define WEFT_BASE_CHECKS_H

#define WEFT_CHECK_MEMORY 1u   /* accesses within their object */
#define WEFT_CHECK_UNINIT 2u   /* reads of memory never written */
#define WEFT_CHECK_RACES 4u    /* accesses no barrier or atomic orders */
#define WEFT_CHECK_ALL (WEFT_CHECK_MEMORY | WEFT_CHECK_UNINIT | WEFT_CHECK_RACES)

/* A check list, "memory,uninit,races" or "all", as WEFT_CHECK_* flags in
 * *flags: 0, or -1 when a word is unknown or the list is empty. */
int weft__check_parse(const char *words, unsigned *flags);

/* What a check list may hold, for messages. */
#define WEFT_CHECK_WORDS "a comma-separated list of memory, uninit and races, or all"

#endif /* WEFT_BASE_CHECKS_H */
