/* test_perf_map.c: WEFT_PERF=map writes perf's map of JIT code: each
 * kernel's work-group function, once loaded, is a line "START SIZE
 * weft:NAME [PROGRAM]" of /tmp/perf-PID.map, whose range is executable
 * memory of the process (what perf report needs to name its samples). */
#include <inttypes.h>
#include <unistd.h>

#include "support.h"

/* Whether [start, start + size) lies in one executable mapping. */
static int executable(uintptr_t start, uintptr_t size) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f);
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    uintptr_t lo, hi;
    char perms[8];
    if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) == 3)
      found = start >= lo && start + size <= hi && perms[2] == 'x';
  }
  fclose(f);
  return found;
}

TEST(kernels_are_named) {
  CPU_ONLY("the CPU device's JIT code");
  setenv("WEFT_PERF", "map", 1);
  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  unlink(path);
  weft_context *ctx = support_context();
  weft_program *p = support_build(
      ctx,
      "__kernel void first(__global int *a) { a[get_global_id(0)] = 1; }\n"
      "__kernel void second(__global int *a) { a[get_global_id(0)] += 2; }\n",
      NULL);
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "second", &k), p);
  FILE *f = fopen(path, "r");
  CHECK(f);
  char line[512];
  int named = 0;
  while (fgets(line, sizeof line, f)) {
    uintptr_t start, size;
    char name[256];
    CHECK(sscanf(line, "%" SCNxPTR " %" SCNxPTR " %255s", &start, &size, name) == 3);
    if (strcmp(name, "weft:first") && strcmp(name, "weft:second")) continue;
    CHECK(size > 0);
    CHECK(executable(start, size));
    CHECK_STR_CONTAINS(line, " [weft.");
    named++;
  }
  fclose(f);
  CHECK_EQ(named, 2);
  unlink(path);
  weft_kernel_release(k);
  weft_program_release(p);
  weft_context_release(ctx);
}

TEST_MAIN()
