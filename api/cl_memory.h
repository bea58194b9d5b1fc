/*
 * cl_memory.h: what buffers and images share (cl_memory.c): memory
 * objects' flags and making, and the commands that move rectangles of
 * bytes or map them, which image commands (cl_image_commands.c) express
 * in bytes.
 */
#ifndef WEFT_API_CL_MEMORY_H
#define WEFT_API_CL_MEMORY_H

#include "api/cl_objects.h"

/* CL_SUCCESS, or CL_INVALID_VALUE for flags that are unknown or clash. */
cl_int weft__cl_check_mem_flags(cl_mem_flags flags);

/* The native flags (weft.h) of OpenCL's. */
unsigned weft__cl_native_mem_flags(cl_mem_flags flags);

/* A memory object of context c, a buffer until the caller says otherwise,
 * with no native memory yet; NULL without memory. */
cl_mem weft__cl_mem_new(cl_context c, cl_mem_flags flags, size_t size);

/* m (made by a ...WithProperties call) keeps its properties list for
 * CL_MEM_PROPERTIES: OpenCL 3.0 defines none here, so a list given is the
 * terminating 0 alone. Returns m, or NULL (m released) without memory. */
cl_mem weft__cl_mem_keep_properties(cl_mem m, const cl_mem_properties *props,
                                    cl_int *errcode);

/* Whether m is a buffer (not an image): CL_SUCCESS or
 * CL_INVALID_MEM_OBJECT. */
cl_int weft__cl_check_is_buffer(cl_mem m);

/* Enqueues a rectangle's move as a command of the given type: a read
 * (src to host, dst NULL), a write (host to dst, src NULL) or a copy.
 * Origins are (byte, row, slice), region (bytes, rows, slices); pitches
 * of 0 are packed. */
cl_int weft__cl_enqueue_rect(cl_command_queue q, cl_command_type type,
                             cl_mem src, cl_mem dst, cl_bool blocking,
                             const size_t *src_origin, const size_t *dst_origin,
                             const size_t *region, size_t src_row,
                             size_t src_slice, size_t dst_row, size_t dst_slice,
                             void *host, cl_uint n, const cl_event *wait,
                             cl_event *event);

/* Maps size bytes of m at offset, as a command of the given type. */
void *weft__cl_enqueue_map(cl_command_queue q, cl_mem m, cl_command_type type,
                           cl_bool blocking, cl_map_flags flags, size_t offset,
                           size_t size, cl_uint n, const cl_event *wait,
                           cl_event *event, cl_int *errcode);

/* Whether a memory object type is an image type. */
int weft__cl_is_image_type(cl_mem_object_type type);

#endif
