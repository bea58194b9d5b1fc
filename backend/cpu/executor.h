/*
 * executor.h: running an NDRange on the CPU.
 *
 * Work-groups are handed out to the pool's workers in chunks. A group runs
 * its work-items one after another inside the work-group function, on the
 * worker's own stack and with no per-item state. At the first barrier() the
 * group switches to fibers (Clover's scheme): the work-item that reached it
 * keeps the thread's stack, every other work-item gets a fiber of its own,
 * and a barrier passes control to the next work-item in turn; the last one
 * to arrive resumes the first. A work-item that returns hands over to the
 * next; the group ends when all have returned.
 *
 * Barrier divergence (work-items reaching different barriers, or some
 * returning while others wait), crashes and stack overflows end the launch
 * with a report naming the kernel and the work-item.
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
