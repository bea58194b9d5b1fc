#define QUEUE 32
typedef struct { uint lo, hi; } task;
typedef struct { uint head, count; task tasks[QUEUE]; } deque;

uint collatz_steps(uint n) {
  uint steps = 0;
  for (ulong x = n; x > 1; steps++) x = (x & 1) ? 3 * x + 1 : x / 2;
  return steps;
}

/* Called with q's lock held. */
void push(__global deque *q, task t) {
  q->tasks[(q->head + q->count++) % QUEUE] = t;
}

/* The newest task of the group's own queue, or the oldest of another's;
 * hi == 0 when none was found. */
task take(__global weft_mutex *locks, __global deque *queues, uint me,
          uint groups, __global uint *steals) {
  task t = {0, 0};
  for (uint i = 0; i < groups && t.hi == 0; i++) {
    uint v = (me + i) % groups;
    __global deque *q = &queues[v];
    weft_mutex_lock(&locks[v]);
    if (q->count && v == me) {
      t = q->tasks[(q->head + --q->count) % QUEUE];
    } else if (q->count) {
      t = q->tasks[q->head];
      q->head = (q->head + 1) % QUEUE;
      q->count--;
      steals[me]++;
    }
    weft_mutex_unlock(&locks[v]);
  }
  return t;
}

__kernel void setup(__global weft_mutex *locks, __global deque *queues,
                    __global weft_semaphore *queued, uint numbers) {
  uint groups = get_global_size(0);
  uint g = get_global_id(0);
  weft_mutex_init(&locks[g]);
  queues[g].head = queues[g].count = 0;
  if (g == 0) {
    task all = {1, numbers};
    push(&queues[0], all);
    weft_semaphore_init(queued, 1);
  }
}

/* state[0]: tasks queued or running; state[1]: 1 when all are done;
 * state[2]: the sum; runs[g], steals[g]: what group g did. */
__kernel void steal(__global weft_mutex *locks, __global deque *queues,
                    __global weft_semaphore *queued_global weft_semaphore *queued,
                    __global atomic_uint *state, __global uint *runs,
                    __global uint *steals, uint grain) {
  uint me = get_group_id(0), groups = get_num_groups(0);
  uint lid = get_local_id(0);
  __local task t;
  __local int leave;
  for (;;) {
    weft_semaphore_wait_group(queued);
    if (lid == 0) {
      leave = atomic_load(&state[1]);
      /* A unit means a task is queued somewhere: look until found
       * (another taker may have got the one first seen). */
      if (!leave) do t = take(locks, queues, me, groups, steals);
                  while (t.hi == 0);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (leave) return;
    while (t.hi - t.lo > grain) {
      barrier(CLK_LOCAL_MEM_FENCE); /* all have read t */
      if (lid == 0) {
        task rest = {t.lo + (t.hi - t.lo) / 2, t.hi};
        atomic_fetch_add(&state[0], 1);
        weft_mutex_lock(&locks[me]);
        push(&queues[me], rest);
        weft_mutex_unlock(&locks[me]);
        weft_semaphore_post(queued);
        t.hi = rest.lo;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint steps = 0;
    for (uint n = t.lo + lid; n < t.hi; n += get_local_size(0))
      steps += collatz_steps(n);
    steps = work_group_reduce_add(steps);
    if (lid == 0) {
      atomic_fetch_add(&state[2], steps);
      runs[me]++;
      if (atomic_fetch_sub(&state[0], 1) == 1) {
        atomic_store(&state[1], 1);
        for (uint i = 0; i < groups; i++) weft_semaphore_post(queued);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* t is rewritten next turn */
  }
}
(%u thread%s), %.1f ms
%u to %u tasks per group
