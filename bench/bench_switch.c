/*
 * bench_switch.c: what one work-item switch at a barrier costs, in ns.
 *
 * kernel_barrier_ns: one work-group of 256 work-items calls barrier() N
 * times in a loop, on one worker thread. Each barrier passes control along
 * the whole group (item k to k + 1, the last back to 0): 256 switches per
 * barrier, so a switch costs time / (256 * N). This includes the runtime's
 * barrier bookkeeping and the kernel's loop, as a user sees it.
 *
 * raw_swap_ns: two fibers ping-ponging through the switch alone (the
 * internal weft_fiber_ops, compiled into this program), per switch.
 *
 * regions: the same kernel as Weft runs it by default, cut at the barrier
 * into regions that loop over the work-items (no switch at all); its
 * kernel figure is the cost per work-item and barrier.
 *
 * Weft reads WEFT_BARRIER and WEFT_FIBER once per process, so the kernel
 * figures come from children: this program runs itself again with
 * WEFT_BARRIER, WEFT_FIBER and WEFT_NUM_THREADS=1 set, and the child prints
 * one number
 * (the median of its launches, after a warm-up one). The switches take
 * turns, child after child, and each row is the median over the turns.
 *
 * PoCL does not switch: it turns the code between barriers into loops over
 * the work-items. Its row gives the same kernel's time per work-item and
 * barrier, launch included (so an upper bound), for comparison; it has no
 * raw switch.
 *
 * CSV on stdout: switch,kernel_barrier_ns,raw_swap_ns.
 */
#include <errno.h> /* program_invocation_name */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend/cpu/fiber.h"
#include "common.h"

static const char *source =
    "__kernel void barriers(__global uint *out, uint n) {\n"
    "  uint lid = get_local_id(0), sum = 0;\n"
    "  for (uint i = 0; i < n; i++) {\n"
    "    sum += i ^ lid;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[lid] = sum;\n"
    "}\n";

enum { ITEMS = 256 };

enum { MAX_TURNS = 5 };

/* Many short runs rather than a few long ones: on a shared virtual machine
 * a run of tens of milliseconds is often interrupted for a large part of
 * it, and the median of short runs sees through that. */
typedef struct plan {
  unsigned barriers;  /* N: barriers per work-item per launch */
  int reps;           /* timed launches per child */
  int turns;          /* turns of each switch (at most MAX_TURNS) */
  int raw_reps;       /* timed ping-pong runs per turn */
  long asm_rounds;    /* ping-pong rounds per run, asm switch (~4 ms) */
  long ucontext_rounds; /* the same for swapcontext (~8 ms) */
} plan;

static const plan full_plan = {1000, 11, 5, 21, 200000, 20000};
static const plan quick_plan = {200, 3, 1, 5, 20000, 2000};

/* ------------------------------------------------------ the barrier kernel */

/* Whether out holds what the kernel computes for n barriers. */
static int barriers_ok(const char *who, const cl_uint *out, unsigned n) {
  for (cl_uint lid = 0; lid < ITEMS; lid++) {
    cl_uint want = 0;
    for (cl_uint i = 0; i < n; i++) want += i ^ lid;
    if (out[lid] != want) {
      bench_note("%s: work-item %u computed %u, the host says %u", who, lid,
                 out[lid], want);
      return 0;
    }
  }
  return 1;
}

static double ns_per_switch(double ms, unsigned barriers) {
  return ms * 1e6 / ((double)ITEMS * barriers);
}

/* Makes sure the environment set by the parent took effect: otherwise the
 * figure would belong to another switch. */
static void check_device(weft_context *ctx, const char *fiber) {
  weft_device_info info;
  weft_device *device = weft_context_device(ctx);
  WEFT_CHECK(weft_device_info_get(device, &info), device);
  if (strcmp(info.fiber, fiber) || info.compute_units != 1)
    bench_die("the device runs the %s switch on %u threads, not %s on 1",
              info.fiber, info.compute_units, fiber);
}

/* The child: times the kernel on Weft and prints ns per switch. */
static int child_main(const char *fiber, unsigned barriers, int reps) {
  weft_context *ctx = bench_weft_context();
  check_device(ctx, fiber);
  weft_kernel *k = bench_weft_kernel(ctx, source, "", "barriers");
  weft_buffer *out;
  WEFT_CHECK(weft_buffer_create(ctx, ITEMS * sizeof(cl_uint), 0, NULL, &out),
             ctx);
  WEFT_CHECK(weft_kernel_set_arg_buffer(k, 0, out), k);
  WEFT_CHECK(weft_kernel_set_arg_value(k, 1, &barriers, sizeof barriers), k);
  size_t global = ITEMS, local = ITEMS;
  double *ms = malloc((size_t)(reps + 1) * sizeof *ms);
  if (!ms) bench_die("out of memory");
  /* Run 0 is the warm-up: it maps the work-items' stacks. */
  for (int r = 0; r <= reps; r++) {
    double start = bench_now_ms();
    WEFT_CHECK(weft_kernel_launch(k, 1, NULL, &global, &local), k);
    ms[r] = bench_now_ms() - start;
  }
  cl_uint result[ITEMS];
  WEFT_CHECK(weft_buffer_read(out, 0, sizeof result, result), out);
  if (!barriers_ok(fiber, result, barriers)) return 1;
  printf("%.4f\n", ns_per_switch(bench_median(ms + 1, reps), barriers));
  free(ms);
  weft_buffer_release(out);
  weft_kernel_release(k);
  weft_context_release(ctx);
  return 0;
}

/* Runs "self --child fiber barriers reps" with the environment it needs
 * and returns the number it prints, or -1 if it fails. */
static double run_child(const char *fiber, const char *barrier,
                        const plan *p) {
  char barriers[16], reps[16], fiber_var[32], barrier_var[32];
  snprintf(barriers, sizeof barriers, "%u", p->barriers);
  snprintf(reps, sizeof reps, "%d", p->reps);
  snprintf(fiber_var, sizeof fiber_var, "WEFT_FIBER=%s", fiber);
  snprintf(barrier_var, sizeof barrier_var, "WEFT_BARRIER=%s", barrier);
  char *args[] = {program_invocation_name, "--child", (char *)fiber,
                  barriers, reps, NULL};
  char *env[] = {fiber_var, barrier_var, "WEFT_NUM_THREADS=1", NULL};
  char text[64];
  if (bench_run_self(args, env, text, sizeof text)) return -1;
  char *end;
  double ns = strtod(text, &end);
  return end == text ? -1 : ns;
}

/* The kernel on PoCL: its time per work-item and barrier, in ns. */
static double pocl_barrier_ns(const plan *p) {
  bench_cl pocl;
  bench_pocl_open(&pocl);
  cl_kernel k = bench_cl_kernel(&pocl, source, "", "barriers");
  cl_mem out = bench_cl_buffer(&pocl, ITEMS * sizeof(cl_uint),
                                 CL_MEM_WRITE_ONLY, NULL);
  cl_uint barriers = p->barriers;
  CL_CHECK(clSetKernelArg(k, 0, sizeof out, &out));
  CL_CHECK(clSetKernelArg(k, 1, sizeof barriers, &barriers));
  size_t global = ITEMS, local = ITEMS;
  double *ms = malloc((size_t)(p->reps + 1) * sizeof *ms);
  if (!ms) bench_die("out of memory");
  /* Run 0 is the warm-up: PoCL generates the code at the first launch. */
  for (int r = 0; r <= p->reps; r++) {
    double start = bench_now_ms();
    CL_CHECK(clEnqueueNDRangeKernel(pocl.queue, k, 1, NULL, &global, &local,
                                    0, NULL, NULL));
    CL_CHECK(clFinish(pocl.queue));
    ms[r] = bench_now_ms() - start;
  }
  cl_uint result[ITEMS];
  CL_CHECK(clEnqueueReadBuffer(pocl.queue, out, CL_TRUE, 0, sizeof result,
                               result, 0, NULL, NULL));
  double ns = barriers_ok("pocl", result, p->barriers)
                  ? ns_per_switch(bench_median(ms + 1, p->reps), p->barriers)
                  : -1;
  free(ms);
  clReleaseMemObject(out);
  clReleaseKernel(k);
  bench_cl_close(&pocl);
  return ns;
}

/* ------------------------------------------------------- the raw switch */

enum { RAW_STACK = 64 * 1024 };

static const weft_fiber_ops *ops;
static weft_fiber main_fiber, partner;
static volatile long partner_visits;

/* The partner only hands control back; it counts its turns so that the
 * benchmark can tell the switches really happened. */
static void partner_main(void *arg) {
  (void)arg;
  for (;;) {
    partner_visits++;
    ops->swap(&partner, &main_fiber);
  }
}

static double ping_pong_ms(long rounds) {
  double start = bench_now_ms();
  for (long i = 0; i < rounds; i++) ops->swap(&main_fiber, &partner);
  return bench_now_ms() - start;
}

/* ns per switch of the raw switch of that kind, or -1 when it is not
 * there (no asm switch on this CPU) or misbehaves. */
static double raw_swap_ns(weft_fiber_kind kind, const char *name, long rounds,
                          int reps) {
  ops = weft__fiber_ops(kind);
  if (strcmp(ops->name, name)) return -1;
  void *stack = mmap(NULL, RAW_STACK, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (stack == MAP_FAILED) bench_die("cannot map a fiber stack");
  memset(&main_fiber, 0, sizeof main_fiber);
  memset(&partner, 0, sizeof partner);
  if (ops->init(&main_fiber) || ops->init(&partner)) bench_die("out of memory");
  ops->make(&partner, stack, RAW_STACK, partner_main, NULL);
  partner_visits = 0;
  double *ns = malloc((size_t)reps * sizeof *ns);
  if (!ns) bench_die("out of memory");
  ping_pong_ms(rounds / 10); /* warm-up */
  for (int r = 0; r < reps; r++)
    ns[r] = ping_pong_ms(rounds) * 1e6 / (2.0 * (double)rounds);
  double median = bench_median(ns, reps);
  long want = rounds / 10 + (long)reps * rounds;
  if (partner_visits != want) {
    bench_note("%s: the partner fiber ran %ld times, not %ld", name,
               (long)partner_visits, want);
    median = -1;
  }
  free(ns);
  ops->fini(&partner);
  ops->fini(&main_fiber);
  munmap(stack, RAW_STACK);
  return median;
}

/* -------------------------------------------------------------- main */

/* The two switches, measured in turns (asm, ucontext, asm, ...) so that a
 * slow spell of the machine falls on both; each figure is the median of
 * the turns' medians. */
typedef struct fiber_case {
  const char *name;
  weft_fiber_kind kind;
  long raw_rounds;
  double kernel_ns[MAX_TURNS];
  double raw_ns[MAX_TURNS];
  int failed;
} fiber_case;

static void measure_turn(fiber_case *c, const plan *p, int turn) {
  if (c->failed) return;
  double kernel_ns = run_child(c->name, "fibers", p);
  double raw_ns = raw_swap_ns(c->kind, c->name, c->raw_rounds, p->raw_reps);
  if (kernel_ns < 0 || raw_ns < 0) c->failed = 1;
  c->kernel_ns[turn] = kernel_ns;
  c->raw_ns[turn] = raw_ns;
}

static int report_case(const fiber_case *c, const plan *p) {
  if (c->failed) {
    bench_note("%s: the measurement failed, no figures reported", c->name);
    return 1;
  }
  bench_csv_line("%s,%.2f,%.2f", c->name, bench_median(c->kernel_ns, p->turns),
                 bench_median(c->raw_ns, p->turns));
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "--child"))
    return child_main(argv[2], (unsigned)strtoul(argv[3], NULL, 10),
                      atoi(argv[4]));
  bench_options options;
  bench_parse_options(argc, argv, &options);
  const plan *p = options.quick ? &quick_plan : &full_plan;
  fiber_case cases[] = {
      {"asm", WEFT_FIBER_ASM, p->asm_rounds, {0}, {0}, 0},
      {"ucontext", WEFT_FIBER_UCONTEXT, p->ucontext_rounds, {0}, {0}, 0}};
  enum { NUM_CASES = sizeof cases / sizeof *cases };
  int present[NUM_CASES];
  for (int c = 0; c < NUM_CASES; c++) {
    present[c] = !strcmp(weft__fiber_ops(cases[c].kind)->name, cases[c].name);
    if (!present[c])
      bench_note("%s: this CPU has no such switch; skipped", cases[c].name);
  }
  bench_note("%d turns of: %u barriers of %d work-items in a child, and the "
             "raw switch", p->turns, p->barriers, ITEMS);
  double regions_ns[MAX_TURNS];
  int regions_failed = 0;
  for (int turn = 0; turn < p->turns; turn++) {
    for (int c = 0; c < NUM_CASES; c++)
      if (present[c]) measure_turn(&cases[c], p, turn);
    regions_ns[turn] = run_child("asm", "regions", p);
    regions_failed |= regions_ns[turn] < 0;
  }
  bench_note("pocl: %u barriers of %d work-items", p->barriers, ITEMS);
  double pocl_ns = pocl_barrier_ns(p);

  bench_csv_open(options.csv_path, "switch,kernel_barrier_ns,raw_swap_ns",
                 1);
  int failed = 0;
  for (int c = 0; c < NUM_CASES; c++)
    if (present[c]) failed += report_case(&cases[c], p);
  if (regions_failed)
    failed++;
  else
    bench_csv_line("regions,%.2f,", bench_median(regions_ns, p->turns));
  if (pocl_ns < 0)
    failed++;
  else
    bench_csv_line("pocl,%.2f,", pocl_ns);
  bench_csv_close();
  return failed ? 1 : 0;
}
