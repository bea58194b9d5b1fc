/*
 * wait_names.h: what a waiting work-group waits on (WEFT_WAIT_* in
 * jit/kernel_abi.h), in the words both devices' deadlock reports use.
 */
#ifndef WEFT_BACKEND_WAIT_NAMES_H
#define WEFT_BACKEND_WAIT_NAMES_H

#include <stdint.h>

/* "a mutex", "a semaphore", ...; "a word of memory" for anything else. */
const char *weft__wait_name(uint32_t what);

#endif
