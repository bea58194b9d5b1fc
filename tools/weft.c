/* weft.c: the `weft` command line: picks the subcommand and prints help. */
#include <stdio.h>
#include <string.h>

#include "tool.h"

static const char usage[] =
    "Usage: weft COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  info                 list the devices and their limits\n"
    "  run FILE.cl OPTIONS  build an OpenCL C file and run one kernel once\n"
    "  ptx FILE.cl SM [OPTIONS]  the PTX Weft makes of FILE for an NVIDIA GPU\n"
    "                       of compute capability SM (90: sm_90); no GPU needed\n"
    "  bench sync           operations/s of the inter-work-group primitives\n"
    "                       against work-groups, beside pthreads\n"
    "  bench probe          the memory-system probes, the machine's class and\n"
    "                       the default primitives (weft bench probe --help)\n"
    "  help                 print this help\n"
    "\n"
    "weft run FILE.cl --global X[,Y[,Z]] [OPTIONS] --arg SPEC ...\n"
    "  --kernel NAME          the kernel to run (needed if FILE has several)\n"
    "  --global X[,Y[,Z]]     the global size; its length sets the dimensions\n"
    "  --local X[,Y[,Z]]      the work-group size (default: Weft picks one)\n"
    "  --offset X[,Y[,Z]]     the global offset (default: zero)\n"
    "  --options \"OPTIONS\"    build options, e.g. \"-cl-std=CL3.0 -DN=4\"\n"
    "  --device DEVICE        the device to run on: an index (default 0: the\n"
    "                         CPU, or the GPU WEFT_DEVICE puts first), cpu,\n"
    "                         cuda (the first GPU) or cuda:N\n"
    "  --print N|all          buffer elements printed after the run "
    "(default 16)\n"
    "  --out INDEX=PATH       write buffer argument INDEX's bytes to PATH\n"
    "  --time                 print the build and run wall times\n"
    "  --arg SPEC             the next kernel argument, one per argument\n"
    "  --expect 'ARG[I]OPV'   after the run, element I of buffer argument ARG\n"
    "                         (its index or name) must compare so with V (OP:\n"
    "                         == != <= >= < >); else exit 1. May be repeated\n"
    "  --seeds A..B           one run per schedule seed A to B (WEFT_SCHEDULE's\n"
    "                         mode, random-deep if unset), on fresh buffers,\n"
    "                         until one breaks an --expect or fails: that seed\n"
    "                         is printed with the command that replays it\n"
    "  --shard I/N            with --seeds: only seeds A+I, A+I+N, ... (I from\n"
    "                         0), to spread a sweep over N jobs\n"
    "  --explore              one run per interleaving of an exhaustive\n"
    "                         exploration (WEFT_SCHEDULE=exhaustive...), until\n"
    "                         one breaks an --expect or fails, or all pass\n"
    "\n"
    "Argument specs (TYPE: char uchar short ushort int uint long ulong float\n"
    "double, or a vector of 2, 3, 4, 8 or 16 of them, e.g. float4):\n"
    "  TYPE=V[,V...]          a value; a vector takes one V per component\n"
    "  TYPE[N]                a buffer of N elements, zero-filled\n"
    "  TYPE[N]=undefined      zero-filled, but its contents undefined, as\n"
    "                         OpenCL's without host data: check mode reports\n"
    "                         reads of elements no kernel wrote\n"
    "  TYPE[N]=iota           element i holds i (component c of a vector:\n"
    "                         i*width+c)\n"
    "  TYPE[N]=random[:SEED]  pseudo-random: floats in [0,1), 8-bit integers\n"
    "                         in 0..255, other integers in 0..65535; the seed\n"
    "                         defaults to the argument's index\n"
    "  TYPE[N]=fill:V[,V...]  every element V (a vector: one V or one each)\n"
    "  TYPE[N]=file:PATH      the raw bytes of PATH, exactly N*sizeof(TYPE)\n"
    "  local[BYTES]           __local memory of BYTES bytes\n"
    "  'local TYPE[N]'        __local memory for N elements of TYPE\n"
    "A vector of 3 occupies the storage of 4 components, as cl_float3 does.\n"
    "\n"
    "Exit status: 0 success, 1 the build, the run or a file failed,\n"
    "2 the command line is wrong.\n"
    "Environment: WEFT_DEVICE (cpu|cuda|cuda:N: the first device),\n"
    "WEFT_NUM_THREADS, WEFT_FIBER (asm|ucontext), WEFT_STACK_SIZE,\n"
    "WEFT_DUMP_IR, WEFT_CACHE_DIR, WEFT_LIBDEVICE;\n"
    "WEFT_CHECK=all (check mode: every access checked against its object,\n"
    "reads of memory never written, reported with the work-item and line;\n"
    "also --options -cl-weft-check=all), WEFT_TIMEOUT=SECONDS (end a launch that runs\n"
    "longer, naming where its work-items are; 120 in check mode),\n"
    "WEFT_BUILD_TIMEOUT=SECONDS (a build that takes longer fails),\n"
    "WEFT_BUILD_MEMORY=SIZE (builds run in a helper process, stopped past\n"
    "this much memory or the build time limit),\n"
    "WEFT_SCHEDULE=random:SEED|random-deep:SEED|pct:SEED[:DEPTH]|\n"
    "exhaustive[:BUDGET[:PREEMPTIONS[:full]]]|replay:CHOICES (schedule\n"
    "exploration: groups and work-items interleaved by the seed, on one\n"
    "thread), WEFT_MEMORY=weak (plain global stores wait in a store buffer\n"
    "per work-group until a release makes them visible),\n"
    "WEFT_PERF=map (/tmp/perf-PID.map: perf report names kernels).\n";

static int is_help(const char *arg) {
  return !strcmp(arg, "--help") || !strcmp(arg, "-h") || !strcmp(arg, "help");
}

void tool_print_usage(FILE *out) { fputs(usage, out); }

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("Usage: weft COMMAND [ARGS]\nTry 'weft --help'.\n", stderr);
    return TOOL_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (is_help(cmd)) {
    fputs(usage, stdout);
    return TOOL_EXIT_OK;
  }
  if (!strcmp(cmd, "info")) return tool_info(argc - 1, argv + 1);
  if (!strcmp(cmd, "run")) return tool_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "bench")) return tool_bench(argc - 1, argv + 1);
  if (!strcmp(cmd, "ptx")) return tool_ptx(argc - 1, argv + 1);
  fprintf(stderr, "weft: unknown command '%s'\nTry 'weft --help'.\n", cmd);
  return TOOL_EXIT_USAGE;
}
