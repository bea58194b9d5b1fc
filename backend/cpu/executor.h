/*
 * executor.h: running an NDRange on the CPU, the executor's face to the
 * CPU device (cpu_device.c). Inside backend/cpu the executor (executor.c:
 * worker threads, their stacks and fault handling) runs each launch under
 * a scheduler (scheduler.h: chunked, or cooperative for kernels whose
 * work-groups wait for each other), which hands work-groups to the group
 * runner (group.c: work-items one after another, on fibers after a
 * barrier, or interleaved at random). Barrier divergence, crashes, stack
 * overflows and deadlocks end the launch with a report naming the kernel
 * and the work-item (launch_report.c); the functions generated code calls
 * are in kernel_calls.h.
 */
#ifndef WEFT_BACKEND_CPU_EXECUTOR_H
#define WEFT_BACKEND_CPU_EXECUTOR_H

#include "backend/device.h"
#include "base/config.h"

typedef struct weft_executor weft_executor;

int weft__executor_create(const weft_config *config, weft_executor **out);
void weft__executor_destroy(weft_executor *executor);
unsigned weft__executor_threads(const weft_executor *executor);

/* The most cooperative work-groups resident at once (WEFT_RESIDENT_GROUPS
 * when set). */
unsigned weft__executor_max_resident(const weft_executor *executor);

/* Runs a launch to completion; on failure msg says what happened where. */
int weft__executor_run(weft_executor *executor, const weft_launch_desc *launch,
                       weft_msg *msg);

/* The seed of random schedules (WEFT_SCHEDULE), from the next launch on:
 * the launches after it are numbered from 1 again. */
void weft__executor_schedule_seed(weft_executor *e, unsigned long long seed);

/* WEFT_SCHEDULE=exhaustive (explore.c): the next interleaving
 * (weft_schedule_next's results), and the last launch's as
 * "replay:POS=CHOICE,..." with the number explored; WEFT_EINVAL under
 * another mode. */
int weft__executor_schedule_next(weft_executor *e);
int weft__executor_schedule_replay(weft_executor *e, char *out, size_t size,
                                   unsigned long long *explored);
/* Under exhaustive: the launches explored, and how many of them repeated
 * one explored before up to the order of independent steps; WEFT_EINVAL
 * under another schedule. */
int weft__executor_schedule_counts(weft_executor *e, unsigned long long *runs,
                                   unsigned long long *repeats);

/* The last schedule-mode launch's interleaving, summarized (one line per
 * stretch a work-item ran; "" before any): schedule_trace.c. */
void weft__executor_schedule_history(weft_executor *e, char *out,
                                     size_t size);

#endif
