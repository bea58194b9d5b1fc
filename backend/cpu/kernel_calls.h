/*
 * kernel_calls.h: the CPU runtime's functions that generated code calls
 * (kernel_abi.h names each symbol), the top of the CPU back end: barriers,
 * printf, the waits of work-groups that wait for each other, check mode,
 * stop points, weak memory, assertions. cpu_device.c hands them to the
 * JIT; each is defined in the file its comment names.
 */
#ifndef WEFT_BACKEND_CPU_KERNEL_CALLS_H
#define WEFT_BACKEND_CPU_KERNEL_CALLS_H

#include <stdint.h>

#include "jit/kernel_abi.h"

struct weft_text;

/* Divergence in a region-scheduled kernel (kernel_abi.h). */
_Noreturn void weft__cpu_region_diverged(weft_wg_ctx *ctx,
                                         const int32_t *next_states);

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

/* A cooperative kernel's point and query_kill() in generated code
 * (kernel_abi.h: WEFT_COOP_POINT_SYMBOL, WEFT_QUERY_KILL_SYMBOL;
 * resize.c). */
void weft__cpu_coop_point(weft_wg_ctx *ctx, uint32_t kind, uint32_t site);
uint32_t weft__cpu_query_kill(weft_wg_ctx *ctx);

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

/* A sub-group's converge point (kernel_abi.h: WEFT_CONVERGE_SYMBOL;
 * sub_group.c). */
uint32_t weft__cpu_sub_group_converge(weft_wg_ctx *ctx, uint64_t lx,
                                      uint64_t ly, uint64_t lz,
                                      uint32_t site);

/* A sub-group whose lanes parted ways at a uniform sub-group function
 * (kernel_abi.h: WEFT_LANES_PARTED_SYMBOL; sub_group.c). */
_Noreturn void weft__cpu_lanes_parted(weft_wg_ctx *ctx);

#endif /* WEFT_BACKEND_CPU_KERNEL_CALLS_H */
