/*
 * build_stack.h: builds run on a stack of Weft's own. Clang's parser and
 * LLVM's passes recurse once per level of nesting in a kernel (10,000
 * nested ifs take some 16,000 frames in the parser, and O3 goes as deep
 * over check mode's blocks), deeper than the stack of the application
 * thread that asks for a build may go. The device's build operations and
 * weft_compile_ptx are called through these functions, each of which runs
 * on a thread with a 1 GiB stack (mapped as it is used) and waits for it.
 * The device's operations run as jobs with their own copies of their
 * inputs, so that a build past WEFT_BUILD_TIMEOUT can be abandoned, and
 * with a crash of the compiler caught (a build error that says so).
 */
#ifndef WEFT_CORE_BUILD_STACK_H
#define WEFT_CORE_BUILD_STACK_H

#include "backend/device.h"

/* Runs fn(arg) on such a thread and returns what it returns; without a
 * thread to be had, on the caller's own stack. */
int weft__on_build_stack(int (*fn)(void *arg), void *arg);

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

#endif
