/*
 * device_choice.h: the --device option that `weft run` and the benchmarks
 * share: a device name as weft_device_find takes it (an index, cpu, cuda
 * or gpu, cuda:N for the Nth GPU), checked before anything is built and
 * found when the context is made.
 */
#ifndef WEFT_TOOL_DEVICE_CHOICE_H
#define WEFT_TOOL_DEVICE_CHOICE_H

#include <stddef.h>

#include "weft/weft.h"

typedef struct tool_device_choice {
  const char *name; /* weft_device_find's name (argv's, or a literal) */
} tool_device_choice;

/* Device 0 (the CPU, unless WEFT_DEVICE puts a GPU first): what a
 * command without --device uses. */
#define TOOL_DEVICE_DEFAULT ((tool_device_choice){"0"})

/* Checks --device's text for command cmd: 0, or -1 after a usage error. */
int tool_parse_device(const char *cmd, const char *text,
                      tool_device_choice *choice);

/* The device chosen: a Weft status (WEFT_ENODEV when there is none such). */
int tool_find_device(const tool_device_choice *choice, weft_device **out);

/* Words for the choice in an error: "device 2", or "device 'cuda:1'
 * (CUDA: <why there is none, or what there is>)". */
void tool_describe_device(const tool_device_choice *choice, char *text,
                          size_t size);

#endif /* WEFT_TOOL_DEVICE_CHOICE_H */
