/*
 * weft/cuda/sync.cuh: Weft's synchronization between thread blocks, for
 * native CUDA C++ code: the mutexes, semaphores and barriers that OpenCL C
 * kernels get from weft/kernel.h, with objects of the same size (16 bytes
 * of four words, the last one the algorithm) and the same algorithm
 * numbers: the paper's algorithms, and NATIVE, the GPU's own (below). The
 * algorithms are the OpenCL path's, from the same source
 * (weft/sync_algorithms.h, which this header includes over a shim of
 * CUDA's atomics and sleeps), with the same layouts (weft/kernel.h).
 * Header only; sm_70 or later (it sleeps with __nanosleep and orders with
 * acquire and release operations).
 *
 *   #include <weft/cuda/sync.cuh>
 *   __global__ void k(weft_mutex *m, int *counter) {
 *     weft_mutex_lock_block(m);     // every thread calls; one acts
 *     if (threadIdx.x == 0) ++*counter;
 *     weft_mutex_unlock_block(m);
 *   }
 *
 * Thread-level calls (weft_mutex_lock, weft_semaphore_wait, ...) act for
 * the calling thread; the _block calls are made by every thread of a
 * block, as __syncthreads() is, and thread 0 acts for the block, which is
 * the block semantics of Stuart & Owens, "Efficient Synchronization
 * Primitives for GPUs" (2011). weft_barrier_wait is always a block call.
 *
 * Objects live in global memory. The host writes their initial value,
 * which weft_mutex_value, weft_semaphore_value and weft_barrier_value
 * give (cudaMemcpy it; a Xiao-Feng barrier is followed by 8 bytes a block,
 * zero: WEFT_BARRIER_SIZE gives the whole size), or a kernel initializes
 * them with the _init functions before the blocks that use them start.
 *
 * Blocks that wait for each other must be resident at once: a barrier
 * over a grid needs a cooperative launch (cudaLaunchCooperativeKernel),
 * which fails rather than hang when the grid is too large. Mutexes and
 * semaphores need no such launch: a block that holds one is running.
 *
 * Algorithms: 0 in an object's last word means the default, which is the
 * build's choice (-DWEFT_MUTEX_IMPL=WEFT_MUTEX_TICKET, WEFT_SEMAPHORE_IMPL,
 * WEFT_BARRIER_IMPL) or else the one measured best on a Hopper GPU (the
 * README gives the figures). NATIVE is the GPU's own here:
 *   mutex      test and test-and-set: loads until the word is free, then
 *              one compare-and-swap; sleeps between tries, longer and
 *              longer (a random time in a window that doubles);
 *   semaphore  a wait draws the next unit with one atomic add, then
 *              sleeps, in proportion to the units ahead of it, until the
 *              posts reach it (first come, first served);
 *   barrier    one atomic add per block on one word whose top bit flips
 *              when the last block arrives, the others polling it.
 * The others are the paper's: SPIN and SPIN_BACKOFF mutexes and
 * semaphores, the TICKET mutex and SLEEPING semaphore (first come, first
 * served), the TWO_STAGE barrier, and the XIAO_FENG barrier of Xiao &
 * Feng, "Inter-block GPU communication via fast barrier synchronization"
 * (2010).
 */
#ifndef WEFT_CUDA_SYNC_CUH
#define WEFT_CUDA_SYNC_CUH

#include "../kernel.h"

/* The algorithms that measured best on an H100 (bench/cuda, the README
 * gives the table): native for the mutex (0.98x to 1.00x libcu++'s
 * binary_semaphore from 1 to 1056 blocks, the steadiest of the four);
 * sleeping for the semaphore, at every initial count (1.04x to 1.70x the
 * better of libcu++'s counting_semaphore and the paper's queue-form
 * sleeping semaphore in one run, though another gave 0.98x at 120 units
 * and 132 blocks; native, the same draw with longer sleeps, fell to
 * 0.29x at 120 units and 264 blocks). */
#ifndef WEFT_MUTEX_IMPL
#define WEFT_MUTEX_IMPL WEFT_MUTEX_NATIVE
#endif
#ifndef WEFT_SEMAPHORE_IMPL
#define WEFT_SEMAPHORE_IMPL WEFT_SEMAPHORE_SLEEPING
#endif
#ifndef WEFT_BARRIER_IMPL
#define WEFT_BARRIER_IMPL WEFT_BARRIER_NATIVE
#endif

typedef struct weft_mutex {
  unsigned int word[4];
} weft_mutex;

typedef struct weft_semaphore {
  unsigned int word[4];
} weft_semaphore;

typedef struct weft_barrier {
  unsigned int word[4];
} weft_barrier;

/* ------------------------------------------------------ initial values */

/* An unlocked mutex of an algorithm (0: the default, the build's): all
 * zeros but the algorithm, whatever it is. */
static inline __host__ __device__ weft_mutex weft_mutex_value(
    unsigned algorithm) {
  weft_mutex m = {{0, 0, 0, algorithm}};
  return m;
}

/* A semaphore with count free units (algorithm 0: the default). */
static inline __host__ __device__ weft_semaphore
weft_semaphore_value(int count, unsigned algorithm) {
  weft_semaphore s = {{(unsigned)count, 0, 0, algorithm}};
  return s;
}

/* A barrier for that many blocks (a Xiao-Feng one is followed by its
 * flags, which must be zero). */
static inline __host__ __device__ weft_barrier
weft_barrier_value(unsigned blocks, unsigned algorithm) {
  weft_barrier b = {{0, 0, blocks, algorithm}};
  return b;
}

/* -------------------------------------- the shim of sync_algorithms.h */

#define WEFT__FN static __device__ inline
#define WEFT__GLOBAL

/* Loads and stores that order what follows or what came before at the
 * scope of the whole GPU, and atomics that do both. */
static __device__ __forceinline__ unsigned weft__load(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

static __device__ __forceinline__ unsigned weft__load_relaxed(
    const unsigned *p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

static __device__ __forceinline__ void weft__store(unsigned *p, unsigned v) {
  asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

static __device__ __forceinline__ void weft__store_relaxed(unsigned *p,
                                                           unsigned v) {
  asm volatile("st.relaxed.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Atomics with the ordering their callers need, no more: a fence costs
 * a round trip to memory. ORDER is relaxed, acquire, release or acq_rel. */
#define WEFT__ATOMIC(name, op, ORDER)                                        \
  static __device__ __forceinline__ unsigned name(unsigned *p, unsigned v) { \
    unsigned old;                                                            \
    asm volatile("atom." #ORDER ".gpu." op " %0, [%1], %2;"                  \
                 : "=r"(old) : "l"(p), "r"(v) : "memory");                   \
    return old;                                                              \
  }

WEFT__ATOMIC(weft__fetch_add, "add.u32", acq_rel)
WEFT__ATOMIC(weft__fetch_add_relaxed, "add.u32", relaxed)
WEFT__ATOMIC(weft__fetch_or_acquire, "or.b32", acquire)

/* Atomics whose old value nobody waits for. */
#define WEFT__RED(name, op, ORDER)                                           \
  static __device__ __forceinline__ void name(unsigned *p, unsigned v) {     \
    asm volatile("red." #ORDER ".gpu." op " [%0], %1;" ::"l"(p), "r"(v)      \
                 : "memory");                                                \
  }

WEFT__RED(weft__add_release, "add.u32", release)
WEFT__RED(weft__and_release, "and.b32", release)

/* 1 if *p held expected and now holds desired; acquire (taking a lock or
 * a unit). */
static __device__ __forceinline__ int weft__cas(unsigned *p, unsigned expected,
                                                unsigned desired) {
  unsigned old;
  asm volatile("atom.acquire.gpu.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");
  return old == expected;
}

/* Waits sleep (the caller tests its condition again); what they wait for
 * does not matter here, and nothing watches them. */
typedef int weft__watch;
#define WEFT__WATCH_INIT 0

static __device__ __forceinline__ void weft__sleep(weft__watch *, unsigned *,
                                                   unsigned, unsigned ns) {
  __nanosleep(ns);
}

/* The paper's spin algorithms poll without sleeping (ns 0). */
static __device__ __forceinline__ void weft__poll(weft__watch *, unsigned *,
                                                  unsigned, unsigned,
                                                  unsigned ns) {
  if (ns) __nanosleep(ns);
}

static __device__ __forceinline__ void weft__await(weft__watch *, unsigned *,
                                                   unsigned, unsigned,
                                                   unsigned ns) {
  __nanosleep(ns);
}

static __device__ __forceinline__ void weft__park(weft__watch *, unsigned *,
                                                  unsigned, unsigned,
                                                  unsigned ns) {
  __nanosleep(ns);
}

static __device__ __forceinline__ void weft__wake(unsigned *) {}

/* A back-off sleeps a random time in a window that doubles from 32 ns to
 * a cap. The build may set the caps (-D) to tune the algorithms;
 * bench/cuda measures them. The native mutex's waiters sleep longer: on
 * an H100, with every object at one address, a 4096 ns cap took it from
 * 0.77x to 0.82x of libcu++'s binary_semaphore at 1056 blocks and from
 * 0.80x to 0.85x at 264, and changed nothing below 132 (waiters that
 * poll less often leave the line to the holder; measured while unlocks
 * still read the object). */
#ifndef WEFT_CUDA_BACKOFF_CAP_NS
#define WEFT_CUDA_BACKOFF_CAP_NS 1024u
#endif
#ifndef WEFT_CUDA_MUTEX_BACKOFF_CAP_NS
#define WEFT_CUDA_MUTEX_BACKOFF_CAP_NS 4096u
#endif
#define WEFT__BACKOFF_FIRST 32u
#define WEFT__BACKOFF_CAP WEFT_CUDA_BACKOFF_CAP_NS
#define WEFT__MUTEX_SLEEP_CAP_NS WEFT_CUDA_MUTEX_BACKOFF_CAP_NS

static __device__ __forceinline__ void weft__pause(weft__watch *, unsigned *,
                                                   unsigned, unsigned,
                                                   unsigned draw) {
  __nanosleep(draw);
}

static __device__ __forceinline__ unsigned weft__group_rank(void) {
  return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
}

static __device__ __forceinline__ unsigned weft__group_count(void) {
  return gridDim.x * gridDim.y * gridDim.z;
}

static __device__ __forceinline__ unsigned weft__item_rank(void) {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

static __device__ __forceinline__ unsigned weft__item_count(void) {
  return blockDim.x * blockDim.y * blockDim.z;
}

static __device__ __forceinline__ void weft__group_barrier(void) {
  __syncthreads();
}

/* Apart in every block and call. */
static __device__ __forceinline__ unsigned weft__seed(void) {
  return (weft__group_rank() + 1u) * 2654435761u ^ (unsigned)clock();
}

/* The GPU's own algorithms are the shared source's; a wake is nothing; a
 * barrier counts the blocks of rank 0 to n - 1 (weft_barrier_wait). */
#define WEFT__NATIVE_PARKS 0
#define WEFT__WAKES 0
#define WEFT__BARRIER_FROM_RANK_0 1

#include "../sync_algorithms.h"

/* ------------------------------------------------------------ mutexes */

static __device__ __forceinline__ void weft_mutex_init_with(
    weft_mutex *m, unsigned algorithm) {
  *m = weft_mutex_value(algorithm);
  __threadfence();
}

static __device__ __forceinline__ void weft_mutex_init(weft_mutex *m) {
  weft_mutex_init_with(m, WEFT_MUTEX_DEFAULT);
}

/* 1 if it took the mutex, 0 if it was held (or, a ticket mutex, if
 * blocks queued for it). */
static __device__ __forceinline__ int weft_mutex_trylock(weft_mutex *m) {
  return weft__sync_mutex_trylock(m, WEFT_MUTEX_IMPL);
}

static __device__ void weft_mutex_lock(weft_mutex *m) {
  weft__sync_mutex_lock(m, WEFT_MUTEX_IMPL);
}

/* The same for every algorithm, and reads nothing (see
 * weft__sync_chosen); nobody waits for its old value. */
static __device__ __forceinline__ void weft_mutex_unlock(weft_mutex *m) {
  weft__sync_mutex_unlock(m, WEFT_MUTEX_IMPL);
}

/* Every thread of the block calls these; thread 0 acts for the block. */
static __device__ __forceinline__ void weft_mutex_lock_block(weft_mutex *m) {
  WEFT__FOR_GROUP(weft_mutex_lock(m));
}

static __device__ __forceinline__ void weft_mutex_unlock_block(weft_mutex *m) {
  WEFT__FOR_GROUP(weft_mutex_unlock(m));
}

/* --------------------------------------------------------- semaphores */

static __device__ __forceinline__ void weft_semaphore_init_with(
    weft_semaphore *s, int count, unsigned algorithm) {
  *s = weft_semaphore_value(count, algorithm);
  __threadfence();
}

static __device__ __forceinline__ void weft_semaphore_init(weft_semaphore *s,
                                                           int count) {
  weft_semaphore_init_with(s, count, WEFT_SEMAPHORE_DEFAULT);
}

static __device__ void weft_semaphore_wait(weft_semaphore *s) {
  weft__sync_semaphore_wait(s, WEFT_SEMAPHORE_IMPL);
}

/* The same for every algorithm, and reads nothing; nobody waits for its
 * old value. */
static __device__ __forceinline__ void weft_semaphore_post(
    weft_semaphore *s) {
  weft__sync_semaphore_post(s, WEFT_SEMAPHORE_IMPL);
}

static __device__ __forceinline__ void weft_semaphore_wait_block(
    weft_semaphore *s) {
  WEFT__FOR_GROUP(weft_semaphore_wait(s));
}

static __device__ __forceinline__ void weft_semaphore_post_block(
    weft_semaphore *s) {
  WEFT__FOR_GROUP(weft_semaphore_post(s));
}

/* ----------------------------------------------------------- barriers */

static __device__ __forceinline__ void weft_barrier_init_with(
    weft_barrier *b, unsigned blocks, unsigned algorithm) {
  *b = weft_barrier_value(blocks, algorithm);
  if ((algorithm ? algorithm : WEFT_BARRIER_IMPL) == WEFT_BARRIER_XIAO_FENG)
    for (unsigned i = 0; i < 2 * blocks; i++) ((unsigned *)(b + 1))[i] = 0;
  __threadfence();
}

static __device__ __forceinline__ void weft_barrier_init(weft_barrier *b,
                                                         unsigned blocks) {
  weft_barrier_init_with(b, blocks, WEFT_BARRIER_DEFAULT);
}

/* Every thread of each of the blocks the barrier counts (the n of ranks 0
 * to n - 1, the rank being the linear index in the grid) calls it; none
 * goes on before all of those blocks have arrived. */
static __device__ void weft_barrier_wait(weft_barrier *b) {
  weft__sync_barrier_wait(b, WEFT_BARRIER_IMPL);
}

#endif
