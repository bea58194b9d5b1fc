/* bench_cuda_compact.cu: the stream compaction of bench_sub_groups written
 * in CUDA, the reference its GPU rows are held to (issue 24): the same
 * 16M ints (bench/common.c's xorshift, seed 7, each % 2001 - 1000, so
 * about half are positive), groups of 256, each kept value's slot from
 *
 *   plain       atomicAdd(count, 1) per kept value
 *   aggregated  NVIDIA's "warp-aggregated atomics": __activemask, one
 *               atomicAdd of the popcount by the lowest active lane,
 *               __shfl_sync of the result, each lane's rank by popcount
 *
 * and the 16-bin histogram, plain atomicAdd and aggregated per bin by
 * __match_any_sync, built by nvcc beside Weft's OpenCL kernels in the
 * same call:
 *
 *   nvcc -O3 -std=c++17 -arch=native bench/cuda/bench_cuda_compact.cu
 *   ./a.out [--quick]
 *
 * Each kernel runs once untimed, then 9 times (3 with --quick), timed
 * as Weft's launches are (the host's clock around the launch and its
 * synchronization); the median is printed as CSV (benchmark,device,ms,
 * over_baseline: over plain), the kept values checked by count and sum. */
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../../tests/cuda/check_cuda.cuh"

__global__ void compact_plain(const int *in, int *out, int *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  if (v > 0) out[atomicAdd(count, 1)] = v;
}

__device__ int aggregated_inc(int *count) {
  unsigned mask = __activemask();
  int lane = threadIdx.x % 32, leader = __ffs(mask) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(count, __popc(mask));
  base = __shfl_sync(mask, base, leader);
  return base + __popc(mask & ((1u << lane) - 1));
}

__global__ void compact_aggregated(const int *in, int *out, int *count,
                                   int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  if (v > 0) out[aggregated_inc(count)] = v;
}

/* The histogram of bench_sub_groups: 16 bins, an atomicAdd each, and
 * the same aggregated by __match_any_sync (NVIDIA's reduce by key): the
 * lanes on one bin add their count once. */
__global__ void histogram_plain(const int *in, int *out, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i] & 15], 1);
}

__global__ void histogram_matched(const int *in, int *out, int *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int *bin = &bins[in[i] & 15];
  unsigned peers = __match_any_sync(__activemask(), (unsigned long long)bin);
  if (threadIdx.x % 32 == __ffs(peers) - 1) atomicAdd(bin, __popc(peers));
}

typedef void (*compact_fn)(const int *, int *, int *, int);

static uint32_t next(uint32_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

/* One launch after count's first zeroed words, timed as bench_sub_groups
 * times Weft's: the host's clock around the launch and its end (a Weft
 * launch on the GPU returns when the kernel has run). */
static double run_once(compact_fn k, const int *in, int *out, int *count,
                       int n, int words = 1) {
  CHECK_CUDA(cudaMemset(count, 0, words * sizeof *count));
  CHECK_CUDA(cudaDeviceSynchronize());
  auto start = std::chrono::steady_clock::now();
  k<<<(n + 255) / 256, 256>>>(in, out, count, n);
  CHECK_CUDA(cudaDeviceSynchronize());
  std::chrono::duration<double, std::milli> ms =
      std::chrono::steady_clock::now() - start;
  return ms.count();
}

/* The median of reps timed runs of a histogram after one untimed; the
 * bins checked. */
static double measure_histogram(const char *name, compact_fn k, const int *in,
                                int *bins, const std::vector<int> &host,
                                int reps) {
  int n = (int)host.size();
  std::vector<double> t;
  for (int r = 0; r <= reps; r++) {
    double ms = run_once(k, in, NULL, bins, n, 16);
    if (r) t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  int got[16], want[16] = {0};
  CHECK_CUDA(cudaMemcpy(got, bins, sizeof got, cudaMemcpyDeviceToHost));
  for (int v : host) want[v & 15]++;
  for (int b = 0; b < 16; b++)
    if (got[b] != want[b]) {
      fprintf(stderr, "bench_cuda_compact: %s bin %d holds %d, want %d\n",
              name, b, got[b], want[b]);
      exit(1);
    }
  return t[t.size() / 2];
}

/* The median of reps timed runs after one untimed; the result checked. */
static double measure(const char *name, compact_fn k, const int *in, int *out,
                      int *count, const std::vector<int> &host, int reps) {
  int n = (int)host.size();
  run_once(k, in, out, count, n);
  std::vector<double> t;
  for (int r = 0; r < reps; r++) t.push_back(run_once(k, in, out, count, n));
  std::sort(t.begin(), t.end());
  int kept;
  CHECK_CUDA(cudaMemcpy(&kept, count, sizeof kept, cudaMemcpyDeviceToHost));
  std::vector<int> got(kept > 0 ? kept : 1);
  CHECK_CUDA(cudaMemcpy(got.data(), out, (size_t)kept * sizeof(int),
                        cudaMemcpyDeviceToHost));
  long long want_sum = 0, got_sum = 0;
  int want = 0;
  for (int v : host)
    if (v > 0) want_sum += v, want++;
  for (int i = 0; i < kept; i++) got_sum += got[i];
  if (kept != want || got_sum != want_sum) {
    fprintf(stderr, "bench_cuda_compact: %s kept %d summing to %lld, want %d "
            "summing to %lld\n", name, kept, got_sum, want, want_sum);
    exit(1);
  }
  return t[t.size() / 2];
}

int main(int argc, char **argv) {
  bool quick = argc > 1 && !strcmp(argv[1], "--quick");
  int n = quick ? 1 << 20 : 1 << 24, reps = quick ? 3 : 9;
  std::vector<int> host(n);
  uint32_t x = 7 * 2654435761u + 1;
  for (int i = 0; i < n; i++) host[i] = (int)(next(&x) % 2001) - 1000;
  int *in, *out, *count;
  CHECK_CUDA(cudaMalloc(&in, (size_t)n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&out, (size_t)n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&count, 16 * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(in, host.data(), (size_t)n * sizeof(int),
                        cudaMemcpyHostToDevice));
  double plain = measure("plain", compact_plain, in, out, count, host, reps);
  double agg = measure("aggregated", compact_aggregated, in, out, count, host,
                       reps);
  printf("benchmark,device,ms,over_baseline\n");
  printf("cuda_compact_plain,gpu,%.3f,1.000\n", plain);
  printf("cuda_compact_aggregated,gpu,%.3f,%.3f\n", agg, agg / plain);
  double hist = measure_histogram("histogram_plain", histogram_plain, in, count,
                                  host, reps);
  double matched = measure_histogram("histogram_matched", histogram_matched, in,
                                     count, host, reps);
  printf("cuda_histogram16_plain,gpu,%.3f,1.000\n", hist);
  printf("cuda_histogram16_matched,gpu,%.3f,%.3f\n", matched, matched / hist);
  CHECK_CUDA(cudaFree(in));
  CHECK_CUDA(cudaFree(out));
  CHECK_CUDA(cudaFree(count));
  return 0;
}
