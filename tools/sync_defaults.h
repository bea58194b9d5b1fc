/*
 * sync_defaults.h: the file that records, for this machine, which
 * implementation of each cl_weft_sync primitive is the default (written
 * by `weft bench probe`, read by the runtime).
 *
 * Where: sync-defaults in the folder of Weft's disk cache
 * (weft_cache_dir: $WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft, else
 * ~/.cache/weft). WEFT_CACHE_DIR set to "off" or "" means no file.
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
 *   barrier=IMPL      native | two_stage | xiao_feng  (weft_barrier objects)
 *   global_barrier=IMPL  native | two_stage        (weft_global_barrier)
 * IMPL is the lowercase suffix of the algorithm's constant in
 * include/weft/kernel.h (ticket: WEFT_MUTEX_TICKET), so a runtime can
 * apply a line as a build option: -DWEFT_MUTEX_IMPL=WEFT_MUTEX_TICKET.
 * A reader ignores keys it does not know, and takes native for a
 * primitive whose line is missing or names an implementation it lacks.
 */
#ifndef WEFT_TOOL_SYNC_DEFAULTS_H
#define WEFT_TOOL_SYNC_DEFAULTS_H

#include <stddef.h>
#include <stdio.h>

#include "backend/cpu/sync_defaults.h" /* WEFT_SYNC_DEFAULTS_FILE */
#include "bench_sync.h"

#define SYNC_DEFAULTS_VERSION 1

/* The file's path by the rules above: 0, or -1 when there is none. */
int sync_defaults_path(char *out, size_t size);

typedef struct sync_defaults {
  unsigned threads;
  const char *cpu;
  const char *class_text;
  const char *choice[SYNC_PRIMITIVES];
} sync_defaults;

/* Writes d as the file's text to out. */
void sync_defaults_print(const sync_defaults *d, FILE *out);

/* Writes the file at path (creating its folder), replacing it whole, so
 * that a reader sees the old file or the new one; 0, or -1 with errno. */
int sync_defaults_write(const sync_defaults *d, const char *path);

#endif /* WEFT_TOOL_SYNC_DEFAULTS_H */
