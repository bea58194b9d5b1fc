/* cuda_status.c: what the CUDA driver offers on this machine, or why it
 * offers nothing (weft_cuda_status of weft.h). The driver is loaded once,
 * on first use, with the configuration's WEFT_LIBCUDA, and kept. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>

#include "backend/cuda/cuda_api.h"
#include "backend/cuda/cuda_gpu.h"
#include "weft/weft.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const weft_config *config; /* the process's one configuration */
static weft_cuda_api api;
static char status[1024];

/* "NVIDIA H100 80GB HBM3 (sm_90, 132 multiprocessors, 79.2 GiB)" for
 * each GPU, after the count and the driver's version. */
static void describe(void) {
  char why[512];
  if (weft__cuda_load(&api, config->libcuda, why, sizeof why)) {
    snprintf(status, sizeof status, "none: %s", why);
    return;
  }
  int count = weft__cuda_gpu_count(&api);
  size_t used = (size_t)snprintf(
      status, sizeof status, "%d GPU%s, driver %d.%d", count,
      count == 1 ? "" : "s", api.driver_version / 1000,
      api.driver_version % 1000 / 10);
  for (int i = 0; i < count && used < sizeof status; i++) {
    weft_cuda_gpu g;
    if (weft__cuda_gpu_describe(&api, i, &g, why, sizeof why))
      used += (size_t)snprintf(status + used, sizeof status - used,
                               "; GPU %d: %s", i, why);
    else
      used += (size_t)snprintf(
          status + used, sizeof status - used,
          "; %s (sm_%d%d, %d multiprocessors, %.1f GiB)", g.name, g.cc_major,
          g.cc_minor, g.multiprocessors, (double)g.memory / (1 << 30));
  }
}

/* Loads the driver once. */
static void load_once(const weft_config *c) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  assert(c && (!config || config == c));
  config = c;
  pthread_mutex_unlock(&lock);
  pthread_once(&once, describe);
}

const char *weft__cuda_status(const weft_config *c) {
  load_once(c);
  return status;
}

const weft_cuda_api *weft__cuda_driver(const weft_config *c) {
  load_once(c);
  return api.library ? &api : NULL;
}
