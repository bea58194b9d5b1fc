/*
 * wait.h: the runtime's waits, which the synchronization builtins call
 * (sync.h's shim) and each target provides: on the CPU the JIT turns them
 * into calls into the executor, on the GPU nvptx/target.cl defines them.
 * What a group waits on is weft/kernel.h's WEFT__WAIT_*.
 */
#ifndef WEFT_BUILTINS_WAIT_H
#define WEFT_BUILTINS_WAIT_H

#include "builtins.h"
#include "weft/kernel.h"

void __weft_yield(void);
void __weft_wait(volatile __global uint *word, uint expected, uint what);
void __weft_wake(volatile __global uint *word, uint count);
void __weft_poll(volatile __global uint *word, uint seen, uint what);
__global uint *__weft_launch_words(void) __attribute__((const));

#define WAKE_ALL 0xffffffffu
/* In what: wait until the counter reaches seen (signed difference: it
 * wraps), not until the word leaves it. */
#define POLL_REACH WEFT__POLL_REACH

#endif
