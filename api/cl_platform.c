/* cl_platform.c: the Weft platform and its devices, and their queries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/cl_objects.h"
#include "weft/cl_weft.h"

#define PLATFORM_NAME "Weft"
#define PLATFORM_VENDOR "Weft"
#define PLATFORM_VERSION "OpenCL 3.0 Weft 0.1"
#define PLATFORM_EXTENSIONS                                                  \
  "cl_khr_icd cl_khr_create_command_queue "                                 \
  "cl_khr_suggested_local_work_size cl_weft_sync "                           \
  "cl_weft_schedule cl_weft_cooperative_kernels"
#define DEVICE_VERSION "OpenCL 3.0 Weft 0.1"
#define DRIVER_VERSION "0.1"
#define OPENCL_C_VERSION "OpenCL C 1.2 Weft"

static struct _cl_platform_id platform;
static cl_device_id *devices;
static cl_uint num_devices;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_devices(void) {
  weft__cl_init(&platform, CL_KIND_PLATFORM);
  int count = weft_device_count();
  if (count <= 0) return;
  devices = calloc((size_t)count, sizeof *devices);
  for (int i = 0; devices && i < count; i++) {
    cl_device_id d = calloc(1, sizeof *d);
    if (!d || weft_device_get(i, &d->native) ||
        weft_device_info_get(d->native, &d->info)) {
      free(d);
      continue;
    }
    weft__cl_init(d, CL_KIND_DEVICE);
    devices[num_devices++] = d;
  }
}

cl_platform_id weft__cl_platform(void) {
  pthread_once(&once, make_devices);
  return &platform;
}

cl_int weft__cl_devices(cl_device_id **out, cl_uint *count) {
  pthread_once(&once, make_devices);
  *out = devices;
  *count = num_devices;
  return num_devices ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

/* ------------------------------------------------------------ platform */

CL_API_ENTRY cl_int CL_API_CALL clGetPlatformIDs(cl_uint num_entries,
                                                 cl_platform_id *platforms,
                                                 cl_uint *num_platforms) {
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms))
    return CL_INVALID_VALUE;
  if (platforms) platforms[0] = weft__cl_platform();
  if (num_platforms) *num_platforms = 1;
  return CL_SUCCESS;
}

/* The ICD loader's entry point: the same list. */
CL_API_ENTRY __attribute__((visibility("default"))) cl_int CL_API_CALL
clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id *platforms,
                       cl_uint *num_platforms) {
  return clGetPlatformIDs(num_entries, platforms, num_platforms);
}

/* The extensions whose version is not 1.0.0. */
static cl_version version_of(const char *name, size_t len,
                             cl_version otherwise) {
  static const struct {
    const char *name;
    cl_version version;
  } versions[] = {
      /* 2.0.0: the unpacked 4x8-bit inputs and the acceleration queries. */
      {"cl_khr_integer_dot_product", CL_MAKE_VERSION(2, 0, 0)},
  };
  for (size_t i = 0; i < sizeof versions / sizeof *versions; i++)
    if (strlen(versions[i].name) == len && !strncmp(versions[i].name, name, len))
      return versions[i].version;
  return otherwise;
}

/* "name version" pairs for the *_WITH_VERSION queries: version, unless
 * version_of knows the name. */
static size_t name_versions(const char *names, cl_name_version *out,
                            size_t max, cl_version version) {
  size_t n = 0;
  const char *p = names;
  while (*p && n < max) {
    size_t len = strcspn(p, ", ");
    if (len) {
      out[n].version = version_of(p, len, version);
      snprintf(out[n].name, sizeof out[n].name, "%.*s", (int)len, p);
      n++;
    }
    p += len;
    p += strspn(p, ", ");
  }
  return n;
}

/* Exported by name too: ocl-icd looks it up with dlsym. */
CL_API_ENTRY __attribute__((visibility("default"))) cl_int CL_API_CALL
clGetPlatformInfo(cl_platform_id p, cl_platform_info param, size_t size,
                  void *value, size_t *size_ret) {
  if (p && p != weft__cl_platform()) return CL_INVALID_PLATFORM;
  cl_name_version versions[8]; /* room for PLATFORM_EXTENSIONS' names */
  cl_version numeric = CL_MAKE_VERSION(3, 0, 0);
  cl_ulong resolution = 1;
  const char *s = NULL;
  switch (param) {
  case CL_PLATFORM_PROFILE: s = "FULL_PROFILE"; break;
  case CL_PLATFORM_VERSION: s = PLATFORM_VERSION; break;
  case CL_PLATFORM_NAME: s = PLATFORM_NAME; break;
  case CL_PLATFORM_VENDOR: s = PLATFORM_VENDOR; break;
  case CL_PLATFORM_EXTENSIONS: s = PLATFORM_EXTENSIONS; break;
  case CL_PLATFORM_ICD_SUFFIX_KHR: s = "Weft"; break;
  case CL_PLATFORM_NUMERIC_VERSION:
    return weft__cl_info(&numeric, sizeof numeric, size, value, size_ret);
  case CL_PLATFORM_EXTENSIONS_WITH_VERSION: {
    size_t n = name_versions(PLATFORM_EXTENSIONS, versions,
                             sizeof versions / sizeof *versions,
                             CL_MAKE_VERSION(1, 0, 0));
    return weft__cl_info(versions, n * sizeof *versions, size, value, size_ret);
  }
  case CL_PLATFORM_HOST_TIMER_RESOLUTION:
    return weft__cl_info(&resolution, sizeof resolution, size, value, size_ret);
  default:
    return CL_INVALID_VALUE;
  }
  return weft__cl_info(s, strlen(s) + 1, size, value, size_ret);
}

/* ------------------------------------------------------------- devices */

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id p,
                                               cl_device_type type,
                                               cl_uint num_entries,
                                               cl_device_id *out,
                                               cl_uint *num_out) {
  if (p && p != weft__cl_platform()) return CL_INVALID_PLATFORM;
  const cl_device_type known = CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM |
                               CL_DEVICE_TYPE_DEFAULT;
  if (type != CL_DEVICE_TYPE_ALL && (!type || (type & ~known)))
    return CL_INVALID_DEVICE_TYPE;
  if ((num_entries == 0 && out) || (!out && !num_out)) return CL_INVALID_VALUE;
  cl_device_id *all;
  cl_uint count, found = 0;
  weft__cl_devices(&all, &count);
  for (cl_uint i = 0; i < count; i++) {
    cl_device_type t = all[i]->info.kind == WEFT_DEVICE_GPU ? CL_DEVICE_TYPE_GPU
                                                           : CL_DEVICE_TYPE_CPU;
    /* The first device is the default one. */
    if (!(type & t) && !(type == CL_DEVICE_TYPE_DEFAULT && i == 0)) continue;
    if (out && found < num_entries) out[found] = all[i];
    found++;
  }
  if (num_out) *num_out = found;
  return found ? CL_SUCCESS : CL_DEVICE_NOT_FOUND;
}

/* The device's extensions (cl_*) or features (__opencl_c_*), as a string. */
static void feature_list(const cl_device_id d, const char *prefix, char *out,
                         size_t size, int with_own) {
  size_t used = 0;
  out[0] = 0;
  /* The host API's: the ICD, queues with properties for OpenCL 1.2
   * programs, suggested local sizes, and kernel.h's
   * synchronization objects, schedule exploration and cooperative
   * kernels. */
  if (with_own) used += (size_t)snprintf(out, size, "%s", PLATFORM_EXTENSIONS);
  for (const char *p = d->info.features; *p;) {
    size_t len = strcspn(p, ",");
    if (!strncmp(p, prefix, strlen(prefix)) && used < size)
      used += (size_t)snprintf(out + used, size - used, "%s%.*s",
                               used ? " " : "", (int)len, p);
    p += len + (p[len] == ',');
  }
}

typedef struct device_value {
  const void *data;
  size_t size;
  /* Storage for values computed on the fly. */
  union {
    cl_uint u;
    cl_ulong ul;
    size_t sz;
    cl_bool b;
    cl_bitfield bits;
    cl_device_type type;
    cl_platform_id platform;
    cl_device_id device;
    size_t sizes[3];
    size_t widths[32]; /* sub-group sizes, a bit each in the device's mask */
    cl_version version;
    cl_device_integer_dot_product_acceleration_properties_khr dot;
  } v;
  char text[2048];
  cl_name_version versions[32];
} device_value;

#define SET(field, x) (dv->v.field = (x), dv->data = &dv->v.field, dv->size = sizeof dv->v.field)
#define SET_TEXT(s) (snprintf(dv->text, sizeof dv->text, "%s", s), dv->data = dv->text, dv->size = strlen(dv->text) + 1)

static cl_bitfield fp_config(int is_double) {
  /* x86-64 SSE arithmetic: IEEE 754 with denormals, all roundings, FMA.
   * Correct rounding of divide and sqrt is a single-precision flag only. */
  cl_bitfield common = CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST |
                       CL_FP_ROUND_TO_ZERO | CL_FP_ROUND_TO_INF | CL_FP_FMA;
  return is_double ? common : common | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT;
}

/* Vector widths in elements of size bytes: as many as fill the host's
 * widest vector register (the JIT compiles for the host CPU). */
static cl_uint vector_width(const cl_device_id d, unsigned size) {
  unsigned bytes = d->info.vector_bytes ? d->info.vector_bytes : 16;
  return bytes / size;
}

size_t weft__cl_preferred_multiple(cl_device_id d) {
  /* A group that is a whole number of float vectors vectorizes fully. */
  return vector_width(d, sizeof(float));
}

/* Queries with a number for an answer. 1: answered. */
static int number_value(cl_device_id d, cl_device_info p, device_value *dv) {
  const weft_device_info *i = &d->info;
  switch (p) {
  case CL_DEVICE_VENDOR_ID: return SET(u, 0x10000), 1; /* no PCI vendor */
  case CL_DEVICE_MAX_COMPUTE_UNITS: return SET(u, i->compute_units), 1;
  case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: return SET(u, 3), 1;
  case CL_DEVICE_MAX_WORK_GROUP_SIZE: return SET(sz, i->max_work_group_size), 1;
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR: return SET(u, vector_width(d, 1)), 1;
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: return SET(u, vector_width(d, 2)), 1;
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: return SET(u, vector_width(d, 4)), 1;
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: return SET(u, vector_width(d, 8)), 1;
  case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
  case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: return SET(u, 0), 1; /* no half */
  case CL_DEVICE_MAX_CLOCK_FREQUENCY: return SET(u, i->max_clock_mhz), 1;
  case CL_DEVICE_ADDRESS_BITS: return SET(u, i->address_bits), 1;
  case CL_DEVICE_MAX_MEM_ALLOC_SIZE: return SET(ul, i->max_alloc_size), 1;
  case CL_DEVICE_GLOBAL_MEM_SIZE: return SET(ul, i->global_mem_size), 1;
  case CL_DEVICE_LOCAL_MEM_SIZE: return SET(ul, i->local_mem_size), 1;
  case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: return SET(ul, i->max_alloc_size), 1;
  case CL_DEVICE_MAX_CONSTANT_ARGS: return SET(u, 64), 1;
  case CL_DEVICE_MAX_PARAMETER_SIZE: return SET(sz, 4096), 1;
  case CL_DEVICE_MEM_BASE_ADDR_ALIGN: return SET(u, 1024), 1; /* bits: 128 B */
  case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: return SET(u, 128), 1;
  case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: return SET(u, i->cacheline_size), 1;
  case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: return SET(ul, i->cache_size), 1;
  case CL_DEVICE_PROFILING_TIMER_RESOLUTION: return SET(sz, 1), 1;
  /* Each worker writes its printf output out once it holds 1 MiB, so a
   * kernel may print any amount; 1 MiB is what is buffered at a time. */
  case CL_DEVICE_PRINTF_BUFFER_SIZE: return SET(sz, 1 << 20), 1;
  case CL_DEVICE_REFERENCE_COUNT: return SET(u, 1), 1;
  case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return SET(u, 0), 1;
  case CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE: return SET(sz, 64 * 1024), 1;
  case CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: return SET(sz, 1 << 20), 1;
  case CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT:
  case CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT:
  case CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT: return SET(u, 0), 1;
  case CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
    return SET(sz, weft__cl_preferred_multiple(d)), 1;
  /* Images (weft_image_create), on every device. */
  case CL_DEVICE_MAX_READ_IMAGE_ARGS: return SET(u, 128), 1;
  case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
  case CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS: return SET(u, 64), 1;
  case CL_DEVICE_MAX_SAMPLERS: return SET(u, 16), 1;
  case CL_DEVICE_IMAGE2D_MAX_WIDTH:
  case CL_DEVICE_IMAGE2D_MAX_HEIGHT: return SET(sz, WEFT_IMAGE2D_MAX), 1;
  case CL_DEVICE_IMAGE3D_MAX_WIDTH:
  case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
  case CL_DEVICE_IMAGE3D_MAX_DEPTH: return SET(sz, WEFT_IMAGE3D_MAX), 1;
  case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
    return SET(sz, WEFT_IMAGE_BUFFER_MAX), 1;
  case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE:
    return SET(sz, WEFT_IMAGE_LAYERS_MAX), 1;
  /* 2D images from buffers (cl_khr_image2d_from_buffer): rows a whole
   * number of pixels apart, the memory aligned to a pixel (cl_image.c). */
  case CL_DEVICE_IMAGE_PITCH_ALIGNMENT:
  case CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT: return SET(u, 1), 1;
  case CL_DEVICE_MAX_NUM_SUB_GROUPS: {
    /* As many as the smallest sub-groups a kernel may ask for make. */
    unsigned least = i->sub_group_sizes & -i->sub_group_sizes;
    if (!least || least > i->sub_group_size) least = i->sub_group_size;
    return SET(u, (cl_uint)((i->max_work_group_size + least - 1) / least)), 1;
  }
  case CL_DEVICE_MAX_PIPE_ARGS:
  case CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS:
  case CL_DEVICE_PIPE_MAX_PACKET_SIZE:
  case CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE:
  case CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE:
  case CL_DEVICE_MAX_ON_DEVICE_QUEUES:
  case CL_DEVICE_MAX_ON_DEVICE_EVENTS: return SET(u, 0), 1;
  case CL_DEVICE_NUMERIC_VERSION:
    return SET(version, CL_MAKE_VERSION(3, 0, 0)), 1;
  case CL_DEVICE_MAX_RESIDENT_GROUPS_WEFT:
    return SET(sz, (size_t)i->max_resident_groups), 1;
  default: return 0;
  }
}

/* Queries with a yes or no, a bit field or a type. 1: answered. */
static int flag_value(cl_device_id d, cl_device_info p, device_value *dv) {
  switch (p) {
  case CL_DEVICE_TYPE:
    return SET(type, d->info.kind == WEFT_DEVICE_GPU ? CL_DEVICE_TYPE_GPU
                                                     : CL_DEVICE_TYPE_CPU), 1;
  case CL_DEVICE_IMAGE_SUPPORT:
    return SET(b, CL_TRUE), 1;
  case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
  case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC:
  case CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT:
  case CL_DEVICE_PIPE_SUPPORT: return SET(b, CL_FALSE), 1;
  case CL_DEVICE_HOST_UNIFIED_MEMORY:
  case CL_DEVICE_ENDIAN_LITTLE:
  case CL_DEVICE_AVAILABLE:
  case CL_DEVICE_COMPILER_AVAILABLE:
  case CL_DEVICE_LINKER_AVAILABLE:
  case CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT:
  case CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT:
  /* Warps on the GPU; on the CPU, sub-groups that poll take turns
   * (backend/cpu/sub_group.c). */
  case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS: return SET(b, CL_TRUE), 1;
  case CL_DEVICE_SINGLE_FP_CONFIG: return SET(bits, fp_config(0)), 1;
  case CL_DEVICE_DOUBLE_FP_CONFIG: return SET(bits, fp_config(1)), 1;
  case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: return SET(u, CL_READ_WRITE_CACHE), 1;
  case CL_DEVICE_LOCAL_MEM_TYPE: return SET(u, CL_GLOBAL), 1;
  case CL_DEVICE_EXECUTION_CAPABILITIES: return SET(bits, CL_EXEC_KERNEL), 1;
  case CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR:
    return SET(bits, CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR |
                         CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR), 1;
  /* Four products and a sum (builtins/integer.cl): no instruction of the
   * CPU's or the GPU's is promised for them. */
  case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR:
  case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR:
    return SET(dot, ((cl_device_integer_dot_product_acceleration_properties_khr){
                        CL_FALSE, CL_FALSE, CL_FALSE, CL_FALSE, CL_FALSE,
                        CL_FALSE})), 1;
  case CL_DEVICE_QUEUE_ON_HOST_PROPERTIES:
    return SET(bits, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE |
                         CL_QUEUE_PROFILING_ENABLE), 1;
  case CL_DEVICE_SVM_CAPABILITIES:
    return SET(bits, d->info.svm ? CL_DEVICE_SVM_COARSE_GRAIN_BUFFER : 0), 1;
  case CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES:
  case CL_DEVICE_PARTITION_AFFINITY_DOMAIN:
  case CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES: return SET(bits, 0), 1;
  case CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES:
  case CL_DEVICE_ATOMIC_FENCE_CAPABILITIES:
    /* Every order; every scope is carried out as all-devices, which the
     * CPU gives anyway (fences also take work-item scope). */
    return SET(bits, CL_DEVICE_ATOMIC_ORDER_RELAXED |
                         CL_DEVICE_ATOMIC_ORDER_ACQ_REL |
                         CL_DEVICE_ATOMIC_ORDER_SEQ_CST |
                         CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP |
                         CL_DEVICE_ATOMIC_SCOPE_DEVICE |
                         CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES |
                         (p == CL_DEVICE_ATOMIC_FENCE_CAPABILITIES
                              ? CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM : 0)), 1;
  case CL_DEVICE_PLATFORM: return SET(platform, weft__cl_platform()), 1;
  case CL_DEVICE_PARENT_DEVICE: return SET(device, NULL), 1;
  case CL_DEVICE_MAX_WORK_ITEM_SIZES:
    memcpy(dv->v.sizes, d->info.max_work_item_sizes, sizeof dv->v.sizes);
    dv->data = dv->v.sizes;
    dv->size = sizeof dv->v.sizes;
    return 1;
  case CL_DEVICE_SUB_GROUP_SIZES_INTEL: {
    size_t n = 0;
    for (unsigned bit = 0; bit < 32; bit++)
      if (d->info.sub_group_sizes >> bit & 1) dv->v.widths[n++] = (size_t)1 << bit;
    dv->data = dv->v.widths;
    dv->size = n * sizeof *dv->v.widths;
    return 1;
  }
  case CL_DEVICE_PARTITION_PROPERTIES:
  case CL_DEVICE_PARTITION_TYPE:
    /* No partitions: an empty list ends with 0 (here: no entries at all
     * for the type, one 0 for the properties). */
    dv->v.sz = 0;
    dv->data = &dv->v.sz;
    dv->size = p == CL_DEVICE_PARTITION_TYPE ? 0 : sizeof(cl_device_partition_property);
    return 1;
  default: return 0;
  }
}

/* Queries answered with text or lists of names. 1: answered. */
static int text_value(cl_device_id d, cl_device_info p, device_value *dv) {
  char list[1024];
  size_t n;
  switch (p) {
  case CL_DEVICE_NAME: return SET_TEXT(d->info.name), 1;
  case CL_DEVICE_VENDOR: return SET_TEXT(d->info.vendor), 1;
  case CL_DRIVER_VERSION: return SET_TEXT(DRIVER_VERSION), 1;
  case CL_DEVICE_PROFILE: return SET_TEXT("FULL_PROFILE"), 1;
  case CL_DEVICE_VERSION: return SET_TEXT(DEVICE_VERSION), 1;
  case CL_DEVICE_OPENCL_C_VERSION: return SET_TEXT(OPENCL_C_VERSION), 1;
  case CL_DEVICE_BUILT_IN_KERNELS:
  case CL_DEVICE_IL_VERSION: return SET_TEXT(""), 1;
  case CL_DEVICE_EXTENSIONS:
    feature_list(d, "cl_", list, sizeof list, 1);
    return SET_TEXT(list), 1;
  case CL_DEVICE_EXTENSIONS_WITH_VERSION:
    feature_list(d, "cl_", list, sizeof list, 1);
    n = name_versions(list, dv->versions, 32, CL_MAKE_VERSION(1, 0, 0));
    dv->data = dv->versions;
    dv->size = n * sizeof *dv->versions;
    return 1;
  case CL_DEVICE_OPENCL_C_FEATURES:
    feature_list(d, "__opencl_c_", list, sizeof list, 0);
    n = name_versions(list, dv->versions, 32, CL_MAKE_VERSION(3, 0, 0));
    dv->data = dv->versions;
    dv->size = n * sizeof *dv->versions;
    return 1;
  case CL_DEVICE_OPENCL_C_ALL_VERSIONS: {
    /* Not 2.0: its pipes and device-side enqueue are not there. */
    static const cl_version all[] = {
        CL_MAKE_VERSION(1, 0, 0), CL_MAKE_VERSION(1, 1, 0),
        CL_MAKE_VERSION(1, 2, 0), CL_MAKE_VERSION(3, 0, 0)};
    for (size_t k = 0; k < 4; k++) {
      dv->versions[k].version = all[k];
      snprintf(dv->versions[k].name, sizeof dv->versions[k].name, "OpenCL C");
    }
    dv->data = dv->versions;
    dv->size = 4 * sizeof *dv->versions;
    return 1;
  }
  case CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED:
    return SET_TEXT("v0000-01-01-00"), 1; /* never submitted to conformance */
  case CL_DEVICE_ILS_WITH_VERSION:
  case CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION:
    dv->data = dv->versions;
    dv->size = 0;
    return 1;
  default: return 0;
  }
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceInfo(cl_device_id d,
                                                cl_device_info param,
                                                size_t size, void *value,
                                                size_t *size_ret) {
  if (!weft__cl_is(d, CL_KIND_DEVICE)) return CL_INVALID_DEVICE;
  device_value *dv = calloc(1, sizeof *dv);
  if (!dv) return CL_OUT_OF_HOST_MEMORY;
  cl_int rc = CL_INVALID_VALUE;
  if (number_value(d, param, dv) || flag_value(d, param, dv) ||
      text_value(d, param, dv))
    rc = weft__cl_info(dv->data, dv->size, size, value, size_ret);
  free(dv);
  return rc;
}

/* Root devices live as long as the process: retain and release do nothing. */
CL_API_ENTRY cl_int CL_API_CALL clRetainDevice(cl_device_id d) {
  return weft__cl_is(d, CL_KIND_DEVICE) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseDevice(cl_device_id d) {
  return weft__cl_is(d, CL_KIND_DEVICE) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

CL_API_ENTRY cl_int CL_API_CALL
clCreateSubDevices(cl_device_id d, const cl_device_partition_property *props,
                   cl_uint num, cl_device_id *out, cl_uint *num_out) {
  (void)props;
  (void)num;
  (void)out;
  (void)num_out;
  /* CL_DEVICE_PARTITION_PROPERTIES lists no way to partition. */
  return weft__cl_is(d, CL_KIND_DEVICE) ? CL_INVALID_VALUE : CL_INVALID_DEVICE;
}

CL_API_ENTRY cl_int CL_API_CALL clGetHostTimer(cl_device_id d, cl_ulong *host) {
  if (!weft__cl_is(d, CL_KIND_DEVICE)) return CL_INVALID_DEVICE;
  if (!host) return CL_INVALID_VALUE;
  *host = weft__cl_now();
  return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceAndHostTimer(cl_device_id d,
                                                        cl_ulong *device,
                                                        cl_ulong *host) {
  if (!weft__cl_is(d, CL_KIND_DEVICE)) return CL_INVALID_DEVICE;
  if (!device || !host) return CL_INVALID_VALUE;
  /* The CPU device's clock is the host's. */
  *device = *host = weft__cl_now();
  return CL_SUCCESS;
}
