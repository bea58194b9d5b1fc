/* test_atomic_c11.c: the atomics of OpenCL C 2.0 and 3.0 (atomic_int to
 * atomic_double, every function and its _explicit forms) under contention
 * from many work-items and work-groups on all threads, built as CL2.0 and
 * as CL3.0; and a kernel calling every atomic declaration of opencl-c.h. */
#include <stdint.h>

#include "header_calls.h"
#include "support.h"

/* The JIT defines the atomic scope features (Clang 19 knows them only as
 * macros), so 3.0 needs no more than the standard. */
#define CL30 "-cl-std=CL3.0"

static const char *const standards[] = {"-cl-std=CL2.0", CL30};
#define NUM_STANDARDS 2

/* One C11 atomic type as the kernel names it and as the host holds it. */
typedef struct atomic_type {
  const char *cl;     /* "int" */
  size_t size;        /* bytes */
  int is_signed, is_float;
} atomic_type;

static const atomic_type int_types[] = {
    {"int", 4, 1, 0}, {"uint", 4, 0, 0}, {"long", 8, 1, 0}, {"ulong", 8, 0, 0}};
static const atomic_type all_types[] = {
    {"int", 4, 1, 0},  {"uint", 4, 0, 0},  {"long", 8, 1, 0},
    {"ulong", 8, 0, 0}, {"float", 4, 1, 1}, {"double", 8, 1, 1}};

static weft_kernel *build(weft_context *ctx, const char *source,
                          const char *name, const char *std,
                          const atomic_type *t) {
  char options[512];
  snprintf(options, sizeof options, "%s -DT=%s -DA=atomic_%s -DBITS=%zu", std,
           t ? t->cl : "int", t ? t->cl : "int", t ? t->size * 8 : 32);
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, name, &k), p);
  weft_program_release(p);
  return k;
}

static void launch(weft_kernel *k, size_t global, size_t local) {
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
}

/* Element i of a host array of t's values, as a 64-bit integer (floats
 * hold small whole numbers here). */
static int64_t element(const atomic_type *t, const void *a, size_t i) {
  const char *p = (const char *)a + i * t->size;
  if (t->is_float)
    return t->size == 4 ? (int64_t) * (const float *)p
                        : (int64_t) * (const double *)p;
  if (t->size == 4 && t->is_signed) return *(const int32_t *)p;
  if (t->size == 4) return *(const uint32_t *)p;
  return *(const int64_t *)p;
}

/* Checks that values[0..n) hold each of first..first+n-1 exactly once. */
static void check_permutation(const atomic_type *t, const void *values,
                              size_t n, int64_t first, const char *what) {
  unsigned char *seen = calloc(n, 1);
  for (size_t i = 0; i < n; i++) {
    int64_t v = element(t, values, i) - first;
    if (v < 0 || v >= (int64_t)n || seen[v])
      FAIL("%s on %s: value %lld at %zu is %s", what, t->cl,
           (long long)(v + first), i, v < 0 || v >= (int64_t)n ? "out of range"
                                                              : "repeated");
    seen[v] = 1;
  }
  free(seen);
}

/* ------------------------------------------------------------ fetch_op */

static const char *fetch_source =
    "__kernel void fetch(__global A *p, __global T *ret) {\n"
    "  uint i = (uint)get_global_id(0), n = (uint)get_global_size(0);\n"
    "  T v = (T)(n / 2) - (T)i;\n"
    "  T w = (T)(i * 2654435761u);\n"
    "  ret[i] = atomic_fetch_add(&p[0], (T)1);\n"
    "  atomic_fetch_add_explicit(&p[1], (T)i, memory_order_relaxed);\n"
    "  atomic_fetch_sub_explicit(&p[2], (T)i, memory_order_acq_rel,\n"
    "                            memory_scope_device);\n"
    "  atomic_fetch_or_explicit(&p[3], (T)1 << (i % BITS), memory_order_release);\n"
    "  atomic_fetch_and_explicit(&p[4], ~((T)1 << (i % BITS)),\n"
    "                            memory_order_acquire, memory_scope_all_svm_devices);\n"
    "  atomic_fetch_xor(&p[5], w);\n"
    "  atomic_fetch_min_explicit(&p[6], v, memory_order_seq_cst);\n"
    "  atomic_fetch_max_explicit(&p[7], v, memory_order_relaxed,\n"
    "                            memory_scope_device);\n"
    "  atomic_fetch_min(&p[8], w);\n"
    "  atomic_fetch_max(&p[9], w);\n"
    "  atomic_fetch_sub(&p[10], (T)1);\n"
    "  atomic_fetch_or(&p[11], (T)0);\n"
    "  atomic_fetch_xor_explicit(&p[12], (T)i, memory_order_acq_rel,\n"
    "                            memory_scope_all_svm_devices);\n"
    "}\n";

/* The expected final values for one type, computed in that type. */
#define EXPECT_FETCH(T, U, MIN, MAX, n, e)                                   \
  do {                                                                       \
    T s[13] = {0, 0, 0, 0, (T)~(U)0, 0, MAX, MIN, MAX, MIN, 0, 0, 0};        \
    for (uint32_t i = 0; i < (n); i++) {                                     \
      T v = (T)((U)((n) / 2) - (U)i), w = (T)(uint32_t)(i * 2654435761u);    \
      s[0] = (T)((U)s[0] + 1);                                               \
      s[1] = (T)((U)s[1] + i);                                               \
      s[2] = (T)((U)s[2] - i);                                               \
      s[3] |= (T)((U)1 << (i % (8 * sizeof(T))));                            \
      s[4] &= (T) ~((U)1 << (i % (8 * sizeof(T))));                          \
      s[5] ^= w;                                                             \
      s[6] = v < s[6] ? v : s[6];                                            \
      s[7] = v > s[7] ? v : s[7];                                            \
      s[8] = w < s[8] ? w : s[8];                                            \
      s[9] = w > s[9] ? w : s[9];                                            \
      s[10] = (T)((U)s[10] - 1);                                             \
      s[12] ^= (T)i;                                                         \
    }                                                                        \
    memcpy((e), s, sizeof s);                                                \
  } while (0)

static void run_fetch(weft_context *ctx, const char *std, const atomic_type *t,
                      size_t n, size_t local) {
  weft_kernel *k = build(ctx, fetch_source, "fetch", std, t);
  int64_t init[13], expect[13];
  uint32_t count = (uint32_t)n, none = 0; /* none: the initial values */
  if (t->size == 4 && t->is_signed) {
    EXPECT_FETCH(int32_t, uint32_t, INT32_MIN, INT32_MAX, count, expect);
    EXPECT_FETCH(int32_t, uint32_t, INT32_MIN, INT32_MAX, none, init);
  } else if (t->size == 4) {
    EXPECT_FETCH(uint32_t, uint32_t, 0, UINT32_MAX, count, expect);
    EXPECT_FETCH(uint32_t, uint32_t, 0, UINT32_MAX, none, init);
  } else if (t->is_signed) {
    EXPECT_FETCH(int64_t, uint64_t, INT64_MIN, INT64_MAX, count, expect);
    EXPECT_FETCH(int64_t, uint64_t, INT64_MIN, INT64_MAX, none, init);
  } else {
    EXPECT_FETCH(uint64_t, uint64_t, 0, UINT64_MAX, count, expect);
    EXPECT_FETCH(uint64_t, uint64_t, 0, UINT64_MAX, none, init);
  }
  weft_buffer *p = support_buffer(ctx, 13 * t->size, init);
  weft_buffer *ret = support_buffer(ctx, n * t->size, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, p), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, ret), k);
  launch(k, n, local);
  char got[13 * 8];
  CHECK_OK(weft_buffer_read(p, 0, 13 * t->size, got), p);
  if (memcmp(got, expect, 13 * t->size))
    for (size_t i = 0; i < 13; i++)
      if (element(t, got, i) != element(t, expect, i))
        FAIL("%s %s: p[%zu] is %lld, expected %lld", std, t->cl, i,
             (long long)element(t, got, i), (long long)element(t, expect, i));
  void *r = malloc(n * t->size);
  CHECK_OK(weft_buffer_read(ret, 0, n * t->size, r), ret);
  check_permutation(t, r, n, 0, "atomic_fetch_add's results");
  free(r);
  weft_buffer_release(p);
  weft_buffer_release(ret);
  weft_kernel_release(k);
}

TEST(fetch_every_integer_type) {
  weft_context *ctx = support_context();
  for (int s = 0; s < NUM_STANDARDS; s++)
    for (size_t t = 0; t < 4; t++)
      run_fetch(ctx, standards[s], &int_types[t], 1 << 16, 64);
  weft_context_release(ctx);
}

TEST(fetch_group_sizes) {
  static const size_t locals[] = {1, 3, 100, 256};
  weft_context *ctx = support_context();
  for (size_t i = 0; i < 4; i++)
    run_fetch(ctx, CL30, &int_types[i], locals[i] * 40, locals[i]);
  weft_context_release(ctx);
}

/* ------------------------------------------------------------ exchange */

static const char *exchange_source =
    "__kernel void exchange(__global A *p, __global T *ret) {\n"
    "  uint i = (uint)get_global_id(0);\n"
    "  T v = (T)(i + 1);\n"
    "  switch (i % 3) {\n"
    "  case 0: ret[i] = atomic_exchange(p, v); break;\n"
    "  case 1: ret[i] = atomic_exchange_explicit(p, v, memory_order_acq_rel);\n"
    "          break;\n"
    "  default: ret[i] = atomic_exchange_explicit(p, v, memory_order_relaxed,\n"
    "                                             memory_scope_device);\n"
    "  }\n"
    "}\n";

/* The values exchanged out, with the one left, are each value put in. */
TEST(exchange_forms_a_permutation) {
  weft_context *ctx = support_context();
  size_t n = 1 << 15;
  for (int s = 0; s < NUM_STANDARDS; s++)
    for (size_t ti = 0; ti < 6; ti++) {
      const atomic_type *t = &all_types[ti];
      weft_kernel *k = build(ctx, exchange_source, "exchange", standards[s], t);
      weft_buffer *p = support_buffer(ctx, 8, (uint64_t[]){0});
      weft_buffer *ret = support_buffer(ctx, (n + 1) * t->size, NULL);
      CHECK_OK(weft_kernel_set_arg_buffer(k, 0, p), k);
      CHECK_OK(weft_kernel_set_arg_buffer(k, 1, ret), k);
      launch(k, n, 128);
      char *r = malloc((n + 1) * t->size);
      CHECK_OK(weft_buffer_read(ret, 0, n * t->size, r), ret);
      CHECK_OK(weft_buffer_read(p, 0, t->size, r + n * t->size), p);
      check_permutation(t, r, n + 1, 0, "atomic_exchange");
      free(r);
      weft_buffer_release(p);
      weft_buffer_release(ret);
      weft_kernel_release(k);
    }
  weft_context_release(ctx);
}

/* ---------------------------------------------------- compare_exchange */

/* A counter incremented by compare-exchange loops of every form, with the
 * expected value in private, local and global memory: each work-item
 * records the value it replaced, so the records are 0..n-1 exactly. */
static const char *cas_source =
    "#define INC(e)                                                     \\\n"
    "  *(e) = atomic_load_explicit(p, memory_order_relaxed);            \\\n"
    "  switch (i % 6) {                                                 \\\n"
    "  case 0: while (!atomic_compare_exchange_strong(p, e, *(e) + 1)); \\\n"
    "    break;                                                         \\\n"
    "  case 1: while (!atomic_compare_exchange_strong_explicit(p, e,    \\\n"
    "      *(e) + 1, memory_order_acq_rel, memory_order_relaxed));      \\\n"
    "    break;                                                         \\\n"
    "  case 2: while (!atomic_compare_exchange_strong_explicit(p, e,    \\\n"
    "      *(e) + 1, memory_order_seq_cst, memory_order_seq_cst,        \\\n"
    "      memory_scope_device));                                       \\\n"
    "    break;                                                         \\\n"
    "  case 3: while (!atomic_compare_exchange_weak(p, e, *(e) + 1));   \\\n"
    "    break;                                                         \\\n"
    "  case 4: while (!atomic_compare_exchange_weak_explicit(p, e,      \\\n"
    "      *(e) + 1, memory_order_release, memory_order_relaxed));      \\\n"
    "    break;                                                         \\\n"
    "  default: while (!atomic_compare_exchange_weak_explicit(p, e,     \\\n"
    "      *(e) + 1, memory_order_acquire, memory_order_acquire,        \\\n"
    "      memory_scope_all_svm_devices));                                  \\\n"
    "  }\n"
    "__kernel void cas(__global A *p, __global T *ret) {\n"
    "  __local T in_local[256];\n"
    "  T in_private;\n"
    "  uint i = (uint)get_global_id(0), l = (uint)get_local_id(0);\n"
    "  switch (i / 6 % 3) {\n"
    "  case 0: INC(&in_private); ret[i] = in_private; break;\n"
    "  case 1: INC(&in_local[l]); ret[i] = in_local[l]; break;\n"
    "  default: INC(&ret[i]);\n"
    "  }\n"
    "}\n";

TEST(compare_exchange_counter) {
  weft_context *ctx = support_context();
  size_t n = 1 << 15;
  for (int s = 0; s < NUM_STANDARDS; s++)
    for (size_t ti = 0; ti < 6; ti++) {
      const atomic_type *t = &all_types[ti];
      weft_kernel *k = build(ctx, cas_source, "cas", standards[s], t);
      weft_buffer *p = support_buffer(ctx, 8, (uint64_t[]){0});
      weft_buffer *ret = support_buffer(ctx, (n + 1) * t->size, NULL);
      CHECK_OK(weft_kernel_set_arg_buffer(k, 0, p), k);
      CHECK_OK(weft_kernel_set_arg_buffer(k, 1, ret), k);
      launch(k, n, 256);
      char *r = malloc(n * t->size);
      char final[8];
      CHECK_OK(weft_buffer_read(ret, 0, n * t->size, r), ret);
      CHECK_OK(weft_buffer_read(p, 0, t->size, final), p);
      check_permutation(t, r, n, 0, "atomic_compare_exchange");
      CHECK_EQ(element(t, final, 0), n);
      free(r);
      weft_buffer_release(p);
      weft_buffer_release(ret);
      weft_kernel_release(k);
    }
  weft_context_release(ctx);
}

/* --------------------------------------------------------- atomic_flag */

/* atomic_flag as a spin lock around non-atomic updates, taken and released
 * within each work-item, from all groups at once; a second lock built on
 * compare-exchange guards a double. */
static const char *lock_source =
    "__kernel void lock(__global atomic_flag *flag, __global int *count,\n"
    "                   __global long *sum, __global atomic_int *cas_lock,\n"
    "                   __global double *dsum) {\n"
    "  uint i = (uint)get_global_id(0);\n"
    "  switch (i % 3) {\n"
    "  case 0: while (atomic_flag_test_and_set(flag)); break;\n"
    "  case 1: while (atomic_flag_test_and_set_explicit(flag,\n"
    "                                                   memory_order_acquire));\n"
    "    break;\n"
    "  default: while (atomic_flag_test_and_set_explicit(flag,\n"
    "                     memory_order_acq_rel, memory_scope_device));\n"
    "  }\n"
    "  *count += 1;\n"
    "  *sum += i;\n"
    "  switch (i % 3) {\n"
    "  case 0: atomic_flag_clear(flag); break;\n"
    "  case 1: atomic_flag_clear_explicit(flag, memory_order_release); break;\n"
    "  default: atomic_flag_clear_explicit(flag, memory_order_seq_cst,\n"
    "                                      memory_scope_all_svm_devices);\n"
    "  }\n"
    "  int unlocked = 0;\n"
    "  while (!atomic_compare_exchange_weak_explicit(cas_lock, &unlocked, 1,\n"
    "             memory_order_acquire, memory_order_relaxed))\n"
    "    unlocked = 0;\n"
    "  *dsum += (double)i;\n"
    "  atomic_store_explicit(cas_lock, 0, memory_order_release);\n"
    "}\n";

TEST(flag_spin_lock_across_groups) {
  weft_context *ctx = support_context();
  static const size_t locals[] = {1, 16, 256};
  for (int s = 0; s < NUM_STANDARDS; s++)
    for (size_t li = 0; li < 3; li++) {
      size_t n = 1 << 14;
      weft_kernel *k = build(ctx, lock_source, "lock", standards[s], NULL);
      weft_buffer *flag = support_buffer(ctx, 4, (int[]){0});
      weft_buffer *count = support_buffer(ctx, 4, (int[]){0});
      weft_buffer *sum = support_buffer(ctx, 8, (int64_t[]){0});
      weft_buffer *cas = support_buffer(ctx, 4, (int[]){0});
      weft_buffer *dsum = support_buffer(ctx, 8, (double[]){0});
      weft_buffer *args[] = {flag, count, sum, cas, dsum};
      for (int a = 0; a < 5; a++)
        CHECK_OK(weft_kernel_set_arg_buffer(k, a, args[a]), k);
      launch(k, n, locals[li]);
      int c, f;
      int64_t total;
      double d;
      CHECK_OK(weft_buffer_read(count, 0, 4, &c), count);
      CHECK_OK(weft_buffer_read(sum, 0, 8, &total), sum);
      CHECK_OK(weft_buffer_read(flag, 0, 4, &f), flag);
      CHECK_OK(weft_buffer_read(dsum, 0, 8, &d), dsum);
      CHECK_EQ(c, n);
      CHECK_EQ(total, (int64_t)n * (int64_t)(n - 1) / 2);
      CHECK_EQ(f, 0);
      CHECK(d == (double)n * (double)(n - 1) / 2);
      for (int a = 0; a < 5; a++) weft_buffer_release(args[a]);
      weft_kernel_release(k);
    }
  weft_context_release(ctx);
}

/* ---------------------------------------- init, load, store and __local */

/* Global: atomic_init, store and load of each item's own element. Local:
 * an exchange chain and a compare-exchange counter within each group,
 * separated from the initialisation and the reads by barriers. */
static const char *access_source =
    "__kernel void access(__global A *p, __global A *q, __global T *loaded,\n"
    "                     __global T *swapped, __global T *counted,\n"
    "                     __global T *totals) {\n"
    "  __local A chain, counter, maximum, sum;\n"
    "  __local atomic_flag flag;\n"
    "  __local int inside;\n"
    "  uint i = (uint)get_global_id(0), l = (uint)get_local_id(0);\n"
    "  uint n = (uint)get_local_size(0), g = (uint)get_group_id(0);\n"
    "  atomic_init(&p[i], (T)i);\n"
    "  atomic_store_explicit(&q[i], atomic_load(&p[i]) + (T)1,\n"
    "                        memory_order_release);\n"
    "  loaded[i] = atomic_load_explicit(&q[i], memory_order_acquire,\n"
    "                                   memory_scope_device);\n"
    "  if (l == 0) {\n"
    "    atomic_init(&chain, (T)n);\n"
    "    atomic_init(&counter, (T)0);\n"
    "    atomic_init(&maximum, (T)0);\n"
    "    atomic_init(&sum, (T)0);\n"
    "    atomic_flag_clear_explicit(&flag, memory_order_relaxed,\n"
    "                               memory_scope_work_group);\n"
    "    inside = 0;\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  swapped[i] = atomic_exchange_explicit(&chain, (T)l,\n"
    "      memory_order_acq_rel, memory_scope_work_group);\n"
    "  T e = atomic_load_explicit(&counter, memory_order_relaxed,\n"
    "                             memory_scope_work_group);\n"
    "  while (!atomic_compare_exchange_strong_explicit(&counter, &e, e + 1,\n"
    "             memory_order_relaxed, memory_order_relaxed,\n"
    "             memory_scope_work_group));\n"
    "  counted[i] = e;\n"
    "  while (atomic_flag_test_and_set_explicit(&flag, memory_order_acquire,\n"
    "                                           memory_scope_work_group));\n"
    "  inside++;\n"
    "  atomic_flag_clear_explicit(&flag, memory_order_release,\n"
    "                             memory_scope_work_group);\n"
    "#ifdef INTEGER\n"
    "  atomic_fetch_add_explicit(&sum, (T)l, memory_order_relaxed,\n"
    "                            memory_scope_work_group);\n"
    "  atomic_fetch_max_explicit(&maximum, (T)l, memory_order_relaxed,\n"
    "                            memory_scope_work_group);\n"
    "#endif\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l == 0) {\n"
    "    totals[5 * g] = atomic_load(&chain);\n"
    "    totals[5 * g + 1] = atomic_load_explicit(&counter,\n"
    "                                             memory_order_seq_cst);\n"
    "    totals[5 * g + 2] = (T)inside;\n"
    "    totals[5 * g + 3] = atomic_load(&maximum);\n"
    "    totals[5 * g + 4] = atomic_load(&sum);\n"
    "  }\n"
    "}\n";

static void run_access(weft_context *ctx, const char *std,
                       const atomic_type *t, size_t n, size_t local) {
  char options[512];
  snprintf(options, sizeof options, "%s%s", std,
           t->is_float ? "" : " -DINTEGER");
  weft_kernel *k = build(ctx, access_source, "access", options, t);
  size_t groups = n / local, sz = t->size;
  weft_buffer *b[6];
  size_t sizes[6] = {n * sz, n * sz, n * sz, n * sz, n * sz, 5 * groups * sz};
  for (int a = 0; a < 6; a++) {
    b[a] = support_buffer(ctx, sizes[a], NULL);
    CHECK_OK(weft_kernel_set_arg_buffer(k, a, b[a]), k);
  }
  launch(k, n, local);
  char *r[6];
  for (int a = 0; a < 6; a++) {
    r[a] = malloc(sizes[a]);
    CHECK_OK(weft_buffer_read(b[a], 0, sizes[a], r[a]), b[a]);
  }
  for (size_t i = 0; i < n; i++) {
    CHECK_EQ(element(t, r[0], i), i);
    CHECK_EQ(element(t, r[1], i), i + 1);
    CHECK_EQ(element(t, r[2], i), i + 1);
  }
  for (size_t g = 0; g < groups; g++) {
    /* The values exchanged out, and the one left: each of 0..local. */
    char *chain = malloc((local + 1) * sz);
    memcpy(chain, r[3] + g * local * sz, local * sz);
    memcpy(chain + local * sz, r[5] + 5 * g * sz, sz);
    check_permutation(t, chain, local + 1, 0, "local exchange");
    free(chain);
    check_permutation(t, r[4] + g * local * sz, local, 0,
                      "local compare_exchange");
    CHECK_EQ(element(t, r[5], 5 * g + 1), local);
    CHECK_EQ(element(t, r[5], 5 * g + 2), local);
    if (t->is_float) continue;
    CHECK_EQ(element(t, r[5], 5 * g + 3), local - 1);
    CHECK_EQ(element(t, r[5], 5 * g + 4), local * (local - 1) / 2);
  }
  for (int a = 0; a < 6; a++) {
    free(r[a]);
    weft_buffer_release(b[a]);
  }
  weft_kernel_release(k);
}

TEST(init_load_store_and_local) {
  weft_context *ctx = support_context();
  for (int s = 0; s < NUM_STANDARDS; s++)
    for (size_t t = 0; t < 6; t++)
      run_access(ctx, standards[s], &all_types[t], 4096, 64);
  weft_context_release(ctx);
}

TEST(local_group_sizes) {
  static const size_t locals[] = {1, 2, 7, 100, 256};
  weft_context *ctx = support_context();
  for (size_t i = 0; i < 5; i++)
    run_access(ctx, CL30, &all_types[i % 6], locals[i] * 9, locals[i]);
  weft_context_release(ctx);
}

/* ------------------------------------------------------ memory orders */

/* Orders and scopes that are not constants: the builtins then choose the
 * instruction at run time. Every valid combination gives exact counts. */
static const char *orders_source =
    "__kernel void orders(__global atomic_int *p, __global atomic_int *out,\n"
    "                     int rmw, int load, int store, int fail, int far) {\n"
    "  memory_scope s = far ? memory_scope_all_svm_devices : memory_scope_device;\n"
    "  uint i = (uint)get_global_id(0);\n"
    "  atomic_fetch_add_explicit(&p[0], 1, (memory_order)rmw, s);\n"
    "  atomic_fetch_sub_explicit(&p[1], 1, (memory_order)rmw);\n"
    "  int e = atomic_load_explicit(&p[2], (memory_order)load, s);\n"
    "  while (!atomic_compare_exchange_weak_explicit(&p[2], &e, e + 1,\n"
    "             (memory_order)rmw, (memory_order)fail, s));\n"
    "  e = atomic_load_explicit(&p[3], (memory_order)load);\n"
    "  while (!atomic_compare_exchange_strong_explicit(&p[3], &e, e + 2,\n"
    "             (memory_order)rmw, (memory_order)fail));\n"
    "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE,\n"
    "                         (memory_order)rmw, s);\n"
    "  atomic_store_explicit(&out[i], (int)i, (memory_order)store, s);\n"
    "  atomic_fetch_max_explicit(&p[4], (int)atomic_exchange_explicit(\n"
    "      &out[i], (int)i + 1, (memory_order)rmw, s), (memory_order)rmw, s);\n"
    "}\n";

TEST(memory_orders_at_run_time) {
  weft_context *ctx = support_context();
  static const int rmw[] = {__ATOMIC_RELAXED, __ATOMIC_ACQUIRE,
                            __ATOMIC_RELEASE, __ATOMIC_ACQ_REL,
                            __ATOMIC_SEQ_CST};
  static const int load[] = {__ATOMIC_RELAXED, __ATOMIC_ACQUIRE,
                             __ATOMIC_SEQ_CST};
  static const int store[] = {__ATOMIC_RELAXED, __ATOMIC_RELEASE,
                              __ATOMIC_SEQ_CST};
  size_t n = 4096;
  for (int s = 0; s < NUM_STANDARDS; s++) {
    weft_kernel *k = build(ctx, orders_source, "orders", standards[s], NULL);
    for (int c = 0; c < 15; c++) {
      int args[5] = {rmw[c % 5], load[c % 3], store[(c / 3) % 3], load[c / 5],
                     c & 1};
      weft_buffer *p = support_buffer(ctx, 5 * 4, (int[]){0, 0, 0, 0, -1});
      weft_buffer *out = support_buffer(ctx, n * 4, NULL);
      CHECK_OK(weft_kernel_set_arg_buffer(k, 0, p), k);
      CHECK_OK(weft_kernel_set_arg_buffer(k, 1, out), k);
      for (int a = 0; a < 5; a++)
        CHECK_OK(weft_kernel_set_arg_value(k, 2 + a, &args[a], 4), k);
      launch(k, n, 64);
      int r[5];
      CHECK_OK(weft_buffer_read(p, 0, sizeof r, r), p);
      CHECK_EQ(r[0], n);
      CHECK_EQ(r[1], -(int)n);
      CHECK_EQ(r[2], n);
      CHECK_EQ(r[3], 2 * n);
      CHECK_EQ(r[4], n - 1);
      int *o = malloc(n * 4);
      CHECK_OK(weft_buffer_read(out, 0, n * 4, o), out);
      for (size_t i = 0; i < n; i++) CHECK_EQ(o[i], i + 1);
      free(o);
      weft_buffer_release(p);
      weft_buffer_release(out);
    }
    weft_kernel_release(k);
  }
  weft_context_release(ctx);
}

/* ------------------------------------------------- pointer-sized types */

/* atomic_(u)intptr_t, atomic_size_t and atomic_ptrdiff_t with the operand
 * types the specification gives them (ptrdiff_t for add and sub). */
static const char *pointer_sized_source =
    "__kernel void sized(__global atomic_uintptr_t *u,\n"
    "                    __global atomic_intptr_t *s,\n"
    "                    __global atomic_size_t *z,\n"
    "                    __global atomic_ptrdiff_t *d) {\n"
    "  uint i = (uint)get_global_id(0);\n"
    "  atomic_fetch_add(&u[0], (ptrdiff_t)-1);\n"
    "  atomic_fetch_sub_explicit(&u[1], (ptrdiff_t)-2, memory_order_relaxed);\n"
    "  atomic_fetch_or(&s[0], (uintptr_t)1 << (i % 64));\n"
    "  atomic_fetch_min(&s[1], -(intptr_t)i);\n"
    "  atomic_fetch_max(&u[2], (uintptr_t)i);\n"
    "  atomic_fetch_add_explicit(&z[0], (size_t)3, memory_order_relaxed,\n"
    "                            memory_scope_device);\n"
    "  atomic_fetch_sub(&d[0], (ptrdiff_t)1);\n"
    "}\n";

TEST(pointer_sized_types) {
  weft_context *ctx = support_context();
  size_t n = 8192;
  for (int s = 0; s < NUM_STANDARDS; s++) {
    weft_kernel *k = build(ctx, pointer_sized_source, "sized", standards[s],
                           NULL);
    uint64_t u0[3] = {n, 0, 0};
    int64_t s0[2] = {0, 0}, d0 = 0;
    uint64_t z0 = 0;
    weft_buffer *u = support_buffer(ctx, sizeof u0, u0);
    weft_buffer *sb = support_buffer(ctx, sizeof s0, s0);
    weft_buffer *z = support_buffer(ctx, 8, &z0);
    weft_buffer *d = support_buffer(ctx, 8, &d0);
    weft_buffer *args[] = {u, sb, z, d};
    for (int a = 0; a < 4; a++)
      CHECK_OK(weft_kernel_set_arg_buffer(k, a, args[a]), k);
    launch(k, n, 32);
    CHECK_OK(weft_buffer_read(u, 0, sizeof u0, u0), u);
    CHECK_OK(weft_buffer_read(sb, 0, sizeof s0, s0), sb);
    CHECK_OK(weft_buffer_read(z, 0, 8, &z0), z);
    CHECK_OK(weft_buffer_read(d, 0, 8, &d0), d);
    CHECK_EQ(u0[0], 0);
    CHECK_EQ(u0[1], 2 * n);
    CHECK_EQ(u0[2], n - 1);
    CHECK_EQ(s0[0], -1);
    CHECK_EQ(s0[1], -(int64_t)(n - 1));
    CHECK_EQ(z0, 3 * n);
    CHECK_EQ(d0, -(int64_t)n);
    for (int a = 0; a < 4; a++) weft_buffer_release(args[a]);
    weft_kernel_release(k);
  }
  weft_context_release(ctx);
}

/* ------------------------------------------------ every declaration */

static const char *const atomic_prefixes[] = {"atom", NULL};

/* Builds (so links against the builtin library) a kernel calling each
 * atomic declaration of opencl-c.h that exists under std. */
static void build_every_declaration(const char *std, size_t at_least) {
  size_t count;
  char *source = header_calls_source(WEFT_OPENCL_C_H, atomic_prefixes, &count);
  if (!source) FAIL("cannot read %s", WEFT_OPENCL_C_H);
  CHECK(count >= at_least);
  weft_context *ctx = support_context();
  char options[512];
  snprintf(options, sizeof options, "%s -w", std);
  weft_program *p = support_build(ctx, source, options);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "every", &k), p);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
  free(source);
}

TEST(every_declaration_cl12) { build_every_declaration("-cl-std=CL1.2", 500); }
TEST(every_declaration_cl20) { build_every_declaration("-cl-std=CL2.0", 500); }
TEST(every_declaration_cl30) { build_every_declaration(CL30, 500); }

/* Weft's front end declares builtins from Clang's tables, which name the
 * generic overloads only; code compiled against opencl-c.h itself (as
 * bitcode from elsewhere) calls the __global and __local ones of 3.0 too.
 * Clang compiles the calls with the header and links the builtin library:
 * no atomic may be left undefined. */
TEST(every_declaration_of_the_header_links) {
  size_t count;
  char *source = header_calls_source(WEFT_OPENCL_C_H, atomic_prefixes, &count);
  if (!source) FAIL("cannot read %s", WEFT_OPENCL_C_H);
  char *undefined = header_calls_undefined(source, "-cl-std=CL3.0");
  if (!undefined) FAIL("could not compile with %s", WEFT_CLANG);
  if (*undefined) FAIL("not in the builtin library:\n%s", undefined);
  free(undefined);
  free(source);
}

TEST_MAIN()
