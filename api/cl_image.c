/* cl_image.c: image objects (clCreateImage and its older forms), the
 * formats the device has, and clGetImageInfo. An image is a cl_mem whose
 * native object is a weft_image_create image (core/image.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/cl_memory.h"

#define ACCESS (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY)
#define HOST_ACCESS (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS)
#define HOST_PTR (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)

/* ---------------------------------------------------------- validation */

static int is_channel_order(cl_channel_order o) {
  return o >= CL_R && o <= CL_ABGR;
}

static int is_channel_type(cl_channel_type t) {
  return t >= CL_SNORM_INT8 && t <= CL_UNORM_INT_101010_2;
}

static cl_int check_format(const cl_image_format *f) {
  if (!f || !is_channel_order(f->image_channel_order) ||
      !is_channel_type(f->image_channel_data_type))
    return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
  return weft_image_element_size(f->image_channel_order,
                                 f->image_channel_data_type)
             ? CL_SUCCESS
             : CL_IMAGE_FORMAT_NOT_SUPPORTED;
}

/* The sizes the type uses, and their limits (CL_INVALID_IMAGE_SIZE past
 * them, CL_INVALID_IMAGE_DESCRIPTOR for a 0). */
static cl_int check_sizes(const cl_image_desc *d) {
  size_t w = d->image_width, h = 1, z = 1, layers = 1, max = WEFT_IMAGE2D_MAX;
  switch (d->image_type) {
  case CL_MEM_OBJECT_IMAGE1D: break;
  case CL_MEM_OBJECT_IMAGE1D_BUFFER: max = WEFT_IMAGE_BUFFER_MAX; break;
  case CL_MEM_OBJECT_IMAGE1D_ARRAY: layers = d->image_array_size; break;
  case CL_MEM_OBJECT_IMAGE2D: h = d->image_height; break;
  case CL_MEM_OBJECT_IMAGE2D_ARRAY: h = d->image_height; layers = d->image_array_size; break;
  case CL_MEM_OBJECT_IMAGE3D:
    h = d->image_height;
    z = d->image_depth;
    max = WEFT_IMAGE3D_MAX;
    break;
  default: return CL_INVALID_IMAGE_DESCRIPTOR;
  }
  if (!w || !h || !z || !layers) return CL_INVALID_IMAGE_DESCRIPTOR;
  if (w > max || h > max || z > max || layers > WEFT_IMAGE_LAYERS_MAX)
    return CL_INVALID_IMAGE_SIZE;
  return CL_SUCCESS;
}

/* The buffer an image is made over may be used so: its access allows the
 * image's (which inherits what it does not say). */
static cl_int check_access_of(cl_mem b, cl_mem_flags *flags) {
  cl_mem_flags p = b->flags;
  if (((p & CL_MEM_WRITE_ONLY) && (*flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY))) ||
      ((p & CL_MEM_READ_ONLY) && (*flags & (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY))))
    return CL_INVALID_VALUE;
  if (!(*flags & ACCESS)) *flags |= p & ACCESS;
  if (!(*flags & HOST_ACCESS)) *flags |= p & HOST_ACCESS;
  return CL_SUCCESS;
}

/* A 2D image over a buffer (cl_khr_image2d_from_buffer): rows a whole
 * number of elements apart (the pitch alignment is one pixel), the
 * buffer's memory aligned to an element (the base address alignment), and
 * every row within the buffer. A 2D image over another image would
 * reinterpret its order (sRGB, depth), which Weft has none of. */
static cl_int check_2d_over(const cl_image_desc *d, size_t element) {
  cl_mem b = d->mem_object;
  if (weft__cl_is_image_type(b->type)) return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
  size_t row = d->image_row_pitch ? d->image_row_pitch : d->image_width * element;
  if (row < d->image_width * element || row % element ||
      (b->host_ptr && (uintptr_t)b->host_ptr % element))
    return CL_INVALID_IMAGE_FORMAT_DESCRIPTOR;
  if (d->image_height > b->size / row) return CL_INVALID_IMAGE_DESCRIPTOR;
  return CL_SUCCESS;
}

/* The buffer of a 1D buffer image or a 2D image: a buffer of the
 * context, big enough, usable with the image's access. */
static cl_int check_buffer_of(cl_context c, const cl_image_desc *d,
                              size_t element, cl_mem_flags *flags) {
  cl_mem b = d->mem_object;
  int viewable = d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                 d->image_type == CL_MEM_OBJECT_IMAGE2D;
  if (!viewable || (d->image_type == CL_MEM_OBJECT_IMAGE2D && !b))
    return b ? CL_INVALID_IMAGE_DESCRIPTOR : CL_SUCCESS;
  if (!weft__cl_is(b, CL_KIND_MEM) || b->context != c)
    return CL_INVALID_IMAGE_DESCRIPTOR;
  if (*flags & HOST_PTR) return CL_INVALID_VALUE;
  if (d->image_type == CL_MEM_OBJECT_IMAGE2D) {
    cl_int rc = check_2d_over(d, element);
    return rc ? rc : check_access_of(b, flags);
  }
  if (weft__cl_check_is_buffer(b)) return CL_INVALID_IMAGE_DESCRIPTOR;
  if (d->image_width > b->size / element) return CL_INVALID_IMAGE_SIZE;
  return check_access_of(b, flags);
}

/* Pitches: 0 without host memory or a buffer; with host memory, at least
 * a row (a slice) and a multiple of the element (the row). A 1D buffer
 * image's row pitch, if given, is at least its row, and means nothing
 * else (the CTS gives one). */
static cl_int check_pitches(const cl_image_desc *d, size_t element,
                            const void *host) {
  if (d->image_type == CL_MEM_OBJECT_IMAGE2D && d->mem_object)
    return CL_SUCCESS; /* check_2d_over's */
  if (d->image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER)
    return d->image_row_pitch && d->image_row_pitch < d->image_width * element
               ? CL_INVALID_IMAGE_DESCRIPTOR
               : CL_SUCCESS;
  if (!host) return d->image_row_pitch || d->image_slice_pitch
                        ? CL_INVALID_IMAGE_DESCRIPTOR
                        : CL_SUCCESS;
  size_t row = d->image_row_pitch ? d->image_row_pitch : d->image_width * element;
  int has_slices = d->image_type == CL_MEM_OBJECT_IMAGE3D ||
                   d->image_type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
                   d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  size_t rows = d->image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? 1 : d->image_height;
  if (row < d->image_width * element || row % element)
    return CL_INVALID_IMAGE_DESCRIPTOR;
  if (has_slices && d->image_slice_pitch &&
      (d->image_slice_pitch < row * rows || d->image_slice_pitch % row))
    return CL_INVALID_IMAGE_DESCRIPTOR;
  return CL_SUCCESS;
}

static cl_int check_image(cl_context c, cl_mem_flags *flags,
                          const cl_image_format *format,
                          const cl_image_desc *d, void *host) {
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) return CL_INVALID_CONTEXT;
  cl_int rc = weft__cl_check_mem_flags(*flags);
  if (rc) return rc;
  if ((rc = check_format(format))) return rc;
  if (!d || d->num_mip_levels || d->num_samples) return CL_INVALID_IMAGE_DESCRIPTOR;
  if ((rc = check_sizes(d))) return rc;
  size_t element = weft_image_element_size(format->image_channel_order,
                                           format->image_channel_data_type);
  if ((rc = check_buffer_of(c, d, element, flags))) return rc;
  if (!host != !(*flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_HOST_PTR;
  return check_pitches(d, element, host);
}

/* ------------------------------------------------------------- creation */

static weft_image_desc native_desc(const cl_image_format *f,
                                   const cl_image_desc *d, int keep_pitches) {
  weft_image_desc n = {(unsigned)d->image_type, f->image_channel_order,
                       f->image_channel_data_type, d->image_width, 0, 0, 0,
                       0, 0, NULL};
  cl_mem_object_type t = d->image_type;
  if (t == CL_MEM_OBJECT_IMAGE2D || t == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
      t == CL_MEM_OBJECT_IMAGE3D)
    n.height = d->image_height;
  if (t == CL_MEM_OBJECT_IMAGE3D) n.depth = d->image_depth;
  if (t == CL_MEM_OBJECT_IMAGE1D_ARRAY || t == CL_MEM_OBJECT_IMAGE2D_ARRAY)
    n.array_size = d->image_array_size;
  if (keep_pitches) {
    n.row_pitch = d->image_row_pitch;
    if (t == CL_MEM_OBJECT_IMAGE3D || t == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
        t == CL_MEM_OBJECT_IMAGE2D_ARRAY)
      n.slice_pitch = d->image_slice_pitch;
  }
  n.buffer = d->mem_object ? d->mem_object->native : NULL;
  return n;
}

/* The image's description as clGetImageInfo gives it: sizes the type
 * lacks are 0, pitches those of its storage. */
static void record(cl_mem m, const cl_image_format *f, cl_mem buffer) {
  weft_image_desc n;
  weft_image_describe(m->native, &n);
  m->type = n.type;
  m->format = *f;
  m->element_size = weft_image_element_size(n.channel_order, n.channel_type);
  m->image = (cl_image_desc){.image_type = n.type,
                             .image_width = n.width,
                             .image_height = n.height,
                             .image_depth = n.depth,
                             .image_array_size = n.array_size,
                             .image_row_pitch = n.row_pitch,
                             .image_slice_pitch = n.slice_pitch,
                             .mem_object = buffer};
  m->size = weft_buffer_size(m->native);
  if (buffer) {
    m->parent = buffer;
    clRetainMemObject(buffer);
  }
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage(cl_context c, cl_mem_flags flags,
                                              const cl_image_format *format,
                                              const cl_image_desc *desc,
                                              void *host, cl_int *errcode) {
  cl_mem m = NULL;
  cl_int rc = check_image(c, &flags, format, desc, host);
  if (!rc && !(m = weft__cl_mem_new(c, flags, 0))) rc = CL_OUT_OF_HOST_MEMORY;
  if (!rc) {
    if (!(flags & ACCESS)) m->flags |= CL_MEM_READ_WRITE;
    m->host_ptr = host;
    int over_2d = desc->image_type == CL_MEM_OBJECT_IMAGE2D && desc->mem_object;
    weft_image_desc n = native_desc(format, desc, host != NULL || over_2d);
    int status = weft_image_create(c->native, weft__cl_native_mem_flags(flags),
                                   &n, host, &m->native);
    if (status) {
      weft__cl_notify(c, weft_errmsg(c->native));
      rc = status == WEFT_ENOMEM ? CL_MEM_OBJECT_ALLOCATION_FAILURE
                                 : CL_INVALID_IMAGE_DESCRIPTOR;
      clReleaseMemObject(m);
      m = NULL;
    } else {
      record(m, format, desc->mem_object);
    }
  }
  if (errcode) *errcode = rc;
  return m;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImageWithProperties(
    cl_context c, const cl_mem_properties *props, cl_mem_flags flags,
    const cl_image_format *format, const cl_image_desc *desc, void *host,
    cl_int *errcode) {
  /* OpenCL 3.0 defines no image properties for a device like this one. */
  if (props && props[0] && weft__cl_is(c, CL_KIND_CONTEXT)) {
    if (errcode) *errcode = CL_INVALID_PROPERTY;
    return NULL;
  }
  return weft__cl_mem_keep_properties(
      clCreateImage(c, flags, format, desc, host, errcode), props, errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage2D(cl_context c, cl_mem_flags f,
                                                const cl_image_format *format,
                                                size_t w, size_t h, size_t pitch,
                                                void *host, cl_int *errcode) {
  cl_image_desc d = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = w,
                     .image_height = h, .image_row_pitch = pitch};
  return clCreateImage(c, f, format, &d, host, errcode);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context c, cl_mem_flags f,
                                                const cl_image_format *format,
                                                size_t w, size_t h, size_t d,
                                                size_t row, size_t slice,
                                                void *host, cl_int *errcode) {
  cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE3D, .image_width = w,
                        .image_height = h, .image_depth = d,
                        .image_row_pitch = row, .image_slice_pitch = slice};
  return clCreateImage(c, f, format, &desc, host, errcode);
}

/* --------------------------------------------------------------- queries */

CL_API_ENTRY cl_int CL_API_CALL clGetSupportedImageFormats(
    cl_context c, cl_mem_flags f, cl_mem_object_type t, cl_uint n,
    cl_image_format *formats, cl_uint *num) {
  const cl_mem_flags known = ACCESS | HOST_PTR | HOST_ACCESS |
                             CL_MEM_KERNEL_READ_AND_WRITE;
  if (!weft__cl_is(c, CL_KIND_CONTEXT)) return CL_INVALID_CONTEXT;
  if ((f & ~known) || !weft__cl_is_image_type(t) || (!n && formats))
    return CL_INVALID_VALUE;
  unsigned all[256][2];
  size_t count = weft_image_formats(all, 256);
  for (size_t i = 0; formats && i < count && i < n; i++)
    formats[i] = (cl_image_format){all[i][0], all[i][1]};
  if (num) *num = (cl_uint)count;
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetImageInfo(cl_mem m, cl_image_info p,
                                               size_t s, void *v, size_t *r) {
  if (!weft__cl_is(m, CL_KIND_MEM) || !weft__cl_is_image_type(m->type))
    return CL_INVALID_MEM_OBJECT;
  const cl_image_desc *d = &m->image;
  cl_uint zero = 0;
  switch (p) {
  case CL_IMAGE_FORMAT: return weft__cl_info(&m->format, sizeof m->format, s, v, r);
  case CL_IMAGE_ELEMENT_SIZE:
    return weft__cl_info(&m->element_size, sizeof(size_t), s, v, r);
  case CL_IMAGE_ROW_PITCH:
    return weft__cl_info(&d->image_row_pitch, sizeof(size_t), s, v, r);
  case CL_IMAGE_SLICE_PITCH:
    return weft__cl_info(&d->image_slice_pitch, sizeof(size_t), s, v, r);
  case CL_IMAGE_WIDTH: return weft__cl_info(&d->image_width, sizeof(size_t), s, v, r);
  case CL_IMAGE_HEIGHT: return weft__cl_info(&d->image_height, sizeof(size_t), s, v, r);
  case CL_IMAGE_DEPTH: return weft__cl_info(&d->image_depth, sizeof(size_t), s, v, r);
  case CL_IMAGE_ARRAY_SIZE:
    return weft__cl_info(&d->image_array_size, sizeof(size_t), s, v, r);
  case CL_IMAGE_BUFFER: return weft__cl_info(&d->mem_object, sizeof(cl_mem), s, v, r);
  case CL_IMAGE_NUM_MIP_LEVELS:
  case CL_IMAGE_NUM_SAMPLES: return weft__cl_info(&zero, sizeof zero, s, v, r);
  default: return CL_INVALID_VALUE;
  }
}
