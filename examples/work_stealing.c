/*
 * work_stealing.c: irregular work balanced by stealing between work-groups,
 * the first example of the Cooperative Kernels paper (Sorensen, Evrard and
 * Donaldson), on 4 times more work-groups than Weft has threads.
 *
 * The job: the total number of Collatz steps of every number below 2^20,
 * whose cost varies from number to number. A task is a range of numbers.
 * Each work-group owns a queue of tasks guarded by a weft_mutex; it takes
 * its newest task, splits it in halves until it is small, queueing the
 * other halves for itself, and then runs it with all its work-items. A
 * group whose queue is empty steals the oldest (largest) task of another.
 *
 * A weft_semaphore counts the queued tasks, so a group with nothing to do
 * sleeps in weft_semaphore_wait_group instead of spinning: once it gets a
 * unit, some queue holds a task for it (a unit is posted only after its
 * task is queued, and each taker takes one unit). When the last task
 * finishes, its group sets done and posts one unit for every group, and
 * all leave.
 *
 * The groups wait for each other (a thief for a queue's lock, an idle group
 * for work), so this needs more than OpenCL promises: on a CPU, Weft parks
 * a waiting group and runs another on its thread, whatever the number of
 * groups. The host checks the sum against its own.
 *
 * With --cooperative the same job runs as a cooperative kernel
 * (cl_weft_cooperative_kernels): the launch's groups are the most it may
 * have, it starts with as many as Weft has threads for, and at the top of
 * its loop a group may be killed (offer_kill) and group 0 asks for more
 * (request_fork). A queue outlives its group: thieves look at every
 * queue, and a new group of the same id takes it over.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "weft/weft.h"

enum { NUMBERS = 1 << 20, GRAIN = 512, GROUP = 64, QUEUE = 32 };

/* The deque of a group: tasks[head .. head + count - 1], circular. Splits
 * push halves in decreasing size, the owner pops the newest and thieves
 * take the oldest, so a queue holds at most one task per halving (20 for
 * 2^20 numbers): QUEUE is enough. */
static const char *source =
    "#define QUEUE 32\n"
    "typedef struct { uint lo, hi; } task;\n"
    "typedef struct { uint head, count; task tasks[QUEUE]; } deque;\n"
    "\n"
    "uint collatz_steps(uint n) {\n"
    "  uint steps = 0;\n"
    "  for (ulong x = n; x > 1; steps++) x = (x & 1) ? 3 * x + 1 : x / 2;\n"
    "  return steps;\n"
    "}\n"
    "\n"
    "/* Called with q's lock held. */\n"
    "void push(__global deque *q, task t) {\n"
    "  q->tasks[(q->head + q->count++) % QUEUE] = t;\n"
    "}\n"
    "\n"
    "/* The newest task of the group's own queue, or the oldest of another's;\n"
    " * hi == 0 when none was found. */\n"
    "task take(__global weft_mutex *locks, __global deque *queues, uint me,\n"
    "          uint groups, __global uint *steals) {\n"
    "  task t = {0, 0};\n"
    "  for (uint i = 0; i < groups && t.hi == 0; i++) {\n"
    "    uint v = (me + i) % groups;\n"
    "    __global deque *q = &queues[v];\n"
    "    weft_mutex_lock(&locks[v]);\n"
    "    if (q->count && v == me) {\n"
    "      t = q->tasks[(q->head + --q->count) % QUEUE];\n"
    "    } else if (q->count) {\n"
    "      t = q->tasks[q->head];\n"
    "      q->head = (q->head + 1) % QUEUE;\n"
    "      q->count--;\n"
    "      steals[me]++;\n"
    "    }\n"
    "    weft_mutex_unlock(&locks[v]);\n"
    "  }\n"
    "  return t;\n"
    "}\n"
    "\n"
    "__kernel void setup(__global weft_mutex *locks, __global deque *queues,\n"
    "                    __global weft_semaphore *queued, uint numbers) {\n"
    "  uint groups = get_global_size(0);\n"
    "  uint g = get_global_id(0);\n"
    "  weft_mutex_init(&locks[g]);\n"
    "  queues[g].head = queues[g].count = 0;\n"
    "  if (g == 0) {\n"
    "    task all = {1, numbers};\n"
    "    push(&queues[0], all);\n"
    "    weft_semaphore_init(queued, 1);\n"
    "  }\n"
    "}\n"
    "\n"
    "/* state[0]: tasks queued or running; state[1]: 1 when all are done;\n"
    " * state[2]: the sum; runs[g], steals[g]: what group g did. */\n"
    "\n"
    "/* Waits for a unit of queued, then takes a task into *t (work-item 0,\n"
    " * over all queues); 1 when all are done instead. */\n"
    "int next_task(__local task *t, __local int *leave,\n"
    "              __global weft_mutex *locks, __global deque *queues,\n"
    "              __global weft_semaphore *queued,\n"
    "              __global atomic_uint *state, __global uint *steals,\n"
    "              uint me, uint all) {\n"
    "  weft_semaphore_wait_group(queued);\n"
    "  if (get_local_id(0) == 0) {\n"
    "    *leave = atomic_load(&state[1]);\n"
    "    /* A unit means a task is queued somewhere: look until found\n"
    "     * (another taker may have got the one first seen). */\n"
    "    if (!*leave) do *t = take(locks, queues, me, all, steals);\n"
    "                 while (t->hi == 0);\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  return *leave;\n"
    "}\n"
    "\n"
    "/* Runs *t with the group's work-items: halves beyond grain go to queue\n"
    " * me, a unit of queued each; the last task to finish posts a unit for\n"
    " * each of all groups, for them to leave. */\n"
    "void run_task(__local task *t, __global weft_mutex *locks,\n"
    "              __global deque *queues, __global weft_semaphore *queued,\n"
    "              __global atomic_uint *state, __global uint *runs,\n"
    "              uint grain, uint me, uint all) {\n"
    "  uint lid = get_local_id(0);\n"
    "  while (t->hi - t->lo > grain) {\n"
    "    barrier(CLK_LOCAL_MEM_FENCE); /* all have read t */\n"
    "    if (lid == 0) {\n"
    "      task rest = {t->lo + (t->hi - t->lo) / 2, t->hi};\n"
    "      atomic_fetch_add(&state[0], 1);\n"
    "      weft_mutex_lock(&locks[me]);\n"
    "      push(&queues[me], rest);\n"
    "      weft_mutex_unlock(&locks[me]);\n"
    "      weft_semaphore_post(queued);\n"
    "      t->hi = rest.lo;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  uint steps = 0;\n"
    "  for (uint n = t->lo + lid; n < t->hi; n += get_local_size(0))\n"
    "    steps += collatz_steps(n);\n"
    "  steps = work_group_reduce_add(steps);\n"
    "  if (lid == 0) {\n"
    "    atomic_fetch_add(&state[2], steps);\n"
    "    runs[me]++;\n"
    "    if (atomic_fetch_sub(&state[0], 1) == 1) {\n"
    "      atomic_store(&state[1], 1);\n"
    "      for (uint i = 0; i < all; i++) weft_semaphore_post(queued);\n"
    "    }\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE); /* t is rewritten next turn */\n"
    "}\n"
    "\n"
    "__kernel void steal(__global weft_mutex *locks, __global deque *queues,\n"
    "                    __global weft_semaphore *queued,\n"
    "                    __global atomic_uint *state, __global uint *runs,\n"
    "                    __global uint *steals, uint grain) {\n"
    "  uint me = get_group_id(0), groups = get_num_groups(0);\n"
    "  __local task t;\n"
    "  __local int leave;\n"
    "  while (!next_task(&t, &leave, locks, queues, queued, state, steals, me,\n"
    "                    groups))\n"
    "    run_task(&t, locks, queues, queued, state, runs, grain, me, groups);\n"
    "}\n"
    "\n"
    "/* The same as a cooperative kernel, over all queues. What a group\n"
    " * computed before a point is undefined in the groups forked there: the\n"
    " * id is read after them. */\n"
    "__kernel void steal_cooperative(__global weft_mutex *locks,\n"
    "                    __global deque *queues,\n"
    "                    __global weft_semaphore *queued,\n"
    "                    __global atomic_uint *state, __global uint *runs,\n"
    "                    __global uint *steals, uint grain, uint all) {\n"
    "  __local task t;\n"
    "  __local int leave;\n"
    "  for (;;) {\n"
    "    offer_kill();\n"
    "    if (get_group_id(0) == 0) request_fork();\n"
    "    uint me = get_group_id(0);\n"
    "    if (next_task(&t, &leave, locks, queues, queued, state, steals, me,\n"
    "                  all))\n"
    "      return;\n"
    "    run_task(&t, locks, queues, queued, state, runs, grain, me, all);\n"
    "  }\n"
    "}\n";

#define CHECK(call, object) check((call), (object), #call)

static void check(int rc, const void *object, const char *call) {
  if (rc == WEFT_OK) return;
  fprintf(stderr, "work_stealing: %s failed: %s\n  %s\n", call,
          weft_strerror(rc), object ? weft_errmsg(object) : "");
  exit(EXIT_FAILURE);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static uint32_t collatz_steps(uint32_t n) {
  uint32_t steps = 0;
  for (uint64_t x = n; x > 1; steps++) x = (x & 1) ? 3 * x + 1 : x / 2;
  return steps;
}

static weft_buffer *zeroed(weft_context *ctx, size_t size) {
  weft_buffer *b;
  CHECK(weft_buffer_create(ctx, size, WEFT_MEM_READ_WRITE, NULL, &b), ctx);
  CHECK(weft_buffer_fill(b, &(uint8_t){0}, 1, 0, size), b);
  return b;
}

int main(int argc, char **argv) {
  int cooperative = argc > 1 && !strcmp(argv[1], "--cooperative");
  weft_device *device;
  weft_context *ctx;
  weft_device_info info;
  CHECK(weft_device_get(0, &device), NULL);
  CHECK(weft_device_info_get(device, &info), device);
  CHECK(weft_context_create(device, &ctx), device);
  /* Four groups per thread: most groups wait at any time (a cooperative
   * kernel's most: it runs as many as there are threads). */
  uint32_t groups = 4 * info.compute_units;

  weft_program *program;
  CHECK(weft_program_create(ctx, source, 0, &program), ctx);
  if (weft_program_build(program, "-cl-std=CL3.0") != WEFT_OK) {
    fprintf(stderr, "work_stealing: build failed:\n%s\n",
            weft_program_build_log(program));
    return EXIT_FAILURE;
  }
  weft_kernel *setup, *steal;
  CHECK(weft_kernel_create(program, "setup", &setup), program);
  CHECK(weft_kernel_create(program, cooperative ? "steal_cooperative" : "steal",
                           &steal), program);
  weft_program_release(program);

  /* sizeof(deque) in the kernel: two uints and QUEUE tasks of two. */
  size_t deque_size = (2 + 2 * QUEUE) * sizeof(uint32_t);
  weft_buffer *locks = zeroed(ctx, groups * 16);
  weft_buffer *queues = zeroed(ctx, groups * deque_size);
  weft_buffer *queued = zeroed(ctx, 16);
  weft_buffer *state = zeroed(ctx, 3 * sizeof(uint32_t));
  weft_buffer *runs = zeroed(ctx, groups * sizeof(uint32_t));
  weft_buffer *steals = zeroed(ctx, groups * sizeof(uint32_t));
  uint32_t numbers = NUMBERS, grain = GRAIN, one = 1;

  CHECK(weft_kernel_set_arg_buffer(setup, 0, locks), setup);
  CHECK(weft_kernel_set_arg_buffer(setup, 1, queues), setup);
  CHECK(weft_kernel_set_arg_buffer(setup, 2, queued), setup);
  CHECK(weft_kernel_set_arg_value(setup, 3, &numbers, sizeof numbers), setup);
  size_t global = groups, local = 1;
  CHECK(weft_kernel_launch(setup, 1, NULL, &global, &local), setup);
  /* One task to start with: the range of all numbers. */
  CHECK(weft_buffer_write(state, 0, sizeof one, &one), state);

  weft_buffer *args[] = {locks, queues, queued, state, runs, steals};
  for (unsigned i = 0; i < 6; i++)
    CHECK(weft_kernel_set_arg_buffer(steal, i, args[i]), steal);
  CHECK(weft_kernel_set_arg_value(steal, 6, &grain, sizeof grain), steal);
  if (cooperative)
    CHECK(weft_kernel_set_arg_value(steal, 7, &groups, sizeof groups), steal);
  global = (size_t)groups * GROUP;
  local = GROUP;
  double start = now_ms();
  CHECK(weft_kernel_launch(steal, 1, NULL, &global, &local), steal);
  double ms = now_ms() - start;

  uint32_t result[3], *ran = calloc(groups, 4), *stolen = calloc(groups, 4);
  if (!ran || !stolen) return EXIT_FAILURE;
  CHECK(weft_buffer_read(state, 0, sizeof result, result), state);
  CHECK(weft_buffer_read(runs, 0, groups * 4, ran), runs);
  CHECK(weft_buffer_read(steals, 0, groups * 4, stolen), steals);
  uint32_t expected = 0, tasks = 0, thefts = 0, fewest = UINT32_MAX, most = 0;
  for (uint32_t n = 1; n < NUMBERS; n++) expected += collatz_steps(n);
  for (uint32_t g = 0; g < groups; g++) {
    tasks += ran[g];
    thefts += stolen[g];
    if (ran[g] < fewest) fewest = ran[g];
    if (ran[g] > most) most = ran[g];
  }
  printf("work_stealing: Collatz steps of 1..%d on %s%u groups of %d "
         "(%u thread%s), %.1f ms\n", NUMBERS - 1,
         cooperative ? "a cooperative kernel of at most " : "", groups, GROUP,
         info.compute_units, info.compute_units == 1 ? "" : "s", ms);
  printf("  %u tasks of at most %d numbers, %u of them stolen; "
         "%u to %u tasks per group\n", tasks, GRAIN, thefts, fewest, most);
  printf("  steps %u, host %u\n", result[2], expected);
  int ok = result[2] == expected && result[0] == 0 && result[1] == 1;
  if (!ok) fprintf(stderr, "work_stealing: wrong result\n");
  else printf("  ok\n");

  free(ran);
  free(stolen);
  weft_buffer *all[] = {locks, queues, queued, state, runs, steals};
  for (unsigned i = 0; i < 6; i++) weft_buffer_release(all[i]);
  weft_kernel_release(setup);
  weft_kernel_release(steal);
  weft_context_release(ctx);
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
