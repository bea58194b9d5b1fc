/* cl_image_commands.c: the commands on images (read, write, copy, fill,
 * map, copies to and from buffers). An image's elements are rows of bytes
 * in its storage, so each is a rectangle of bytes (cl_memory.h) once its
 * origin and region are turned into bytes, rows and slices; a fill
 * encodes its colour in the image's format (weft_image_fill). */
#include <stdlib.h>
#include <string.h>

#include "api/cl_memory.h"
#include "api/cl_queue.h"

static int is_image(cl_mem m) {
  return weft__cl_is(m, CL_KIND_MEM) && weft__cl_is_image_type(m->type);
}

/* The image's elements along x, y, z as OpenCL's origins and regions
 * count them (a 1D array's layers are y, a 2D array's z). */
static void limits(cl_mem m, size_t out[3]) {
  const cl_image_desc *d = &m->image;
  out[0] = d->image_width;
  out[1] = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? d->image_array_size
           : d->image_height                        ? d->image_height
                                                    : 1;
  out[2] = m->type == CL_MEM_OBJECT_IMAGE2D_ARRAY ? d->image_array_size
           : d->image_depth                         ? d->image_depth
                                                    : 1;
}

/* The storage's pitches, each at least the one below (rect_fits's rule). */
static void storage_pitches(cl_mem m, size_t *row, size_t *slice) {
  *row = m->image.image_row_pitch;
  *slice = m->image.image_slice_pitch;
  if (!*slice) *slice = *row * (m->image.image_height ? m->image.image_height : 1);
}

/* origin and region as (byte, row, slice) of the storage: CL_INVALID_VALUE
 * when they are missing or leave the image. */
static cl_int to_bytes(cl_mem m, const size_t *origin, const size_t *region,
                       size_t o[3], size_t r[3]) {
  if (!origin || !region) return CL_INVALID_VALUE;
  size_t lim[3];
  limits(m, lim);
  for (int d = 0; d < 3; d++)
    if (!region[d] || origin[d] > lim[d] || region[d] > lim[d] - origin[d])
      return CL_INVALID_VALUE;
  size_t es = m->element_size;
  int layers_in_y = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  o[0] = origin[0] * es;
  o[1] = layers_in_y ? 0 : origin[1];
  o[2] = layers_in_y ? origin[1] : origin[2];
  r[0] = region[0] * es;
  r[1] = layers_in_y ? 1 : region[1];
  r[2] = layers_in_y ? region[1] : region[2];
  return CL_SUCCESS;
}

/* The host's pitches for a read or write of region (0: packed), checked:
 * a 1D or 2D image's host has no slices. */
static cl_int host_pitches(cl_mem m, const size_t *region, size_t *row,
                           size_t *slice) {
  size_t bytes = region[0] * m->element_size;
  int one_d_array = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
  int slices = one_d_array || m->type == CL_MEM_OBJECT_IMAGE2D_ARRAY ||
               m->type == CL_MEM_OBJECT_IMAGE3D;
  if (!slices && *slice) return CL_INVALID_VALUE;
  if (!*row) *row = bytes;
  if (*row < bytes) return CL_INVALID_VALUE;
  size_t least = one_d_array ? *row : *row * region[1];
  if (!*slice) *slice = least;
  if (*slice < least) return CL_INVALID_VALUE;
  /* A 1D array's host layers are rows apart by the slice pitch. */
  if (one_d_array) *row = *slice;
  return CL_SUCCESS;
}

/* The checks every image command makes of its image. */
static cl_int check_image(cl_command_queue q, cl_mem m) {
  if (!weft__cl_is(q, CL_KIND_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!is_image(m)) return CL_INVALID_MEM_OBJECT;
  if (m->context != q->context) return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

static cl_int read_or_write(cl_command_queue q, cl_mem m, int write,
                            cl_bool blocking, const size_t *origin,
                            const size_t *region, size_t row, size_t slice,
                            void *host, cl_uint n, const cl_event *wait,
                            cl_event *event) {
  size_t o[3], r[3], zero[3] = {0, 0, 0}, srow, sslice;
  cl_int rc = check_image(q, m);
  if (!rc) rc = to_bytes(m, origin, region, o, r);
  if (!rc) rc = host_pitches(m, region, &row, &slice);
  if (rc) return rc;
  storage_pitches(m, &srow, &sslice);
  if (write)
    return weft__cl_enqueue_rect(q, CL_COMMAND_WRITE_IMAGE, NULL, m, blocking,
                                 zero, o, r, row, slice, srow, sslice, host, n,
                                 wait, event);
  return weft__cl_enqueue_rect(q, CL_COMMAND_READ_IMAGE, m, NULL, blocking, o,
                               zero, r, srow, sslice, row, slice, host, n, wait,
                               event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadImage(
    cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *origin,
    const size_t *region, size_t row, size_t slice, void *ptr, cl_uint n,
    const cl_event *wait, cl_event *event) {
  return read_or_write(q, m, 0, blocking, origin, region, row, slice, ptr, n,
                       wait, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(
    cl_command_queue q, cl_mem m, cl_bool blocking, const size_t *origin,
    const size_t *region, size_t row, size_t slice, const void *ptr,
    cl_uint n, const cl_event *wait, cl_event *event) {
  return read_or_write(q, m, 1, blocking, origin, region, row, slice,
                       (void *)ptr, n, wait, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImage(
    cl_command_queue q, cl_mem src, cl_mem dst, const size_t *src_origin,
    const size_t *dst_origin, const size_t *region, cl_uint n,
    const cl_event *wait, cl_event *event) {
  size_t so[3], sr[3], dO[3], dr[3], srow, sslice, drow, dslice;
  cl_int rc = check_image(q, src);
  if (!rc) rc = check_image(q, dst);
  if (rc) return rc;
  if (src->format.image_channel_order != dst->format.image_channel_order ||
      src->format.image_channel_data_type != dst->format.image_channel_data_type)
    return CL_IMAGE_FORMAT_MISMATCH;
  rc = to_bytes(src, src_origin, region, so, sr);
  if (!rc) rc = to_bytes(dst, dst_origin, region, dO, dr);
  if (rc) return rc;
  storage_pitches(src, &srow, &sslice);
  storage_pitches(dst, &drow, &dslice);
  return weft__cl_enqueue_rect(q, CL_COMMAND_COPY_IMAGE, src, dst, CL_FALSE,
                               so, dO, sr, srow, sslice, drow, dslice, NULL, n,
                               wait, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyImageToBuffer(
    cl_command_queue q, cl_mem src, cl_mem dst, const size_t *src_origin,
    const size_t *region, size_t offset, cl_uint n, const cl_event *wait,
    cl_event *event) {
  size_t so[3], r[3], srow, sslice;
  cl_int rc = check_image(q, src);
  if (!rc && (!weft__cl_is(dst, CL_KIND_MEM) || weft__cl_check_is_buffer(dst)))
    rc = CL_INVALID_MEM_OBJECT;
  if (!rc) rc = to_bytes(src, src_origin, region, so, r);
  if (rc) return rc;
  storage_pitches(src, &srow, &sslice);
  size_t dO[3] = {offset, 0, 0};
  return weft__cl_enqueue_rect(q, CL_COMMAND_COPY_IMAGE_TO_BUFFER, src, dst,
                               CL_FALSE, so, dO, r, srow, sslice, r[0],
                               r[0] * r[1], NULL, n, wait, event);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferToImage(
    cl_command_queue q, cl_mem src, cl_mem dst, size_t offset,
    const size_t *dst_origin, const size_t *region, cl_uint n,
    const cl_event *wait, cl_event *event) {
  size_t dO[3], r[3], drow, dslice;
  cl_int rc = check_image(q, dst);
  if (!rc && (!weft__cl_is(src, CL_KIND_MEM) || weft__cl_check_is_buffer(src)))
    rc = CL_INVALID_MEM_OBJECT;
  if (!rc) rc = to_bytes(dst, dst_origin, region, dO, r);
  if (rc) return rc;
  storage_pitches(dst, &drow, &dslice);
  size_t so[3] = {offset, 0, 0};
  return weft__cl_enqueue_rect(q, CL_COMMAND_COPY_BUFFER_TO_IMAGE, src, dst,
                               CL_FALSE, so, dO, r, r[0], r[0] * r[1], drow,
                               dslice, NULL, n, wait, event);
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapImage(
    cl_command_queue q, cl_mem m, cl_bool blocking, cl_map_flags flags,
    const size_t *origin, const size_t *region, size_t *row_pitch,
    size_t *slice_pitch, cl_uint n, const cl_event *wait, cl_event *event,
    cl_int *errcode) {
  size_t o[3], r[3], row, slice;
  cl_int rc = check_image(q, m);
  if (!rc) rc = to_bytes(m, origin, region, o, r);
  int slices = !rc && (m->type == CL_MEM_OBJECT_IMAGE3D ||
                       m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ||
                       m->type == CL_MEM_OBJECT_IMAGE2D_ARRAY);
  if (!rc && (!row_pitch || (slices && !slice_pitch))) rc = CL_INVALID_VALUE;
  if (rc) {
    if (errcode) *errcode = rc;
    return NULL;
  }
  storage_pitches(m, &row, &slice);
  size_t offset = o[2] * slice + o[1] * row + o[0];
  size_t size = (r[2] - 1) * slice + (r[1] - 1) * row + r[0];
  void *p = weft__cl_enqueue_map(q, m, CL_COMMAND_MAP_IMAGE, blocking, flags,
                                 offset, size, n, wait, event, errcode);
  if (p) {
    *row_pitch = m->type == CL_MEM_OBJECT_IMAGE1D_ARRAY ? slice : row;
    if (slice_pitch) *slice_pitch = slices ? slice : 0;
  }
  return p;
}

/* ---------------------------------------------------------------- fill */

typedef struct fill {
  cl_mem image;                 /* retained */
  unsigned char color[16];
  size_t origin[3], region[3];  /* elements, an array's layer in z */
} fill;

static cl_int run_fill(cl_command *c) {
  fill *f = (fill *)c->payload;
  int status = weft_image_fill(f->image->native, f->color, f->origin, f->region);
  if (status) weft__cl_notify(c->queue->context, weft_errmsg(f->image->native));
  return weft__cl_error(status);
}

static void fill_finish(cl_command *c) {
  clReleaseMemObject(((fill *)c->payload)->image);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillImage(
    cl_command_queue q, cl_mem m, const void *color, const size_t *origin,
    const size_t *region, cl_uint n, const cl_event *wait, cl_event *event) {
  size_t o[3], r[3];
  cl_int rc = check_image(q, m);
  if (!rc && !color) rc = CL_INVALID_VALUE;
  if (!rc) rc = to_bytes(m, origin, region, o, r);
  if (rc) return rc;
  cl_command *c = weft__cl_command_new(sizeof(fill));
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  fill *f = (fill *)c->payload;
  f->image = m;
  clRetainMemObject(m);
  memcpy(f->color, color, sizeof f->color);
  /* Elements again, an array's layer as z (weft_image_fill's). */
  f->origin[0] = o[0] / m->element_size;
  f->region[0] = r[0] / m->element_size;
  for (int d = 1; d < 3; d++) {
    f->origin[d] = o[d];
    f->region[d] = r[d];
  }
  c->run = run_fill;
  c->finish = fill_finish;
  return weft__cl_enqueue(q, CL_COMMAND_FILL_IMAGE, n, wait, event, c);
}
