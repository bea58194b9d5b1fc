/*
 * weft/cuda/sync.cuh: Weft's synchronization between thread blocks, for
 * native CUDA C++ code: the mutexes, semaphores and barriers that OpenCL C
 * kernels get from weft/kernel.h, with objects of the same size (16 bytes
 * of four words, the last one the algorithm) and the same algorithm
 * numbers: the paper's algorithms, and NATIVE, the GPU's own (below). The
 * other words are laid out as OpenCL C kernels have them on the GPU
 * (weft/kernel.h; builtins/nvptx/sync_native.cl has the same algorithms),
 * but for the ticket mutex's lock word, which keeps a mark here where the
 * OpenCL path counts the groups in the queue (see the Layouts comments).
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

/* Bit 1 of a ticket mutex's lock word, set for ever (weft_mutex_lock
 * says why). */
#define WEFT__TICKET_MARK 2u

/* An unlocked mutex of an algorithm (0: the default, the build's). All
 * zeros works for a ticket mutex too, but then a lock's first try may
 * jump the queue. */
static inline __host__ __device__ weft_mutex weft_mutex_value(
    unsigned algorithm) {
  unsigned ticket =
      (algorithm ? algorithm : WEFT_MUTEX_IMPL) == WEFT_MUTEX_TICKET;
  weft_mutex m = {{ticket ? WEFT__TICKET_MARK : 0u, 0, 0, algorithm}};
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
static __device__ __forceinline__ void weft__add_release(unsigned *p,
                                                         unsigned v) {
  asm volatile("red.release.gpu.add.u32 [%0], %1;" ::"l"(p), "r"(v)
               : "memory");
}

static __device__ __forceinline__ void weft__and_release(unsigned *p,
                                                         unsigned v) {
  asm volatile("red.release.gpu.and.b32 [%0], %1;" ::"l"(p), "r"(v)
               : "memory");
}

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
 * (waiters that poll less often leave the line to the holder; measured
 * while unlocks still read the object). */
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

/* A FIFO waiter's sleep: in proportion to the n waiters ahead of it, up
 * to 64 of them. */
static __device__ __forceinline__ void weft__sleep_behind(unsigned n) {
  __nanosleep(64u * (n < 64u ? n : 64u));
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

/* An object's algorithm (its word 3, else the build's).
 *
 * Where it is read matters as much as what is read: an acquire empties
 * the SM's L1, so a read of the object after one goes to the L2, and the
 * caller waits for it. On an H100, the unlock's read of word 3 after the
 * lock's acquire cost the native mutex a quarter of its rate (0.72x
 * libcu++'s binary_semaphore with it, 0.93x to 0.98x without; neither a
 * prefetch nor a read through the read-only cache helped). So every
 * unlock and post is the same for all algorithms and reads nothing; a
 * lock reads word 3 only once its first try has failed, and a semaphore
 * wait reads it while its first atomic, the same for all algorithms, is
 * on its way. */
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

/* Layouts: word 0 is the lock, its bit 0 set while held, for every
 * algorithm. The ticket mutex's word 0 also has bit 1 set, for ever
 * (WEFT__TICKET_MARK), and it adds {word 1: the next ticket, word 2: the ticket whose turn it is}.
 * Its waiters take the lock in ticket order: the ticket whose turn it is
 * takes the lock as soon as it is free, then gives the turn to the next.
 * So every unlock is one and the same atomic, which clears bit 0. */
#define WEFT__HELD 1u

/* The ticket mutex (Algorithm 3) once a ticket is drawn: a wait in
 * proportion to the holders ahead, then the lock, which the ticket before
 * may still hold. */
static __device__ void weft__ticket_serve(weft_mutex *m, unsigned ticket) {
  for (unsigned s; (s = weft__load(&m->word[2])) != ticket;)
    weft__sleep_behind(ticket - s);
  while (weft__fetch_or_acquire(&m->word[0], WEFT__HELD) & WEFT__HELD)
    while (weft__load_relaxed(&m->word[0]) & WEFT__HELD) __nanosleep(32);
  weft__store_relaxed(&m->word[2], ticket + 1);
}

/* 1 if it took the mutex, 0 if the mutex was held. */
static __device__ __forceinline__ int weft_mutex_trylock(weft_mutex *m) {
  if (weft__cas(&m->word[0], 0, WEFT__HELD)) return 1;
  if (weft__algorithm(m->word, WEFT_MUTEX_IMPL) != WEFT_MUTEX_TICKET)
    return 0;
  /* The ticket whose turn it is, only if no one waits and the lock is
   * free: with the turn read first, the ticket before it has taken the
   * lock already; with the ticket drawn, no one else can take the turn. */
  unsigned turn = weft__load(&m->word[2]);
  if ((weft__load(&m->word[0]) & WEFT__HELD) ||
      !weft__cas(&m->word[1], turn, turn + 1))
    return 0;
  weft__ticket_serve(m, turn);
  return 1;
}

static __device__ void weft_mutex_lock(weft_mutex *m) {
  /* The first try is every algorithm's but the ticket mutex's, whose
   * lock word is never 0: the algorithm is read only if it fails (see
   * weft__algorithm). */
  if (weft__cas(&m->word[0], 0, WEFT__HELD)) return;
  weft__backoff b = {0, 0};
  switch (weft__algorithm(m->word, WEFT_MUTEX_IMPL)) {
  case WEFT_MUTEX_SPIN: /* Algorithm 1 */
    while (!weft__cas(&m->word[0], 0, WEFT__HELD)) {
    }
    break;
  case WEFT_MUTEX_SPIN_BACKOFF: /* Algorithm 2 */
    do weft__back_off(&b);
    while (!weft__cas(&m->word[0], 0, WEFT__HELD));
    break;
  case WEFT_MUTEX_TICKET: /* Algorithm 3 */
    weft__ticket_serve(m, weft__fetch_add_relaxed(&m->word[1], 1));
    break;
  default: /* native: test-and-set, then test before each retry */
    do {
      do weft__back_off_to(&b, WEFT_CUDA_MUTEX_BACKOFF_CAP_NS);
      while (weft__load_relaxed(&m->word[0]));
    } while (!weft__cas(&m->word[0], 0, WEFT__HELD));
    break;
  }
}

/* The same for every algorithm, and reads nothing (see weft__algorithm);
 * nobody waits for its old value. */
static __device__ __forceinline__ void weft_mutex_unlock(weft_mutex *m) {
  weft__and_release(&m->word[0], ~WEFT__HELD);
}

/* Every thread of the block calls these; thread 0 acts for the block. */
static __device__ __forceinline__ void weft_mutex_lock_block(weft_mutex *m) {
  WEFT__FOR_BLOCK(weft_mutex_lock(m));
}

static __device__ __forceinline__ void weft_mutex_unlock_block(weft_mutex *m) {
  WEFT__FOR_BLOCK(weft_mutex_unlock(m));
}

/* --------------------------------------------------------- semaphores */

/* Layouts: word 0 counts the units given (the initial count, then one
 * per post), word 1 the units drawn, one per wait, whatever the
 * algorithm: a wait draws before it knows its algorithm (see
 * weft__algorithm), and a post adds one to word 0 and waits for nothing.
 * A drawn unit is free once the units given have passed it. The counters
 * wrap around: only signed differences count.
 *   native   waits for its drawn unit, sleeping in proportion to the
 *            units ahead of it, as the ticket mutex does;
 *   sleeping Algorithm 5: waits for its drawn unit, sleeping a fixed
 *            time between looks. Both serve blocks in the order they
 *            drew, and a unit that is free costs one atomic;
 *   spin     Algorithm 4: an attempt takes a lock, looks at the counts,
 *            takes a unit if one is free and unlocks; with or without a
 *            back-off between attempts. The lock is word 2's top bit,
 *            the units it has taken its other 31 bits; its draws are
 *            not used. */
#define WEFT__SPIN_LOCKED 0x80000000u

/* Free units: given minus taken, signed. */
static __device__ __forceinline__ int weft__units(unsigned given,
                                                  unsigned taken) {
  return (int)(given - taken);
}

/* Algorithm 4's attempt. Word 2 counts in 31 bits, so the difference is
 * taken in 31 bits too. */
static __device__ __forceinline__ int weft__spin_take(weft_semaphore *s) {
  unsigned taken = weft__load_relaxed(&s->word[2]);
  if ((taken & WEFT__SPIN_LOCKED) ||
      !weft__cas(&s->word[2], taken, taken | WEFT__SPIN_LOCKED))
    return 0;
  /* Only the lock's holder takes units; the given count only grows. */
  int took = (int)((weft__load(&s->word[0]) - taken) << 1) > 0;
  /* The store that unlocks also counts the unit. */
  weft__store(&s->word[2], took ? (taken + 1) & ~WEFT__SPIN_LOCKED : taken);
  return took;
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
  unsigned *given = &s->word[0];
  /* The algorithm, the draw and the units given, all at once: given last,
   * since its acquire holds back what follows it. Given read early is
   * only low: it grows. */
  unsigned algorithm = weft__algorithm(s->word, WEFT_SEMAPHORE_IMPL);
  unsigned mine = weft__fetch_add_relaxed(&s->word[1], 1);
  unsigned g = weft__load(given);
  weft__backoff b = {0, 0};
  switch (algorithm) {
  case WEFT_SEMAPHORE_SPIN:
    while (!weft__spin_take(s)) {
    }
    break;
  case WEFT_SEMAPHORE_SPIN_BACKOFF:
    while (!weft__spin_take(s)) weft__back_off(&b);
    break;
  case WEFT_SEMAPHORE_SLEEPING: /* Algorithm 5 */
    if (weft__units(g, mine) > 0) break;
    while (weft__units(weft__load(given), mine) <= 0) __nanosleep(100);
    break;
  default: /* native */
    for (int ahead; (ahead = -weft__units(g, mine)) >= 0;) {
      weft__sleep_behind((unsigned)ahead + 1);
      g = weft__load(given);
    }
    break;
  }
}

/* The same for every algorithm, and reads nothing (see weft__algorithm);
 * nobody waits for its old value. */
static __device__ __forceinline__ void weft_semaphore_post(
    weft_semaphore *s) {
  weft__add_release(&s->word[0], 1);
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
