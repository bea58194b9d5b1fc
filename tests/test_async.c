/* test_async.c: async_work_group_copy, async_work_group_strided_copy,
 * wait_group_events and prefetch, for every type and vector width, group
 * sizes 1 to 256, contiguous and strided, checked byte by byte. */
#include <stdint.h>

#include "header_calls.h"
#include "support.h"

static const struct {
  const char *name;
  size_t size;
} scalars[] = {{"char", 1}, {"uchar", 1}, {"short", 2}, {"ushort", 2},
               {"int", 4},  {"uint", 4},  {"long", 8},  {"ulong", 8},
               {"float", 4}, {"double", 8}};
static const int widths[] = {1, 2, 3, 4, 8, 16};
#define NUM_SCALARS 10
#define NUM_WIDTHS 6

/* "int" for width 1, "int4" for 4. */
static void type_name(char *out, size_t size, int s, int w) {
  if (widths[w] == 1) snprintf(out, size, "%s", scalars[s].name);
  else snprintf(out, size, "%s%d", scalars[s].name, widths[w]);
}

/* Each group copies its block of the source global -> local (contiguous
 * into one tile, gathered with a stride into another), then local ->
 * global (contiguous, and scattered with the stride, the two sharing an
 * event). After each wait, every work-item checks its share of the data;
 * it compares the bytes that hold data (a 3-vector's padding may be copied
 * or not). Each copy writes memory no work-item has touched before it, so
 * no barrier is needed ahead of one. */
static const char *copy_source =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "int same_lg(const __local uchar *a, const __global uchar *b, int n) {\n"
    "  for (int k = 0; k < n; k++) if (a[k] != b[k]) return 0;\n"
    "  return 1;\n"
    "}\n"
    "int same_gg(const __global uchar *a, const __global uchar *b, int n) {\n"
    "  for (int k = 0; k < n; k++) if (a[k] != b[k]) return 0;\n"
    "  return 1;\n"
    "}\n"
    "#define LG(a, b) same_lg((const __local uchar *)(a), \\\n"
    "                        (const __global uchar *)(b), DATA)\n"
    "#define GG(a, b) same_gg((const __global uchar *)(a), \\\n"
    "                        (const __global uchar *)(b), DATA)\n"
    "#define KERNEL(T, DATA_BYTES) \\\n"
    "__kernel void copy_##T(__global const T *src, __global T *dst,       \\\n"
    "    __global T *dst2, __local T *tile, __local T *tile2, uint n,      \\\n"
    "    uint stride, __global int *bad) {                                 \\\n"
    "  enum { DATA = DATA_BYTES };                                         \\\n"
    "  size_t g = get_group_id(1) * get_num_groups(0) + get_group_id(0);   \\\n"
    "  size_t l = get_local_id(1) * get_local_size(0) + get_local_id(0);   \\\n"
    "  size_t ls = get_local_size(0) * get_local_size(1);                  \\\n"
    "  const __global T *s = src + g * n * stride;                         \\\n"
    "  event_t e = async_work_group_copy(tile, s, n, 0);                   \\\n"
    "  e = async_work_group_strided_copy(tile2, s, n, stride, e);          \\\n"
    "  wait_group_events(1, &e);                                           \\\n"
    "  for (size_t i = l; i < n; i += ls) {                                \\\n"
    "    if (!LG(tile + i, s + i)) atomic_inc(&bad[0]);                    \\\n"
    "    if (!LG(tile2 + i, s + i * stride)) atomic_inc(&bad[1]);          \\\n"
    "  }                                                                   \\\n"
    "  e = async_work_group_copy(dst + g * n, tile2, n, 0);                \\\n"
    "  event_t e2 = async_work_group_strided_copy(dst2 + g * n * stride,   \\\n"
    "                                             tile2, n, stride, e);    \\\n"
    "  wait_group_events(1, &e2);                                          \\\n"
    "  for (size_t i = l; i < n; i += ls)                                  \\\n"
    "    if (!GG(dst + g * n + i, s + i * stride) ||                       \\\n"
    "        !GG(dst2 + g * n * stride + i * stride, s + i * stride))      \\\n"
    "      atomic_inc(&bad[2]);                                            \\\n"
    "}\n";

/* Which kernels a program holds: those of the scalars in mask (bit s for
 * scalars[s]), in every width or only in widths 1, 3 and 16. */
static int wanted(unsigned mask, int every_width, int s, int w) {
  return (mask >> s & 1) && (every_width || w == 0 || w == 2 || w == 5);
}

/* The program: copy_char, copy_char2, ... copy_double16. */
static char *kernels(unsigned mask, int every_width) {
  size_t size = strlen(copy_source) + 64 * NUM_SCALARS * NUM_WIDTHS;
  char *source = malloc(size);
  size_t at = (size_t)sprintf(source, "%s", copy_source);
  for (int s = 0; s < NUM_SCALARS; s++)
    for (int w = 0; w < NUM_WIDTHS; w++) {
      if (!wanted(mask, every_width, s, w)) continue;
      char type[32];
      type_name(type, sizeof type, s, w);
      at += (size_t)snprintf(source + at, size - at, "KERNEL(%s, %zu)\n", type,
                             scalars[s].size * (size_t)widths[w]);
    }
  return source;
}

typedef struct shape {
  size_t local[2], groups[2];
  unsigned n, stride;
} shape;

static void run_copy(weft_context *ctx, weft_program *p, int s, int w,
                     const shape *sh) {
  char type[32], name[64];
  type_name(type, sizeof type, s, w);
  snprintf(name, sizeof name, "copy_%s", type);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, name, &k), p);
  size_t data = scalars[s].size * (size_t)widths[w];
  size_t elem = scalars[s].size * (size_t)(widths[w] == 3 ? 4 : widths[w]);
  size_t groups = sh->groups[0] * sh->groups[1];
  size_t n = sh->n, stride = sh->stride;
  size_t src_bytes = groups * n * stride * elem + elem;
  unsigned char *src = malloc(src_bytes);
  for (size_t i = 0; i < src_bytes; i++)
    src[i] = (unsigned char)(i * 131 + 7 + i / 251);
  unsigned char *dst = malloc(groups * n * elem + 1);
  unsigned char *dst2 = malloc(groups * n * stride * elem + 1);
  memset(dst, 0xee, groups * n * elem + 1);
  memset(dst2, 0xee, groups * n * stride * elem + 1);
  weft_buffer *bs = support_buffer(ctx, src_bytes, src);
  weft_buffer *bd = support_buffer(ctx, groups * n * elem + 1, dst);
  weft_buffer *bd2 = support_buffer(ctx, groups * n * stride * elem + 1, dst2);
  weft_buffer *bad = support_buffer(ctx, 12, (int[]){0, 0, 0});
  unsigned args[2] = {(unsigned)n, (unsigned)stride};
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bs), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, bd), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 2, bd2), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 3, (n ? n : 1) * elem), k);
  CHECK_OK(weft_kernel_set_arg_local(k, 4, (n ? n : 1) * elem), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 5, &args[0], 4), k);
  CHECK_OK(weft_kernel_set_arg_value(k, 6, &args[1], 4), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 7, bad), k);
  size_t global[2] = {sh->local[0] * sh->groups[0],
                      sh->local[1] * sh->groups[1]};
  CHECK_OK(weft_kernel_launch(k, 2, NULL, global, sh->local), k);
  int b[3];
  CHECK_OK(weft_buffer_read(bad, 0, sizeof b, b), bad);
  CHECK_OK(weft_buffer_read(bd, 0, groups * n * elem + 1, dst), bd);
  CHECK_OK(weft_buffer_read(bd2, 0, groups * n * stride * elem + 1, dst2), bd2);
  if (b[0] || b[1] || b[2])
    FAIL("%s, local %zux%zu, n %zu, stride %zu: %d, %d, %d work-items saw "
         "wrong data", name, sh->local[0], sh->local[1], n, stride, b[0], b[1],
         b[2]);
  for (size_t g = 0; g < groups; g++)
    for (size_t j = 0; j < n * stride; j++) {
      size_t at = (g * n * stride + j) * elem;
      if (j % stride == 0 && memcmp(dst2 + at, src + at, data))
        FAIL("%s, stride %zu: element %zu of group %zu not scattered", name,
             stride, j, g);
      for (size_t q = 0; j % stride && q < elem; q++)
        if (dst2[at + q] != 0xee)
          FAIL("%s, stride %zu: element %zu of group %zu written between "
               "the strided ones", name, stride, j, g);
      if (j % stride == 0 &&
          memcmp(dst + (g * n + j / stride) * elem, src + at, data))
        FAIL("%s: element %zu of group %zu not copied", name, j / stride, g);
    }
  /* Nothing written past the end. */
  CHECK_EQ(dst[groups * n * elem], 0xee);
  CHECK_EQ(dst2[groups * n * stride * elem], 0xee);
  free(src), free(dst), free(dst2);
  weft_buffer_release(bs), weft_buffer_release(bd);
  weft_buffer_release(bd2), weft_buffer_release(bad);
  weft_kernel_release(k);
}

static void run_shapes(const char *options, unsigned mask, int every_width,
                       const shape *shapes, size_t count) {
  weft_context *ctx = support_context();
  char *source = kernels(mask, every_width);
  weft_program *p = support_build(ctx, source, options);
  for (int s = 0; s < NUM_SCALARS; s++)
    for (int w = 0; w < NUM_WIDTHS; w++)
      for (size_t i = 0; i < count && wanted(mask, every_width, s, w); i++)
        run_copy(ctx, p, s, w, &shapes[i]);
  weft_program_release(p);
  free(source);
  weft_context_release(ctx);
}

/* Group sizes from 1 to 256, blocks shorter and longer than the group;
 * the scalar types in three programs (builds are the slow part). */
static const shape group_shapes[] = {
    {{1, 1}, {3, 1}, 5, 1},     {{2, 1}, {2, 1}, 7, 3},
    {{7, 1}, {3, 1}, 50, 2},    {{64, 1}, {4, 1}, 64, 1},
    {{100, 1}, {2, 1}, 333, 3}, {{256, 1}, {2, 1}, 1000, 2},
    {{256, 1}, {3, 1}, 17, 5}};
#define NUM_GROUP_SHAPES (sizeof group_shapes / sizeof *group_shapes)

TEST(every_width_8_and_16_bit) {
  run_shapes("", 0x00f, 1, group_shapes, NUM_GROUP_SHAPES);
}
TEST(every_width_32_bit) {
  run_shapes("", 0x130, 1, group_shapes, NUM_GROUP_SHAPES);
}
TEST(every_width_64_bit) {
  /* Its long16 kernel takes 256000 bytes of local memory. */
  uint64_t local = support_device_info().local_mem_size;
  if (local < 256000)
    SKIP("the device has %llu bytes of local memory, not 256000",
         (unsigned long long)local);
  run_shapes("", 0x2c0, 1, group_shapes, NUM_GROUP_SHAPES);
}

/* Two-dimensional groups (the first work-item is the one with local id
 * (0, 0)), an empty copy, and OpenCL C 3.0, for 1-, 4- and 8-byte scalars
 * in widths 1, 3 and 16. */
TEST(two_dimensional_groups_cl30) {
  static const shape shapes[] = {
      {{16, 4}, {2, 2}, 200, 2},
      {{3, 5}, {1, 3}, 1, 4},
      {{8, 8}, {2, 1}, 0, 1}};
  run_shapes("-cl-std=CL3.0", 0x211, 0, shapes, sizeof shapes / sizeof *shapes);
}

/* Double buffering, as tiled kernels do: the copy of the next block is
 * started before the wait for the current one, with a prefetch of the
 * block after; barriers in a loop, under regions and fibers. */
TEST(double_buffered_loop) {
  static const char *source =
      "__kernel void blocks(__global const int *src, __global long *sums,\n"
      "                     __local int *a, __local int *b, uint block,\n"
      "                     uint count) {\n"
      "  size_t l = get_local_id(0), n = get_local_size(0);\n"
      "  const __global int *s = src + get_group_id(0) * block * count;\n"
      "  __local int *cur = a, *next = b;\n"
      "  event_t e = async_work_group_copy(cur, s, block, 0), later = 0;\n"
      "  long sum = 0;\n"
      "  for (uint k = 0; k < count; k++) {\n"
      "    if (k + 1 < count)\n"
      "      later = async_work_group_copy(next, s + (k + 1) * block, block, 0);\n"
      "    if (k + 2 < count) prefetch(s + (k + 2) * block, block);\n"
      "    wait_group_events(1, &e);\n"
      "    for (size_t i = l; i < block; i += n) sum += cur[i] * (long)(k + 1);\n"
      "    barrier(CLK_LOCAL_MEM_FENCE);\n"
      "    __local int *t = cur; cur = next; next = t;\n"
      "    e = later;\n"
      "  }\n"
      "  sums[get_global_id(0)] = sum;\n"
      "}\n";
  static const size_t locals[] = {1, 32, 256};
  for (size_t li = 0; li < 3; li++) {
    weft_context *ctx = support_context();
    weft_kernel *k = support_kernel(ctx, source, "blocks");
    size_t local = locals[li], groups = 3, global = local * groups;
    unsigned block = 300, count = 7;
    size_t total = groups * block * count;
    int *src = malloc(total * 4);
    for (size_t i = 0; i < total; i++) src[i] = (int)(i * 7 % 1000) - 500;
    weft_buffer *bs = support_buffer(ctx, total * 4, src);
    weft_buffer *sums = support_buffer(ctx, global * 8, NULL);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 0, bs), k);
    CHECK_OK(weft_kernel_set_arg_buffer(k, 1, sums), k);
    CHECK_OK(weft_kernel_set_arg_local(k, 2, block * 4), k);
    CHECK_OK(weft_kernel_set_arg_local(k, 3, block * 4), k);
    CHECK_OK(weft_kernel_set_arg_value(k, 4, &block, 4), k);
    CHECK_OK(weft_kernel_set_arg_value(k, 5, &count, 4), k);
    CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
    long long *r = malloc(global * 8);
    CHECK_OK(weft_buffer_read(sums, 0, global * 8, r), sums);
    for (size_t i = 0; i < global; i++) {
      size_t g = i / local, l = i % local;
      long long want = 0;
      for (size_t c = 0; c < count; c++)
        for (size_t j = l; j < block; j += local)
          want += (long long)src[(g * count + c) * block + j] *
                  (long long)(c + 1);
      CHECK_EQ(r[i], want);
    }
    free(r), free(src);
    weft_buffer_release(bs), weft_buffer_release(sums);
    weft_kernel_release(k);
    weft_context_release(ctx);
  }
}

/* ------------------------------------------------ every declaration */

static const char *const async_prefixes[] = {
    "async_work_group", "wait_group_events", "prefetch", NULL};

static void build_every_declaration(const char *std) {
  size_t count;
  char *source = header_calls_source(WEFT_OPENCL_C_H, async_prefixes, &count);
  if (!source) FAIL("cannot read %s", WEFT_OPENCL_C_H);
  CHECK(count >= 300);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, std);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "every", &k), p);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
  free(source);
}

TEST(every_declaration_cl12) { build_every_declaration("-cl-std=CL1.2 -w"); }
TEST(every_declaration_cl30) { build_every_declaration("-cl-std=CL3.0 -w"); }

/* With opencl-c.h itself: half copies, and the private event list of
 * OpenCL C 1.2, which Clang's tables declare generic. */
TEST(every_declaration_of_the_header_links) {
  static const char *const stds[] = {"-cl-std=CL1.2", "-cl-std=CL3.0"};
  size_t count;
  char *source = header_calls_source(WEFT_OPENCL_C_H, async_prefixes, &count);
  if (!source) FAIL("cannot read %s", WEFT_OPENCL_C_H);
  for (int i = 0; i < 2; i++) {
    char *undefined = header_calls_undefined(source, stds[i]);
    if (!undefined) FAIL("could not compile with %s", WEFT_CLANG);
    if (*undefined)
      FAIL("%s: not in the builtin library:\n%s", stds[i], undefined);
    free(undefined);
  }
  free(source);
}

TEST_MAIN()
