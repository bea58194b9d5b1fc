/* sync_defaults.c: the machine's default cl_weft_sync algorithms
 * (sync_defaults.h): the file written (weft.h's weft_sync_defaults_text
 * and weft_sync_defaults_save) and read back as build options. */
#include "backend/common/sync_defaults.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "jit/cache/cache.h"
#include "jit/cache/cache_files.h"
#include "weft/weft.h"

/* A key of the file, the macro it sets and the algorithms it may name,
 * each the lowercase suffix of a constant of weft/kernel.h. */
static const struct primitive {
  const char *key, *macro, *prefix;
  const char *names[5];
} primitives[] = {
    {"mutex", "WEFT_MUTEX_IMPL", "WEFT_MUTEX_",
     {"native", "spin", "spin_backoff", "ticket"}},
    {"semaphore", "WEFT_SEMAPHORE_IMPL", "WEFT_SEMAPHORE_",
     {"native", "spin", "spin_backoff", "sleeping"}},
    /* Not xiao_feng: it needs more than the 16 bytes of a weft_barrier a
     * program sized for the default (weft bench probe never picks it). */
    {"barrier", "WEFT_BARRIER_IMPL", "WEFT_BARRIER_",
     {"native", "two_stage"}},
    /* Said even when native: weft_global_barrier() would otherwise follow
     * WEFT_BARRIER_IMPL. */
    {"global_barrier", "WEFT_GLOBAL_BARRIER_IMPL", "WEFT_BARRIER_",
     {"native", "two_stage"}},
};

enum { NUM_PRIMITIVES = sizeof primitives / sizeof *primitives };
_Static_assert(NUM_PRIMITIVES == 4, "weft_sync_defaults has four choices");

/* ------------------------------------------------------------ writing */

/* d's algorithm for primitive i (mutex, semaphore, barrier, global
 * barrier: the table's order); NULL is native. */
static const char *choice_of(const weft_sync_defaults *d, size_t i) {
  const char *const choices[NUM_PRIMITIVES] = {d->mutex, d->semaphore,
                                               d->barrier, d->global_barrier};
  return choices[i] ? choices[i] : "native";
}

/* Whether name is one of primitive p's algorithms. */
static int known(const struct primitive *p, const char *name) {
  for (size_t n = 0; n < 5 && p->names[n]; n++)
    if (!strcmp(name, p->names[n])) return 1;
  return 0;
}

/* Whether d can be written as the file says: known algorithms, and
 * texts that stay on their line. */
static int valid(const weft_sync_defaults *d) {
  for (size_t i = 0; i < NUM_PRIMITIVES; i++)
    if (!known(&primitives[i], choice_of(d, i))) return 0;
  return !(d->cpu && strpbrk(d->cpu, "\r\n")) &&
         !(d->class_text && strpbrk(d->class_text, "\r\n"));
}

int weft_sync_defaults_text(const weft_sync_defaults *d, char **text) {
  if (!text) return WEFT_EINVAL;
  *text = NULL;
  if (!d || !valid(d)) return WEFT_EINVAL;
  char when[32] = "";
  time_t now = time(NULL);
  struct tm local;
  strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime_r(&now, &local));
  size_t size = 0;
  FILE *f = open_memstream(text, &size);
  if (!f) return WEFT_ENOMEM;
  fprintf(f,
          "# Weft's default synchronization implementations for this "
          "machine,\n"
          "# chosen by `weft bench probe` on %s. Edit a line to override;\n"
          "# KEY=VALUE lines, '#' comments (README: \"Choosing the "
          "synchronization\n# implementations\").\n"
          "version=%d\nthreads=%u\ncpu=%s\nclass=%s\n",
          when, WEFT_SYNC_DEFAULTS_VERSION, d->threads,
          d->cpu ? d->cpu : "", d->class_text ? d->class_text : "");
  for (size_t i = 0; i < NUM_PRIMITIVES; i++)
    fprintf(f, "%s=%s\n", primitives[i].key, choice_of(d, i));
  if (fclose(f)) {
    free(*text);
    *text = NULL;
    return WEFT_ENOMEM;
  }
  return 0;
}

/* The folder of path (which it opens) and the file's name in it. */
static int open_folder_of(const char *path, const char **name) {
  const char *slash = strrchr(path, '/');
  *name = slash ? slash + 1 : path;
  if (!slash) return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  char *dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
  if (!dir) return -1;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  free(dir);
  return fd;
}

/* Writes text as the file name of the folder fd, whole: WEFT_ESYS with
 * errno when it cannot. */
static int write_whole(int fd, const char *name, const char *text) {
  weft_cache_part part = {text, strlen(text)};
  int saved = errno;
  errno = 0;
  if (!weft__cache_file_write(fd, name, &part, 1)) {
    errno = saved;
    return 0;
  }
  if (!errno) errno = EIO;
  return WEFT_ESYS;
}

/* The file where the CPU device reads it: the kernel cache's folder, made
 * if missing. */
static int save_in_cache(const char *text) {
  const char *dir = weft__config()->cache_dir;
  if (!dir) return WEFT_EINVAL; /* the disk cache is off */
  weft__cache_set_dir(dir);
  int fd = weft__cache_folder(1);
  if (fd < 0) {
    /* (Missing and not made, or untrusted: reported on stderr.) */
    errno = EACCES;
    return WEFT_ESYS;
  }
  return write_whole(fd, WEFT_SYNC_DEFAULTS_FILE, text);
}

/* The file at path, whose folder must exist. */
static int save_at(const char *path, const char *text) {
  const char *name = NULL;
  int fd = open_folder_of(path, &name);
  if (fd < 0) return WEFT_ESYS;
  if (!*name) {
    close(fd);
    errno = EISDIR;
    return WEFT_ESYS;
  }
  int rc = write_whole(fd, name, text);
  int saved = errno;
  close(fd);
  errno = saved;
  return rc;
}

int weft_sync_defaults_save(const weft_sync_defaults *d, const char *path) {
  char *text = NULL;
  int rc = weft_sync_defaults_text(d, &text);
  if (!rc) rc = path ? save_at(path, text) : save_in_cache(text);
  int saved = errno;
  free(text);
  errno = saved;
  return rc;
}

/* ------------------------------------------------------------ reading */

/* " -DMACRO=PREFIX_NAME" for a known line, "" for anything unknown (a
 * reader takes native then, as the program's default is). */
static void option_for(const char *key, const char *value, char *out,
                       size_t size) {
  out[0] = 0;
  for (size_t i = 0; i < NUM_PRIMITIVES; i++) {
    const struct primitive *p = &primitives[i];
    if (strcmp(key, p->key) || !known(p, value)) continue;
    int used = snprintf(out, size, " -D%s=%s", p->macro, p->prefix);
    for (; used > 0 && *value && (size_t)used + 1 < size; value++)
      out[used++] = (char)toupper((unsigned char)*value);
    out[used > 0 ? used : 0] = 0;
    return;
  }
}

/* Adds the options of the file's lines (text, NUL-terminated) to out. */
static void parse_lines(char *text, char *out, size_t size) {
  char option[96];
  for (char *line = text; *line;) {
    size_t len = strcspn(line, "\n");
    char *next = line + len + (line[len] == '\n');
    line[len] = 0;
    line[strcspn(line, "\r")] = 0;
    char *eq = strchr(line, '=');
    if (line[0] != '#' && eq) {
      *eq = 0;
      option_for(line, eq + 1, option, sizeof option);
      if (strlen(out) + strlen(option) < size) strcat(out, option);
    }
    line = next;
  }
}

void weft__sync_defaults_read(char *out, size_t size) {
  out[0] = 0;
  /* The file is trusted as the cache's entries are (cache_files.h). */
  int dir = weft__cache_folder(0);
  unsigned char *data = NULL;
  size_t length = 0;
  if (dir < 0 || weft__cache_file_read(dir, WEFT_SYNC_DEFAULTS_FILE, &data,
                                       &length))
    return;
  char *text = realloc(data, length + 1);
  if (!text) {
    free(data);
    return;
  }
  text[length] = 0;
  parse_lines(text, out, size);
  free(text);
}
