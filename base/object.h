/*
 * object.h: what every Weft handle starts with: a kind tag (so a wrong or
 * freed handle is refused rather than followed), a reference count, and the
 * message of the last call on it that failed (weft_errmsg).
 */
#ifndef WEFT_BASE_OBJECT_H
#define WEFT_BASE_OBJECT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define WEFT_MSG_MAX 1024

/* Messages from a back end go into a buffer the caller owns. */
typedef struct weft_msg {
  char text[WEFT_MSG_MAX];
} weft_msg;

typedef enum weft_object_kind {
  WEFT_KIND_DEVICE = 0x57460d01,
  WEFT_KIND_CONTEXT = 0x57460c02,
  WEFT_KIND_BUFFER = 0x57460b03,
  WEFT_KIND_PROGRAM = 0x57460a04,
  WEFT_KIND_KERNEL = 0x57460905
} weft_object_kind;

typedef struct weft_object {
  uint32_t kind;
  atomic_int refs;
  pthread_mutex_t lock; /* guards message, and what the owner says */
  char message[WEFT_MSG_MAX];
} weft_object;

void weft__object_init(weft_object *o, weft_object_kind kind);

/* Whether p is a live object of the kind (NULL is not). */
int weft__object_is(const void *p, weft_object_kind kind);

void weft__object_retain(weft_object *o);

/* Drops a reference; returns 1 when it was the last, after which the caller
 * frees the object (weft__object_fini first). */
int weft__object_release(weft_object *o);

void weft__object_fini(weft_object *o);

/* Records a formatted message on o and returns code, so a failing function
 * can end with "return weft__fail(&k->object, WEFT_EARGSIZE, ...)". */
int weft__fail(weft_object *o, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
