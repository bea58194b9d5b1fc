/* test_buffer.c: buffer creation flags, copies, rectangles, ranges and
 * mappings. */
#include "support.h"

TEST(creation_flags) {
  weft_context *ctx = support_context();
  weft_buffer *b;
  int host[4];
  CHECK_FAILS(weft_buffer_create(ctx, 16, WEFT_MEM_READ_ONLY | WEFT_MEM_WRITE_ONLY,
                                 NULL, &b),
              WEFT_EINVAL, ctx, "both read-only and write-only");
  CHECK_FAILS(weft_buffer_create(ctx, 16,
                                 WEFT_MEM_USE_HOST_PTR | WEFT_MEM_COPY_HOST_PTR,
                                 host, &b),
              WEFT_EINVAL, ctx, "exclude each other");
  CHECK_FAILS(weft_buffer_create(ctx, 16, WEFT_MEM_COPY_HOST_PTR, NULL, &b),
              WEFT_EINVAL, ctx, "need a host pointer");
  CHECK_FAILS(weft_buffer_create(ctx, 16, 0, host, &b), WEFT_EINVAL, ctx,
              "needs USE_HOST_PTR or COPY_HOST_PTR");
  CHECK_FAILS(weft_buffer_create(ctx, 0, 0, NULL, &b), WEFT_EINVAL, ctx,
              "buffer size 0");
  CHECK_FAILS(weft_buffer_create(ctx, 16, 0x100, NULL, &b), WEFT_EINVAL, ctx,
              "unknown buffer flags");
  CHECK_FAILS(weft_buffer_create(ctx, 16,
                                 WEFT_MEM_COPY_HOST_PTR | WEFT_MEM_UNDEFINED,
                                 host, &b),
              WEFT_EINVAL, ctx, "a buffer with host data is not "
                                "WEFT_MEM_UNDEFINED");
  CHECK_FAILS(weft_buffer_create(ctx, (size_t)-1, 0, NULL, &b), WEFT_EINVAL, ctx,
              "is not within 1 and");
  CHECK_EQ(weft_buffer_create(NULL, 16, 0, NULL, &b), WEFT_EINVAL);
  CHECK_EQ(weft_buffer_create(ctx, 16, 0, NULL, NULL), WEFT_EINVAL);
  weft_context_release(ctx);
}

TEST(new_memory_is_zero) {
  weft_context *ctx = support_context();
  static const size_t sizes[] = {1, 100, 4096, 1 << 20, 64 << 20};
  for (int i = 0; i < 5; i++) {
    weft_buffer *b = support_buffer(ctx, sizes[i], NULL);
    CHECK_EQ(weft_buffer_size(b), sizes[i]);
    unsigned char *r = malloc(sizes[i]);
    CHECK_OK(weft_buffer_read(b, 0, sizes[i], r), b);
    for (size_t j = 0; j < sizes[i]; j++) CHECK_EQ(r[j], 0);
    free(r);
    weft_buffer_release(b);
  }
  weft_context_release(ctx);
}

/* Memory of a buffer gone, written to, comes back zeroed in the next of
 * its size (the GPU keeps small allocations for reuse:
 * cuda_spare_memory.c), several times over and beside other sizes. */
TEST(memory_of_released_buffers_comes_back_zero) {
  weft_context *ctx = support_context();
  static const size_t sizes[] = {2048, 2048, 24, 2048, 1 << 20, 24};
  unsigned char r[1 << 10];
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < 6; i++) {
      weft_buffer *b = support_buffer(ctx, sizes[i], NULL);
      for (size_t at = 0; at < sizes[i]; at += sizeof r) {
        size_t n = sizes[i] - at < sizeof r ? sizes[i] - at : sizeof r;
        CHECK_OK(weft_buffer_read(b, at, n, r), b);
        for (size_t j = 0; j < n; j++)
          if (r[j]) FAIL("round %d, buffer %d: byte %zu is %d", round, i,
                         at + j, r[j]);
        memset(r, 0xa5, n);
        CHECK_OK(weft_buffer_write(b, at, n, r), b);
      }
      weft_buffer_release(b);
    }
  weft_context_release(ctx);
}

TEST(write_read_ranges) {
  weft_context *ctx = support_context();
  weft_buffer *b = support_buffer(ctx, 100, NULL);
  char data[100], back[100];
  for (int i = 0; i < 100; i++) data[i] = (char)i;
  CHECK_OK(weft_buffer_write(b, 10, 50, data), b);
  CHECK_OK(weft_buffer_read(b, 0, 100, back), b);
  for (int i = 0; i < 100; i++)
    CHECK_EQ(back[i], i >= 10 && i < 60 ? i - 10 : 0);
  CHECK_FAILS(weft_buffer_write(b, 60, 41, data), WEFT_ERANGE, b,
              "bytes 60 to 101 lie outside the 100-byte buffer");
  CHECK_FAILS(weft_buffer_read(b, 101, 1, back), WEFT_ERANGE, b, "outside");
  CHECK_FAILS(weft_buffer_read(b, (size_t)-8, 16, back), WEFT_ERANGE, b,
              "outside");
  CHECK_FAILS(weft_buffer_read(b, 0, 0, back), WEFT_EINVAL, b, "size is 0");
  CHECK_FAILS(weft_buffer_write(b, 0, 4, NULL), WEFT_EINVAL, b, "NULL host");
  weft_buffer_release(b);
  weft_context_release(ctx);
}

TEST(copy_host_ptr_copies) {
  weft_context *ctx = support_context();
  int host[4] = {1, 2, 3, 4}, back[4];
  weft_buffer *b = support_buffer(ctx, sizeof host, host);
  host[0] = 100;
  CHECK_OK(weft_buffer_read(b, 0, sizeof back, back), b);
  CHECK_EQ(back[0], 1);
  CHECK_EQ(back[3], 4);
  weft_buffer_release(b);
  weft_context_release(ctx);
}

/* USE_HOST_PTR: the kernel works on the caller's memory itself. */
TEST(use_host_ptr_shares) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void twice(__global int *a) {\n"
                                  "  a[get_global_id(0)] *= 2;\n"
                                  "}\n",
                                  "twice");
  int host[64];
  for (int i = 0; i < 64; i++) host[i] = i;
  weft_buffer *b;
  CHECK_OK(weft_buffer_create(ctx, sizeof host, WEFT_MEM_USE_HOST_PTR, host, &b),
           ctx);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 64;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  for (int i = 0; i < 64; i++) CHECK_EQ(host[i], 2 * i);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Buffers over the caller's memory may share pages (a GPU maps host
 * memory for kernels in whole pages, once each): overlapping and
 * neighbouring ones work together, each works on after its neighbour is
 * released, and the memory can be used again. */
TEST(use_host_ptr_buffers_share_pages) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx,
                                  "__kernel void add(__global int *a, int v) {\n"
                                  "  a[get_global_id(0)] += v;\n"
                                  "}\n",
                                  "add");
  enum { N = 3000 }; /* ints: several pages */
  int *host = calloc(N, sizeof *host);
  CHECK(host != NULL);
  /* [0, 1000), [500, 2500) and [2500, 3000): the first two overlap, the
   * last starts in the page where the second ends. */
  size_t from[3] = {0, 500, 2500}, to[3] = {1000, 2500, 3000};
  weft_buffer *b[3];
  for (int i = 0; i < 3; i++)
    CHECK_OK(weft_buffer_create(ctx, (to[i] - from[i]) * sizeof(int),
                                WEFT_MEM_USE_HOST_PTR, host + from[i], &b[i]), ctx);
  /* add(b, v): each buffer's range gains v; b[0] is released first. */
  int total[N] = {0};
  for (int round = 0; round < 2; round++)
    for (int i = round; i < 3; i++) {
      int v = 1 << (3 * round + i);
      CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b[i]), k);
      CHECK_OK(weft_kernel_set_arg_value(k, 1, &v, sizeof v), k);
      size_t global = to[i] - from[i];
      CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
      for (size_t j = from[i]; j < to[i]; j++) total[j] += v;
      /* The kernel holds b[2] now: b[0] goes for good. */
      if (round == 0 && i == 2) weft_buffer_release(b[0]);
    }
  for (int j = 0; j < N; j++)
    if (host[j] != total[j]) FAIL("element %d: %d, not %d", j, host[j], total[j]);
  weft_buffer_release(b[1]);
  weft_buffer_release(b[2]);
  /* All of it again, as one buffer. */
  weft_buffer *whole;
  CHECK_OK(weft_buffer_create(ctx, N * sizeof(int), WEFT_MEM_USE_HOST_PTR, host,
                              &whole), ctx);
  int v = 100;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, whole), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &v, sizeof v), k);
  size_t global = N;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  for (int j = 0; j < N; j++) CHECK_EQ(host[j], total[j] + 100);
  weft_kernel_release(k);
  weft_buffer_release(whole);
  free(host);
  weft_context_release(ctx);
}

/* Host memory partly under a buffer over the caller's memory (which a
 * GPU maps for kernels page by page) still copies in and out whole: a
 * buffer made from it, and reads into it. */
TEST(copies_across_mapped_host_pages) {
  weft_context *ctx = support_context();
  enum { N = 4096 }; /* ints: four pages or more */
  int *host = calloc(N, sizeof *host);
  CHECK(host != NULL);
  for (int i = 0; i < N; i++) host[i] = i;
  weft_buffer *mapped;
  CHECK_OK(weft_buffer_create(ctx, 100 * sizeof(int), WEFT_MEM_USE_HOST_PTR,
                              host + 1500, &mapped), ctx);
  weft_buffer *copy;
  CHECK_OK(weft_buffer_create(ctx, N * sizeof(int), WEFT_MEM_COPY_HOST_PTR,
                              host, &copy), ctx);
  int *back = calloc(N, sizeof *back);
  CHECK(back != NULL);
  CHECK_OK(weft_buffer_read(copy, 0, N * sizeof(int), back), copy);
  for (int i = 0; i < N; i++) CHECK_EQ(back[i], i);
  /* Read into the memory around the mapped range. */
  CHECK_OK(weft_buffer_fill(copy, &(int){-1}, sizeof(int), 0, N * sizeof(int)),
           copy);
  CHECK_OK(weft_buffer_read(copy, 0, 3000 * sizeof(int), host), copy);
  for (int i = 0; i < N; i++) CHECK_EQ(host[i], i < 3000 ? -1 : i);
  weft_buffer_release(copy);
  weft_buffer_release(mapped);
  free(back);
  free(host);
  weft_context_release(ctx);
}

/* weft_buffer_map_refresh: a mapping shows writes made after it was
 * made once refreshed (a GPU's maps are copies); only mappings refresh. */
TEST(map_refresh) {
  weft_context *ctx = support_context();
  weft_buffer *b = support_buffer(ctx, 64, NULL);
  unsigned char *p;
  CHECK_OK(weft_buffer_map(b, 16, 32, WEFT_MAP_READ, (void **)&p), b);
  unsigned char later[32];
  memset(later, 7, sizeof later);
  CHECK_OK(weft_buffer_write(b, 16, sizeof later, later), b);
  CHECK_OK(weft_buffer_map_refresh(b, p), b);
  CHECK(!memcmp(p, later, sizeof later));
  CHECK_OK(weft_buffer_unmap(b, p), b);
  CHECK_FAILS(weft_buffer_map_refresh(b, p), WEFT_EMAPPED, b, "is not a mapping");
  weft_buffer_release(b);
  weft_context_release(ctx);
}

TEST(map_and_unmap) {
  CPU_ONLY("maps are the buffer's own memory on the CPU, copies on a GPU "
           "(OpenCL leaves a read map overlapping a write map undefined)");
  weft_context *ctx = support_context();
  weft_buffer *b = support_buffer(ctx, 256, NULL);
  void *p1, *p2;
  CHECK_OK(weft_buffer_map(b, 16, 64, WEFT_MAP_WRITE, &p1), b);
  CHECK_OK(weft_buffer_map(b, 0, 256, WEFT_MAP_READ, &p2), b);
  memset(p1, 0xab, 64);
  CHECK_OK(weft_buffer_unmap(b, p1), b);
  CHECK_EQ(((unsigned char *)p2)[16], 0xab);
  CHECK_EQ(((unsigned char *)p2)[80], 0);
  CHECK_OK(weft_buffer_unmap(b, p2), b);
  CHECK_FAILS(weft_buffer_unmap(b, p2), WEFT_EMAPPED, b, "is not a mapping");
  CHECK_FAILS(weft_buffer_map(b, 0, 16, 0, &p1), WEFT_EINVAL, b, "map flags");
  CHECK_FAILS(weft_buffer_map(b, 250, 16, WEFT_MAP_READ, &p1), WEFT_ERANGE, b,
              "outside");
  unsigned char back[256];
  CHECK_OK(weft_buffer_read(b, 0, 256, back), b);
  CHECK_EQ(back[79], 0xab);
  weft_buffer_release(b);
  weft_context_release(ctx);
}

/* A write map shows the buffer as it is, so that writing part of the
 * range leaves the rest as it was (on a GPU the map is a copy, all of
 * which goes back at the unmap). */
TEST(write_map_keeps_the_rest) {
  weft_context *ctx = support_context();
  unsigned char init[256];
  for (int i = 0; i < 256; i++) init[i] = (unsigned char)i;
  weft_buffer *b = support_buffer(ctx, 256, init);
  unsigned char *p;
  CHECK_OK(weft_buffer_map(b, 16, 64, WEFT_MAP_WRITE, (void **)&p), b);
  CHECK_EQ(p[0], 16);
  p[1] = 0xee;
  CHECK_OK(weft_buffer_unmap(b, p), b);
  unsigned char back[256];
  CHECK_OK(weft_buffer_read(b, 0, 256, back), b);
  for (int i = 0; i < 256; i++) CHECK_EQ(back[i], i == 17 ? 0xee : i);
  weft_buffer_release(b);
  weft_context_release(ctx);
}

/* A retained buffer outlives a release; the last release frees it, after
 * which its handle is refused. */
TEST(retain_release) {
  weft_context *ctx = support_context();
  weft_buffer *b = support_buffer(ctx, 64, NULL);
  weft_buffer_retain(b);
  weft_buffer_release(b);
  char x[4] = {1, 2, 3, 4};
  CHECK_OK(weft_buffer_write(b, 0, 4, x), b);
  weft_buffer_release(b);
  /* The context, retained by the buffer, is still ours. */
  weft_buffer *c = support_buffer(ctx, 64, NULL);
  weft_buffer_release(c);
  weft_context_release(ctx);
}

/* A sub-buffer is a window on its parent's memory, and outlives the
 * parent's handle. */
TEST(sub_buffers_share_memory) {
  weft_context *ctx = support_context();
  int host[64];
  for (int i = 0; i < 64; i++) host[i] = i;
  weft_buffer *parent = support_buffer(ctx, sizeof host, host), *sub;
  CHECK_OK(weft_buffer_create_sub(parent, 16 * 4, 8 * 4, WEFT_MEM_READ_ONLY, &sub),
           parent);
  CHECK_EQ(weft_buffer_size(sub), 32);
  int window[8];
  CHECK_OK(weft_buffer_read(sub, 0, sizeof window, window), sub);
  for (int i = 0; i < 8; i++) CHECK_EQ(window[i], 16 + i);
  int v = -5;
  CHECK_OK(weft_buffer_write(sub, 4, 4, &v), sub);
  CHECK_OK(weft_buffer_read(parent, 17 * 4, 4, &v), parent);
  CHECK_EQ(v, -5);
  weft_buffer *bad;
  CHECK_FAILS(weft_buffer_create_sub(parent, 60 * 4, 8 * 4, 0, &bad), WEFT_ERANGE,
              parent, "outside");
  CHECK_FAILS(weft_buffer_create_sub(parent, 0, 4, WEFT_MEM_COPY_HOST_PTR, &bad),
              WEFT_EINVAL, parent, "only access flags");
  weft_buffer_release(parent);
  CHECK_OK(weft_buffer_read(sub, 0, sizeof window, window), sub);
  CHECK_EQ(window[1], -5);
  weft_buffer_release(sub);
  weft_context_release(ctx);
}

TEST(copy_and_fill) {
  weft_context *ctx = support_context();
  weft_buffer *a = support_buffer(ctx, 1000, NULL), *b = support_buffer(ctx, 1000, NULL);
  unsigned short pattern = 0xbeef;
  CHECK_OK(weft_buffer_fill(a, &pattern, 2, 100, 800), a);
  CHECK_OK(weft_buffer_copy(a, 90, b, 0, 500), b);
  unsigned char r[1000];
  CHECK_OK(weft_buffer_read(b, 0, 1000, r), b);
  for (int i = 0; i < 1000; i++) {
    int src = 90 + i;
    int want = i >= 500 || src < 100 ? 0 : (src % 2 ? 0xbe : 0xef);
    CHECK_EQ(r[i], want);
  }
  unsigned char big[128];
  memset(big, 7, sizeof big);
  CHECK_OK(weft_buffer_fill(b, big, 128, 0, 896), b);
  CHECK_OK(weft_buffer_read(b, 895, 1, r), b);
  CHECK_EQ(r[0], 7);
  CHECK_FAILS(weft_buffer_fill(a, &pattern, 2, 1, 4), WEFT_EINVAL, a,
              "a 2-byte pattern cannot fill");
  CHECK_FAILS(weft_buffer_copy(a, 900, b, 0, 200), WEFT_ERANGE, a, "outside");
  weft_context *other = support_context();
  weft_buffer *c = support_buffer(other, 16, NULL);
  CHECK_FAILS(weft_buffer_copy(a, 0, c, 0, 16), WEFT_EINVAL, c,
              "different contexts");
  weft_buffer_release(c);
  weft_context_release(other);
  weft_buffer_release(a);
  weft_buffer_release(b);
  weft_context_release(ctx);
}

/* Rectangles: a 3x2x2 box written from a packed host array into a 8x4x3
 * buffer layout, read back elsewhere with other pitches, copied within the
 * buffer; what does not fit, and copies whose rows meet, are refused. */
TEST(rectangles) {
  weft_context *ctx = support_context();
  enum { ROW = 8, SLICE = 32, SIZE = 96 };
  weft_buffer *b = support_buffer(ctx, SIZE, NULL);
  unsigned char box[12], back[40] = {0}, all[SIZE];
  for (int i = 0; i < 12; i++) box[i] = (unsigned char)(i + 1);
  size_t region[3] = {3, 2, 2};
  weft_rect in_buffer = {{1, 1, 1}, ROW, SLICE}, packed = {{0, 0, 0}, 0, 0};
  CHECK_OK(weft_buffer_write_rect(b, &in_buffer, box, &packed, region), b);
  CHECK_OK(weft_buffer_read(b, 0, SIZE, all), b);
  for (int z = 0; z < 3; z++)
    for (int y = 0; y < 4; y++)
      for (int x = 0; x < ROW; x++) {
        int inside = x >= 1 && x < 4 && y >= 1 && y < 3 && z >= 1;
        int want = inside ? 1 + (x - 1) + 3 * (y - 1) + 6 * (z - 1) : 0;
        CHECK_EQ(all[z * SLICE + y * ROW + x], want);
      }
  /* Read into host rows of 5 and slices of 20, from (2, 0, 0). */
  weft_rect host = {{2, 0, 0}, 5, 20};
  CHECK_OK(weft_buffer_read_rect(b, &in_buffer, back, &host, region), b);
  CHECK_EQ(back[2], 1);
  CHECK_EQ(back[5 + 4], 6);
  CHECK_EQ(back[20 + 5 + 2], 10);
  CHECK_EQ(back[0], 0);
  /* A copy to (4, 2, 0), which meets none of the source's rows. */
  weft_rect to = {{4, 2, 0}, ROW, SLICE};
  CHECK_OK(weft_buffer_copy_rect(b, &in_buffer, b, &to, region), b);
  CHECK_OK(weft_buffer_read(b, 0, SIZE, all), b);
  CHECK_EQ(all[2 * ROW + 4], 1);
  CHECK_EQ(all[SLICE + 3 * ROW + 6], 12);
  /* Refused: past the end, a pitch under the width, rows that meet. */
  weft_rect far = {{6, 3, 2}, ROW, SLICE}, thin = {{0, 0, 0}, 2, 0},
            near = {{2, 1, 1}, ROW, SLICE};
  CHECK_EQ(weft_buffer_check_rect(NULL, &packed, b, &far, region), WEFT_ERANGE);
  CHECK_EQ(weft_buffer_write_rect(b, &thin, box, &packed, region), WEFT_ERANGE);
  CHECK_EQ(weft_buffer_copy_rect(b, &in_buffer, b, &near, region),
           WEFT_EOVERLAP);
  /* Sub-buffers of one buffer meet where their bytes do. */
  weft_buffer *lower, *upper;
  CHECK_OK(weft_buffer_create_sub(b, 0, 64, 0, &lower), b);
  CHECK_OK(weft_buffer_create_sub(b, 32, 64, 0, &upper), b);
  weft_rect first = {{1, 1, 0}, ROW, SLICE}, second = {{2, 1, 0}, ROW, SLICE};
  size_t flat[3] = {3, 2, 1};
  CHECK_EQ(weft_buffer_check_rect(upper, &first, lower, &first, flat), 0);
  weft_rect lower_at = {{2, 1, 1}, ROW, SLICE};
  CHECK_EQ(weft_buffer_check_rect(upper, &second, lower, &lower_at, flat),
           WEFT_EOVERLAP);
  size_t none[3] = {0, 1, 1};
  CHECK_EQ(weft_buffer_check_rect(b, &packed, NULL, &packed, none), WEFT_EINVAL);
  weft_buffer_release(upper);
  weft_buffer_release(lower);
  weft_buffer_release(b);
  weft_context_release(ctx);
}

TEST_MAIN()
