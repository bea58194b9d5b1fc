/* object.c: the common header of Weft handles (see object.h). */
#include "base/object.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weft/weft.h"

void weft__object_init(weft_object *o, weft_object_kind kind) {
  o->kind = kind;
  atomic_init(&o->refs, 1);
  pthread_mutex_init(&o->lock, NULL);
  o->message[0] = 0;
}

int weft__object_is(const void *p, weft_object_kind kind) {
  return p && ((const weft_object *)p)->kind == (uint32_t)kind;
}

void weft__object_retain(weft_object *o) {
  atomic_fetch_add_explicit(&o->refs, 1, memory_order_relaxed);
}

int weft__object_release(weft_object *o) {
  /* acq_rel: the last releaser must see every write made through the other
   * references before it frees the object. */
  return atomic_fetch_sub_explicit(&o->refs, 1, memory_order_acq_rel) == 1;
}

void weft__object_fini(weft_object *o) {
  o->kind = 0; /* a stale handle is now refused */
  pthread_mutex_destroy(&o->lock);
}

int weft__fail(weft_object *o, int code, const char *fmt, ...) {
  if (!o) return code;
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&o->lock);
  vsnprintf(o->message, sizeof o->message, fmt, ap);
  pthread_mutex_unlock(&o->lock);
  va_end(ap);
  return code;
}

const char *weft_errmsg(const void *object) {
  static const weft_object_kind kinds[] = {
      WEFT_KIND_DEVICE, WEFT_KIND_CONTEXT, WEFT_KIND_BUFFER, WEFT_KIND_PROGRAM,
      WEFT_KIND_KERNEL};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
    if (weft__object_is(object, kinds[i]))
      return ((const weft_object *)object)->message;
  return "not a Weft object";
}
