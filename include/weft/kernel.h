/*
 * weft/kernel.h: Weft's OpenCL C extension, cl_weft_sync: work-groups that
 * wait for each other. Every kernel Weft builds sees this header (the
 * front end includes it); a kernel meant for other platforms too can test
 * #ifdef cl_weft_sync.
 *
 * The objects live in global memory, in a buffer the host initializes
 * (weft_sync_*_init in weft.h, or clWeftSyncInit* through the OpenCL
 * extension) or a kernel does (weft_*_init below), before the work-groups
 * that use them start.
 *
 * The work-item functions act for the work-item that calls them: with the
 * spec's barrier() around them, one work-item can act for its group. The
 * _group functions do that for you: every work-item of the group calls
 * them (as with barrier()), one of them acts, the others wait for it.
 *
 * On the CPU these never hang a correct kernel: a waiting group yields its
 * thread to the others, whatever the numbers of groups and threads. A
 * kernel whose groups wait for each other for ever fails with
 * WEFT_EDEADLOCK, naming each waiting group and what it waits on.
 */
#ifndef WEFT_KERNEL_H
#define WEFT_KERNEL_H

#define cl_weft_sync 1

/* A mutual exclusion lock (16 bytes; zero is an unlocked mutex). */
typedef struct weft_mutex {
  uint word[4];
} weft_mutex;

/* A counting semaphore (16 bytes; its count is set when initialized). */
typedef struct weft_semaphore {
  uint word[4];
} weft_semaphore;

/* A barrier for a given number of work-groups (16 bytes). */
typedef struct weft_barrier {
  uint word[4];
} weft_barrier;

void __attribute__((overloadable)) weft_mutex_init(__global weft_mutex *m);
void __attribute__((overloadable)) weft_mutex_lock(__global weft_mutex *m);
/* 1 if it took the mutex, 0 if the mutex was held. */
int __attribute__((overloadable)) weft_mutex_trylock(__global weft_mutex *m);
void __attribute__((overloadable)) weft_mutex_unlock(__global weft_mutex *m);
void __attribute__((overloadable, convergent))
weft_mutex_lock_group(__global weft_mutex *m);
void __attribute__((overloadable, convergent))
weft_mutex_unlock_group(__global weft_mutex *m);

void __attribute__((overloadable))
weft_semaphore_init(__global weft_semaphore *s, int count);
void __attribute__((overloadable))
weft_semaphore_wait(__global weft_semaphore *s);
void __attribute__((overloadable))
weft_semaphore_post(__global weft_semaphore *s);
void __attribute__((overloadable, convergent))
weft_semaphore_wait_group(__global weft_semaphore *s);
void __attribute__((overloadable, convergent))
weft_semaphore_post_group(__global weft_semaphore *s);

void __attribute__((overloadable))
weft_barrier_init(__global weft_barrier *b, uint groups);
/* Every work-item of each of the groups the barrier counts calls it; none
 * goes on before all those groups have arrived. */
void __attribute__((overloadable, convergent))
weft_barrier_wait(__global weft_barrier *b);

/* A barrier over every work-group of the launch, which must all be
 * resident at once (Weft holds up to 65536). Every work-item calls it. */
void __attribute__((overloadable, convergent)) weft_global_barrier(void);

#endif
