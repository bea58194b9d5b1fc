/* help.c: the help of `weft` and of each of its commands (weft --help,
 * weft help COMMAND, weft COMMAND --help), and its version. The
 * environment list is the library's own table (weft_environment_variable),
 * the one the tests hold the code, the man page and the README to. */
#include <stdio.h>
#include <string.h>

#include "tool.h"
#include "weft/weft.h"

static const char commands[] =
    "Usage: weft COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  info                 list the devices and their limits, and Weft's\n"
    "                       version\n"
    "  run FILE.cl OPTIONS  build an OpenCL C file and run one kernel once\n"
    "  ptx FILE.cl SM [OPTIONS]  the PTX Weft makes of FILE for an NVIDIA GPU\n"
    "                       of compute capability SM (90: sm_90); no GPU needed\n"
    "  bench sync           operations/s of the inter-work-group primitives\n"
    "                       against work-groups, beside pthreads\n"
    "  bench probe          the memory-system probes, the machine's class and\n"
    "                       the default primitives\n"
    "  help [COMMAND]       this help, or a command's (also weft COMMAND\n"
    "                       --help)\n"
    "  --version            Weft's version, source revision and LLVM\n"
    "\n";

static const char run_help[] =
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
    "\n";

static const char info_help[] =
    "weft info\n"
    "  Lists Weft's version and every device (the CPU, then each CUDA GPU\n"
    "  the driver offers, or why none): its limits, memory, image support,\n"
    "  extensions and, for the CPU, the work-group residency and the\n"
    "  machine's class. Takes no options.\n";

static const char ptx_help[] =
    "weft ptx FILE.cl SM [\"BUILD OPTIONS\"]\n"
    "  Prints the PTX the CUDA device would load for FILE.cl on a GPU of\n"
    "  compute capability SM (70 or newer: 90 or sm_90), made without a\n"
    "  GPU: to read what a kernel becomes, or to feed ptxas. The build log\n"
    "  and its time go to stderr.\n";

static const char bench_help[] =
    "weft bench sync|probe [OPTIONS]\n"
    "  sync   operations/s of the inter-work-group mutexes, semaphores and\n"
    "         barriers against the number of work-groups, beside pthreads\n"
    "         (weft bench sync --help)\n"
    "  probe  the memory-system probes, the machine's class and the\n"
    "         primitives it makes the defaults (weft bench probe --help)\n";

static const char exit_status[] =
    "Exit status: 0 success, 1 the build, the run or a file failed,\n"
    "2 the command line is wrong.\n";

/* The variables as "  NAME=VALUES\n      MEANING\n". */
static void print_environment(FILE *out) {
  fputs("Environment (read once, when Weft starts; see man weft):\n", out);
  const char *values, *meaning;
  for (unsigned i = 0;; i++) {
    const char *name = weft_environment_variable(i, &values, &meaning);
    if (!name) break;
    fprintf(out, "  %s=%s\n      %s\n", name, values, meaning);
  }
}

void tool_print_usage(FILE *out) {
  fputs(commands, out);
  fputs(run_help, out);
  fputs("\n", out);
  fputs(exit_status, out);
  print_environment(out);
}

int tool_print_help(const char *command, FILE *out) {
  static const struct {
    const char *name, *text;
  } helps[] = {{"run", run_help},
               {"info", info_help},
               {"ptx", ptx_help},
               {"bench", bench_help}};
  for (size_t i = 0; i < sizeof helps / sizeof *helps; i++)
    if (!strcmp(command, helps[i].name)) {
      fputs(helps[i].text, out);
      fputs("\n", out);
      fputs(exit_status, out);
      return 0;
    }
  if (!strcmp(command, "help")) {
    tool_print_usage(out);
    return 0;
  }
  return -1;
}

void tool_print_version(FILE *out) {
  fprintf(out, "weft %s\n", weft_version());
}
