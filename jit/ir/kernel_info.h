/*
 * kernel_info.h: the description of each kernel (name, arguments) read from
 * the metadata Clang attaches to kernel functions.
 */
#ifndef WEFT_JIT_KERNEL_INFO_H
#define WEFT_JIT_KERNEL_INFO_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "jit/kernel_abi.h"

/* Whether fn is an OpenCL kernel (Clang gives kernels the SPIR_KERNEL
 * calling convention on every target we build for). */
int weft__is_kernel(LLVMValueRef fn);

/* The type a by-value (byval) struct parameter index of fn points at, or
 * NULL. */
LLVMTypeRef weft__byval_type(LLVMValueRef fn, unsigned index);

/* Describes the kernels of module in source order. Fails with WEFT_EBUILD
 * and a message when a kernel takes an argument Weft cannot pass (an image,
 * a sampler, a pipe). */
int weft__kernel_info_collect(LLVMModuleRef module, LLVMTargetDataRef layout,
                              weft_kernel_desc **out, unsigned *count,
                              char **error);

void weft__kernel_descs_free(weft_kernel_desc *descs, unsigned count);

/* That every kernel's intel_reqd_sub_group_size is one of sizes (a mask
 * of powers of two) of the device named: 0, or WEFT_EBUILD and a
 * malloc'd message naming the kernel and the sizes there are. */
int weft__kernel_info_check_sub_groups(const weft_kernel_desc *kernels,
                                       unsigned count, unsigned sizes,
                                       const char *device, char **error);

/* The bytes of the program-scope variables in the __global address space
 * that module defines (CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE): taken
 * before the builtins are linked, so only the program's own count. */
size_t weft__global_variables_size(LLVMModuleRef module, LLVMTargetDataRef layout);

/* Frees check mode's sites and the strings they own. */
void weft__check_sites_free(weft_check_site *sites, unsigned count);

#endif
