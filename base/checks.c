/* checks.c: the words of check lists (see checks.h). */
#include "base/checks.h"

#include <string.h>

int weft__check_parse(const char *words, unsigned *flags) {
  static const struct {
    const char *name;
    unsigned flags;
  } kinds[] = {{"memory", WEFT_CHECK_MEMORY},
               {"uninit", WEFT_CHECK_UNINIT},
               {"races", WEFT_CHECK_RACES},
               {"all", WEFT_CHECK_ALL}};
  *flags = 0;
  for (const char *p = words; *p;) {
    size_t len = strcspn(p, ",");
    if (!len || (p[len] == ',' && !p[len + 1])) return -1;
    size_t i = 0;
    while (i < sizeof kinds / sizeof *kinds &&
           (strlen(kinds[i].name) != len || strncmp(p, kinds[i].name, len)))
      i++;
    if (i == sizeof kinds / sizeof *kinds) return -1;
    *flags |= kinds[i].flags;
    p += len + (p[len] == ',');
  }
  return *flags ? 0 : -1;
}
