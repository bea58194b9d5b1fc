/* weft.c: the `weft` command line: picks the subcommand and prints help. */
#include <stdio.h>
#include <string.h>

#include "tool.h"

static int is_help(const char *arg) {
  return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

/* weft help [COMMAND] */
static int help(int argc, char **argv) {
  if (argc < 2) {
    tool_print_usage(stdout);
    return TOOL_EXIT_OK;
  }
  if (argc == 2 && !tool_print_help(argv[1], stdout)) return TOOL_EXIT_OK;
  fprintf(stderr, "weft help: no command named '%s' (commands: info, run, "
                  "ptx, bench, help)\nTry 'weft --help'.\n", argv[1]);
  return TOOL_EXIT_USAGE;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("Usage: weft COMMAND [ARGS]\nTry 'weft --help'.\n", stderr);
    return TOOL_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (is_help(cmd)) {
    tool_print_usage(stdout);
    return TOOL_EXIT_OK;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") ||
      !strcmp(cmd, "version")) {
    tool_print_version(stdout);
    return TOOL_EXIT_OK;
  }
  if (!strcmp(cmd, "help")) return help(argc - 1, argv + 1);
  /* Every command answers --help alike; bench's benchmarks their own. */
  if (argc == 3 && is_help(argv[2]) && !tool_print_help(cmd, stdout))
    return TOOL_EXIT_OK;
  if (!strcmp(cmd, "info")) return tool_info(argc - 1, argv + 1);
  if (!strcmp(cmd, "run")) return tool_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "bench")) return tool_bench(argc - 1, argv + 1);
  if (!strcmp(cmd, "ptx")) return tool_ptx(argc - 1, argv + 1);
  fprintf(stderr, "weft: unknown command '%s'\nTry 'weft --help'.\n", cmd);
  return TOOL_EXIT_USAGE;
}
