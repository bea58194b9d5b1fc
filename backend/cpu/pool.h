/*
 * pool.h: the worker threads of the CPU device.
 *
 * A job runs on every worker at once (each worker then pulls work-groups
 * from the launch), and weft__pool_run returns when all workers are done.
 * Waiting spins briefly, then sleeps on a futex; a wake-up costs a system
 * call only when somebody sleeps.
 */
#ifndef WEFT_BACKEND_CPU_POOL_H
#define WEFT_BACKEND_CPU_POOL_H

#include <stddef.h>

typedef struct weft_pool weft_pool;

typedef void (*weft_pool_fn)(void *arg, unsigned worker);

/* Starts threads workers with stack_size bytes of stack each; each runs
 * init(init_arg, worker) once before any job. */
int weft__pool_create(unsigned threads, size_t stack_size, weft_pool_fn init,
                      void *init_arg, weft_pool **out);

/* Runs fn(arg, w) on every worker w and waits for all of them. Calls from
 * several threads take turns. */
void weft__pool_run(weft_pool *pool, weft_pool_fn fn, void *arg);

unsigned weft__pool_size(const weft_pool *pool);

void weft__pool_destroy(weft_pool *pool);

#endif
