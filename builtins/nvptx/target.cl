/*
 * target.cl: the primitives the builtin library is written over, for
 * NVIDIA GPUs (nvptx64). On the CPU the JIT turns them into loads from the
 * work-group context and calls into the runtime; here they are the GPU's
 * own: special registers, bar.sync, and memory polled with __nanosleep.
 *
 * Four come from the JIT (jit/ptx/ptx_kernels.c), which gives each program the
 * globals behind them: the launch's geometry that CUDA lacks (the global
 * offset and the work dimension, written before each launch), the words
 * of weft_global_barrier() (zeroed before each launch), the collectives'
 * scratch slots in shared memory, and the watchdog of waits.
 */
#include "weft/kernel.h"
#include "../builtins.h"
#include "../wait.h"
#include "target.h"

/* What the runtime writes before a launch (backend/cuda/cuda_launch.c). */
typedef struct weft_gpu_launch {
  ulong global_offset[3];
  uint work_dim;
} weft_gpu_launch;

__constant weft_gpu_launch *__weft_launch_block(void) __attribute__((const));
__local ulong *__weft_wg_scratch(void) __attribute__((const));

/* ------------------------------------------------------------ work-items */

/* CUDA launches uniform blocks only (core/ checks that local sizes divide
 * global sizes), so a group's size is the enqueued one. */
#define SREG(name, d)                                                        \
  ((d) == 0 ? __nvvm_read_ptx_sreg_##name##_x()                              \
            : (d) == 1 ? __nvvm_read_ptx_sreg_##name##_y()                   \
                       : __nvvm_read_ptx_sreg_##name##_z())

size_t __weft_local_id(uint d) { return (size_t)SREG(tid, d); }
size_t __weft_group_id(uint d) { return (size_t)SREG(ctaid, d); }
size_t __weft_local_size(uint d) { return (size_t)SREG(ntid, d); }
size_t __weft_enqueued_local_size(uint d) { return (size_t)SREG(ntid, d); }
size_t __weft_num_groups(uint d) { return (size_t)SREG(nctaid, d); }

size_t __weft_global_size(uint d) {
  return (size_t)SREG(nctaid, d) * (size_t)SREG(ntid, d);
}

size_t __weft_global_offset(uint d) {
  return __weft_launch_block()->global_offset[d];
}

uint __weft_work_dim(void) { return __weft_launch_block()->work_dim; }

/* -------------------------------------------------------------- barrier */

/* bar.sync orders the block's memory accesses as well: what one work-item
 * wrote before it, in global or shared memory, the others see after it. */
void __attribute__((convergent)) __weft_barrier(uint flags) {
  (void)flags;
  __nvvm_bar_sync(0);
}

/* ----------------------------------------------------------- sub-groups */

/* A sub-group is a warp: CUDA makes warps of consecutive linear thread
 * ids, x fastest, as get_local_linear_id() counts. */
uint __weft_sub_group_width(void) { return 32; }

/* bar.warp.sync waits for the warp's threads named in its mask, all of
 * the warp but in a group's last, smaller one, and orders their memory
 * accesses as bar.sync does the block's. */
uint __weft_sub_group_mask(void) {
  uint items = (uint)(SREG(ntid, 0) * SREG(ntid, 1) * SREG(ntid, 2));
  uint id = (uint)(SREG(tid, 0) +
                   SREG(ntid, 0) * (SREG(tid, 1) + SREG(ntid, 1) * SREG(tid, 2)));
  uint left = items - (id & ~31u);
  return left >= 32 ? 0xffffffffu : (1u << left) - 1;
}

void __attribute__((convergent)) __weft_sub_group_barrier(uint flags) {
  (void)flags;
  __nvvm_bar_warp_sync(__weft_sub_group_mask());
}

/* A converge point: the threads of the warp that execute it together
 * (activemask), which wait for each other there. */
uint __attribute__((convergent)) __weft_sub_group_converge(void) {
  uint mask = __nvvm_activemask();
  __nvvm_bar_warp_sync(mask);
  return mask;
}

/* ------------------------------------------------- inter-group waiting */

/* On the GPU every started block keeps its multiprocessor, so a waiting
 * group needs no runtime to make room for the one it waits for: a wait is
 * polling with sleeps (__nanosleep, sm_70), which keep the memory system
 * free for the block that works, and a wake has nothing to do.
 * (weft_global_barrier's groups are made co-resident by a cooperative
 * launch.) A poll, which on the CPU lets other groups run until the word
 * changes, waits here until it changes: the same loop.
 *
 * How long a waiter sleeps is what it waits for: a barrier's waiters all
 * go on at once, so a long sleep delays the next phase of every group
 * (32 ns, the header's, sync.cuh); a semaphore's waiter looks every 100
 * ns, the paper's sleeping semaphore's; a mutex's waiters sleep longer
 * and longer, up to a microsecond, leaving the lock's line to its
 * holder. */
#define SLEEP_MIN_NS 32u
#define SLEEP_MAX_NS 1024u
#define SLEEP_SEMAPHORE_NS 100u

/* The watchdog (jit.h's WEFT_PTX_WATCHDOG and weft_gpu_watchdog_record,
 * mirrored): the program's global says where the device's record is, in
 * host memory the GPU writes through, and how long a wait may see its
 * word unchanged. */
typedef struct weft_gpu_watchdog_record {
  uint tripped; /* written last */
  uint what;
  uint group[3], item[3];
  ulong word, waited_ns;
} weft_gpu_watchdog_record;

typedef struct weft_gpu_watchdog {
  volatile __global weft_gpu_watchdog_record *record;
  ulong timeout_ns; /* 0: no watchdog */
  uint elected;     /* the first work-item to give up writes the record */
} weft_gpu_watchdog;

__global weft_gpu_watchdog *__weft_watchdog(void) __attribute__((const));

/* A wait that timed out: the first such work-item of the launch says who
 * it is and what it waited on; every one stops (PTX exit), so the launch
 * ends instead of hanging, and the runtime reports a deadlock. */
static void __attribute__((noreturn))
give_up(volatile __global uint *word, uint what, ulong waited_ns) {
  __global weft_gpu_watchdog *w = __weft_watchdog();
  if (atomic_cmpxchg((volatile __global uint *)&w->elected, 0u, 1u) == 0u) {
    volatile __global weft_gpu_watchdog_record *r = w->record;
    r->what = what;
    for (uint d = 0; d < 3; d++) {
      r->group[d] = SREG(ctaid, d);
      r->item[d] = SREG(tid, d);
    }
    r->word = (ulong)word;
    r->waited_ns = waited_ns;
    /* The record before the flag, as the host sees them. */
    __asm__ volatile("fence.sc.sys;" ::: "memory");
    r->tripped = 1u;
    __asm__ volatile("fence.sc.sys;" ::: "memory");
  }
  __asm__ volatile("exit;" ::: "memory");
  __builtin_unreachable();
}

int __weft_gpu_gave_up(void) {
  return __atomic_load_n(&__weft_watchdog()->elected, __ATOMIC_RELAXED) != 0;
}

/* The GPU's clock in ns. (Clang 19's __nvvm_read_ptx_sreg_globaltimer
 * makes a broken module.) */
static ulong globaltimer_ns(void) {
  ulong t;
  __asm__ volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Whether a waiter still waits: *word still equals seen, or (POLL_REACH)
 * the counter has not reached seen yet (signed difference: it wraps). */
static int still_waits(uint now, uint seen, uint what) {
  return what & POLL_REACH ? (int)(now - seen) < 0 : now == seen;
}

void __weft_gpu_sleep(gpu_watch *watch, volatile __global uint *word,
                      uint what, uint ns) {
  __nvvm_nanosleep(ns);
  if (++watch->naps % WATCH_NAPS) return;
  ulong now = globaltimer_ns();
  ulong timeout = __weft_watchdog()->timeout_ns;
  if (!watch->since) watch->since = now;
  else if (timeout && now - watch->since > timeout)
    give_up(word, what, now - watch->since);
}

void __weft_wait(volatile __global uint *word, uint expected, uint what) {
  gpu_watch watch = {0, 0};
  uint kind = what & ~POLL_REACH;
  uint ns = kind == WEFT__WAIT_SEMAPHORE ? SLEEP_SEMAPHORE_NS : SLEEP_MIN_NS;
  while (still_waits(__atomic_load_n(word, __ATOMIC_ACQUIRE), expected, what)) {
    __weft_gpu_sleep(&watch, word, what, ns);
    if (kind == WEFT__WAIT_MUTEX && ns < SLEEP_MAX_NS) ns *= 2;
  }
}

void __weft_poll(volatile __global uint *word, uint seen, uint what) {
  __weft_wait(word, seen, what);
}

/* Kernels may call it between turns of their own loops (tests do). */
void __weft_yield(void) { __nvvm_nanosleep(SLEEP_MIN_NS); }

void __weft_wake(volatile __global uint *word, uint count) {
  (void)word;
  (void)count;
}

/* ------------------------------------------------------- address spaces */

/* Clang's to_global, to_local and to_private: the hardware knows which
 * window a generic address falls in. */
__global void *__to_global(void *p) {
  return __nvvm_isspacep_global(p) ? (__global void *)p : 0;
}

__local void *__to_local(void *p) {
  return __nvvm_isspacep_shared(p) ? (__local void *)p : 0;
}

__private void *__to_private(void *p) {
  return __nvvm_isspacep_local(p) ? (__private void *)p : 0;
}
