/* cl_extensions.c: the addresses of extension functions. The ICD loader
 * finds clIcdGetPlatformIDsKHR through clGetExtensionFunctionAddress, the
 * one entry point besides it that the library exports by name. */
#include <string.h>

#include "api/cl_objects.h"

typedef struct extension_function {
  const char *name;
  void *address;
} extension_function;

static const extension_function functions[] = {
    {"clIcdGetPlatformIDsKHR", (void *)clIcdGetPlatformIDsKHR},
    {"clEnqueueInitSyncObjectWEFT", (void *)clEnqueueInitSyncObjectWEFT},
    {"clEnqueueScheduleSeedWEFT", (void *)clEnqueueScheduleSeedWEFT},
    {"clScheduleNextWEFT", (void *)clScheduleNextWEFT},
    {"clGetScheduleInfoWEFT", (void *)clGetScheduleInfoWEFT},
    {"clCreateCommandQueueWithPropertiesKHR",
     (void *)clCreateCommandQueueWithPropertiesKHR},
    {"clGetKernelSuggestedLocalWorkSizeKHR",
     (void *)clGetKernelSuggestedLocalWorkSizeKHR},
};

CL_API_ENTRY __attribute__((visibility("default"))) void *CL_API_CALL
clGetExtensionFunctionAddress(const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sizeof functions / sizeof *functions; i++)
    if (!strcmp(name, functions[i].name)) return functions[i].address;
  return NULL;
}

CL_API_ENTRY void *CL_API_CALL
clGetExtensionFunctionAddressForPlatform(cl_platform_id p, const char *name) {
  if (p != weft__cl_platform()) return NULL;
  return clGetExtensionFunctionAddress(name);
}
