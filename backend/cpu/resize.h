/*
 * resize.h: the cooperative scheduler's part for cooperative kernels
 * (resize.c), whose groups are killed and forked as they run: what
 * coop.c calls when a launch begins and ends and when a group starts.
 * The kernel's own calls are kernel_calls.h's.
 */
#ifndef WEFT_BACKEND_CPU_RESIZE_H
#define WEFT_BACKEND_CPU_RESIZE_H

#include <stdint.h>

#include "backend/cpu/executor_internal.h"

/* At the end of the cooperative state's setup: for a resizable kernel,
 * the groups it starts with (l->coop->starts) and its limits. */
void weft__resize_begin(launch_state *l);

/* Frees what forks not started left (after every worker returned). */
void weft__resize_end(launch_state *l);

/* Group g, the index-th the launch starts, is about to run (coop_lock
 * held; its transmit records at g->ctx.transmit): its context's fields
 * for the kernel's points, and its id (*id): index for the launch's own
 * groups, else the next fork's, whose records it takes. */
void weft__resize_start_group(launch_state *l, cpu_group *g, uint64_t index,
                              uint64_t *id);

/* Whether launch l, holding the pool, runs no more groups than it has
 * threads for now (share.c's demand taken): yes when it is not a
 * cooperative kernel's. Called under the executor's share_lock. */
int weft__resize_gathered(const launch_state *l);

/* Whether a group waiting on word waits in a resizing barrier. */
int weft__resize_is_barrier_word(const launch_state *l,
                                 const volatile uint32_t *word);

#endif
