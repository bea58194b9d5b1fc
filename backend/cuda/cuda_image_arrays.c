/* cuda_image_arrays.c: CUDA arrays that hold a copy of an image for its
 * textures (cuda_device.h).
 *
 * An image's storage is linear memory in the layout every image command
 * and the software reads use (builtins/image_layout.h); a texture can read
 * 1D and 2D images there (cuda_texture.c), but arrays and 3D images only
 * from a CUDA array, whose layout the driver keeps to itself. Such an
 * image gets an array of its own when its textures are made, and the
 * array is a copy: anything that writes the image's memory (a buffer or
 * image command through cuda_memory.c, a launch that takes the image
 * writable) marks it stale, and a launch that reads the image through its
 * textures first copies the memory into the array (device to device, a
 * cuMemcpy3D) if it is stale. A copy costs about what one read of the
 * whole image does; images that kernels only read are copied once. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_device.h"
#include "builtins/image_layout.h"

struct cuda_image_array {
  CUdeviceptr data;   /* the image's memory: its element (0, 0, 0) */
  size_t bytes;       /* of its memory, from data on */
  CUarray array;
  CUDA_MEMCPY3D copy; /* the memory into the array */
  int stale;          /* the array may differ from the memory */
};

static int is_layered(const weft_image_layout *l) {
  return l->image_type == WEFT_CL_MEM_OBJECT_IMAGE1D_ARRAY ||
         l->image_type == WEFT_CL_MEM_OBJECT_IMAGE2D_ARRAY;
}

int weft__cuda_image_takes_array(const weft_image_layout *l) {
  return is_layered(l) || l->image_type == WEFT_CL_MEM_OBJECT_IMAGE3D;
}

/* The bytes of l's memory from its first element to past its last. */
static size_t extent_of(const weft_image_layout *l) {
  size_t slices = (size_t)l->depth * (size_t)l->array_size;
  size_t last = (size_t)l->row_pitch * ((size_t)l->height - 1) +
                (size_t)l->width * (size_t)l->element_size;
  return (size_t)l->slice_pitch * (slices - 1) + last;
}

/* The array's shape (Height 0 for a 1D array, as CUDA wants it), or 0
 * where it is past the GPU's limits. */
static int shape_of(const weft_cuda_gpu *g, const weft_image_layout *l,
                    CUDA_ARRAY3D_DESCRIPTOR *a) {
  const int *most;
  a->Width = (size_t)l->width;
  if (l->image_type == WEFT_CL_MEM_OBJECT_IMAGE1D_ARRAY) {
    a->Height = 0;
    a->Depth = (size_t)l->array_size;
    return a->Width <= (size_t)g->max_texture_1d_layered[0] &&
           a->Depth <= (size_t)g->max_texture_1d_layered[1];
  }
  a->Height = (size_t)l->height;
  a->Depth = (size_t)(is_layered(l) ? l->array_size : l->depth);
  most = is_layered(l) ? g->max_texture_2d_layered : g->max_texture_3d;
  return a->Width <= (size_t)most[0] && a->Height <= (size_t)most[1] &&
         a->Depth <= (size_t)most[2];
}

/* The copy of l's memory into array: rows row_pitch apart, slices (or
 * layers) slice_pitch apart, which must be whole rows. */
static int copy_of(const weft_image_layout *l, CUarray array,
                   const CUDA_ARRAY3D_DESCRIPTOR *a, CUDA_MEMCPY3D *c) {
  memset(c, 0, sizeof *c);
  c->srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c->srcDevice = l->data;
  c->dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c->dstArray = array;
  c->WidthInBytes = (size_t)l->width * (size_t)l->element_size;
  c->Height = a->Height ? a->Height : 1;
  c->Depth = a->Depth;
  /* A 1D array's layers are its rows. */
  c->srcPitch = a->Height ? (size_t)l->row_pitch : (size_t)l->slice_pitch;
  if (!c->srcPitch || l->slice_pitch % c->srcPitch) return 0;
  c->srcHeight = (size_t)(l->slice_pitch / c->srcPitch);
  return c->srcHeight >= c->Height;
}

/* Adds the record to gpu's list (arrays_lock held): 0, or -1 out of
 * memory. */
static int add_locked(cuda_device *gpu, const struct cuda_image_array *r) {
  struct cuda_image_array *grown =
      realloc(gpu->arrays, (gpu->num_arrays + 1) * sizeof *grown);
  if (!grown) return -1;
  gpu->arrays = grown;
  gpu->arrays[gpu->num_arrays++] = *r;
  return 0;
}

int weft__cuda_image_array_make(cuda_device *gpu, const weft_image_layout *l,
                                int format, unsigned channels,
                                CUDA_RESOURCE_DESC *resource) {
  const weft_cuda_api *api = gpu->api;
  CUDA_ARRAY3D_DESCRIPTOR a = {0};
  if (!shape_of(&gpu->gpu, l, &a)) return 0;
  a.Format = format;
  a.NumChannels = channels;
  a.Flags = is_layered(l) ? CUDA_ARRAY3D_LAYERED : 0u;
  /* Stale from the start: a command may write the image between the
   * copy below and the record's being listed. */
  struct cuda_image_array r = {.data = l->data, .bytes = extent_of(l),
                               .stale = 1};
  if (api->cuArray3DCreate(&r.array, &a) != CUDA_SUCCESS) return 0;
  /* The first copy now: one the driver refuses leaves the image to the
   * software reads rather than failing a launch later. */
  if (!copy_of(l, r.array, &a, &r.copy) ||
      api->cuMemcpy3D(&r.copy) != CUDA_SUCCESS) {
    api->cuArrayDestroy(r.array);
    return 0;
  }
  pthread_mutex_lock(&gpu->arrays_lock);
  int failed = add_locked(gpu, &r);
  pthread_mutex_unlock(&gpu->arrays_lock);
  if (failed) {
    api->cuArrayDestroy(r.array);
    return 0;
  }
  memset(resource, 0, sizeof *resource);
  resource->resType = CU_RESOURCE_TYPE_ARRAY;
  resource->res.array.hArray = r.array;
  return 1;
}

void weft__cuda_image_array_free(cuda_device *gpu, const weft_image_layout *l) {
  CUarray array = NULL;
  pthread_mutex_lock(&gpu->arrays_lock);
  for (size_t i = 0; i < gpu->num_arrays; i++)
    if (gpu->arrays[i].data == l->data) {
      array = gpu->arrays[i].array;
      gpu->arrays[i] = gpu->arrays[--gpu->num_arrays];
      break;
    }
  pthread_mutex_unlock(&gpu->arrays_lock);
  if (array) gpu->api->cuArrayDestroy(array);
}

void weft__cuda_image_arrays_touch(cuda_device *gpu, CUdeviceptr p,
                                   size_t bytes) {
  pthread_mutex_lock(&gpu->arrays_lock);
  for (size_t i = 0; i < gpu->num_arrays; i++) {
    struct cuda_image_array *r = &gpu->arrays[i];
    if (p < r->data + r->bytes && r->data < p + bytes) r->stale = 1;
  }
  pthread_mutex_unlock(&gpu->arrays_lock);
}

int weft__cuda_image_use(weft_backend_device *device,
                         const weft_image_layout *l, int writes,
                         weft_msg *msg) {
  cuda_device *gpu = weft__cuda_of(device);
  /* Any copy over the memory is stale: another image's over the same. */
  if (writes) {
    weft__cuda_image_arrays_touch(gpu, l->data, extent_of(l));
    return 0;
  }
  if (!weft__cuda_image_takes_array(l)) return 0; /* none has one */
  if (weft__cuda_enter(gpu, msg)) return WEFT_ELAUNCH;
  CUresult rc = CUDA_SUCCESS;
  pthread_mutex_lock(&gpu->arrays_lock);
  for (size_t i = 0; i < gpu->num_arrays; i++) {
    struct cuda_image_array *r = &gpu->arrays[i];
    if (r->data != l->data) continue;
    if (r->stale) rc = gpu->api->cuMemcpy3D(&r->copy);
    if (rc == CUDA_SUCCESS) r->stale = 0;
    break;
  }
  pthread_mutex_unlock(&gpu->arrays_lock);
  return weft__cuda_fail(gpu, rc, "copying an image for its textures",
                         WEFT_ELAUNCH, msg);
}
