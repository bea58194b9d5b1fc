/* test_overrun.c: a kernel that writes past the end of a buffer never
 * corrupts the host's memory. Buffers live out of the application's heap
 * behind guard pages: a write more than WEFT_GUARDED_SLACK (1024) bytes
 * past the end faults and is reported with the work-item; a smaller one
 * lands in the buffer's own slack. Either way malloc, other buffers and later
 * builds are unharmed (piglit's bswap and clz-optimizations overrun their
 * buffers by 16 and 64 bytes after all their checks pass). */
#include "support.h"

/* The first work-item past the slack faults first when groups run in
 * order on one thread (on more, another may be the first to report). */
__attribute__((constructor)) static void one_thread(void) {
  setenv("WEFT_NUM_THREADS", "1", 0);
}

static const char *fill =
    "__kernel void k(__global int *out) { out[get_global_id(0)] = -1; }\n";

/* Items write one int each; neighbours must keep their 7s. */
static void run_past_end(size_t elements, size_t items, int expect_fault) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, fill, "k");
  int sevens[64];
  for (int i = 0; i < 64; i++) sevens[i] = 7;
  weft_buffer *before = support_buffer(ctx, sizeof sevens, sevens);
  weft_buffer *b = support_buffer(ctx, elements * sizeof(int), NULL);
  weft_buffer *after = support_buffer(ctx, sizeof sevens, sevens);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t local = 1;
  int rc = weft_kernel_launch(k, 1, NULL, &items, &local);
  if (expect_fault) {
    CHECK_EQ(rc, WEFT_EKERNELFAULT);
    CHECK_STR_CONTAINS(weft_errmsg(k), "crashed with a segmentation fault");
    /* 10 ints rounded with the slack to 1152 bytes: item 288 is past. */
    CHECK_STR_CONTAINS(weft_errmsg(k), "work-item (288)");
  } else {
    CHECK_OK(rc, k);
  }
  int got[64];
  weft_buffer *both[2] = {before, after};
  for (int n = 0; n < 2; n++) {
    CHECK_OK(weft_buffer_read(both[n], 0, sizeof got, got), both[n]);
    for (int i = 0; i < 64; i++) CHECK_EQ(got[i], 7);
  }
  /* The heap is whole: allocate, free, build and run again. */
  for (int i = 0; i < 1000; i++) free(malloc((size_t)(i % 97) * 16 + 1));
  weft_kernel *again = support_kernel(ctx, fill, "k");
  CHECK_OK(weft_kernel_set_arg_buffer(again, 0, b), again);
  CHECK_OK(weft_kernel_launch(again, 1, NULL, &elements, NULL), again);
  weft_kernel_release(again);
  weft_buffer_release(before);
  weft_buffer_release(b);
  weft_buffer_release(after);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* piglit's clz-optimizations: an int[18] written by 34 work-items. */
TEST(small_overrun_stays_in_the_buffer) {
  CPU_ONLY("the CPU device's buffer storage");
  run_past_end(18, 34, 0);
}

/* Past the slack: the guard page, and a report. */
TEST(large_overrun_faults_cleanly) {
  CPU_ONLY("the CPU device's buffer storage");
  run_past_end(10, 1100, 1);
}

/* More buffers than guard pages can fence (the process's mappings are
 * limited): the rest are still made, out of the heap, and all freed. */
TEST(many_buffers) {
  weft_context *ctx = support_context();
  enum { N = 40000 };
  weft_buffer **b = calloc(N, sizeof *b);
  CHECK(b);
  for (int i = 0; i < N; i++) {
    int v = i;
    CHECK_OK(weft_buffer_create(ctx, sizeof v, WEFT_MEM_COPY_HOST_PTR, &v, &b[i]),
             ctx);
  }
  for (int i = 0; i < N; i += 997) {
    int v;
    CHECK_OK(weft_buffer_read(b[i], 0, sizeof v, &v), b[i]);
    CHECK_EQ(v, i);
  }
  for (int i = 0; i < N; i++) weft_buffer_release(b[i]);
  free(b);
  weft_context_release(ctx);
}

/* A large buffer's storage is kept when it is released and given to the
 * next buffer it holds (backend/cpu/guarded.c): that buffer is zero-filled
 * all the same, ends at a guard page, and the pages in front of it are
 * closed too. */
static const char *poke =
    "__kernel void k(__global int *out, int at) { out[at] = 1; }\n";

static int poke_at(weft_context *ctx, weft_buffer *b, int at) {
  weft_kernel *k = support_kernel(ctx, poke, "k");
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &at, sizeof at), k);
  size_t one = 1;
  int rc = weft_kernel_launch(k, 1, NULL, &one, &one);
  weft_kernel_release(k);
  return rc;
}

TEST(reused_storage_is_zeroed_and_fenced) {
  CPU_ONLY("the CPU device's buffer storage");
  weft_context *ctx = support_context();
  enum { BIG = 12 << 20, SMALL = 5 << 20 };
  for (int round = 0; round < 3; round++) {
    weft_buffer *big = support_buffer(ctx, BIG, NULL);
    CHECK_OK(weft_buffer_fill(big, "\x55", 1, 0, BIG), big);
    weft_buffer_release(big);
    weft_buffer *b = support_buffer(ctx, SMALL, NULL);
    unsigned char *got = malloc(SMALL);
    CHECK(got);
    CHECK_OK(weft_buffer_read(b, 0, SMALL, got), b);
    size_t nonzero = 0;
    for (size_t i = 0; i < SMALL; i++) nonzero += got[i] != 0;
    CHECK_EQ(nonzero, 0);
    free(got);
    CHECK_OK(poke_at(ctx, b, 0), ctx);
    CHECK_OK(poke_at(ctx, b, SMALL / 4 - 1), ctx);
    /* A page past the end, a page before the start. */
    CHECK_EQ(poke_at(ctx, b, SMALL / 4 + 1024), WEFT_EKERNELFAULT);
    CHECK_EQ(poke_at(ctx, b, -1024), WEFT_EKERNELFAULT);
    weft_buffer_release(b);
  }
  weft_context_release(ctx);
}

TEST_MAIN()
