/* test_cache.c: the kernel cache. A program built again in one process
 * shares the first build's code; a later process loads it from the disk
 * cache; a changed header, other options, or a damaged cache file make a
 * fresh build, never a wrong one. Each test points WEFT_CACHE_DIR at a
 * folder of its own before Weft starts (the configuration is read once). */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

static const char *source =
    "#include \"value.h\"\n"
    "__kernel void put(__global int *out) { out[get_global_id(0)] = VALUE; }\n";

static char dir[64];

/* Why the tests of what the cache holds skip on a GPU. */
static const char NOT_CACHED_ON_GPU[] =
    "the GPU's programs are not in Weft's kernel cache yet";

/* A fresh cache folder holding value.h, set as WEFT_CACHE_DIR. */
static void setup(int value) {
  snprintf(dir, sizeof dir, "/tmp/weft-cache-test-XXXXXX");
  CHECK(mkdtemp(dir));
  char cache[128];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  setenv("WEFT_CACHE_DIR", cache, 1);
  char header[128];
  snprintf(header, sizeof header, "%s/value.h", dir);
  FILE *f = fopen(header, "w");
  CHECK(f);
  fprintf(f, "#define VALUE %d\n", value);
  fclose(f);
}

static void teardown(void) { support_remove_tree(dir); }

/* Builds the program (with -I dir and extra options); *cached gets how. */
static weft_program *build(weft_context *ctx, const char *extra, int *cached) {
  char options[256];
  snprintf(options, sizeof options, "-I %s %s", dir, extra);
  weft_program *p = support_build(ctx, source, options);
  *cached = weft_program_build_cached(p);
  return p;
}

/* Runs the program's kernel; returns what it wrote. */
static int run(weft_context *ctx, weft_program *p) {
  weft_kernel *k;
  CHECK_OK(weft_kernel_create(p, "put", &k), p);
  weft_buffer *b = support_buffer(ctx, 4 * sizeof(int), NULL);
  CHECK_OK(weft_kernel_set_arg_buffer(k, 0, b), k);
  size_t global = 4;
  CHECK_OK(weft_kernel_launch(k, 1, NULL, &global, NULL), k);
  int out[4];
  CHECK_OK(weft_buffer_read(b, 0, sizeof out, out), b);
  for (int i = 1; i < 4; i++) CHECK_EQ(out[i], out[0]);
  weft_buffer_release(b);
  weft_kernel_release(k);
  return out[0];
}

/* The child of build_in_child: a fresh process (this program run again
 * with WEFT_TEST_CACHE_CHILD=dir) builds, runs and exits with how its
 * build was served. */
__attribute__((constructor)) static void child_main(void) {
  const char *child = getenv("WEFT_TEST_CACHE_CHILD");
  if (!child) return;
  snprintf(dir, sizeof dir, "%s", child);
  weft_context *ctx = support_context();
  int cached;
  weft_program *p = build(ctx, "", &cached);
  run(ctx, p);
  _exit(cached);
}

/* Builds and runs the program in a new process, as a later run of the
 * application would (fork alone would copy this process's Weft, threads
 * missing); returns what the child saw cached. */
static int build_in_child(void) {
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    setenv("WEFT_TEST_CACHE_CHILD", dir, 1);
    execl("/proc/self/exe", "test_cache", (char *)NULL);
    _exit(100);
  }
  int status;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) <= 2);
  return WEXITSTATUS(status);
}

static int count_entries(void) {
  char cache[128];
  snprintf(cache, sizeof cache, "%s/cache", dir);
  DIR *d = opendir(cache);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    n += strstr(e->d_name, ".bin") != NULL;
  closedir(d);
  return n;
}

TEST(same_process_shares_the_code) {
  CPU_ONLY(NOT_CACHED_ON_GPU);
  setup(7);
  weft_context *ctx = support_context();
  int cached;
  weft_program *a = build(ctx, "", &cached);
  CHECK_EQ(cached, 0);
  weft_program *b = build(ctx, "", &cached);
  CHECK_EQ(cached, 1);
  CHECK_EQ(run(ctx, a), 7);
  CHECK_EQ(run(ctx, b), 7);
  /* The code stays while either program does. */
  weft_program_release(a);
  CHECK_EQ(run(ctx, b), 7);
  weft_program_release(b);
  weft_context_release(ctx);
  teardown();
}

TEST(later_process_loads_from_disk) {
  CPU_ONLY(NOT_CACHED_ON_GPU);
  setup(11);
  CHECK_EQ(build_in_child(), 0); /* built, and stored */
  CHECK_EQ(count_entries(), 1);
  CHECK_EQ(build_in_child(), 2); /* loaded from the disk */
  weft_context *ctx = support_context();
  int cached;
  weft_program *p = build(ctx, "", &cached);
  CHECK_EQ(cached, 2);
  CHECK_EQ(run(ctx, p), 11);
  weft_program_release(p);
  weft_context_release(ctx);
  teardown();
}

/* A header the program includes changed: both the process's copy and the
 * file on disk are stale; the old program keeps its own code. */
TEST(changed_header_rebuilds) {
  CPU_ONLY(NOT_CACHED_ON_GPU);
  setup(1);
  CHECK_EQ(build_in_child(), 0);
  weft_context *ctx = support_context();
  int cached;
  weft_program *old = build(ctx, "", &cached);
  CHECK_EQ(cached, 2);
  char header[128];
  snprintf(header, sizeof header, "%s/value.h", dir);
  FILE *f = fopen(header, "w");
  CHECK(f);
  fprintf(f, "#define VALUE 2222\n"); /* another size, whatever the clock */
  fclose(f);
  weft_program *fresh = build(ctx, "", &cached);
  CHECK_EQ(cached, 0);
  CHECK_EQ(run(ctx, fresh), 2222);
  CHECK_EQ(run(ctx, old), 1);
  weft_program_release(old);
  weft_program_release(fresh);
  weft_context_release(ctx);
  CHECK_EQ(build_in_child(), 2); /* the rewritten entry */
  teardown();
}

TEST(other_options_are_another_build) {
  CPU_ONLY(NOT_CACHED_ON_GPU);
  setup(3);
  weft_context *ctx = support_context();
  int cached;
  weft_program *a = build(ctx, "", &cached);
  weft_program *b = build(ctx, "-DUNUSED=1", &cached);
  CHECK_EQ(cached, 0);
  weft_program *c = build(ctx, "-cl-fast-relaxed-math", &cached);
  CHECK_EQ(cached, 0);
  CHECK_EQ(run(ctx, c), 3);
  weft_program_release(a);
  weft_program_release(b);
  weft_program_release(c);
  weft_context_release(ctx);
  CHECK_EQ(count_entries(), 3);
  teardown();
}

/* Garbage, or a truncated file, in the cache is a miss and is replaced. */
TEST(damaged_entry_is_rebuilt) {
  CPU_ONLY(NOT_CACHED_ON_GPU);
  setup(5);
  CHECK_EQ(build_in_child(), 0);
  char command[256];
  snprintf(command, sizeof command,
           "for f in '%s'/cache/*.bin; do head -c 100 \"$f\" > \"$f.x\" && "
           "mv \"$f.x\" \"$f\"; done", dir);
  CHECK_EQ(system(command), 0);
  CHECK_EQ(build_in_child(), 0);
  CHECK_EQ(build_in_child(), 2);
  snprintf(command, sizeof command,
           "for f in '%s'/cache/*.bin; do head -c 200000 /dev/urandom > "
           "\"$f\"; done", dir);
  CHECK_EQ(system(command), 0);
  CHECK_EQ(build_in_child(), 0);
  CHECK_EQ(build_in_child(), 2);
  teardown();
}

TEST(cache_off_writes_nothing) {
  setup(9);
  setenv("WEFT_CACHE_DIR", "off", 1);
  CHECK_EQ(build_in_child(), 0);
  CHECK_EQ(build_in_child(), 0);
  CHECK_EQ(count_entries(), 0);
  teardown();
}

/* A build error is never cached: the log comes back every time. */
TEST(failed_build_is_not_cached) {
  setup(0);
  weft_context *ctx = support_context();
  for (int i = 0; i < 2; i++) {
    weft_program *p;
    CHECK_OK(weft_program_create(ctx, "__kernel void k() { nope; }", 0, &p),
             ctx);
    CHECK_FAILS(weft_program_build(p, NULL), WEFT_EBUILD, p, "nope");
    CHECK_STR_CONTAINS(weft_program_build_log(p), "program.cl:1:21: error");
    weft_program_release(p);
  }
  CHECK_EQ(count_entries(), 0);
  weft_context_release(ctx);
  teardown();
}

/* A cached build gives the warnings of the first one. */
TEST(cached_build_keeps_its_warnings) {
  CPU_ONLY(NOT_CACHED_ON_GPU);
  setup(0);
  weft_context *ctx = support_context();
  const char *warns = "__kernel void k(__global int *a) { a[0] == 1; }";
  weft_program *p[2];
  for (int i = 0; i < 2; i++) {
    CHECK_OK(weft_program_create(ctx, warns, 0, &p[i]), ctx);
    CHECK_OK(weft_program_build(p[i], NULL), p[i]);
    CHECK_STR_CONTAINS(weft_program_build_log(p[i]), "warning");
  }
  CHECK_EQ(weft_program_build_cached(p[1]), 1);
  weft_program_release(p[0]);
  weft_program_release(p[1]);
  weft_context_release(ctx);
  teardown();
}

TEST_MAIN()
