/*
 * backends.h: the back ends core/ makes devices of (backends.c), as a
 * table of {name, probe} entries that core/device.c walks in order, the
 * way PoCL's driver table works: core/ never names a back end. Each back
 * end gets the configuration when its devices are made and keeps it.
 */
#ifndef WEFT_BACKEND_BACKENDS_H
#define WEFT_BACKEND_BACKENDS_H

#include "backend/device.h"
#include "base/config.h"

typedef struct weft_backend {
  const char *name;
  /* Makes the back end's devices, at most max, into out, and returns how
   * many (0: none on this machine). A device that cannot be used is left
   * out with a word on stderr. A negative status, with a malloc'd reason
   * in *error, means the back end failed where it may not (the CPU). */
  int (*probe)(const weft_config *config, weft_device_made *out, int max,
               char **error);
  /* What the back end found on this machine, or why nothing, as one line
   * (weft_cuda_status), for WEFT_LOG=device and messages; NULL where it
   * has nothing to say. */
  const char *(*status)(const weft_config *config);
  /* A build that needs no device (weft_compile_ptx): OpenCL C source to
   * PTX text for compute capability sm (70 and up); *ptx and *log (always
   * set) malloc'd. NULL where the back end makes no PTX. */
  int (*compile_ptx)(const weft_config *config, unsigned sm,
                     const char *source, size_t length, const char *options,
                     char **ptx, char **log);
} weft_backend;

/* The back ends, in the order their devices are numbered. */
extern const weft_backend weft__backends[];
extern const unsigned weft__num_backends;

#endif /* WEFT_BACKEND_BACKENDS_H */
