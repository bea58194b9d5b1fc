/* builtins.c: linking the builtins a program calls (see builtins.h).
 *
 * The library is embedded as one bitcode module per function family, with
 * an index (builtins_parts.h). A build links the families of the functions
 * its module declares, then those that the linked code declares in turn,
 * until none is missing. Each family is read lazily and its definitions
 * are link-once, so only the overloads in use are materialized. */
#include "jit/front/builtins.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include "builtins/builtins_parts.h"
#include "weft/weft.h"

extern const char weft__builtins_bc_start[];
extern const char weft__builtins_bc_end[];
extern const char weft__builtins_nvptx_bc_start[];
extern const char weft__builtins_nvptx_bc_end[];

/* An embedded library: its bytes. */
typedef struct library {
  const char *start, *end;
} library;

static library library_of(weft_builtins_target target) {
  if (target == WEFT_BUILTINS_NVPTX)
    return (library){weft__builtins_nvptx_bc_start, weft__builtins_nvptx_bc_end};
  return (library){weft__builtins_bc_start, weft__builtins_bc_end};
}

static char *copy_message(const char *prefix, const char *detail) {
  size_t n = strlen(prefix) + strlen(detail) + 1;
  char *s = malloc(n);
  if (s) {
    strcpy(s, prefix);
    strcat(s, detail);
  }
  return s;
}

/* The index: NULL if the embedded data is not a library (a few compares,
 * cheap enough to repeat at every lookup). */
static const weft_builtin_part *parts(library lib, uint64_t *count) {
  const weft_builtin_parts_header *h = (const void *)lib.start;
  size_t size = (size_t)(lib.end - lib.start);
  if (size < sizeof *h || memcmp(h->magic, WEFT_BUILTIN_PARTS_MAGIC, 8) ||
      h->count > (size - sizeof *h) / sizeof(weft_builtin_part))
    return NULL;
  *count = h->count;
  return (const weft_builtin_part *)(h + 1);
}

static int compare_family(const void *key, const void *entry) {
  return strcmp(key, ((const weft_builtin_part *)entry)->family);
}

/* The part holding family, or NULL (a function the library lacks). */
static const weft_builtin_part *find_part(library lib, const char *family) {
  uint64_t count = 0;
  const weft_builtin_part *index = parts(lib, &count);
  if (!index) return NULL;
  return bsearch(family, index, count, sizeof *index, compare_family);
}

/* Definitions become link-once: the linker then copies a builtin (or a
 * constant table) into the module only if the module refers to it, and
 * merges the copies two families bring. Functions still unread (lazy)
 * count as definitions here, which is what we want. */
static void make_link_once(LLVMModuleRef library) {
  for (LLVMValueRef f = LLVMGetFirstFunction(library); f;
       f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(library); g;
       g = LLVMGetNextGlobal(g)) {
    if (!LLVMIsDeclaration(g) && LLVMGetLinkage(g) == LLVMExternalLinkage)
      LLVMSetLinkage(g, LLVMLinkOnceODRLinkage);
  }
}

/* Reads one family lazily and links it into module. */
static int link_part(library lib, LLVMModuleRef module,
                     const weft_builtin_part *part, char **error) {
  const char *base = lib.start + sizeof(weft_builtin_parts_header);
  uint64_t count = 0;
  parts(lib, &count);
  const char *bytes = base + count * sizeof *part + part->offset;
  LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(
      bytes, part->size, "weft-builtins", 0);
  LLVMModuleRef library = NULL;
  /* The lazy reader takes ownership of the buffer (not of its bytes). */
  if (LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(module), buffer,
                                     &library)) {
    *error = copy_message("internal error: cannot read the builtins of ",
                          part->family);
    return WEFT_EBUILD;
  }
  make_link_once(library);
  /* The library was compiled for the same triple; the module's layout wins. */
  LLVMSetDataLayout(library, LLVMGetDataLayoutStr(module));
  if (LLVMLinkModules2(module, library)) {
    *error = copy_message("internal error: linking the builtins failed in ",
                          part->family);
    return WEFT_EBUILD;
  }
  return 0;
}

/* Names already looked for in the library during one link. */
typedef struct name_set {
  char **names;
  size_t count, capacity;
} name_set;

/* Adds name; returns 1 if it was new, 0 if present, -1 out of memory. */
static int name_set_add(name_set *s, const char *name) {
  for (size_t i = 0; i < s->count; i++)
    if (!strcmp(s->names[i], name)) return 0;
  if (s->count == s->capacity) {
    size_t capacity = s->capacity ? 2 * s->capacity : 64;
    char **grown = realloc(s->names, capacity * sizeof *grown);
    if (!grown) return -1;
    s->names = grown;
    s->capacity = capacity;
  }
  if (!(s->names[s->count] = strdup(name))) return -1;
  s->count++;
  return 1;
}

static void name_set_free(name_set *s) {
  for (size_t i = 0; i < s->count; i++) free(s->names[i]);
  free(s->names);
}

/* The parts holding functions module declares and the library defines,
 * each part once, skipping functions looked for before (a declaration the
 * library leaves undefined is the JIT's to report); returns how many. */
static int wanted_parts(library lib, LLVMModuleRef module, name_set *seen,
                        const weft_builtin_part **wanted, size_t max,
                        size_t *n) {
  *n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f;
       f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f)) continue;
    const char *name = LLVMGetValueName(f);
    char family[WEFT_BUILTIN_FAMILY_MAX];
    weft__builtin_family(name, family, sizeof family);
    const weft_builtin_part *p = find_part(lib, family);
    if (!p) continue;
    int added = name_set_add(seen, name);
    if (added < 0) return WEFT_ENOMEM;
    int listed = !added;
    for (size_t i = 0; i < *n && !listed; i++) listed = wanted[i] == p;
    if (!listed && *n < max) wanted[(*n)++] = p;
  }
  return 0;
}

int weft__builtins_link(LLVMModuleRef module, weft_builtins_target target,
                        char **error) {
  library lib = library_of(target);
  uint64_t count = 0;
  if (!parts(lib, &count)) {
    *error = copy_message("internal error: ", "the builtin library is damaged");
    return WEFT_EBUILD;
  }
  /* A family's code may call builtins of other families: go on until a
   * round finds no new declared function the library holds. A family is
   * linked again only for a newly declared overload (link-once definitions
   * already there are not copied twice). */
  const weft_builtin_part **wanted = calloc(count + 1, sizeof *wanted);
  name_set seen = {0};
  int rc = wanted ? 0 : WEFT_ENOMEM;
  for (;;) {
    size_t n = 0;
    if (!rc) rc = wanted_parts(lib, module, &seen, wanted, count, &n);
    if (rc || !n) break;
    for (size_t i = 0; i < n && !rc; i++)
      rc = link_part(lib, module, wanted[i], error);
  }
  name_set_free(&seen);
  free(wanted);
  return rc;
}
