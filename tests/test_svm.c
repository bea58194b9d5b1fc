/* test_svm.c: shared virtual memory in the native API: allocations are
 * found from any address inside them, kernels take them as pointer
 * arguments, and what is not an allocation is refused. */
#include <stdint.h>

#include "support.h"

TEST(alloc_find_free) {
  weft_context *ctx = support_context();
  void *a, *b;
  CHECK_OK(weft_svm_alloc(ctx, 1000, 0, &a), ctx);
  CHECK_OK(weft_svm_alloc(ctx, 64, 4096, &b), ctx);
  CHECK_EQ((uintptr_t)a % 128, 0);
  CHECK_EQ((uintptr_t)b % 4096, 0);
  void *base;
  size_t size;
  CHECK_OK(weft_svm_find(ctx, (char *)a + 999, &base, &size), ctx);
  CHECK(base == a);
  CHECK_EQ(size, 1000);
  CHECK_EQ(weft_svm_find(ctx, (char *)a + 1000, NULL, NULL), WEFT_EINVAL);
  CHECK_OK(weft_svm_find(ctx, b, &base, NULL), ctx);
  CHECK(base == b);
  CHECK_FAILS(weft_svm_free(ctx, (char *)a + 8), WEFT_EINVAL, ctx,
              "not the start of an SVM allocation");
  CHECK_OK(weft_svm_free(ctx, a), ctx);
  CHECK_EQ(weft_svm_find(ctx, a, NULL, NULL), WEFT_EINVAL);
  CHECK_OK(weft_svm_free(ctx, NULL), ctx);
  CHECK_FAILS(weft_svm_alloc(ctx, 0, 0, &a), WEFT_EINVAL, ctx, "SVM size 0");
  CHECK_FAILS(weft_svm_alloc(ctx, 64, 48, &a), WEFT_EINVAL, ctx,
              "not a power of two");
  /* b is left to the context's release. */
  weft_context_release(ctx);
}

TEST(kernel_argument) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(
      ctx, "__kernel void inc(__global int *a) { a[get_global_id(0)] += 1; }",
      "inc");
  int *a;
  CHECK_OK(weft_svm_alloc(ctx, 64 * sizeof(int), 0, (void **)&a), ctx);
  for (int i = 0; i < 64; i++) a[i] = i;
  CHECK_OK(weft_kernel_set_arg_svm(k, 0, a + 16), k);
  size_t global = 16;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  for (int i = 0; i < 64; i++) CHECK_EQ(a[i], i >= 16 && i < 32 ? i + 1 : i);
  int on_stack[4];
  CHECK_FAILS(weft_kernel_set_arg_svm(k, 0, on_stack), WEFT_EINVAL, k,
              "not in an SVM allocation");
  CHECK_FAILS(weft_kernel_set_arg_svm(k, 1, a), WEFT_EARGINDEX, k,
              "no argument 1");
  CHECK_OK(weft_kernel_set_arg_svm(k, 0, NULL), k);
  weft_kernel_release(k);
  CHECK_OK(weft_svm_free(ctx, a), ctx);
  weft_context_release(ctx);
}

TEST_MAIN()
