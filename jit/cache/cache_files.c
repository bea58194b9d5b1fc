/* cache_files.c: the kernel cache's folder and its files (cache_files.h). */
#include "jit/cache/cache_files.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/lock.h"

static weft_lock folder_lock = WEFT_LOCK_INITIALIZER;
static char *folder_path;
static int folder_fd = -1;
static int folder_refused; /* untrusted: reported, never used */

void weft__cache_folder_set(const char *path) {
  if (path && !*path) path = NULL;
  weft__lock(&folder_lock);
  /* Each target's JIT names the process's folder: the same one again
   * keeps its state (an untrusted folder is reported once). */
  if (path ? folder_path && !strcmp(path, folder_path) : !folder_path) {
    weft__unlock(&folder_lock);
    return;
  }
  free(folder_path);
  folder_path = path ? strdup(path) : NULL;
  if (folder_fd >= 0) close(folder_fd);
  folder_fd = -1;
  folder_refused = 0;
  weft__unlock(&folder_lock);
}

/* Why st may not be trusted (NULL: it may), in why[size]. Only the
 * effective user may have written it: another user's file, or one that
 * others could have replaced or changed, may hold anything. */
static const char *untrusted(const struct stat *st, int want_dir, char *why,
                             size_t size) {
  if (want_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
    snprintf(why, size, "it is not a %s", want_dir ? "folder" : "regular file");
  else if (st->st_uid != geteuid())
    snprintf(why, size, "it belongs to user %u, not to this process's user %u",
             (unsigned)st->st_uid, (unsigned)geteuid());
  else if (st->st_mode & (S_IWGRP | S_IWOTH))
    snprintf(why, size, "its group or other users may write it (mode %04o)",
             (unsigned)(st->st_mode & 07777));
  else
    return NULL;
  return why;
}

/* mkdir -p, each folder made private to the user. */
static void make_folders(const char *path) {
  char *copy = strdup(path);
  if (!copy) return;
  for (char *p = copy + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    mkdir(copy, 0700);
    *p = '/';
  }
  mkdir(copy, 0700);
  free(copy);
}

/* Opens and checks the folder (folder_lock held). */
static void folder_open(int create) {
  assert(weft__lock_held(&folder_lock));
  if (create) make_folders(folder_path);
  int fd = open(folder_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return; /* absent, or not ours to read: no disk cache */
  struct stat st;
  char why[160];
  const char *reason =
      fstat(fd, &st) ? strerror(errno) : untrusted(&st, 1, why, sizeof why);
  if (!reason) {
    folder_fd = fd;
    return;
  }
  close(fd);
  folder_refused = 1;
  fprintf(stderr,
          "weft: not using the kernel cache folder %s: %s; builds are kept "
          "in memory only (set WEFT_CACHE_DIR to a folder of your own, "
          "mode 0700)\n",
          folder_path, reason);
}

int weft__cache_folder(int create) {
  weft__lock(&folder_lock);
  if (folder_path && folder_fd < 0 && !folder_refused) folder_open(create);
  int fd = folder_fd;
  weft__unlock(&folder_lock);
  return fd;
}

/* Reports the first untrusted file of the process. */
static void report_file(const char *name, const char *reason) {
  static atomic_int reported;
  if (atomic_exchange(&reported, 1)) return;
  fprintf(stderr, "weft: ignoring %s/%s in the kernel cache: %s\n",
          folder_path ? folder_path : "?", name, reason);
}

static int read_fully(int fd, unsigned char *data, size_t size) {
  for (size_t at = 0; at < size;) {
    ssize_t n = read(fd, data + at, size - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    at += (size_t)n;
  }
  return 0;
}

int weft__cache_file_read(int dir, const char *name, unsigned char **data,
                          size_t *size) {
  *data = NULL;
  /* O_NONBLOCK: a FIFO planted there must not block the open. */
  int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) report_file(name, "it is a symbolic link");
    return -1;
  }
  struct stat st;
  char why[160];
  const char *reason =
      fstat(fd, &st) ? strerror(errno) : untrusted(&st, 0, why, sizeof why);
  int rc = -1;
  if (reason) report_file(name, reason);
  else if (st.st_size > 0 && (size_t)st.st_size <= WEFT_CACHE_FILE_MAX &&
           (*data = malloc((size_t)st.st_size))) {
    *size = (size_t)st.st_size;
    rc = read_fully(fd, *data, *size);
  }
  close(fd);
  if (rc) {
    free(*data);
    *data = NULL;
  }
  return rc;
}

static int write_fully(int fd, const void *data, size_t size) {
  const unsigned char *p = data;
  for (size_t at = 0; at < size;) {
    ssize_t n = write(fd, p + at, size - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    at += (size_t)n;
  }
  return 0;
}

/* A new file of the folder, by a name nobody could have prepared:
 * O_EXCL fails on anything already there, a link included. */
static int create_temporary(int dir, const char *name, char *tmp, size_t size) {
  for (int attempt = 0; attempt < 16; attempt++) {
    unsigned long long r = 0;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
      r ^= (unsigned long long)getpid() << 20 ^ (unsigned long long)attempt;
    if (snprintf(tmp, size, ".%s.%016llx.tmp", name, r) >= (int)size) return -1;
    int fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
                                  O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

int weft__cache_file_write(int dir, const char *name,
                           const weft_cache_part *parts, unsigned count) {
  char tmp[256];
  int fd = create_temporary(dir, name, tmp, sizeof tmp);
  if (fd < 0) return -1;
  int ok = 1;
  for (unsigned i = 0; i < count && ok; i++)
    ok = !write_fully(fd, parts[i].data, parts[i].size);
  if (close(fd)) ok = 0;
  if (ok && !renameat(dir, tmp, dir, name)) return 0;
  unlinkat(dir, tmp, 0);
  return -1;
}

void weft__cache_file_remove(int dir, const char *name) {
  unlinkat(dir, name, 0);
}
