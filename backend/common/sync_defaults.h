/*
 * sync_defaults.h: the file that records, for this machine, which
 * algorithm of each cl_weft_sync primitive is the default: written
 * through weft_sync_defaults_save (weft.h; `weft bench probe` calls it),
 * read by the CPU device when it starts, which adds it to the options of
 * the programs it builds (backend/common/sync_options.h). Its format, its
 * writer and its reader are all here.
 *
 * Where: sync-defaults in the kernel cache's folder (weft_cache_dir:
 * $WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft, else ~/.cache/weft; none
 * with the disk cache off), trusted as the cache's entries are
 * (jit/cache/cache_files.h: owned by the user, writable by nobody else).
 *
 * Format (version 1): text lines. A line that starts with '#' is a
 * comment, an empty line is nothing; every other line is KEY=VALUE, with
 * no spaces around '='. Keys:
 *   version=1         first of the KEY=VALUE lines
 *   threads=N         the worker threads the measurements ran on
 *   cpu=TEXT          the device's name (to the end of the line)
 *   class=TEXT        the classification, for people
 *   mutex=IMPL        native | spin | spin_backoff | ticket
 *   semaphore=IMPL    native | spin | spin_backoff | sleeping
 *   barrier=IMPL      native | two_stage       (weft_barrier objects)
 *   global_barrier=IMPL  native | two_stage    (weft_global_barrier)
 * IMPL is the lowercase suffix of the algorithm's constant in
 * include/weft/kernel.h (ticket: WEFT_MUTEX_TICKET), so a line applies as
 * a build option: -DWEFT_MUTEX_IMPL=WEFT_MUTEX_TICKET. A reader ignores
 * keys it does not know, and takes native for a primitive whose line is
 * missing or names an algorithm it lacks.
 */
#ifndef WEFT_BACKEND_COMMON_SYNC_DEFAULTS_H
#define WEFT_BACKEND_COMMON_SYNC_DEFAULTS_H

#include <stddef.h>

#include "weft/weft.h"

/* (The file's name, WEFT_SYNC_DEFAULTS_FILE, is weft.h's.) */
#define WEFT_SYNC_DEFAULTS_VERSION 1

/* The options the file asks for, like " -DWEFT_MUTEX_IMPL=WEFT_MUTEX_TICKET"
 * (one per line that names an algorithm the primitive has), in out; empty
 * without a file, or when the cache's folder or the file is not trusted. */
void weft__sync_defaults_read(char *out, size_t size);

#endif
