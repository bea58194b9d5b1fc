/* test_cuda_driver.c: the CUDA driver loaded at run time
 * (backend/cuda/cuda_api.h): GPUs described, memory copied both ways, PTX
 * that clang-19 made from OpenCL C loaded and run (plainly and
 * cooperatively), the JIT's log for bad PTX, and a clear reason where
 * there is no driver. On a machine without a GPU every test but the last
 * skips (exit 77) and says why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_api.h"
#include "backend/cuda/cuda_gpu.h"
#include "harness.h"

extern const char add_index_ptx[];

static weft_cuda_api api;
static weft_cuda_gpu gpu;

/* Loads the driver and makes GPU 0's primary context current, or skips. */
static void need_gpu(void) {
  char why[512];
  if (weft__cuda_load(&api, NULL, why, sizeof why) ||
      weft__cuda_gpu_count(&api) < 1) {
    SKIP("no CUDA device (%s)", api.library ? "the driver sees no GPU" : why);
  }
  if (weft__cuda_gpu_describe(&api, 0, &gpu, why, sizeof why))
    FAIL("%s", why);
  CUcontext ctx;
  CHECK_EQ(api.cuDevicePrimaryCtxRetain(&ctx, gpu.device), CUDA_SUCCESS);
  CHECK_EQ(api.cuCtxSetCurrent(ctx), CUDA_SUCCESS);
}

/* Fails the test with the driver's words unless rc is CUDA_SUCCESS. */
static void ok(CUresult rc, const char *what) {
  if (rc == CUDA_SUCCESS) return;
  char text[512];
  weft__cuda_describe(&api, rc, what, text, sizeof text);
  FAIL("%s", text);
}

TEST(describes_every_gpu) {
  need_gpu();
  char why[512];
  for (int i = 0; i < weft__cuda_gpu_count(&api); i++) {
    weft_cuda_gpu g;
    if (weft__cuda_gpu_describe(&api, i, &g, why, sizeof why))
      FAIL("%s", why);
    printf("GPU %d: %s, sm_%d%d, %d multiprocessors, %.1f GiB, %zu KiB "
           "shared per block (%zu opt-in), cooperative launch %s, driver "
           "%d\n", i, g.name, g.cc_major, g.cc_minor, g.multiprocessors,
           (double)g.memory / (1 << 30), g.shared_per_block / 1024,
           g.shared_per_block_optin / 1024, g.cooperative_launch ? "yes" : "no",
           api.driver_version);
    CHECK(g.name[0] != 0);
    CHECK(g.cc_major >= 5);
    CHECK(g.multiprocessors > 0);
    CHECK_EQ(g.warp_size, 32);
    CHECK(g.memory > ((size_t)1 << 30));
    CHECK(g.shared_per_block >= 48 * 1024);
    CHECK(g.shared_per_block_optin >= g.shared_per_block);
    CHECK(g.max_threads_per_block >= 1024);
  }
}

TEST(memory_round_trip) {
  need_gpu();
  enum { N = 1 << 18 };
  unsigned *host = malloc(N * sizeof *host), *back = malloc(N * sizeof *back);
  for (unsigned i = 0; i < N; i++) host[i] = i * 2654435761u;
  CUdeviceptr a, b;
  ok(api.cuMemAlloc(&a, N * sizeof *host), "cuMemAlloc");
  ok(api.cuMemAlloc(&b, N * sizeof *host), "cuMemAlloc");
  ok(api.cuMemcpyHtoD(a, host, N * sizeof *host), "cuMemcpyHtoD");
  ok(api.cuMemcpyDtoD(b, a, N * sizeof *host), "cuMemcpyDtoD");
  ok(api.cuMemsetD8(b, 0xab, 64), "cuMemsetD8"); /* the first 16 words */
  ok(api.cuMemcpyDtoH(back, b, N * sizeof *back), "cuMemcpyDtoH");
  for (unsigned i = 0; i < N; i++)
    if (back[i] != (i < 16 ? 0xababababu : host[i]))
      FAIL("word %u is %#x", i, back[i]);
  ok(api.cuMemFree(a), "cuMemFree");
  ok(api.cuMemFree(b), "cuMemFree");
  free(host);
  free(back);
}

/* add_index.cl, compiled to PTX by clang-19: data[i] += i. */
static CUfunction load_add_index(CUmodule *module) {
  char log[4096] = "";
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, (void *)(size_t)sizeof log};
  CUresult rc = api.cuModuleLoadDataEx(module, add_index_ptx, 2, options,
                                       values);
  if (rc != CUDA_SUCCESS) {
    char text[512];
    weft__cuda_describe(&api, rc, "cuModuleLoadDataEx", text, sizeof text);
    FAIL("%s; the JIT says: %s", text, log);
  }
  CUfunction f;
  ok(api.cuModuleGetFunction(&f, *module, "add_index"), "cuModuleGetFunction");
  return f;
}

/* Runs add_index over n words (launch: plain or cooperative) and checks. */
static void run_add_index(CUfunction f, unsigned n, unsigned grid,
                          unsigned block, int cooperative) {
  unsigned *host = malloc(n * sizeof *host);
  for (unsigned i = 0; i < n; i++) host[i] = 7;
  CUdeviceptr data;
  ok(api.cuMemAlloc(&data, n * sizeof *host), "cuMemAlloc");
  ok(api.cuMemcpyHtoD(data, host, n * sizeof *host), "cuMemcpyHtoD");
  void *params[] = {&data, &n};
  if (cooperative)
    ok(api.cuLaunchCooperativeKernel(f, grid, 1, 1, block, 1, 1, 0, NULL,
                                     params), "cuLaunchCooperativeKernel");
  else
    ok(api.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, NULL, params, NULL),
       "cuLaunchKernel");
  ok(api.cuStreamSynchronize(NULL), "cuStreamSynchronize");
  ok(api.cuMemcpyDtoH(host, data, n * sizeof *host), "cuMemcpyDtoH");
  unsigned covered = grid * block < n ? grid * block : n;
  for (unsigned i = 0; i < n; i++)
    if (host[i] != (i < covered ? 7 + i : 7))
      FAIL("word %u is %u after %s launch", i, host[i],
           cooperative ? "a cooperative" : "a");
  ok(api.cuMemFree(data), "cuMemFree");
  free(host);
}

TEST(runs_ptx_made_from_opencl_c) {
  need_gpu();
  CUmodule module;
  CUfunction f = load_add_index(&module);
  run_add_index(f, 1000003, (1000003 + 255) / 256, 256, 0);
  run_add_index(f, 100, 1, 64, 0); /* only 64 of 100 covered */
  /* Cooperative: every block resident at once, as many as fit. */
  int per_sm = 0;
  ok(api.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 256, 0),
     "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  CHECK(per_sm >= 1);
  CHECK(gpu.cooperative_launch);
  unsigned grid = (unsigned)(per_sm * gpu.multiprocessors);
  printf("add_index: %d blocks of 256 per multiprocessor, %u co-resident\n",
         per_sm, grid);
  run_add_index(f, grid * 256, grid, 256, 1);
  ok(api.cuModuleUnload(module), "cuModuleUnload");
}

TEST(bad_ptx_gives_the_jits_log) {
  need_gpu();
  static const char bad[] =
      ".version 8.0\n.target sm_50\n.address_size 64\n"
      ".visible .entry broken() {\n  frobnicate.u32 %r1;\n  ret;\n}\n";
  char log[4096] = "";
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, (void *)(size_t)sizeof log};
  CUmodule module;
  CUresult rc = api.cuModuleLoadDataEx(&module, bad, 2, options, values);
  CHECK(rc != CUDA_SUCCESS);
  char text[512];
  weft__cuda_describe(&api, rc, "cuModuleLoadDataEx", text, sizeof text);
  printf("%s\nJIT log: %s\n", text, log);
  CHECK_STR_CONTAINS(text, "CUDA_ERROR_INVALID_PTX");
  CHECK_STR_CONTAINS(log, "frobnicate");
}

/* Runs everywhere: a driver that cannot be loaded is a reason, not a
 * crash. */
TEST(no_driver_says_why) {
  weft_cuda_api none;
  char why[512];
  CHECK_EQ(weft__cuda_load(&none, "/nonexistent/libcuda.so.1", why,
                           sizeof why), -1);
  CHECK_STR_CONTAINS(why, "no CUDA driver: /nonexistent/libcuda.so.1");
  CHECK(none.library == NULL);
}

TEST_MAIN()
