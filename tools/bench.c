/* bench.c: `weft bench`, which picks the benchmark. */
#include <stdio.h>
#include <string.h>

#include "tool.h"

static const char usage[] =
    "Usage: weft bench sync|probe [OPTIONS]   (weft bench sync --help)\n";

int tool_bench(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return TOOL_EXIT_USAGE;
  }
  if (!strcmp(argv[1], "sync")) return tool_bench_sync(argc - 1, argv + 1);
  if (!strcmp(argv[1], "probe")) return tool_bench_probe(argc - 1, argv + 1);
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    fputs(usage, stdout);
    return TOOL_EXIT_OK;
  }
  tool_usage_error("bench", "unknown benchmark '%s'", argv[1]);
  return TOOL_EXIT_USAGE;
}
