/* compile.c: the front half of a build (see compile.h): Clang in-process
 * on OpenCL C, with exactly the features Weft implements, and bitcode in
 * and out. */
#include "jit/front/compile.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>

#include "jit/jit.h"
#include "jit/ir/target.h"
#include "weft/weft.h"

/* What kernels may use: exactly what the builtin library implements, and
 * cl_khr_image2d_from_buffer, an extension of the host API (api/) that
 * kernels may test for all the same. The device's extension list
 * (CL_DEVICE_EXTENSIONS) is made from this one. Sub-groups make
 * independent forward progress, which cl_khr_subgroups requires: warps on
 * the GPU, on the CPU a group's sub-groups take turns where one polls
 * (backend/cpu/sub_group.c). */
#define WEFT_CL_FEATURES                                                     \
  "cl_khr_fp64,__opencl_c_fp64,__opencl_c_int64,"                            \
  "cl_khr_global_int32_base_atomics,cl_khr_global_int32_extended_atomics,"   \
  "cl_khr_local_int32_base_atomics,cl_khr_local_int32_extended_atomics,"     \
  "cl_khr_int64_base_atomics,cl_khr_int64_extended_atomics,"                 \
  "cl_khr_byte_addressable_store,__opencl_c_generic_address_space,"          \
  "__opencl_c_program_scope_global_variables,"                            \
  "__opencl_c_work_group_collective_functions,"                           \
  "__opencl_c_atomic_order_acq_rel,__opencl_c_atomic_order_seq_cst,"      \
  "__opencl_c_atomic_scope_device,__opencl_c_atomic_scope_all_devices," \
  "__opencl_c_images,__opencl_c_read_write_images,"                         \
  "__opencl_c_3d_image_writes,cl_khr_3d_image_writes,"                     \
  "cl_khr_image2d_from_buffer,"                                              \
  "cl_khr_subgroups,__opencl_c_subgroups,cl_khr_subgroup_extended_types,"    \
  "cl_khr_subgroup_non_uniform_vote,cl_khr_subgroup_ballot,"                  \
  "cl_khr_subgroup_non_uniform_arithmetic,cl_khr_subgroup_shuffle,"         \
  "cl_khr_subgroup_shuffle_relative,cl_khr_subgroup_clustered_reduce,"      \
  "cl_khr_subgroup_rotate,cl_intel_required_subgroup_size,"                 \
  "cl_khr_extended_bit_ops,cl_khr_integer_dot_product,"                     \
  "__opencl_c_integer_dot_product_input_4x8bit,"                             \
  "__opencl_c_integer_dot_product_input_4x8bit_packed"

/* The host CPU's arguments. */
static const char *const cpu_args[] = {
    "-triple", WEFT_CPU_TRIPLE,
    /* Distinct numbers for __global, __local, ... so local memory can be
     * recognized; they all mean the same memory to the x86-64 back end. */
    "-ffake-address-space-map",
};



/* An NVIDIA GPU's, before its architecture: NVPTX's own address spaces
 * (__local is shared memory), where private and generic pointers are both
 * 0, so mangled names spell address spaces out to tell their builtins
 * apart (as the nvptx builtin library is compiled). */
static const char *const nvptx_args[] = {
    "-triple", WEFT_NVPTX_TRIPLE, "-faddress-space-map-mangling=no",
};
#define NVPTX_ARCH_ARGS 4 /* -target-cpu sm_NN -target-feature +ptxNN */

static const char *const base_args[] = {
    "-x", "cl",
    /* Builtins are declared by Clang's tables, not by parsing opencl-c.h,
     * which takes about a second. */
    "-finclude-default-header", "-fdeclare-opencl-builtins",
    "-cl-kernel-arg-info",
    /* Clang emits optimizable IR (TBAA, lifetimes) but runs no passes:
     * the work-group functions must be made first. */
    "-O3", "-disable-llvm-passes",
    /* Vectors in printf's varargs change the C ABI without AVX; Weft
     * lowers printf itself, so the warning would only be noise. */
    "-Wno-psabi",
    /* The device's OpenCL version (OpenCL C 6.13.1: the device's, not the
     * language's, which Clang gives as __OPENCL_C_VERSION__). */
    "-D__OPENCL_VERSION__=300",
    /* OpenCL C 6.13.1: both devices have images (builtins/image.cl). */
    "-D__IMAGE_SUPPORT__=1",
    /* Line tables name the source location of each barrier. */
    "-debug-info-kind=line-tables-only", "-dwarf-version=5",
    "-resource-dir", WEFT_CLANG_RESOURCE_DIR,
    "-internal-isystem", WEFT_CLANG_RESOURCE_DIR "/include",
};

const char *weft__jit_features(void) { return WEFT_CL_FEATURES; }

/* "-cl-ext=-all,+a,+b": the front end enables exactly the features of
 * list. */
static char *cl_ext_argument(const char *list) {
  size_t n = strlen(list);
  char *arg = malloc(sizeof "-cl-ext=-all,+" + 2 * n);
  if (!arg) return NULL;
  char *p = arg + sprintf(arg, "-cl-ext=-all,+");
  for (const char *f = list; *f; f++) {
    *p++ = *f;
    if (*f == ',') *p++ = '+';
  }
  *p = 0;
  return arg;
}

/* "-Dx=1" for each feature of ours (and the -cl-ext argument, both made
 * once per process). Some features (work-group collectives, atomic
 * scopes) exist in Clang only as macros that opencl-c-base.h defines for
 * SPIR targets, and it knows no host-API extension
 * (cl_khr_image2d_from_buffer); -cl-ext enables only what it knows, so the
 * front end learns every feature as a definition. (Defining the others
 * again, to the same value, changes nothing.) */
#define MAX_FEATURES 64
static char *feature_define_list[MAX_FEATURES];
static int num_feature_defines;
static char *cl_ext; /* cl_ext_argument(), made once */

static void make_feature_defines(void) {
  cl_ext = cl_ext_argument(WEFT_CL_FEATURES);
  for (const char *p = WEFT_CL_FEATURES; *p && num_feature_defines < MAX_FEATURES;) {
    size_t len = strcspn(p, ",");
    char *d = NULL;
    if (asprintf(&d, "-D%.*s=1", (int)len, p) >= 0)
      feature_define_list[num_feature_defines++] = d;
    p += len + (p[len] == ',');
  }
}

static const char *const *feature_defines(int *count) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, make_feature_defines);
  *count = num_feature_defines;
  return (const char *const *)feature_define_list;
}

void weft__log_append(char **log, const char *text) {
  if (!text || !*text) return;
  size_t old = *log ? strlen(*log) : 0;
  char *grown = realloc(*log, old + strlen(text) + 1);
  if (!grown) return;
  strcpy(grown + old, text);
  *log = grown;
}

extern const char weft__kernel_header[];

/* The headers of a compilation: the program's embedded ones, then Weft's
 * kernel extension header, which every program includes first. */
static weft_source_file *with_kernel_header(const weft_source_file *headers,
                                            unsigned n) {
  weft_source_file *all = malloc((n + 1) * sizeof *all);
  if (!all) return NULL;
  for (unsigned i = 0; i < n; i++) all[i] = headers[i];
  all[n] = (weft_source_file){WEFT_KERNEL_HEADER_NAME, weft__kernel_header,
                              strlen(weft__kernel_header)};
  return all;
}

#define COUNT(a) (sizeof a / sizeof *a)

/* The target's arguments at args; returns how many. */
static int target_args(unsigned sm, const char **args, weft_nvptx_arch *arch) {
  int n = 0;
  if (!sm) {
    for (size_t i = 0; i < COUNT(cpu_args); i++) args[n++] = cpu_args[i];
    return n;
  }
  weft__nvptx_arch(sm, arch);
  for (size_t i = 0; i < COUNT(nvptx_args); i++) args[n++] = nvptx_args[i];
  args[n++] = "-target-cpu";
  args[n++] = arch->cpu;
  args[n++] = "-target-feature";
  args[n++] = arch->feature;
  return n;
}

int weft__compile_source(LLVMContextRef context, unsigned sm,
                         const weft_build_options *o,
                         const weft_source_file *source,
                         const weft_source_file *headers, unsigned num_headers,
                         LLVMModuleRef *out, char **log, char **deps) {
  weft_source_file *all = with_kernel_header(headers, num_headers);
  if (!all) return WEFT_ENOMEM;
  int num_defines;
  const char *const *defines = feature_defines(&num_defines);
  int max = (int)(COUNT(cpu_args) + COUNT(nvptx_args) + NVPTX_ARCH_ARGS +
                  COUNT(base_args)) +
            o->num_args + 6 + num_defines;
  const char **args = malloc((size_t)max * sizeof *args);
  if (!args || !cl_ext) {
    free(args);
    free(all);
    return WEFT_ENOMEM;
  }
  weft_nvptx_arch arch;
  int n = target_args(sm, args, &arch);
  for (size_t i = 0; i < COUNT(base_args); i++) args[n++] = base_args[i];
  /* -g on the CPU: variables and types too, for gdb (the last kind given
   * wins). */
  if (o->debug && !sm) args[n++] = "-debug-info-kind=standalone";
  args[n++] = cl_ext;
  int has_std = 0;
  for (int i = 0; i < o->num_args; i++) {
    has_std |= !strncmp(o->args[i], "-cl-std=", 8);
    args[n++] = o->args[i];
  }
  if (!has_std) args[n++] = "-cl-std=CL1.2";
  for (int i = 0; i < num_defines; i++) args[n++] = defines[i];
  args[n++] = "-include";
  args[n++] = WEFT_KERNEL_HEADER_NAME;
  args[n++] = source->name;
  char *clang_log = NULL;
  int rc = weft__frontend_compile(context, source, all, num_headers + 1, args,
                                  n, out, &clang_log, deps);
  free(all);
  weft__log_append(log, clang_log);
  free(clang_log);
  free(args);
  return rc ? WEFT_EBUILD : 0;
}

int weft__module_to_bitcode(LLVMModuleRef module, void **out, size_t *size) {
  LLVMMemoryBufferRef buffer = LLVMWriteBitcodeToMemoryBuffer(module);
  if (!buffer) return WEFT_ENOMEM;
  *size = LLVMGetBufferSize(buffer);
  *out = malloc(*size ? *size : 1);
  if (*out) memcpy(*out, LLVMGetBufferStart(buffer), *size);
  LLVMDisposeMemoryBuffer(buffer);
  return *out ? 0 : WEFT_ENOMEM;
}

int weft__module_from_bitcode(LLVMContextRef context, const void *bitcode,
                              size_t size, LLVMModuleRef *out, char **log) {
  LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(
      bitcode, size, "program.bc", 0);
  int bad = LLVMParseBitcodeInContext2(context, buffer, out);
  LLVMDisposeMemoryBuffer(buffer);
  if (!bad) return 0;
  weft__log_append(log, "error: the program binary is not valid LLVM bitcode "
                        "for this version of Weft\n");
  return WEFT_EBUILD;
}

/* LLVM's default handler ends the process on an error: a bad binary must
 * only be refused. */
static void ignore_diagnostic(LLVMDiagnosticInfoRef info, void *data) {
  (void)info;
  (void)data;
}

int weft__jit_check_bitcode(unsigned sm, const void *bitcode, size_t size) {
  const char *triple = sm ? WEFT_NVPTX_TRIPLE : WEFT_CPU_TRIPLE;
  LLVMContextRef context = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(context, ignore_diagnostic, NULL);
  LLVMMemoryBufferRef buffer = LLVMCreateMemoryBufferWithMemoryRange(
      bitcode, size, "program.bc", 0);
  LLVMModuleRef module = NULL;
  /* The lazy reader checks the module's records, not function bodies: a
   * cheap test that the bytes are whole bitcode of this LLVM. It takes
   * the buffer over (not the bytes). */
  int bad = LLVMGetBitcodeModuleInContext2(context, buffer, &module);
  if (!bad) {
    bad = !LLVMGetTarget(module) || strcmp(LLVMGetTarget(module), triple);
    LLVMDisposeModule(module);
  } else {
    LLVMDisposeMemoryBuffer(buffer);
  }
  LLVMContextDispose(context);
  return bad ? WEFT_EINVAL : 0;
}
