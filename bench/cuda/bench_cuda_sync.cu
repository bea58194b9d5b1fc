/* bench_cuda_sync.cu: the CUDA header library's primitives against CUDA's
 * own, in one run: Weft's barriers beside cooperative groups' grid.sync(),
 * its mutexes beside libcu++'s binary_semaphore, its semaphores beside
 * libcu++'s counting_semaphore and the paper's sleeping semaphore in its
 * queue form (paper_sleeping, written here), at initial values 1, 2, 10
 * and 120. The
 * figure of merit is Stuart & Owens': operations per second against the
 * number of blocks, one master thread per block acting for it, 1000
 * operations per block. CSV on stdout, a summary on stderr.
 *
 *   nvcc -O3 -arch=sm_90 -std=c++17 -Iinclude bench/cuda/bench_cuda_sync.cu
 *   ./a.out [--ops N] [--repeat N] [--only PRIMITIVE] [--impl NAME,...]
 *
 * --only runs one primitive; --impl only the named Weft algorithms (the
 * references always run; a mutex's thread-0 rows are NAME_thread0). The
 * header's tuning macros (-DWEFT_CUDA_BACKOFF_CAP_NS=,
 * -DWEFT_CUDA_MUTEX_BACKOFF_CAP_NS=) set the back-offs' longest sleeps.
 */
#include <cooperative_groups.h>
#include <cuda/semaphore>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "weft/cuda/sync.cuh"
#include "../../tests/cuda/check_cuda.cuh"

namespace cg = cooperative_groups;

#define THREADS 64

typedef cuda::binary_semaphore<cuda::thread_scope_device> cu_binary;
typedef cuda::counting_semaphore<cuda::thread_scope_device, 1 << 20>
    cu_counting;

/* Shared by the kernels: the object under test (room for any of them and
 * a Xiao-Feng barrier's flags) and a count the critical sections keep.
 * Weft's objects and libcu++'s share one address: an atomic's latency on
 * an H100 depends on which half of the L2 its line falls in (the two
 * differed by up to 25% at one block when they lived apart). */
struct arena {
  union {
    weft_mutex mutex;
    weft_semaphore semaphore;
    weft_barrier barrier;
    alignas(16) unsigned char cu[64]; /* a reference's object */
  };
  unsigned flags[2 * 8192];
  unsigned counter;
};

/* ------------------------------------------------------------- kernels */

__global__ void weft_mutex_kernel(arena *a, int ops) {
  for (int i = 0; i < ops; i++) {
    weft_mutex_lock_block(&a->mutex);
    if (threadIdx.x == 0) ((volatile unsigned *)&a->counter)[0] += 1;
    weft_mutex_unlock_block(&a->mutex);
  }
}

__global__ void weft_semaphore_kernel(arena *a, int ops) {
  for (int i = 0; i < ops; i++) {
    weft_semaphore_wait_block(&a->semaphore);
    weft_semaphore_post_block(&a->semaphore);
  }
}

/* Weft's thread-level mutex under libcu++'s names, so that one kernel
 * runs it and libcu++'s binary_semaphore alike. */
struct weft_lock {
  weft_mutex m;
  __device__ void acquire() { weft_mutex_lock(&m); }
  __device__ void release() { weft_mutex_unlock(&m); }
};

/* Stuart & Owens' sleeping semaphore (Algorithm 5) in its queue form, as
 * Weft's header had it until its words were laid out for one-atomic
 * posts; a reference for Weft's semaphores. A wait takes a unit from the
 * count, or, finding none, the next place in a queue (tail) and sleeps
 * until a post lets its place through (head); a post that finds the
 * count negative lets one through. */
struct paper_semaphore {
  unsigned count, head, tail;
  typedef cuda::atomic_ref<unsigned, cuda::thread_scope_device> word;

  __device__ void acquire() {
    if ((int)word(count).fetch_sub(1, cuda::memory_order_acquire) > 0) return;
    unsigned place = word(tail).fetch_add(1, cuda::memory_order_relaxed);
    while ((int)(word(head).load(cuda::memory_order_acquire) - place) <= 0)
      __nanosleep(100);
  }

  __device__ void release() {
    if ((int)word(count).fetch_add(1, cuda::memory_order_release) < 0)
      word(head).fetch_add(1, cuda::memory_order_release);
  }
};

/* The references' kernel shape, which Weft's thread-level calls are
 * measured in too: thread 0 alone acts, the block waiting before and
 * after. Every object under test lives at the arena's one address. */
template <typename Lock>
__global__ void thread0_mutex_kernel(arena *a, int ops) {
  Lock *l = (Lock *)a->cu;
  for (int i = 0; i < ops; i++) {
    __syncthreads();
    if (threadIdx.x == 0) {
      l->acquire();
      ((volatile unsigned *)&a->counter)[0] += 1;
      l->release();
    }
    __syncthreads();
  }
}

/* The same for a semaphore, in the shape of Weft's block calls (a wait,
 * then a post, each between two __syncthreads). */
template <typename Semaphore>
__global__ void thread0_semaphore_kernel(arena *a, int ops) {
  Semaphore *s = (Semaphore *)a->cu;
  for (int i = 0; i < ops; i++) {
    __syncthreads();
    if (threadIdx.x == 0) s->acquire();
    __syncthreads();
    __syncthreads();
    if (threadIdx.x == 0) s->release();
    __syncthreads();
  }
}

__global__ void weft_barrier_kernel(arena *a, int ops) {
  for (int i = 0; i < ops; i++) weft_barrier_wait(&a->barrier);
}

__global__ void grid_sync_kernel(arena *a, int ops) {
  cg::grid_group grid = cg::this_grid();
  for (int i = 0; i < ops; i++) grid.sync();
}

__global__ void cu_init_kernel(arena *a, int count, int binary) {
  if (binary) new (a->cu) cu_binary(count);
  else new (a->cu) cu_counting(count);
}

/* --------------------------------------------------------------- timing */

struct options {
  int ops = 1000, repeat = 3;
  const char *only = NULL;  /* one primitive: barrier, mutex, semaphore */
  const char *impls = NULL; /* Weft's algorithms to run, comma-separated */
};

typedef void (*kernel_fn)(arena *, int);

/* The median time in seconds of repeat launches, the arena set up before
 * each by setup. */
template <typename Setup>
static double time_kernel(kernel_fn k, unsigned blocks, int cooperative,
                          const options &o, arena *a, Setup setup) {
  std::vector<double> times;
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  for (int r = 0; r < o.repeat; r++) {
    setup();
    CHECK_CUDA(cudaDeviceSynchronize());
    int ops = o.ops;
    void *args[] = {&a, &ops};
    CHECK_CUDA(cudaEventRecord(start));
    if (cooperative)
      CHECK_CUDA(cudaLaunchCooperativeKernel((void *)k, blocks, THREADS, args,
                                             0, 0));
    else k<<<blocks, THREADS>>>(a, ops);
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    times.push_back(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

/* ---------------------------------------------------------- the points */

struct point {
  const char *primitive, *impl;
  int init;
  unsigned blocks;
  double rate;
};

static std::vector<point> points;

/* An implementation whose run took this long is not run with more blocks
 * (it only gets slower), to keep the benchmark to minutes. */
#define SLOW_SECONDS 1.0
static std::vector<std::string> too_slow;

static std::string key(const char *primitive, const char *impl, int init) {
  return std::string(primitive) + "/" + impl + "/" + std::to_string(init);
}

/* Whether name is one of the comma-separated list's names. */
static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
    if (!strncmp(p, name, n) && (p[n] == ',' || !p[n])) return 1;
  return 0;
}

/* Too slow already, or left out by --impl. */
static int skipped(const options &o, const char *primitive, const char *impl,
                   int init) {
  if (o.impls && !listed(o.impls, impl)) return 1;
  return std::find(too_slow.begin(), too_slow.end(),
                   key(primitive, impl, init)) != too_slow.end();
}

static void note_time(const char *primitive, const char *impl, int init,
                      unsigned blocks, double seconds) {
  if (seconds < SLOW_SECONDS) return;
  too_slow.push_back(key(primitive, impl, init));
  fprintf(stderr, "%s %s (init %d) took %.1f s at %u blocks: not run with "
          "more\n", primitive, impl, init, seconds, blocks);
}

static void record(const char *primitive, const char *impl, int init,
                   unsigned blocks, double rate) {
  points.push_back({primitive, impl, init, blocks, rate});
  printf("%s,%s,%d,%u,%.6g\n", primitive, impl, init, blocks, rate);
  fflush(stdout);
}

/* Each mutex runs twice: with the block calls (every thread calls,
 * thread 0 acts, as Weft's OpenCL C block helpers do) and with thread 0's
 * own calls in libcu++'s kernel shape (name_thread0). */
static const struct {
  const char *name, *thread_name;
  unsigned algorithm;
} mutexes[] = {{"native", "native_thread0", WEFT_MUTEX_NATIVE},
               {"spin", "spin_thread0", WEFT_MUTEX_SPIN},
               {"spin_backoff", "spin_backoff_thread0", WEFT_MUTEX_SPIN_BACKOFF},
               {"ticket", "ticket_thread0", WEFT_MUTEX_TICKET}};

static const struct {
  const char *name;
  unsigned algorithm;
} semaphores[] = {{"native", WEFT_SEMAPHORE_NATIVE},
                  {"spin", WEFT_SEMAPHORE_SPIN},
                  {"spin_backoff", WEFT_SEMAPHORE_SPIN_BACKOFF},
                  {"sleeping", WEFT_SEMAPHORE_SLEEPING}},
  barriers[] = {{"native", WEFT_BARRIER_NATIVE},
                {"two_stage", WEFT_BARRIER_TWO_STAGE},
                {"xiao_feng", WEFT_BARRIER_XIAO_FENG}};

/* The critical sections' plain count after a run: every increment is
 * there only if no two blocks held the lock at once. */
static void check_counter(const arena *a, const char *primitive,
                          const char *impl, unsigned blocks,
                          const options &o) {
  unsigned counter;
  CHECK_CUDA(cudaMemcpy(&counter, &a->counter, sizeof counter,
                        cudaMemcpyDeviceToHost));
  if (counter == blocks * (unsigned)o.ops) return;
  fprintf(stderr, "%s %s at %u blocks: the count is %u, not %u: mutual "
          "exclusion failed\n", primitive, impl, blocks, counter,
          blocks * (unsigned)o.ops);
  exit(1);
}

static void bench_mutexes(const std::vector<unsigned> &blocks,
                          const options &o, arena *a) {
  for (unsigned n : blocks) {
    double ops = (double)n * o.ops;
    for (auto &m : mutexes)
      for (int by_thread = 0; by_thread < 2; by_thread++) {
        const char *name = by_thread ? m.thread_name : m.name;
        if (skipped(o, "mutex", name, 0)) continue;
        kernel_fn k = by_thread ? thread0_mutex_kernel<weft_lock>
                                : weft_mutex_kernel;
        double t = time_kernel(k, n, 0, o, a, [&] {
          weft_mutex v = weft_mutex_value(m.algorithm);
          CHECK_CUDA(cudaMemcpy(&a->mutex, &v, sizeof v,
                                cudaMemcpyHostToDevice));
          CHECK_CUDA(cudaMemset(&a->counter, 0, sizeof a->counter));
        });
        check_counter(a, "mutex", name, n, o);
        record("mutex", name, 0, n, ops / t);
        note_time("mutex", name, 0, n, t);
      }
    double t = time_kernel(thread0_mutex_kernel<cu_binary>, n, 0, o, a, [&] {
      cu_init_kernel<<<1, 1>>>(a, 1, 1);
      CHECK_CUDA(cudaMemset(&a->counter, 0, sizeof a->counter));
    });
    check_counter(a, "mutex", "libcu++_binary_semaphore", n, o);
    record("mutex", "libcu++_binary_semaphore", 0, n, ops / t);
  }
}

static void bench_semaphores(const std::vector<unsigned> &blocks,
                             const options &o, arena *a) {
  static const int values[] = {1, 2, 10, 120};
  for (int value : values)
    for (unsigned n : blocks) {
      double ops = (double)n * o.ops;
      for (auto &s : semaphores) {
        if (skipped(o, "semaphore", s.name, value)) continue;
        double t = time_kernel(weft_semaphore_kernel, n, 0, o, a, [&] {
          weft_semaphore v = weft_semaphore_value(value, s.algorithm);
          CHECK_CUDA(cudaMemcpy(&a->semaphore, &v, sizeof v,
                                cudaMemcpyHostToDevice));
        });
        record("semaphore", s.name, value, n, ops / t);
        note_time("semaphore", s.name, value, n, t);
      }
      double t = time_kernel(thread0_semaphore_kernel<cu_counting>, n, 0, o,
                             a, [&] { cu_init_kernel<<<1, 1>>>(a, value, 0); });
      record("semaphore", "libcu++_counting_semaphore", value, n, ops / t);
      t = time_kernel(thread0_semaphore_kernel<paper_semaphore>, n, 0, o, a,
                      [&] {
                        paper_semaphore v = {(unsigned)value, 0, 0};
                        CHECK_CUDA(cudaMemcpy(a->cu, &v, sizeof v,
                                              cudaMemcpyHostToDevice));
                      });
      record("semaphore", "paper_sleeping", value, n, ops / t);
    }
}

static void bench_barriers(const std::vector<unsigned> &blocks,
                           const options &o, arena *a, unsigned most) {
  for (unsigned n : blocks) {
    if (n > most) continue;
    for (auto &b : barriers) {
      if (skipped(o, "barrier", b.name, 0)) continue;
      double t = time_kernel(weft_barrier_kernel, n, 1, o, a, [&] {
        CHECK_CUDA(cudaMemset(a, 0, sizeof *a));
        weft_barrier v = weft_barrier_value(n, b.algorithm);
        CHECK_CUDA(cudaMemcpy(&a->barrier, &v, sizeof v,
                              cudaMemcpyHostToDevice));
      });
      record("barrier", b.name, 0, n, o.ops / t);
    }
    double t = time_kernel(grid_sync_kernel, n, 1, o, a, [] {});
    record("barrier", "grid.sync", 0, n, o.ops / t);
  }
}

/* ------------------------------------------------------------- summary */

static double rate_of(const char *primitive, const char *impl, int init,
                      unsigned blocks) {
  for (const point &p : points)
    if (!strcmp(p.primitive, primitive) && !strcmp(p.impl, impl) &&
        p.init == init && p.blocks == blocks)
      return p.rate;
  return 0;
}

/* Per block count: each of Weft's algorithms against the reference, or
 * the better of two: for semaphores, libcu++'s and the paper's sleeping
 * one in its queue form (the issue's goal). */
static void summarize(const char *primitive, int init, const char *ref1,
                      const char *ref2, const std::vector<unsigned> &blocks) {
  fprintf(stderr, "%s%s%.0d: blocks, then ops/s of each (x the %s)\n",
          primitive, init ? " at " : "", init,
          ref2 ? "better reference" : "reference");
  for (unsigned n : blocks) {
    double r1 = rate_of(primitive, ref1, init, n);
    double r2 = ref2 ? rate_of(primitive, ref2, init, n) : 0;
    double ref = std::max(r1, r2);
    if (!ref) continue;
    fprintf(stderr, "  %5u  %s %.3g", n, ref1, r1);
    if (ref2) fprintf(stderr, "  %s %.3g", ref2, r2);
    for (const point &p : points)
      if (!strcmp(p.primitive, primitive) && p.init == init &&
          p.blocks == n && strcmp(p.impl, ref1) &&
          (!ref2 || strcmp(p.impl, ref2)))
        fprintf(stderr, "  %s %.3g (%.2fx)", p.impl, p.rate, p.rate / ref);
    fputc('\n', stderr);
  }
}

static int wanted(const options &o, const char *primitive) {
  return !o.only || !strcmp(o.only, primitive);
}

int main(int argc, char **argv) {
  options o;
  for (int i = 1; i < argc; i += 2) {
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (value && !strcmp(argv[i], "--ops")) o.ops = atoi(value);
    else if (value && !strcmp(argv[i], "--repeat")) o.repeat = atoi(value);
    else if (value && !strcmp(argv[i], "--only")) o.only = value;
    else if (value && !strcmp(argv[i], "--impl")) o.impls = value;
    else {
      fprintf(stderr, "usage: %s [--ops N] [--repeat N] [--only barrier|mutex|"
              "semaphore] [--impl NAME,...]\n", argv[0]);
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || !devices) {
    fprintf(stderr, "no CUDA device\n");
    return 77;
  }
  int sms, per_sm_weft, per_sm_grid;
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  sms = prop.multiProcessorCount;
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm_weft, weft_barrier_kernel, THREADS, 0));
  CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm_grid, grid_sync_kernel, THREADS, 0));
  unsigned most = (unsigned)(std::min(per_sm_weft, per_sm_grid) * sms);
  std::vector<unsigned> blocks = {1, 2, 4, 8, 16, 32, 64};
  for (unsigned k = 1; k <= 8; k *= 2) blocks.push_back(k * sms);
  std::sort(blocks.begin(), blocks.end());
  fprintf(stderr, "%s (sm_%d%d, %d multiprocessors), %d threads a block, %d "
          "operations a block, median of %d\n", prop.name, prop.major,
          prop.minor, sms, THREADS, o.ops, o.repeat);
  arena *a;
  CHECK_CUDA(cudaMalloc(&a, sizeof *a));
  CHECK_CUDA(cudaMemset(a, 0, sizeof *a));
  printf("primitive,impl,init,blocks,ops_per_s\n");
  if (wanted(o, "barrier")) bench_barriers(blocks, o, a, most);
  if (wanted(o, "mutex")) bench_mutexes(blocks, o, a);
  if (wanted(o, "semaphore")) bench_semaphores(blocks, o, a);
  summarize("barrier", 0, "grid.sync", NULL, blocks);
  summarize("mutex", 0, "libcu++_binary_semaphore", NULL, blocks);
  for (int v : {1, 2, 10, 120})
    summarize("semaphore", v, "libcu++_counting_semaphore", "paper_sleeping",
              blocks);
  CHECK_CUDA(cudaFree(a));
  return 0;
}
