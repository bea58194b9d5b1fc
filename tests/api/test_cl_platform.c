/* test_cl_platform.c: the platform and its device as a program sees them
 * through the ICD loader: clGetPlatformIDs/Info, clGetDeviceIDs/Info for
 * every OpenCL 3.0 query (sizes, and values checked against what kernels
 * and launches really do), timers, retain/release, sub-devices. */
#include <CL/cl_ext.h> /* CL_PLATFORM_ICD_SUFFIX_KHR */
#include <ctype.h>
#include <unistd.h>

#include "cl_support.h"
#include "weft/cl_weft.h"

/* ------------------------------------------------------------ helpers */

/* A string query's value, malloc'd; checks its size is strlen + 1. */
static char *platform_string(cl_platform_id p, cl_platform_info param) {
  size_t size = 0;
  CL_CHECK(clGetPlatformInfo(p, param, 0, NULL, &size));
  CHECK(size >= 1);
  char *s = malloc(size);
  CL_CHECK(clGetPlatformInfo(p, param, size, s, NULL));
  CHECK_EQ(strlen(s) + 1, size);
  return s;
}

static char *device_string(cl_device_id d, cl_device_info param) {
  size_t size = 0;
  CL_CHECK(clGetDeviceInfo(d, param, 0, NULL, &size));
  CHECK(size >= 1);
  char *s = malloc(size);
  CL_CHECK(clGetDeviceInfo(d, param, size, s, NULL));
  CHECK_EQ(strlen(s) + 1, size);
  return s;
}

static cl_uint device_uint(cl_device_id d, cl_device_info param) {
  cl_uint v = 0;
  size_t size = 0;
  CL_CHECK(clGetDeviceInfo(d, param, sizeof v, &v, &size));
  CHECK_EQ(size, sizeof v);
  return v;
}

static cl_ulong device_ulong(cl_device_id d, cl_device_info param) {
  cl_ulong v = 0;
  size_t size = 0;
  CL_CHECK(clGetDeviceInfo(d, param, sizeof v, &v, &size));
  CHECK_EQ(size, sizeof v);
  return v;
}

static size_t device_size(cl_device_id d, cl_device_info param) {
  size_t v = 0, size = 0;
  CL_CHECK(clGetDeviceInfo(d, param, sizeof v, &v, &size));
  CHECK_EQ(size, sizeof v);
  return v;
}

/* A *_WITH_VERSION list, malloc'd; *count entries. */
static cl_name_version *device_versions(cl_device_id d, cl_device_info param,
                                        size_t *count) {
  size_t size = 0;
  CL_CHECK(clGetDeviceInfo(d, param, 0, NULL, &size));
  CHECK_EQ(size % sizeof(cl_name_version), 0);
  cl_name_version *v = malloc(size ? size : 1);
  if (size) CL_CHECK(clGetDeviceInfo(d, param, size, v, NULL));
  *count = size / sizeof *v;
  return v;
}

/* Whether word is one of the space-separated names in list. */
static int has_word(const char *list, const char *word) {
  size_t n = strlen(word);
  for (const char *p = list; (p = strstr(p, word)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
  return 0;
}

static int count_words(const char *list) {
  int n = 0;
  for (const char *p = list; *p;) {
    while (*p == ' ') p++;
    if (!*p) break;
    n++;
    while (*p && *p != ' ') p++;
  }
  return n;
}

/* Builds source with options, runs kernel "k" (one __global int * argument,
 * n ints, zeroed first) over global work-items, reads the ints back. */
static void run_ints(const char *source, const char *options, size_t global,
                     int *out, size_t n) {
  cl_context ctx = cl_weft_context();
  cl_command_queue q = cl_weft_queue(ctx, 0);
  cl_program p = cl_build(ctx, source, options);
  cl_int err;
  cl_kernel k = clCreateKernel(p, "k", &err);
  CL_CHECK(err);
  memset(out, 0, n * sizeof *out);
  cl_mem m = cl_buffer(ctx, n * sizeof *out, out);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof *out, out, 0, NULL,
                               NULL));
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}

/* ------------------------------------------------------------ platform */

TEST(platform_ids) {
  cl_uint n = 0;
  CL_CHECK(clGetPlatformIDs(0, NULL, &n));
  CHECK(n >= 1);
  cl_platform_id one;
  cl_uint again = 0;
  CL_CHECK(clGetPlatformIDs(1, &one, &again));
  CHECK_EQ(again, n);
  CL_CHECK_ERR(clGetPlatformIDs(0, &one, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);
  /* The Weft platform is among them, the same handle each time. */
  CHECK(cl_weft_platform() == cl_weft_platform());
}

TEST(platform_info_strings) {
  cl_platform_id p = cl_weft_platform();
  char *profile = platform_string(p, CL_PLATFORM_PROFILE);
  CHECK(!strcmp(profile, "FULL_PROFILE"));
  char *version = platform_string(p, CL_PLATFORM_VERSION);
  /* "OpenCL<space><major.minor><space><platform-specific information>" */
  CHECK(!strncmp(version, "OpenCL 3.0 ", 11));
  char *name = platform_string(p, CL_PLATFORM_NAME);
  CHECK(!strcmp(name, "Weft"));
  char *vendor = platform_string(p, CL_PLATFORM_VENDOR);
  CHECK(strlen(vendor) > 0);
  char *extensions = platform_string(p, CL_PLATFORM_EXTENSIONS);
  CHECK(has_word(extensions, "cl_khr_icd"));
  char *suffix = platform_string(p, CL_PLATFORM_ICD_SUFFIX_KHR);
  CHECK(strlen(suffix) > 0);
  free(profile), free(version), free(name), free(vendor), free(extensions),
      free(suffix);
}

TEST(platform_info_numbers) {
  cl_platform_id p = cl_weft_platform();
  cl_version v = 0;
  size_t size = 0;
  CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, sizeof v, &v, &size));
  CHECK_EQ(size, sizeof v);
  CHECK_EQ(v, CL_MAKE_VERSION(3, 0, 0));
  cl_ulong resolution = 0;
  CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_HOST_TIMER_RESOLUTION,
                             sizeof resolution, &resolution, &size));
  CHECK_EQ(size, sizeof resolution);
  CHECK(resolution > 0); /* clGetHostTimer is supported */
}

/* The extension list and its versioned form name the same extensions. */
TEST(platform_extensions_with_version) {
  cl_platform_id p = cl_weft_platform();
  char *extensions = platform_string(p, CL_PLATFORM_EXTENSIONS);
  size_t size = 0;
  CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, 0, NULL,
                             &size));
  CHECK_EQ(size % sizeof(cl_name_version), 0);
  size_t n = size / sizeof(cl_name_version);
  cl_name_version *v = malloc(size + 1);
  CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_EXTENSIONS_WITH_VERSION, size, v,
                             NULL));
  CHECK_EQ(n, count_words(extensions));
  for (size_t i = 0; i < n; i++) {
    CHECK(has_word(extensions, v[i].name));
    CHECK(CL_VERSION_MAJOR(v[i].version) >= 1);
  }
  free(v);
  free(extensions);
}

TEST(platform_info_sizes) {
  cl_platform_id p = cl_weft_platform();
  size_t size = 0;
  CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, NULL, &size));
  CHECK_EQ(size, sizeof "Weft");
  char name[16];
  memset(name, 'x', sizeof name);
  /* Too small a buffer: an error, and nothing written. */
  CL_CHECK_ERR(clGetPlatformInfo(p, CL_PLATFORM_NAME, size - 1, name, NULL),
               CL_INVALID_VALUE);
  CHECK_EQ(name[0], 'x');
  /* Exactly the size: fine. */
  size_t ret = 0;
  CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, size, name, &ret));
  CHECK_EQ(ret, size);
  CHECK(!strcmp(name, "Weft"));
  cl_version v;
  CL_CHECK_ERR(clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, sizeof v - 1,
                                 &v, NULL), CL_INVALID_VALUE);
  /* value NULL: only the size is returned, whatever value_size says. */
  CL_CHECK(clGetPlatformInfo(p, CL_PLATFORM_NUMERIC_VERSION, 1, NULL, &ret));
  CHECK_EQ(ret, sizeof(cl_version));
}

TEST(platform_info_errors) {
  cl_platform_id p = cl_weft_platform();
  char text[64];
  CL_CHECK_ERR(clGetPlatformInfo(p, 0x0FFF, sizeof text, text, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetPlatformInfo(p, CL_DEVICE_NAME, sizeof text, text, NULL),
               CL_INVALID_VALUE);
  /* A device handle is not a platform. */
  cl_device_id d = cl_weft_device();
  CL_CHECK_ERR(clGetPlatformInfo((cl_platform_id)d, CL_PLATFORM_NAME,
                                 sizeof text, text, NULL), CL_INVALID_PLATFORM);
}

/* NULL selects the default platform (the loader's choice, implementation-
 * defined): with only Weft installed it answers as Weft does, or refuses
 * NULL with CL_INVALID_PLATFORM; it never crashes. */
TEST(platform_info_null_platform) {
  cl_uint n = 0;
  CL_CHECK(clGetPlatformIDs(0, NULL, &n));
  char name[64] = "";
  cl_int rc = clGetPlatformInfo(NULL, CL_PLATFORM_NAME, sizeof name, name, NULL);
  if (rc == CL_SUCCESS) {
    if (n == 1) CHECK(!strcmp(name, "Weft"));
  } else {
    CL_CHECK_ERR(rc, CL_INVALID_PLATFORM);
  }
}

TEST(extension_function_address) {
  cl_platform_id p = cl_weft_platform();
  CHECK(clGetExtensionFunctionAddressForPlatform(p, "clIcdGetPlatformIDsKHR"));
  CHECK(!clGetExtensionFunctionAddressForPlatform(p, "clNoSuchFunctionWEFT"));
}

/* ------------------------------------------------------------- devices */

TEST(device_ids_by_type) {
  cl_platform_id p = cl_weft_platform();
  cl_device_id cpu = NULL, d = NULL;
  cl_uint n = 0;
  CL_CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, &cpu, &n));
  CHECK_EQ(n, 1);
  CHECK(cpu != NULL);
  /* The first device is the default: the CPU, unless WEFT_DEVICE chose a
   * GPU. */
  cl_device_id first = NULL;
  CL_CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &first, NULL));
  CL_CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_DEFAULT, 1, &d, &n));
  CHECK_EQ(n, 1);
  CHECK(d == first);
  CL_CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n));
  CHECK(n >= 1);
  CL_CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU, 1, &d, NULL));
  CHECK(d == first);
  /* No GPU without CUDA, never an accelerator or a custom device. */
  int gpus = 0;
  cl_uint all = 0;
  CL_CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &all));
  if (all == 1) {
    n = 7;
    CL_CHECK_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_GPU, 1, &d, &n),
                 CL_DEVICE_NOT_FOUND);
    CHECK_EQ(n, 0);
  } else {
    gpus = 1;
  }
  (void)gpus;
  n = 7;
  CL_CHECK_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_ACCELERATOR, 1, &d, &n),
               CL_DEVICE_NOT_FOUND);
  CHECK_EQ(n, 0);
  CL_CHECK_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_CUSTOM, 0, NULL, &n),
               CL_DEVICE_NOT_FOUND);
}

TEST(device_ids_errors) {
  cl_platform_id p = cl_weft_platform();
  cl_device_id d = NULL;
  cl_uint n = 0;
  CL_CHECK_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 0, &d, &n), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 1, NULL, NULL),
               CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetDeviceIDs(p, 0, 1, &d, &n), CL_INVALID_DEVICE_TYPE);
  CL_CHECK_ERR(clGetDeviceIDs(p, (cl_device_type)1 << 40, 1, &d, &n),
               CL_INVALID_DEVICE_TYPE);
  CL_CHECK_ERR(clGetDeviceIDs((cl_platform_id)cl_weft_device(),
                              CL_DEVICE_TYPE_CPU, 1, &d, &n), CL_INVALID_PLATFORM);
  /* More room than devices: only the devices are written. */
  cl_device_id list[4] = {NULL, NULL, NULL, NULL};
  CL_CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_CPU, 4, list, &n));
  CHECK_EQ(n, 1);
  CHECK(list[0] && !list[1]);
}

/* Every clGetDeviceInfo query of OpenCL 3.0, with the size its type has. */
typedef enum value_kind {
  UINT, ULONG, SIZE, BOOL, BITS, STRING, HANDLE, SIZES3, VERSIONS, PARTITIONS,
  PARTITION_TYPE
} value_kind;

typedef struct device_param {
  cl_device_info param;
  const char *name;
  value_kind kind;
} device_param;

#define P(name, kind) {name, #name, kind}
static const device_param device_params[] = {
    P(CL_DEVICE_TYPE, BITS),
    P(CL_DEVICE_VENDOR_ID, UINT),
    P(CL_DEVICE_MAX_COMPUTE_UNITS, UINT),
    P(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, UINT),
    P(CL_DEVICE_MAX_WORK_GROUP_SIZE, SIZE),
    P(CL_DEVICE_MAX_WORK_ITEM_SIZES, SIZES3),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, UINT),
    P(CL_DEVICE_MAX_CLOCK_FREQUENCY, UINT),
    P(CL_DEVICE_ADDRESS_BITS, UINT),
    P(CL_DEVICE_MAX_MEM_ALLOC_SIZE, ULONG),
    P(CL_DEVICE_IMAGE_SUPPORT, BOOL),
    P(CL_DEVICE_MAX_READ_IMAGE_ARGS, UINT),
    P(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, UINT),
    P(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, UINT),
    P(CL_DEVICE_IL_VERSION, STRING),
    P(CL_DEVICE_ILS_WITH_VERSION, VERSIONS),
    P(CL_DEVICE_IMAGE2D_MAX_WIDTH, SIZE),
    P(CL_DEVICE_IMAGE2D_MAX_HEIGHT, SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_WIDTH, SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_HEIGHT, SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_DEPTH, SIZE),
    P(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, SIZE),
    P(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, SIZE),
    P(CL_DEVICE_MAX_SAMPLERS, UINT),
    P(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, UINT),
    P(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, UINT),
    P(CL_DEVICE_MAX_PIPE_ARGS, UINT),
    P(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, UINT),
    P(CL_DEVICE_PIPE_MAX_PACKET_SIZE, UINT),
    P(CL_DEVICE_MAX_PARAMETER_SIZE, SIZE),
    P(CL_DEVICE_MEM_BASE_ADDR_ALIGN, UINT),
    P(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, UINT),
    P(CL_DEVICE_SINGLE_FP_CONFIG, BITS),
    P(CL_DEVICE_DOUBLE_FP_CONFIG, BITS),
    P(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, UINT),
    P(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, UINT),
    P(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, ULONG),
    P(CL_DEVICE_GLOBAL_MEM_SIZE, ULONG),
    P(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, ULONG),
    P(CL_DEVICE_MAX_CONSTANT_ARGS, UINT),
    P(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, SIZE),
    P(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, SIZE),
    P(CL_DEVICE_LOCAL_MEM_TYPE, UINT),
    P(CL_DEVICE_LOCAL_MEM_SIZE, ULONG),
    P(CL_DEVICE_ERROR_CORRECTION_SUPPORT, BOOL),
    P(CL_DEVICE_HOST_UNIFIED_MEMORY, BOOL),
    P(CL_DEVICE_PROFILING_TIMER_RESOLUTION, SIZE),
    P(CL_DEVICE_ENDIAN_LITTLE, BOOL),
    P(CL_DEVICE_AVAILABLE, BOOL),
    P(CL_DEVICE_COMPILER_AVAILABLE, BOOL),
    P(CL_DEVICE_LINKER_AVAILABLE, BOOL),
    P(CL_DEVICE_EXECUTION_CAPABILITIES, BITS),
    P(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, BITS),
    P(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, BITS),
    P(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, UINT),
    P(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, UINT),
    P(CL_DEVICE_MAX_ON_DEVICE_QUEUES, UINT),
    P(CL_DEVICE_MAX_ON_DEVICE_EVENTS, UINT),
    P(CL_DEVICE_BUILT_IN_KERNELS, STRING),
    P(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, VERSIONS),
    P(CL_DEVICE_PLATFORM, HANDLE),
    P(CL_DEVICE_NAME, STRING),
    P(CL_DEVICE_VENDOR, STRING),
    P(CL_DRIVER_VERSION, STRING),
    P(CL_DEVICE_PROFILE, STRING),
    P(CL_DEVICE_VERSION, STRING),
    P(CL_DEVICE_NUMERIC_VERSION, UINT),
    P(CL_DEVICE_OPENCL_C_VERSION, STRING),
    P(CL_DEVICE_OPENCL_C_ALL_VERSIONS, VERSIONS),
    P(CL_DEVICE_OPENCL_C_FEATURES, VERSIONS),
    P(CL_DEVICE_EXTENSIONS, STRING),
    P(CL_DEVICE_EXTENSIONS_WITH_VERSION, VERSIONS),
    P(CL_DEVICE_PRINTF_BUFFER_SIZE, SIZE),
    P(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, BOOL),
    P(CL_DEVICE_PARENT_DEVICE, HANDLE),
    P(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, UINT),
    P(CL_DEVICE_PARTITION_PROPERTIES, PARTITIONS),
    P(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, BITS),
    P(CL_DEVICE_PARTITION_TYPE, PARTITION_TYPE),
    P(CL_DEVICE_REFERENCE_COUNT, UINT),
    P(CL_DEVICE_SVM_CAPABILITIES, BITS),
    P(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, UINT),
    P(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, UINT),
    P(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, UINT),
    P(CL_DEVICE_MAX_NUM_SUB_GROUPS, UINT),
    P(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, BOOL),
    P(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, BITS),
    P(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, BITS),
    P(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, BOOL),
    P(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, BOOL),
    P(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, BOOL),
    P(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, BITS),
    P(CL_DEVICE_PIPE_SUPPORT, BOOL),
    P(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, SIZE),
    P(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, STRING),
};
#undef P

/* Whether size is right for a value of kind. */
static int size_fits(value_kind kind, size_t size) {
  switch (kind) {
  case UINT: return size == sizeof(cl_uint);
  case ULONG: return size == sizeof(cl_ulong);
  case SIZE: return size == sizeof(size_t);
  case BOOL: return size == sizeof(cl_bool);
  case BITS: return size == sizeof(cl_bitfield);
  case STRING: return size >= 1;
  case HANDLE: return size == sizeof(void *);
  case SIZES3: return size == 3 * sizeof(size_t);
  case VERSIONS: return size % sizeof(cl_name_version) == 0;
  case PARTITIONS:
    return size >= sizeof(cl_device_partition_property) &&
           size % sizeof(cl_device_partition_property) == 0;
  case PARTITION_TYPE: /* a root device: nothing, or a lone 0 */
    return size % sizeof(cl_device_partition_property) == 0;
  }
  return 0;
}

TEST(device_info_every_param) {
  cl_device_id d = cl_weft_device();
  for (size_t i = 0; i < sizeof device_params / sizeof *device_params; i++) {
    const device_param *p = &device_params[i];
    size_t size = 12345;
    cl_int rc = clGetDeviceInfo(d, p->param, 0, NULL, &size);
    if (rc != CL_SUCCESS) FAIL("%s: %s", p->name, cl_error_name(rc));
    if (!size_fits(p->kind, size)) FAIL("%s: size %zu", p->name, size);
    unsigned char *value = malloc(size + 8);
    memset(value, 0xAB, size + 8);
    size_t again = 0;
    rc = clGetDeviceInfo(d, p->param, size + 8, value, &again);
    if (rc != CL_SUCCESS) FAIL("%s: %s", p->name, cl_error_name(rc));
    if (again != size) FAIL("%s: size %zu then %zu", p->name, size, again);
    /* Nothing is written past the value. */
    for (size_t b = size; b < size + 8; b++)
      if (value[b] != 0xAB) FAIL("%s: wrote byte %zu of %zu", p->name, b, size);
    if (p->kind == STRING && strlen((char *)value) + 1 != size)
      FAIL("%s: \"%s\" is not %zu bytes with its NUL", p->name, value, size);
    if (size) {
      rc = clGetDeviceInfo(d, p->param, size - 1, value, NULL);
      if (rc != CL_INVALID_VALUE)
        FAIL("%s: size %zu - 1 gave %s", p->name, size, cl_error_name(rc));
    }
    free(value);
  }
}

TEST(device_info_invalid) {
  cl_device_id d = cl_weft_device();
  cl_uint v;
  CL_CHECK_ERR(clGetDeviceInfo(d, 0x0FFF, sizeof v, &v, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetDeviceInfo(d, CL_PLATFORM_NAME, sizeof v, &v, NULL),
               CL_INVALID_VALUE);
  /* CL_DEVICE_HALF_FP_CONFIG belongs to cl_khr_fp16, which is absent. */
  char *extensions = device_string(d, CL_DEVICE_EXTENSIONS);
  if (!has_word(extensions, "cl_khr_fp16")) {
    cl_device_fp_config fp;
    CL_CHECK_ERR(clGetDeviceInfo(d, 0x1033, sizeof fp, &fp, NULL),
                 CL_INVALID_VALUE);
  }
  free(extensions);
  /* A context is not a device; neither is NULL. */
  cl_context ctx = cl_weft_context();
  CL_CHECK_ERR(clGetDeviceInfo((cl_device_id)ctx, CL_DEVICE_NAME, sizeof v, &v,
                               NULL), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clGetDeviceInfo(NULL, CL_DEVICE_NAME, sizeof v, &v, NULL),
               CL_INVALID_DEVICE);
  clReleaseContext(ctx);
}

TEST(device_identity) {
  CPU_ONLY("the figures checked are the CPU's");
  cl_device_id d = cl_weft_device();
  cl_device_type type;
  CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL));
  CHECK_EQ(type, CL_DEVICE_TYPE_CPU);
  cl_platform_id p = NULL;
  CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof p, &p, NULL));
  CHECK(p == cl_weft_platform());
  cl_device_id parent = d;
  CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_PARENT_DEVICE, sizeof parent, &parent,
                           NULL));
  CHECK(parent == NULL);
  CHECK_EQ(device_uint(d, CL_DEVICE_REFERENCE_COUNT), 1);
  char *profile = device_string(d, CL_DEVICE_PROFILE);
  CHECK(!strcmp(profile, "FULL_PROFILE"));
  char *version = device_string(d, CL_DEVICE_VERSION);
  CHECK(!strncmp(version, "OpenCL 3.0 ", 11));
  CHECK_EQ(device_uint(d, CL_DEVICE_NUMERIC_VERSION), CL_MAKE_VERSION(3, 0, 0));
  char *c_version = device_string(d, CL_DEVICE_OPENCL_C_VERSION);
  CHECK(!strncmp(c_version, "OpenCL C 1.2 ", 13)); /* 1.2 for a 3.0 device */
  /* "major.minor" */
  char *driver = device_string(d, CL_DRIVER_VERSION);
  CHECK(isdigit((unsigned char)driver[0]) && strchr(driver, '.'));
  char *name = device_string(d, CL_DEVICE_NAME);
  char *vendor = device_string(d, CL_DEVICE_VENDOR);
  CHECK(strlen(name) > 0 && strlen(vendor) > 0);
  /* "vYYYY-MM-DD-XX" */
  char *conformance = device_string(d, CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED);
  CHECK_EQ(strlen(conformance), 14);
  CHECK(conformance[0] == 'v' && conformance[5] == '-' && conformance[8] == '-' &&
        conformance[11] == '-');
  free(profile), free(version), free(c_version), free(driver), free(name),
      free(vendor), free(conformance);
}

/* The minimum values OpenCL 3.0 requires of a full-profile CPU device. */
TEST(device_minimums) {
  cl_device_id d = cl_weft_device();
  CHECK(device_uint(d, CL_DEVICE_MAX_COMPUTE_UNITS) >= 1);
  CHECK_EQ(device_uint(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS), 3);
  size_t wg = device_size(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  CHECK(wg >= 1);
  size_t items[3];
  CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items,
                           items, NULL));
  for (int i = 0; i < 3; i++) CHECK(items[i] >= 1 && items[i] <= wg);
  CHECK_EQ(device_uint(d, CL_DEVICE_ADDRESS_BITS), 8 * sizeof(void *));
  cl_ulong global = device_ulong(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  cl_ulong alloc = device_ulong(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
  cl_ulong quarter = global / 4 < (1ull << 30) ? global / 4 : 1ull << 30;
  CHECK(alloc >= (quarter > (32ull << 20) ? quarter : 32ull << 20));
  CHECK(alloc <= global);
  CHECK(device_ulong(d, CL_DEVICE_LOCAL_MEM_SIZE) >= 32 * 1024);
  CHECK(device_ulong(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE) >= 64 * 1024);
  CHECK(device_uint(d, CL_DEVICE_MAX_CONSTANT_ARGS) >= 8);
  CHECK(device_size(d, CL_DEVICE_MAX_PARAMETER_SIZE) >= 1024);
  /* The largest built-in type, long16: 128 bytes, in bits. */
  CHECK(device_uint(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN) >= 1024);
  CHECK(device_size(d, CL_DEVICE_PROFILING_TIMER_RESOLUTION) >= 1);
  cl_device_fp_config single = device_ulong(d, CL_DEVICE_SINGLE_FP_CONFIG);
  CHECK((single & (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN)) ==
        (CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN));
  CHECK(!(single & CL_FP_SOFT_FLOAT));
  CHECK(device_uint(d, CL_DEVICE_ENDIAN_LITTLE) == CL_TRUE);
  CHECK(device_uint(d, CL_DEVICE_AVAILABLE) == CL_TRUE);
  CHECK(device_uint(d, CL_DEVICE_COMPILER_AVAILABLE) == CL_TRUE);
  CHECK(device_uint(d, CL_DEVICE_LINKER_AVAILABLE) == CL_TRUE);
  CHECK(device_uint(d, CL_DEVICE_ERROR_CORRECTION_SUPPORT) == CL_FALSE);
  cl_device_exec_capabilities exec = device_ulong(d, CL_DEVICE_EXECUTION_CAPABILITIES);
  CHECK(exec & CL_EXEC_KERNEL);
  cl_command_queue_properties queue = device_ulong(d, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES);
  CHECK(queue & CL_QUEUE_PROFILING_ENABLE);
  cl_uint cache_type = device_uint(d, CL_DEVICE_GLOBAL_MEM_CACHE_TYPE);
  CHECK(cache_type == CL_READ_WRITE_CACHE);
  cl_uint local_type = device_uint(d, CL_DEVICE_LOCAL_MEM_TYPE);
  CHECK(local_type == CL_LOCAL || local_type == CL_GLOBAL);
  /* Memory model: the minimum capabilities, and only consistent ones. */
  cl_device_atomic_capabilities mem = device_ulong(d, CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES);
  cl_device_atomic_capabilities need = CL_DEVICE_ATOMIC_ORDER_RELAXED |
                                       CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP;
  CHECK((mem & need) == need);
  cl_device_atomic_capabilities fence = device_ulong(d, CL_DEVICE_ATOMIC_FENCE_CAPABILITIES);
  need |= CL_DEVICE_ATOMIC_ORDER_ACQ_REL;
  CHECK((fence & need) == need);
}

/* What the device does not support, it reports consistently as absent. */
TEST(device_absent_features) {
  cl_device_id d = cl_weft_device();
  /* Images on every device (test_cl_image.c), within OpenCL 3.0's least
   * sizes; 2D images from buffers at any whole pixel. */
  CHECK(device_uint(d, CL_DEVICE_IMAGE_SUPPORT) == CL_TRUE);
  CHECK(device_uint(d, CL_DEVICE_MAX_READ_IMAGE_ARGS) >= 128);
  CHECK(device_uint(d, CL_DEVICE_MAX_WRITE_IMAGE_ARGS) >= 64);
  CHECK(device_uint(d, CL_DEVICE_MAX_SAMPLERS) >= 16);
  CHECK_EQ(device_uint(d, CL_DEVICE_IMAGE_PITCH_ALIGNMENT), 1);
  CHECK_EQ(device_uint(d, CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT), 1);
  static const cl_device_info image_sizes[] = {
      CL_DEVICE_IMAGE2D_MAX_WIDTH, CL_DEVICE_IMAGE2D_MAX_HEIGHT,
      CL_DEVICE_IMAGE3D_MAX_WIDTH, CL_DEVICE_IMAGE3D_MAX_HEIGHT,
      CL_DEVICE_IMAGE3D_MAX_DEPTH, CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
      CL_DEVICE_IMAGE_MAX_ARRAY_SIZE};
  for (size_t i = 0; i < sizeof image_sizes / sizeof *image_sizes; i++)
    CHECK(device_size(d, image_sizes[i]) >= 2048);
  CHECK(device_uint(d, CL_DEVICE_PIPE_SUPPORT) == CL_FALSE);
  CHECK_EQ(device_uint(d, CL_DEVICE_MAX_PIPE_ARGS), 0);
  CHECK_EQ(device_uint(d, CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS), 0);
  CHECK_EQ(device_uint(d, CL_DEVICE_PIPE_MAX_PACKET_SIZE), 0);
  /* Coarse-grained SVM buffers only (test_cl_svm.c). */
  CHECK_EQ(device_ulong(d, CL_DEVICE_SVM_CAPABILITIES),
           CL_DEVICE_SVM_COARSE_GRAIN_BUFFER);
  CHECK_EQ(device_ulong(d, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES), 0);
  CHECK_EQ(device_ulong(d, CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES), 0);
  CHECK_EQ(device_uint(d, CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE), 0);
  CHECK_EQ(device_uint(d, CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE), 0);
  CHECK_EQ(device_uint(d, CL_DEVICE_MAX_ON_DEVICE_QUEUES), 0);
  CHECK_EQ(device_uint(d, CL_DEVICE_MAX_ON_DEVICE_EVENTS), 0);
  /* Sub-groups of the vector's width on the CPU, warps on a GPU, with
   * independent forward progress (cl_khr_subgroups); as many as the
   * smallest a kernel may ask for (cl_intel_required_subgroup_size: 4 on
   * the CPU, 32 on a GPU) make. */
  size_t max_group = device_size(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  cl_uint sub_groups = device_uint(d, CL_DEVICE_MAX_NUM_SUB_GROUPS);
  CHECK(sub_groups == (max_group + 3) / 4 || sub_groups == (max_group + 31) / 32);
  CHECK(device_uint(d, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS) == CL_TRUE);
  /* No IL and no built-in kernels: empty strings and empty lists. */
  char *il = device_string(d, CL_DEVICE_IL_VERSION);
  CHECK(!strcmp(il, ""));
  char *builtins = device_string(d, CL_DEVICE_BUILT_IN_KERNELS);
  CHECK(!strcmp(builtins, ""));
  size_t n;
  free(device_versions(d, CL_DEVICE_ILS_WITH_VERSION, &n));
  CHECK_EQ(n, 0);
  free(device_versions(d, CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, &n));
  CHECK_EQ(n, 0);
  /* No partitions: the property list is a lone 0. */
  cl_device_partition_property props[4] = {7, 7, 7, 7};
  size_t size = 0;
  CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_PARTITION_PROPERTIES, sizeof props,
                           props, &size));
  CHECK_EQ(size, sizeof props[0]);
  CHECK_EQ(props[0], 0);
  CHECK_EQ(device_uint(d, CL_DEVICE_PARTITION_MAX_SUB_DEVICES), 0);
  CHECK_EQ(device_ulong(d, CL_DEVICE_PARTITION_AFFINITY_DOMAIN), 0);
  char *extensions = device_string(d, CL_DEVICE_EXTENSIONS);
  static const char *const absent[] = {
      "cl_khr_il_program", "cl_khr_depth_images",
      "cl_khr_fp16"};
  for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
    if (has_word(extensions, absent[i])) FAIL("%s is listed", absent[i]);
  /* 3D image writes and 2D images from buffers come with the images. */
  CHECK(has_word(extensions, "cl_khr_3d_image_writes"));
  CHECK(has_word(extensions, "cl_khr_image2d_from_buffer"));
  /* Sub-groups: the extension, its extended types, OpenCL C's feature. */
  CHECK(has_word(extensions, "cl_khr_subgroups"));
  CHECK(has_word(extensions, "cl_khr_subgroup_extended_types"));
  free(il), free(builtins), free(extensions);
}

/* cl_weft_sync: listed, and its query says how many work-groups can be
 * resident at once; a global barrier over more is refused at enqueue. */
TEST(device_max_resident_groups) {
  CPU_ONLY("the figure checked is the CPU's (test_sync's "
           "resident_groups_query checks how it is derived)");
  cl_env e = cl_env_open();
  char *extensions = device_string(e.dev, CL_DEVICE_EXTENSIONS);
  CHECK(has_word(extensions, "cl_weft_sync"));
  size_t max = device_size(e.dev, CL_DEVICE_MAX_RESIDENT_GROUPS_WEFT);
  CHECK(max >= 4096 && max <= 65536);
  cl_kernel k = cl_kernel_from(e.ctx,
                               "__kernel void k(__global int *n) {\n"
                               "  atomic_inc(n);\n"
                               "  weft_global_barrier();\n"
                               "  if (n[0] != get_num_groups(0)) n[1] = 1;\n"
                               "}\n",
                               "k");
  int zero[2] = {0, 0}, got[2];
  cl_mem m = cl_buffer(e.ctx, sizeof zero, zero);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t local = 1, global = max + 1;
  CL_CHECK_ERR(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL,
                                      NULL), CL_INVALID_WORK_GROUP_SIZE);
  global = 64;
  CL_CHECK(clEnqueueNDRangeKernel(e.q, k, 1, NULL, &global, &local, 0, NULL,
                                  NULL));
  CL_CHECK(clEnqueueReadBuffer(e.q, m, CL_TRUE, 0, sizeof got, got, 0, NULL,
                               NULL));
  CHECK_EQ(got[0], 64);
  CHECK_EQ(got[1], 0);
  free(extensions);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  cl_env_close(&e);
}

TEST(device_extensions_with_version) {
  cl_device_id d = cl_weft_device();
  char *extensions = device_string(d, CL_DEVICE_EXTENSIONS);
  size_t n;
  cl_name_version *v = device_versions(d, CL_DEVICE_EXTENSIONS_WITH_VERSION, &n);
  CHECK_EQ(n, count_words(extensions));
  for (size_t i = 0; i < n; i++) {
    if (!has_word(extensions, v[i].name)) FAIL("%s is not in \"%s\"", v[i].name,
                                              extensions);
    CHECK(CL_VERSION_MAJOR(v[i].version) >= 1);
    for (size_t j = 0; j < i; j++) CHECK(strcmp(v[i].name, v[j].name));
  }
  /* The platform's extensions are those every device has. */
  char *platform = platform_string(cl_weft_platform(), CL_PLATFORM_EXTENSIONS);
  for (char *w = strtok(platform, " "); w; w = strtok(NULL, " "))
    CHECK(has_word(extensions, w));
  free(platform), free(v), free(extensions);
}

/* cl_khr_integer_dot_product 2.0.0: both kinds of input, and the
 * acceleration queries answered (nothing accelerated is promised). */
TEST(device_integer_dot_product) {
  cl_device_id d = cl_weft_device();
  size_t n;
  cl_name_version *v = device_versions(d, CL_DEVICE_EXTENSIONS_WITH_VERSION, &n);
  cl_version version = 0;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i].name, "cl_khr_integer_dot_product")) version = v[i].version;
  free(v);
  CHECK_EQ(version, CL_MAKE_VERSION(2, 0, 0));
  cl_device_integer_dot_product_capabilities_khr caps = 0;
  CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR,
                           sizeof caps, &caps, NULL));
  CHECK_EQ(caps, CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR |
                     CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR);
  const cl_device_info kinds[] = {
      CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR,
      CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR};
  for (int k = 0; k < 2; k++) {
    cl_device_integer_dot_product_acceleration_properties_khr a;
    memset(&a, 0xff, sizeof a);
    size_t size = 0;
    CL_CHECK(clGetDeviceInfo(d, kinds[k], sizeof a, &a, &size));
    CHECK_EQ(size, sizeof a);
    CHECK(!a.signed_accelerated && !a.unsigned_accelerated &&
          !a.mixed_signedness_accelerated &&
          !a.accumulating_saturating_signed_accelerated &&
          !a.accumulating_saturating_unsigned_accelerated &&
          !a.accumulating_saturating_mixed_signedness_accelerated);
  }
}

/* What the extensions and features promise, the other queries agree with. */
TEST(device_features_consistent) {
  cl_device_id d = cl_weft_device();
  char *extensions = device_string(d, CL_DEVICE_EXTENSIONS);
  size_t n;
  cl_name_version *f = device_versions(d, CL_DEVICE_OPENCL_C_FEATURES, &n);
  int fp64 = 0, generic = 0, globals = 0, collective = 0;
  for (size_t i = 0; i < n; i++) {
    CHECK(!strncmp(f[i].name, "__opencl_c_", 11));
    CHECK(CL_VERSION_MAJOR(f[i].version) >= 1);
    fp64 |= !strcmp(f[i].name, "__opencl_c_fp64");
    generic |= !strcmp(f[i].name, "__opencl_c_generic_address_space");
    globals |= !strcmp(f[i].name, "__opencl_c_program_scope_global_variables");
    collective |= !strcmp(f[i].name, "__opencl_c_work_group_collective_functions");
  }
  CHECK_EQ(fp64, has_word(extensions, "cl_khr_fp64"));
  cl_device_fp_config dbl = device_ulong(d, CL_DEVICE_DOUBLE_FP_CONFIG);
  if (fp64) {
    cl_device_fp_config need = CL_FP_FMA | CL_FP_ROUND_TO_NEAREST |
                               CL_FP_INF_NAN | CL_FP_DENORM;
    CHECK((dbl & need) == need);
    /* A single-precision flag only. */
    CHECK(!(dbl & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT));
    CHECK(device_uint(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE) > 0);
    CHECK(device_uint(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE) > 0);
  } else {
    CHECK_EQ(dbl, 0);
    CHECK_EQ(device_uint(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE), 0);
  }
  CHECK_EQ(generic, device_uint(d, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT) == CL_TRUE);
  CHECK_EQ(globals, device_size(d, CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE) > 0);
  if (!globals) CHECK_EQ(device_size(d, CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE), 0);
  CHECK_EQ(collective,
           device_uint(d, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT) == CL_TRUE);
  /* No half: widths 0. */
  if (!has_word(extensions, "cl_khr_fp16")) {
    CHECK_EQ(device_uint(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF), 0);
    CHECK_EQ(device_uint(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF), 0);
  }
  free(f), free(extensions);
}

/* Every listed __opencl_c_* feature is a macro in an OpenCL C 3.0 kernel;
 * every feature OpenCL 3.0 defines that is not listed is not a macro. */
static const char *const all_features[] = {
    "__opencl_c_3d_image_writes", "__opencl_c_atomic_order_acq_rel",
    "__opencl_c_atomic_order_seq_cst", "__opencl_c_atomic_scope_device",
    "__opencl_c_atomic_scope_all_devices", "__opencl_c_device_enqueue",
    "__opencl_c_generic_address_space", "__opencl_c_fp64",
    "__opencl_c_images", "__opencl_c_int64", "__opencl_c_pipes",
    "__opencl_c_program_scope_global_variables",
    "__opencl_c_read_write_images", "__opencl_c_subgroups",
    "__opencl_c_work_group_collective_functions",
    "__opencl_c_integer_dot_product_input_4x8bit",
    "__opencl_c_integer_dot_product_input_4x8bit_packed",
    "__opencl_c_kernel_clock_scope_device",
    "__opencl_c_kernel_clock_scope_work_group",
    "__opencl_c_kernel_clock_scope_sub_group",
    "__opencl_c_ext_fp16_global_atomic_load_store",
    "__opencl_c_ext_fp32_global_atomic_add",
    "__opencl_c_ext_fp64_global_atomic_add"};
#define NUM_FEATURES (sizeof all_features / sizeof *all_features)

TEST(device_features_are_macros) {
  cl_device_id d = cl_weft_device();
  size_t n;
  cl_name_version *listed = device_versions(d, CL_DEVICE_OPENCL_C_FEATURES, &n);
  /* One output per known feature, then one per listed feature. */
  size_t total = NUM_FEATURES + n;
  char *source = malloc(512 * (total + 1));
  size_t at = (size_t)sprintf(source, "__kernel void k(__global int *out) {\n");
  for (size_t i = 0; i < total; i++) {
    const char *name = i < NUM_FEATURES ? all_features[i]
                                        : listed[i - NUM_FEATURES].name;
    at += (size_t)sprintf(source + at, "#ifdef %s\n  out[%zu] = 1;\n#else\n"
                          "  out[%zu] = 2;\n#endif\n", name, i, i);
  }
  sprintf(source + at, "}\n");
  int *out = calloc(total, sizeof *out);
  run_ints(source, "-cl-std=CL3.0", 1, out, total);
  for (size_t i = 0; i < total; i++) {
    const char *name = i < NUM_FEATURES ? all_features[i]
                                        : listed[i - NUM_FEATURES].name;
    int is_listed = 0;
    for (size_t j = 0; j < n; j++) is_listed |= !strcmp(listed[j].name, name);
    if (out[i] != (is_listed ? 1 : 2))
      FAIL("%s is %s but %s a macro", name, is_listed ? "listed" : "not listed",
           out[i] == 1 ? "is" : "is not");
  }
  free(out), free(source), free(listed);
}

/* The language extensions a device lists are macros in kernels too. */
TEST(device_extensions_are_macros) {
  cl_device_id d = cl_weft_device();
  char *extensions = device_string(d, CL_DEVICE_EXTENSIONS);
  char *names[64];
  size_t n = 0;
  for (char *w = strtok(extensions, " "); w && n < 64; w = strtok(NULL, " "))
    /* Host API only: the ICD, queues and suggested local sizes. */
    if (strcmp(w, "cl_khr_icd") && strcmp(w, "cl_khr_create_command_queue") &&
        strcmp(w, "cl_khr_suggested_local_work_size"))
      names[n++] = w;
  char *source = malloc(256 * (n + 1));
  size_t at = (size_t)sprintf(source, "__kernel void k(__global int *out) {\n");
  for (size_t i = 0; i < n; i++)
    at += (size_t)sprintf(source + at, "#ifdef %s\n  out[%zu] = 1;\n#endif\n",
                          names[i], i);
  sprintf(source + at, "}\n");
  int out[64];
  run_ints(source, "", 1, out, n ? n : 1);
  for (size_t i = 0; i < n; i++)
    if (out[i] != 1) FAIL("%s is listed but is not a macro", names[i]);
  free(source), free(extensions);
}

/* Each OpenCL C version listed builds with its -cl-std and is the version
 * the kernel sees. */
TEST(device_c_versions_build) {
  cl_device_id d = cl_weft_device();
  size_t n;
  cl_name_version *v = device_versions(d, CL_DEVICE_OPENCL_C_ALL_VERSIONS, &n);
  CHECK(n >= 1);
  int has_12 = 0, has_30 = 0;
  for (size_t i = 0; i < n; i++) {
    CHECK(!strcmp(v[i].name, "OpenCL C"));
    unsigned major = CL_VERSION_MAJOR(v[i].version);
    unsigned minor = CL_VERSION_MINOR(v[i].version);
    has_12 |= major == 1 && minor == 2;
    has_30 |= major == 3 && minor == 0;
    char options[32];
    snprintf(options, sizeof options, "-cl-std=CL%u.%u", major, minor);
    int out[1];
    run_ints("__kernel void k(__global int *out) {\n"
             "  out[0] = __OPENCL_C_VERSION__;\n}\n", options, 1, out, 1);
    if (out[0] != (int)(major * 100 + minor * 10))
      FAIL("%s: __OPENCL_C_VERSION__ is %d", options, out[0]);
  }
  CHECK(has_12 && has_30);
  free(v);
}

/* The preferred and native vector widths follow the host's vectors: 64
 * bytes with AVX-512, 32 with AVX2, else 16; no half. */
TEST(device_vector_widths) {
  CPU_ONLY("the figures checked are the CPU's");
  cl_device_id d = cl_weft_device();
  unsigned bytes = 16;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) bytes = 64;
  else if (__builtin_cpu_supports("avx2")) bytes = 32;
#endif
  static const struct { cl_device_info preferred, native; unsigned size; } w[] = {
      {CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, 1},
      {CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, 2},
      {CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, 4},
      {CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, 4},
      {CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, 8},
      {CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, 8}};
  for (size_t i = 0; i < sizeof w / sizeof *w; i++) {
    CHECK_EQ(device_uint(d, w[i].preferred), bytes / w[i].size);
    CHECK_EQ(device_uint(d, w[i].native), bytes / w[i].size);
  }
}

/* The clock in MHz, from the kernel's cpufreq or /proc/cpuinfo. */
static unsigned host_mhz(void) {
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
  unsigned long khz = 0;
  if (f) {
    if (fscanf(f, "%lu", &khz) != 1) khz = 0;
    fclose(f);
    if (khz) return (unsigned)(khz / 1000);
  }
  f = fopen("/proc/cpuinfo", "r");
  char line[256];
  double mhz = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "cpu MHz", 7) && sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
      break;
  if (f) fclose(f);
  return (unsigned)(mhz + 0.5);
}

/* The highest-level cache the kernel lists for CPU 0, the one a core
 * has (an AMD EPYC's C library counts the whole package's L3), in bytes;
 * 0 where it lists none. */
static long core_cache_bytes(void) {
  long best = 0;
  int best_level = 0;
  for (int i = 0; i < 8; i++) {
    char path[96];
    int level = 0;
    long kib = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fscanf(f, "%d", &level) != 1) level = 0;
    fclose(f);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    if (!(f = fopen(path, "r"))) continue;
    if (fscanf(f, "%ldK", &kib) != 1) kib = 0;
    fclose(f);
    if (kib && level >= best_level) best = kib * 1024, best_level = level;
  }
  return best;
}

TEST(device_clock_and_caches) {
  CPU_ONLY("the figures checked are the CPU's");
  cl_device_id d = cl_weft_device();
  cl_uint mhz = device_uint(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
  CHECK(mhz > 0);
  unsigned host = host_mhz();
  /* "cpu MHz" moves with frequency scaling: within a factor of two. */
  if (host) CHECK(mhz >= host / 2 && mhz <= host * 2);
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  long cache = core_cache_bytes();
  if (cache <= 0) cache = l3 > 0 ? l3 : l2;
  cl_ulong size = device_ulong(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE);
  CHECK(size > 0);
  if (cache > 0) CHECK_EQ(size, cache);
  long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
  cl_uint cacheline = device_uint(d, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE);
  CHECK(cacheline > 0 && (cacheline & (cacheline - 1)) == 0);
  if (line > 0) CHECK_EQ(cacheline, line);
}

/* ---------------------------------------- limits a launch really has */

static const char *local_size_source =
    "__kernel void k(__global int *out) {\n"
    "  size_t id = get_global_id(0) + get_global_size(0) * get_global_id(1);\n"
    "  out[id] = (int)(get_local_size(0) * get_local_size(1));\n"
    "}\n";

/* CL_DEVICE_MAX_WORK_GROUP_SIZE work-items make a group; one more do not. */
TEST(device_max_work_group_size_is_real) {
  cl_device_id d = cl_weft_device();
  size_t max = device_size(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
  size_t items[3];
  CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items,
                           items, NULL));
  cl_context ctx = cl_weft_context();
  cl_command_queue q = cl_weft_queue(ctx, 0);
  cl_kernel k = cl_kernel_from(ctx, local_size_source, "k");
  size_t kernel_max = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_WORK_GROUP_SIZE,
                                    sizeof kernel_max, &kernel_max, NULL));
  CHECK(kernel_max >= 1 && kernel_max <= max);
  cl_mem m = cl_buffer(ctx, 2 * max * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  /* A 2D group of exactly kernel_max items (each side within its limit). */
  size_t local[2] = {kernel_max, 1};
  while (local[0] > items[0] || (local[0] % 2 == 0 && local[1] < 2)) {
    local[0] /= 2;
    local[1] *= 2;
  }
  CHECK_EQ(local[0] * local[1], kernel_max);
  CHECK(local[1] <= items[1]);
  size_t global[2] = {local[0], 2 * local[1]};
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL));
  int *out = malloc(2 * max * sizeof(int));
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, 2 * kernel_max * sizeof(int),
                               out, 0, NULL, NULL));
  for (size_t i = 0; i < 2 * kernel_max; i++) CHECK_EQ(out[i], kernel_max);
  /* Twice as many rows: each side still within its limit, the group not. */
  if (2 * local[1] <= items[1]) {
    local[1] *= 2;
    CL_CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL,
                                        NULL), CL_INVALID_WORK_GROUP_SIZE);
  }
  free(out);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}

static const char *local_mem_source =
    "__kernel void k(__global int *out, __local uchar *scratch, uint n) {\n"
    "  size_t l = get_local_id(0), size = get_local_size(0);\n"
    "  for (uint i = l; i < n; i += size) scratch[i] = (uchar)(i * 7);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int bad = 0;\n"
    "  for (uint i = l; i < n; i += size) bad += scratch[n - 1 - i] != (uchar)((n - 1 - i) * 7);\n"
    "  atomic_add(&out[0], bad);\n"
    "  atomic_add(&out[1], 1);\n"
    "}\n";

/* A __local argument of exactly CL_DEVICE_LOCAL_MEM_SIZE bytes runs and
 * every byte of it holds what was stored; one byte more does not launch. */
TEST(device_local_mem_size_is_real) {
  cl_device_id d = cl_weft_device();
  cl_ulong local_mem = device_ulong(d, CL_DEVICE_LOCAL_MEM_SIZE);
  cl_context ctx = cl_weft_context();
  cl_command_queue q = cl_weft_queue(ctx, 0);
  cl_kernel k = cl_kernel_from(ctx, local_mem_source, "k");
  int zero[2] = {0, 0};
  cl_mem m = cl_buffer(ctx, sizeof zero, zero);
  cl_uint n = (cl_uint)local_mem;
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, (size_t)local_mem, NULL));
  CL_CHECK(clSetKernelArg(k, 2, sizeof n, &n));
  size_t global = 64, local = 16;
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL));
  int out[2];
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
  CHECK_EQ(out[0], 0);
  CHECK_EQ(out[1], 64);
  cl_ulong used = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof used,
                                    &used, NULL));
  CHECK_EQ(used, local_mem);
  CL_CHECK(clSetKernelArg(k, 1, (size_t)local_mem + 1, NULL));
  CL_CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL,
                                      NULL), CL_OUT_OF_RESOURCES);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}

/* No non-uniform groups: a local size that does not divide is refused. */
TEST(device_non_uniform_groups_refused) {
  cl_device_id d = cl_weft_device();
  CHECK(device_uint(d, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT) == CL_FALSE);
  cl_context ctx = cl_weft_context();
  cl_command_queue q = cl_weft_queue(ctx, 0);
  cl_kernel k = cl_kernel_from(ctx, local_size_source, "k");
  cl_mem m = cl_buffer(ctx, 64 * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  size_t global[2] = {3, 3}, local[2] = {2, 2};
  CL_CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, global, NULL, 0, NULL, NULL));
  CL_CHECK_ERR(clEnqueueNDRangeKernel(q, k, 1, NULL, global, local, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
  global[0] = 2;
  CL_CHECK_ERR(clEnqueueNDRangeKernel(q, k, 2, NULL, global, local, 0, NULL, NULL),
               CL_INVALID_WORK_GROUP_SIZE);
  CL_CHECK(clFinish(q));
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}

/* The device's preferred multiple is the one its kernels report. */
TEST(device_preferred_multiple_matches_kernels) {
  cl_device_id d = cl_weft_device();
  size_t device_multiple = device_size(d, CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
  CHECK(device_multiple >= 1);
  cl_context ctx = cl_weft_context();
  cl_kernel k = cl_kernel_from(ctx, local_size_source, "k");
  size_t kernel_multiple = 0;
  CL_CHECK(clGetKernelWorkGroupInfo(k, d, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                    sizeof kernel_multiple, &kernel_multiple, NULL));
  CHECK_EQ(kernel_multiple, device_multiple);
  clReleaseKernel(k);
  clReleaseContext(ctx);
}

/* A by-value argument of CL_DEVICE_MAX_PARAMETER_SIZE bytes in all fits:
 * a struct filling it arrives whole. */
TEST(device_max_parameter_size_is_real) {
  cl_device_id d = cl_weft_device();
  size_t max = device_size(d, CL_DEVICE_MAX_PARAMETER_SIZE);
  /* The buffer pointer takes 8 bytes of it; the struct gets the rest. */
  size_t ints = (max - sizeof(cl_mem)) / sizeof(int);
  if (ints > 1000) ints = 1000;
  char source[512];
  snprintf(source, sizeof source,
           "typedef struct { int v[%zu]; } big;\n"
           "__kernel void k(__global int *out, big b) {\n"
           "  for (int i = 0; i < %zu; i++) out[i] = b.v[i];\n}\n", ints, ints);
  cl_context ctx = cl_weft_context();
  cl_command_queue q = cl_weft_queue(ctx, 0);
  cl_kernel k = cl_kernel_from(ctx, source, "k");
  int *b = malloc(ints * sizeof *b);
  for (size_t i = 0; i < ints; i++) b[i] = (int)(i * 3 + 1);
  cl_mem m = cl_buffer(ctx, ints * sizeof(int), NULL);
  CL_CHECK(clSetKernelArg(k, 0, sizeof m, &m));
  CL_CHECK(clSetKernelArg(k, 1, ints * sizeof *b, b));
  CL_CHECK(clEnqueueTask(q, k, 0, NULL, NULL));
  int *out = malloc(ints * sizeof *out);
  CL_CHECK(clEnqueueReadBuffer(q, m, CL_TRUE, 0, ints * sizeof(int), out, 0,
                               NULL, NULL));
  for (size_t i = 0; i < ints; i++) CHECK_EQ(out[i], b[i]);
  free(out), free(b);
  clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
}

/* ------------------------------------------------- timers, references */

TEST(host_timer_monotonic) {
  cl_device_id d = cl_weft_device();
  cl_ulong a = 0, b = 0;
  CL_CHECK(clGetHostTimer(d, &a));
  usleep(2000);
  CL_CHECK(clGetHostTimer(d, &b));
  CHECK(b > a);
  CHECK(b - a >= 2000000); /* nanoseconds */
  cl_ulong dev1 = 0, host1 = 0, dev2 = 0, host2 = 0;
  CL_CHECK(clGetDeviceAndHostTimer(d, &dev1, &host1));
  usleep(1000);
  CL_CHECK(clGetDeviceAndHostTimer(d, &dev2, &host2));
  CHECK(dev2 > dev1 && host2 > host1);
  CHECK(host1 >= b);
  /* The device clock advances as the host clock does. */
  cl_ulong host_step = host2 - host1, dev_step = dev2 - dev1;
  CHECK(dev_step + 1000000 > host_step && host_step + 1000000 > dev_step);
  CL_CHECK_ERR(clGetHostTimer(d, NULL), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetDeviceAndHostTimer(d, NULL, &host1), CL_INVALID_VALUE);
  CL_CHECK_ERR(clGetDeviceAndHostTimer(d, &dev1, NULL), CL_INVALID_VALUE);
  cl_context ctx = cl_weft_context();
  CL_CHECK_ERR(clGetHostTimer((cl_device_id)ctx, &a), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clGetDeviceAndHostTimer((cl_device_id)ctx, &a, &b),
               CL_INVALID_DEVICE);
  clReleaseContext(ctx);
}

/* Root devices are not counted: retain and release succeed, and the
 * reference count stays 1. */
TEST(retain_release_device) {
  cl_device_id d = cl_weft_device();
  CL_CHECK(clRetainDevice(d));
  CL_CHECK(clRetainDevice(d));
  CHECK_EQ(device_uint(d, CL_DEVICE_REFERENCE_COUNT), 1);
  CL_CHECK(clReleaseDevice(d));
  CL_CHECK(clReleaseDevice(d));
  CL_CHECK(clReleaseDevice(d));
  CHECK_EQ(device_uint(d, CL_DEVICE_REFERENCE_COUNT), 1);
  char name[8];
  CL_CHECK(clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof name, name, NULL));
  cl_context ctx = cl_weft_context();
  CL_CHECK_ERR(clRetainDevice((cl_device_id)ctx), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clReleaseDevice((cl_device_id)ctx), CL_INVALID_DEVICE);
  CL_CHECK_ERR(clRetainDevice(NULL), CL_INVALID_DEVICE);
  clReleaseContext(ctx);
}

/* CL_DEVICE_PARTITION_PROPERTIES lists nothing: every partitioning is a
 * valid request the device does not support. */
TEST(create_sub_devices_refused) {
  cl_device_id d = cl_weft_device();
  cl_device_id out[4] = {NULL, NULL, NULL, NULL};
  cl_uint n = 99;
  const cl_device_partition_property equally[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  CL_CHECK_ERR(clCreateSubDevices(d, equally, 4, out, &n), CL_INVALID_VALUE);
  const cl_device_partition_property counts[] = {
      CL_DEVICE_PARTITION_BY_COUNTS, 1, CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
  CL_CHECK_ERR(clCreateSubDevices(d, counts, 4, out, &n), CL_INVALID_VALUE);
  const cl_device_partition_property affinity[] = {
      CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
      CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE, 0};
  CL_CHECK_ERR(clCreateSubDevices(d, affinity, 4, out, &n), CL_INVALID_VALUE);
  CL_CHECK_ERR(clCreateSubDevices(d, NULL, 4, out, &n), CL_INVALID_VALUE);
  CHECK(out[0] == NULL);
  cl_context ctx = cl_weft_context();
  CL_CHECK_ERR(clCreateSubDevices((cl_device_id)ctx, equally, 4, out, &n),
               CL_INVALID_DEVICE);
  clReleaseContext(ctx);
}

TEST_MAIN()
