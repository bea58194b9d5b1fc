/* device_choice.c: --device, checked and found (see device_choice.h) by
 * the library's device names (weft_device_find). */
#include <stdio.h>
#include <string.h>

#include "device_choice.h"
#include "tool.h"

int tool_parse_device(const char *cmd, const char *text,
                      tool_device_choice *choice) {
  if (!text || weft_device_name_check(text)) {
    tool_usage_error(cmd, "--device '%s': expected an index, cpu, cuda or "
                     "cuda:N", text ? text : "");
    return -1;
  }
  choice->name = text;
  return 0;
}

int tool_find_device(const tool_device_choice *choice, weft_device **out) {
  return weft_device_find(choice->name, out);
}

void tool_describe_device(const tool_device_choice *choice, char *text,
                          size_t size) {
  const char *name = choice->name;
  if (name[0] >= '0' && name[0] <= '9')
    snprintf(text, size, "device %s", name);
  else if (!strcmp(name, "cpu"))
    snprintf(text, size, "the CPU device");
  else
    snprintf(text, size, "device '%s' (CUDA: %s)", name, weft_cuda_status());
}
