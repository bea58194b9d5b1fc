/* cuda_pool.c: a cooperative kernel's pool of blocks on a CUDA GPU
 * (cl_weft_cooperative_kernels, builtins/nvptx/coop.cl) and the launches
 * that run beside it (cuda_launch.h).
 *
 * The pool is launched cooperatively on a stream of its own that does not
 * wait for the legacy default stream, where everything else goes, and
 * its launch's call waits for it without the launch lock: other launches
 * and copies go on meanwhile. A plain kernel launched then asks the pool
 * for blocks (the pool's DEMAND word): the pool's highest groups end at
 * their next offer_kill, or at its next resizing barrier, and their
 * blocks leave the GPU, where the launch's blocks take their place. The
 * blocks asked: the launch's share of the GPU (its blocks over the most
 * of them that fit) of the pool's; a pool that fills the GPU numbers its
 * groups by multiprocessor and gives whole ones (blocks_wanted). When
 * the launch has ended its demand goes. A pool that left room on the GPU
 * (fewer blocks than fit) then launches as many blocks of its kernel on
 * a stream of its own to take the rooms back: each joins the pool in the
 * slot of a block that left (coop.cl's join_pool) and waits for a fork,
 * or ends at once if no slot is free or the pool is done; the pool's end
 * waits for them too. A pool that fills the GPU launches none and goes
 * on with fewer blocks: on an H200 such a block, one of the pool's
 * kernel (48 registers, 20 blocks a multiprocessor), was never placed in
 * the room a pool block had left, while a plain launch was, and it held
 * every later launch back; plain CUDA programs polling host memory saw
 * rooms of a register-bound cooperative grid not reused by anything,
 * those of a thread-bound one reused, and the cause is not known.
 * Launches that would touch
 * the pool's globals (its program's launch block or constant bank,
 * another cooperative or global-barrier kernel) wait for it to end
 * instead. */
#include <assert.h>

#include "backend/cuda/cuda_launch.h"
#include "jit/jit.h"
#include "weft/kernel.h"
#include "weft/weft.h"

_Static_assert(WEFT__COOP_WORDS_USED <= WEFT_PTX_COOP_WORDS,
               "the pool's words fit the program's global");

/* Room for the pool's transmit records, ring and free slots: the
 * program's buffer, grown when a launch needs more. */
static CUresult pool_records(gpu_launch *l, size_t bytes) {
  cuda_program *p = l->program;
  if (bytes <= p->coop_records_size) return CUDA_SUCCESS;
  const weft_cuda_api *api = l->gpu->api;
  if (p->coop_records) api->cuMemFree(p->coop_records);
  p->coop_records = 0;
  p->coop_records_size = 0;
  CUresult r = api->cuMemAlloc(&p->coop_records, bytes);
  if (r == CUDA_SUCCESS) p->coop_records_size = bytes;
  return r;
}

/* Whether the pool l launches has as many blocks as fit (else it leaves
 * room, which blocks of its kernel take back after a launch beside it:
 * weft__cuda_beside_done). */
static int fills_gpu(const gpu_launch *l) {
  return l->blocks[0] >= l->resident;
}

/* A pool that fills the GPU: its blocks on each multiprocessor (coop.cl
 * numbers its groups by multiprocessor); else 0. */
static uint64_t pool_per_sm(const gpu_launch *l) {
  unsigned sms = l->gpu->gpu.multiprocessors;
  if (!sms || !fills_gpu(l) || l->resident % sms) return 0;
  return l->resident / sms;
}

int weft__cuda_pool_write(gpu_launch *l, weft_msg *msg) {
  const weft_kernel_desc *k = l->desc->kernel;
  if (!(k->flags & WEFT_KERNEL_RESIZABLE)) return 0;
  const weft_cuda_api *api = l->gpu->api;
  uint64_t blocks = l->blocks[0], items = l->threads[0];
  uint64_t records = 2 * blocks * items * k->transmit_size;
  /* After the records (and 16 bytes a block), the multiprocessors' words. */
  uint64_t sm_words_at = records + 16 * blocks;
  size_t sm_bytes = WEFT__COOP_SM_WORDS * sizeof(uint32_t);
  CUresult r = pool_records(l, (size_t)sm_words_at + sm_bytes);
  int churn = l->gpu->config->resize == WEFT_RESIZE_CHURN;
  int barriers = (k->flags & WEFT_KERNEL_RESIZING_BARRIER) != 0;
  uint64_t words[WEFT_PTX_COOP_WORDS] = {0};
  words[WEFT__COOP_LIVE] = words[WEFT__COOP_RUNNING] = blocks;
  words[WEFT__COOP_MAX] = words[WEFT__COOP_INITIAL] = blocks;
  words[WEFT__COOP_PRESENT] = blocks;
  words[WEFT__COOP_POLICY] = churn ? WEFT__COOP_CHURN : 0;
  words[WEFT__COOP_RECORDS] = l->program->coop_records;
  words[WEFT__COOP_RING] = l->program->coop_records + records;
  words[WEFT__COOP_SLOTS] = l->program->coop_records + records + 8 * blocks;
  words[WEFT__COOP_TRANSMIT] = k->transmit_size;
  words[WEFT__COOP_ITEMS] = items;
  words[WEFT__COOP_BARRIERS] = (uint64_t)barriers;
  words[WEFT__COOP_PER_SM] = pool_per_sm(l);
  words[WEFT__COOP_SMS] = l->program->coop_records + sm_words_at;
  if (r == CUDA_SUCCESS)
    r = api->cuMemsetD32(l->program->coop_records + sm_words_at, 0,
                         WEFT__COOP_SM_WORDS);
  /* Fast only where there are barriers to make fast (coop.cl). */
  words[WEFT__COOP_SHARING] = churn || !barriers;
  if (r == CUDA_SUCCESS && l->program->coop_state)
    r = api->cuMemcpyHtoD(l->program->coop_state, words, sizeof words);
  return weft__cuda_fail(l->gpu, r, "setting a cooperative kernel's pool up",
                         WEFT_ELAUNCH, msg);
}

/* Whether l may run beside the pool: a plain kernel, of another program
 * or of the pool's with the same launch block and no constant bank to
 * fill (the pool's kernel reads both as it runs). */
static int may_run_beside(const gpu_launch *l, const cuda_pool *pool) {
  const weft_kernel_desc *k = l->desc->kernel;
  if (k->flags & (WEFT_KERNEL_GLOBAL_BARRIER | WEFT_KERNEL_RESIZABLE))
    return 0;
  if (l->program != pool->launch->program) return 1;
  for (unsigned i = 0; i < k->num_args; i++)
    if (weft__arg_is_constant_buffer(&k->args[i])) return 0;
  return !l->program->launch_block || weft__cuda_launch_block_holds(l);
}

int weft__cuda_pool_turn(gpu_launch *l) {
  cuda_device *gpu = l->gpu;
  while (gpu->pool && !may_run_beside(l, gpu->pool))
    pthread_cond_wait(&gpu->pool_ended, &gpu->launch_lock);
  return gpu->pool != NULL;
}

static CUresult make_streams(cuda_device *gpu) {
  CUresult r = CUDA_SUCCESS;
  if (!gpu->pool_stream)
    r = gpu->api->cuStreamCreate(&gpu->pool_stream, CU_STREAM_NON_BLOCKING);
  if (r == CUDA_SUCCESS && !gpu->join_stream)
    r = gpu->api->cuStreamCreate(&gpu->join_stream, CU_STREAM_NON_BLOCKING);
  return r;
}

CUresult weft__cuda_pool_run(gpu_launch *l, void **params) {
  cuda_device *gpu = l->gpu;
  const weft_cuda_api *api = gpu->api;
  const unsigned *g = l->blocks, *t = l->threads;
  /* What was left running goes first: the pool's stream does not wait
   * for the legacy stream. */
  CUresult r = api->cuStreamSynchronize(NULL);
  if (r == CUDA_SUCCESS) r = make_streams(gpu);
  if (r == CUDA_SUCCESS)
    r = api->cuLaunchCooperativeKernel(l->kernel->function, g[0], g[1], g[2],
                                       t[0], t[1], t[2], (unsigned)l->shared,
                                       gpu->pool_stream, params);
  if (r != CUDA_SUCCESS) return r;
  cuda_pool pool = {l, params, 0};
  gpu->pool = &pool;
  pthread_mutex_unlock(&gpu->launch_lock);
  r = api->cuStreamSynchronize(gpu->pool_stream);
  pthread_mutex_lock(&gpu->launch_lock);
  /* Joining blocks still to start find the pool done and end; none may
   * start in the next pool's state. */
  CUresult joined = api->cuStreamSynchronize(gpu->join_stream);
  if (r == CUDA_SUCCESS) r = joined;
  gpu->pool = NULL;
  pthread_cond_broadcast(&gpu->pool_ended);
  return r;
}

/* The pool's DEMAND word, as the launches beside it add up. A copy on the
 * legacy stream: it goes to the GPU while the pool runs. */
static void write_demand(gpu_launch *l, const cuda_pool *pool) {
  CUdeviceptr word = pool->launch->program->coop_state +
                     WEFT__COOP_DEMAND * sizeof(uint64_t);
  l->gpu->api->cuMemcpyHtoD(word, &pool->demand, sizeof pool->demand);
}

/* The pool's blocks l wants: its share of the GPU (its blocks over the
 * most of them resident) of the pool's, at least one, and never the
 * pool's last. */
static uint64_t blocks_wanted(gpu_launch *l, const cuda_pool *pool) {
  uint64_t blocks = pool->launch->blocks[0];
  /* A pool filling the GPU gives whole multiprocessors (coop.cl's
   * sm_major_id) and keeps one; another keeps a block. */
  uint64_t unit = pool_per_sm(pool->launch);
  if (!unit) unit = 1;
  uint64_t spare = blocks - unit;
  uint64_t left = pool->demand < spare ? spare - pool->demand : 0;
  unsigned long long most = weft__cuda_resident_blocks(l);
  unsigned long long own =
      (unsigned long long)l->blocks[0] * l->blocks[1] * l->blocks[2];
  uint64_t want = blocks;
  if (most && own < most) want = (blocks * own + most - 1) / most;
  want = (want + unit - 1) / unit * unit;
  if (want < unit) want = unit;
  return want < left ? want : left;
}

uint64_t weft__cuda_beside_ask(gpu_launch *l) {
  cuda_pool *pool = l->gpu->pool;
  uint64_t want = blocks_wanted(l, pool);
  if (!want) return 0;
  pool->demand += want;
  write_demand(l, pool);
  return want;
}

/* Launches n blocks of the pool's kernel to join it in the rooms the
 * launch beside it leaves. A failure costs the pool those blocks, no
 * more: the pool runs on with fewer. */
static void rejoin(gpu_launch *l, const cuda_pool *pool, uint64_t n) {
  const gpu_launch *p = pool->launch;
  const unsigned *t = p->threads;
  l->gpu->api->cuLaunchKernel(p->kernel->function, (unsigned)n, 1, 1, t[0],
                              t[1], t[2], (unsigned)p->shared,
                              l->gpu->join_stream, pool->params, NULL);
}

void weft__cuda_beside_done(gpu_launch *l, uint64_t asked) {
  cuda_pool *pool = l->gpu->pool;
  /* The pool's call waits for the launch lock, held since the ask. */
  assert(pool);
  if (!asked) return;
  assert(pool->demand >= asked);
  pool->demand -= asked;
  write_demand(l, pool);
  if (fills_gpu(pool->launch)) return;
  /* The copy on the GPU before the blocks that read it start: one that
   * saw the old demand would leave again. */
  if (l->gpu->api->cuStreamSynchronize(NULL) == CUDA_SUCCESS)
    rejoin(l, pool, asked);
}
