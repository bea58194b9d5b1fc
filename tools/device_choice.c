/* device_choice.c: --device, parsed and found (see device_choice.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_choice.h"
#include "tool.h"

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

int tool_parse_device(const char *cmd, const char *text,
                      tool_device_choice *choice) {
  unsigned long n = 0;
  if (!text) text = "";
  if (parse_number(text, 0x7fffffff, &n)) {
    *choice = (tool_device_choice){(int)n, WEFT_DEVICE_CPU, 0};
    return 0;
  }
  if (!strcmp(text, "cpu")) {
    *choice = (tool_device_choice){-1, WEFT_DEVICE_CPU, 0};
    return 0;
  }
  if (!strcmp(text, "cuda") || !strcmp(text, "gpu")) {
    *choice = (tool_device_choice){-1, WEFT_DEVICE_GPU, 0};
    return 0;
  }
  if (!strncmp(text, "cuda:", 5) && parse_number(text + 5, 63, &n)) {
    *choice = (tool_device_choice){-1, WEFT_DEVICE_GPU, (int)n};
    return 0;
  }
  tool_usage_error(cmd, "--device '%s': expected an index, cpu, cuda or "
                   "cuda:N", text);
  return -1;
}

int tool_find_device(const tool_device_choice *choice, weft_device **out) {
  if (choice->index >= 0) return weft_device_get(choice->index, out);
  int count = weft_device_count(), nth = choice->nth;
  for (int i = 0; i < count; i++) {
    weft_device_info info;
    if (weft_device_get(i, out) || weft_device_info_get(*out, &info)) continue;
    if ((int)info.kind == choice->kind && nth-- == 0) return 0;
  }
  return count < 0 ? count : WEFT_ENODEV;
}

void tool_describe_device(const tool_device_choice *choice, char *text,
                          size_t size) {
  if (choice->index >= 0)
    snprintf(text, size, "device %d", choice->index);
  else if (choice->kind == WEFT_DEVICE_CPU)
    snprintf(text, size, "CPU device %d", choice->nth);
  else
    snprintf(text, size, "CUDA device %d (CUDA: %s)", choice->nth,
             weft_cuda_status());
}
