/* device_name.h: a device name parsed (device_name.c): "cpu", "cuda" or
 * "gpu", "cuda:N", or an index. */
#ifndef WEFT_BASE_DEVICE_NAME_H
#define WEFT_BASE_DEVICE_NAME_H

#include "weft/weft.h"

typedef struct weft__device_name {
  int index;             /* a device index, or -1: the nth device of kind */
  weft_device_kind kind; /* WEFT_DEVICE_CPU or WEFT_DEVICE_GPU */
  int nth;
} weft__device_name;

/* 0 and *out set, or WEFT_EINVAL for a name of none of those forms. */
int weft__device_name_parse(const char *name, weft__device_name *out);

#endif
