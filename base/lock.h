/*
 * lock.h: a mutex that knows its holder in debug builds, so that a
 * function whose contract is "called with the lock held" asserts it
 * (assert(weft__lock_held(l))) instead of only saying so in a comment.
 * Without NDEBUG each lock records the holding thread and each unlock (and
 * each wait on a condition) clears it; with NDEBUG it is a plain mutex and
 * weft__lock_held is not to be called.
 */
#ifndef WEFT_BASE_LOCK_H
#define WEFT_BASE_LOCK_H

#include <pthread.h>
#include <stdatomic.h>

typedef struct weft_lock {
  pthread_mutex_t mutex;
#ifndef NDEBUG
  atomic_ulong holder; /* pthread_self() of the holder; 0: none */
#endif
} weft_lock;

#ifndef NDEBUG
/* The calling thread, as a word: its thread pointer where the compiler
 * reads it in one instruction (the cooperative scheduler's lock changes
 * hands once or twice per work-group), else pthread_self(). */
static inline unsigned long weft__lock_thread(void) {
#if defined(__x86_64__) || defined(__aarch64__)
  return (unsigned long)__builtin_thread_pointer();
#else
  _Static_assert(sizeof(pthread_t) <= sizeof(unsigned long),
                 "a thread's id fits the holder word");
  return (unsigned long)pthread_self();
#endif
}
static inline void weft__lock_hold(weft_lock *l, int held) {
  atomic_store_explicit(&l->holder, held ? weft__lock_thread() : 0ul,
                        memory_order_relaxed);
}
/* Whether the calling thread holds l (debug builds only). */
static inline int weft__lock_held(weft_lock *l) {
  return atomic_load_explicit(&l->holder, memory_order_relaxed) ==
         weft__lock_thread();
}
#else
#define weft__lock_hold(l, held) ((void)0)
#endif

/* For a lock of static storage, as PTHREAD_MUTEX_INITIALIZER. */
#ifndef NDEBUG
#define WEFT_LOCK_INITIALIZER {PTHREAD_MUTEX_INITIALIZER, 0}
#else
#define WEFT_LOCK_INITIALIZER {PTHREAD_MUTEX_INITIALIZER}
#endif

/* attr may be NULL (a default mutex). */
static inline void weft__lock_init(weft_lock *l,
                                   const pthread_mutexattr_t *attr) {
  pthread_mutex_init(&l->mutex, attr);
#ifndef NDEBUG
  atomic_init(&l->holder, 0ul);
#endif
}

static inline void weft__lock_destroy(weft_lock *l) {
  pthread_mutex_destroy(&l->mutex);
}

static inline void weft__lock(weft_lock *l) {
  pthread_mutex_lock(&l->mutex);
  weft__lock_hold(l, 1);
}

static inline void weft__unlock(weft_lock *l) {
  weft__lock_hold(l, 0);
  pthread_mutex_unlock(&l->mutex);
}

/* pthread_cond_wait on l, which the caller holds, and holds again after. */
static inline void weft__lock_wait(weft_lock *l, pthread_cond_t *cond) {
  weft__lock_hold(l, 0);
  pthread_cond_wait(cond, &l->mutex);
  weft__lock_hold(l, 1);
}

#endif /* WEFT_BASE_LOCK_H */
