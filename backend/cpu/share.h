/*
 * share.h: the CPU's threads shared between a cooperative kernel that
 * holds the pool and the launches that come meanwhile (share.c): the
 * executor's calls when it is made and freed and around a launch, and
 * resize.c's, which sizes the kernel to what is left.
 */
#ifndef WEFT_BACKEND_CPU_SHARE_H
#define WEFT_BACKEND_CPU_SHARE_H

#include "backend/cpu/executor_internal.h"

void weft__share_init(weft_executor *e);
/* Frees the guest pool, if one was made. */
void weft__share_fini(weft_executor *e);

/* Launch l, a cooperative kernel's, holds e's pool from now on, until
 * release (after its workers return). */
void weft__share_hold(weft_executor *e, launch_state *l);
void weft__share_release(weft_executor *e, launch_state *l);

/* The threads that launches waiting for or running on the guest pool ask
 * of the holder now (read at any time). */
unsigned weft__share_demand(const weft_executor *e);

/* The holder has ended a group: launches waiting for threads look again. */
void weft__share_given_back(weft_executor *e);

/* Launch d, while a cooperative kernel holds the pool: waits for it to
 * give threads back (a bounded time), runs d on the guest pool and returns
 * 1 with d's status in *rc. 0 (d not run) when no cooperative kernel holds
 * the pool, e is itself a guest pool, or no guest pool can be made. */
int weft__share_run_guest(weft_executor *e, const weft_launch_desc *d,
                          weft_msg *msg, int *rc);

#endif
