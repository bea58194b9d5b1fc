/*
 * Async copies between global and local memory, and prefetch (OpenCL C 3.0,
 * 6.15.11).
 *
 * The work-items of a group run one after another on one thread, so a copy
 * shared out among them would gain nothing: the group's first work-item
 * copies everything when it reaches the call, and the others do nothing.
 * wait_group_events is a barrier, after which every work-item sees the
 * copied data. As the specification requires of the program, a barrier
 * must order the call after other work-items' writes of the source and
 * reads of the destination. The event is only a token: every copy of the
 * group is complete when wait_group_events returns.
 */
#include "builtins.h"

#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define WEFT_ALL_FENCES (CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

/* Every event, even a zero one, is a valid token for wait_group_events,
 * so the one given is returned. */
#define WEFT_ASYNC_COPY(T, DST, SRC)                                         \
  event_t WEFT_OVERLOAD async_work_group_copy(DST T *dst, const SRC T *src,  \
                                              size_t n, event_t event) {     \
    if (get_local_linear_id() == 0)                                          \
      for (size_t i = 0; i < n; i++) dst[i] = src[i];                        \
    return event;                                                            \
  }

/* Copies n elements, the i-th from src[i * SRC_STRIDE] to
 * dst[i * DST_STRIDE]. */
#define WEFT_ASYNC_STRIDED(T, DST, SRC, DST_STRIDE, SRC_STRIDE)              \
  event_t WEFT_OVERLOAD async_work_group_strided_copy(                       \
      DST T *dst, const SRC T *src, size_t n, size_t stride,                 \
      event_t event) {                                                       \
    if (get_local_linear_id() == 0)                                          \
      for (size_t i = 0; i < n; i++)                                         \
        dst[i * (DST_STRIDE)] = src[i * (SRC_STRIDE)];                       \
    return event;                                                            \
  }

/* Prefetching is a hint; a work-item prefetches at most this many bytes so
 * that many work-items naming one large range do not each walk all of it. */
#define WEFT_PREFETCH_MAX 4096

#define WEFT_ASYNC(T, unused)                                                \
  WEFT_ASYNC_COPY(T, __local, __global)                                      \
  WEFT_ASYNC_COPY(T, __global, __local)                                      \
  WEFT_ASYNC_STRIDED(T, __local, __global, 1, stride)                        \
  WEFT_ASYNC_STRIDED(T, __global, __local, stride, 1)                        \
  void WEFT_OVERLOAD prefetch(const __global T *p, size_t n) {               \
    const __global char *c = (const __global char *)p;                       \
    size_t bytes = n < WEFT_PREFETCH_MAX / sizeof(T) ? n * sizeof(T)         \
                                                     : WEFT_PREFETCH_MAX;    \
    for (size_t at = 0; at < bytes; at += 64) __builtin_prefetch(c + at);    \
  }

WEFT_EACH_INTEGER(WEFT_ASYNC, 0)
WEFT_EACH_FLOAT(WEFT_ASYNC, 0)
WEFT_EACH_WIDTH(WEFT_ASYNC, half, 0)

/* opencl-c.h declares the list generic in OpenCL C 2.0 and later, and
 * private before; Clang's builtin tables declare it generic always. */
void WEFT_OVERLOAD wait_group_events(int num_events, event_t *events) {
  (void)num_events;
  (void)events;
  barrier(WEFT_ALL_FENCES);
}

void WEFT_OVERLOAD wait_group_events(int num_events,
                                     __private event_t *events) {
  (void)num_events;
  (void)events;
  barrier(WEFT_ALL_FENCES);
}
