/*
 * cpu_device.h: the CPU device: the JIT for builds, the executor for
 * launches, host memory for buffers.
 */
#ifndef WEFT_BACKEND_CPU_CPU_DEVICE_H
#define WEFT_BACKEND_CPU_CPU_DEVICE_H

#include "backend/device.h"
#include "base/config.h"

/* The CPU back end's probe (backends.h): the one CPU device, made with
 * config; 1, or a negative status with a malloc'd reason in *error. */
int weft__cpu_probe(const weft_config *config, weft_device_made *out,
                    int max, char **error);

#endif
