/* device.c: the process's devices: the CPU, then each CUDA GPU the
 * driver offers (none without libcuda.so.1), or, with WEFT_DEVICE=cuda:N,
 * GPU N first, so that programs taking the first (or OpenCL's default)
 * device take it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_device.h"
#include "backend/cuda/cuda_device.h"
#include "base/config.h"
#include "base/device_name.h"
#include "core/handles.h"
#include "base/log.h"

#define MAX_DEVICES 8

static weft_device *devices[MAX_DEVICES];
static weft_device_info infos[MAX_DEVICES];
static int num_devices;
static int init_status;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Every GPU the driver offers, after the CPU. A GPU that cannot be used
 * (too old, its context refused) is left out with a word on stderr. */
static void add_gpus(void) {
  const weft_cuda_api *api = weft__cuda_driver();
  int count = api ? weft__cuda_gpu_count(api) : 0;
  for (int i = 0; i < count && num_devices < MAX_DEVICES; i++) {
    char *error = NULL;
    if (!weft__cuda_device_create(api, i, &devices[num_devices], &error)) {
      num_devices++;
      continue;
    }
    fprintf(stderr, "weft: leaving CUDA GPU %d out: %s\n", i,
            error ? error : "out of memory");
    free(error);
  }
}

/* WEFT_DEVICE=cuda:N: GPU N moves to the front. Asking for a GPU that is
 * not there fails every call rather than running on the CPU unawares. */
static int put_first_gpu(void) {
  int n = weft__config()->first_gpu;
  if (n < 0) return 0;
  if (1 + n >= num_devices) {
    fprintf(stderr, "weft: WEFT_DEVICE asks for CUDA GPU %d, and there is "
            "no such GPU (CUDA: %s)\n", n, weft_cuda_status());
    init_status = WEFT_ENODEV;
    return 1;
  }
  weft_device *gpu = devices[1 + n];
  for (int i = 1 + n; i > 0; i--) devices[i] = devices[i - 1];
  devices[0] = gpu;
  return 0;
}

/* WEFT_LOG=device: the settings read, and each device found. */
static void log_devices(void) {
  if (!weft__logging(WEFT_LOG_DEVICE)) return;
  weft__log(WEFT_LOG_DEVICE, "Weft %s", weft_version());
  for (const char *const *s = weft__config_settings(); s && *s; s++)
    if (!strncmp(*s, "WEFT_", 5)) weft__log(WEFT_LOG_DEVICE, "setting %s", *s);
  weft__log(WEFT_LOG_DEVICE, "CUDA: %s", weft_cuda_status());
  for (int i = 0; i < num_devices; i++)
    weft__log(WEFT_LOG_DEVICE, "device %d: %s (%s), %u compute units, "
              "barriers: %s", i, infos[i].name,
              infos[i].kind == WEFT_DEVICE_CPU ? "CPU" : "GPU",
              infos[i].compute_units, infos[i].barriers);
}

static void init_devices(void) {
  char *error = NULL;
  init_status = weft__cpu_device_create(weft__config(), &devices[0], &error);
  if (init_status) {
    fprintf(stderr, "weft: cannot start the CPU device: %s\n",
            error ? error : "out of memory");
    free(error);
    return;
  }
  num_devices = 1;
  add_gpus();
  if (put_first_gpu()) return;
  for (int i = 0; i < num_devices; i++) devices[i]->ops->info(devices[i], &infos[i]);
  log_devices();
}

int weft_device_count(void) {
  pthread_once(&once, init_devices);
  return init_status ? init_status : num_devices;
}

int weft_device_get(int index, weft_device **out) {
  int count = weft_device_count();
  if (count < 0) return count;
  if (!out) return WEFT_EINVAL;
  if (index < 0 || index >= count) return WEFT_ENODEV;
  *out = devices[index];
  return 0;
}

const weft_device_info *weft__device_info(weft_device *device) {
  for (int i = 0; i < num_devices; i++)
    if (devices[i] == device) return &infos[i];
  return NULL;
}

int weft_device_info_get(weft_device *device, weft_device_info *info) {
  if (!weft__object_is(device, WEFT_KIND_DEVICE) || !info) return WEFT_EINVAL;
  *info = *weft__device_info(device);
  return 0;
}

int weft_schedule_history(char *out, size_t size) {
  if (!out || !size) return WEFT_EINVAL;
  out[0] = 0;
  int count = weft_device_count();
  if (count < 0) return count;
  for (int i = 0; i < count && !out[0]; i++)
    if (devices[i]->ops->schedule_history)
      devices[i]->ops->schedule_history(devices[i], out, size);
  return 0;
}

/* The first device with exhaustive exploration (the CPU), or NULL. */
static weft_device *exploring_device(void) {
  int count = weft_device_count();
  for (int i = 0; i < count; i++)
    if (devices[i]->ops->schedule_next) return devices[i];
  return NULL;
}

int weft_schedule_next(void) {
  weft_device *d = exploring_device();
  return d ? d->ops->schedule_next(d) : WEFT_EINVAL;
}

int weft_schedule_replay(char *out, size_t size,
                         unsigned long long *explored) {
  weft_device *d = exploring_device();
  if (!out || !size || !d) return WEFT_EINVAL;
  return d->ops->schedule_replay(d, out, size, explored);
}

int weft_schedule_explored(unsigned long long *launches,
                           unsigned long long *repeats) {
  weft_device *d = exploring_device();
  if (!d) return WEFT_EINVAL;
  return d->ops->schedule_counts(d, launches, repeats);
}

int weft_schedule_environment(unsigned long long seed, char *out,
                              size_t size) {
  const weft_config *c = weft__config();
  if (!out || !size || c->schedule == WEFT_SCHEDULE_FIFO) return WEFT_EINVAL;
  char value[64];
  weft__schedule_value(c, seed, value, sizeof value);
  snprintf(out, size, "%sWEFT_SCHEDULE=%s",
           c->weak_memory ? "WEFT_MEMORY=weak " : "", value);
  return 0;
}

int weft_schedule_seed(unsigned long long seed) {
  int count = weft_device_count();
  if (count < 0) return count;
  for (int i = 0; i < count; i++)
    if (devices[i]->ops->schedule_seed)
      devices[i]->ops->schedule_seed(devices[i], seed);
  return 0;
}

/* A device by name (base/device_name.c parses it). */
int weft_device_find(const char *name, weft_device **out) {
  weft__device_name want;
  if (!out || weft__device_name_parse(name, &want)) return WEFT_EINVAL;
  if (want.index >= 0) return weft_device_get(want.index, out);
  int count = weft_device_count(), nth = want.nth;
  for (int i = 0; i < count; i++) {
    weft_device_info info;
    if (weft_device_get(i, out) || weft_device_info_get(*out, &info)) continue;
    if (info.kind == want.kind && nth-- == 0) return 0;
  }
  return count < 0 ? count : WEFT_ENODEV;
}
