/* sync_options.c: a device's default cl_weft_sync algorithms added to a
 * program's build options (sync_options.h). */
#include "backend/sync_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the program's options already choose for macro: they name it,
 * or, for the global barrier, name the barrier's macro it follows. */
static int chosen_by(const char *options, const char *macro) {
  if (strstr(options, macro)) return 1;
  return !strcmp(macro, "WEFT_GLOBAL_BARRIER_IMPL") &&
         strstr(options, "WEFT_BARRIER_IMPL");
}

char *weft__sync_defaults_apply(const char *defaults, const char *options) {
  if (!options) options = "";
  size_t length = strlen(options);
  char *out = malloc(length + strlen(defaults) + 1);
  if (!out) return NULL;
  memcpy(out, options, length + 1);
  /* defaults is " -DMACRO=VALUE" options, one per macro. */
  for (const char *d = defaults; (d = strstr(d, " -D"));) {
    const char *end = strchr(d + 1, ' ');
    size_t n = end ? (size_t)(end - d) : strlen(d);
    char macro[64];
    size_t m = strcspn(d + 3, "=");
    snprintf(macro, sizeof macro, "%.*s", (int)m, d + 3);
    if (!chosen_by(options, macro)) {
      memcpy(out + length, d, n);
      length += n;
      out[length] = 0;
    }
    d += n;
  }
  return out;
}
