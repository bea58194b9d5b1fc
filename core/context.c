/* context.c: contexts, which own buffers and programs on one device. */
#include <stdlib.h>

#include "core/handles.h"

int weft_context_create(weft_device *device, weft_context **out) {
  if (!weft__object_is(device, WEFT_KIND_DEVICE) || !out) return WEFT_EINVAL;
  weft_context *c = calloc(1, sizeof *c);
  if (!c) return weft__fail(&device->object, WEFT_ENOMEM, "out of memory");
  weft__object_init(&c->object, WEFT_KIND_CONTEXT);
  weft__lock_init(&c->svm_lock, NULL);
  c->device = device;
  *out = c;
  return 0;
}

void weft_context_retain(weft_context *c) {
  if (weft__object_is(c, WEFT_KIND_CONTEXT)) weft__object_retain(&c->object);
}

void weft_context_release(weft_context *c) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT) || !weft__object_release(&c->object))
    return;
  /* SVM the application did not free goes with its context. */
  for (size_t i = 0; i < c->num_svm; i++)
    c->device->ops->svm_free(c->device->state, c->svm[i].base, c->svm[i].size);
  free(c->svm);
  weft__lock_destroy(&c->svm_lock);
  weft__object_fini(&c->object);
  free(c);
}

weft_device *weft_context_device(weft_context *c) {
  return weft__object_is(c, WEFT_KIND_CONTEXT) ? c->device : NULL;
}
