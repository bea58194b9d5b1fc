/* reserve.c: memory kept between work-groups (reserve.h). */
#include "backend/cpu/reserve.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "jit/kernel_abi.h"

int weft__reserve(char **mem, size_t *capacity, size_t size) {
  if (size <= *capacity) return 0;
  weft__reserve_free(mem, capacity);
  void *p = mmap(NULL, size ? size : 1, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return -1;
  *mem = p;
  *capacity = size;
  return 0;
}

int weft__reserve_heap_grow(char **mem, size_t *capacity, size_t size) {
  free(*mem);
  *mem = NULL;
  *capacity = 0;
  if (posix_memalign((void **)mem, WEFT_LOCAL_ALIGN, size)) {
    *mem = NULL;
    return -1;
  }
  *capacity = size;
  return 0;
}

void weft__reserve_free(char **mem, size_t *capacity) {
  if (*mem) munmap(*mem, *capacity);
  *mem = NULL;
  *capacity = 0;
}
