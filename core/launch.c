/* launch.c: NDRange validation and the launch (automatic local sizes:
 * local_size.c). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "core/buffer_shadow.h"
#include "core/handles.h"
#include "core/local_size.h"

static size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

static int check_global(weft_kernel *k, unsigned dims, const size_t *offset,
                        const size_t *global) {
  weft_object *o = &k->object;
  if (dims < 1 || dims > 3)
    return weft__fail(o, WEFT_EWORKDIM, "%u dimensions: Weft supports 1 to 3",
                      dims);
  if (!global) return weft__fail(o, WEFT_EGLOBALSIZE, "NULL global size");
  size_t total = 1;
  for (unsigned d = 0; d < dims; d++) {
    if (global[d] == 0)
      return weft__fail(o, WEFT_EGLOBALSIZE, "global size %zu in dimension %u",
                        global[d], d);
    if (offset && global[d] > SIZE_MAX - offset[d])
      return weft__fail(o, WEFT_EGLOBALSIZE, "offset + global size overflows "
                        "in dimension %u", d);
    if (total > SIZE_MAX / global[d])
      return weft__fail(o, WEFT_EGLOBALSIZE, "the NDRange has more than "
                        "SIZE_MAX work-items");
    total *= global[d];
  }
  return 0;
}

/* A kernel with reqd_work_group_size runs with exactly that size. */
static int check_required(weft_kernel *k, unsigned dims, const size_t *local) {
  const size_t *reqd = k->desc->reqd_local_size;
  if (!reqd[0]) return 0;
  for (unsigned d = 0; d < 3; d++) {
    size_t given = d < dims ? local[d] : 1;
    if (given != reqd[d])
      return weft__fail(&k->object, WEFT_EGROUPSIZE, "kernel '%s' requires "
                        "a local size of (%zu, %zu, %zu) "
                        "(reqd_work_group_size); %zu given in dimension %u",
                        k->desc->name, reqd[0], reqd[1], reqd[2], given, d);
  }
  return 0;
}

static int check_local(weft_kernel *k, unsigned dims, const size_t *global,
                       const size_t *local) {
  const weft_device_info *info = weft__device_info(k->program->context->device);
  weft_object *o = &k->object;
  int rc = check_required(k, dims, local);
  if (rc) return rc;
  size_t items = 1;
  for (unsigned d = 0; d < dims; d++) {
    if (local[d] == 0 || local[d] > info->max_work_item_sizes[d])
      return weft__fail(o, WEFT_EGROUPSIZE, "local size %zu in dimension %u is "
                        "not within 1 and %zu", local[d], d,
                        info->max_work_item_sizes[d]);
    if (global[d] % local[d])
      return weft__fail(o, WEFT_EGROUPSIZE, "local size %zu does not divide "
                        "global size %zu in dimension %u", local[d], global[d], d);
    items *= local[d];
  }
  if (items > info->max_work_group_size)
    return weft__fail(o, WEFT_EGROUPSIZE, "a work-group of %zu work-items is "
                      "larger than the maximum, %zu", items,
                      info->max_work_group_size);
  return 0;
}

/* The local size a launch asks for, else the kernel's required one, or
 * NULL: Weft chooses. */
static const size_t *asked_local(const weft_kernel *k, const size_t *local) {
  if (local) return local;
  return k->desc->reqd_local_size[0] ? k->desc->reqd_local_size : NULL;
}

/* The local size a launch runs with (all 3 entries): asked (asked_local),
 * else Weft's suggestion. */
static void local_size_of(weft_kernel *k, unsigned dims, const size_t *global,
                          const size_t *asked, size_t used[3]) {
  /* Whole sub-groups side by side want x sizes of their multiples. */
  size_t multiple = k->desc->flags & WEFT_KERNEL_SUB_GROUPS_JAMMED
                        ? weft_cpu_sub_group_width(k->desc)
                        : 1;
  if (asked)
    for (unsigned i = 0; i < 3; i++) used[i] = i < dims ? asked[i] : 1;
  else
    weft__local_size_suggest(weft__device_info(k->program->context->device),
                             dims, global, multiple, used);
}

int weft_kernel_suggest_local_size(weft_kernel *k, unsigned dims,
                                   const size_t *global, size_t *local) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL) || !local) return WEFT_EINVAL;
  int rc = check_global(k, dims, NULL, global);
  if (rc) return rc;
  size_t all[3];
  local_size_of(k, dims, global, asked_local(k, NULL), all);
  memcpy(local, all, dims * sizeof *local); /* local holds dims entries */
  return 0;
}

/* Places the __local arguments after the kernel's own __local variables:
 * each slot of a local argument receives its offset. */
static int place_local_args(weft_kernel *k, size_t *total) {
  const weft_device_info *info = weft__device_info(k->program->context->device);
  size_t offset = align_up(k->desc->local_mem_size, WEFT_LOCAL_ALIGN);
  for (unsigned i = 0; i < k->desc->num_args; i++) {
    if (k->desc->args[i].kind != WEFT_ARG_LOCAL) continue;
    uint64_t at = offset;
    memcpy(k->args[i], &at, sizeof at);
    offset += align_up(k->arg_sizes[i], WEFT_LOCAL_ALIGN);
  }
  if (offset > info->local_mem_size)
    return weft__fail(&k->object, WEFT_ELOCALMEM, "kernel '%s' needs %zu bytes "
                      "of local memory per work-group; the device has %llu",
                      k->desc->name, offset,
                      (unsigned long long)info->local_mem_size);
  *total = offset;
  return 0;
}

static int check_args_set(weft_kernel *k) {
  for (unsigned i = 0; i < k->desc->num_args; i++)
    if (!k->is_set[i])
      return weft__fail(&k->object, WEFT_EARGUNSET, "argument %u ('%s %s') of "
                        "kernel '%s' is not set", i, k->desc->args[i].type_name,
                        k->desc->args[i].name, k->desc->name);
  return 0;
}

/* A kernel with a global barrier needs all its groups resident at once: a
 * refusal now, naming the limit, beats a launch that could only deadlock
 * (on a GPU, a cooperative launch is refused the same way). */
static int check_residency(weft_kernel *k, unsigned dims, const size_t *global,
                           const size_t *local) {
  if (!(k->desc->flags & WEFT_KERNEL_GLOBAL_BARRIER)) return 0;
  const weft_device_info *info = weft__device_info(k->program->context->device);
  uint64_t groups = 1;
  for (unsigned d = 0; d < dims; d++)
    groups *= (global[d] + local[d] - 1) / local[d];
  if (groups <= info->max_resident_groups) return 0;
  return weft__fail(&k->object, WEFT_EGROUPSIZE, "kernel '%s' uses "
                    "weft_global_barrier with %llu work-groups; at most %llu "
                    "can be resident at once",
                    k->desc->name, (unsigned long long)groups,
                    (unsigned long long)info->max_resident_groups);
}

/* A cooperative kernel (cl_weft_cooperative_kernels) numbers its groups
 * along one dimension. */
static int check_resizable(weft_kernel *k, unsigned dims) {
  if (!(k->desc->flags & WEFT_KERNEL_RESIZABLE) || dims == 1) return 0;
  return weft__fail(&k->object, WEFT_EINVAL, "kernel '%s' is a cooperative "
                    "kernel (offer_kill, request_fork, "
                    "resizing_global_barrier): it runs in one dimension, "
                    "not %u", k->desc->name, dims);
}

/* Everything a launch checks; places the __local arguments too, and
 * gives the local size the launch runs with in used (all 3 entries): the
 * one asked for, else the kernel's required one (both must divide the
 * global size), else Weft's suggestion. */
static int check_launch(weft_kernel *k, unsigned dims, const size_t *offset,
                        const size_t *global, const size_t *local,
                        size_t *local_mem, size_t used[3]) {
  int rc = check_global(k, dims, offset, global);
  if (rc) return rc;
  const size_t *asked = asked_local(k, local);
  if (asked) rc = check_local(k, dims, global, asked);
  local_size_of(k, dims, global, asked, used);
  if (!rc) rc = check_residency(k, dims, global, used);
  if (!rc) rc = check_resizable(k, dims);
  if (!rc) rc = check_args_set(k);
  if (!rc) rc = place_local_args(k, local_mem);
  return rc;
}

int weft_kernel_check_launch(weft_kernel *k, unsigned dims,
                             const size_t *offset, const size_t *global,
                             const size_t *local) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL)) return WEFT_EINVAL;
  size_t local_mem, used[3];
  return check_launch(k, dims, offset, global, local, &local_mem, used);
}

/* How the kernel's work-groups run, from what its build made of it. */
static const char *how_it_runs(const weft_kernel_desc *kd) {
  if (kd->flags & WEFT_KERNEL_RESIZABLE)
    return "cooperative kernel, groups killed and forked as it runs";
  if (kd->flags & WEFT_KERNEL_GLOBAL_BARRIER)
    return "cooperative, every group resident (weft_global_barrier)";
  if (kd->flags & WEFT_KERNEL_COOPERATIVE)
    return "cooperative (its groups may wait for each other)";
  if (kd->flags & WEFT_KERNEL_SUB_GROUPS)
    return "sub-groups on fibers (a stack per work-item, taking turns)";
  if (kd->flags & WEFT_KERNEL_REGIONS)
    return "barriers as regions (a loop over work-items between them)";
  if (kd->flags & WEFT_KERNEL_HAS_BARRIER)
    return "barriers on fibers (a stack per work-item)";
  return "a loop over work-items";
}

/* Whether the launch stores the kernel's streams past the caches
 * (weft_cpu_stream_stores): its buffers together do not fit the device's
 * last-level cache. */
static int streams_past_caches(const weft_kernel *k, weft_device *dev) {
  const weft_kernel_desc *kd = k->desc;
  if (!(kd->flags & WEFT_KERNEL_STREAMS)) return 0;
  uint64_t bytes = 0;
  for (unsigned i = 0; i < kd->num_args; i++)
    if (kd->args[i].kind == WEFT_ARG_BUFFER) bytes += k->arg_sizes[i];
  return weft_cpu_stream_stores(kd, bytes, weft__device_info(dev)->cache_size);
}

/* WEFT_LOG=launch: the kernel, its sizes, how it ran and how long. */
static void log_launch(const weft_kernel *k, const weft_launch_desc *d,
                       int rc, const char *error, double seconds) {
  size_t groups = 1;
  char sizes[160];
  int n = 0;
  for (unsigned i = 0; i < d->dims; i++) {
    groups *= (d->global[i] + d->local[i] - 1) / d->local[i];
    n += snprintf(sizes + n, sizeof sizes - (size_t)n, "%s%zu", i ? "x" : "",
                  d->global[i]);
  }
  n += snprintf(sizes + n, sizeof sizes - (size_t)n, " in groups of ");
  for (unsigned i = 0; i < d->dims && n < (int)sizeof sizes; i++)
    n += snprintf(sizes + n, sizeof sizes - (size_t)n, "%s%zu", i ? "x" : "",
                  d->local[i]);
  char how[160];
  int at = snprintf(how, sizeof how, "%s", how_it_runs(k->desc));
  if (weft_cpu_sub_groups_jammed(k->desc, d->local[0], d->global[0]))
    snprintf(how, sizeof how, "whole sub-groups of %u side by side, up to "
             "%u a call (jammed)", weft_cpu_sub_group_width(k->desc),
             k->desc->jam_width);
  else if (weft_cpu_sub_groups_rows(k->desc, d->local))
    snprintf(how, sizeof how, "whole sub-groups of %u side by side, up to "
             "%u a call (jammed), a group's last, partial one on fibers",
             weft_cpu_sub_group_width(k->desc), k->desc->jam_width);
  else if (k->desc->flags & WEFT_KERNEL_JAMMED && at < (int)sizeof how)
    snprintf(how + at, sizeof how - (size_t)at, ", %u side by side (jammed)",
             k->desc->jam_width);
  at = (int)strlen(how);
  if (d->stream_stores && at < (int)sizeof how)
    snprintf(how + at, sizeof how - (size_t)at,
             ", its streams stored past the caches");
  weft__log(WEFT_LOG_LAUNCH, "kernel '%s' on %s: %s (%zu groups), %s, "
            "%s%s after %.3f ms", k->desc->name,
            weft__device_info(k->program->context->device)->name, sizes,
            groups, how,
            rc == WEFT_IN_FLIGHT ? "started" : rc ? "failed: " : "done",
            rc && rc != WEFT_IN_FLIGHT ? error : "", seconds * 1e3);
}

/* Tells the device the images the launch takes, each read through its
 * textures or written (device.h's image_use). */
static int use_images(const weft_kernel *k, weft_device *dev, weft_msg *msg) {
  const weft_kernel_desc *kd = k->desc;
  if (!dev->ops->image_use) return 0;
  for (unsigned i = 0; i < kd->num_args; i++) {
    const weft_buffer *b = k->arg_buffers[i];
    if (kd->args[i].kind != WEFT_ARG_IMAGE || !b || !b->image) continue;
    int writes = kd->args[i].access != WEFT_IMAGE_READ_ONLY;
    int rc = dev->ops->image_use(dev->state, b->image, writes, msg);
    if (rc) return rc;
  }
  return 0;
}

/* weft_kernel_launch, or weft_kernel_start where may_defer. */
static int launch(weft_kernel *k, unsigned dims, const size_t *offset,
                  const size_t *global, const size_t *local, int may_defer) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL)) return WEFT_EINVAL;
  weft_launch_desc d = {.kernel = k->desc, .binary = k->binary,
                        .args = k->args, .arg_sizes = k->arg_sizes,
                        .dims = dims, .may_defer = may_defer};
  int rc = check_launch(k, dims, offset, global, local, &d.local_mem_size,
                        d.local);
  if (rc) return rc;
  weft_device *dev = k->program->context->device;
  weft__shadow_launch(k);
  d.arg_shadows = k->arg_shadows;
  for (unsigned i = 0; i < 3; i++) {
    d.offset[i] = offset && i < dims ? offset[i] : 0;
    d.global[i] = i < dims ? global[i] : 1;
  }
  d.stream_stores = streams_past_caches(k, dev);
  weft_msg msg = {{0}};
  double start = weft__logging(WEFT_LOG_LAUNCH) ? weft__log_now() : 0;
  rc = use_images(k, dev, &msg);
  if (!rc) rc = dev->ops->launch(dev->state, &d, &msg);
  if (start) log_launch(k, &d, rc, msg.text, weft__log_now() - start);
  if (rc == WEFT_IN_FLIGHT) return rc;
  if (rc) return weft__fail(&k->object, rc, "%s", msg.text);
  return 0;
}

int weft_kernel_launch(weft_kernel *k, unsigned dims, const size_t *offset,
                       const size_t *global, const size_t *local) {
  return launch(k, dims, offset, global, local, 0);
}

int weft_kernel_start(weft_kernel *k, unsigned dims, const size_t *offset,
                      const size_t *global, const size_t *local) {
  return launch(k, dims, offset, global, local, 1);
}
