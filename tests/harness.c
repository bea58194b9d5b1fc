/* harness.c: runs one test by name, or all of them in turn. */
#include "harness.h"

int harness_on_gpu(void) {
  const char *d = getenv("WEFT_DEVICE");
  return d && (!strncmp(d, "cuda", 4) || !strcmp(d, "gpu"));
}

int harness_check_mode(void) {
  const char *c = getenv("WEFT_CHECK");
  return c && *c && strcmp(c, "off") != 0;
}

int harness_barriers_on_fibers(void) {
  const char *b = getenv("WEFT_BARRIER");
  return b && !strcmp(b, "fibers");
}

int harness_sub_group_size_set(void) {
  const char *s = getenv("WEFT_SUB_GROUP_SIZE");
  return s && *s;
}

int harness_main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--list")) {
    for (int i = 0; i < harness_count; i++) printf("%s\n", harness_tests[i].name);
    return 0;
  }
  int ran = 0;
  for (int i = 0; i < harness_count; i++) {
    if (argc > 1 && strcmp(argv[1], harness_tests[i].name)) continue;
    if (argc == 1) fprintf(stderr, "-- %s\n", harness_tests[i].name);
    harness_tests[i].run();
    ran++;
  }
  if (!ran) {
    fprintf(stderr, "no test named '%s'\n", argc > 1 ? argv[1] : "");
    return 2;
  }
  return 0;
}
