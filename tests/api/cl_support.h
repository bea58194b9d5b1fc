/*
 * cl_support.h: shortcuts for the OpenCL API tests. They reach Weft as a
 * user's program would: through the ICD loader (libOpenCL), with
 * OCL_ICD_VENDORS pointing at the build's icd/ folder (tests/api/
 * CMakeLists.txt sets it), and pick the platform named "Weft".
 */
#ifndef WEFT_TESTS_CL_SUPPORT_H
#define WEFT_TESTS_CL_SUPPORT_H

#include <CL/cl.h>

#include "harness.h"

/* Fails the test unless expr is CL_SUCCESS, naming the error. */
#define CL_CHECK(expr)                                                       \
  do {                                                                       \
    cl_int rc_ = (expr);                                                     \
    if (rc_ != CL_SUCCESS) FAIL("%s: %s", #expr, cl_error_name(rc_));        \
  } while (0)

/* Checks that expr returns (or sets) exactly the error code. */
#define CL_CHECK_ERR(expr, code)                                             \
  do {                                                                       \
    cl_int rc_ = (expr);                                                     \
    if (rc_ != (code))                                                       \
      FAIL("%s returned %s, expected %s", #expr, cl_error_name(rc_),         \
           cl_error_name(code));                                             \
  } while (0)

/* "CL_INVALID_VALUE" for -30, and so on. */
const char *cl_error_name(cl_int code);

cl_platform_id cl_weft_platform(void);
/* The platform's default device: the CPU, unless WEFT_DEVICE chose a GPU. */
cl_device_id cl_weft_device(void);

/* A context and an in-order queue on the Weft device (properties 0). */
cl_context cl_weft_context(void);
cl_command_queue cl_weft_queue(cl_context ctx, cl_command_queue_properties p);

/* A context, an in-order queue on it, and the device, for a test; closing
 * finishes the queue and releases both. */
typedef struct cl_env {
  cl_context ctx;
  cl_command_queue q;
  cl_device_id dev;
} cl_env;

cl_env cl_env_open(void);
void cl_env_close(cl_env *e);

/* Builds source with options; fails the test, printing the log, on error. */
cl_program cl_build(cl_context ctx, const char *source, const char *options);
cl_kernel cl_kernel_from(cl_context ctx, const char *source, const char *name);

/* A buffer of size bytes, initialised from init when it is not NULL. */
cl_mem cl_buffer(cl_context ctx, size_t size, const void *init);

#endif
