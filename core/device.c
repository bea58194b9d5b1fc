/* device.c: the process's devices (the CPU, always first). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend/cpu/cpu_device.h"
#include "core/config.h"
#include "core/handles.h"

#define MAX_DEVICES 8

static weft_device *devices[MAX_DEVICES];
static weft_device_info infos[MAX_DEVICES];
static int num_devices;
static int init_status;
static pthread_once_t once = PTHREAD_ONCE_INIT;

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
  for (int i = 0; i < num_devices; i++) devices[i]->ops->info(devices[i], &infos[i]);
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

int weft_schedule_seed(unsigned long long seed) {
  int count = weft_device_count();
  if (count < 0) return count;
  for (int i = 0; i < count; i++)
    if (devices[i]->ops->schedule_seed)
      devices[i]->ops->schedule_seed(devices[i], seed);
  return 0;
}
