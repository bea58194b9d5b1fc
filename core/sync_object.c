/* sync_object.c: cl_weft_sync objects written by the host (weft.h:
 * weft_sync_object_size and _init). The words are those weft/kernel.h lays
 * out: {0, 0, 0, algorithm} for a mutex, {count, 0, 0, algorithm} for a
 * semaphore, {0, 0, groups, algorithm} for a barrier, whose Xiao-Feng
 * algorithm wants 2 * groups zero words after them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/object.h"
#include "core/handles.h"
#include "weft/kernel.h"
#include "weft/weft.h"

/* The largest algorithm number of each kind (index: WEFT_SYNC_*). */
static const unsigned last_algorithm[] = {
    [WEFT_SYNC_MUTEX] = WEFT_MUTEX_TICKET,
    [WEFT_SYNC_SEMAPHORE] = WEFT_SEMAPHORE_SLEEPING,
    [WEFT_SYNC_BARRIER] = WEFT_BARRIER_XIAO_FENG,
};

/* Checks the arguments; on success *bytes is the object's size. Otherwise
 * why says what is wrong. */
static int layout(int kind, long long param, unsigned algorithm,
                  size_t *bytes, const char **why) {
  if (kind < WEFT_SYNC_MUTEX || kind > WEFT_SYNC_BARRIER) {
    *why = "kind is not WEFT_SYNC_MUTEX, _SEMAPHORE or _BARRIER";
    return WEFT_EINVAL;
  }
  if (algorithm > last_algorithm[kind]) {
    *why = "no such algorithm for this kind of object (weft/kernel.h)";
    return WEFT_EINVAL;
  }
  if (kind == WEFT_SYNC_SEMAPHORE && (param < 0 || param > INT32_MAX)) {
    *why = "a semaphore's count must be from 0 to 2^31 - 1";
    return WEFT_EINVAL;
  }
  if (kind == WEFT_SYNC_BARRIER && (param < 1 || param > INT32_MAX)) {
    *why = "a barrier's number of work-groups must be from 1 to 2^31 - 1";
    return WEFT_EINVAL;
  }
  *bytes = kind == WEFT_SYNC_BARRIER
               ? WEFT_BARRIER_SIZE(algorithm, (size_t)param)
               : 4 * sizeof(uint32_t);
  return WEFT_OK;
}

int weft_sync_object_size(int kind, long long param, unsigned algorithm,
                          size_t *bytes) {
  const char *why;
  if (!bytes) return WEFT_EINVAL;
  return layout(kind, param, algorithm, bytes, &why);
}

int weft_sync_object_init(weft_buffer *buffer, size_t offset, int kind,
                          long long param, unsigned algorithm) {
  if (!weft__object_is(buffer, WEFT_KIND_BUFFER)) return WEFT_EINVAL;
  size_t bytes;
  const char *why;
  if (layout(kind, param, algorithm, &bytes, &why))
    return weft__fail(&buffer->object, WEFT_EINVAL, "%s", why);
  /* The kernels use the words with atomics. */
  if (offset % sizeof(uint32_t))
    return weft__fail(&buffer->object, WEFT_EINVAL, "offset %zu is not a "
                      "multiple of 4: the object's words are atomics", offset);
  uint32_t *words = calloc(1, bytes);
  if (!words) return WEFT_ENOMEM;
  words[0] = kind == WEFT_SYNC_SEMAPHORE ? (uint32_t)param : 0;
  words[2] = kind == WEFT_SYNC_BARRIER ? (uint32_t)param : 0;
  words[3] = algorithm;
  int rc = weft_buffer_write(buffer, offset, bytes, words);
  free(words);
  return rc;
}
