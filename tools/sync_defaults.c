/* sync_defaults.c: the file of default implementations (the format is in
 * sync_defaults.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sync_defaults.h"

/* In the folder of Weft's disk cache (weft_cache_dir). */
int sync_defaults_path(char *out, size_t size) {
  const char *dir = weft_cache_dir();
  int n = dir ? snprintf(out, size, "%s/" WEFT_SYNC_DEFAULTS_FILE, dir) : -1;
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

void sync_defaults_print(const sync_defaults *d, FILE *out) {
  char when[32] = "";
  time_t now = time(NULL);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&now));
  fprintf(out,
          "# Weft's default synchronization implementations for this "
          "machine,\n"
          "# chosen by `weft bench probe` on %s. Edit a line to override;\n"
          "# KEY=VALUE lines, '#' comments (README: \"Choosing the "
          "synchronization\n# implementations\").\n"
          "version=%d\nthreads=%u\ncpu=%s\nclass=%s\n",
          when, SYNC_DEFAULTS_VERSION, d->threads, d->cpu, d->class_text);
  for (int p = 0; p < SYNC_PRIMITIVES; p++)
    fprintf(out, "%s=%s\n", sync_primitive_name((sync_primitive)p),
            d->choice[p]);
}

/* mkdir -p of path's folder, private to the user as the kernel cache's
 * folders are (jit/cache/cache.c). */
static int make_folder(const char *path) {
  char *dir = strdup(path);
  if (!dir) return -1;
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(dir, 0700) && errno != EEXIST) {
      free(dir);
      return -1;
    }
    *p = '/';
  }
  free(dir);
  return 0;
}

int sync_defaults_write(const sync_defaults *d, const char *path) {
  char tmp[4200];
  if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (make_folder(path)) return -1;
  /* A fresh file (O_EXCL): a link planted at a predictable name would
   * have this write through it into another file. */
  int fd = mkstemp(tmp);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
  if (!f) {
    int saved = errno;
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    errno = saved;
    return -1;
  }
  sync_defaults_print(d, f);
  /* Renamed into place: a runtime reading it meanwhile sees a whole file. */
  if (fclose(f) || rename(tmp, path)) {
    int saved = errno;
    unlink(tmp);
    errno = saved;
    return -1;
  }
  return 0;
}
