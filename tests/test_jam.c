/* test_jam.c: kernels with loops whose control flow is the same for every
 * work-item run several work-items side by side (jit/cpu/jam.c): the
 * results are each work-item's own in every group shape (groups that are
 * a multiple of the width, those with some left over, single work-items,
 * 2D and 3D, global offsets), with private arrays, memory a work-item
 * reads back in its loop, shared branches and switches, choices that
 * differ between work-items made selects, the regions between barriers
 * each on its own, loops that work-items leave at different turns; the
 * launch log
 * says which kernels are jammed (not those whose branches differ between
 * work-items elsewhere, nor under -cl-weft-no-jam); and a fault in a jammed kernel
 * still names its work-item. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* c[row][col] = sum over k of a[row][k] * b[k][col], in uints as the
 * benchmarks' matrix product is written (32-bit indices). */
static const char *product =
    "__kernel void k(__global const int *a, __global const int *b,\n"
    "                __global int *c, uint depth) {\n"
    "  uint col = get_global_id(0), row = get_global_id(1);\n"
    "  uint width = get_global_size(0) + get_global_offset(0);\n"
    "  int sum = 0;\n"
    "  for (uint k = 0; k < depth; k++)\n"
    "    sum += a[row * depth + k] * b[k * width + col];\n"
    "  c[row * width + col] = sum;\n"
    "}\n";

enum { WIDTH = 39, HEIGHT = 6, DEPTH = 29 };

static int a_at(int i) { return (i * 37) % 23 - 11; }
static int b_at(int i) { return (i * 53) % 19 - 9; }

/* The same in ints, as CLBlast indexes (wide_indices.c, jam_ids.c). */
static const char *int_product =
    "__kernel void k(__global const int *a, __global const int *b,\n"
    "                __global int *c, int depth) {\n"
    "  int col = get_global_id(0), row = get_global_id(1);\n"
    "  int width = get_global_size(0) + get_global_offset(0);\n"
    "  int sum = 0;\n"
    "  for (int k = 0; k < depth; k++)\n"
    "    sum += a[row * depth + k] * b[k * width + col];\n"
    "  c[row * width + col] = sum;\n"
    "}\n";

/* The product of source over the whole matrix, from offset (x, y) on,
 * with groups of local (NULL: Weft's choice); options for the build. */
static void check_product_of(const char *source, const char *options,
                             const size_t offset[2], const size_t *local) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  int a[HEIGHT * DEPTH], b[DEPTH * WIDTH], c[HEIGHT * WIDTH];
  for (int i = 0; i < HEIGHT * DEPTH; i++) a[i] = a_at(i);
  for (int i = 0; i < DEPTH * WIDTH; i++) b[i] = b_at(i);
  memset(c, 0, sizeof c);
  weft_buffer *ba = support_buffer(ctx, sizeof a, a);
  weft_buffer *bb = support_buffer(ctx, sizeof b, b);
  weft_buffer *bc = support_buffer(ctx, sizeof c, c);
  unsigned depth = DEPTH;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, ba), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bb), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, bc), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 3, &depth, sizeof depth), k);
  size_t global[2] = {WIDTH - offset[0], HEIGHT - offset[1]};
  CHECK_OK(weft_kernel_launch(k, 2, offset, global, local), k);
  CHECK_OK(weft_buffer_read(bc, 0, sizeof c, c), bc);
  for (size_t row = 0; row < HEIGHT; row++)
    for (size_t col = 0; col < WIDTH; col++) {
      int want = 0;
      if (row >= offset[1] && col >= offset[0])
        for (int i = 0; i < DEPTH; i++)
          want += a[row * DEPTH + i] * b[i * WIDTH + col];
      CHECK_EQ(c[row * WIDTH + col], want);
    }
  weft_buffer_release(ba);
  weft_buffer_release(bb);
  weft_buffer_release(bc);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

static void check_product(const char *options, const size_t offset[2],
                          const size_t *local) {
  check_product_of(product, options, offset, local);
}

TEST(product_in_every_group_shape) {
  static const size_t none[2] = {0, 0};
  static const size_t shapes[][2] = {{13, 3}, {39, 1}, {3, 2}, {1, 1},
                                     {13, 6}, {39, 6}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    size_t local[2] = {shapes[s][0], shapes[s][1]};
    /* 13 and 39 are no multiples of 8: some work-items go one by one. */
    check_product(NULL, none, local);
    check_product("-cl-weft-no-jam", none, local);
  }
  check_product(NULL, none, NULL);
}

TEST(product_with_global_offset) {
  static const size_t offset[2] = {5, 1};
  size_t local[2] = {17, 5};
  check_product(NULL, offset, local);
  check_product(NULL, offset, NULL);
}

/* Runs "k" of source, built with options, over global items in groups
 * of local, with two arguments: a buffer of bytes that holds data first
 * and is read back into it, and a 4-byte value. */
static void run_k(const char *source, const char *options, size_t global,
                  size_t local, void *data, size_t bytes, const void *value) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *b = support_buffer(ctx, bytes, data);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, value, 4), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  CHECK_OK(weft_buffer_read(b, 0, bytes, data), b);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* Runs "k" (an int buffer of n, then an int argument) over n items in
 * groups of local, the buffer first holding i * 3 - 100, and checks each
 * element against want(i, value). */
static void check_each(const char *source, const char *options, size_t n,
                       size_t local, int value, int (*want)(int, int)) {
  int *data = malloc(n * sizeof *data);
  CHECK(data);
  for (size_t i = 0; i < n; i++) data[i] = (int)i * 3 - 100;
  run_k(source, options, n, local, data, n * sizeof *data, &value);
  for (size_t i = 0; i < n; i++) CHECK_EQ(data[i], want((int)i, value));
  free(data);
}

/* Each work-item fills a private array of its own, then reads it back in
 * another order. */
static const char *private_array =
    "__kernel void k(__global int *a, int v) {\n"
    "  int i = get_global_id(0), p[16], s = 0;\n"
    "  for (int j = 0; j < 16; j++) p[j] = i * j + v;\n"
    "  for (int j = 0; j < 16; j++) s += p[(j * 7) & 15] * (j + 1);\n"
    "  a[i] = s;\n"
    "}\n";

static int private_array_want(int i, int v) {
  int p[16], s = 0;
  for (int j = 0; j < 16; j++) p[j] = i * j + v;
  for (int j = 0; j < 16; j++) s += p[(j * 7) & 15] * (j + 1);
  return s;
}

TEST(private_arrays_are_each_work_items) {
  check_each(private_array, NULL, 203, 29, 5, private_array_want);
  check_each(private_array, NULL, 64, 16, -3, private_array_want);
}

/* A work-item reads back, in its loop, what it wrote there. */
static const char *own_memory =
    "__kernel void k(__global int *a, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  for (int j = 0; j < n; j++) a[i] = a[i] * 3 + j;\n"
    "}\n";

static int own_memory_want(int i, int n) {
  unsigned x = (unsigned)(i * 3 - 100);
  for (int j = 0; j < n; j++) x = x * 3 + (unsigned)j;
  return (int)x;
}

TEST(own_memory_read_back_in_a_loop) {
  check_each(own_memory, NULL, 100, 25, 7, own_memory_want);
}

/* Branches and a switch on what every work-item shares, with values of
 * their own on each side. */
static const char *shared_branches =
    "__kernel void k(__global int *a, int mode) {\n"
    "  int i = get_global_id(0), s = a[i];\n"
    "  for (int j = 0; j < 12; j++) {\n"
    "    switch (j % 3) {\n"
    "    case 0: s += i; break;\n"
    "    case 1: s ^= i * j; break;\n"
    "    default: s -= j;\n"
    "    }\n"
    "    if (mode > 0) s = s * 2 + 1; else s = s / 2;\n"
    "  }\n"
    "  a[i] = s;\n"
    "}\n";

static int shared_branches_want(int i, int mode) {
  int s = i * 3 - 100;
  for (int j = 0; j < 12; j++) {
    switch (j % 3) {
    case 0: s += i; break;
    case 1: s ^= i * j; break;
    default: s -= j;
    }
    s = mode > 0 ? (int)((unsigned)s * 2 + 1) : s / 2;
  }
  return s;
}

TEST(shared_branches_and_switch) {
  check_each(shared_branches, NULL, 90, 30, 1, shared_branches_want);
  check_each(shared_branches, NULL, 90, 9, -1, shared_branches_want);
}

/* Choices that differ between work-items but are cheap on both sides
 * (`?:`, `&&`) are selects, not branches: still jammed. */
static const char *varying_choices =
    "__kernel void k(__global int *a, int n) {\n"
    "  int i = get_global_id(0), s = a[i];\n"
    "  for (int j = 0; j < n; j++) {\n"
    "    s += (i & 1) ? j : -j;\n"
    "    s = (s > 100 && i > 3) ? s - 100 : s;\n"
    "  }\n"
    "  a[i] = s;\n"
    "}\n";

static int varying_choices_want(int i, int n) {
  int s = i * 3 - 100;
  for (int j = 0; j < n; j++) {
    s += (i & 1) ? j : -j;
    s = (s > 100 && i > 3) ? s - 100 : s;
  }
  return s;
}

TEST(varying_choices_as_selects) {
  check_each(varying_choices, NULL, 120, 40, 30, varying_choices_want);
  check_each(varying_choices, "-cl-weft-no-jam", 120, 40, 30,
             varying_choices_want);
}

/* Work-items' own vectors, taken apart into lanes where narrower than a
 * register (float2, float4, int4, double2, swizzles and shuffles) or
 * kept (float16): every lane as without jamming, bit for bit. */
static const char *vectors =
    "__kernel void k(__global float *out, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float g = (float)i;\n"
    "  float2 p = (float2)(g, a);\n"
    "  float4 v = (float4)(g, g * 2.0f, a, 3.0f), w = (float4)g;\n"
    "  int4 n = (int4)((int)i, 1, 2, 3);\n"
    "  double2 d = (double2)(g, 0.5);\n"
    "  float16 h = (float16)(g * 0.001f) + (float16)(0, 1, 2, 3, 4, 5, 6, 7,\n"
    "      8, 9, 10, 11, 12, 13, 14, 15) * 0.01f;\n"
    "  for (int j = 0; j < 12; j++) {\n"
    "    v = v * 0.5f + (float4)(j, g, 1.0f, 2.0f).zyxw;\n"
    "    w = mad(w, v, w.yxwz) * 0.25f;\n"
    "    p = fmax(p.yx * 0.75f, p - (float2)(1.0f, j));\n"
    "    n = (n * 3 + n.wzyx) ^ (n >> 1);\n"
    "    d = d * d.yx + (double2)(j, 1.0);\n"
    "    h = mad(h, h.s89abcdef01234567, (float16)0.001f) * 0.5f;\n"
    "  }\n"
    "  __global float *o = out + i * 8;\n"
    "  o[0] = v.x + 2.0f * v.y + 3.0f * v.z + 4.0f * v.w;\n"
    "  o[1] = w.x - w.w + w.y * w.z;\n"
    "  o[2] = p.x * 3.0f + p.y;\n"
    "  o[3] = (float)(n.x + n.y + n.z + n.w);\n"
    "  o[4] = (float)(d.x - d.y);\n"
    "  o[5] = h.s0 + h.s5 + h.sa + h.sf;\n"
    "  o[6] = dot(v, w);\n"
    "  o[7] = length(p);\n"
    "}\n";

/* The outputs of vectors, built with options, over 96 items. */
static void run_vectors(const char *options, float *out) {
  float a = 1.5f;
  memset(out, 0, 96 * 8 * sizeof *out);
  run_k(vectors, options, 96, 48, out, 96 * 8 * sizeof *out, &a);
}

TEST(vectors_lane_by_lane_as_without) {
  static float jammed[96 * 8], plain[96 * 8];
  run_vectors(NULL, jammed);
  run_vectors("-cl-weft-no-jam", plain);
  for (size_t i = 0; i < 96 * 8; i++)
    CHECK(!memcmp(&jammed[i], &plain[i], sizeof *jammed));
}

/* With barriers: each region between them is jammed on its own where its
 * work-items share their branches (the second region's loop runs to the
 * local id in the second kernel: that region alone stays one by one);
 * values kept across the barrier and __local memory as without. */
static const char *regions =
    "__kernel void k(__global int *a, int n) {\n"
    "  __local int tile[64];\n"
    "  int l = get_local_id(0), g = get_global_id(0), size = get_local_size(0);\n"
    "  int s = 0;\n"
    "  for (int j = 0; j < n; j++) s += a[g] * j + l;\n"
    "  tile[l] = s;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int t = 0;\n"
    "  for (int j = 0; j < LAST; j++) t += tile[(l + j) % size] ^ j;\n"
    "  a[g] = t + s;\n"
    "}\n";

/* What regions gives over n items in groups of size, each in[] first
 * holding i * 3 - 100 (last: n for every work-item, or its local id). */
static void regions_want(int *out, int count, int size, int n, int by_id) {
  for (int base = 0; base < count; base += size) {
    int tile[64], s[64];
    for (int l = 0; l < size; l++) {
      s[l] = 0;
      for (int j = 0; j < n; j++) s[l] += ((base + l) * 3 - 100) * j + l;
      tile[l] = s[l];
    }
    for (int l = 0; l < size; l++) {
      int t = 0, last = by_id ? l : n;
      for (int j = 0; j < last; j++) t += tile[(l + j) % size] ^ j;
      out[base + l] = t + s[l];
    }
  }
}

static void check_regions(int by_id, size_t size) {
  enum { COUNT = 192 };
  int n = 9, want[COUNT], got[COUNT];
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx, regions, by_id ? "-DLAST=l" : "-DLAST=n");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  for (int i = 0; i < COUNT; i++) got[i] = i * 3 - 100;
  weft_buffer *b = support_buffer(ctx, sizeof got, got);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &n, sizeof n), k);
  size_t global = COUNT;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &size), k);
  CHECK_OK(weft_buffer_read(b, 0, sizeof got, got), b);
  regions_want(want, COUNT, (int)size, n, by_id);
  for (int i = 0; i < COUNT; i++) CHECK_EQ(got[i], want[i]);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(regions_jammed_each_on_its_own) {
  static const size_t sizes[] = {64, 48, 24, 12, 3, 1};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    check_regions(0, sizes[s]);
    check_regions(1, sizes[s]);
  }
}

/* Loops that work-items leave at different turns (jam_loops.c): a
 * Collatz count (the test in the header), a do-while (the test at the
 * end), a search that reads memory in the loop; each work-item's values
 * are those of the turn it left. */
static const char *collatz =
    "__kernel void k(__global int *a, int limit) {\n"
    "  uint n = get_global_id(0) + 1, steps = 0;\n"
    "  while (n != 1 && steps < (uint)limit) {\n"
    "    n = (n & 1) ? 3 * n + 1 : n / 2;\n"
    "    steps++;\n"
    "  }\n"
    "  a[get_global_id(0)] = (int)(steps * 100000 + n % 100000);\n"
    "}\n";

static int collatz_want(int i, int limit) {
  unsigned n = (unsigned)i + 1, steps = 0;
  while (n != 1 && steps < (unsigned)limit) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    steps++;
  }
  return (int)(steps * 100000 + n % 100000);
}

static const char *do_while =
    "__kernel void k(__global int *a, int target) {\n"
    "  int x = get_global_id(0) % 97, k = 0;\n"
    "  do {\n"
    "    x = (x * x) % 1000 + 1;\n"
    "    k++;\n"
    "  } while (x != target && k < 60);\n"
    "  a[get_global_id(0)] = k * 10000 + x;\n"
    "}\n";

static int do_while_want(int i, int target) {
  int x = i % 97, k = 0;
  do {
    x = (x * x) % 1000 + 1;
    k++;
  } while (x != target && k < 60);
  return k * 10000 + x;
}

/* Finds the first element from the work-item's own on (round the
 * buffer, at most 20 on) that is divisible by 7: the read comes before
 * the loop's tests (reads the buffer the kernel writes only after). */
static const char *search =
    "__kernel void k(__global int *a, int n) {\n"
    "  int i = get_global_id(0), at = i;\n"
    "  while (a[at % n] % 7 != 0 && at < i + 20) at++;\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  a[i] = at;\n"
    "}\n";

static int search_want(int i, int n) {
  int at = i;
  while (((at % n) * 3 - 100) % 7 != 0 && at < i + 20) at++;
  return at;
}

/* Reads after the loop's first test, masked for the work-items that
 * have left (jam_loops.c): a strided sum (CLBlast's reductions' loop,
 * here with a stride of each work-item's own) and a search bounded
 * first. A work-item with a long stride leaves the sum's loop at its
 * first turn far past the buffer's end (2 + 3000 of 1024 ints, in the
 * guard page after the buffer's slack); one that read again there would
 * fault. */
static const char *strided_sum =
    "__kernel void k(__global int *a, int n) {\n"
    "  int i = get_global_id(0), at = i % 16, s = 0;\n"
    "  while (at < n) { s += a[at]; at += 1000 + (i % 16) * 1000; }\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  a[i] = s;\n"
    "}\n";

static int strided_sum_want(int i, int n) {
  int s = 0;
  for (int at = i % 16; at < n; at += 1000 + (i % 16) * 1000) s += at * 3 - 100;
  return s;
}

static const char *bounded_search =
    "__kernel void k(__global int *a, int n) {\n"
    "  int i = get_global_id(0), at = i;\n"
    "  while (at < n && a[at] % 7 != 0) at++;\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  a[i] = at;\n"
    "}\n";

static int bounded_search_want(int i, int n) {
  int at = i;
  while (at < n && (at * 3 - 100) % 7 != 0) at++;
  return at;
}

/* A counter the work-items share in a loop they leave at different
 * turns (jam_loops.c): each reads a table's first entries, up to its own
 * count, once for all, as the second step of a scan over sub-groups
 * does; and three loops whose counter must stay each work-item's: it is
 * used after the loop, a value made from it is, and one where it places
 * a read before the loop's test, with strides that would take a
 * work-item that has left 12 KB past the 4 KB buffer (here what the
 * loop adds leaves it through a select, which keeps the counter each
 * work-item's already: Clang's and simplifycfg's loops of that shape
 * come so). */
static const char *shared_counter =
    "__kernel void k(__global int *a, int v) {\n"
    "  __local int t[16];\n"
    "  int i = get_global_id(0), lid = get_local_id(0), s = 0;\n"
    "  if (lid < 16) t[lid] = lid * v;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int k = 0; k < lid % 16; k++) s += t[k];\n"
    "  a[i] += s;\n"
    "}\n";

static int shared_counter_want(int i, int v) {
  int s = 0;
  for (int k = 0; k < i % 64 % 16; k++) s += k * v;
  return i * 3 - 100 + s;
}

static const char *counter_after =
    "__kernel void k(__global int *a, int v) {\n"
    "  int i = get_global_id(0), lim = i % 13, k = 0, s = 0;\n"
    "  for (; k < lim; k++) s += k * v;\n"
    "  a[i] = k * 1000 + s;\n"
    "}\n";

static int counter_after_want(int i, int v) {
  int lim = i % 13;
  return lim * 1000 + v * lim * (lim - 1) / 2;
}

static const char *made_from_counter =
    "__kernel void k(__global int *a, int v) {\n"
    "  int i = get_global_id(0), lim = i % 11, k = 0, u;\n"
    "  for (;;) { u = k * 3 + v; if (k >= lim) break; k++; }\n"
    "  a[i] = u;\n"
    "}\n";

static int made_from_counter_want(int i, int v) { return i % 11 * 3 + v; }

static const char *counter_reads_first =
    "__kernel void k(__global int *a, int n) {\n"
    "  int i = get_global_id(0), at = i % 16, s = 0;\n"
    "  int stride = 1000 + (i % 16) * 133;\n"
    "  for (int t = 0;; t++) {\n"
    "    int v = a[at + t * stride];\n"
    "    if (at + (t + 1) * stride > n) break;\n"
    "    s += v;\n"
    "  }\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE);\n"
    "  a[i] = s;\n"
    "}\n";

static int counter_reads_first_want(int i, int n) {
  int at = i % 16, s = 0, stride = 1000 + (i % 16) * 133;
  for (int t = 0; at + (t + 1) * stride <= n; t++) s += (at + t * stride) * 3 - 100;
  return s;
}

TEST(shared_counters_in_loops_left_at_different_turns) {
  check_each(shared_counter, NULL, 256, 64, 5, shared_counter_want);
  check_each(counter_after, NULL, 200, 100, 7, counter_after_want);
  check_each(made_from_counter, NULL, 200, 50, -4, made_from_counter_want);
  check_each(counter_reads_first, NULL, 1024, 1024, 1024,
             counter_reads_first_want);
}

/* The table's entries, the same for every work-item still in the loop,
 * are read once, not one masked load a work-item (jam_predicate.c's
 * masked loads of one element: 25 before; the loop vectorizer's of 16
 * in the one-at-a-time loop are not the jam's). */
TEST(shared_counter_reads_once) {
  CPU_ONLY("reads the CPU's dumped IR");
  char dir[] = "/tmp/weft-jam-XXXXXX";
  support_dump_ir_begin(dir);
  check_each(shared_counter, NULL, 256, 64, 5, shared_counter_want);
  CHECK_EQ(support_dumped_ir_lines(dir, 0, "masked.load.v1i32"), 0);
  support_dump_ir_end(dir);
}

static const char *early_break =
    "__kernel void k(__global int *a, int v) {\n"
    "  int i = get_global_id(0) % 50, j = 0;\n"
    "  for (; j < i; j++) if (j * v > 40) break;\n"
    "  a[get_global_id(0)] = j;\n"
    "}\n";

static int early_break_want(int i, int v) {
  int j = 0;
  for (; j < i % 50; j++)
    if (j * v > 40) break;
  return j;
}

TEST(loops_left_at_different_turns) {
  check_each(early_break, NULL, 150, 75, 3, early_break_want);
  check_each(collatz, NULL, 200, 100, 120, collatz_want);
  check_each(collatz, NULL, 200, 25, 40, collatz_want);
  check_each(do_while, NULL, 194, 97, 537, do_while_want);
  /* One group: the barrier orders every read before every write. */
  check_each(search, NULL, 90, 90, 90, search_want);
  check_each(search, NULL, 64, 64, 64, search_want);
  check_each(strided_sum, NULL, 96, 96, 96, strided_sum_want);
  check_each(strided_sum, NULL, 1024, 1024, 1024, strided_sum_want);
  check_each(bounded_search, NULL, 90, 90, 90, bounded_search_want);
  check_each(bounded_search, NULL, 1024, 1024, 1024, bounded_search_want);
}

/* A float2 mandelbrot escape (lanes taken apart, kept where each left),
 * bit for bit as without jamming. */
static const char *escape =
    "__kernel void k(__global float *out, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float2 c = (float2)(-2.0f + 3.0f * (i % 32) / 32.0f,\n"
    "                      -1.5f + 3.0f * (i / 32) / 24.0f) * a;\n"
    "  float2 z = (float2)(0.0f);\n"
    "  int k = 0;\n"
    "  while (k < 200 && dot(z, z) <= 4.0f) {\n"
    "    z = (float2)(z.x * z.x - z.y * z.y, 2.0f * z.x * z.y) + c;\n"
    "    k++;\n"
    "  }\n"
    "  out[i] = (float)k + z.x;\n"
    "}\n";

static void run_escape(const char *options, float *out) {
  float a = 0.9f;
  memset(out, 0, 768 * sizeof *out);
  run_k(escape, options, 768, 96, out, 768 * sizeof *out, &a);
}

TEST(escape_loop_as_without) {
  static float jammed[768], plain[768];
  run_escape(NULL, jammed);
  run_escape("-cl-weft-no-jam", plain);
  for (size_t i = 0; i < 768; i++)
    CHECK(!memcmp(&jammed[i], &plain[i], sizeof *jammed));
}

/* Ids shifted and masked by powers of 2 (tiles, sub-groups): a shift is
 * shared by the work-items of an aligned block, each work-item's low bits
 * are its own (jam_blocks.c), so the tile's loop runs unmasked; rows and
 * offsets that are not aligned go through the guard's one-at-a-time
 * path. Bit for bit as without jamming, in 1D and 2D, with and without
 * offsets. */
static const char *blocks =
    "__kernel void k(__global uint *out, uint p) {\n"
    "  uint l = get_local_id(0), g = get_global_id(0);\n"
    "  uint tile = l / 16u, lane = l % 16u, gt = g >> 3, gl = g & 7u;\n"
    "  uint s = p;\n"
    "  for (uint k = 0; k < tile; k++) s = s * 3u + k + gt;\n"
    "  for (uint k = 0; k < get_sub_group_id(); k++) s ^= k << 3;\n"
    "  s = lane == 15u ? s ^ 0x1000u : s;\n"
    "  s += gl == 3u ? 7u : 0u;\n"
    "  s += get_sub_group_local_id() * 5u + (l & ~15u);\n"
    "  size_t row = get_global_id(1) - get_global_offset(1);\n"
    "  out[row * get_global_size(0) + g - get_global_offset(0)] = s;\n"
    "}\n";

/* blocks over global[0] x global[1] items in groups of local (NULL: the
 * runtime's), from offset, into out. */
static void run_blocks(const char *options, const size_t global[2],
                       const size_t local[2], const size_t offset[2],
                       unsigned *out) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, blocks, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  size_t n = global[0] * global[1];
  weft_buffer *b = support_buffer(ctx, n * sizeof *out, NULL);
  unsigned v = 11;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &v, sizeof v), k);
  CHECK_OK(weft_kernel_launch(k, 2, offset, global, local), k);
  CHECK_OK(weft_buffer_read(b, 0, n * sizeof *out, out), b);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST(shifted_and_masked_ids_as_without) {
  static const struct {
    size_t global[2], local[2], offset[2];
  } shapes[] = {
      {{256, 2}, {64, 1}, {0, 0}},  {{256, 1}, {256, 1}, {0, 0}},
      {{240, 1}, {40, 1}, {0, 0}},  {{96, 3}, {24, 1}, {0, 0}},
      {{128, 1}, {64, 1}, {3, 0}},  {{120, 4}, {20, 2}, {0, 0}},
      {{64, 4}, {32, 2}, {16, 1}},  {{200, 1}, {100, 1}, {8, 0}},
  };
  static unsigned jammed[1024], plain[1024];
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    const size_t *g = shapes[i].global;
    CHECK(g[0] * g[1] <= 1024);
    run_blocks(NULL, g, shapes[i].local, shapes[i].offset, jammed);
    run_blocks("-cl-weft-no-jam", g, shapes[i].local, shapes[i].offset, plain);
    for (size_t e = 0; e < g[0] * g[1]; e++)
      if (jammed[e] != plain[e])
        FAIL("shape %zu, item %zu: %u jammed, %u not", i, e, jammed[e],
             plain[e]);
  }
}

/* The tile's shift shared: the jammed function tests the first
 * work-item's ids (its one-at-a-time path, "ids.one"), and its loops run
 * unmasked (no mask of the work-items still in a loop: no `<8 x i1>` or
 * `<16 x i1>` phi). */
TEST(shifted_ids_shared_by_the_jam) {
  CPU_ONLY("reads the CPU's dumped IR");
  if (harness_check_mode()) SKIP("check mode checks each access: no jams");
  char dir[] = "/tmp/weft-jam-XXXXXX";
  support_dump_ir_begin(dir);
  static const size_t global[2] = {256, 1}, local[2] = {64, 1}, none[2];
  static unsigned out[256];
  run_blocks(NULL, global, local, none, out);
  CHECK(support_dumped_ir_lines(dir, 0, "ids.one") > 0);
  CHECK_EQ(support_dumped_ir_lines(dir, 0, "phi <16 x i1>"), 0);
  CHECK_EQ(support_dumped_ir_lines(dir, 0, "phi <8 x i1>"), 0);
  support_dump_ir_end(dir);
}

/* Random kernels, each run jammed and with -cl-weft-no-jam: the same
 * words. Unsigned arithmetic (wrapping, so no undefined overflow the
 * optimizer could use differently), in a loop of a shared number of
 * turns: operations between the work-items' own values, selects that
 * differ between work-items, a division, and a loop the work-items
 * leave at different turns. */
static void random_statement(char *out, size_t size, unsigned *seed) {
  static const char *const ops[] = {"+", "-", "*", "^", "&", "|"};
  unsigned x = support_random_next(seed) % 4, y = support_random_next(seed) % 4,
           z = support_random_next(seed) % 4, c = support_random_next(seed) % 97 + 1;
  const char *op = ops[support_random_next(seed) % 6];
  switch (support_random_next(seed) % 6) {
  case 0:
    snprintf(out, size, "v%u = v%u %s v%u;\n", x, y, op, z);
    break;
  case 1:
    snprintf(out, size, "v%u = (v%u > v%u) ? v%u + j : v%u - %uu;\n", x, y,
             z, y, z, c);
    break;
  case 2:
    snprintf(out, size, "v%u += (uint)j * %uu;\n", x, c);
    break;
  case 3:
    snprintf(out, size, "v%u = v%u / (v%u | 1u);\n", x, y, z);
    break;
  case 4:
    snprintf(out, size, "v%u = min(v%u, v%u) ^ (v%u >> (j & 7));\n", x, y, z, x);
    break;
  default:
    snprintf(out, size,
             "{ uint t = 0; while (t < 30u && (v%u + t) %% %uu != 0u) t++;"
             " v%u += t; }\n",
             y, c % 7 + 2, x);
    break;
  }
}

static char *random_kernel(unsigned seed) {
  return support_random_kernel(
      "__kernel void k(__global uint *out, uint p) {\n"
      "  uint g = get_global_id(0), l = get_local_id(0);\n"
      "  uint v0 = g * %uu + p, v1 = l ^ %uu, v2 = p - g, v3 = g * g;\n"
      "  for (int j = 0; j < (int)(p %% 5u) + 3; j++) {\n",
      random_statement, 6,
      "  }\n"
      "  out[g] = v0 ^ (v1 * 3u) ^ (v2 << 1) ^ (v3 * 7u);\n"
      "}\n",
      seed);
}

/* The words of source run over 104 items in groups of local. */
static void run_random(const char *source, const char *options, size_t local,
                       unsigned *out) {
  unsigned value = 12;
  memset(out, 0, 104 * sizeof *out);
  run_k(source, options, 104, local, out, 104 * sizeof *out, &value);
}

TEST(random_kernels_as_without) {
  for (unsigned seed = 1; seed <= 24; seed++) {
    char *source = random_kernel(seed);
    unsigned jammed[104], plain[104];
    size_t local = seed % 2 ? 104 : 13;
    run_random(source, NULL, local, jammed);
    run_random(source, "-cl-weft-no-jam", local, plain);
    for (size_t i = 0; i < 104; i++) {
      if (jammed[i] == plain[i]) continue;
      fprintf(stderr, "seed %u, item %zu: %u jammed, %u not\n%s", seed, i,
              jammed[i], plain[i], source);
      CHECK(jammed[i] == plain[i]);
    }
    free(source);
  }
}

/* ints of global ids, as most kernels index: the loop sums each
 * work-item's id as an int n times. */
static const char *int_ids =
    "__kernel void k(__global long *a, int n) {\n"
    "  int id = get_global_id(0);\n"
    "  long s = 0;\n"
    "  for (int j = 0; j < n; j++) s += (long)id + j;\n"
    "  a[get_global_id(0) - get_global_offset(0)] = s;\n"
    "}\n";

/* int_ids over 300 work-items from offset on, in groups of 150: jammed
 * 128 (the loop only computes), then 8, then one at a time. */
static void check_int_ids(size_t offset) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, int_ids, "k");
  enum { N = 300 };
  long long out[N];
  weft_buffer *b = support_buffer(ctx, sizeof out, NULL);
  int n = 7;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &n, sizeof n), k);
  size_t global = N, local = 150;
  CHECK_OK(weft_kernel_launch(k, 1, &offset, &global, &local), k);
  CHECK_OK(weft_buffer_read(b, 0, sizeof out, out), b);
  for (size_t i = 0; i < N; i++) {
    /* The id as an int: past 2^31 - 1, negative (two's complement). */
    long long id = (int)(unsigned)(offset + i);
    CHECK_EQ(out[i], n * id + n * (n - 1) / 2);
  }
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* Jammed, work-item k's int is the first's plus k where none of the
 * call's wraps (jam_ids.c); a call whose ints go past 2^31 - 1 (to
 * negative ones) runs its work-items one at a time: offsets that put
 * 2^31 inside a call of 128 and of 8, and 2^32 (from -1 to 0, no wrap). */
TEST(int_ids_in_every_launch) {
  check_int_ids(0);
  check_int_ids(((size_t)1 << 31) - 300);
  check_int_ids(((size_t)1 << 31) - 36);
  check_int_ids(((size_t)1 << 31) - 140);
  check_int_ids(((size_t)1 << 32) - 36);
}

/* The product in ints: the jam makes work-item k's int index the
 * first's plus k, behind a test that none wraps (whose one-at-a-time
 * path is in the dumped IR), and the product is right, in groups whose
 * x size leaves some work-items to run one at a time, and from an
 * offset. */
TEST(int_indices_taken_side_by_side) {
  CPU_ONLY("reads the CPU's dumped IR");
  char dir[] = "/tmp/weft-jam-XXXXXX";
  support_dump_ir_begin(dir);
  static const size_t none[2] = {0, 0}, offset[2] = {5, 1};
  size_t local[2] = {39, 3};
  check_product_of(int_product, NULL, none, local);
  local[0] = 17;
  local[1] = 5;
  check_product_of(int_product, NULL, offset, local);
  CHECK(support_dumped_ir_lines(dir, 0, "ids.one") > 0);
  support_dump_ir_end(dir);
}

/* A loop of one turn around the id, as a tuning parameter of 1 makes
 * it (CLBlast's XgemvFast): unrolled first (one_turn_loops.c), so that
 * its counter does not hide the id from the jam. */
static const char *one_turn =
    "__kernel void k(__global int *a, int v) {\n"
    "  int s = 0;\n"
    "  for (int j = 0; j < 8; j++)\n"
    "    for (int w = 0; w < 1; w++) {\n"
    "      int i = 1 * get_global_id(0) + w;\n"
    "      s += a[i] * (j + v);\n"
    "    }\n"
    "  a[get_global_id(0)] = s;\n"
    "}\n";

static int one_turn_want(int i, int v) { return (i * 3 - 100) * (28 + 8 * v); }

TEST(one_turn_loops_leave_the_ids) {
  CPU_ONLY("reads the CPU's dumped IR");
  char dir[] = "/tmp/weft-jam-XXXXXX";
  support_dump_ir_begin(dir);
  check_each(one_turn, NULL, 203, 29, 5, one_turn_want);
  check_each(one_turn, NULL, 64, 16, -3, one_turn_want);
  CHECK(support_dumped_ir_lines(dir, 0, "ids.one") > 0);
  support_dump_ir_end(dir);
}

/* In 3D, x runs fastest: the jammed work-items are neighbours in x. */
TEST(three_dimensions) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(
      ctx,
      "__kernel void k(__global float *a) {\n"
      "  size_t x = get_global_id(0), y = get_global_id(1),\n"
      "         z = get_global_id(2);\n"
      "  float s = 0.0f;\n"
      "  for (int j = 0; j < 10; j++) s += (float)(x + 2 * y + 3 * z + j);\n"
      "  a[(z * 3 + y) * 20 + x] = s;\n"
      "}\n",
      "k");
  weft_buffer *b = support_buffer(ctx, 20 * 3 * 4 * sizeof(float), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global[3] = {20, 3, 4}, local[3] = {10, 3, 2};
  CHECK_OK(weft_kernel_launch(k, 3, NULL, global, local), k);
  float out[20 * 3 * 4];
  CHECK_OK(weft_buffer_read(b, 0, sizeof out, out), b);
  for (int z = 0; z < 4; z++)
    for (int y = 0; y < 3; y++)
      for (int x = 0; x < 20; x++) {
        float want = 0.0f;
        for (int j = 0; j < 10; j++) want += (float)(x + 2 * y + 3 * z + j);
        CHECK(fabsf(out[(z * 3 + y) * 20 + x] - want) <= 1e-3f * want);
      }
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

/* The launch line of one run of source over 64 items (a buffer of 512
 * ints, 8 an item, and an int). */
static int launch_says_jammed(const char *source, const char *options) {
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *b = support_ints(ctx, 512, 1);
  int value = 3;
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 1, &value, sizeof value), k);
  size_t global = 64, local = 16;
  support_stderr_begin();
  int rc = weft_kernel_launch(k, 1, NULL, &global, &local);
  const char *log = support_stderr_end();
  CHECK_OK(rc, k);
  CHECK_STR_CONTAINS(log, "weft[launch]: kernel 'k'");
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
  return strstr(log, " side by side (jammed)") != NULL;
}

TEST(launch_log_says_which_kernels_are_jammed) {
  CPU_ONLY("jamming is the CPU's");
  setenv("WEFT_LOG", "launch", 1);
  CHECK(launch_says_jammed(own_memory, NULL));
  CHECK(launch_says_jammed(shared_branches, NULL));
  CHECK(launch_says_jammed(varying_choices, NULL));
  CHECK(launch_says_jammed(vectors, NULL));
  CHECK(launch_says_jammed(regions, "-DLAST=n"));
  CHECK(launch_says_jammed(regions, "-DLAST=l"));
  CHECK(!launch_says_jammed(own_memory, "-cl-weft-no-jam"));
  CHECK(!launch_says_jammed(own_memory, "-cl-opt-disable"));
  /* No loop: the loop vectorizer has the work-item loop. */
  CHECK(!launch_says_jammed(
      "__kernel void k(__global int *a, int v) { a[get_global_id(0)] += v; }\n",
      NULL));
  /* Each work-item's own number of turns, but stores in the loop. */
  CHECK(!launch_says_jammed(
      "__kernel void k(__global int *a, int v) {\n"
      "  int i = get_global_id(0);\n"
      "  for (int j = 0; j < i; j++) a[i] += v;\n"
      "}\n",
      NULL));
  /* Two ways out, to different code. */
  CHECK(!launch_says_jammed(
      "__kernel void k(__global int *a, int v) {\n"
      "  int i = get_global_id(0), j = 0;\n"
      "  for (; j < i; j++)\n"
      "    if (j * v > 40) { a[i] = -j; return; }\n"
      "  a[i] = j;\n"
      "}\n",
      NULL));
  /* A read after the loop's first test: masked, so that a work-item that
   * has left at at == n reads nothing (it would read a[n]). */
  CHECK(launch_says_jammed(
      "__kernel void k(__global int *a, int n) {\n"
      "  int i = get_global_id(0), at = i;\n"
      "  while (at < n && a[at] % 7 != 0) at++;\n"
      "  a[i] = at;\n"
      "}\n",
      NULL));
  CHECK(launch_says_jammed(search, NULL));
  /* A loop under `#pragma unroll` stays a loop until O3: jammed. */
  CHECK(launch_says_jammed(
      "__kernel void k(__global int *a, int v) {\n"
      "  int i = get_global_id(0), s = 0;\n"
      "  #pragma unroll\n"
      "  for (int j = 1; j < 8; j++) s += a[j * 64 + i] * v;\n"
      "  a[i] = s;\n"
      "}\n",
      NULL));
  /* A break that simplifies into the loop's one test. */
  CHECK(launch_says_jammed(early_break, NULL));
  CHECK(launch_says_jammed(collatz, NULL));
  CHECK(launch_says_jammed(do_while, NULL));
  CHECK(launch_says_jammed(escape, NULL));
  /* Atomics keep the one-by-one order. */
  CHECK(!launch_says_jammed(
      "__kernel void k(__global int *a, int v) {\n"
      "  for (int j = 0; j < v; j++) atomic_add(&a[j], 1);\n"
      "}\n",
      NULL));
}

/* A crash in a jammed kernel is found by running the group's work-items
 * one at a time, which the plain loop after the jammed one does. */
TEST(fault_in_jammed_kernel_names_work_item) {
  CPU_ONLY("a GPU fault names the kernel, not the work-item");
  setenv("WEFT_LOG", "launch", 1);
  support_check_fault(
      "__kernel void k(__global int *a) {\n"
      "  int s = 0;\n"
      "  for (int j = 0; j < 4; j++) s += j * (int)get_global_id(0);\n"
      "  /* NULL for work-item 37, without a branch: */\n"
      "  __global int *p = (__global int *)((size_t)a * (get_global_id(0) != 37));\n"
      "  p[get_global_id(0)] = s;\n"
      "}\n",
      16, "(jammed)",
      "work-item (37) [local (5) in work-group (2)] at program.cl:6:");
}

TEST_MAIN()
