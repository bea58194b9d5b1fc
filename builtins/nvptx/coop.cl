/*
 * coop.cl: cooperative kernels (cl_weft_cooperative_kernels) on the GPU, a
 * persistent-thread scheme as in the Cooperative Kernels paper. The launch
 * is a pool of resident blocks (backend/cuda/cuda_launch.c launches as
 * many as fit, at most the launch's groups); a block runs a group, and
 * when the group ends (killed or done) takes the next forked one, leaves
 * the GPU to other launches when they want blocks, or leaves once nothing
 * runs and nothing waits to start. Blocks of the kernel launched later
 * (backend/cuda/cuda_pool.c, when a launch beside the pool has ended)
 * join it in the slots of those that left (join_pool) and wait for forks.
 * The kernel's entry loops over __weft_coop_first/next
 * and __weft_coop_leave around its body (jit/ptx/ptx_kernels.c), in which
 * get_group_id(0) and get_num_groups(0) read the block's group
 * (__weft_coop_group_id, _num_groups).
 *
 * The points' primitives (jit/ir/fork_points.c) are the CPU's
 * (backend/cpu/resize.c) over a state in global memory, every decision
 * under one lock: the groups running are numbered 0 to live - 1; the
 * group with the highest id (never 0) may end at offer_kill; forks get
 * ids on from live and wait in a ring, each with a copy of the forking
 * group's transmit records; the last group to arrive at the resizing
 * barrier sets how many go on. The groups wanted: all the pool's blocks
 * but those other launches want (DEMAND, which the runtime sets), or
 * WEFT_RESIZE=churn's one; forks only as many as idle blocks can take.
 * Work-item 0 acts for the group, between the barriers the points put
 * around it.
 *
 * Two modes. Sharing: every point looks at the state, the resizing
 * barrier counts arrivals under the state's rules. Fast, for a kernel
 * with resizing barriers under the "threads" policy while no other launch
 * wants blocks (every group of the pool runs, none is killed or forked):
 * the points are no-ops and the resizing barrier is weft_global_barrier()'s
 * flip algorithm on the FAST word. Group 0 reads DEMAND while it waits at
 * each fast barrier; having seen one, it says with its arrival at the
 * next that the pool shares after the one after (fast_barrier). A sharing
 * barrier that opens with no demand and every block running goes back.
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
  ITEMS = WEFT__COOP_ITEMS, DONE = WEFT__COOP_DONE,
  DEMAND = WEFT__COOP_DEMAND, PRESENT = WEFT__COOP_PRESENT,
  TICKET = WEFT__COOP_TICKET, FREE = WEFT__COOP_FREE,
  SLOTS = WEFT__COOP_SLOTS, SHARING = WEFT__COOP_SHARING,
  FAST = WEFT__COOP_FAST, BARRIERS = WEFT__COOP_BARRIERS,
  SWITCH0 = WEFT__COOP_SWITCH0, PER_SM = WEFT__COOP_PER_SM,
  SMS = WEFT__COOP_SMS
};
/* The block's words in shared memory: its group's id, resume site, count
 * as of its last point, whether it ends at the point, whether it runs,
 * the launch's policy, (two words) the address of the block's transmit
 * records (read once: global reads cost most of a point), its slot, the
 * mode its group runs in (1: sharing), group 0's last look at DEMAND,
 * and the fast barriers passed since the pool last ran fast, mod 3. */
enum {
  B_ID, B_SITE, B_GROUPS, B_EXIT, B_GO, B_CHURN, B_RECORDS, B_SLOT = 8,
  B_SHARING, B_DEMAND, B_PHASE, B_WORDS
};

__global ulong *__weft_coop_state(void) __attribute__((const));
__local uint *__weft_coop_block(void) __attribute__((const));
void __weft_wait(volatile __global uint *word, uint expected, uint what);

static volatile __global ulong *state(void) { return __weft_coop_state(); }

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

static ulong atomic_look(volatile __global ulong *s, uint word) {
  return __atomic_load_n((volatile __global ulong *)&s[word], __ATOMIC_ACQUIRE);
}

/* Transmit records number k: slot k's for k < max, else ring entry
 * k - max's. */
static volatile __global ulong *records(volatile __global ulong *s, ulong k) {
  ulong bytes = s[ITEMS] * s[TRANSMIT];
  return (volatile __global ulong *)(s[RECORDS] + k * bytes);
}

static void copy_records(volatile __global ulong *s, ulong from, ulong to) {
  volatile __global ulong *a = records(s, from), *b = records(s, to);
  for (ulong i = 0, n = s[ITEMS] * s[TRANSMIT] / 8; i < n; i++) b[i] = a[i];
}

static int churn(volatile __global ulong *s) {
  return s[POLICY] == WEFT__COOP_CHURN;
}

/* The groups the pool is to run: all its blocks but those other launches
 * want, never fewer than one. */
static ulong wanted(volatile __global ulong *s) {
  ulong max = s[MAX], demand = s[DEMAND];
  return demand < max ? max - demand : 1;
}

/* Forks n groups resuming after site with slot from's records (lock
 * held), no more than idle blocks can take (a fork no block takes would
 * hold a barrier up for ever). */
static void fork_groups(volatile __global ulong *s, ulong n, uint site,
                        ulong from) {
  ulong idle = s[PRESENT] > s[LIVE] ? s[PRESENT] - s[LIVE] : 0;
  if (n > idle) n = idle;
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

/* The block's transmit records, as coop_first noted them. */
static __local ulong *block_records(__local uint *b) {
  return (__local ulong *)&b[B_RECORDS];
}

/* Whether the pool may run fast from the barrier opening now (lock held):
 * a kernel with resizing barriers, the "threads" policy, no demand, every
 * block running a group. */
static int may_run_fast(volatile __global ulong *s) {
  return s[BARRIERS] && !churn(s) && !s[DEMAND] && s[LIVE] == s[MAX] &&
         s[PRESENT] == s[MAX];
}

/* When every group running has arrived (lock held): how many go on, the
 * forks, the opening, the mode after it (TARGETs' bit 32: fast). */
static void open_barrier(volatile __global ulong *s) {
  ulong arrived = atomic_look(s, ARRIVED);
  if (!arrived || arrived < s[LIVE]) return;
  ulong live = s[LIVE], want = wanted(s);
  ulong target = churn(s) && live > 1 ? 1 : want;
  if (target > live) fork_groups(s, target - live, (uint)s[SITE0], s[BLOCK0]);
  else s[LIVE] = target;
  ulong fast = may_run_fast(s);
  if (fast) {
    /* The FAST word stays as its last use left it: nobody touches it
     * while the pool shares. */
    for (uint i = 0; i < 3; i++) s[SWITCH0 + i] = 0;
    s[SHARING] = 0;
  }
  ulong opened = s[GENERATION] + 1;
  s[TARGET0 + (opened & 1)] = s[LIVE] | fast << 32;
  /* Every group running has arrived and waits: none adds to it now. */
  __atomic_store_n((volatile __global ulong *)&s[ARRIVED], 0ul,
                   __ATOMIC_RELAXED);
  __atomic_store_n((volatile __global uint *)&s[GENERATION], (uint)opened,
                   __ATOMIC_RELEASE);
}

/* A forked group for this block, if one waits (lock held): its id, site
 * and mode, its records copied to the block's. */
static int take_start(volatile __global ulong *s, __local uint *b) {
  if (s[HEAD] == s[TAIL]) return 0;
  volatile __global ulong *ring = (volatile __global ulong *)s[RING];
  ulong max = s[MAX], at = s[HEAD] % max, e = ring[at];
  b[B_ID] = (uint)e;
  b[B_SITE] = (uint)(e >> 32);
  b[B_SHARING] = (uint)s[SHARING];
  b[B_DEMAND] = 0;
  b[B_PHASE] = 0;
  if (s[TRANSMIT]) copy_records(s, max + at, b[B_SLOT]);
  s[HEAD] += 1;
  return 1;
}

/* Whether an idle block should leave the GPU to other launches: more
 * blocks in the pool than groups wanted, and more than the groups running
 * and waiting to start (each of which needs one). */
static int surplus(volatile __global ulong *s) {
  ulong present = s[PRESENT];
  return present > wanted(s) && present > s[LIVE];
}

/* The idle block leaves the pool if it is still surplus (lock taken):
 * its slot is free for a block that joins later. */
static int leave_pool(volatile __global ulong *s, __local uint *b) {
  lock(s);
  int leaves = s[HEAD] == s[TAIL] && surplus(s);
  if (leaves) {
    volatile __global ulong *slots = (volatile __global ulong *)s[SLOTS];
    slots[s[FREE]] = b[B_SLOT];
    s[FREE] += 1;
    s[PRESENT] -= 1;
  }
  unlock(s);
  return leaves;
}

/* Work-item 0: waits for a group to run (1), the end or its leaving (0).
 * Only taking a fork or leaving takes the lock: an idle pool polling under
 * it held up the groups that run (every point takes it), and the end is
 * final (nothing runs, so no fork waits or can be made), so that the
 * pool's blocks leave without it (132 blocks taking it in turn at the end
 * cost a launch 0.28 ms on an H200). A deadlocked launch's waits stop; so
 * does the pool. */
static uint wait_start(volatile __global ulong *s, __local uint *b) {
  uint ns = 64;
  for (;;) {
    int empty = s[HEAD] == s[TAIL];
    if (empty && atomic_look(s, DONE)) return 0;
    if (__weft_gpu_gave_up()) return 0;
    if (empty && surplus(s) && leave_pool(s, b)) return 0;
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

/* A block launched after the pool started joins it in a free slot, if
 * the pool is not done and one is free (1). */
static uint join_pool(volatile __global ulong *s, __local uint *b) {
  lock(s);
  int joins = !atomic_look(s, DONE) && s[FREE];
  if (joins) {
    s[FREE] -= 1;
    b[B_SLOT] = (uint)((volatile __global ulong *)s[SLOTS])[s[FREE]];
    s[PRESENT] += 1;
  }
  unlock(s);
  return joins;
}

/* The group id of a block of a pool that fills the GPU, per_sm blocks on
 * each multiprocessor: the multiprocessor's number (in the order their
 * first blocks came) times per_sm plus the block's place on it. Groups
 * then end from the highest id down, a multiprocessor's blocks together,
 * so that a launch beside the pool gets whole multiprocessors: one block
 * beside 31 of the pool's ran 60 times slower than alone on an H200 (the
 * multiprocessor's issue slots are shared by its warps), whatever blocks
 * the pool gave back. The first block on a multiprocessor numbers it; the
 * others wait for that number (every block of the pool is resident). */
static uint sm_major_id(volatile __global ulong *s, uint per_sm) {
  volatile __global uint *words = (volatile __global uint *)s[SMS];
  volatile __global uint *sm = words + 1 + 2 * __nvvm_read_ptx_sreg_smid();
  uint place = __atomic_fetch_add(&sm[1], 1u, __ATOMIC_RELAXED);
  /* A cooperative launch of as many blocks as fit places per_sm on each;
   * more on one would give two groups one id: the launch fails instead. */
  if (place >= per_sm) __builtin_trap();
  if (!place)
    __atomic_store_n(&sm[0],
                     __atomic_fetch_add(&words[0], 1u, __ATOMIC_RELAXED) + 1u,
                     __ATOMIC_RELEASE);
  uint number;
  while (!(number = __atomic_load_n(&sm[0], __ATOMIC_ACQUIRE)))
    __nvvm_nanosleep(32);
  return (number - 1u) * per_sm + place;
}

/* A block of the launch's own: group ticket from the start (or, filling
 * the GPU, as sm_major_id numbers it), in mode as the launch set it. The
 * count is a look without the lock: the count another group may be
 * changing is as good a count for a start as one read under the lock,
 * which a pool's blocks starting at once took in turn (a microsecond
 * each, 132 blocks on an H200). */
static void start_own(volatile __global ulong *s, __local uint *b,
                      uint ticket) {
  uint per_sm = (uint)s[PER_SM];
  b[B_SLOT] = ticket;
  /* %nsmid is the same for every block: all number alike. */
  b[B_ID] = per_sm && __nvvm_read_ptx_sreg_nsmid() <= WEFT__COOP_SM_IDS
                ? sm_major_id(s, per_sm)
                : ticket;
  b[B_SITE] = 0;
  b[B_SHARING] = (uint)s[SHARING];
  b[B_GROUPS] = (uint)atomic_look(s, LIVE);
}

uint __attribute__((convergent)) __weft_coop_first(void) {
  __local uint *b = __weft_coop_block();
  if (first_item()) {
    volatile __global ulong *s = state();
    b[B_CHURN] = churn(s);
    b[B_DEMAND] = 0;
    b[B_PHASE] = 0;
    ulong ticket = __atomic_fetch_add((volatile __global ulong *)&s[TICKET],
                                      1ul, __ATOMIC_RELAXED);
    int own = ticket < s[INITIAL];
    uint go = 1;
    if (own) start_own(s, b, (uint)ticket);
    else go = join_pool(s, b);
    if (go) *block_records(b) = (ulong)records(s, b[B_SLOT]);
    if (go && !own) go = wait_start(s, b);
    b[B_GO] = go;
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
  ulong live = s[LIVE], keep = churn(s) ? 1 : wanted(s);
  return live > keep ? (uint)(live - keep) : 0;
}

/* The resizing barrier running fast (every group of the pool runs, ids
 * from 0 to max - 1, none killed or forked): weft_global_barrier()'s flip
 * algorithm on the FAST word (8.2 us a barrier on an H200 under the
 * sharing rules, 3.0 so). Group 0 reads DEMAND while it waits (no round
 * trip more on its way). Every group must leave the same barrier sharing:
 * the one after group 0 saw a demand, whose SWITCH word group 0 set before
 * its arrival at the one before. A group reads its barrier's word after
 * its arrival, while it waits: after the barrier before it opened, which
 * group 0's write preceded, and before the word is written again (three
 * words: the next write to it is for the barrier after next, by group 0
 * after this barrier opened, which needs every group's arrival). */
static void fast_barrier(volatile __global ulong *s, __local uint *b) {
  __global uint *word = (__global uint *)&s[FAST];
  uint n = b[B_GROUPS], first = b[B_ID] == 0u, phase = b[B_PHASE];
  uint add = first ? WEFT__FLIP - (n - 1u) : 1u;
  if (first && b[B_DEMAND]) {
    s[SHARING] = 1;
    s[SWITCH0 + (phase + 1u) % 3u] = 1;
  }
  uint old = weft__fetch_add(word, add);
  ulong shares = s[SWITCH0 + phase];
  ulong demand = first ? s[DEMAND] : 0;
  weft__sync_await_flip(word, old);
  if (first) b[B_DEMAND] = demand != 0;
  b[B_SHARING] = shares != 0;
  b[B_PHASE] = (phase + 1u) % 3u;
}

/* The resizing barrier while sharing, work-item 0. An arrival is an
 * atomic count; only the one that may complete it (or a kill: a group
 * fewer to wait for) takes the lock, to open it: 500 groups taking it in
 * turn cost a millisecond a barrier. Group 0 names its site and slot
 * first. */
static void sharing_barrier(volatile __global ulong *s, __local uint *b,
                            uint site) {
  uint id = b[B_ID];
  volatile __global uint *word = (volatile __global uint *)&s[GENERATION];
  uint generation = __atomic_load_n(word, __ATOMIC_ACQUIRE);
  if (!id) {
    s[SITE0] = site;
    s[BLOCK0] = b[B_SLOT];
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
  ulong t = s[TARGET0 + (opened & 1)], target = (uint)t;
  int later = __atomic_load_n(word, __ATOMIC_ACQUIRE) != opened;
  b[B_EXIT] = later || id >= target;
  b[B_GROUPS] = (uint)(later ? s[LIVE] : target);
  b[B_SHARING] = later || !(t >> 32);
  b[B_DEMAND] = 0;
  b[B_PHASE] = 0;
}

/* Whether group id ends at its offer_kill with live groups running and
 * want wanted: the highest (never group 0), when fewer are wanted or the
 * policy churns. */
static int ends_at_offer(uint id, ulong live, ulong want, uint churns) {
  return id && id + 1 == live && (churns || live > want);
}

void __weft_coop_point(uint kind, uint site) {
  volatile __global ulong *s = state();
  __local uint *b = __weft_coop_block();
  uint id = b[B_ID];
  b[B_EXIT] = 0;
  if (kind == WEFT__POINT_RESIZING_BARRIER) {
    if (b[B_SHARING]) sharing_barrier(s, b, site);
    else fast_barrier(s, b);
    return;
  }
  /* Running fast, every block of the pool is wanted, none is ever killed,
   * so none is ever to fork: the points are no-ops. */
  if (!b[B_SHARING]) return;
  /* Nothing to do, as a look without the lock sees it. */
  ulong live = s[LIVE], want = wanted(s);
  int may = kind == WEFT__POINT_OFFER_KILL
                ? ends_at_offer(id, live, want, b[B_CHURN])
                : live < want && live < s[PRESENT];
  if (!may) {
    b[B_GROUPS] = (uint)live;
    return;
  }
  lock(s);
  live = s[LIVE];
  want = wanted(s);
  if (kind == WEFT__POINT_OFFER_KILL) {
    if (ends_at_offer(id, live, want, b[B_CHURN])) {
      s[LIVE] = id;
      b[B_EXIT] = 1;
      open_barrier(s);
    }
  } else if (live < want) {
    fork_groups(s, want - live, site, b[B_SLOT]);
  }
  b[B_GROUPS] = (uint)s[LIVE];
  unlock(s);
}
