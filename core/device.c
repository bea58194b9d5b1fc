/* device.c: the process's devices, made once by the back ends of
 * backend/backends.h in its order (the CPU, then each CUDA GPU the driver
 * offers), or, with WEFT_DEVICE=cuda:N, GPU N first, so that programs
 * taking the first (or OpenCL's default) device take it. */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backends.h"
#include "base/config.h"
#include "base/device_name.h"
#include "base/log.h"
#include "core/handles.h"

#define MAX_DEVICES 8

static weft_device *devices[MAX_DEVICES];
static weft_device_info infos[MAX_DEVICES];
static int num_devices;
static int init_status;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The core handle of a device a back end made (devices live as long as
 * the process). */
static int adopt(const weft_device_made *made) {
  assert(made->ops && made->state);
  weft_device *device = calloc(1, sizeof *device);
  if (!device) return WEFT_ENOMEM;
  weft__object_init(&device->object, WEFT_KIND_DEVICE);
  device->ops = made->ops;
  device->state = made->state;
  devices[num_devices++] = device;
  return 0;
}

/* Each back end's devices, in the table's order. A back end that fails
 * where it may not (the CPU) fails every call. */
static int probe_backends(void) {
  for (unsigned i = 0; i < weft__num_backends; i++) {
    const weft_backend *b = &weft__backends[i];
    char *error = NULL;
    weft_device_made made[MAX_DEVICES];
    int count =
        b->probe(weft__config(), made, MAX_DEVICES - num_devices, &error);
    if (count < 0) {
      fprintf(stderr, "weft: cannot start the %s back end: %s\n", b->name,
              error ? error : "out of memory");
      free(error);
      return count;
    }
    assert(count <= MAX_DEVICES - num_devices);
    for (int k = 0; k < count; k++)
      if (adopt(&made[k])) return WEFT_ENOMEM;
  }
  return 0;
}

/* The back ends' own words ("cuda: 1 GPU, driver 12.4; ..."), for
 * messages. */
static void backend_statuses(char *out, size_t size) {
  size_t used = 0;
  out[0] = 0;
  for (unsigned i = 0; i < weft__num_backends && used < size; i++)
    if (weft__backends[i].status)
      used += (size_t)snprintf(out + used, size - used, "%s%s: %s",
                               used ? "; " : "", weft__backends[i].name,
                               weft__backends[i].status(weft__config()));
}

/* The nth GPU's index in devices, or -1. */
static int nth_gpu(int n) {
  for (int i = 0; i < num_devices; i++)
    if (infos[i].kind == WEFT_DEVICE_GPU && n-- == 0) return i;
  return -1;
}

/* WEFT_DEVICE=cuda:N: GPU N moves to the front. Asking for a GPU that is
 * not there fails every call rather than running on the CPU unawares. */
static int put_first_gpu(void) {
  int n = weft__config()->first_gpu;
  if (n < 0) return 0;
  int at = nth_gpu(n);
  if (at < 0) {
    char why[1024];
    backend_statuses(why, sizeof why);
    fprintf(stderr, "weft: WEFT_DEVICE asks for CUDA GPU %d, and there is "
            "no such GPU (%s)\n", n, why);
    init_status = WEFT_ENODEV;
    return 1;
  }
  weft_device *gpu = devices[at];
  weft_device_info info = infos[at];
  for (int i = at; i > 0; i--) {
    devices[i] = devices[i - 1];
    infos[i] = infos[i - 1];
  }
  devices[0] = gpu;
  infos[0] = info;
  return 0;
}

/* WEFT_LOG=device: the settings read, and each device found. */
static void log_devices(void) {
  if (!weft__logging(WEFT_LOG_DEVICE)) return;
  weft__log(WEFT_LOG_DEVICE, "Weft %s", weft_version());
  for (const char *const *s = weft__config_settings(); s && *s; s++)
    if (!strncmp(*s, "WEFT_", 5)) weft__log(WEFT_LOG_DEVICE, "setting %s", *s);
  char statuses[1024];
  backend_statuses(statuses, sizeof statuses);
  weft__log(WEFT_LOG_DEVICE, "back ends: %s", statuses);
  for (int i = 0; i < num_devices; i++)
    weft__log(WEFT_LOG_DEVICE, "device %d: %s (%s), %u compute units, "
              "barriers: %s", i, infos[i].name,
              infos[i].kind == WEFT_DEVICE_CPU ? "CPU" : "GPU",
              infos[i].compute_units, infos[i].barriers);
}

static void init_devices(void) {
  init_status = probe_backends();
  if (init_status) return;
  for (int i = 0; i < num_devices; i++)
    devices[i]->ops->info(devices[i]->state, &infos[i]);
  if (put_first_gpu()) return;
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
      devices[i]->ops->schedule_history(devices[i]->state, out, size);
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
  return d ? d->ops->schedule_next(d->state) : WEFT_EINVAL;
}

int weft_schedule_replay(char *out, size_t size,
                         unsigned long long *explored) {
  weft_device *d = exploring_device();
  if (!out || !size || !d) return WEFT_EINVAL;
  return d->ops->schedule_replay(d->state, out, size, explored);
}

int weft_schedule_explored(unsigned long long *launches,
                           unsigned long long *repeats) {
  weft_device *d = exploring_device();
  if (!d) return WEFT_EINVAL;
  return d->ops->schedule_counts(d->state, launches, repeats);
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
      devices[i]->ops->schedule_seed(devices[i]->state, seed);
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

const char *weft_cuda_status(void) {
  for (unsigned i = 0; i < weft__num_backends; i++)
    if (!strcmp(weft__backends[i].name, "cuda"))
      return weft__backends[i].status(weft__config());
  return "none: Weft was built without its CUDA back end";
}

int weft_device_settle(weft_device *device, char *msg, size_t size) {
  if (msg && size) msg[0] = 0;
  if (!weft__object_is(device, WEFT_KIND_DEVICE)) return WEFT_EINVAL;
  if (!device->ops->settle) return 0;
  weft_msg m = {{0}};
  int rc = device->ops->settle(device->state, &m);
  if (rc && msg && size) snprintf(msg, size, "%s", m.text);
  return rc;
}
