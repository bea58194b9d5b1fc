/*
 * builtins_parts.h: the builtin library as the build stores it: one LLVM
 * bitcode module per function family, behind an index sorted by family
 * (weft_builtins_split writes it; builtins.c reads it). A family is the
 * set of a builtin's overloads: the identifier inside the mangled name
 * (_Z3sinf and _Z3sinDv4_f are both "sin").
 */
#ifndef WEFT_BUILTINS_BUILTINS_PARTS_H
#define WEFT_BUILTINS_BUILTINS_PARTS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define WEFT_BUILTIN_PARTS_MAGIC "WEFTPART"
#define WEFT_BUILTIN_FAMILY_MAX 96

typedef struct weft_builtin_parts_header {
  char magic[8];
  uint64_t count;            /* index entries that follow */
} weft_builtin_parts_header;

typedef struct weft_builtin_part {
  char family[WEFT_BUILTIN_FAMILY_MAX];
  uint64_t offset;           /* of the module, after the index */
  uint64_t size;
} weft_builtin_part;

/* The family of a function name: the identifier of an Itanium-mangled
 * name (_Z<length><identifier>...), or the name itself. */
static inline void weft__builtin_family(const char *name, char *out,
                                        size_t size) {
  if (name[0] == '_' && name[1] == 'Z' && name[2] >= '1' && name[2] <= '9') {
    const char *p = name + 2;
    size_t length = 0;
    while (*p >= '0' && *p <= '9') length = length * 10 + (size_t)(*p++ - '0');
    if (length <= strlen(p)) {
      snprintf(out, size, "%.*s", (int)length, p);
      return;
    }
  }
  snprintf(out, size, "%s", name);
}

#endif
