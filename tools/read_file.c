/* read_file.c: tool_read_file (tool.h), which `weft run` and `weft ptx`
 * read their sources with. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool.h"

/* The whole file, NUL-terminated; NULL with errno set. */
char *tool_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t length = 0, capacity = 4096;
  char *text = malloc(capacity);
  while (text) {
    length += fread(text + length, 1, capacity - length - 1, f);
    if (length < capacity - 1) break; /* the end of the file, or an error */
    capacity *= 2;
    char *grown = realloc(text, capacity);
    if (!grown) free(text);
    text = grown;
  }
  int error = ferror(f) ? errno : text ? 0 : ENOMEM;
  fclose(f);
  if (error) {
    free(text);
    errno = error;
    return NULL;
  }
  text[length] = 0;
  return text;
}
