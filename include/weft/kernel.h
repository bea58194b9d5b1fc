/*
 * weft/kernel.h: Weft's OpenCL C extension, cl_weft_sync: work-groups that
 * wait for each other. Every kernel Weft builds sees this header (the
 * front end includes it); a kernel meant for other platforms too can test
 * #ifdef cl_weft_sync.
 *
 * The objects live in global memory, in a buffer the host initializes
 * (writing the bytes given below, e.g. with weft_buffer_write or
 * clEnqueueWriteBuffer) or a kernel does (weft_*_init below), before the
 * work-groups that use them start.
 *
 * The work-item functions act for the work-item that calls them: with the
 * spec's barrier() around them, one work-item can act for its group. The
 * _group functions do that for you: every work-item of the group calls
 * them (as with barrier()), one of them acts, the others wait for it.
 *
 * On the CPU these never hang a correct kernel: a waiting group yields its
 * thread to the others, whatever the numbers of groups and threads. A
 * kernel whose groups wait for each other for ever fails with
 * WEFT_EDEADLOCK, naming each waiting group and what it waits on, with
 * every algorithm below: a group that spins is not run again until the
 * word it polls changes, so groups that all poll words nobody running can
 * change are a deadlock.
 *
 * Algorithms. Each object records, in its last word, the algorithm it was
 * initialized with (weft_*_init_with); 0 there means the default, which is
 * the program's build option (-DWEFT_MUTEX_IMPL=WEFT_MUTEX_TICKET,
 * -DWEFT_SEMAPHORE_IMPL=..., -DWEFT_BARRIER_IMPL=..., and for
 * weft_global_barrier() -DWEFT_GLOBAL_BARRIER_IMPL=..., which follows
 * WEFT_BARRIER_IMPL unless given) if it has one, else the machine's
 * default: the one `weft bench probe` chose and wrote to the sync-defaults
 * file in the kernel cache's folder, which Weft adds as those options to
 * a program that gives none of its own, or native without that file. All
 * the kernels that use one object must agree on its algorithm: give it at
 * init, or build them with the same option.
 * The paper's algorithms are Stuart & Owens, "Efficient Synchronization
 * Primitives for GPUs" (2011), and Xiao & Feng, "Inter-block GPU
 * communication via fast barrier synchronization" (2010).
 *
 * A C program may include this header too: it then sees only the
 * constants and sizes, for writing objects from the host.
 */
#ifndef WEFT_KERNEL_H
#define WEFT_KERNEL_H

/* Mutex algorithms. A mutex is 4 uint words, {lock, a, b, algorithm};
 * all zero is an unlocked mutex of the default algorithm, and {0, 0, 0,
 * A} one of algorithm A. Every algorithm's first try is one
 * compare-and-swap of the lock word from 0 to 1, and on the GPU every
 * unlock clears its bit 0.
 *   NATIVE        the device's own. CPU {state: 0 free, 1 held, 2 held
 *                 and waited for}: parks in the runtime (futex-like). GPU
 *                 {lock: 1 held}: sleeps a random time in a window that
 *                 doubles, until a load finds it free, then tries again.
 *   SPIN          {lock: 1 held}: compare-and-swap until it succeeds
 *                 (Alg. 1).
 *   SPIN_BACKOFF  {lock: 1 held}: the same, waiting longer after each
 *                 failure (Alg. 2).
 *   TICKET        {lock: 1 while held, plus 2 per ticket ever drawn; 0;
 *                 ticket whose turn it is}: fetch-and-add a ticket, wait
 *                 for its turn, take the lock when free (Alg. 3); first
 *                 come, first served: once a ticket is drawn, no first
 *                 try succeeds. */
#define WEFT_MUTEX_DEFAULT 0
#define WEFT_MUTEX_NATIVE 1
#define WEFT_MUTEX_SPIN 2
#define WEFT_MUTEX_SPIN_BACKOFF 3
#define WEFT_MUTEX_TICKET 4

/* Semaphore algorithms. A semaphore is 4 uint words, {count, 0, 0,
 * algorithm} when initialized with count free units, for every algorithm.
 * All but the CPU's native one count {given: count plus one per post;
 * drawn: one per wait}: a wait's unit is free once given has passed it,
 * and given minus drawn is the free units, negative while groups wait.
 *   NATIVE        the device's own. CPU {count, waiters}: parks in the
 *                 runtime when no unit is free. GPU {given, drawn}: sleeps
 *                 in proportion to the units ahead of its own; first come,
 *                 first served.
 *   SPIN          {given, drawn, taken}: takes a lock (taken's top bit),
 *                 takes a unit if given passed taken, unlocks; spins
 *                 (Alg. 4).
 *   SPIN_BACKOFF  the same, waiting longer after each failure.
 *   SLEEPING      {given, drawn}: a waiter whose unit is not free sleeps
 *                 until the posts give it (Alg. 5); the waiters that queue
 *                 are served first come, first served. */
#define WEFT_SEMAPHORE_DEFAULT 0
#define WEFT_SEMAPHORE_NATIVE 1
#define WEFT_SEMAPHORE_SPIN 2
#define WEFT_SEMAPHORE_SPIN_BACKOFF 3
#define WEFT_SEMAPHORE_SLEEPING 4

/* Barrier algorithms. A barrier is 4 uint words, {0, 0, groups,
 * algorithm} when initialized for that many work-groups, for every
 * algorithm; the Xiao-Feng one needs room after them for 2 * groups more
 * words, zero at first (WEFT_BARRIER_SIZE).
 *   NATIVE        the device's own. CPU {arrived, generation, groups}:
 *                 the last group to arrive starts the next generation and
 *                 wakes the others. GPU {count, 0, groups}: each group
 *                 adds to the count so that the last arrival flips its top
 *                 bit and leaves the rest where it started; the others
 *                 poll the top bit.
 *   TWO_STAGE     {count 1, count 2, groups}: every group counts itself in
 *                 twice, in two counters, and waits for the last of each
 *                 stage to reset its counter (the second stage keeps a fast
 *                 group from counting itself into the next use early).
 *   XIAO_FENG     {0, 0, groups}, then arrived[groups], released[groups]:
 *                 each group raises its own arrival flag; group 0 waits for
 *                 all of them, then raises each group's release flag. A
 *                 flag counts the uses of the barrier, in its low 31 bits;
 *                 only one group raises it and one waits on it (and sets
 *                 its top bit before it sleeps). Groups are indexed by
 *                 their linear group id, which must be less than groups. */
#define WEFT_BARRIER_DEFAULT 0
#define WEFT_BARRIER_NATIVE 1
#define WEFT_BARRIER_TWO_STAGE 2
#define WEFT_BARRIER_XIAO_FENG 3

/* What a waiting group waits on, which a deadlock report names (the
 * runtime's WEFT_WAIT_* in jit/kernel_abi.h): private to the library's
 * algorithms (weft/sync_algorithms.h) and the runtimes they wait in. */
#define WEFT__WAIT_MUTEX 1u
#define WEFT__WAIT_SEMAPHORE 2u
#define WEFT__WAIT_BARRIER 3u
/* Or'ed into a poll's what: wait until the counter reaches the value (the
 * runtime's WEFT_POLL_REACH). */
#define WEFT__POLL_REACH 0x80000000u

/* The points of a cooperative kernel (cl_weft_cooperative_kernels below)
 * that the JIT expands (jit/ir/fork_points.c): private to the library. */
#define WEFT__POINT_OFFER_KILL 1u
#define WEFT__POINT_REQUEST_FORK 2u
#define WEFT__POINT_RESIZING_BARRIER 3u

/* A GPU's cooperative kernel runs on a pool of resident blocks whose
 * state is uint64 words in global memory (builtins/nvptx/coop.cl), which
 * the runtime writes before the launch (backend/cuda/cuda_launch.c): the
 * lock; the groups running (live; forks not started yet included in
 * running); the pool's blocks (max); the groups it starts with; the
 * policy (1: WEFT_RESIZE=churn); the ring of forks [head, tail); the
 * resizing barrier's arrivals, generation, targets by its parity, and
 * group 0's site and block; the transmit records (a block's, then a ring
 * entry's, each items * transmit bytes) and the ring; whether all is
 * done; the blocks other launches want (the runtime raises and lowers it
 * as they come and go); the blocks in the pool (running a group or
 * waiting for one); the tickets blocks take as they start (those below
 * initial are the launch's own, the others join later); the free block
 * slots, a stack of that many at slots; whether the pool shares (1: every
 * point and barrier looks at the state) or runs fast (a kernel with
 * resizing barriers while nobody else wants blocks); the fast barrier's
 * word; whether the kernel has resizing barriers; and three words, by
 * fast barrier mod 3, that say the pool shares after it; for a pool
 * that fills the GPU, its blocks on each multiprocessor (0: another
 * pool) and the address of the words that number its multiprocessors
 * and their blocks (WEFT__COOP_SM_WORDS). Private to the library and the
 * runtime. */
enum {
  /* The first 128-byte line: nothing a fast barrier polls or adds to
   * (the fast barrier's reads of DEMAND and SWITCH kept off the line
   * every group adds to; on an H200 that changed nothing measurable). */
  WEFT__COOP_LOCK, WEFT__COOP_LIVE, WEFT__COOP_RUNNING, WEFT__COOP_MAX,
  WEFT__COOP_INITIAL, WEFT__COOP_POLICY, WEFT__COOP_HEAD, WEFT__COOP_TAIL,
  WEFT__COOP_DEMAND, WEFT__COOP_SWITCH0, WEFT__COOP_SWITCH1,
  WEFT__COOP_SWITCH2, WEFT__COOP_SITE0, WEFT__COOP_BLOCK0,
  WEFT__COOP_RECORDS, WEFT__COOP_RING,
  /* The second: the barriers' words. */
  WEFT__COOP_TRANSMIT, WEFT__COOP_ITEMS, WEFT__COOP_DONE, WEFT__COOP_PRESENT,
  WEFT__COOP_TICKET, WEFT__COOP_FREE, WEFT__COOP_SLOTS, WEFT__COOP_SHARING,
  WEFT__COOP_ARRIVED, WEFT__COOP_GENERATION, WEFT__COOP_TARGET0,
  WEFT__COOP_TARGET1, WEFT__COOP_FAST, WEFT__COOP_BARRIERS,
  WEFT__COOP_PER_SM, WEFT__COOP_SMS,
  WEFT__COOP_WORDS_USED
};
/* The 32-bit words at WEFT__COOP_SMS, zero at the start: the
 * multiprocessors numbered so far, then two a multiprocessor by its PTX
 * %smid (its number + 1 once its first block gave it one, and its blocks
 * so far), for %smid below WEFT__COOP_SM_IDS. */
#define WEFT__COOP_SM_IDS 1024u
#define WEFT__COOP_SM_WORDS (1u + 2u * WEFT__COOP_SM_IDS)
#define WEFT__COOP_CHURN 1u

/* Bytes of a barrier of the given algorithm for that many groups. */
#define WEFT_BARRIER_SIZE(algorithm, groups)                                 \
  ((algorithm) == WEFT_BARRIER_XIAO_FENG ? 16 + 8 * (groups) : 16)

#ifdef __OPENCL_C_VERSION__

#define cl_weft_sync 1

/* The program's default algorithms, from its build options. */
#ifndef WEFT_MUTEX_IMPL
#define WEFT_MUTEX_IMPL WEFT_MUTEX_DEFAULT
#endif
#ifndef WEFT_SEMAPHORE_IMPL
#define WEFT_SEMAPHORE_IMPL WEFT_SEMAPHORE_DEFAULT
#endif
#ifndef WEFT_BARRIER_IMPL
#define WEFT_BARRIER_IMPL WEFT_BARRIER_DEFAULT
#endif
/* weft_global_barrier(): native or TWO_STAGE (others run native). */
#ifndef WEFT_GLOBAL_BARRIER_IMPL
#define WEFT_GLOBAL_BARRIER_IMPL WEFT_BARRIER_IMPL
#endif

/* A mutual exclusion lock (16 bytes). */
typedef struct weft_mutex {
  uint word[4];
} weft_mutex;

/* A counting semaphore (16 bytes; its count is set when initialized). */
typedef struct weft_semaphore {
  uint word[4];
} weft_semaphore;

/* A barrier for a given number of work-groups (16 bytes, or
 * WEFT_BARRIER_SIZE(WEFT_BARRIER_XIAO_FENG, groups)). */
typedef struct weft_barrier {
  uint word[4];
} weft_barrier;

/* The functions below are macros over the library's weft__* functions,
 * which take the program's default algorithm as their last argument (the
 * library is compiled once, so the build option must travel this way). */

/* Initializes m, unlocked, with the default algorithm or a given one. */
#define weft_mutex_init(m) weft__mutex_init((m), WEFT_MUTEX_DEFAULT)
#define weft_mutex_init_with(m, algorithm) weft__mutex_init((m), (algorithm))
#define weft_mutex_lock(m) weft__mutex_lock((m), WEFT_MUTEX_IMPL)
/* 1 if it took the mutex, 0 if the mutex was held. */
#define weft_mutex_trylock(m) weft__mutex_trylock((m), WEFT_MUTEX_IMPL)
#define weft_mutex_unlock(m) weft__mutex_unlock((m), WEFT_MUTEX_IMPL)
#define weft_mutex_lock_group(m) weft__mutex_lock_group((m), WEFT_MUTEX_IMPL)
#define weft_mutex_unlock_group(m)                                           \
  weft__mutex_unlock_group((m), WEFT_MUTEX_IMPL)

/* Initializes s with count free units. */
#define weft_semaphore_init(s, count)                                        \
  weft__semaphore_init((s), (count), WEFT_SEMAPHORE_DEFAULT)
#define weft_semaphore_init_with(s, count, algorithm)                        \
  weft__semaphore_init((s), (count), (algorithm))
#define weft_semaphore_wait(s) weft__semaphore_wait((s), WEFT_SEMAPHORE_IMPL)
#define weft_semaphore_post(s) weft__semaphore_post((s), WEFT_SEMAPHORE_IMPL)
#define weft_semaphore_wait_group(s)                                         \
  weft__semaphore_wait_group((s), WEFT_SEMAPHORE_IMPL)
#define weft_semaphore_post_group(s)                                         \
  weft__semaphore_post_group((s), WEFT_SEMAPHORE_IMPL)

/* Initializes b for that many groups (and, for the Xiao-Feng algorithm,
 * chosen here or by the build option, zeroes its flags: b must have room
 * for them). */
#define weft_barrier_init(b, groups)                                         \
  weft__barrier_init((b), (groups), WEFT_BARRIER_DEFAULT, WEFT_BARRIER_IMPL)
#define weft_barrier_init_with(b, groups, algorithm)                         \
  weft__barrier_init((b), (groups), (algorithm), WEFT_BARRIER_IMPL)
/* Every work-item of each of the groups the barrier counts calls it; none
 * goes on before all those groups have arrived. */
#define weft_barrier_wait(b) weft__barrier_wait((b), WEFT_BARRIER_IMPL)

/* A barrier over every work-group of the launch, which must all be
 * resident at once (Weft holds up to 65536). Every work-item calls it.
 * It uses the native algorithm, or the two-stage one if the build option
 * asks for it (the Xiao-Feng one would need per-group storage that a
 * launch does not have: that option gets the native one here). */
#define weft_global_barrier() weft__global_barrier(WEFT_GLOBAL_BARRIER_IMPL)

/* cl_weft_cooperative_kernels: Sorensen, Evrard and Donaldson's
 * "Cooperative Kernels: GPU Multitasking for Blocking Algorithms" (FSE
 * 2017). A long-running kernel whose groups wait for each other gives
 * work-groups back to the device at points where that is safe and takes
 * them again when they are free. While it runs, its groups are numbered
 * 0 to get_num_groups(0) - 1 with no gap, and get_num_groups(0) (and
 * get_global_size(0)) say how many ran as of the group's last point below
 * (or its start): between two of its points a group sees one count. The
 * launch's own group count is the most it may have. Such
 * a kernel is launched in one dimension. Every work-item of a group calls
 * each of these functions, as with barrier() (they are work-group
 * barriers too), and a group holds no lock across them:
 *   offer_kill()               the group may end here, as if every one of
 *                              its work-items returned: only the group
 *                              with the highest id, never group 0.
 *   request_fork()             new groups may start here, numbered on from
 *                              the highest, each running from this call
 *                              on with the transmit variables of the
 *                              work-item of its local id in this group
 *                              (its other private variables undefined,
 *                              its __local memory new).
 *   resizing_global_barrier()  a barrier over every group running; past
 *                              it the number of groups may have changed:
 *                              those numbered past the new count end
 *                              there, new ones start from it with group
 *                              0's transmit variables.
 *   query_kill()               how many groups the device would take back
 *                              now (0: none), for a kernel to decide
 *                              whether to pass through a resizing barrier;
 *                              any work-item may call it.
 * transmit (or weft_transmit, if the program defines WEFT_NO_TRANSMIT to
 * keep the name for itself) qualifies a private variable of the kernel
 * whose value a forked group's work-items start with. The CPU starts a
 * launch with as many groups as it has threads (at most the launch's),
 * and WEFT_RESIZE sets when it kills and forks (README); under a
 * WEFT_SCHEDULE mode it kills and forks at random. A GPU runs the groups
 * on a pool of resident blocks (as many as fit, at most the launch's). */
#define cl_weft_cooperative_kernels 1
#define weft_transmit __attribute__((annotate("weft.transmit")))
#ifndef WEFT_NO_TRANSMIT
#define transmit weft_transmit
#endif
void __attribute__((convergent)) offer_kill(void);
void __attribute__((convergent)) request_fork(void);
void __attribute__((convergent)) resizing_global_barrier(void);
uint query_kill(void);

/* cl_weft_schedule: schedule exploration (README); its kernel side is
 * weft_assert. */
#define cl_weft_schedule 1

/* weft_assert(condition): in a testing build (a WEFT_SCHEDULE mode, check
 * mode, or the build option -cl-weft-assert, on the CPU), a work-item for
 * which condition is false ends the launch with WEFT_ECHECK, naming the
 * condition, the kernel, the work-item, the line and the schedule's seed.
 * Elsewhere (a plain build, a GPU) it compiles to nothing, and condition is
 * not evaluated. */
#ifdef __WEFT_ASSERT__
void __weft_assert_failed(__constant char *condition);
#define weft_assert(condition)                                               \
  ((condition) ? (void)0 : __weft_assert_failed(#condition))
#else
#define weft_assert(condition) ((void)0)
#endif

void weft__mutex_init(__global weft_mutex *m, uint algorithm);
void weft__mutex_lock(__global weft_mutex *m, uint impl);
int weft__mutex_trylock(__global weft_mutex *m, uint impl);
void weft__mutex_unlock(__global weft_mutex *m, uint impl);
void __attribute__((convergent))
weft__mutex_lock_group(__global weft_mutex *m, uint impl);
void __attribute__((convergent))
weft__mutex_unlock_group(__global weft_mutex *m, uint impl);

void weft__semaphore_init(__global weft_semaphore *s, int count,
                          uint algorithm);
void weft__semaphore_wait(__global weft_semaphore *s, uint impl);
void weft__semaphore_post(__global weft_semaphore *s, uint impl);
void __attribute__((convergent))
weft__semaphore_wait_group(__global weft_semaphore *s, uint impl);
void __attribute__((convergent))
weft__semaphore_post_group(__global weft_semaphore *s, uint impl);

void weft__barrier_init(__global weft_barrier *b, uint groups,
                        uint algorithm, uint impl);
void __attribute__((convergent))
weft__barrier_wait(__global weft_barrier *b, uint impl);
void __attribute__((convergent)) weft__global_barrier(uint impl);

#endif /* __OPENCL_C_VERSION__ */

#endif
