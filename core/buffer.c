/* buffer.c: buffers, their copies and their mappings. */
#include <stdlib.h>
#include <string.h>

#include "builtins/image_layout.h"
#include "core/buffer_shadow.h"
#include "core/handles.h"

#define ACCESS_FLAGS (WEFT_MEM_READ_ONLY | WEFT_MEM_WRITE_ONLY)
#define HOST_FLAGS (WEFT_MEM_USE_HOST_PTR | WEFT_MEM_COPY_HOST_PTR)

static int check_flags(weft_context *c, size_t size, unsigned flags,
                       void *host_ptr) {
  weft_object *o = &c->object;
  if (flags & ~(ACCESS_FLAGS | HOST_FLAGS | WEFT_MEM_UNDEFINED))
    return weft__fail(o, WEFT_EINVAL, "unknown buffer flags 0x%x", flags);
  if ((flags & HOST_FLAGS) && (flags & WEFT_MEM_UNDEFINED))
    return weft__fail(o, WEFT_EINVAL, "a buffer with host data is not "
                      "WEFT_MEM_UNDEFINED");
  if ((flags & ACCESS_FLAGS) == ACCESS_FLAGS)
    return weft__fail(o, WEFT_EINVAL, "a buffer cannot be both read-only "
                      "and write-only");
  if ((flags & HOST_FLAGS) == HOST_FLAGS)
    return weft__fail(o, WEFT_EINVAL, "USE_HOST_PTR and COPY_HOST_PTR "
                      "exclude each other");
  if ((flags & HOST_FLAGS) && !host_ptr)
    return weft__fail(o, WEFT_EINVAL, "USE_HOST_PTR and COPY_HOST_PTR need "
                      "a host pointer");
  if (!(flags & HOST_FLAGS) && host_ptr)
    return weft__fail(o, WEFT_EINVAL, "a host pointer needs USE_HOST_PTR or "
                      "COPY_HOST_PTR");
  const weft_device_info *info = weft__device_info(c->device);
  if (size == 0 || size > info->max_alloc_size)
    return weft__fail(o, WEFT_EINVAL, "buffer size %zu is not within 1 and "
                      "%llu bytes", size, (unsigned long long)info->max_alloc_size);
  return 0;
}

int weft_buffer_create(weft_context *c, size_t size, unsigned flags,
                       void *host_ptr, weft_buffer **out) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT) || !out) return WEFT_EINVAL;
  int rc = check_flags(c, size, flags, host_ptr);
  if (rc) return rc;
  weft_buffer *b = calloc(1, sizeof *b);
  if (!b) return weft__fail(&c->object, WEFT_ENOMEM, "out of memory");
  weft_device *dev = c->device;
  weft_msg msg = {{0}};
  void *use = flags & WEFT_MEM_USE_HOST_PTR ? host_ptr : NULL;
  rc = dev->ops->mem_alloc(dev->state, size, use, &b->mem, &msg);
  if (!rc && (flags & WEFT_MEM_COPY_HOST_PTR))
    rc = dev->ops->mem_write(dev->state, b->mem, 0, size, host_ptr);
  if (rc) {
    if (b->mem) dev->ops->mem_free(dev->state, b->mem, size, use);
    free(b);
    return weft__fail(&c->object, rc, "cannot create a buffer of %zu bytes: %s",
                      size, msg.text);
  }
  weft__object_init(&b->object, WEFT_KIND_BUFFER);
  b->context = c;
  b->size = size;
  b->flags = flags;
  b->host_ptr = use;
  weft__shadow_created(b, (flags & WEFT_MEM_UNDEFINED) != 0);
  weft_context_retain(c);
  *out = b;
  return 0;
}

void weft_buffer_retain(weft_buffer *b) {
  if (weft__object_is(b, WEFT_KIND_BUFFER)) weft__object_retain(&b->object);
}

void weft_buffer_release(weft_buffer *b) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER) || !weft__object_release(&b->object))
    return;
  weft_device *dev = b->context->device;
  /* Textures read the storage: gone before it goes. */
  if (b->textures_asked)
    dev->ops->image_textures_free(dev->state, b->image);
  if (b->parent) weft_buffer_release(b->parent);
  else dev->ops->mem_free(dev->state, b->mem, b->size, b->host_ptr);
  weft__shadow_free(b);
  weft_context *c = b->context;
  if (b->image_arg)
    dev->ops->mem_free(dev->state, b->image_arg, sizeof *b->image, NULL);
  free(b->image);
  free(b->maps);
  weft__object_fini(&b->object);
  free(b);
  weft_context_release(c);
}

size_t weft_buffer_size(weft_buffer *b) {
  return weft__object_is(b, WEFT_KIND_BUFFER) ? b->size : 0;
}

/* Validates a byte range of the buffer, without overflow. */
static int check_range(weft_buffer *b, size_t offset, size_t size,
                       const void *ptr) {
  if (!ptr) return weft__fail(&b->object, WEFT_EINVAL, "NULL host pointer");
  if (size == 0) return weft__fail(&b->object, WEFT_EINVAL, "size is 0");
  if (offset > b->size || size > b->size - offset)
    return weft__fail(&b->object, WEFT_ERANGE, "bytes %zu to %zu lie outside "
                      "the %zu-byte buffer", offset, offset + size, b->size);
  return 0;
}

int weft_buffer_create_sub(weft_buffer *parent, size_t offset, size_t size,
                           unsigned flags, weft_buffer **out) {
  if (!weft__object_is(parent, WEFT_KIND_BUFFER) || !out) return WEFT_EINVAL;
  weft_object *o = &parent->object;
  if (flags & ~ACCESS_FLAGS)
    return weft__fail(o, WEFT_EINVAL, "a sub-buffer takes only access flags "
                      "(0x%x given)", flags);
  if ((flags & ACCESS_FLAGS) == ACCESS_FLAGS)
    return weft__fail(o, WEFT_EINVAL, "a buffer cannot be both read-only "
                      "and write-only");
  if (size == 0 || offset > parent->size || size > parent->size - offset)
    return weft__fail(o, WEFT_ERANGE, "bytes %zu to %zu lie outside the "
                      "%zu-byte buffer", offset, offset + size, parent->size);
  weft_buffer *b = calloc(1, sizeof *b);
  if (!b) return weft__fail(o, WEFT_ENOMEM, "out of memory");
  weft__object_init(&b->object, WEFT_KIND_BUFFER);
  b->context = parent->context;
  b->size = size;
  b->flags = flags;
  b->mem = (char *)parent->mem + offset;
  b->host_ptr = parent->host_ptr ? (char *)parent->host_ptr + offset : NULL;
  b->parent = parent;
  weft_buffer_retain(parent);
  weft_context_retain(b->context);
  *out = b;
  return 0;
}

/* A device's failure to move bytes of b, as an error on b. */
static int device_failed(weft_buffer *b, int rc, const char *what,
                         size_t offset, size_t size) {
  return weft__fail(&b->object, rc, "the device could not %s bytes %zu to "
                    "%zu of the buffer (%s)", what, offset, offset + size,
                    weft_strerror(rc));
}

int weft_buffer_write(weft_buffer *b, size_t offset, size_t size,
                      const void *src) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER)) return WEFT_EINVAL;
  int rc = check_range(b, offset, size, src);
  if (rc) return rc;
  weft_device *dev = b->context->device;
  weft__shadow_written(b, offset, size);
  rc = dev->ops->mem_write(dev->state, b->mem, offset, size, src);
  return rc ? device_failed(b, rc, "write", offset, size) : 0;
}

int weft_buffer_read(weft_buffer *b, size_t offset, size_t size, void *dst) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER)) return WEFT_EINVAL;
  int rc = check_range(b, offset, size, dst);
  if (rc) return rc;
  weft_device *dev = b->context->device;
  rc = dev->ops->mem_read(dev->state, b->mem, offset, size, dst);
  return rc ? device_failed(b, rc, "read", offset, size) : 0;
}

int weft_buffer_copy(weft_buffer *src, size_t src_offset, weft_buffer *dst,
                     size_t dst_offset, size_t size) {
  if (!weft__object_is(src, WEFT_KIND_BUFFER) ||
      !weft__object_is(dst, WEFT_KIND_BUFFER))
    return WEFT_EINVAL;
  if (src->context != dst->context)
    return weft__fail(&dst->object, WEFT_EINVAL, "the buffers belong to "
                      "different contexts");
  int rc = check_range(src, src_offset, size, src);
  if (!rc) rc = check_range(dst, dst_offset, size, dst);
  if (rc) return rc;
  weft_device *dev = dst->context->device;
  weft__shadow_copied(src, src_offset, dst, dst_offset, size);
  return dev->ops->mem_copy(dev->state, dst->mem, dst_offset, src->mem,
                            src_offset, size);
}

int weft_buffer_fill(weft_buffer *b, const void *pattern, size_t pattern_size,
                     size_t offset, size_t size) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER)) return WEFT_EINVAL;
  int rc = check_range(b, offset, size, pattern);
  if (rc) return rc;
  if (pattern_size == 0 || pattern_size > 128 || size % pattern_size ||
      offset % pattern_size)
    return weft__fail(&b->object, WEFT_EINVAL, "a %zu-byte pattern cannot "
                      "fill %zu bytes at offset %zu", pattern_size, size, offset);
  weft_device *dev = b->context->device;
  weft__shadow_written(b, offset, size);
  return dev->ops->mem_fill(dev->state, b->mem, offset, size, pattern,
                            pattern_size);
}

static int add_mapping(weft_buffer *b, weft_mapping m) {
  if (b->num_maps == b->map_capacity) {
    unsigned capacity = b->map_capacity ? 2 * b->map_capacity : 4;
    weft_mapping *grown = realloc(b->maps, capacity * sizeof *grown);
    if (!grown) return WEFT_ENOMEM;
    b->maps = grown;
    b->map_capacity = capacity;
  }
  b->maps[b->num_maps++] = m;
  return 0;
}

int weft_buffer_map(weft_buffer *b, size_t offset, size_t size,
                    unsigned map_flags, void **ptr) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER)) return WEFT_EINVAL;
  int rc = check_range(b, offset, size, ptr);
  if (rc) return rc;
  if (!map_flags || (map_flags & ~(WEFT_MAP_READ | WEFT_MAP_WRITE)))
    return weft__fail(&b->object, WEFT_EINVAL, "map flags must be "
                      "WEFT_MAP_READ, WEFT_MAP_WRITE or both");
  weft_device *dev = b->context->device;
  /* The host may write a map for writing until it is unmapped. */
  if (map_flags & WEFT_MAP_WRITE) weft__shadow_written(b, offset, size);
  weft_mapping m = {NULL, offset, size, map_flags};
  rc = dev->ops->mem_map(dev->state, b->mem, b->host_ptr, &m);
  if (rc) return weft__fail(&b->object, rc, "the device cannot map the buffer");
  *ptr = m.ptr;
  pthread_mutex_lock(&b->object.lock);
  rc = add_mapping(b, m);
  pthread_mutex_unlock(&b->object.lock);
  if (rc) dev->ops->mem_unmap(dev->state, b->mem, b->host_ptr, &m);
  return rc;
}

/* The mapping at ptr into *m, taken off the list when take is set: 0, or
 * WEFT_EMAPPED on b when ptr is no mapping of it. */
static int find_mapping(weft_buffer *b, void *ptr, int take, weft_mapping *m) {
  pthread_mutex_lock(&b->object.lock);
  unsigned i = 0;
  while (i < b->num_maps && b->maps[i].ptr != ptr) i++;
  int found = i < b->num_maps;
  if (found) {
    *m = b->maps[i];
    if (take) b->maps[i] = b->maps[--b->num_maps];
  }
  pthread_mutex_unlock(&b->object.lock);
  return found ? 0 : weft__fail(&b->object, WEFT_EMAPPED, "%p is not a "
                                "mapping of this buffer", ptr);
}

int weft_buffer_map_refresh(weft_buffer *b, void *ptr) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER)) return WEFT_EINVAL;
  weft_mapping m;
  int rc = find_mapping(b, ptr, 0, &m);
  /* A map that is the memory itself sees every write already. */
  if (rc || m.ptr == (char *)b->mem + m.offset) return rc;
  weft_device *dev = b->context->device;
  rc = dev->ops->mem_read(dev->state, b->mem, m.offset, m.size, m.ptr);
  return rc ? weft__fail(&b->object, rc, "cannot read the buffer into its "
                         "mapping") : 0;
}

int weft_buffer_unmap(weft_buffer *b, void *ptr) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER)) return WEFT_EINVAL;
  weft_mapping m;
  int rc = find_mapping(b, ptr, 1, &m);
  if (rc) return rc;
  weft_device *dev = b->context->device;
  return dev->ops->mem_unmap(dev->state, b->mem, b->host_ptr, &m);
}

weft_buffer *weft__buffer_root(weft_buffer *b, size_t *offset) {
  size_t from = 0;
  while (b->parent) {
    from += (size_t)((char *)b->mem - (char *)b->parent->mem);
    b = b->parent;
  }
  if (offset) *offset = from;
  return b;
}
