/*
 * build_stack.h: builds run on a stack of Weft's own. Clang's parser and
 * LLVM's passes recurse once per level of nesting in a kernel (10,000
 * nested ifs take some 16,000 frames in the parser, and O3 goes as deep
 * over check mode's blocks), deeper than the stack of the application
 * thread that asks for a build may go. The device's build operations and
 * weft_compile_ptx are called through these functions, each of which runs
 * on a thread with a 1 GiB stack (mapped as it is used) and waits for it.
 * They run as jobs with their own copies of their inputs, so that a build
 * past WEFT_BUILD_TIMEOUT can be abandoned, and with a crash of the
 * compiler caught (a build error that says so); under WEFT_BUILD_MEMORY
 * they run in a helper process instead (build_isolated.h).
 */
#ifndef WEFT_CORE_BUILD_STACK_H
#define WEFT_CORE_BUILD_STACK_H

#include "backend/device.h"

/* The device's build, build_ir and compile operations (device.h), on a
 * stack of Weft's own, within WEFT_BUILD_TIMEOUT, a crash of the compiler
 * being a build error. */
int weft__device_build(weft_device *dev, const char *source, size_t length,
                       const char *options, weft_binary **out, char **log);
int weft__device_build_ir(weft_device *dev, const void *ir, size_t size,
                          const char *options, weft_binary **out, char **log);
int weft__device_compile(weft_device *dev, const char *source, size_t length,
                         const char *options, const weft_jit_header *headers,
                         unsigned num_headers, void **ir, size_t *size,
                         char **log);

/* weft_compile_ptx's build (PTX text for sm_<sm>, no device), likewise. */
int weft__ptx_build(unsigned sm, const char *source, size_t length,
                    const char *options, char **ptx, char **log);

#endif
