/* run_output.c: what `weft run` shows and saves after the launch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "run.h"
#include "tool.h"

/* "arg 2 float[1024] c: 0 2 4 6 ...": the first elements of a buffer. */
static void print_buffer(const run_state *run, int index, const void *data) {
  const arg_spec *spec = &run->opt->args[index];
  weft_arg_info info;
  char type[CLTYPE_NAME_MAX];
  cltype_name(spec->type, type, sizeof type);
  const char *name =
      weft_kernel_arg_info(run->kernel, index, &info) ? "?" : info.name;
  printf("arg %d %s[%zu] %s:", index, type, spec->count, name);
  size_t shown = spec->count < run->opt->print ? spec->count : run->opt->print;
  size_t size = cltype_size(spec->type);
  for (size_t i = 0; i < shown; i++) {
    putchar(' ');
    cltype_print(spec->type, (const unsigned char *)data + i * size, stdout);
  }
  printf("%s\n", shown < spec->count ? " ..." : "");
}

static int write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(data, 1, size, f) == size;
  if (f && fclose(f)) ok = 0;
  if (!ok) tool_error("run", "cannot write '%s': %s", path, strerror(errno));
  return ok ? 0 : -1;
}

/* Hands the buffer's contents to print_buffer, or to write_file when path
 * is not NULL. */
static int with_contents(const run_state *run, int index, const char *path) {
  weft_buffer *buffer = run->buffers[index];
  size_t size = run->opt->args[index].bytes;
  void *data;
  int rc = weft_buffer_map(buffer, 0, size, WEFT_MAP_READ, &data);
  if (rc) {
    tool_report("run", "mapping a buffer to read it", rc, buffer);
    return TOOL_EXIT_FAILED;
  }
  int failed = 0;
  if (path)
    failed = write_file(path, data, size);
  else
    print_buffer(run, index, data);
  rc = weft_buffer_unmap(buffer, data);
  if (rc) tool_report("run", "unmapping a buffer", rc, buffer);
  return failed || rc ? TOOL_EXIT_FAILED : 0;
}

int run_show_results(run_state *run) {
  const run_options *opt = run->opt;
  for (int i = 0; i < opt->num_args; i++) {
    if (!run->buffers[i]) continue;
    int rc = with_contents(run, i, NULL);
    if (rc) return rc;
  }
  for (int i = 0; i < opt->num_outputs; i++) {
    int rc = with_contents(run, opt->outputs[i].index, opt->outputs[i].path);
    if (rc) return rc;
  }
  return fflush(stdout) ? TOOL_EXIT_FAILED : 0;
}
