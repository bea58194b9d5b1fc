/* test_cache_entry.c: the cache's entry files against damage, on their
 * own. jit/cache/cache.c and jit/cache/cache_files.c are compiled into
 * the test with a loader (and a build ID) of its own that records what it is given instead of running it,
 * so every bit of an entry can be flipped in turn: each flip must be a
 * miss (and the damaged file removed) or hand the loader exactly the
 * object that was stored. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "jit/cache/cache.h"
#include "jit/cpu/perf_map.h"
#include "support.h"

/* ------------------------------------------------ the recording loader */

struct weft_orc_code {
  size_t size;
  unsigned char bytes[];
};

static int loads; /* objects handed to the loader */

int weft__orc_add_object(const void *object, size_t size, const char *name,
                         weft_orc_code **out, char **error) {
  (void)name;
  (void)error;
  weft_orc_code *code = malloc(sizeof *code + size);
  CHECK(code);
  code->size = size;
  memcpy(code->bytes, object, size);
  loads++;
  *out = code;
  return 0;
}

void weft__orc_remove(weft_orc_code *code) { free(code); }

/* No perf map: the recorded code is not in the JIT. */
void weft__perf_map_add(weft_orc_code *code, const void *object, size_t size,
                        const char *prefix) {
  (void)code, (void)object, (void)size, (void)prefix;
}

/* A build ID, without which the cache keeps nothing on disk. */
const char *weft__build_id(void) { return "test-cache-entry"; }

/* ---------------------------------------------------------------- test */

static char dir[64];
static weft_cache_key key;
static unsigned char object[700], descs[96];
static const char log_text[] = "program.cl:1:2: warning: something";

/* A folder with one entry of key, from weft__cache_add. */
static void store_entry(void) {
  snprintf(dir, sizeof dir, "/tmp/weft-cache-entry-XXXXXX");
  CHECK(mkdtemp(dir));
  weft__cache_set_dir(dir);
  weft__cache_key_make("identity", "source", "abc", 3, "", &key);
  for (size_t i = 0; i < sizeof object; i++) object[i] = (unsigned char)(i * 7);
  for (size_t i = 0; i < sizeof descs; i++) descs[i] = (unsigned char)(i ^ 0x5a);
  weft_cached *c;
  char *error = NULL;
  CHECK_EQ(weft__cache_add(&key, WEFT_CACHE_CODE, "", object, sizeof object,
                           descs, sizeof descs, log_text, &c, &error), 0);
  weft__cache_release(c);
  weft__cache_drop_idle(); /* gone from the process: later finds read disk */
}

static char *entry(void) {
  static char path[128];
  snprintf(path, sizeof path, "%s/%s.bin", dir, key.hex);
  return path;
}

static unsigned char *slurp(const char *path, size_t *size) {
  struct stat st;
  CHECK_EQ(stat(path, &st), 0);
  *size = (size_t)st.st_size;
  unsigned char *data = malloc(*size);
  int fd = open(path, O_RDONLY);
  CHECK(data && fd >= 0 && read(fd, data, *size) == (ssize_t)*size);
  close(fd);
  return data;
}

static void put(const char *path, const unsigned char *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0 && write(fd, data, size) == (ssize_t)size);
  close(fd);
}

/* Whether the entry found is exactly what was stored. */
static int identical(const weft_cached *c) {
  return c->code->size == sizeof object &&
         !memcmp(c->code->bytes, object, sizeof object) &&
         c->descs_size == sizeof descs &&
         !memcmp(c->descs, descs, sizeof descs) && !strcmp(c->log, log_text);
}

TEST(every_flipped_bit_is_a_miss) {
  store_entry();
  size_t size;
  unsigned char *whole = slurp(entry(), &size);
  CHECK(size > sizeof object + sizeof descs);
  int misses = 0, wrong = 0;
  for (size_t bit = 0; bit < 8 * size; bit++) {
    whole[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    put(entry(), whole, size);
    whole[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    int from_disk, before = loads;
    weft_cached *c = weft__cache_find(&key, WEFT_CACHE_CODE, &from_disk);
    if (!c) {
      misses++;
      CHECK_EQ(loads, before); /* the loader never saw the bytes */
      CHECK(access(entry(), F_OK) != 0); /* the damaged file is gone */
      continue;
    }
    wrong += !identical(c);
    weft__cache_release(c);
    weft__cache_drop_idle();
  }
  printf("%zu bits flipped: %d misses, %d loaded something else\n", 8 * size,
         misses, wrong);
  CHECK_EQ(wrong, 0);
  CHECK_EQ(misses, (int)(8 * size));
  /* The whole file is a hit, and the same object. */
  put(entry(), whole, size);
  int from_disk;
  weft_cached *c = weft__cache_find(&key, WEFT_CACHE_CODE, &from_disk);
  CHECK(c && from_disk && identical(c));
  weft__cache_release(c);
  free(whole);
  support_remove_tree(dir);
}

/* A truncated file, or one with bytes added, is a miss at every length. */
TEST(truncated_or_extended_is_a_miss) {
  store_entry();
  size_t size;
  unsigned char *whole = slurp(entry(), &size);
  unsigned char *longer = calloc(1, size + 64);
  memcpy(longer, whole, size);
  for (size_t n = 0; n < size + 64; n += n < size ? 1 : 16) {
    if (n == size) continue;
    put(entry(), longer, n);
    int from_disk;
    weft_cached *c = weft__cache_find(&key, WEFT_CACHE_CODE, &from_disk);
    if (c) FAIL("a file of %zu bytes (of %zu) was loaded", n, size);
  }
  free(longer);
  free(whole);
  support_remove_tree(dir);
}

TEST_MAIN()
