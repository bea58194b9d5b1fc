/*
 * bench_coop_kernels.c: cooperative kernels (cl_weft_cooperative_kernels)
 * on Weft's CPU device, as the Cooperative Kernels paper (Sorensen,
 * Evrard and Donaldson, FSE 2017) measures them:
 *
 *   overhead_queue   a work queue (chunks of Collatz numbers claimed with
 *                    an atomic) with offer_kill and request_fork at each
 *                    claim, over the same kernel without them; as many
 *                    groups as threads
 *   overhead_levels  300 levels of a 1-D relaxation with a
 *                    resizing_global_barrier between levels, over the same
 *                    with weft_global_barrier
 *   gather_offer     a persistent kernel that offers a group at each turn
 *                    while another thread launches a one-group kernel now
 *                    and then: that launch's latency less its latency
 *                    alone (the time to get a thread), median, 90th
 *                    percentile and worst
 *   gather_offer_long  the same with turns 32 times as long (an offer
 *                    interval of a few milliseconds)
 *   gather_offer_all the long turns beside a launch of as many one-item
 *                    groups as threads, which asks for every thread but
 *                    one: all but one group given back at once
 *   gather_offer_query the long turns, each work-item asking query_kill
 *                    every 16 numbers and cutting its share short once a
 *                    group is wanted back (the paper's query)
 *   gather_barrier   the short turns with a resizing barrier at each
 *   periodic_*       the paper's multitasking: a kernel every 10 ms (its
 *                    work a tenth, a third or two thirds of the period on
 *                    every thread: light, medium, heavy) while the work
 *                    queue runs: the queue's slowdown over its time alone,
 *                    the periods whose kernel ended in time, and the same
 *                    for the queue without its points (which holds every
 *                    thread until it ends, so the periodic kernel waits)
 *
 * Every result is checked against the host (the queue's sum, every
 * relaxation value). On a GPU (WEFT_DEVICE=cuda) the overhead rows run
 * on as many groups as it has multiprocessors, the gather and periodic
 * rows' cooperative kernels on as many as fit (the whole GPU).
 *
 * CSV: row,value,unit (ratios: below 1, the cooperative form is faster).
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static const char *source =
    "uint collatz(uint n) {\n"
    "  uint steps = 0;\n"
    "  for (ulong x = n; x > 1; steps++) x = (x & 1) ? 3 * x + 1 : x / 2;\n"
    "  return steps;\n"
    "}\n"
    "/* One chunk of chunk numbers per turn, claimed from *next, until\n"
    " * chunks; the steps summed into *sum. Chunk c's numbers are those of\n"
    " * c % span: a long queue repeats a short one's work. */\n"
    "#define QUEUE_BODY(POINTS)                                              \\\n"
    "  __local int c;                                                        \\\n"
    "  for (;;) {                                                            \\\n"
    "    POINTS                                                              \\\n"
    "    if (get_local_id(0) == 0) c = atomic_fetch_add(next, 1);            \\\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);                                       \\\n"
    "    int mine = c;                                                       \\\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);                                       \\\n"
    "    if (mine >= chunks) break;                                          \\\n"
    "    uint steps = 0, base = (uint)(mine % span) * chunk + 1;             \\\n"
    "    for (uint i = get_local_id(0); i < chunk; i += get_local_size(0))   \\\n"
    "      steps += collatz(base + i);                                       \\\n"
    "    steps = work_group_reduce_add(steps);                               \\\n"
    "    if (get_local_id(0) == 0) atomic_fetch_add(sum, steps);             \\\n"
    "  }\n"
    "__kernel void queue_plain(__global atomic_int *next,\n"
    "                          __global atomic_uint *sum, int chunks,\n"
    "                          uint chunk, int span) {\n"
    "  QUEUE_BODY()\n"
    "}\n"
    "__kernel void queue_coop(__global atomic_int *next,\n"
    "                         __global atomic_uint *sum, int chunks,\n"
    "                         uint chunk, int span) {\n"
    "  QUEUE_BODY(offer_kill(); request_fork();)\n"
    "}\n"
    "/* steps levels of b[i] = (a[i-1] + a[i] + a[i+1]) / 3, ends held. */\n"
    "#define RELAX(a, b, n)                                                  \\\n"
    "  for (int i = (int)get_global_id(0); i < n; i += (int)get_global_size(0)) \\\n"
    "    b[i] = i == 0 || i == n - 1 ? a[i] : (a[i - 1] + a[i] + a[i + 1]) / 3;\n"
    "__kernel void levels_plain(__global float *a, __global float *b, int n,\n"
    "                           int steps) {\n"
    "  for (int s = 0; s < steps; s++) {\n"
    "    __global float *from = s & 1 ? b : a, *to = s & 1 ? a : b;\n"
    "    RELAX(from, to, n)\n"
    "    weft_global_barrier();\n"
    "  }\n"
    "}\n"
    "__kernel void levels_coop(__global float *a, __global float *b, int n,\n"
    "                          int steps) {\n"
    "  transmit int s = 0;\n"
    "  for (; s < steps; s++) {\n"
    "    __global float *from = s & 1 ? b : a, *to = s & 1 ? a : b;\n"
    "    RELAX(from, to, n)\n"
    "    resizing_global_barrier();\n"
    "  }\n"
    "}\n"
    "/* Turns of chunk numbers' work until sum[0] is set (by the stop\n"
    " * kernel), each turn with a point; sum[1] counts the steps. */\n"
    "/* With ask, a work-item stops its share early once the device wants\n"
    " * groups back (query_kill), for the group to reach its offer sooner. */\n"
    "uint turn_work(uint chunk, int ask) {\n"
    "  uint steps = 0, k = 0;\n"
    "  for (uint i = get_local_id(0); i < chunk; i += get_local_size(0)) {\n"
    "    if (ask && ++k % 16 == 0 && query_kill()) break;\n"
    "    steps += collatz(i + 1 + get_group_id(0));\n"
    "  }\n"
    "  return work_group_reduce_add(steps);\n"
    "}\n"
    "__kernel void persist_offer(__global atomic_uint *sum, uint chunk,\n"
    "                            int ask) {\n"
    "  __local int done;\n"
    "  for (;;) {\n"
    "    offer_kill();\n"
    "    request_fork();\n"
    "    uint steps = turn_work(chunk, ask);\n"
    "    if (get_local_id(0) == 0) {\n"
    "      atomic_fetch_add(&sum[1], steps);\n"
    "      done = atomic_load(&sum[0]);\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (done) break;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "}\n"
    "/* The same with a resizing barrier a turn. Every group must leave at\n"
    " * the same turn: group 0 sees the stop and names the turn after the\n"
    " * next barrier (sum[2]); the turn travels to new groups. */\n"
    "__kernel void persist_barrier(__global atomic_uint *sum, uint chunk) {\n"
    "  __local int done;\n"
    "  transmit uint turn = 1;\n"
    "  for (;; turn++) {\n"
    "    resizing_global_barrier();\n"
    "    if (get_local_id(0) == 0) {\n"
    "      uint end = atomic_load(&sum[2]);\n"
    "      done = end && turn >= end;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (done) break;\n"
    "    uint steps = turn_work(chunk, 0);\n"
    "    if (get_local_id(0) == 0) {\n"
    "      atomic_fetch_add(&sum[1], steps);\n"
    "      if (get_group_id(0) == 0 && atomic_load(&sum[0]) &&\n"
    "          !atomic_load(&sum[2]))\n"
    "        atomic_store(&sum[2], turn + 1);\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "}\n"
    "__kernel void ping(__global uint *out) { out[get_global_id(0)] = 1; }\n"
    "__kernel void stop(__global atomic_uint *sum) { atomic_store(&sum[0], 1); }\n"
    "/* The periodic kernel: Collatz steps of its work-items' numbers. */\n"
    "__kernel void periodic(__global atomic_uint *sum, uint numbers) {\n"
    "  uint steps = 0;\n"
    "  for (uint i = get_global_id(0); i < numbers; i += get_global_size(0))\n"
    "    steps += collatz(i + 1);\n"
    "  atomic_fetch_add(sum, steps);\n"
    "}\n";

enum { GROUP = 64 };

typedef struct bench {
  weft_context *ctx;
  weft_program *program;
  unsigned threads;
  /* Groups that fill the device: as many as threads on the CPU; on a GPU
   * more than fit, so that the pool takes every block it can (those
   * beside it then get blocks only from the pool). */
  size_t fill;
  /* The numbers a group claims at a time in the periodic rows' queue: a
   * GPU's pool runs thousands of groups, each a few hundred times slower
   * than alone, and offers once a claim (gives one group back an offer:
   * coop.cl). 4096 on the CPU (a claim about 0.3 ms on the 2-core EPYC),
   * 256 on a GPU (about 0.3 ms on an H200). */
  uint32_t turn;
  int quick;
} bench;

static weft_kernel *kernel(bench *b, const char *name) {
  weft_kernel *k;
  bench_weft_check(weft_kernel_create(b->program, name, &k), b->program,
                   "weft_kernel_create");
  return k;
}

static weft_buffer *buffer(bench *b, size_t bytes) {
  weft_buffer *buf;
  bench_weft_check(weft_buffer_create(b->ctx, bytes, WEFT_MEM_READ_WRITE, NULL,
                                      &buf), b->ctx, "weft_buffer_create");
  bench_weft_check(weft_buffer_fill(buf, &(uint8_t){0}, 1, 0, bytes), buf,
                   "weft_buffer_fill");
  return buf;
}

static void set_buffer(weft_kernel *k, unsigned i, weft_buffer *buf) {
  bench_weft_check(weft_kernel_set_arg_buffer(k, i, buf), k, "set_arg_buffer");
}

static void set_int(weft_kernel *k, unsigned i, uint32_t v) {
  bench_weft_check(weft_kernel_set_arg_value(k, i, &v, sizeof v), k,
                   "set_arg_value");
}

static void run(weft_kernel *k, size_t groups, size_t local) {
  size_t global = groups * local;
  bench_weft_check(weft_kernel_launch(k, 1, NULL, &global, &local), k,
                   "weft_kernel_launch");
}

static uint32_t read_u32(weft_buffer *buf, size_t index) {
  uint32_t v;
  bench_weft_check(weft_buffer_read(buf, index * 4, 4, &v), buf,
                   "weft_buffer_read");
  return v;
}

static uint32_t host_collatz(uint32_t n) {
  uint32_t steps = 0;
  for (uint64_t x = n; x > 1; steps++) x = (x & 1) ? 3 * x + 1 : x / 2;
  return steps;
}

/* ------------------------------------------------------------ the queue */

typedef struct queue {
  weft_kernel *k;
  weft_buffer *next, *sum;
  uint32_t chunk, want;
} queue;

/* A queue of chunks chunks of chunk numbers, repeating the numbers of its
 * first span (chunks a multiple of span). */
static void queue_make(bench *b, queue *q, const char *name, int chunks,
                       int span, uint32_t chunk) {
  if (chunks % span) bench_die("queue: %d chunks, span %d", chunks, span);
  q->k = kernel(b, name);
  q->next = buffer(b, 4);
  q->sum = buffer(b, 4);
  q->chunk = chunk;
  /* The host's sum over one span, once per span (the periodic rows run
   * many queues); the kernel's sum wraps as this one does. */
  static uint32_t known_numbers, known;
  uint32_t numbers = (uint32_t)span * chunk;
  if (known_numbers != numbers) {
    known = 0;
    for (uint32_t n = 1; n <= numbers; n++) known += host_collatz(n);
    known_numbers = numbers;
  }
  q->want = known * (uint32_t)(chunks / span);
  set_buffer(q->k, 0, q->next);
  set_buffer(q->k, 1, q->sum);
  set_int(q->k, 2, (uint32_t)chunks);
  set_int(q->k, 3, q->chunk);
  set_int(q->k, 4, (uint32_t)span);
}

/* One run of the queue on groups groups: its milliseconds, checked. */
static double queue_run(queue *q, size_t groups) {
  bench_weft_check(weft_buffer_fill(q->next, &(uint8_t){0}, 1, 0, 4), q->next,
                   "fill");
  bench_weft_check(weft_buffer_fill(q->sum, &(uint8_t){0}, 1, 0, 4), q->sum,
                   "fill");
  double t0 = bench_now_ms();
  run(q->k, groups, GROUP);
  double ms = bench_now_ms() - t0;
  uint32_t got = read_u32(q->sum, 0);
  if (got != q->want)
    bench_die("%s: sum %u, host %u", "queue", got, q->want);
  return ms;
}

static void queue_free(queue *q) {
  weft_kernel_release(q->k);
  weft_buffer_release(q->next);
  weft_buffer_release(q->sum);
}

/* The two forms alternated, reps times each; the medians' ratio. */
static void overhead_queue(bench *b) {
  int reps = b->quick ? 3 : 15, chunks = b->quick ? 64 : 512;
  queue plain, coop;
  queue_make(b, &plain, "queue_plain", chunks, chunks, 4096);
  queue_make(b, &coop, "queue_coop", chunks, chunks, 4096);
  double tp[16], tc[16];
  queue_run(&plain, b->threads);
  queue_run(&coop, b->threads);
  for (int r = 0; r < reps; r++) {
    tp[r] = queue_run(&plain, b->threads);
    tc[r] = queue_run(&coop, b->threads);
  }
  double mp = bench_median(tp, reps), mc = bench_median(tc, reps);
  bench_note("queue: plain %.2f ms, cooperative %.2f ms", mp, mc);
  bench_csv_line("overhead_queue,%.3f,ratio", mc / mp);
  queue_free(&plain);
  queue_free(&coop);
}

/* ------------------------------------------------------------ the levels */

static double levels_run(bench *b, weft_kernel *k, weft_buffer *a,
                         weft_buffer *c, const float *init, int n,
                         const float *want, int steps) {
  bench_weft_check(weft_buffer_write(a, 0, (size_t)n * 4, init), a, "write");
  bench_weft_check(weft_buffer_write(c, 0, (size_t)n * 4, init), c, "write");
  double t0 = bench_now_ms();
  run(k, b->threads, GROUP);
  double ms = bench_now_ms() - t0;
  float *got = bench_alloc((size_t)n * 4);
  /* After an even number of levels the result is back in a. */
  bench_weft_check(weft_buffer_read(steps & 1 ? c : a, 0, (size_t)n * 4, got),
                   a, "read");
  for (int i = 0; i < n; i++)
    if (fabsf(got[i] - want[i]) > 1e-4f * (1 + fabsf(want[i])))
      bench_die("levels: value %d is %g, host %g", i, got[i], want[i]);
  free(got);
  return ms;
}

static void overhead_levels(bench *b) {
  int n = b->quick ? 4096 : 65536, steps = b->quick ? 60 : 300;
  int reps = b->quick ? 3 : 11;
  float *init = bench_alloc((size_t)n * 4), *want = bench_alloc((size_t)n * 4),
        *tmp = bench_alloc((size_t)n * 4);
  for (int i = 0; i < n; i++) init[i] = want[i] = (float)((i * 7919) % 1000);
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++)
      tmp[i] = i == 0 || i == n - 1
                   ? want[i]
                   : (want[i - 1] + want[i] + want[i + 1]) / 3;
    memcpy(want, tmp, (size_t)n * 4);
  }
  weft_buffer *a = buffer(b, (size_t)n * 4), *c = buffer(b, (size_t)n * 4);
  weft_kernel *k[2] = {kernel(b, "levels_plain"), kernel(b, "levels_coop")};
  for (int i = 0; i < 2; i++) {
    set_buffer(k[i], 0, a);
    set_buffer(k[i], 1, c);
    set_int(k[i], 2, (uint32_t)n);
    set_int(k[i], 3, (uint32_t)steps);
  }
  double t[2][16];
  for (int i = 0; i < 2; i++) levels_run(b, k[i], a, c, init, n, want, steps);
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < 2; i++)
      t[i][r] = levels_run(b, k[i], a, c, init, n, want, steps);
  double mp = bench_median(t[0], reps), mc = bench_median(t[1], reps);
  bench_note("levels: global barrier %.2f ms, resizing barrier %.2f ms", mp, mc);
  bench_csv_line("overhead_levels,%.3f,ratio", mc / mp);
  for (int i = 0; i < 2; i++) weft_kernel_release(k[i]);
  weft_buffer_release(a);
  weft_buffer_release(c);
  free(init);
  free(want);
  free(tmp);
}

/* ---------------------------------------------------- a second launcher */

typedef struct background {
  bench *b;
  weft_kernel *k;
  size_t groups;
  double ms;
  int done;
} background;

static void *background_main(void *arg) {
  background *g = arg;
  double t0 = bench_now_ms();
  run(g->k, g->groups, GROUP);
  g->ms = bench_now_ms() - t0;
  __atomic_store_n(&g->done, 1, __ATOMIC_RELEASE);
  return NULL;
}

static void start(background *g, pthread_t *thread) {
  if (pthread_create(thread, NULL, background_main, g))
    bench_die("pthread_create failed");
}

static void sleep_ms(double ms) {
  struct timespec t = {(time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6)};
  nanosleep(&t, NULL);
}

/* ------------------------------------------------------------- gather */

static double ping_ms(weft_kernel *ping, size_t groups) {
  double t0 = bench_now_ms();
  run(ping, groups, 1);
  return bench_now_ms() - t0;
}

/* A persistent kernel (name) of turns of chunk numbers per group, which
 * asks query_kill within a turn with ask (persist_offer's), beside pings
 * of wide one-item groups from this thread: the ping's latency over its
 * latency alone. */
static void gather(bench *b, const char *name, const char *row,
                   uint32_t chunk, int ask, size_t wide) {
  int pings = b->quick ? 10 : 100;
  weft_buffer *sum = buffer(b, 12), *out = buffer(b, 4 * wide);
  weft_kernel *persist = kernel(b, name), *ping = kernel(b, "ping"),
              *stop = kernel(b, "stop");
  set_buffer(persist, 0, sum);
  set_int(persist, 1, chunk);
  if (!strcmp(name, "persist_offer")) set_int(persist, 2, (uint32_t)ask);
  set_buffer(ping, 0, out);
  set_buffer(stop, 0, sum);
  double alone[128], with[128];
  for (int i = 0; i < pings; i++) alone[i] = ping_ms(ping, wide);
  double solo = bench_median(alone, pings);
  background g = {b, persist, b->fill, 0, 0};
  pthread_t thread;
  start(&g, &thread);
  while (read_u32(sum, 1) == 0) sleep_ms(0.2); /* it runs */
  unsigned seed = 1;
  for (int i = 0; i < pings; i++) {
    sleep_ms(1 + rand_r(&seed) % 4);
    with[i] = ping_ms(ping, wide) - solo;
  }
  run(stop, 1, 1);
  pthread_join(thread, NULL);
  bench_note("%s: a ping alone %.3f ms; beside the kernel %.3f ms more "
             "(median)", row, solo, bench_median(with, pings));
  bench_csv_line("%s_p50,%.3f,ms", row, bench_median(with, pings));
  bench_csv_line("%s_p90,%.3f,ms", row, bench_percentile(with, pings, 90));
  bench_csv_line("%s_max,%.3f,ms", row, bench_percentile(with, pings, 100));
  weft_kernel_release(persist);
  weft_kernel_release(ping);
  weft_kernel_release(stop);
  weft_buffer_release(sum);
  weft_buffer_release(out);
}

/* ----------------------------------------------------------- periodic */

/* The periodic kernel's numbers for about ms of work on every thread. */
static uint32_t numbers_for(bench *b, weft_kernel *k, double ms) {
  uint32_t numbers = 1 << 14;
  for (;;) {
    set_int(k, 1, numbers);
    double t0 = bench_now_ms();
    run(k, b->threads, GROUP);
    double took = bench_now_ms() - t0;
    if (took >= ms / 2 || numbers >= 1u << 30)
      return (uint32_t)(numbers * (ms / (took > 1e-3 ? took : 1e-3)));
    numbers *= 2;
  }
}

/* What a queue beside the periodic kernel measured: the queue's time,
 * the periods met (the kernel ended before the next was due), and the
 * periodic kernel's median time. */
typedef struct beside {
  double queue_ms, met, kernel_ms;
} beside;

/* The periodic kernel's median time alone, over 5 runs. */
static double periodic_alone(bench *b, weft_kernel *periodic) {
  double t[5];
  for (int i = 0; i < 5; i++) {
    double t0 = bench_now_ms();
    run(periodic, b->threads, GROUP);
    t[i] = bench_now_ms() - t0;
  }
  return bench_median(t, 5);
}

/* The queue (name) run while a periodic kernel comes every period. */
static beside periodic_run(bench *b, const char *name, weft_kernel *periodic,
                           double period, int chunks, int span) {
  queue q;
  queue_make(b, &q, name, chunks, span, b->turn);
  bench_weft_check(weft_buffer_fill(q.next, &(uint8_t){0}, 1, 0, 4), q.next,
                   "fill");
  bench_weft_check(weft_buffer_fill(q.sum, &(uint8_t){0}, 1, 0, 4), q.sum,
                   "fill");
  background g = {b, q.k, b->fill, 0, 0};
  pthread_t thread;
  double t0 = bench_now_ms();
  start(&g, &thread);
  /* A period's kernel starts when it is due and meets its period if it
   * ends before the next is due; periods that went by while it ran are
   * missed, and the next kernel is the next one due (as frames are
   * dropped, not queued). */
  int periods = 0, kept = 0, runs = 0;
  double took[1024], due = t0 + period;
  while (!__atomic_load_n(&g.done, __ATOMIC_ACQUIRE)) {
    double now = bench_now_ms();
    if (due > now) sleep_ms(due - now);
    if (__atomic_load_n(&g.done, __ATOMIC_ACQUIRE)) break;
    double start = bench_now_ms();
    run(periodic, b->threads, GROUP);
    double end = bench_now_ms();
    if (runs < 1024) took[runs++] = end - start;
    periods++;
    kept += end <= due + period;
    for (due += period; due < end; due += period) periods++;
  }
  pthread_join(thread, NULL);
  if (read_u32(q.sum, 0) != q.want) bench_die("periodic: the queue's sum");
  queue_free(&q);
  return (beside){g.ms, periods ? (double)kept / periods : 1,
                  runs ? bench_median(took, runs) : 0};
}

static void periodic(bench *b) {
  static const struct { const char *name; double share; } loads[] = {
      {"light", 0.1}, {"medium", 1.0 / 3}, {"heavy", 2.0 / 3}};
  double period = 10;
  int span = b->quick ? 256 : 2048;
  weft_buffer *sum = buffer(b, 4);
  weft_kernel *k = kernel(b, "periodic");
  set_buffer(k, 0, sum);
  /* The queue alone runs for at least 30 periods (10 quick): a GPU runs
   * span chunks in a few ms, so they are repeated there. */
  double least = period * (b->quick ? 10 : 30), alone = 0;
  int chunks = span;
  for (;;) {
    queue alone_q;
    queue_make(b, &alone_q, "queue_coop", chunks, span, b->turn);
    alone = queue_run(&alone_q, b->fill);
    queue_free(&alone_q);
    if (alone >= least || chunks > (1 << 24)) break;
    chunks *= (int)ceil(1.2 * least / (alone > 0.1 ? alone : 0.1));
  }
  for (size_t i = 0; i < sizeof loads / sizeof *loads; i++) {
    uint32_t numbers = numbers_for(b, k, period * loads[i].share);
    set_int(k, 1, numbers);
    double kernel_alone = periodic_alone(b, k);
    beside coop = periodic_run(b, "queue_coop", k, period, chunks, span);
    beside plain = periodic_run(b, "queue_plain", k, period, chunks, span);
    bench_note("periodic %s: the queue alone %.1f ms, beside %.1f ms; "
               "periods met %.0f%% (plain queue: %.0f%%); the periodic "
               "kernel %.2f ms alone, %.2f beside (median)", loads[i].name,
               alone, coop.queue_ms, 100 * coop.met, 100 * plain.met,
               kernel_alone, coop.kernel_ms);
    bench_csv_line("periodic_%s_slowdown,%.3f,ratio", loads[i].name,
                   coop.queue_ms / alone);
    bench_csv_line("periodic_%s_met,%.3f,fraction", loads[i].name, coop.met);
    bench_csv_line("periodic_%s_met_plain,%.3f,fraction", loads[i].name,
                   plain.met);
    bench_csv_line("periodic_%s_kernel_slowdown,%.3f,ratio", loads[i].name,
                   coop.kernel_ms / kernel_alone);
  }
  weft_kernel_release(k);
  weft_buffer_release(sum);
}

int main(int argc, char **argv) {
  bench_options options;
  bench_parse_options(argc, argv, &options);
  bench b = {.quick = options.quick};
  b.ctx = bench_weft_context();
  weft_device *device;
  weft_device_info info;
  bench_weft_check(weft_device_get(0, &device), NULL, "weft_device_get");
  bench_weft_check(weft_device_info_get(device, &info), device, "info");
  b.threads = info.compute_units;
  bench_weft_check(weft_program_create(b.ctx, source, 0, &b.program), b.ctx,
                   "weft_program_create");
  if (weft_program_build(b.program, "-cl-std=CL3.0"))
    bench_die("build failed:\n%s", weft_program_build_log(b.program));
  bench_csv_open(options.csv_path, "row,value,unit", 1);
  b.fill = info.kind == WEFT_DEVICE_CPU ? b.threads : 65536;
  b.turn = info.kind == WEFT_DEVICE_CPU ? 4096 : 256;
  overhead_queue(&b);
  overhead_levels(&b);
  gather(&b, "persist_offer", "gather_offer", 2048, 0, 1);
  gather(&b, "persist_offer", "gather_offer_long", 65536, 0, 1);
  gather(&b, "persist_offer", "gather_offer_all", 65536, 0, b.threads);
  gather(&b, "persist_offer", "gather_offer_query", 65536, 1, 1);
  gather(&b, "persist_barrier", "gather_barrier", 2048, 0, 1);
  periodic(&b);
  bench_csv_close();
  weft_program_release(b.program);
  weft_context_release(b.ctx);
  return 0;
}
