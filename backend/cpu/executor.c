/* executor.c: launches on the CPU (see executor.h): the worker threads,
 * each with its stack and fault handling, running their share of a launch
 * under the launch's scheduler (scheduler.h), which hands them groups for
 * the group runner (group.c). */
#include "backend/cpu/executor.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/executor_internal.h"
#include "backend/cpu/guarded.h"
#include "backend/cpu/reserve.h"
#include "backend/cpu/scheduler.h"
#include "backend/cpu/share.h"
#include "base/log.h"

/* One worker's share of a launch, on whatever thread and stack it has. */
static void run_worker(cpu_worker *const w, launch_state *const l) {
  if (w->init_error) {
    weft__launch_report(l, w->init_error,
                        "a worker thread could not be set up");
    return;
  }
  const weft_scheduler *scheduler = l->scheduler;
  if (scheduler->prepare(w, l)) {
    weft__launch_report(l, WEFT_ENOMEM, "out of memory for kernel '%s' "
                        "(local memory or work-item contexts)",
                        l->desc->kernel->name);
    return;
  }
  w->current = &w->group;
  int jump = sigsetjmp(w->fault.recover, 0);
  if (jump) {
    w->fault.armed = 0;
    if (jump == WEFT_JUMP_FAULT) weft__group_report_fault(w->current);
    w->current->ctx.fiber_mode = 0;
    scheduler->failed(l);
    return;
  }
  w->fault.armed = 1;
  scheduler->run(w, l);
  w->fault.armed = 0;
}

static void own_stack_main(void *arg) {
  cpu_worker *w = arg;
  run_worker(w, w->launch);
  w->executor->fibers->swap(&w->own_fiber, &w->caller);
}

/* Worker 0: the launching thread moves to worker 0's stack for the launch,
 * with worker 0's fault handling, and gets its own back afterwards. */
static void run_on_own_stack(cpu_worker *w, launch_state *l) {
  const weft_fiber_ops *fibers = w->executor->fibers;
  void *stack = weft__stacks_get(&w->own_stack, 0);
  if (!stack) {
    weft__launch_report(
        l, WEFT_ESYS, "cannot map a %zu-byte stack for the launching thread",
        w->own_stack.size);
    return;
  }
  weft_fault_saved saved;
  weft__fault_attach(&w->fault, &saved);
  w->launch = l;
  fibers->make(&w->own_fiber, stack, w->own_stack.size, own_stack_main, w);
  fibers->swap(&w->caller, &w->own_fiber);
  weft__fault_detach(&saved);
}

static void worker_job(void *arg, unsigned index) {
  launch_state *l = arg;
  cpu_worker *w = &l->executor->workers[index];
  if (index == 0) run_on_own_stack(w, l);
  else run_worker(w, l);
  /* Stores that went past the caches (jit/cpu/stream_stores.c) are
   * ordered by no later store but a full fence's: once a thread's part
   * of the launch is done, before anyone is told. */
  if (l->desc->stream_stores) atomic_thread_fence(memory_order_seq_cst);
}

/* A pool thread, once, before its first job. */
static void worker_init(void *arg, unsigned index) {
  weft_executor *e = arg;
  cpu_worker *w = &e->workers[index];
  weft_fault_saved unused;
  w->init_error = weft__fault_init(&w->fault);
  if (!w->init_error) weft__fault_attach(&w->fault, &unused);
  pthread_attr_t attr;
  void *lo;
  size_t size;
  if (!pthread_getattr_np(pthread_self(), &attr)) {
    pthread_attr_getstack(&attr, &lo, &size);
    pthread_attr_getguardsize(&attr, &w->stack_guard);
    w->stack_lo = lo;
    w->stack_size = size;
    pthread_attr_destroy(&attr);
  }
}

/* Worker 0, which runs on whichever thread launches. */
static int init_worker0(weft_executor *e) {
  cpu_worker *w = &e->workers[0];
  weft__stacks_init(&w->own_stack, e->stack_size + WORKER_STACK_EXTRA);
  if (e->fibers->init(&w->own_fiber) || e->fibers->init(&w->caller))
    return WEFT_ENOMEM;
  return weft__fault_init(&w->fault);
}

/* Mappings a resident group holds (its stack and the guard below it;
 * its local and private memory come from the heap: coop.c). */
#define MAPS_PER_GROUP 2

/* The most cooperative groups resident at once: WEFT_RESIDENT_GROUPS, or
 * what the process can hold: three quarters of its mappings, the last
 * quarter left to the rest (libraries, threads, buffers: 32,000 groups
 * of one ran under the default 65,530 alone). */
static unsigned max_resident(const weft_config *config) {
  if (config->resident_limit) return config->resident_limit;
  long maps = weft__map_count_limit();
  long groups = (maps - maps / 4) / MAPS_PER_GROUP;
  return groups < WEFT_MAX_RESIDENT_GROUPS ? (unsigned)groups
                                           : WEFT_MAX_RESIDENT_GROUPS;
}

int weft__executor_create(const weft_config *config, weft_executor **out) {
  weft_executor *e = calloc(1, sizeof *e);
  if (!e) return WEFT_ENOMEM;
  e->fibers = weft__fiber_ops(config->fiber);
  e->stack_size = config->stack_size;
  e->num_workers = config->num_threads;
  e->workers = calloc(e->num_workers, sizeof *e->workers);
  if (!e->workers) {
    free(e);
    return WEFT_ENOMEM;
  }
  e->max_resident = max_resident(config);
  e->spin_timeout = config->spin_timeout;
  e->config = config;
  e->schedule = config->schedule;
  e->seed = config->schedule_seed;
  e->depth = config->schedule_depth;
  e->weak = config->weak_memory;
  if (config->schedule == WEFT_SCHEDULE_EXHAUSTIVE &&
      weft__explore_create(config->explore_budget,
                           config->explore_preemptions,
                           config->explore_reduce && !config->weak_memory,
                           config->explore_replay, &e->explore)) {
    free(e->workers);
    free(e);
    return WEFT_ENOMEM;
  }
  e->timeout = config->timeout;
  pthread_mutex_init(&e->races_lock, NULL);
  pthread_mutex_init(&e->history_lock, NULL);
  weft__share_init(e);
  for (unsigned i = 0; i < e->num_workers; i++) {
    e->workers[i].executor = e;
    weft__stacks_init(&e->workers[i].stacks, config->stack_size);
    if (e->fibers->init(&e->workers[i].sched)) {
      free(e->workers);
      free(e);
      return WEFT_ENOMEM;
    }
  }
  int rc = weft__fault_install();
  if (!rc) rc = init_worker0(e);
  if (!rc)
    rc = weft__pool_create(e->num_workers,
                           config->stack_size + WORKER_STACK_EXTRA,
                           worker_init, e, &e->pool);
  if (rc) {
    free(e->workers);
    free(e);
    return rc;
  }
  *out = e;
  return 0;
}

void weft__executor_destroy(weft_executor *e) {
  if (!e) return;
  weft__pool_destroy(e->pool);
  weft__executor_destroy(e->guest);
  weft__share_fini(e);
  weft__watchdog_destroy(e);
  weft__coop_free_slots(e);
  weft__check_races_free(e);
  pthread_mutex_destroy(&e->races_lock);
  pthread_mutex_destroy(&e->history_lock);
  weft__explore_free(e->explore);
  for (unsigned i = 0; i < e->num_workers; i++) {
    cpu_worker *w = &e->workers[i];
    weft__stacks_fini(&w->stacks);
    weft__stacks_fini(&w->own_stack);
    e->fibers->fini(&w->own_fiber);
    e->fibers->fini(&w->caller);
    weft__fault_fini(&w->fault);
    for (unsigned k = 0; k < w->group.capacity; k++)
      e->fibers->fini(&w->group.items[k].fiber);
    e->fibers->fini(&w->group.main);
    free(w->group.items);
    weft__weak_free(&w->group);
    e->fibers->fini(&w->sched);
    free(w->local_mem);
    weft__text_free(&w->output);
    weft__reserve_free(&w->private_mem, &w->private_capacity);
  }
  free(e->workers);
  free(e);
}

void weft__executor_schedule_seed(weft_executor *e, unsigned long long seed) {
  e->seed = seed;
  e->launches = 0;
}

unsigned weft__executor_max_resident(const weft_executor *e) {
  return e->max_resident;
}

unsigned weft__executor_threads(const weft_executor *e) {
  return e->num_workers;
}

/* The threads launch d would use: one per group, up to the pool's, and
 * all but one at most (a cooperative kernel keeps its group 0). */
static unsigned threads_needed(const weft_executor *e,
                               const weft_launch_desc *d) {
  uint64_t groups = 1;
  for (unsigned k = 0; k < d->dims; k++)
    groups *= (d->global[k] + d->local[k] - 1) / d->local[k];
  unsigned most = e->num_workers > 1 ? e->num_workers - 1 : 1;
  return groups < most ? (unsigned)groups : most;
}

/* While a cooperative kernel holds the pool (share.c), launch d waits a
 * bounded time for it to give threads back, then runs on the guest pool,
 * made on first need: 1 with its status in *rc. 0 when d takes its turn
 * on the pool (nothing holds it, e is a guest pool itself, or no guest
 * pool could be made). */
static int run_as_guest(weft_executor *e, const weft_launch_desc *d,
                        weft_msg *msg, int *rc) {
  if (e->is_guest || !__atomic_load_n(&e->holder, __ATOMIC_RELAXED)) return 0;
  pthread_mutex_lock(&e->share_lock);
  if (!e->guest && !weft__executor_create(e->config, &e->guest))
    e->guest->is_guest = 1;
  pthread_mutex_unlock(&e->share_lock);
  unsigned need = threads_needed(e, d);
  double waited;
  if (!e->guest || !weft__share_ask(e, need, &waited)) return 0;
  weft__log(WEFT_LOG_LAUNCH, "kernel '%s' waited %.3f ms for a cooperative "
            "kernel to give %u thread%s back", d->kernel->name, waited * 1e3,
            need, need == 1 ? "" : "s");
  *rc = weft__executor_run(e->guest, d, msg);
  weft__share_done(e, need);
  return 1;
}

int weft__executor_run(weft_executor *e, const weft_launch_desc *d,
                       weft_msg *msg) {
  int shared;
  if (run_as_guest(e, d, msg, &shared)) return shared;
  launch_state l = {.executor = e, .desc = d, .total = 1, .msg = msg};
  for (int k = 0; k < 3; k++) {
    l.num_groups[k] = (d->global[k] + d->local[k] - 1) / d->local[k];
    l.total *= l.num_groups[k];
  }
  atomic_init(&l.failed, 0);
  pthread_mutex_init(&l.lock, NULL);
  l.scheduler = d->kernel->flags & WEFT_KERNEL_COOPERATIVE
                    ? &weft__coop_scheduler
                    : &weft__chunked_scheduler;
  l.scheduler->begin(&l);
  weft__check_races_begin(&l); /* before any group is prepared */
  weft__watchdog_begin(&l);
  /* A cooperative kernel shares the pool from before it has it: a launch
   * that comes once its groups run, while the launching thread has yet
   * to join them, must not queue behind it for ever. */
  int shares = (d->kernel->flags & WEFT_KERNEL_RESIZABLE) != 0;
  if (shares) weft__share_hold(e, &l);
  weft__pool_run(e->pool, worker_job, &l, l.scheduler->threads(&l));
  if (shares) weft__share_release(e, &l);
  weft__watchdog_end(&l);
  weft__watchdog_report(&l);
  l.scheduler->end(&l);
  weft__check_reports_finish(&l);
  weft__check_races_end(&l);
  /* printf output, whether the launch failed or not: what a kernel printed
   * before it crashed is what its author wants to see. */
  for (unsigned i = 0; i < e->num_workers; i++)
    weft__cpu_output_flush(&e->workers[i].output);
  pthread_mutex_destroy(&l.lock);
  return l.status;
}
