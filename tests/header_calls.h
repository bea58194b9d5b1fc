/*
 * header_calls.h: a kernel that calls every builtin of Clang's opencl-c.h
 * whose name starts with one of the given prefixes, so that a test can
 * check that each one compiles and links against Weft's builtin library.
 */
#ifndef WEFT_TESTS_HEADER_CALLS_H
#define WEFT_TESTS_HEADER_CALLS_H

#include <stddef.h>

/* Source of "__kernel void every(__global char *g, __local char *l)"
 * calling each declaration of header (a path to opencl-c.h) whose name
 * starts with one of prefixes (NULL-terminated). The header's #if lines are
 * kept around the calls, so a call exists exactly where the declaration
 * does under the features of the compiler building the kernel. *count gets
 * the number of calls written. malloc'd; NULL if the header is unreadable. */
char *header_calls_source(const char *header, const char *const *prefixes,
                          size_t *count);

/* Compiles source with Clang against opencl-c.h itself (Clang's default
 * features for x86-64, which include Weft's) with std ("-cl-std=CL3.0"),
 * links the builtin library, and lists the mangled names left undefined,
 * one a line: "" when every call links, NULL when Clang fails. */
char *header_calls_undefined(const char *source, const char *std);

#endif
