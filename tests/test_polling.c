/* test_polling.c: every loop whose exit can depend on memory another
 * work-group writes is a polling loop: it yields at each turn, so that
 * groups spinning in it on any number of threads let the group that
 * releases them run, and a group that spins alone for ever is reported as
 * a deadlock, not hung. Each kernel: every group but the last spins in a
 * loop of one shape until the last group sets a[1] (and b[1]). */
#include "support.h"

/* Builds the kernel with the spin loop (a statement using a and b) and
 * runs 8 groups of 1; every spinning group must have finished. */
static void spins_end(const char *helpers, const char *loop) {
  char source[2048];
  snprintf(source, sizeof source,
           "%s\n"
           "__kernel void k(__global atomic_int *a, __global int *b) {\n"
           "  if (get_group_id(0) == get_num_groups(0) - 1) {\n"
           "    b[1] = 1;\n"
           "    atomic_store(&a[1], 1);\n"
           "    return;\n"
           "  }\n"
           "  %s\n"
           "  b[4 + get_group_id(0)] = 1;\n"
           "}\n",
           helpers, loop);
  weft_context *ctx = support_context();
  weft_program *p = support_build(ctx, source, "-cl-std=CL2.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *a = support_buffer(ctx, 4 * sizeof(int), NULL);
  weft_buffer *b = support_buffer(ctx, 16 * sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, a), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, b), k);
  size_t global = 8, local = 1;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int got[16];
  CHECK_OK(weft_buffer_read(b, 0, sizeof got, got), b);
  for (int g = 0; g < 7; g++) CHECK_EQ(got[4 + g], 1);
  weft_buffer_release(a);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* The hardening issue's shape: an atomic load and a plain load. */
TEST(atomic_and_plain_load) {
  spins_end("", "while (atomic_load(&a[1]) == 0 && b[2] == 0) ;");
}

/* A lock-like loop: the atomic exit, and a plain flag that breaks it. */
TEST(atomic_loop_with_plain_break) {
  spins_end("", "while (atomic_load(&a[1]) == 0) { if (b[2]) break; }");
}

/* A plain load decides the exit, and the loop stores atomically. */
TEST(plain_load_in_loop_that_stores_atomically) {
  spins_end("", "while (((volatile __global int *)b)[1] == 0 || b[3] != 0)\n"
                "    atomic_store(&a[3], 1);");
}

TEST(volatile_load) {
  spins_end("", "while (((volatile __global int *)b)[1] == 0) ;");
}

TEST(relaxed_explicit_load) {
  spins_end("", "while (atomic_load_explicit(&a[1], memory_order_relaxed,\n"
                "                              memory_scope_device) == 0) ;");
}

/* OpenCL 1.x's atomic functions, reading by adding nothing. */
TEST(legacy_atomic) {
  spins_end("", "while (atomic_add((volatile __global int *)&b[1], 0) == 0) ;");
}

/* The load is in a helper, which the kernel calls in its loop. */
TEST(load_through_a_helper) {
  spins_end("int peek(__global atomic_int *p) { return atomic_load(p); }",
            "while (peek(&a[1]) == 0) ;");
}

/* A group spinning alone in such a loop, with no one to release it, is
 * reported once WEFT_SPIN_TIMEOUT has passed with nothing happening. */
TEST(lone_spinner_is_a_deadlock) {
  CPU_ONLY("the CPU device's deadlock watch");
  setenv("WEFT_SPIN_TIMEOUT", "0.5", 1);
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "__kernel void k(__global atomic_int *a, __global int *b) {\n"
      "  while (atomic_load(&a[1]) == 0 && b[2] == 0) ;\n"
      "}\n",
      "-cl-std=CL2.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  weft_buffer *a = support_buffer(ctx, 4 * sizeof(int), NULL);
  weft_buffer *b = support_buffer(ctx, 4 * sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, a), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, b), k);
  size_t global = 1, local = 1;
  CHECK_FAILS(weft_kernel_launch(k, 1, NULL, &global, &local), WEFT_EDEADLOCK, k,
              "deadlock");
  weft_buffer_release(a);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

/* One group whose work-items each go round a polling loop many times,
 * one after another, takes longer than WEFT_SPIN_TIMEOUT but is no
 * deadlock: each work-item that reaches the loop after the one before got
 * out of it is progress (the CTS's c11 compare-exchange tests, a second a
 * launch here, were reported as deadlocks on a loaded machine). */
TEST(long_loops_in_one_group_are_no_deadlock) {
  CPU_ONLY("the CPU device's deadlock watch");
  setenv("WEFT_SPIN_TIMEOUT", "0.1", 1);
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "__kernel void k(__global atomic_int *a, __global int *out) {\n"
      "  int n = 0, mine = (get_local_id(0) + 1) * 20000;\n"
      "  for (int i = 0; i < 20000 || atomic_load(&a[0]) < mine; i++, n++)\n"
      "    atomic_fetch_add(&a[0], 1);\n"
      "  out[get_local_id(0)] = n;\n"
      "}\n",
      "-cl-std=CL2.0");
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "k", &k), p);
  enum { N = 256 };
  weft_buffer *a = support_ints(ctx, 1, 0), *out = support_ints(ctx, N, -1);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, a), k);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 1, out), k);
  size_t global = N, local = N;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
  int total, n[N];
  support_read_ints(a, &total, 1);
  support_read_ints(out, n, N);
  CHECK_EQ(total, N * 20000);
  for (int i = 0; i < N; i++) CHECK(n[i] >= 20000);
  weft_buffer_release(a);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST_MAIN()
