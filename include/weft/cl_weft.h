/*
 * cl_weft.h: the host side of Weft's OpenCL extension cl_weft_sync, for
 * programs written against CL/cl.h. The kernel side (weft_mutex,
 * weft_semaphore, weft_global_barrier ...) is in weft/kernel.h, which every
 * kernel Weft builds sees.
 *
 * A device that lists cl_weft_sync in CL_DEVICE_EXTENSIONS answers the
 * query below. The enum is Weft's own, not registered with Khronos: ask
 * only a device that lists the extension.
 */
#ifndef WEFT_CL_WEFT_H
#define WEFT_CL_WEFT_H

#include <CL/cl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define cl_weft_sync 1

/* clGetDeviceInfo, a size_t: the most work-groups of one launch that can be
 * resident at once. A kernel whose work-groups wait for each other (a
 * global barrier above all) needs all its groups resident; past this
 * number, such a launch fails (CL_INVALID_WORK_GROUP_SIZE) or deadlocks as
 * it would on a GPU with that occupancy. */
#define CL_DEVICE_MAX_RESIDENT_GROUPS_WEFT 0x4F57

#ifdef __cplusplus
}
#endif

#endif
