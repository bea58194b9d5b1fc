/* svm.c: shared virtual memory. Each context keeps its allocations sorted
 * by address, so a pointer anywhere inside one (a kernel argument, a host
 * pointer of a buffer) is found by binary search. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/handles.h"

#define SVM_DEFAULT_ALIGN 128
#define SVM_MAX_ALIGN 4096

/* The index of the first block whose base is above p (svm_lock held). */
static size_t upper_bound(const weft_context *c, const char *p) {
  size_t lo = 0, hi = c->num_svm;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (c->svm[mid].base <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The block holding p, or NULL (svm_lock held). */
static weft_svm_block *block_of(weft_context *c, const void *p) {
  assert(weft__lock_held(&c->svm_lock));
  size_t i = upper_bound(c, p);
  if (!i) return NULL;
  weft_svm_block *b = &c->svm[i - 1];
  return (const char *)p < b->base + b->size ? b : NULL;
}

static int insert_block(weft_context *c, char *base, size_t size) {
  if (c->num_svm == c->cap_svm) {
    size_t cap = c->cap_svm ? 2 * c->cap_svm : 16;
    weft_svm_block *grown = realloc(c->svm, cap * sizeof *grown);
    if (!grown) return WEFT_ENOMEM;
    c->svm = grown;
    c->cap_svm = cap;
  }
  size_t i = upper_bound(c, base);
  memmove(&c->svm[i + 1], &c->svm[i], (c->num_svm - i) * sizeof *c->svm);
  c->svm[i] = (weft_svm_block){base, size};
  c->num_svm++;
  return 0;
}

int weft_svm_alloc(weft_context *c, size_t size, size_t alignment, void **out) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT) || !out) return WEFT_EINVAL;
  weft_device *dev = c->device;
  const weft_device_info *info = weft__device_info(dev);
  if (!info->svm || !dev->ops->svm_alloc)
    return weft__fail(&c->object, WEFT_ENODEV, "the device has no shared "
                      "virtual memory");
  if (alignment & (alignment - 1) || alignment > SVM_MAX_ALIGN)
    return weft__fail(&c->object, WEFT_EINVAL, "SVM alignment %zu is not a "
                      "power of two up to %d", alignment, SVM_MAX_ALIGN);
  /* Every allocation suits the widest type, whatever smaller alignment
   * was asked for. */
  if (alignment < SVM_DEFAULT_ALIGN) alignment = SVM_DEFAULT_ALIGN;
  if (!size || size > info->max_alloc_size)
    return weft__fail(&c->object, WEFT_EINVAL, "SVM size %zu is not within 1 "
                      "and %llu bytes", size,
                      (unsigned long long)info->max_alloc_size);
  weft_msg msg = {{0}};
  void *p = NULL;
  int rc = dev->ops->svm_alloc(dev->state, size, alignment, &p, &msg);
  if (rc) return weft__fail(&c->object, rc, "%s", msg.text);
  weft__lock(&c->svm_lock);
  rc = insert_block(c, p, size);
  weft__unlock(&c->svm_lock);
  if (rc) {
    dev->ops->svm_free(dev->state, p, size);
    return weft__fail(&c->object, rc, "out of memory");
  }
  *out = p;
  return 0;
}

int weft_svm_free(weft_context *c, void *ptr) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT)) return WEFT_EINVAL;
  if (!ptr) return 0;
  weft__lock(&c->svm_lock);
  size_t i = upper_bound(c, ptr);
  int found = i > 0 && c->svm[i - 1].base == ptr;
  size_t size = found ? c->svm[i - 1].size : 0;
  if (found) {
    memmove(&c->svm[i - 1], &c->svm[i], (c->num_svm - i) * sizeof *c->svm);
    c->num_svm--;
  }
  weft__unlock(&c->svm_lock);
  if (!found)
    return weft__fail(&c->object, WEFT_EINVAL, "%p is not the start of an "
                      "SVM allocation of this context", ptr);
  c->device->ops->svm_free(c->device->state, ptr, size);
  return 0;
}

int weft_svm_find(weft_context *c, const void *ptr, void **base, size_t *size) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT)) return WEFT_EINVAL;
  weft__lock(&c->svm_lock);
  weft_svm_block *b = ptr ? block_of(c, ptr) : NULL;
  if (b && base) *base = b->base;
  if (b && size) *size = b->size;
  weft__unlock(&c->svm_lock);
  return b ? 0 : WEFT_EINVAL;
}
