/* cuda_launch.c: running a kernel on a CUDA GPU (see cuda_device.h). A
 * work-group is a block, a work-item a thread; core/ has checked that
 * local sizes divide global sizes, which is all CUDA can launch.
 *
 * Before the launch the program's globals are written: the global offset
 * and work dimension (CUDA has neither), the barrier's words (zeroed) and
 * the bytes of __constant buffer arguments, copied into the constant
 * bank. A kernel using weft_global_barrier() is launched cooperatively,
 * after an occupancy check: its groups must all be resident, and too
 * many is an error naming the limit, never a hang. The launch then runs
 * to completion; a fault in the kernel is reported with its name, a wait
 * that timed out (cuda_watchdog.c) as a deadlock.
 *
 * Or, where core/ allows it (weft_kernel_start, from a queue), a launch
 * of a kernel that cannot wait (no global barrier, no pool, no watched
 * wait in its program) is left running: everything goes to the legacy
 * default stream, which runs it in order, and the queue settles
 * (weft__cuda_settle) when it needs the results. A fault found then
 * names every kernel left running since the last settle. On an H200,
 * bench_peers' bitonic sort (276 launches) took 1.22 times NVIDIA's
 * time when each launch was waited for, 1.03 so. A cooperative kernel's
 * pool runs on a stream of its own, and other launches beside it
 * (cuda_pool.c). */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "backend/cuda/cuda_launch.h"
#include "jit/jit.h"
#include "weft/weft.h"

/* Shared memory a block gets without asking: more needs an opt-in. */
#define DEFAULT_DYNAMIC_SHARED (48u * 1024u)


/* "kernel 'NAME': " and the message, in msg; returns rc. */
static int fail(gpu_launch *l, int rc, weft_msg *msg, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(gpu_launch *l, int rc, weft_msg *msg, const char *format, ...) {
  int n = snprintf(msg->text, sizeof msg->text, "kernel '%s': ",
                   l->desc->kernel->name);
  if (n < 0 || (size_t)n >= sizeof msg->text) return rc;
  va_list ap;
  va_start(ap, format);
  vsnprintf(msg->text + n, sizeof msg->text - (size_t)n, format, ap);
  va_end(ap);
  return rc;
}

/* The grid and block shapes, within the GPU's limits. */
static int shape(gpu_launch *l, weft_msg *msg) {
  const weft_cuda_gpu *g = &l->gpu->gpu;
  static const char *const axes[] = {"x", "y", "z"};
  for (unsigned d = 0; d < 3; d++) {
    size_t groups = l->desc->global[d] / l->desc->local[d];
    if (groups > (size_t)g->max_grid[d])
      return fail(l, WEFT_EGLOBALSIZE, msg, "%zu work-groups in dimension "
                  "%s; the GPU launches at most %d",
                  groups, axes[d], g->max_grid[d]);
    l->blocks[d] = (unsigned)groups;
    l->threads[d] = (unsigned)l->desc->local[d];
  }
  return 0;
}

/* The kernel's own limit on threads: its registers decide. */
static int check_threads(gpu_launch *l, weft_msg *msg) {
  int most = l->kernel->max_threads;
  unsigned long long items =
      (unsigned long long)l->threads[0] * l->threads[1] * l->threads[2];
  if (most > 0 && items > (unsigned long long)most)
    return fail(l, WEFT_EGROUPSIZE, msg, "%llu work-items per group; its "
                "code (registers) allows at most %d on this GPU", items, most);
  return 0;
}

/* The dynamic shared memory of the __local arguments. core/ placed them
 * after the kernel's own __local variables, as the CPU keeps both in one
 * block; on the GPU those variables are static shared memory, so the
 * arguments move to the start of the dynamic part. */
static int place_local_args(gpu_launch *l, weft_msg *msg) {
  const weft_kernel_desc *k = l->desc->kernel;
  size_t base = (k->local_mem_size + WEFT_LOCAL_ALIGN - 1) &
                ~(size_t)(WEFT_LOCAL_ALIGN - 1);
  l->shared = l->desc->local_mem_size > base ? l->desc->local_mem_size - base
                                             : 0;
  for (unsigned i = 0; i < k->num_args; i++) {
    if (k->args[i].kind != WEFT_ARG_LOCAL) continue;
    uint64_t at;
    memcpy(&at, l->desc->args[i], sizeof at);
    l->offsets[i] = at - base;
  }
  if (l->shared <= DEFAULT_DYNAMIC_SHARED) return 0;
  CUresult r = l->gpu->api->cuFuncSetAttribute(
      l->kernel->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
      (int)l->shared);
  if (r == CUDA_SUCCESS) return 0;
  return fail(l, WEFT_ELOCALMEM, msg, "%zu bytes of __local arguments; the "
              "GPU gives a group at most %zu", l->shared,
              l->gpu->gpu.shared_per_block_optin);
}

unsigned long long weft__cuda_resident_blocks(gpu_launch *l) {
  int per_sm = 0;
  unsigned threads = l->threads[0] * l->threads[1] * l->threads[2];
  l->gpu->api->cuOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, l->kernel->function, (int)threads, l->shared);
  return (unsigned long long)per_sm * l->gpu->gpu.multiprocessors;
}

/* A cooperative kernel (cl_weft_cooperative_kernels) runs on a pool of
 * resident blocks (builtins/nvptx/coop.cl): as many as fit, at most its
 * groups, launched cooperatively. */
static int size_pool(gpu_launch *l, weft_msg *msg) {
  if (!(l->desc->kernel->flags & WEFT_KERNEL_RESIZABLE)) return 0;
  if (!l->gpu->gpu.cooperative_launch)
    return fail(l, WEFT_ELAUNCH, msg, "is a cooperative kernel, and the GPU "
                "has no cooperative launch");
  unsigned long long most = l->resident = weft__cuda_resident_blocks(l);
  if (!most)
    return fail(l, WEFT_EGROUPSIZE, msg, "no block of it fits on the GPU");
  if (l->blocks[0] > most) l->blocks[0] = (unsigned)most;
  return 0;
}

/* All groups of a global-barrier kernel must fit on the GPU at once. */
static int check_residency(gpu_launch *l, weft_msg *msg) {
  if (!(l->desc->kernel->flags & WEFT_KERNEL_GLOBAL_BARRIER)) return 0;
  const weft_cuda_gpu *g = &l->gpu->gpu;
  if (!g->cooperative_launch)
    return fail(l, WEFT_ELAUNCH, msg, "uses weft_global_barrier, and the "
                "GPU has no cooperative launch");
  unsigned long long most = weft__cuda_resident_blocks(l);
  unsigned long long groups =
      (unsigned long long)l->blocks[0] * l->blocks[1] * l->blocks[2];
  if (groups <= most) return 0;
  return fail(l, WEFT_EGROUPSIZE, msg, "uses weft_global_barrier with %llu "
              "work-groups; at most %llu can be resident at once on this GPU "
              "at this group size", groups, most);
}

/* Copies each __constant buffer argument into the bank, one after the
 * other, and notes where. */
static int fill_constant_bank(gpu_launch *l, weft_msg *msg) {
  const weft_kernel_desc *k = l->desc->kernel;
  size_t used = 0;
  for (unsigned i = 0; i < k->num_args; i++) {
    const weft_arg_desc *a = &k->args[i];
    if (!weft__arg_is_constant_buffer(a)) continue;
    size_t size = l->desc->arg_sizes[i];
    if (used + size > l->program->constant_bank_size)
      return fail(l, WEFT_ELOCALMEM, msg, "__constant argument '%s' takes "
                  "the constant memory to %zu bytes; the program has %zu",
                  a->name, used + size, l->program->constant_bank_size);
    CUdeviceptr src;
    memcpy(&src, l->desc->args[i], sizeof src);
    l->offsets[i] = used;
    CUresult r = CUDA_SUCCESS;
    if (size)
      r = l->gpu->api->cuMemcpyDtoD(l->program->constant_bank + used, src,
                                    size);
    if (r != CUDA_SUCCESS)
      return weft__cuda_fail(l->gpu, r, "copying a __constant argument",
                             WEFT_ELAUNCH, msg);
    used = (used + size + 15) & ~(size_t)15;
  }
  return 0;
}

/* The launch block's words for l: its global offset and dimensions. */
static void launch_block_of(const gpu_launch *l, uint64_t block[4]) {
  for (unsigned d = 0; d < 3; d++) block[d] = l->desc->offset[d];
  block[3] = l->desc->dims;
}

int weft__cuda_launch_block_holds(const gpu_launch *l) {
  uint64_t block[4];
  launch_block_of(l, block);
  return !memcmp(block, l->program->launch_block_holds, sizeof block);
}

/* The launch block and the barrier's words. */
static int write_globals(gpu_launch *l, weft_msg *msg) {
  const weft_cuda_api *api = l->gpu->api;
  CUresult r = CUDA_SUCCESS;
  cuda_program *p = l->program;
  /* Launches with the offset and dimensions of the last need no copy. */
  if (p->launch_block && !weft__cuda_launch_block_holds(l)) {
    uint64_t block[4];
    launch_block_of(l, block);
    r = api->cuMemcpyHtoD(p->launch_block, block, sizeof block);
    if (r == CUDA_SUCCESS) memcpy(p->launch_block_holds, block, sizeof block);
  }
  if (r == CUDA_SUCCESS && p->launch_words &&
      (l->desc->kernel->flags & WEFT_KERNEL_GLOBAL_BARRIER))
    r = api->cuMemsetD32(p->launch_words, 0, WEFT_LAUNCH_WORDS);
  return weft__cuda_fail(l->gpu, r, "writing the launch's globals",
                         WEFT_ELAUNCH, msg);
}

/* Whether the launch may be left running: core/ allows it and the
 * kernel cannot wait for another group (such a launch is checked for a
 * deadlock at its end, which needs its own wait). */
static int may_fly(const gpu_launch *l) {
  return l->desc->may_defer && !l->gpu->config->gpu_wait_each &&
         !l->program->watchdog &&
         !(l->desc->kernel->flags &
           (WEFT_KERNEL_GLOBAL_BARRIER | WEFT_KERNEL_RESIZABLE));
}

/* A launch left running: counted, and named among the first few
 * (launch_lock held). */
static void note_flying(cuda_device *gpu, const char *name) {
  cuda_flying *f = &gpu->flying;
  size_t used = strlen(f->names);
  if (f->count < CUDA_FLYING_NAMED)
    snprintf(f->names + used, sizeof f->names - used, "%s'%s'",
             f->count ? ", " : "", name);
  f->count++;
}

/* The notes of the launches left running, taken: what a wait on the
 * GPU covers (launch_lock held). */
static cuda_flying take_flying(cuda_device *gpu) {
  cuda_flying f = gpu->flying;
  gpu->flying = (cuda_flying){0};
  return f;
}

/* What failed, for weft__cuda_fail, in what (size bytes): the kernel
 * whose call found the failure (NULL: a settle's), or one of those left
 * running before, whose fault it may be. */
static void name_failure(const char *kernel, const cuda_flying *f,
                         char *what, size_t size) {
  const char *more = f->count > CUDA_FLYING_NAMED ? ", ..." : "";
  if (kernel && !f->count)
    snprintf(what, size, "kernel '%s' on the GPU", kernel);
  else if (kernel)
    snprintf(what, size, "kernel '%s' on the GPU, or one of the %u left "
             "running before it (%s%s)", kernel, f->count, f->names, more);
  else if (f->count)
    snprintf(what, size, "%s %s%s on the GPU",
             f->count > 1 ? "one of the kernels" : "kernel", f->names, more);
  else
    snprintf(what, size, "a kernel on the GPU");
}

/* The launch, and its wait unless it is left running. Beside a pool
 * (cuda_pool.c) a launch is always waited for, and the watchdog's record
 * left to the pool where the pool's program watches its waits (the
 * record is the GPU's, and the pool's may be what tripped). */
static int run(gpu_launch *l, void **params, int beside, weft_msg *msg) {
  const weft_cuda_api *api = l->gpu->api;
  CUfunction f = l->kernel->function;
  const unsigned *g = l->blocks, *t = l->threads;
  unsigned flags = l->desc->kernel->flags;
  CUresult r;
  if (flags & WEFT_KERNEL_RESIZABLE)
    r = weft__cuda_pool_run(l, params);
  else if (flags & WEFT_KERNEL_GLOBAL_BARRIER)
    r = api->cuLaunchCooperativeKernel(f, g[0], g[1], g[2], t[0], t[1], t[2],
                                       (unsigned)l->shared, NULL, params);
  else
    r = api->cuLaunchKernel(f, g[0], g[1], g[2], t[0], t[1], t[2],
                            (unsigned)l->shared, NULL, params, NULL);
  if (r == CUDA_SUCCESS && !beside && may_fly(l)) {
    note_flying(l->gpu, l->desc->kernel->name);
    return WEFT_IN_FLIGHT;
  }
  /* The legacy stream's work, not the context's: a pool may be running
   * on its own stream. */
  if (r == CUDA_SUCCESS && !(flags & WEFT_KERNEL_RESIZABLE))
    r = api->cuStreamSynchronize(NULL);
  if (r == CUDA_SUCCESS) {
    take_flying(l->gpu); /* what was left running before has ended too */
    if (beside && l->gpu->pool->launch->program->watchdog) return 0;
    return weft__cuda_watchdog_check(l->gpu, l->program->watchdog,
                                     l->program->launch_words,
                                     l->program->coop_state, l->desc, msg);
  }
  char what[WEFT_MSG_MAX];
  name_failure(l->desc->kernel->name, &l->gpu->flying, what, sizeof what);
  return weft__cuda_fail(l->gpu, r, what, WEFT_ELAUNCH, msg);
}

int weft__cuda_settle(weft_backend_device *device, weft_msg *msg) {
  cuda_device *gpu = weft__cuda_of(device);
  int rc = weft__cuda_enter(gpu, msg);
  if (rc) return rc;
  /* The notes of what this wait covers, taken first: a launch made
   * meanwhile is noted afresh for the next settle. */
  pthread_mutex_lock(&gpu->launch_lock);
  cuda_flying flying = take_flying(gpu);
  pthread_mutex_unlock(&gpu->launch_lock);
  /* Always a wait, even with nothing noted: another thread's settle may
   * have taken the notes of launches still running. The legacy stream's:
   * a pool (cuda_pool.c) may be running on its own. */
  CUresult r = gpu->api->cuStreamSynchronize(NULL);
  if (r == CUDA_SUCCESS) return 0;
  char what[WEFT_MSG_MAX];
  name_failure(NULL, &flying, what, sizeof what);
  return weft__cuda_fail(gpu, r, what, WEFT_ELAUNCH, msg);
}

int weft__cuda_launch(weft_backend_device *device, const weft_launch_desc *desc,
                      weft_msg *msg) {
  const weft_kernel_desc *k = desc->kernel;
  gpu_launch *l = calloc(1, sizeof *l + (k->num_args + 1) * sizeof(uint64_t));
  if (!l) return WEFT_ENOMEM;
  l->gpu = weft__cuda_of(device);
  l->desc = desc;
  l->program = desc->binary->impl;
  l->kernel = &l->program->kernels[k - desc->binary->kernels];
  void *params[k->num_args + 1];
  for (unsigned i = 0; i < k->num_args; i++) {
    const weft_arg_desc *a = &k->args[i];
    int offset = a->kind == WEFT_ARG_LOCAL || weft__arg_is_constant_buffer(a);
    params[i] = offset ? &l->offsets[i] : desc->args[i];
  }
  int rc = weft__cuda_enter(l->gpu, msg);
  if (!rc) rc = shape(l, msg);
  if (!rc) rc = check_threads(l, msg);
  if (!rc) rc = place_local_args(l, msg);
  if (!rc) rc = check_residency(l, msg);
  if (!rc) rc = size_pool(l, msg);
  if (!rc) {
    pthread_mutex_lock(&l->gpu->launch_lock);
    int beside = weft__cuda_pool_turn(l);
    uint64_t asked = beside ? weft__cuda_beside_ask(l) : 0;
    rc = fill_constant_bank(l, msg);
    if (!rc) rc = write_globals(l, msg);
    if (!rc) rc = weft__cuda_pool_write(l, msg);
    if (!rc) rc = run(l, params, beside, msg);
    if (beside) weft__cuda_beside_done(l, asked);
    pthread_mutex_unlock(&l->gpu->launch_lock);
  }
  free(l);
  return rc;
}
