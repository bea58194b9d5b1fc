/* opencl_user.c: finds the platform named Weft through the ICD loader and
 * asks it for its extension's entry point (weft/cl_weft.h); prints
 * "opencl: ok" when both are there. */
#include <stdio.h>
#include <string.h>

#include <weft/cl_weft.h>

int main(void) {
  cl_platform_id platforms[16];
  cl_uint n = 0;
  if (clGetPlatformIDs(16, platforms, &n) != CL_SUCCESS || !n) {
    fprintf(stderr, "opencl: no platform (OCL_ICD_VENDORS?)\n");
    return 1;
  }
  for (cl_uint i = 0; i < n && i < 16; i++) {
    char name[64] = "";
    clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name,
                      NULL);
    if (strcmp(name, "Weft")) continue;
    if (!clGetExtensionFunctionAddressForPlatform(platforms[i],
                                                  "clEnqueueScheduleSeedWEFT")) {
      fprintf(stderr, "opencl: Weft has no clEnqueueScheduleSeedWEFT\n");
      return 1;
    }
    printf("opencl: ok\n");
    return 0;
  }
  fprintf(stderr, "opencl: no platform named Weft among %u\n", n);
  return 1;
}
