/*
 * report_text.h: the words both devices' reports use (deadlocks, faults):
 * what a waiting work-group waits on (WEFT_WAIT_* in jit/kernel_abi.h),
 * and ids as OpenCL numbers them.
 */
#ifndef WEFT_BACKEND_COMMON_REPORT_TEXT_H
#define WEFT_BACKEND_COMMON_REPORT_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* "a mutex", "a semaphore", ...; "a word of memory" for anything else. */
const char *weft__wait_name(uint32_t what);

/* "(3)", "(3,1)" or "(3,1,0)": as many of v as dims; snprintf's answer. */
int weft__format_ids(char *out, size_t size, unsigned dims,
                     const uint64_t v[3]);

#endif
