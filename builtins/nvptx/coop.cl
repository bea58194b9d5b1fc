/*
 * coop.cl: cooperative kernels (cl_weft_cooperative_kernels) on the GPU, a
 * persistent-thread scheme as in the Cooperative Kernels paper. The launch
 * is a pool of resident blocks (backend/cuda/cuda_launch.c launches as
 * many as fit, at most the launch's groups); a block runs a group, and
 * when the group ends (killed or done) takes the next forked one, or
 * leaves once nothing runs and nothing waits to start. The kernel's entry
 * loops over __weft_coop_first/next and __weft_coop_leave around its body
 * (jit/ptx/ptx_kernels.c), in which get_group_id(0) and get_num_groups(0)
 * read the block's group (__weft_coop_group_id, _num_groups).
 *
 * The points' primitives (jit/ir/fork_points.c) are the CPU's
 * (backend/cpu/resize.c) over a state in global memory, every decision
 * under one lock: the groups running are numbered 0 to live - 1; the
 * group with the highest id (never 0) may end at offer_kill; forks get
 * ids on from live and wait in a ring, each with a copy of the forking
 * group's transmit records; the last group to arrive at the resizing
 * barrier sets how many go on. The policy: all the pool's blocks
 * ("threads"), or WEFT_RESIZE=churn's. Work-item 0 acts for the group,
 * between the barriers the points put around it. Under "threads" no
 * group is killed or forked (a GPU's pool gives no blocks to other
 * launches yet): the points decide nothing, and the resizing barrier is
 * a plain one.
 */
#include "weft/kernel.h"
#include "../builtins.h"
#include "../sync.h"
#include "target.h"

/* The state's words: weft/kernel.h's WEFT__COOP_*. */
enum {
  LOCK = WEFT__COOP_LOCK, LIVE = WEFT__COOP_LIVE,
  RUNNING = WEFT__COOP_RUNNING, MAX = WEFT__COOP_MAX,
  INITIAL = WEFT__COOP_INITIAL, POLICY = WEFT__COOP_POLICY,
  HEAD = WEFT__COOP_HEAD, TAIL = WEFT__COOP_TAIL,
  ARRIVED = WEFT__COOP_ARRIVED, GENERATION = WEFT__COOP_GENERATION,
  TARGET0 = WEFT__COOP_TARGET0, SITE0 = WEFT__COOP_SITE0,
  BLOCK0 = WEFT__COOP_BLOCK0, RECORDS = WEFT__COOP_RECORDS,
  RING = WEFT__COOP_RING, TRANSMIT = WEFT__COOP_TRANSMIT,
  ITEMS = WEFT__COOP_ITEMS, DONE = WEFT__COOP_DONE
};
/* The block's words in shared memory: its group's id, resume site, count
 * as of its last point, whether it ends at the point, whether it runs,
 * the launch's policy, and (two words) the address of the block's
 * transmit records (read once: global reads cost most of a point). */
enum { B_ID, B_SITE, B_GROUPS, B_EXIT, B_GO, B_CHURN, B_RECORDS };

__global ulong *__weft_coop_state(void) __attribute__((const));
__local uint *__weft_coop_block(void) __attribute__((const));
void __weft_wait(volatile __global uint *word, uint expected, uint what);

static volatile __global ulong *state(void) { return __weft_coop_state(); }

static uint block_index(void) { return __nvvm_read_ptx_sreg_ctaid_x(); }

static int first_item(void) {
  return !__nvvm_read_ptx_sreg_tid_x() && !__nvvm_read_ptx_sreg_tid_y() &&
         !__nvvm_read_ptx_sreg_tid_z();
}

static void lock(volatile __global ulong *s) {
  volatile __global uint *word = (volatile __global uint *)&s[LOCK];
  uint ns = 32;
  while (__atomic_exchange_n(word, 1u, __ATOMIC_ACQUIRE)) {
    __nvvm_nanosleep(ns);
    if (ns < 1024) ns *= 2;
  }
}

static void unlock(volatile __global ulong *s) {
  __atomic_store_n((volatile __global uint *)&s[LOCK], 0u, __ATOMIC_RELEASE);
}

/* Transmit records number k: block k's for k < max, else ring entry
 * k - max's. */
static volatile __global ulong *records(volatile __global ulong *s, ulong k) {
  ulong bytes = s[ITEMS] * s[TRANSMIT];
  return (volatile __global ulong *)(s[RECORDS] + k * bytes);
}

static void copy_records(volatile __global ulong *s, ulong from, ulong to) {
  volatile __global ulong *a = records(s, from), *b = records(s, to);
  for (ulong i = 0, n = s[ITEMS] * s[TRANSMIT] / 8; i < n; i++) b[i] = a[i];
}

/* Forks n groups resuming after site with block from's records (lock
 * held). */
static void fork_groups(volatile __global ulong *s, ulong n, uint site,
                        ulong from) {
  volatile __global ulong *ring = (volatile __global ulong *)s[RING];
  ulong max = s[MAX];
  for (ulong i = 0; i < n; i++) {
    ulong at = s[TAIL] % max;
    ring[at] = (ulong)site << 32 | (s[LIVE] + i);
    if (s[TRANSMIT]) copy_records(s, from, max + at);
    s[TAIL] += 1;
  }
  s[LIVE] += n;
  /* Atomic: a group leaving counts itself out without the lock. */
  __atomic_fetch_add((volatile __global ulong *)&s[RUNNING], n,
                     __ATOMIC_RELAXED);
}

static int churn(volatile __global ulong *s) {
  return s[POLICY] == WEFT__COOP_CHURN;
}

/* The block's transmit records, as coop_first noted them. */
static __local ulong *block_records(__local uint *b) {
  return (__local ulong *)&b[B_RECORDS];
}

/* When every group running has arrived (lock held): how many go on, the
 * forks, the opening. */
static void open_barrier(volatile __global ulong *s) {
  ulong arrived = __atomic_load_n((volatile __global ulong *)&s[ARRIVED],
                                  __ATOMIC_ACQUIRE);
  if (!arrived || arrived < s[LIVE]) return;
  ulong live = s[LIVE], max = s[MAX];
  ulong target = churn(s) ? (live > 1 ? 1 : max) : max;
  if (target > live) fork_groups(s, target - live, (uint)s[SITE0], s[BLOCK0]);
  else s[LIVE] = target;
  ulong opened = s[GENERATION] + 1;
  s[TARGET0 + (opened & 1)] = s[LIVE];
  /* Every group running has arrived and waits: none adds to it now. */
  __atomic_store_n((volatile __global ulong *)&s[ARRIVED], 0ul,
                   __ATOMIC_RELAXED);
  __atomic_store_n((volatile __global uint *)&s[GENERATION], (uint)opened,
                   __ATOMIC_RELEASE);
}

/* A forked group for this block, if one waits (lock held): its id and
 * site, its records copied to the block's. */
static int take_start(volatile __global ulong *s, __local uint *b) {
  if (s[HEAD] == s[TAIL]) return 0;
  volatile __global ulong *ring = (volatile __global ulong *)s[RING];
  ulong max = s[MAX], at = s[HEAD] % max, e = ring[at];
  b[B_ID] = (uint)e;
  b[B_SITE] = (uint)(e >> 32);
  if (s[TRANSMIT]) copy_records(s, max + at, block_index());
  s[HEAD] += 1;
  return 1;
}

/* Work-item 0: waits for a group to run (1) or the end (0). Only taking
 * a fork takes the lock: an idle pool polling under it held up the groups
 * that run (every point takes it), and the end is final (nothing runs,
 * so no fork waits or can be made), so that the pool's blocks leave
 * without it (132 blocks taking it in turn at the end cost a launch 0.28
 * ms on an H200). A deadlocked launch's waits stop; so does the pool. */
static uint wait_start(volatile __global ulong *s, __local uint *b) {
  uint ns = 64;
  for (;;) {
    int empty = s[HEAD] == s[TAIL];
    if (empty && __atomic_load_n((volatile __global ulong *)&s[DONE],
                                 __ATOMIC_ACQUIRE))
      return 0;
    if (__weft_gpu_gave_up()) return 0;
    if (empty) {
      __nvvm_nanosleep(ns);
      if (ns < 8192) ns *= 2;
      continue;
    }
    lock(s);
    uint go = take_start(s, b);
    if (go) b[B_GROUPS] = (uint)s[LIVE];
    unlock(s);
    if (go) return 1;
  }
}

uint __attribute__((convergent)) __weft_coop_first(void) {
  __local uint *b = __weft_coop_block();
  if (first_item()) {
    volatile __global ulong *s = state();
    uint slot = block_index();
    b[B_CHURN] = churn(s);
    *block_records(b) = (ulong)records(s, slot);
    if (slot < s[INITIAL]) {
      b[B_ID] = slot;
      b[B_SITE] = 0;
      /* A look without the lock: the count another group may be changing
       * is as good a count for a start as one read under the lock, which
       * a pool's blocks starting at once took in turn (a microsecond
       * each, 132 blocks on an H200). */
      b[B_GROUPS] = (uint)__atomic_load_n(
          (volatile __global ulong *)&s[LIVE], __ATOMIC_ACQUIRE);
      b[B_GO] = 1;
    } else {
      b[B_GO] = wait_start(s, b);
    }
  }
  __nvvm_bar_sync(0);
  return b[B_GO];
}

/* After a wait of the launch gave up, its work-item 0 may have stopped
 * (PTX exit) while the others went on: they leave too, rather than run
 * the group again on what it left in shared memory. */
uint __attribute__((convergent)) __weft_coop_next(void) {
  __local uint *b = __weft_coop_block();
  if (first_item()) b[B_GO] = wait_start(state(), b);
  __nvvm_bar_sync(0);
  return b[B_GO] && !__weft_gpu_gave_up();
}

/* The group ended (killed, or done): once nothing runs and no fork waits,
 * the pool leaves. RUNNING counts forks from when they are made, so it
 * is 0 only when none waits either; it is counted down without the lock,
 * which a pool's blocks ending at once took in turn. */
void __attribute__((convergent)) __weft_coop_leave(void) {
  __nvvm_bar_sync(0);
  if (!first_item()) return;
  volatile __global ulong *s = state();
  if (__atomic_sub_fetch((volatile __global ulong *)&s[RUNNING], 1ul,
                         __ATOMIC_ACQ_REL) == 0)
    __atomic_store_n((volatile __global ulong *)&s[DONE], 1ul,
                     __ATOMIC_RELEASE);
}

uint __weft_coop_group_id(void) { return __weft_coop_block()[B_ID]; }
uint __weft_coop_num_groups(void) { return __weft_coop_block()[B_GROUPS]; }
uint __weft_resume_site(void) { return __weft_coop_block()[B_SITE]; }
uint __weft_coop_exit(void) { return __weft_coop_block()[B_EXIT]; }

/* Every work-item at every point that transmits: from shared memory, not
 * the state's three words (three global reads a work-item a point). */
uchar *__weft_transmit_slot(ulong size) {
  ulong item = __nvvm_read_ptx_sreg_tid_x() +
               __nvvm_read_ptx_sreg_ntid_x() *
                   (__nvvm_read_ptx_sreg_tid_y() +
                    __nvvm_read_ptx_sreg_ntid_y() * __nvvm_read_ptx_sreg_tid_z());
  ulong records = *block_records(__weft_coop_block());
  return (uchar *)(__global uchar *)records + item * size;
}

uint __weft_query_kill(void) {
  volatile __global ulong *s = state();
  ulong live = s[LIVE], keep = churn(s) ? 1 : s[MAX];
  return live > keep ? (uint)(live - keep) : 0;
}

/* The resizing barrier under "threads", where no group is ever killed
 * or forked (the pool's blocks all run, b[B_GROUPS] of them, ids from 0):
 * weft_global_barrier()'s algorithm on the state's ARRIVED word, without
 * the lock and the state's words that the general one reads one after
 * another (8.2 us a barrier on an H200 against weft_global_barrier()'s
 * 3.0). */
static void fixed_barrier(volatile __global ulong *s, __local uint *b) {
  __global uint *word = (__global uint *)&s[ARRIVED];
  uint n = b[B_GROUPS];
  uint add = b[B_ID] == 0u ? WEFT__FLIP - (n - 1u) : 1u;
  weft__sync_await_flip(word, weft__fetch_add(word, add));
}

/* The resizing barrier, work-item 0. An arrival is an atomic count; only
 * the one that may complete it (or a kill: a group fewer to wait for)
 * takes the lock, to open it: 500 groups taking it in turn cost a
 * millisecond a barrier. Group 0 names its site and block first. */
static void resizing_barrier(volatile __global ulong *s, __local uint *b,
                             uint site) {
  if (!b[B_CHURN]) {
    fixed_barrier(s, b);
    return;
  }
  uint id = b[B_ID];
  volatile __global uint *word = (volatile __global uint *)&s[GENERATION];
  uint generation = __atomic_load_n(word, __ATOMIC_ACQUIRE);
  if (!id) {
    s[SITE0] = site;
    s[BLOCK0] = block_index();
  }
  ulong arrived = __atomic_add_fetch((volatile __global ulong *)&s[ARRIVED],
                                     1ul, __ATOMIC_ACQ_REL);
  if (arrived >= s[LIVE]) {
    lock(s);
    open_barrier(s);
    unlock(s);
  }
  __weft_wait(word, generation, WEFT__WAIT_BARRIER);
  /* As on the CPU: a later opening than this group's went without it. */
  uint opened = generation + 1;
  ulong target = s[TARGET0 + (opened & 1)];
  int later = __atomic_load_n(word, __ATOMIC_ACQUIRE) != opened;
  b[B_EXIT] = later || id >= target;
  b[B_GROUPS] = (uint)(later ? s[LIVE] : target);
}

void __weft_coop_point(uint kind, uint site) {
  volatile __global ulong *s = state();
  __local uint *b = __weft_coop_block();
  uint id = b[B_ID];
  b[B_EXIT] = 0;
  if (kind == WEFT__POINT_RESIZING_BARRIER) {
    resizing_barrier(s, b, site);
    return;
  }
  /* Under "threads" every block of the pool is wanted, none is ever
   * killed, so none is ever to fork: the points are no-ops (a GPU's pool
   * gives no blocks to other launches yet). */
  if (!b[B_CHURN]) return;
  /* Nothing to do, as a look without the lock sees it. */
  ulong live = s[LIVE];
  int may = kind == WEFT__POINT_OFFER_KILL
                ? id && id + 1 == live && (churn(s) || live > s[MAX])
                : live < s[MAX];
  if (!may) {
    b[B_GROUPS] = (uint)live;
    return;
  }
  lock(s);
  if (kind == WEFT__POINT_OFFER_KILL) {
    if (id && id + 1 == s[LIVE] && (churn(s) || s[LIVE] > s[MAX])) {
      s[LIVE] = id;
      b[B_EXIT] = 1;
      open_barrier(s);
    }
  } else {
    /* Either policy wants every block of the pool running. */
    ulong room = s[MAX] - s[LIVE];
    if (room) fork_groups(s, room, site, block_index());
  }
  b[B_GROUPS] = (uint)s[LIVE];
  unlock(s);
}
