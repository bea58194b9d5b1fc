/*
 * weft/cuda/sync.cuh: Weft's synchronization between thread blocks, for
 * native CUDA C++ code: the mutexes, semaphores and barriers that OpenCL C
 * kernels get from weft/kernel.h, with the same objects (16 bytes of four
 * words, the last one the algorithm) and the same algorithm numbers: the
 * paper's algorithms are the same, NATIVE is the GPU's own (below). Header
 * only; sm_70 or later (it sleeps with
 * __nanosleep and orders with acquire and release operations).
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
 *   semaphore  the same over the count: a unit is taken with one
 *              compare-and-swap when a load saw one free;
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

/* The algorithms that measured best on an H100 (bench/cuda): native for
 * the mutex (the steadiest from 1 to 1056 blocks); for the semaphore,
 * chosen by its initial count when the build names none: native up to
 * 2 units (0.84x to 1.09x libcu++'s counting_semaphore at 1 and 2, where
 * sleeping gave 0.6x to 0.85x), sleeping above (7.8e7 wait+post pairs/s
 * at 120 units and 132 blocks, against 4.6e6 for native and 6.6e6 for
 * libcu++). */
#ifndef WEFT_MUTEX_IMPL
#define WEFT_MUTEX_IMPL WEFT_MUTEX_NATIVE
#endif
#ifndef WEFT_SEMAPHORE_IMPL
#define WEFT_SEMAPHORE_IMPL WEFT_SEMAPHORE_SLEEPING
#define WEFT__SEMAPHORE_BY_COUNT 1
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

/* An unlocked mutex of an algorithm (0: the default). */
static inline __host__ __device__ weft_mutex weft_mutex_value(
    unsigned algorithm) {
  weft_mutex m = {{0, 0, 0, algorithm}};
  return m;
}

/* A semaphore with count free units (algorithm 0: the default, which
 * depends on count unless the build sets WEFT_SEMAPHORE_IMPL). */
static inline __host__ __device__ weft_semaphore
weft_semaphore_value(int count, unsigned algorithm) {
#ifdef WEFT__SEMAPHORE_BY_COUNT
  if (!algorithm)
    algorithm = count <= 2 ? WEFT_SEMAPHORE_NATIVE : WEFT_SEMAPHORE_SLEEPING;
#endif
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

/* ------------------------------------------------------ memory access */

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
WEFT__ATOMIC(weft__fetch_add_acquire, "add.u32", acquire)
WEFT__ATOMIC(weft__fetch_add_release, "add.u32", release)
WEFT__ATOMIC(weft__exchange_acquire, "exch.b32", acquire)

/* 1 if *p held expected and now holds desired; acquire (taking a lock or
 * a unit). */
static __device__ __forceinline__ int weft__cas(unsigned *p, unsigned expected,
                                                unsigned desired) {
  unsigned old;
  asm volatile("atom.acquire.gpu.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");
  return old == expected;
}

/* ------------------------------------------------------------ backoff */

/* A sleep of a random length in a window that doubles at each failure, up
 * to a cap: waiters that failed together do not retry together. */
typedef struct weft__backoff {
  unsigned window, state;
} weft__backoff;

#define WEFT__BACKOFF_FIRST_NS 32u
/* The longest sleep of a back-off: the build may set these (-D) to tune
 * the algorithms; bench/cuda measures them. The native mutex's waiters
 * sleep longer: on an H100, with every object at one address, a 4096 ns
 * cap took it from 0.77x to 0.82x of libcu++'s binary_semaphore at 1056
 * blocks and from 0.80x to 0.85x at 264, and changed nothing below 132
 * (waiters that poll less often leave the line to the holder). */
#ifndef WEFT_CUDA_BACKOFF_CAP_NS
#define WEFT_CUDA_BACKOFF_CAP_NS 1024u
#endif
#ifndef WEFT_CUDA_MUTEX_BACKOFF_CAP_NS
#define WEFT_CUDA_MUTEX_BACKOFF_CAP_NS 4096u
#endif

/* Starts {0, 0}: the first back-off seeds it, so that a call that takes
 * at once reads no clock. */
static __device__ __forceinline__ void weft__back_off_to(weft__backoff *b,
                                                        unsigned cap) {
  if (!b->window) {
    b->window = WEFT__BACKOFF_FIRST_NS;
    b->state = (blockIdx.x + 1u) * 2654435761u ^ (unsigned)clock();
  }
  /* xorshift32: cheap, and different in every block. */
  unsigned x = b->state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  b->state = x;
  __nanosleep(x % b->window);
  if (b->window < cap) b->window *= 2;
}

static __device__ __forceinline__ void weft__back_off(weft__backoff *b) {
  weft__back_off_to(b, WEFT_CUDA_BACKOFF_CAP_NS);
}

/* ------------------------------------------------------ block helpers */

static __device__ __forceinline__ unsigned weft__thread_rank(void) {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

/* Block semantics: every thread of the block comes, thread 0 acts for the
 * block, none goes on before it has. */
#define WEFT__FOR_BLOCK(call)                                                \
  do {                                                                       \
    __syncthreads();                                                         \
    if (weft__thread_rank() == 0) call;                                      \
    __syncthreads();                                                         \
  } while (0)

/* ------------------------------------------------------------ mutexes */

static __device__ __forceinline__ unsigned weft__algorithm(const unsigned *w,
                                                           unsigned build) {
  unsigned a = w[3];
  return a ? a : build;
}

static __device__ __forceinline__ void weft_mutex_init_with(
    weft_mutex *m, unsigned algorithm) {
  *m = weft_mutex_value(algorithm);
  __threadfence();
}

static __device__ __forceinline__ void weft_mutex_init(weft_mutex *m) {
  weft_mutex_init_with(m, WEFT_MUTEX_DEFAULT);
}

/* 1 if it took the mutex, 0 if the mutex was held. */
static __device__ __forceinline__ int weft_mutex_trylock(weft_mutex *m) {
  if (weft__algorithm(m->word, WEFT_MUTEX_IMPL) == WEFT_MUTEX_TICKET) {
    /* The next ticket, only if it would be served at once. */
    unsigned serving = weft__load(&m->word[1]);
    return weft__cas(&m->word[0], serving, serving + 1);
  }
  return weft__cas(&m->word[0], 0, 1);
}

static __device__ void weft_mutex_lock(weft_mutex *m) {
  weft__backoff b = {0, 0};
  switch (weft__algorithm(m->word, WEFT_MUTEX_IMPL)) {
  case WEFT_MUTEX_SPIN: /* Algorithm 1 */
    while (!weft__cas(&m->word[0], 0, 1)) {
    }
    break;
  case WEFT_MUTEX_SPIN_BACKOFF: /* Algorithm 2 */
    while (!weft__cas(&m->word[0], 0, 1)) weft__back_off(&b);
    break;
  case WEFT_MUTEX_TICKET: { /* Algorithm 3 */
    unsigned ticket = weft__fetch_add_relaxed(&m->word[0], 1);
    /* A wait in proportion to the holders ahead. */
    for (unsigned s; (s = weft__load(&m->word[1])) != ticket;)
      __nanosleep(64u * (ticket - s < 64u ? ticket - s : 64u));
    break;
  }
  default: /* native: test-and-set, then test before each retry */
    while (!weft__cas(&m->word[0], 0, 1)) {
      do weft__back_off_to(&b, WEFT_CUDA_MUTEX_BACKOFF_CAP_NS);
      while (weft__load_relaxed(&m->word[0]));
    }
    break;
  }
}

static __device__ __forceinline__ void weft_mutex_unlock(weft_mutex *m) {
  if (weft__algorithm(m->word, WEFT_MUTEX_IMPL) == WEFT_MUTEX_TICKET) {
    /* Only the holder writes "now serving". */
    weft__store(&m->word[1], weft__load_relaxed(&m->word[1]) + 1);
    return;
  }
  weft__store(&m->word[0], 0);
}

/* Every thread of the block calls these; thread 0 acts for the block. */
static __device__ __forceinline__ void weft_mutex_lock_block(weft_mutex *m) {
  WEFT__FOR_BLOCK(weft_mutex_lock(m));
}

static __device__ __forceinline__ void weft_mutex_unlock_block(weft_mutex *m) {
  WEFT__FOR_BLOCK(weft_mutex_unlock(m));
}

/* --------------------------------------------------------- semaphores */

/* Spin semaphores (Algorithm 4): the count word is its own lock, BUSY
 * while one thread changes it, so each attempt costs one atomic. */
#define WEFT__BUSY 0xffffffffu

static __device__ __forceinline__ int weft__try_take(unsigned *count) {
  /* A look first: exchanges by many waiters at once would keep the word
   * busy for the one that could take or give a unit. */
  unsigned seen = weft__load(count);
  if (seen == 0 || seen == WEFT__BUSY) return 0;
  unsigned c = weft__exchange_acquire(count, WEFT__BUSY);
  if (c == WEFT__BUSY) return 0;
  weft__store(count, c ? c - 1 : 0);
  return c != 0;
}

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
  unsigned *count = &s->word[0];
  weft__backoff b = {0, 0};
  switch (weft__algorithm(s->word, WEFT_SEMAPHORE_IMPL)) {
  case WEFT_SEMAPHORE_SPIN:
    while (!weft__try_take(count)) {
    }
    break;
  case WEFT_SEMAPHORE_SPIN_BACKOFF:
    while (!weft__try_take(count)) weft__back_off(&b);
    break;
  case WEFT_SEMAPHORE_SLEEPING: { /* Algorithm 5 */
    /* {count, negative when blocks queue; places let through; places
     * taken}: a block that finds no unit free takes the next place and
     * sleeps until a post lets that place through, in order. */
    if ((int)weft__fetch_add_acquire(count, (unsigned)-1) > 0) break;
    unsigned place = weft__fetch_add_relaxed(&s->word[2], 1);
    while ((int)(weft__load(&s->word[1]) - place) <= 0) __nanosleep(100);
    break;
  }
  default: /* native: test, then compare-and-swap */
    for (;;) {
      unsigned c = weft__load_relaxed(count); /* the swap acquires */
      if ((int)c > 0 && weft__cas(count, c, c - 1)) break;
      weft__back_off(&b);
    }
    break;
  }
}

static __device__ void weft_semaphore_post(weft_semaphore *s) {
  unsigned *count = &s->word[0];
  switch (weft__algorithm(s->word, WEFT_SEMAPHORE_IMPL)) {
  case WEFT_SEMAPHORE_SPIN:
  case WEFT_SEMAPHORE_SPIN_BACKOFF: {
    /* A thread holds the word only between two of its own atomics. */
    unsigned c;
    for (;;) {
      while (weft__load(count) == WEFT__BUSY) {
      }
      if ((c = weft__exchange_acquire(count, WEFT__BUSY)) != WEFT__BUSY) break;
    }
    weft__store(count, c + 1);
    break;
  }
  case WEFT_SEMAPHORE_SLEEPING:
    /* A negative count: a block has queued, or is about to. */
    if ((int)weft__fetch_add_release(count, 1) < 0)
      weft__fetch_add_release(&s->word[1], 1);
    break;
  default:
    weft__fetch_add_release(count, 1);
    break;
  }
}

static __device__ __forceinline__ void weft_semaphore_wait_block(
    weft_semaphore *s) {
  WEFT__FOR_BLOCK(weft_semaphore_wait(s));
}

static __device__ __forceinline__ void weft_semaphore_post_block(
    weft_semaphore *s) {
  WEFT__FOR_BLOCK(weft_semaphore_post(s));
}

/* ----------------------------------------------------------- barriers */

static __device__ __forceinline__ unsigned weft__block_rank(void) {
  return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
}

/* Native: block 0 adds 2^31 - (n - 1), each other block 1, so that the
 * word's top bit flips exactly when the last of the n blocks arrives,
 * whichever it is, and the count is back where it started. */
static __device__ __forceinline__ void weft__barrier_flip(unsigned *word,
                                                          unsigned n) {
  unsigned add = weft__block_rank() == 0 ? 0x80000000u - (n - 1) : 1u;
  unsigned old = weft__fetch_add(word, add);
  while (((weft__load(word) ^ old) & 0x80000000u) == 0) __nanosleep(32);
}

/* Two-stage (Stuart & Owens): in each stage the last of n blocks resets
 * the count, which the others wait for; a block out of the first stage
 * early cannot re-enter it before every block has left it, since none
 * leaves the second before all arrive there. */
static __device__ __forceinline__ void weft__barrier_stage(unsigned *count,
                                                           unsigned n) {
  if (weft__fetch_add(count, 1) == n - 1) {
    weft__store(count, 0);
    return;
  }
  while (weft__load(count) != 0) __nanosleep(32);
}

/* Xiao-Feng: each block raises its arrival flag to its goal (uses of the
 * barrier so far); block 0's threads wait for every flag, then raise every
 * release flag, each of which one block waits for. */
static __device__ void weft__barrier_xiao_feng(weft_barrier *b, unsigned n) {
  unsigned *arrived = (unsigned *)(b + 1), *released = arrived + n;
  unsigned id = weft__block_rank();
  unsigned goal = weft__load(&arrived[id]) + 1;
  __syncthreads();
  if (id == 0) {
    unsigned items = blockDim.x * blockDim.y * blockDim.z;
    unsigned first = weft__thread_rank();
    if (first == 0) weft__store(&arrived[0], goal);
    for (unsigned j = 1 + first; j < n; j += items)
      while (weft__load(&arrived[j]) != goal) __nanosleep(32);
    __syncthreads();
    /* Block 0's flags count the uses too, as every block's do. */
    for (unsigned j = first; j < n; j += items)
      weft__store(&released[j], goal);
  } else if (weft__thread_rank() == 0) {
    weft__store(&arrived[id], goal);
    while (weft__load(&released[id]) != goal) __nanosleep(32);
  }
  __syncthreads();
}

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
  unsigned n = b->word[2];
  unsigned algorithm = weft__algorithm(b->word, WEFT_BARRIER_IMPL);
  if (algorithm == WEFT_BARRIER_XIAO_FENG) {
    weft__barrier_xiao_feng(b, n);
    return;
  }
  if (algorithm == WEFT_BARRIER_TWO_STAGE)
    WEFT__FOR_BLOCK((weft__barrier_stage(&b->word[0], n),
                     weft__barrier_stage(&b->word[1], n)));
  else WEFT__FOR_BLOCK(weft__barrier_flip(&b->word[0], n));
}

#endif
