/* sync_defaults.c: the machine's default cl_weft_sync algorithms as build
 * options (sync_defaults.h). */
#include "backend/cpu/sync_defaults.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/cache/cache_files.h"

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

/* " -DMACRO=PREFIX_NAME" for a known line, "" for anything unknown (a
 * reader takes native then, as the program's default is). */
static void option_for(const char *key, const char *value, char *out,
                       size_t size) {
  out[0] = 0;
  for (size_t i = 0; i < sizeof primitives / sizeof *primitives; i++) {
    const struct primitive *p = &primitives[i];
    if (strcmp(key, p->key)) continue;
    for (size_t n = 0; n < 5 && p->names[n]; n++) {
      if (strcmp(value, p->names[n])) continue;
      int used = snprintf(out, size, " -D%s=%s", p->macro, p->prefix);
      for (; used > 0 && *value && (size_t)used + 1 < size; value++)
        out[used++] = (char)toupper((unsigned char)*value);
      out[used > 0 ? used : 0] = 0;
      return;
    }
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
