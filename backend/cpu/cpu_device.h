/*
 * cpu_device.h: the CPU device: the JIT for builds, the executor for
 * launches, host memory for buffers.
 */
#ifndef WEFT_BACKEND_CPU_CPU_DEVICE_H
#define WEFT_BACKEND_CPU_CPU_DEVICE_H

#include "backend/device.h"
#include "base/config.h"

/* Creates the CPU device; on failure *error is a malloc'd reason. */
int weft__cpu_device_create(const weft_config *config, weft_device **out,
                            char **error);

#endif
