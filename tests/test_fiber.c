/* test_fiber.c: the two context switches, on their own. Each test runs with
 * both the asm switch and swapcontext. */
#include <math.h>
#include <stdint.h>
#include <sys/mman.h>

#include "backend/cpu/fiber.h"
#include "harness.h"

#define STACK_SIZE (64 * 1024)

static const weft_fiber_ops *ops;
static weft_fiber main_fiber;

static void *new_stack(void) {
  void *p = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED);
  return p;
}

static void for_each_kind(void (*body)(void)) {
  static const weft_fiber_kind kinds[] = {WEFT_FIBER_ASM, WEFT_FIBER_UCONTEXT};
  for (int i = 0; i < 2; i++) {
    ops = weft__fiber_ops(kinds[i]);
    memset(&main_fiber, 0, sizeof main_fiber);
    CHECK_EQ(ops->init(&main_fiber), 0);
    body();
    ops->fini(&main_fiber);
  }
}

/* ---- ping-pong: values cross the switch both ways, many times */

static weft_fiber ping;
static volatile int counter;

static void ping_main(void *arg) {
  int rounds = *(int *)arg;
  for (int i = 0; i < rounds; i++) {
    counter = counter * 2 + 1;
    ops->swap(&ping, &main_fiber);
  }
  for (;;) ops->swap(&ping, &main_fiber);
}

static void ping_pong(void) {
  int rounds = 1000;
  void *stack = new_stack();
  memset(&ping, 0, sizeof ping);
  CHECK_EQ(ops->init(&ping), 0);
  ops->make(&ping, stack, STACK_SIZE, ping_main, &rounds);
  counter = 0;
  for (int i = 0; i < rounds; i++) {
    int before = counter;
    ops->swap(&main_fiber, &ping);
    CHECK_EQ(counter, (before * 2 + 1));
    counter = 0;
  }
  ops->fini(&ping);
  munmap(stack, STACK_SIZE);
}

TEST(ping_pong) { for_each_kind(ping_pong); }

/* ---- a ring of fibers passing control in order, as barriers do */

#define RING 64
static weft_fiber ring[RING];
static int visits[RING];
static int order[RING * 3], order_len;

static void ring_main(void *arg) {
  int k = (int)(intptr_t)arg;
  for (int lap = 0; lap < 3; lap++) {
    visits[k]++;
    order[order_len++] = k;
    /* Floating-point state in callee-saved use across the switch. */
    volatile double x = sqrt((double)k + lap);
    ops->swap(&ring[k], k + 1 < RING ? &ring[k + 1] : &main_fiber);
    CHECK(fabs(x * x - ((double)k + lap)) < 1e-9);
  }
  ops->swap(&ring[k], &main_fiber);
}

static void ring_order(void) {
  void *stacks[RING];
  order_len = 0;
  for (int k = 0; k < RING; k++) {
    stacks[k] = new_stack();
    visits[k] = 0;
    memset(&ring[k], 0, sizeof ring[k]);
    CHECK_EQ(ops->init(&ring[k]), 0);
    ops->make(&ring[k], stacks[k], STACK_SIZE, ring_main, (void *)(intptr_t)k);
  }
  for (int lap = 0; lap < 3; lap++) ops->swap(&main_fiber, &ring[0]);
  for (int k = 0; k < RING; k++) CHECK_EQ(visits[k], 3);
  for (int i = 0; i < RING * 3; i++) CHECK_EQ(order[i], i % RING);
  for (int k = 0; k < RING; k++) {
    ops->fini(&ring[k]);
    munmap(stacks[k], STACK_SIZE);
  }
}

TEST(ring_order) { for_each_kind(ring_order); }

/* ---- a new fiber starts with a 16-byte aligned stack, as the ABI wants */

static weft_fiber aligned_fiber;
static uintptr_t seen_alignment;

static void aligned_main(void *arg) {
  (void)arg;
  _Alignas(16) char probe[16];
  seen_alignment = (uintptr_t)probe % 16;
  ops->swap(&aligned_fiber, &main_fiber);
}

static void stack_alignment(void) {
  void *stack = new_stack();
  memset(&aligned_fiber, 0, sizeof aligned_fiber);
  CHECK_EQ(ops->init(&aligned_fiber), 0);
  ops->make(&aligned_fiber, stack, STACK_SIZE, aligned_main, NULL);
  seen_alignment = 99;
  ops->swap(&main_fiber, &aligned_fiber);
  CHECK_EQ(seen_alignment, 0);
  ops->fini(&aligned_fiber);
  munmap(stack, STACK_SIZE);
}

TEST(stack_alignment) { for_each_kind(stack_alignment); }

TEST_MAIN()
