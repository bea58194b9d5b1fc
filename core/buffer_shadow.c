/* buffer_shadow.c: which bytes of a buffer have been written, for check
 * mode's uninitialised-read check (WEFT_CHECK=uninit).
 *
 * A buffer made with WEFT_MEM_UNDEFINED (through OpenCL: without host
 * data) starts unwritten. Its root buffer keeps a byte per byte, 1 once
 * written: by the host (write, fill, copy, a map for writing: here) or by
 * a kernel built with the check, whose code marks its stores and checks
 * its loads (jit/cpu/check_uninit.c). A write no one follows -- a kernel built
 * without the check, on any device -- ends the following for good: the
 * shadow stays (a launch in flight may use it) but is handed out no more,
 * so that no read is reported that such a write may have made right.
 *
 * The shadow is made with the buffer, so that the host's first writes are
 * followed too, once a program of the process has been built with the
 * check (or under WEFT_CHECK with uninit): an application builds its
 * programs, then makes its buffers. A buffer made before (or without) that
 * gets its shadow at its first checked launch, if nothing has written it
 * yet. Shadows are anonymous mappings: pages never touched cost nothing. */
#include "core/buffer_shadow.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "base/config.h"

/* Bytes past the buffer's end in its shadow: a 3-vector's store marks
 * its fourth lane, which may lie past the buffer. */
#define SLACK 64

/* A program with the check has been built in this process. */
static atomic_int wanted;

/* Makes the shadow of root buffer b, all unwritten (0 if it cannot: then
 * stderr says so, its reads not being checked). */
static int make(weft_buffer *b) {
  void *p = mmap(NULL, b->size + SLACK, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    fprintf(stderr, "weft: check mode: no uninitialised-read check of a "
            "%zu-byte buffer: no memory for its shadow (%zu bytes more)\n",
            b->size, b->size + SLACK);
    return 0;
  }
  b->shadow = p;
  return 1;
}

void weft__shadow_program_built(const weft_binary *binary) {
  for (unsigned i = 0; i < binary->num_kernels; i++)
    if (binary->kernels[i].flags & WEFT_KERNEL_ARG_SHADOWS)
      atomic_store(&wanted, 1);
}

void weft__shadow_created(weft_buffer *b, int undefined) {
  assert(!b->parent && !b->shadow);
  int state = undefined ? WEFT_SHADOW_UNTOUCHED : WEFT_SHADOW_NONE;
  if (state == WEFT_SHADOW_UNTOUCHED &&
      (atomic_load(&wanted) || (weft__config()->check & WEFT_CHECK_UNINIT)))
    state = make(b) ? WEFT_SHADOW_TRACKED : WEFT_SHADOW_NONE;
  atomic_store(&b->shadow_state, state);
}

/* Before the host writes b's bytes from offset: their shadow, or NULL
 * when they are not followed (after this write, an untouched buffer's are
 * not either: its shadow was not made in time). */
static unsigned char *host_writes(weft_buffer *b, size_t offset) {
  size_t from;
  weft_buffer *root = weft__buffer_root(b, &from);
  if (atomic_load(&root->shadow_state) != WEFT_SHADOW_TRACKED) {
    atomic_store(&root->shadow_state, WEFT_SHADOW_NONE);
    return NULL;
  }
  return root->shadow + from + offset;
}

void weft__shadow_written(weft_buffer *b, size_t offset, size_t size) {
  unsigned char *shadow = host_writes(b, offset);
  if (shadow) memset(shadow, 1, size);
}

void weft__shadow_copied(weft_buffer *src, size_t src_offset, weft_buffer *dst,
                         size_t dst_offset, size_t size) {
  unsigned char *to = host_writes(dst, dst_offset);
  if (!to) return;
  size_t from_root;
  weft_buffer *root = weft__buffer_root(src, &from_root);
  if (atomic_load(&root->shadow_state) == WEFT_SHADOW_TRACKED)
    memmove(to, root->shadow + from_root + src_offset, size);
  else
    memset(to, 1, size);
}

/* The shadow a checked launch passes for buffer b: made now if nothing
 * has written b yet. */
static unsigned char *for_checked_launch(weft_buffer *b) {
  size_t from;
  weft_buffer *root = weft__buffer_root(b, &from);
  if (atomic_load(&root->shadow_state) == WEFT_SHADOW_UNTOUCHED) {
    pthread_mutex_lock(&root->object.lock);
    if (atomic_load(&root->shadow_state) == WEFT_SHADOW_UNTOUCHED &&
        !root->shadow) {
      /* Unless a write no one followed came meanwhile (the shadow, made
       * for nothing then, goes with the buffer). */
      int untouched = WEFT_SHADOW_UNTOUCHED;
      int made = make(root);
      atomic_compare_exchange_strong(&root->shadow_state, &untouched,
                                     made ? WEFT_SHADOW_TRACKED
                                          : WEFT_SHADOW_NONE);
    }
    pthread_mutex_unlock(&root->object.lock);
  }
  if (atomic_load(&root->shadow_state) != WEFT_SHADOW_TRACKED) return NULL;
  return root->shadow + from;
}

void weft__shadow_launch(weft_kernel *k) {
  const weft_kernel_desc *desc = k->desc;
  int checked = (desc->flags & WEFT_KERNEL_ARG_SHADOWS) != 0;
  for (unsigned i = 0; i < desc->num_args; i++) {
    weft_buffer *b = k->arg_buffers[i];
    if (checked) k->arg_shadows[i] = b ? for_checked_launch(b) : NULL;
    else if (b && desc->args[i].address_space == WEFT_ADDRESS_GLOBAL) {
      size_t from;
      atomic_store(&weft__buffer_root(b, &from)->shadow_state,
                   WEFT_SHADOW_NONE);
    }
  }
}

void weft__shadow_free(weft_buffer *b) {
  if (b->shadow) munmap(b->shadow, b->size + SLACK);
  b->shadow = NULL;
}
