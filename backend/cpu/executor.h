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

/* Divergence in a region-scheduled kernel (kernel_abi.h). */
_Noreturn void weft__cpu_region_diverged(weft_wg_ctx *ctx,
                                         const int32_t *next_states);

/* The printf output buffer of the worker running ctx's group. */
struct weft_text *weft__executor_output(weft_wg_ctx *ctx);

/* Writes a printf buffer to stdout and empties it (printf.c). */
void weft__cpu_output_flush(struct weft_text *out);

/* printf() in generated code (kernel_abi.h: WEFT_PRINTF_SYMBOL). */
int32_t weft__cpu_printf(weft_wg_ctx *ctx, const char *format,
                         const weft_printf_arg *args, uint32_t num_args,
                         const void *values);

/* Where a generic pointer points (kernel_abi.h: WEFT_ADDRESS_SPACE_SYMBOL). */
uint32_t weft__cpu_address_space(weft_wg_ctx *ctx, const void *p);

/* Inter-work-group synchronization in generated code (kernel_abi.h:
 * WEFT_YIELD_SYMBOL and the others; coop.c). */
void weft__cpu_yield(weft_wg_ctx *ctx);
void weft__cpu_wait(weft_wg_ctx *ctx, volatile uint32_t *word,
                    uint32_t expected, uint32_t what);
void weft__cpu_wake(weft_wg_ctx *ctx, volatile uint32_t *word, uint32_t count);
void weft__cpu_poll(weft_wg_ctx *ctx, volatile uint32_t *word, uint32_t seen,
                    uint32_t what);
void weft__cpu_sched_point(weft_wg_ctx *ctx, const void *p, uint32_t info);

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

/* An access that failed its check, in generated code (kernel_abi.h:
 * WEFT_CHECK_FAILED_SYMBOL; check_report.c). */
void weft__cpu_check_failed(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                            uint64_t lz, uint32_t site, int64_t offset,
                            uint64_t size);

/* Check mode's races, in generated code (kernel_abi.h:
 * WEFT_RACE_ACCESS_SYMBOL, WEFT_RACE_SYNC_SYMBOL; check_races.c). */
void weft__cpu_race_access(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                           uint64_t lz, uint32_t site, uint32_t what,
                           int64_t offset, uint64_t cell, uint64_t size,
                           uint32_t epoch);
void weft__cpu_race_sync(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                         uint64_t lz);

/* A loop's stop point met with the stop word set (kernel_abi.h:
 * WEFT_STOPPED_SYMBOL; watchdog.c). */
void weft__cpu_stopped(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                       uint64_t lz, uint32_t site);

/* WEFT_MEMORY=weak in generated code (kernel_abi.h: WEFT_WEAK_*_SYMBOL;
 * weak_memory.c): a plain store and load of global memory through the
 * group's store buffer; a drain of the entries overlapping [p, p + size)
 * (p NULL: all); a work-item's return. */
void weft__cpu_weak_store(weft_wg_ctx *ctx, void *p, const void *value,
                          uint64_t size);
void weft__cpu_weak_load(weft_wg_ctx *ctx, const void *p, void *out,
                         uint64_t size);
void weft__cpu_weak_drain(weft_wg_ctx *ctx, const void *p, uint64_t size);
void weft__cpu_weak_exit(weft_wg_ctx *ctx);

/* weft_assert's failure in generated code (kernel_abi.h:
 * WEFT_ASSERT_SYMBOL): ends the launch with a report; does not return. */
_Noreturn void weft__cpu_assert_failed(weft_wg_ctx *ctx, uint64_t lx,
                                       uint64_t ly, uint64_t lz,
                                       const char *condition, uint32_t site);

/* barrier() in generated code (kernel_abi.h: WEFT_BARRIER_SYMBOL). */
void weft__cpu_barrier(weft_wg_ctx *ctx, uint64_t lx, uint64_t ly,
                       uint64_t lz, uint32_t flags, uint32_t site);

#endif
