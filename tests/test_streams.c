/* test_streams.c: a kernel's stores to consecutive elements of a buffer
 * it does not read go past the caches (non-temporal) in launches whose
 * buffers do not fit the last-level cache (jit/cpu/stream_stores.c):
 * which launches do (the launch log says so), and that the results are
 * the same either way, unaligned launches included. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* out is streamed; scatter is stored backwards, not one element further
 * for each work-item: kept plain. */
static const char *streaming_source =
    "__kernel void k(__global const float *a, __global float *out,\n"
    "                __global int *scatter, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = a[i] * 2.0f + 1.0f;\n"
    "  scatter[n - 1 - i] = (int)i;\n"
    "}\n";

typedef struct run {
  int streamed; /* the launch log said so */
} run;

/* Runs k over n items (offset and local as given) with options, checks
 * every element, and says whether the launch streamed. */
static run run_streaming(const char *source, const char *options, size_t n,
                         size_t offset, size_t local) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  size_t total = n + offset;
  float *a = malloc(total * sizeof *a);
  CHECK(a != NULL);
  for (size_t i = 0; i < total; i++) a[i] = (float)(i % 1000) * 0.5f;
  weft_buffer *in = support_buffer(ctx, total * sizeof *a, a);
  weft_buffer *out = support_buffer(ctx, total * sizeof(float), NULL);
  weft_buffer *scatter = support_buffer(ctx, total * sizeof(int), NULL);
  int count = (int)total;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, in), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, out), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, scatter), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 3, &count, sizeof count), k);
  support_stderr_begin();
  int rc = weft_kernel_launch(k, 1, &offset, &n, &local);
  const char *log = support_stderr_end();
  CHECK_OK(rc, k);
  CHECK_STR_CONTAINS(log, "weft[launch]: kernel 'k'");
  run r = {strstr(log, "its streams stored past the caches") != NULL};
  float *got = malloc(total * sizeof *got);
  int *where = malloc(total * sizeof *where);
  CHECK(got && where);
  CHECK_OK(weft_buffer_read(out, 0, total * sizeof *got, got), out);
  CHECK_OK(weft_buffer_read(scatter, 0, total * sizeof *where, where), scatter);
  for (size_t i = offset; i < total; i++) {
    if (got[i] != a[i] * 2.0f + 1.0f)
      FAIL("out[%zu] = %g, expected %g", i, got[i], a[i] * 2.0f + 1.0f);
    size_t at = total - 1 - i;
    if (where[at] != (int)i) FAIL("scatter[%zu] = %d, expected %zu", at, where[at], i);
  }
  for (size_t i = 0; i < offset; i++) CHECK_EQ(got[i], 0.0f);
  free(got);
  free(where);
  free(a);
  weft_buffer_release(in);
  weft_buffer_release(out);
  weft_buffer_release(scatter);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
  return r;
}

/* Items whose three buffers (12 bytes an item) outgrow the device's
 * last-level cache; skips where that would take too much memory. */
static size_t items_past_cache(void) {
  uint64_t cache = support_device_info().cache_size;
  if (!cache) SKIP("the device knows of no cache");
  if (cache > ((uint64_t)256 << 20))
    SKIP("a %llu MiB cache: the test's buffers would take too much memory",
         (unsigned long long)(cache >> 20));
  return (size_t)(cache / 12 / 4096 + 1) * 4096;
}

TEST(large_launches_store_streams_past_the_caches) {
  CPU_ONLY("non-temporal stores are the CPU's");
  setenv("WEFT_LOG", "launch", 1);
  size_t n = items_past_cache();
  CHECK(run_streaming(streaming_source, NULL, n, 0, 4096).streamed);
  /* Unaligned: an odd offset and group size, the same results. */
  CHECK(run_streaming(streaming_source, NULL, n / 1000 * 1000, 3, 1000).streamed);
  /* What fits the cache, and -cl-weft-no-stream, store plainly. */
  CHECK(!run_streaming(streaming_source, NULL, 4096 * 7, 0, 4096).streamed);
  CHECK(!run_streaming(streaming_source, "-cl-weft-no-stream", n, 0, 4096).streamed);
  CHECK(!run_streaming(streaming_source, "-cl-opt-disable", n, 0, 4096).streamed);
}

/* Stores the pass leaves plain, whatever the launch: an output the
 * kernel also reads, one stored in two places, one at a stride. */
TEST(streams_only_where_a_buffer_is_stored_once_in_order) {
  CPU_ONLY("non-temporal stores are the CPU's");
  setenv("WEFT_LOG", "launch", 1);
  size_t n = items_past_cache();
  static const char *const plain[] = {
      /* out read back */
      "__kernel void k(__global const float *a, __global float *out,\n"
      "                __global int *scatter, int n) {\n"
      "  size_t i = get_global_id(0);\n"
      "  out[i] = a[i];\n"
      "  out[i] = out[i] * 2.0f + 1.0f;\n"
      "  scatter[n - 1 - i] = (int)i;\n"
      "}\n",
      /* two stores to out (a stencil's edge and inside: a line's
       * non-temporal and cached stores mixed would flush it) */
      "__kernel void k(__global const float *a, __global float *out,\n"
      "                __global int *scatter, int n) {\n"
      "  size_t i = get_global_id(0);\n"
      "  out[i] = a[i];\n"
      "  scatter[n - 1 - i] = (int)i;\n"
      "  out[i] = a[i] * 2.0f + 1.0f;\n"
      "}\n",
  };
  for (size_t s = 0; s < sizeof plain / sizeof *plain; s++)
    CHECK(!run_streaming(plain[s], NULL, n, 0, 4096).streamed);
}

TEST_MAIN()
