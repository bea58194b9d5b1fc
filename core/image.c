/* image.c: images (weft.h): buffers with a layout that kernels' image
 * arguments point to (builtins/image_layout.h), and image and sampler
 * arguments. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins/image_layout.h"
#include "core/handles.h"

/* The largest images (weft.h: OpenCL 3.0's least for a device with
 * images, and more for 1D buffers, which are only memory). */
#define MAX_2D WEFT_IMAGE2D_MAX
#define MAX_3D WEFT_IMAGE3D_MAX
#define MAX_LAYERS WEFT_IMAGE_LAYERS_MAX
#define MAX_1D_BUFFER WEFT_IMAGE_BUFFER_MAX

/* ------------------------------------------------------------- formats */

static const unsigned every_type[] = {
    WEFT_CL_SNORM_INT8,     WEFT_CL_SNORM_INT16,     WEFT_CL_UNORM_INT8,
    WEFT_CL_UNORM_INT16,    WEFT_CL_SIGNED_INT8,     WEFT_CL_SIGNED_INT16,
    WEFT_CL_SIGNED_INT32,   WEFT_CL_UNSIGNED_INT8,   WEFT_CL_UNSIGNED_INT16,
    WEFT_CL_UNSIGNED_INT32, WEFT_CL_HALF_FLOAT,      WEFT_CL_FLOAT,
    WEFT_CL_UNORM_SHORT_565, WEFT_CL_UNORM_SHORT_555, WEFT_CL_UNORM_INT_101010};

static const unsigned every_order[] = {
    WEFT_CL_R,    WEFT_CL_A,    WEFT_CL_RG,        WEFT_CL_RA,
    WEFT_CL_RGB,  WEFT_CL_RGBA, WEFT_CL_BGRA,      WEFT_CL_ARGB,
    WEFT_CL_INTENSITY, WEFT_CL_LUMINANCE};

/* Bytes of one channel of type (0 for the packed types). */
static size_t channel_bytes(unsigned type) {
  switch (type) {
  case WEFT_CL_SNORM_INT8: case WEFT_CL_UNORM_INT8:
  case WEFT_CL_SIGNED_INT8: case WEFT_CL_UNSIGNED_INT8:
    return 1;
  case WEFT_CL_SNORM_INT16: case WEFT_CL_UNORM_INT16:
  case WEFT_CL_SIGNED_INT16: case WEFT_CL_UNSIGNED_INT16:
  case WEFT_CL_HALF_FLOAT:
    return 2;
  case WEFT_CL_SIGNED_INT32: case WEFT_CL_UNSIGNED_INT32: case WEFT_CL_FLOAT:
    return 4;
  default:
    return 0;
  }
}

/* The combinations OpenCL allows (3.0, 5.3.1.1): RGB only packed, packed
 * types only RGB, BGRA and ARGB only 8-bit, INTENSITY and LUMINANCE only
 * normalized and floating types. */
size_t weft_image_element_size(unsigned order, unsigned type) {
  size_t bytes = channel_bytes(type);
  int packed = type == WEFT_CL_UNORM_SHORT_565 ||
               type == WEFT_CL_UNORM_SHORT_555 ||
               type == WEFT_CL_UNORM_INT_101010;
  int normalized_or_float = type == WEFT_CL_SNORM_INT8 ||
                            type == WEFT_CL_SNORM_INT16 ||
                            type == WEFT_CL_UNORM_INT8 ||
                            type == WEFT_CL_UNORM_INT16 ||
                            type == WEFT_CL_HALF_FLOAT || type == WEFT_CL_FLOAT;
  switch (order) {
  case WEFT_CL_RGB:
    return packed ? (type == WEFT_CL_UNORM_INT_101010 ? 4 : 2) : 0;
  case WEFT_CL_R: case WEFT_CL_A:
    return bytes;
  case WEFT_CL_RG: case WEFT_CL_RA:
    return 2 * bytes;
  case WEFT_CL_RGBA:
    return 4 * bytes;
  case WEFT_CL_BGRA: case WEFT_CL_ARGB:
    return bytes == 1 ? 4 : 0;
  case WEFT_CL_INTENSITY: case WEFT_CL_LUMINANCE:
    return normalized_or_float ? bytes : 0;
  default:
    return 0;
  }
}

size_t weft_image_formats(unsigned (*out)[2], size_t max) {
  size_t n = 0;
  for (size_t o = 0; o < sizeof every_order / sizeof *every_order; o++)
    for (size_t t = 0; t < sizeof every_type / sizeof *every_type; t++) {
      if (!weft_image_element_size(every_order[o], every_type[t])) continue;
      if (out && n < max) {
        out[n][0] = every_order[o];
        out[n][1] = every_type[t];
      }
      n++;
    }
  return n;
}

/* --------------------------------------------------------- descriptions */

/* The sizes a type has (1 for those it lacks) and their limit, into
 * layout; 0, or a message in why. */
static int sizes_of(const weft_image_desc *d, weft_image_layout *l,
                    char *why, size_t size) {
  size_t w = d->width, h = 1, z = 1, layers = 1, max = MAX_2D;
  switch (d->type) {
  case WEFT_CL_MEM_OBJECT_IMAGE1D: break;
  case WEFT_CL_MEM_OBJECT_IMAGE1D_BUFFER: max = MAX_1D_BUFFER; break;
  case WEFT_CL_MEM_OBJECT_IMAGE1D_ARRAY: layers = d->array_size; break;
  case WEFT_CL_MEM_OBJECT_IMAGE2D: h = d->height; break;
  case WEFT_CL_MEM_OBJECT_IMAGE2D_ARRAY: h = d->height; layers = d->array_size; break;
  case WEFT_CL_MEM_OBJECT_IMAGE3D: h = d->height; z = d->depth; max = MAX_3D; break;
  default:
    snprintf(why, size, "image type %#x is not an image type Weft has",
             d->type);
    return WEFT_EINVAL;
  }
  if (!w || !h || !z || !layers || w > max || h > max || z > max ||
      layers > MAX_LAYERS) {
    snprintf(why, size, "image sizes %zu x %zu x %zu (%zu layers) are not "
             "within 1 to %zu (%u layers)", w, h, z, layers, max, MAX_LAYERS);
    return WEFT_EINVAL;
  }
  l->width = (int)w;
  l->height = (int)h;
  l->depth = (int)z;
  l->array_size = (int)layers;
  return 0;
}

/* The pitches of data laid out by d (0: packed), checked; 0, or a message
 * in why. */
static int pitches_of(const weft_image_desc *d, weft_image_layout *l,
                      char *why, size_t size) {
  size_t row = (size_t)l->width * (size_t)l->element_size;
  size_t rows = (size_t)l->height;
  size_t row_pitch = d->row_pitch ? d->row_pitch : row;
  /* A 1D array's layers are rows apart. */
  int one_d_array = d->type == WEFT_CL_MEM_OBJECT_IMAGE1D_ARRAY;
  size_t slice = one_d_array ? row_pitch : row_pitch * rows;
  size_t slice_pitch = d->slice_pitch ? d->slice_pitch : slice;
  if (row_pitch < row || row_pitch % (size_t)l->element_size ||
      slice_pitch < slice || slice_pitch % row_pitch) {
    snprintf(why, size, "pitches %zu and %zu do not fit rows of %zu bytes "
             "(%zu rows a slice)", d->row_pitch, d->slice_pitch, row,
             one_d_array ? (size_t)1 : rows);
    return WEFT_EINVAL;
  }
  l->row_pitch = row_pitch;
  l->slice_pitch = slice_pitch;
  return 0;
}

/* The bytes an image laid out as l takes. */
static size_t storage_bytes(const weft_image_layout *l) {
  size_t slices = (size_t)l->depth * (size_t)l->array_size;
  return (size_t)l->slice_pitch * (slices - 1) +
         (size_t)l->row_pitch * ((size_t)l->height - 1) +
         (size_t)l->width * (size_t)l->element_size;
}

/* The layout d describes, data laid out as host_ptr's would be; 0 or an
 * error on c with the reason. */
static int layout_of(weft_context *c, const weft_image_desc *d,
                     const void *host_ptr, weft_image_layout *l) {
  char why[192];
  memset(l, 0, sizeof *l);
  l->element_size = (int)weft_image_element_size(d->channel_order, d->channel_type);
  if (!l->element_size)
    return weft__fail(&c->object, WEFT_EINVAL, "image format (order %#x, type "
                      "%#x) is not one Weft has", d->channel_order,
                      d->channel_type);
  l->channel_order = (int)d->channel_order;
  l->channel_type = (int)d->channel_type;
  l->image_type = (int)d->type;
  int rc = sizes_of(d, l, why, sizeof why);
  if (!rc && !host_ptr && !d->buffer && (d->row_pitch || d->slice_pitch)) {
    snprintf(why, sizeof why, "pitches are given without host memory or a "
             "buffer");
    rc = WEFT_EINVAL;
  }
  if (!rc) rc = pitches_of(d, l, why, sizeof why);
  return rc ? weft__fail(&c->object, rc, "%s", why) : 0;
}

/* ------------------------------------------------------------- creating */

/* Copies host data laid out by src's pitches into the packed image b. */
static int copy_in(weft_buffer *b, const weft_image_layout *src,
                   const void *host) {
  const weft_image_layout *l = b->image;
  size_t row = (size_t)l->width * (size_t)l->element_size;
  size_t slices = (size_t)l->depth * (size_t)l->array_size;
  for (size_t z = 0; z < slices; z++)
    for (size_t y = 0; y < (size_t)l->height; y++) {
      const char *from = (const char *)host + z * src->slice_pitch + y * src->row_pitch;
      int rc = weft_buffer_write(b, z * l->slice_pitch + y * l->row_pitch,
                                 row, from);
      if (rc) return rc;
    }
  return 0;
}

/* Whether an image of type d may be a view of a buffer: a 1D buffer
 * image, and a 2D image (cl_khr_image2d_from_buffer). */
static int over_buffer(const weft_image_desc *d) {
  return d->type == WEFT_CL_MEM_OBJECT_IMAGE1D_BUFFER ||
         (d->type == WEFT_CL_MEM_OBJECT_IMAGE2D && d->buffer);
}

/* A view of desc->buffer's first bytes: a buffer that is no image, big
 * enough, whose memory is aligned to an element (so that the GPU's loads
 * of its channels are aligned). */
static int view_of_buffer(weft_context *c, unsigned flags,
                          const weft_image_desc *d, const void *host_ptr,
                          size_t bytes, size_t element, weft_buffer **out) {
  weft_buffer *b = d->buffer;
  if (!weft__object_is(b, WEFT_KIND_BUFFER) || b->image || b->size < bytes ||
      host_ptr)
    return weft__fail(&c->object, WEFT_EINVAL, "an image over a buffer needs "
                      "a buffer (not an image) of at least %zu bytes, and no "
                      "host memory", bytes);
  if ((uintptr_t)b->mem % element)
    return weft__fail(&c->object, WEFT_EINVAL, "an image over a buffer needs "
                      "the buffer's memory aligned to its %zu-byte elements",
                      element);
  return weft_buffer_create_sub(b, 0, bytes, flags, out);
}

/* The buffer that holds the image: the caller's memory, a new one, or a
 * view of desc->buffer. */
static int storage(weft_context *c, unsigned flags, const weft_image_desc *d,
                   void *host_ptr, size_t bytes, size_t element,
                   weft_buffer **out) {
  if (over_buffer(d))
    return view_of_buffer(c, flags, d, host_ptr, bytes, element, out);
  if (d->buffer)
    return weft__fail(&c->object, WEFT_EINVAL, "only 1D buffer images and 2D "
                      "images are made from a buffer");
  unsigned own = flags & ~(unsigned)WEFT_MEM_COPY_HOST_PTR;
  return weft_buffer_create(c, bytes, own,
                            flags & WEFT_MEM_USE_HOST_PTR ? host_ptr : NULL, out);
}

/* The copy of b's layout in the device's memory that kernel arguments
 * point to (a GPU's kernels cannot read the host's). */
static int place_layout(weft_context *c, weft_buffer *b) {
  weft_device *dev = c->device;
  weft_msg msg = {{0}};
  int rc = dev->ops->mem_alloc(dev->state, sizeof *b->image, NULL,
                               &b->image_arg, &msg);
  if (!rc)
    rc = dev->ops->mem_write(dev->state, b->image_arg, 0, sizeof *b->image,
                             b->image);
  if (rc)
    return weft__fail(&c->object, rc, "cannot place the image's description "
                      "in the device's memory: %s", msg.text);
  return 0;
}

int weft_image_create(weft_context *c, unsigned flags,
                      const weft_image_desc *d, void *host_ptr,
                      weft_buffer **out) {
  if (!weft__object_is(c, WEFT_KIND_CONTEXT) || !d || !out) return WEFT_EINVAL;
  weft_image_layout host, *l = malloc(sizeof *l);
  if (!l) return weft__fail(&c->object, WEFT_ENOMEM, "out of memory");
  int rc = layout_of(c, d, host_ptr, &host);
  *l = host;
  /* Kept as the host laid it out only when it is the host's memory or a
   * buffer's. */
  if (!rc && !(flags & WEFT_MEM_USE_HOST_PTR) && !over_buffer(d)) {
    weft_image_desc packed = *d;
    packed.row_pitch = packed.slice_pitch = 0;
    char unused[8];
    rc = pitches_of(&packed, l, unused, sizeof unused); /* cannot fail */
  }
  weft_buffer *b = NULL;
  if (!rc)
    rc = storage(c, flags, d, host_ptr, storage_bytes(l),
                 (size_t)l->element_size, &b);
  if (!rc) {
    l->data = (weft_layout_u64)(uintptr_t)b->mem;
    b->image = l;
    l = NULL;
    rc = place_layout(c, b);
  }
  if (!rc && (flags & WEFT_MEM_COPY_HOST_PTR) && (rc = copy_in(b, &host, host_ptr)))
    rc = weft__fail(&c->object, rc, "cannot copy the image's data in: %s",
                    weft_errmsg(b));
  free(l);
  if (rc) {
    weft_buffer_release(b);
    return rc;
  }
  *out = b;
  return 0;
}

int weft_image_describe(weft_buffer *b, weft_image_desc *out) {
  if (!weft__object_is(b, WEFT_KIND_BUFFER) || !b->image || !out)
    return WEFT_EINVAL;
  const weft_image_layout *l = b->image;
  int type = l->image_type;
  memset(out, 0, sizeof *out);
  out->type = (unsigned)type;
  out->channel_order = (unsigned)l->channel_order;
  out->channel_type = (unsigned)l->channel_type;
  out->width = (size_t)l->width;
  int has_height = type == WEFT_CL_MEM_OBJECT_IMAGE2D ||
                   type == WEFT_CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                   type == WEFT_CL_MEM_OBJECT_IMAGE3D;
  int is_array = type == WEFT_CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                 type == WEFT_CL_MEM_OBJECT_IMAGE2D_ARRAY;
  out->height = has_height ? (size_t)l->height : 0;
  out->depth = type == WEFT_CL_MEM_OBJECT_IMAGE3D ? (size_t)l->depth : 0;
  out->array_size = is_array ? (size_t)l->array_size : 0;
  out->row_pitch = (size_t)l->row_pitch;
  out->slice_pitch = has_height && !is_array && type != WEFT_CL_MEM_OBJECT_IMAGE3D
                         ? 0
                         : (size_t)l->slice_pitch;
  if (type == WEFT_CL_MEM_OBJECT_IMAGE1D || type == WEFT_CL_MEM_OBJECT_IMAGE1D_BUFFER)
    out->slice_pitch = 0;
  out->buffer = b->parent; /* the buffer it was made over, if any */
  return 0;
}

/* ------------------------------------------------------------ arguments */

/* The device's textures for b (a read-only image argument), asked for
 * once and written into the layout kernels read; where the device makes
 * none, the layout keeps zeros and reads stay the builtins' own. */
static int ask_textures(weft_buffer *b) {
  weft_device *dev = b->context->device;
  if (!dev->ops->image_textures) return 0;
  int rc = 0;
  pthread_mutex_lock(&b->object.lock);
  if (!b->textures_asked) {
    weft_image_layout *l = b->image;
    dev->ops->image_textures(dev->state, l, l->texture);
    b->textures_asked = 1;
    rc = dev->ops->mem_write(dev->state, b->image_arg,
                             offsetof(weft_image_layout, texture),
                             sizeof l->texture, l->texture);
    if (rc) {
      /* Kernels would read no handle, or a stale one: none at all. */
      dev->ops->image_textures_free(dev->state, l);
      memset(l->texture, 0, sizeof l->texture);
    }
  }
  pthread_mutex_unlock(&b->object.lock);
  return rc;
}

int weft_kernel_set_arg_image(weft_kernel *k, int index, weft_buffer *b) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL)) return WEFT_EINVAL;
  const weft_arg_desc *a = NULL;
  int rc = weft__kernel_arg(k, index, WEFT_ARG_IMAGE, &a);
  if (rc) return rc;
  if (!weft__object_is(b, WEFT_KIND_BUFFER) || !b->image)
    return weft__fail(&k->object, WEFT_EINVAL, "argument %d ('%s %s'): not "
                      "an image", index, a->type_name, a->name);
  if (b->context != k->program->context)
    return weft__fail(&k->object, WEFT_EINVAL, "argument %d: the image "
                      "belongs to another context", index);
  unsigned denied = a->access == WEFT_IMAGE_READ_ONLY    ? WEFT_MEM_WRITE_ONLY
                    : a->access == WEFT_IMAGE_WRITE_ONLY ? WEFT_MEM_READ_ONLY
                                                          : 0;
  if (a->access == WEFT_IMAGE_READ_WRITE &&
      (b->flags & (WEFT_MEM_READ_ONLY | WEFT_MEM_WRITE_ONLY)))
    denied = b->flags & (WEFT_MEM_READ_ONLY | WEFT_MEM_WRITE_ONLY);
  if (b->flags & denied)
    return weft__fail(&k->object, WEFT_EINVAL, "argument %d ('%s %s') of "
                      "kernel '%s': the image was made %s", index,
                      a->type_name, a->name, k->desc->name,
                      b->flags & WEFT_MEM_READ_ONLY ? "read-only"
                                                    : "write-only");
  if (a->access == WEFT_IMAGE_READ_ONLY && (rc = ask_textures(b)))
    return weft__fail(&k->object, rc, "argument %d ('%s %s'): cannot write "
                      "the image's textures to the device", index,
                      a->type_name, a->name);
  void *layout = b->image_arg;
  memcpy(k->args[index], &layout, sizeof layout);
  k->arg_sizes[index] = sizeof(weft_image_layout);
  weft__kernel_hold(k, (unsigned)index, b);
  k->is_set[index] = 1;
  return 0;
}

int weft_kernel_set_arg_sampler(weft_kernel *k, int index, unsigned bits) {
  if (!weft__object_is(k, WEFT_KIND_KERNEL)) return WEFT_EINVAL;
  const weft_arg_desc *a = NULL;
  int rc = weft__kernel_arg(k, index, WEFT_ARG_SAMPLER, &a);
  if (rc) return rc;
  if (bits & ~0x3Fu)
    return weft__fail(&k->object, WEFT_EINVAL, "argument %d ('%s %s'): "
                      "sampler bits %#x are not CLK_* bits", index,
                      a->type_name, a->name, bits);
  /* The bits are the pointer's value (builtins/image.cl). */
  uintptr_t value = bits;
  memcpy(k->args[index], &value, sizeof value);
  k->is_set[index] = 1;
  return 0;
}
