/* test_cuda_sync.cu: the CUDA header library (include/weft/cuda/sync.cuh)
 * under nvcc: each algorithm's invariant under contention, from one block
 * to 8 blocks per multiprocessor, the host's initial values against the
 * kernels' init, and trylock. Run with a test's name, or none for all;
 * exit 77 when there is no GPU. tests/cuda/nvcc_tests.sh builds and runs
 * it, also under compute-sanitizer. */
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "weft/cuda/sync.cuh"
#include "check_cuda.cuh"

#define THREADS 64

/* Operations per block (WEFT_CUDA_TEST_OPS: fewer under the sanitizer). */
static int OPS = 200;

static int failures;

#define EXPECT(cond, ...)                                                    \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #cond);    \
      fprintf(stderr, __VA_ARGS__);                                          \
      fputc('\n', stderr);                                                   \
      failures++;                                                            \
    }                                                                        \
  } while (0)

/* Counters the kernels keep in device memory. */
struct tally {
  unsigned done;       /* operations completed */
  unsigned inside;     /* blocks in the critical section now */
  unsigned most;       /* the most that were in it at once */
  unsigned bad;        /* invariant violations seen */
  unsigned counter;    /* incremented non-atomically under a mutex */
  unsigned out_of_turn; /* ticket mutex: holders served out of order */
  unsigned last_turn;  /* ticket mutex: the turn the last holder saw */
};

static int sms;

/* Operations per block at a block count: fewer with 8 blocks per
 * multiprocessor, where the spin algorithms are slowest. */
static int ops_for(unsigned blocks) {
  int ops = blocks > (unsigned)sms ? OPS / 4 : OPS;
  return ops ? ops : 1;
}

/* Block counts: 1, one per multiprocessor, and 8 per multiprocessor. */
static void block_counts(unsigned out[3]) {
  out[0] = 1;
  out[1] = (unsigned)sms;
  out[2] = 8u * (unsigned)sms;
}

template <typename T> static T *device_alloc(size_t bytes = sizeof(T)) {
  T *p;
  CHECK_CUDA(cudaMalloc(&p, bytes));
  CHECK_CUDA(cudaMemset(p, 0, bytes));
  return p;
}

static tally read_tally(const tally *d) {
  tally t;
  CHECK_CUDA(cudaMemcpy(&t, d, sizeof t, cudaMemcpyDeviceToHost));
  return t;
}

/* ------------------------------------------------------------- mutexes */

__global__ void mutex_kernel(weft_mutex *m, tally *t, int ops, int ticket) {
  for (int i = 0; i < ops; i++) {
    weft_mutex_lock_block(m);
    if (threadIdx.x == 0) {
      if (atomicAdd(&t->inside, 1) != 0) atomicAdd(&t->bad, 1);
      /* A plain read and write: two holders at once would lose counts. */
      volatile unsigned *c = &t->counter;
      /* A ticket mutex's holder took it by its first try (only before
       * any ticket was drawn), the turn (word 2) where the last holder
       * left it, or by its ticket, which moved the turn on by one: never
       * more, never back. */
      unsigned turn = ((volatile unsigned *)m->word)[2];
      if (ticket && turn - t->last_turn > 1) atomicAdd(&t->out_of_turn, 1);
      t->last_turn = turn;
      *c = *c + 1;
      atomicSub(&t->inside, 1);
    }
    weft_mutex_unlock_block(m);
  }
}

static void mutex_invariant(unsigned algorithm, const char *name) {
  unsigned counts[3];
  block_counts(counts);
  for (int i = 0; i < 3; i++) {
    weft_mutex *m = device_alloc<weft_mutex>();
    weft_mutex v = weft_mutex_value(algorithm);
    CHECK_CUDA(cudaMemcpy(m, &v, sizeof v, cudaMemcpyHostToDevice));
    tally *t = device_alloc<tally>();
    int ops = ops_for(counts[i]);
    mutex_kernel<<<counts[i], THREADS>>>(m, t, ops,
                                         algorithm == WEFT_MUTEX_TICKET);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    tally r = read_tally(t);
    EXPECT(r.counter == counts[i] * (unsigned)ops && r.bad == 0 &&
               r.out_of_turn == 0,
           "%s mutex, %u blocks: counter %u of %u, %u overlaps, %u served "
           "out of turn", name, counts[i], r.counter,
           counts[i] * (unsigned)ops, r.bad, r.out_of_turn);
    /* Free again, and (ticket) every ticket served: the lock word
     * counts the tickets drawn in 2s; 0 for the others. */
    weft_mutex after;
    CHECK_CUDA(cudaMemcpy(&after, m, sizeof after, cudaMemcpyDeviceToHost));
    EXPECT(!(after.word[0] & 1) && after.word[0] >> 1 == after.word[2],
           "%s mutex, %u blocks: left {%u, %u, %u}", name, counts[i],
           after.word[0], after.word[1], after.word[2]);
    CHECK_CUDA(cudaFree(m));
    CHECK_CUDA(cudaFree(t));
  }
}

/* Trylock takes a free mutex, fails on a held one, and takes it again
 * once it is unlocked. */
__global__ void trylock_kernel(weft_mutex *m, int *got) {
  got[0] = weft_mutex_trylock(m);
  got[1] = weft_mutex_trylock(m);
  weft_mutex_unlock(m);
  got[2] = weft_mutex_trylock(m);
  weft_mutex_unlock(m);
}

static void trylock(unsigned algorithm, const char *name) {
  weft_mutex *m = device_alloc<weft_mutex>();
  weft_mutex v = weft_mutex_value(algorithm);
  CHECK_CUDA(cudaMemcpy(m, &v, sizeof v, cudaMemcpyHostToDevice));
  int *got = device_alloc<int>(3 * sizeof(int)), h[3];
  trylock_kernel<<<1, 1>>>(m, got);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpy(h, got, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT(h[0] == 1 && h[1] == 0 && h[2] == 1, "%s trylock: %d %d %d", name,
         h[0], h[1], h[2]);
  CHECK_CUDA(cudaFree(m));
  CHECK_CUDA(cudaFree(got));
}

/* ---------------------------------------------------------- semaphores */

__global__ void semaphore_kernel(weft_semaphore *s, tally *t, unsigned count,
                                 int ops) {
  for (int i = 0; i < ops; i++) {
    weft_semaphore_wait_block(s);
    if (threadIdx.x == 0) {
      unsigned in = atomicAdd(&t->inside, 1) + 1;
      if (in > count) atomicAdd(&t->bad, 1);
      atomicMax(&t->most, in);
      atomicSub(&t->inside, 1);
      atomicAdd(&t->done, 1);
    }
    weft_semaphore_post_block(s);
  }
}

static void semaphore_invariant(unsigned algorithm, const char *name) {
  static const unsigned values[] = {1, 2, 10, 120};
  unsigned counts[3];
  block_counts(counts);
  for (unsigned value : values)
    for (int i = 0; i < 3; i++) {
      weft_semaphore *s = device_alloc<weft_semaphore>();
      weft_semaphore v = weft_semaphore_value((int)value, algorithm);
      CHECK_CUDA(cudaMemcpy(s, &v, sizeof v, cudaMemcpyHostToDevice));
      tally *t = device_alloc<tally>();
      int ops = ops_for(counts[i]);
      semaphore_kernel<<<counts[i], THREADS>>>(s, t, value, ops);
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaDeviceSynchronize());
      tally r = read_tally(t);
      EXPECT(r.done == counts[i] * (unsigned)ops && r.bad == 0 &&
                 r.most <= value,
             "%s semaphore of %u, %u blocks: %u of %u done, %u at once",
             name, value, counts[i], r.done, counts[i] * (unsigned)ops,
             r.most);
      /* Every unit is back: the units given less those taken are the
       * initial count again. */
      weft_semaphore after;
      CHECK_CUDA(cudaMemcpy(&after, s, sizeof after, cudaMemcpyDeviceToHost));
      int left = (int)(after.word[0] - after.word[1]);
      EXPECT(left == (int)value, "%s semaphore of %u: %d free after", name,
             value, left);
      CHECK_CUDA(cudaFree(s));
      CHECK_CUDA(cudaFree(t));
    }
}

/* ------------------------------------------------------------ barriers */

/* Each block writes its phase, then after the barrier reads its
 * neighbour's: a block out early finds it behind. */
__global__ void barrier_kernel(weft_barrier *b, unsigned *phase, tally *t,
                               int ops) {
  unsigned g = blockIdx.x, next = (g + 1) % gridDim.x;
  for (int p = 1; p <= ops; p++) {
    if (threadIdx.x == 0) ((volatile unsigned *)phase)[g * 32] = p;
    weft_barrier_wait(b);
    if (threadIdx.x == 0 && ((volatile unsigned *)phase)[next * 32] < (unsigned)p)
      atomicAdd(&t->bad, 1);
    /* Nobody writes the next phase before everyone has read this one. */
    weft_barrier_wait(b);
  }
  if (threadIdx.x == 0) atomicAdd(&t->done, 1);
}

static void barrier_invariant(unsigned algorithm, const char *name) {
  int per_sm = 0;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, barrier_kernel, THREADS, 0));
  unsigned counts[3];
  block_counts(counts);
  for (int i = 0; i < 3; i++) {
    unsigned n = counts[i];
    /* Blocks that wait for each other must all be resident: at most what
     * the occupancy allows (on an H100, more than 8 a multiprocessor). */
    if (n > (unsigned)(per_sm * sms)) n = (unsigned)(per_sm * sms);
    size_t size = WEFT_BARRIER_SIZE(algorithm, n);
    weft_barrier *b = device_alloc<weft_barrier>(size);
    weft_barrier v = weft_barrier_value(n, algorithm);
    CHECK_CUDA(cudaMemcpy(b, &v, sizeof v, cudaMemcpyHostToDevice));
    unsigned *phase = device_alloc<unsigned>(n * 32 * sizeof(unsigned));
    tally *t = device_alloc<tally>();
    int ops = OPS;
    void *args[] = {&b, &phase, &t, &ops};
    /* Blocks that wait for each other must all be resident. */
    CHECK_CUDA(cudaLaunchCooperativeKernel((void *)barrier_kernel, n,
                                           THREADS, args, 0, 0));
    CHECK_CUDA(cudaDeviceSynchronize());
    tally r = read_tally(t);
    EXPECT(r.done == n && r.bad == 0,
           "%s barrier, %u blocks: %u finished, %u early departures", name,
           n, r.done, r.bad);
    CHECK_CUDA(cudaFree(b));
    CHECK_CUDA(cudaFree(phase));
    CHECK_CUDA(cudaFree(t));
  }
}

/* ------------------------------------------------- init against values */

__global__ void init_kernel(weft_mutex *m, weft_semaphore *s,
                            weft_barrier *b, unsigned algorithm) {
  weft_mutex_init_with(m, algorithm);
  weft_semaphore_init_with(s, 7, algorithm);
  weft_barrier_init_with(b, 5, algorithm);
}

/* Memory that is not zero, so that an init that leaves a word alone is
 * seen. */
template <typename T> static T *dirty_alloc(size_t bytes = sizeof(T)) {
  T *p = device_alloc<T>(bytes);
  CHECK_CUDA(cudaMemset(p, 0x5a, bytes));
  return p;
}

/* Whether the device's bytes at d equal want's. */
template <typename T> static int device_equals(const T *d, const T &want) {
  T got;
  CHECK_CUDA(cudaMemcpy(&got, d, sizeof got, cudaMemcpyDeviceToHost));
  return !memcmp(&got, &want, sizeof got);
}

static void init_matches_values() {
  /* Every algorithm's mutex is all zeros but its algorithm, as the
   * OpenCL path's (weft/kernel.h). */
  for (unsigned a = 0; a <= 4; a++) {
    weft_mutex v = weft_mutex_value(a);
    EXPECT(!v.word[0] && !v.word[1] && !v.word[2] && v.word[3] == a,
           "algorithm %u: a mutex does not start as {0, 0, 0, %u}", a, a);
  }
  for (unsigned a = 0; a <= 4; a++) {
    weft_mutex *m = dirty_alloc<weft_mutex>();
    weft_semaphore *s = dirty_alloc<weft_semaphore>();
    size_t size = WEFT_BARRIER_SIZE(WEFT_BARRIER_XIAO_FENG, 5);
    weft_barrier *b = dirty_alloc<weft_barrier>(size);
    init_kernel<<<1, 1>>>(m, s, b, a);
    CHECK_CUDA(cudaGetLastError());
    EXPECT(device_equals(m, weft_mutex_value(a)),
           "algorithm %u: a kernel's mutex init differs from the host's", a);
    EXPECT(device_equals(s, weft_semaphore_value(7, a)),
           "algorithm %u: a kernel's semaphore init differs from the host's",
           a);
    EXPECT(device_equals(b, weft_barrier_value(5, a)),
           "algorithm %u: a kernel's barrier init differs from the host's", a);
    /* A Xiao-Feng barrier's flags, two a block, start at zero. */
    if (a == WEFT_BARRIER_XIAO_FENG) {
      unsigned flags[10], zero[10] = {0};
      CHECK_CUDA(cudaMemcpy(flags, b + 1, sizeof flags,
                            cudaMemcpyDeviceToHost));
      EXPECT(!memcmp(flags, zero, sizeof flags),
             "a kernel's Xiao-Feng init leaves flags that are not zero");
    }
    CHECK_CUDA(cudaFree(m));
    CHECK_CUDA(cudaFree(s));
    CHECK_CUDA(cudaFree(b));
  }
}

/* --------------------------------------------------------------- tests */

struct named {
  const char *name;
  void (*run)(unsigned, const char *);
  unsigned algorithm;
};

static void init_test(unsigned, const char *) { init_matches_values(); }

static const named tests[] = {
    {"mutex_native", mutex_invariant, WEFT_MUTEX_NATIVE},
    {"mutex_spin", mutex_invariant, WEFT_MUTEX_SPIN},
    {"mutex_spin_backoff", mutex_invariant, WEFT_MUTEX_SPIN_BACKOFF},
    {"mutex_ticket", mutex_invariant, WEFT_MUTEX_TICKET},
    {"mutex_default", mutex_invariant, WEFT_MUTEX_DEFAULT},
    {"trylock_native", trylock, WEFT_MUTEX_NATIVE},
    {"trylock_spin", trylock, WEFT_MUTEX_SPIN},
    {"trylock_ticket", trylock, WEFT_MUTEX_TICKET},
    {"semaphore_native", semaphore_invariant, WEFT_SEMAPHORE_NATIVE},
    {"semaphore_spin", semaphore_invariant, WEFT_SEMAPHORE_SPIN},
    {"semaphore_spin_backoff", semaphore_invariant,
     WEFT_SEMAPHORE_SPIN_BACKOFF},
    {"semaphore_sleeping", semaphore_invariant, WEFT_SEMAPHORE_SLEEPING},
    {"semaphore_default", semaphore_invariant, WEFT_SEMAPHORE_DEFAULT},
    {"barrier_native", barrier_invariant, WEFT_BARRIER_NATIVE},
    {"barrier_two_stage", barrier_invariant, WEFT_BARRIER_TWO_STAGE},
    {"barrier_xiao_feng", barrier_invariant, WEFT_BARRIER_XIAO_FENG},
    {"init_matches_values", init_test, 0},
};

int main(int argc, char **argv) {
  int devices = 0;
  cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    printf("no CUDA device (%s): skipped\n",
           e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 77;
  }
  CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  if (getenv("WEFT_CUDA_TEST_OPS")) OPS = atoi(getenv("WEFT_CUDA_TEST_OPS"));
  int ran = 0;
  for (const named &t : tests) {
    if (argc > 1 && strcmp(argv[1], t.name)) continue;
    int before = failures;
    t.run(t.algorithm, t.name);
    printf("%s %s\n", failures == before ? "ok  " : "FAIL", t.name);
    ran++;
  }
  if (!ran) {
    fprintf(stderr, "no test named '%s'\n", argv[1]);
    return 2;
  }
  return failures ? 1 : 0;
}
