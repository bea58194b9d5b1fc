/* sync_options.c: a device's default cl_weft_sync algorithms added to a
 * program's build options (sync_options.h). */
#include "backend/common/sync_options.h"

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

char *weft__sync_options_apply(const char *defaults, const char *options) {
  if (!options) options = "";
  char *out = malloc(strlen(defaults) + strlen(options) + 2);
  if (!out) return NULL;
  size_t length = 0;
  /* defaults is " -DMACRO=VALUE" options, one per macro. They go first:
   * a program's options may end in an option missing its value ("-D"),
   * which must stay an error, not take a default as its value. */
  for (const char *d = defaults; (d = strstr(d, " -D"));) {
    const char *end = strchr(d + 1, ' ');
    size_t n = end ? (size_t)(end - d) : strlen(d);
    char macro[64];
    size_t m = strcspn(d + 3, "=");
    snprintf(macro, sizeof macro, "%.*s", (int)m, d + 3);
    if (!chosen_by(options, macro)) {
      memcpy(out + length, d + 1, n - 1);
      length += n - 1;
      out[length++] = ' ';
    }
    d += n;
  }
  strcpy(out + length, options);
  return out;
}
