/*
 * cl_weft.h: the host side of Weft's OpenCL extensions cl_weft_sync and
 * cl_weft_schedule, for programs written against CL/cl.h. The kernel side (weft_mutex,
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

/* Kinds of objects for clEnqueueInitSyncObjectWEFT. */
#define CL_SYNC_MUTEX_WEFT 1
#define CL_SYNC_SEMAPHORE_WEFT 2
#define CL_SYNC_BARRIER_WEFT 3

/* Writes a fresh mutex, semaphore or barrier at offset (a multiple of 4) in
 * buffer, as a command of queue ordered like clEnqueueWriteBuffer: a free
 * mutex, a semaphore with param free units (0 or more), or a barrier for
 * param work-groups (1 or more; param is 0 for a mutex). algorithm is one
 * of weft/kernel.h's WEFT_MUTEX_*, WEFT_SEMAPHORE_* or WEFT_BARRIER_*, 0
 * for the default of the program that uses it. The object's bytes are
 * those weft/kernel.h gives: 16, or WEFT_BARRIER_SIZE for a barrier.
 * Errors: CL_INVALID_VALUE for an unknown kind or algorithm, a param out of
 * range, an offset not a multiple of 4 or an object that overruns the
 * buffer (the context's callback says which), and those of
 * clEnqueueWriteBuffer.
 *
 * Not exported by name: get it with
 * clGetExtensionFunctionAddressForPlatform(platform,
 * "clEnqueueInitSyncObjectWEFT"). */
typedef cl_int(CL_API_CALL *clEnqueueInitSyncObjectWEFT_fn)(
    cl_command_queue queue, cl_mem buffer, size_t offset, cl_uint kind,
    cl_long param, cl_uint algorithm, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event);

/* cl_weft_schedule: schedule exploration (README, Schedule exploration)
 * from an OpenCL program, in one process: the mode is WEFT_SCHEDULE's, read
 * when Weft starts (it decides how kernels are built); these give each
 * launch its seed, step an exhaustive exploration and say what the last
 * launch's interleaving was. Not exported by name either: get each with
 * clGetExtensionFunctionAddressForPlatform. */
#define cl_weft_schedule 1

/* A command, ordered in queue like a marker: the launches after it run
 * under seed (they count from launch 1 of it), as weft_schedule_seed. */
typedef cl_int(CL_API_CALL *clEnqueueScheduleSeedWEFT_fn)(
    cl_command_queue queue, cl_ulong seed, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event);

/* Under WEFT_SCHEDULE=exhaustive[:BUDGET[:PREEMPTIONS[:full]]], once queue's
 * commands have finished: moves to the next interleaving; *status says
 * whether there is one (the next launch runs it), none is left, or the
 * budget ran out first. CL_INVALID_OPERATION under another mode, or when
 * the launch did not repeat the decisions it replayed (the context's
 * callback says which). */
#define CL_SCHEDULE_DONE_WEFT 0
#define CL_SCHEDULE_MORE_WEFT 1
#define CL_SCHEDULE_BUDGET_SPENT_WEFT 2
typedef cl_int(CL_API_CALL *clScheduleNextWEFT_fn)(cl_command_queue queue,
                                                   cl_int *status);

/* Once queue's commands have finished, a text about the last launch run
 * under a schedule mode, as clGetDeviceInfo gives a string: its
 * interleaving's last stretches (CL_SCHEDULE_HISTORY_WEFT), or, under
 * exhaustive exploration, the WEFT_SCHEDULE value that replays it alone
 * (CL_SCHEDULE_REPLAY_WEFT; "" under another mode). */
#define CL_SCHEDULE_HISTORY_WEFT 0x4F58
#define CL_SCHEDULE_REPLAY_WEFT 0x4F59
typedef cl_int(CL_API_CALL *clGetScheduleInfoWEFT_fn)(
    cl_command_queue queue, cl_uint param_name, size_t param_value_size,
    void *param_value, size_t *param_value_size_ret);

#ifdef __cplusplus
}
#endif

#endif
