/* support.c: test shortcuts (see support.h). */
#include "support.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void support_check_device_goes_on(weft_context *ctx, weft_buffer *b, size_t n,
                                  size_t local, int value) {
  char source[128];
  snprintf(source, sizeof source,
           "__kernel void k(__global int *a) { a[get_global_id(0)] = %d; }\n",
           value);
  weft_kernel *k = support_kernel(ctx, source, "k");
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &n, &local), k);
  int *got = malloc(n * sizeof *got);
  CHECK(got);
  CHECK_OK(weft_buffer_read(b, 0, n * sizeof *got, got), b);
  for (size_t i = 0; i < n; i++) CHECK_EQ(got[i], value);
  free(got);
  weft_kernel_release(k);
}

void support_check_fault(const char *source, size_t local, const char *how,
                         const char *where) {
  weft_context *ctx = support_context();
  weft_kernel *k = support_kernel(ctx, source, "k");
  weft_buffer *b = support_buffer(ctx, 64 * 4, NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 64;
  support_stderr_begin();
  int rc = weft_kernel_launch(k, 1, NULL, &global, &local);
  CHECK_STR_CONTAINS(support_stderr_end(), how);
  CHECK_FAILS(rc, WEFT_EKERNELFAULT, k, "kernel 'k'");
  CHECK_STR_CONTAINS(weft_errmsg(k), "segmentation fault");
  CHECK_STR_CONTAINS(weft_errmsg(k), where);
  support_check_device_goes_on(ctx, b, global, local, 9);
  weft_buffer_release(b);
  weft_kernel_release(k);
  weft_context_release(ctx);
}

char *support_nested_loops(int depth) {
  char *source = malloc((size_t)depth * 64 + 256), *at = source;
  CHECK(source != NULL);
  at += sprintf(at, "__kernel void k(__global int *o, int n) {\n  int s = 0;\n");
  for (int i = 0; i < depth; i++)
    at += sprintf(at, "  for (int i%d = 0; i%d < n; i%d++)\n", i, i, i);
  sprintf(at, "    s += i%d;\n  o[0] = s;\n}\n", depth - 1);
  return source;
}

unsigned support_random_next(unsigned *state) {
  *state = *state * 1103515245u + 12345u;
  return (*state >> 16) & 0x7fff;
}

char *support_random_kernel(const char *head, support_statement statement,
                            unsigned lines, const char *tail, unsigned seed) {
  size_t size = 8192, used = 0;
  char *source = malloc(size);
  CHECK(source);
  unsigned a = support_random_next(&seed) % 1000 + 1,
           b = support_random_next(&seed) % 1000;
  used += (size_t)snprintf(source + used, size - used, head, a, b);
  for (unsigned n = 0, m = 2 + support_random_next(&seed) % lines; n < m; n++) {
    char line[256];
    statement(line, sizeof line, &seed);
    used += (size_t)snprintf(source + used, size - used, "    %s", line);
    CHECK(used < size);
  }
  snprintf(source + used, size - used, "%s", tail);
  return source;
}

static int captured = -1, saved_stderr = -1;

void support_stderr_begin(void) {
  char path[] = "/tmp/weft-test-stderr-XXXXXX";
  captured = mkstemp(path);
  CHECK(captured >= 0);
  unlink(path);
  fflush(stderr);
  saved_stderr = dup(2);
  CHECK(saved_stderr >= 0 && dup2(captured, 2) == 2);
}

const char *support_stderr_end(void) {
  static char text[4096];
  fflush(stderr);
  CHECK(dup2(saved_stderr, 2) == 2);
  close(saved_stderr);
  ssize_t n = pread(captured, text, sizeof text - 1, 0);
  text[n > 0 ? n : 0] = 0;
  close(captured);
  captured = saved_stderr = -1;
  return text;
}

weft_device_info support_device_info(void) {
  weft_device *device;
  weft_device_info info;
  CHECK_OK(weft_device_get(0, &device), NULL);
  CHECK_OK(weft_device_info_get(device, &info), device);
  return info;
}

weft_context *support_context(void) {
  weft_device *dev;
  weft_context *ctx;
  int rc = weft_device_get(0, &dev);
  if (rc) FAIL("no CPU device: %s", weft_strerror(rc));
  CHECK_OK(weft_context_create(dev, &ctx), dev);
  return ctx;
}

weft_program *support_build(weft_context *ctx, const char *source,
                            const char *options) {
  weft_program *p;
  CHECK_OK(weft_program_create(ctx, source, 0, &p), ctx);
  int rc = weft_program_build(p, options);
  if (rc)
    FAIL("build failed: %s\n%s", weft_strerror(rc), weft_program_build_log(p));
  return p;
}

weft_kernel *support_kernel(weft_context *ctx, const char *source,
                            const char *name) {
  weft_program *p = support_build(ctx, source, NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, name, &k), p);
  weft_program_release(p); /* the kernel keeps it alive */
  return k;
}

weft_buffer *support_buffer(weft_context *ctx, size_t size, const void *init) {
  weft_buffer *b;
  CHECK_OK(weft_buffer_create(ctx, size, init ? WEFT_MEM_COPY_HOST_PTR : 0,
                              (void *)init, &b),
           ctx);
  return b;
}

weft_buffer *support_ints(weft_context *ctx, size_t n, int fill) {
  int *v = malloc(n * sizeof *v);
  if (!v) FAIL("out of memory");
  for (size_t i = 0; i < n; i++) v[i] = fill;
  weft_buffer *b = support_buffer(ctx, n * sizeof *v, v);
  free(v);
  return b;
}

void support_read_ints(weft_buffer *b, int *out, size_t n) {
  CHECK_OK(weft_buffer_read(b, 0, n * sizeof *out, out), b);
}

long support_peak_rss_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmHWM:", 6)) kib = strtol(line + 6, NULL, 10);
  if (f) fclose(f);
  return kib;
}

static int remove_entry(const char *path, const struct stat *st, int type,
                        struct FTW *ftw) {
  (void)st, (void)type, (void)ftw;
  return remove(path);
}

void support_remove_tree(const char *dir) {
  /* FTW_DEPTH visits a folder after its files, so it is empty by then. */
  nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

int support_dumped_ir_lines(const char *dir, int n, const char *text) {
  char path[512], line[4096];
  snprintf(path, sizeof path, "%s/program-%d.ll", dir, n);
  FILE *f = fopen(path, "r");
  CHECK(f);
  int count = 0;
  while (fgets(line, sizeof line, f)) count += strstr(line, text) != NULL;
  fclose(f);
  return count;
}

void support_dump_ir_begin(char *dir) {
  CHECK(mkdtemp(dir));
  setenv("WEFT_DUMP_IR", dir, 1);
}

void support_dump_ir_end(const char *dir) {
  unsetenv("WEFT_DUMP_IR");
  support_remove_tree(dir);
}
