/*
 * target.h: what the GPU's waits in the shared algorithms (sync.h's shim
 * over weft/sync_algorithms.h) take from target.cl: sleeping in a wait
 * that the watchdog watches.
 */
#ifndef WEFT_BUILTINS_NVPTX_TARGET_H
#define WEFT_BUILTINS_NVPTX_TARGET_H

/* A wait's watch, {0, 0} at its start: after every WATCH_NAPS sleeps the
 * wait reads the clock, and once it has lasted longer than the launch's
 * watchdog allows, the launch stops with a deadlock report naming word
 * and what (WEFT__WAIT_* of weft/kernel.h). */
typedef struct gpu_watch {
  ulong since;
  uint naps;
} gpu_watch;

#define WATCH_NAPS 64u

void __weft_gpu_sleep(gpu_watch *watch, volatile __global uint *word,
                      uint what, uint ns);

/* Whether a wait of the launch has timed out (its work-items stop): a
 * loop that waits for them without a watch of its own leaves too. */
int __weft_gpu_gave_up(void);

#endif
