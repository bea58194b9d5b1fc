/*
 * cache_files.h: the kernel cache's folder on disk, trusted the way ssh
 * trusts ~/.ssh. The folder, and every file read from it, must belong to
 * the effective user and be writable by nobody else; otherwise it is not
 * used and one line on stderr says why. A folder Weft creates is 0700.
 *
 * The folder is opened once and every file is reached through that
 * descriptor, so renaming the path afterwards changes nothing. Files are
 * opened without following links, and written to a fresh temporary file
 * (O_CREAT|O_EXCL, a random name) that is renamed into place, so a link
 * planted in the folder is never written through.
 */
#ifndef WEFT_JIT_CACHE_FILES_H
#define WEFT_JIT_CACHE_FILES_H

#include <stddef.h>

/* Sets the folder's path (NULL or "": no disk cache). Called once, before
 * any other call here. */
void weft__cache_folder_set(const char *path);

/* The folder's descriptor, or -1 when there is no usable folder. With
 * create, a missing folder is made (its missing parents too, 0700);
 * without, a missing folder is -1 now and may be made by a later call.
 * An untrusted folder is reported once and stays -1 for the process. */
int weft__cache_folder(int create);

/* The largest file read from the folder: anything bigger is not an
 * entry Weft wrote. */
#define WEFT_CACHE_FILE_MAX ((size_t)1 << 30)

/* Reads the file name of the folder fd into a malloc'd *data. Returns 0,
 * or -1 when it is absent, unreadable or untrusted (owned by another
 * user, writable by group or others, a link or not a regular file); the
 * first untrusted file of the process is reported on stderr. */
int weft__cache_file_read(int fd, const char *name, unsigned char **data,
                          size_t *size);

/* One piece of a file to write. */
typedef struct weft_cache_part {
  const void *data;
  size_t size;
} weft_cache_part;

/* Writes the parts, in order, as the file name of the folder fd, whole or
 * not at all: readers in other processes see the old file or the new one.
 * Returns 0 or -1. */
int weft__cache_file_write(int fd, const char *name,
                           const weft_cache_part *parts, unsigned count);

/* Removes the file name of the folder fd (a damaged entry). */
void weft__cache_file_remove(int fd, const char *name);

#endif
