/* build_id.c: the GNU build ID of the library Weft's code is in (see
 * cache.h). Any change to Weft's code, or to the Clang and LLVM linked into
 * it statically, gives a new ID, so cached machine code from another build
 * of Weft is never taken for this one's. */
#include "jit/cache/cache.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static char build_id[2 * 64 + 1];

/* Notes are 4-byte aligned on every ELF target Weft runs on. */
static size_t note_align(size_t n) { return (n + 3) & ~(size_t)3; }

static int find_in_notes(const char *notes, size_t size) {
  size_t at = 0;
  while (at + sizeof(ElfW(Nhdr)) <= size) {
    const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(notes + at);
    const char *name = notes + at + sizeof *n;
    const unsigned char *desc =
        (const unsigned char *)name + note_align(n->n_namesz);
    if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
        !memcmp(name, "GNU", 4) && n->n_descsz <= 64) {
      for (size_t i = 0; i < n->n_descsz; i++)
        sprintf(build_id + 2 * i, "%02x", desc[i]);
      return 1;
    }
    at = (size_t)((const char *)desc - notes) + note_align(n->n_descsz);
  }
  return 0;
}

/* dl_iterate_phdr callback: the object whose segments hold this file's
 * code. */
static int visit(struct dl_phdr_info *info, size_t size, void *self) {
  (void)size;
  uintptr_t here = (uintptr_t)self;
  int mine = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && here >= start && here < start + ph->p_memsz)
      mine = 1;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_NOTE &&
        find_in_notes((const char *)(info->dlpi_addr + ph->p_vaddr),
                      ph->p_memsz))
      return 1;
  }
  return 1;
}

static void read_build_id(void) {
  dl_iterate_phdr(visit, (void *)(uintptr_t)&read_build_id);
}

const char *weft__build_id(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_build_id);
  return build_id[0] ? build_id : NULL;
}
