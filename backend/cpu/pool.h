/*
 * pool.h: the worker threads of the CPU device.
 *
 * A job runs on every worker at once (each worker then pulls work-groups
 * from the launch), and weft__pool_run returns when all workers are done.
 * Worker 0 is the thread that calls weft__pool_run: a pool of N workers
 * starts N - 1 threads, so N workers never compete for N cores with a
 * caller that only waits, and a pool of one runs jobs inline. Waiting spins
 * briefly, then sleeps on a futex; a wake-up costs a system call only when
 * somebody sleeps.
 */
#ifndef WEFT_BACKEND_CPU_POOL_H
#define WEFT_BACKEND_CPU_POOL_H

#include <stddef.h>

typedef struct weft_pool weft_pool;

typedef void (*weft_pool_fn)(void *arg, unsigned worker);

/* Makes a pool of workers workers: threads 1 to workers - 1 start now with
 * stack_size bytes of stack, and each runs init(init_arg, worker) once
 * before any job. */
int weft__pool_create(unsigned threads, size_t stack_size, weft_pool_fn init,
                      void *init_arg, weft_pool **out);

/* Runs fn(arg, w) on the first threads workers w (worker 0 being the
 * calling thread; threads is 1, the others left asleep, or the pool's
 * size) and returns when all are done. Calls from several threads take
 * turns. */
void weft__pool_run(weft_pool *pool, weft_pool_fn fn, void *arg,
                    unsigned threads);

unsigned weft__pool_size(const weft_pool *pool);

void weft__pool_destroy(weft_pool *pool);

#endif
