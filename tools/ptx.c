/* ptx.c: `weft ptx FILE.cl SM [BUILD OPTIONS]`, the PTX that the CUDA
 * device would load for FILE, made without a GPU: to read what a kernel
 * becomes, or to feed ptxas. The PTX goes to stdout, the build log and
 * the build's time to stderr. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "tool.h"
#include "weft/weft.h"

int tool_ptx(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    tool_usage_error("ptx", "expected FILE.cl SM [\"BUILD OPTIONS\"]");
    return TOOL_EXIT_USAGE;
  }
  char *end = NULL;
  const char *sm_text = strncmp(argv[2], "sm_", 3) ? argv[2] : argv[2] + 3;
  unsigned long sm = strtoul(sm_text, &end, 10);
  if (!*sm_text || *end || sm < 70 || sm > 1000) {
    tool_usage_error("ptx", "'%s' is no compute capability of sm_70 or newer "
                            "(say 90 or sm_90)", argv[2]);
    return TOOL_EXIT_USAGE;
  }
  char *source = tool_read_file(argv[1]);
  if (!source) {
    tool_error("ptx", "cannot read %s: %s", argv[1], strerror(errno));
    return TOOL_EXIT_FAILED;
  }
  char *ptx = NULL, *log = NULL;
  double start = bench_seconds();
  int rc = weft_compile_ptx(source, 0, argc > 3 ? argv[3] : NULL,
                            (unsigned)sm, &ptx, &log);
  double ms = (bench_seconds() - start) * 1e3;
  if (log && *log) fputs(log, stderr);
  if (!rc) {
    fputs(ptx, stdout);
    fprintf(stderr, "weft ptx: built in %.1f ms\n", ms);
  } else {
    tool_error("ptx", "the build failed: %s", weft_strerror(rc));
  }
  free(ptx);
  free(log);
  free(source);
  return rc ? TOOL_EXIT_FAILED : TOOL_EXIT_OK;
}
