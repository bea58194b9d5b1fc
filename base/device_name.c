/* device_name.c: device names (weft.h: weft_device_name_check), parsed
 * once for WEFT_DEVICE (config.c) and, through weft_device_find
 * (core/device.c), the weft tool's --device alike. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/device_name.h"

/* A whole decimal number of at most max: 1 and *out set, or 0. */
static int parse_number(const char *text, unsigned long max,
                        unsigned long *out) {
  if (*text < '0' || *text > '9') return 0;
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(text, &end, 10);
  if (*end || errno || v > max) return 0;
  *out = v;
  return 1;
}

int weft__device_name_parse(const char *name, weft__device_name *out) {
  unsigned long n = 0;
  if (!name) return WEFT_EINVAL;
  if (parse_number(name, 0x7fffffff, &n))
    *out = (weft__device_name){(int)n, WEFT_DEVICE_CPU, 0};
  else if (!strcmp(name, "cpu"))
    *out = (weft__device_name){-1, WEFT_DEVICE_CPU, 0};
  else if (!strcmp(name, "cuda") || !strcmp(name, "gpu"))
    *out = (weft__device_name){-1, WEFT_DEVICE_GPU, 0};
  else if (!strncmp(name, "cuda:", 5) && parse_number(name + 5, 63, &n))
    *out = (weft__device_name){-1, WEFT_DEVICE_GPU, (int)n};
  else
    return WEFT_EINVAL;
  return 0;
}

int weft_device_name_check(const char *name) {
  weft__device_name parsed;
  return weft__device_name_parse(name, &parsed);
}
