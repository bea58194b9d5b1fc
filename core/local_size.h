/* local_size.h: the work-group size Weft chooses where a launch gives
 * none (a NULL local size, no reqd_work_group_size): for a CPU, enough
 * groups to balance the threads; for a GPU, blocks of a few warps. No
 * state: the device's description decides. */
#ifndef WEFT_CORE_LOCAL_SIZE_H
#define WEFT_CORE_LOCAL_SIZE_H

#include <stddef.h>

#include "weft/weft.h"

/* Fills local[0..3) for a launch of dims dimensions over global[0..dims)
 * on the device info describes: each entry divides its global size (as
 * OpenCL 1.2 requires; 1 past dims), stays within the device's limits,
 * and their product within max_work_group_size. On a CPU, an x size that
 * is a multiple of multiple where the global x size is one (a kernel
 * whose whole sub-groups run side by side: its width; else 1). */
void weft__local_size_suggest(const weft_device_info *info, unsigned dims,
                              const size_t *global, size_t multiple,
                              size_t *local);

#endif
