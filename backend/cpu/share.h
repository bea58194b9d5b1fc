/*
 * share.h: the CPU's threads shared between a cooperative kernel that
 * holds the pool and the launches that come meanwhile (share.c): the
 * executor's calls when it is made and freed and around a launch, and
 * resize.c's calls (weft__share_demand, weft__share_changed,
 * weft__share_await) are executor_internal.h's, so that the two files
 * need not include each other.
 */
#ifndef WEFT_BACKEND_CPU_SHARE_H
#define WEFT_BACKEND_CPU_SHARE_H

#include "backend/cpu/executor_internal.h"

void weft__share_init(weft_executor *e);
void weft__share_fini(weft_executor *e);

/* Launch l, a cooperative kernel's, holds e's pool from just before it
 * runs on it, until release (after its workers return). */
void weft__share_hold(weft_executor *e, launch_state *l);
void weft__share_release(weft_executor *e, launch_state *l);

/* A launch that would use need threads, while a cooperative kernel holds
 * the pool: asks them of it (the demand) and waits until it has given
 * them back, ends, or the bound has passed (*waited: the seconds); then 1,
 * and the launch runs on the guest pool and calls done when it has.
 * 0 (nothing asked) when no cooperative kernel holds the pool. */
int weft__share_ask(weft_executor *e, unsigned need, double *waited);
void weft__share_done(weft_executor *e, unsigned need);

#endif
