/* build.c: from OpenCL C source to callable work-group functions.
 *
 * Clang front end -> link the builtins -> describe the kernels -> inline all
 * callees -> kernel bodies -> work-item lowering -> work-group functions ->
 * __local placement -> O3 for the host CPU -> ORC LLJIT. See passes.h for
 * the transformations. */
#include "jit/jit.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Orc.h>

#include "jit/builtins.h"
#include "jit/frontend.h"
#include "jit/kernel_info.h"
#include "jit/options.h"
#include "jit/orc.h"
#include "jit/passes.h"
#include "jit/target.h"
#include "weft/weft.h"

/* What kernels may use: exactly what the builtin library implements. */
#define WEFT_CL_FEATURES                                                     \
  "cl_khr_fp64,__opencl_c_fp64,__opencl_c_int64,"                            \
  "cl_khr_global_int32_base_atomics,cl_khr_global_int32_extended_atomics,"   \
  "cl_khr_local_int32_base_atomics,cl_khr_local_int32_extended_atomics,"     \
  "cl_khr_int64_base_atomics,cl_khr_int64_extended_atomics,"                 \
  "cl_khr_byte_addressable_store,__opencl_c_generic_address_space,"          \
  "__opencl_c_program_scope_global_variables"

#define SOURCE_NAME "program.cl"

static const char *const base_args[] = {
    "-triple", WEFT_CPU_TRIPLE,
    "-x", "cl",
    /* Builtins are declared by Clang's tables, not by parsing opencl-c.h,
     * which takes about a second. */
    "-finclude-default-header", "-fdeclare-opencl-builtins",
    /* Distinct numbers for __global, __local, ... so local memory can be
     * recognized; they all mean the same memory to the x86-64 back end. */
    "-ffake-address-space-map",
    "-cl-kernel-arg-info",
    /* Clang emits optimizable IR (TBAA, lifetimes) but runs no passes:
     * the work-group functions must be made first. */
    "-O3", "-disable-llvm-passes",
    /* Line tables name the source location of each barrier. */
    "-debug-info-kind=line-tables-only", "-dwarf-version=5",
    "-resource-dir", WEFT_CLANG_RESOURCE_DIR,
    "-internal-isystem", WEFT_CLANG_RESOURCE_DIR "/include",
};

static atomic_uint program_serial;

const char *weft__jit_features(void) { return WEFT_CL_FEATURES; }

/* "-cl-ext=-all,+a,+b": the front end enables exactly our features. */
static char *cl_ext_argument(void) {
  size_t n = strlen(WEFT_CL_FEATURES);
  char *arg = malloc(sizeof "-cl-ext=-all,+" + 2 * n);
  if (!arg) return NULL;
  char *p = arg + sprintf(arg, "-cl-ext=-all,+");
  for (const char *f = WEFT_CL_FEATURES; *f; f++) {
    *p++ = *f;
    if (*f == ',') *p++ = '+';
  }
  *p = 0;
  return arg;
}

static char *dump_dir;
static int barrier_regions;
static size_t max_private;

int weft__jit_init(const weft_jit_config *config, char **error) {
  if (config->dump_dir && !(dump_dir = strdup(config->dump_dir)))
    return WEFT_ENOMEM;
  barrier_regions = config->barrier_regions;
  max_private = config->max_private;
  return weft__orc_init(config->symbols, config->num_symbols, error);
}

/* Writes the optimized module to dump_dir/program-N.ll, for debugging. */
static void dump_module(LLVMModuleRef module, unsigned serial) {
  char *path = NULL, *message = NULL;
  if (!dump_dir || asprintf(&path, "%s/program-%u.ll", dump_dir, serial) < 0)
    return;
  if (LLVMPrintModuleToFile(module, path, &message)) {
    fprintf(stderr, "weft: cannot write %s: %s\n", path, message);
    LLVMDisposeMessage(message);
  }
  free(path);
}

/* Appends text to a malloc'd log. */
static void log_append(char **log, const char *text) {
  if (!text || !*text) return;
  size_t old = *log ? strlen(*log) : 0;
  char *grown = realloc(*log, old + strlen(text) + 1);
  if (!grown) return;
  strcpy(grown + old, text);
  *log = grown;
}

/* The state of one build, released in one place whatever the outcome. */
typedef struct build {
  weft_build_options options;
  LLVMOrcThreadSafeContextRef ts_context;
  LLVMModuleRef module;
  LLVMTargetMachineRef machine;
  LLVMTargetDataRef layout;
  weft_kernel_desc *kernels;
  unsigned num_kernels;
  LLVMValueRef *bodies;
  char **entry_names;
  unsigned serial;
  weft_sites sites;
  char *error;
} build;

static int front_end(build *b, const char *source, size_t length, char **log) {
  int n = 0;
  int max = (int)(sizeof base_args / sizeof *base_args) + b->options.num_args + 3;
  const char **args = malloc((size_t)max * sizeof *args);
  char *cl_ext = cl_ext_argument();
  if (!args || !cl_ext) {
    free(args);
    free(cl_ext);
    return WEFT_ENOMEM;
  }
  for (size_t i = 0; i < sizeof base_args / sizeof *base_args; i++)
    args[n++] = base_args[i];
  args[n++] = cl_ext;
  int has_std = 0;
  for (int i = 0; i < b->options.num_args; i++) {
    has_std |= !strncmp(b->options.args[i], "-cl-std=", 8);
    args[n++] = b->options.args[i];
  }
  if (!has_std) args[n++] = "-cl-std=CL1.2";
  args[n++] = SOURCE_NAME;
  char *clang_log = NULL;
  LLVMContextRef context = LLVMOrcThreadSafeContextGetContext(b->ts_context);
  int rc = weft__frontend_compile(context, SOURCE_NAME, source, length, args,
                                  n, &b->module, &clang_log);
  log_append(log, clang_log);
  free(clang_log);
  free(cl_ext);
  free(args);
  return rc ? WEFT_EBUILD : 0;
}

static int make_entry_names(build *b) {
  b->serial = atomic_fetch_add(&program_serial, 1);
  b->entry_names = calloc(b->num_kernels + 1, sizeof *b->entry_names);
  b->bodies = calloc(b->num_kernels + 1, sizeof *b->bodies);
  if (!b->entry_names || !b->bodies) return WEFT_ENOMEM;
  for (unsigned i = 0; i < b->num_kernels; i++) {
    if (asprintf(&b->entry_names[i], "weft.p%u.%s", b->serial,
                 b->kernels[i].name) < 0) {
      b->entry_names[i] = NULL;
      return WEFT_ENOMEM;
    }
  }
  return 0;
}

static int verify(build *b) {
  char *message = NULL;
  if (!LLVMVerifyModule(b->module, LLVMReturnStatusAction, &message)) {
    LLVMDisposeMessage(message);
    return 0;
  }
  if (asprintf(&b->error, "internal error: Weft generated invalid code:\n%s",
               message) < 0)
    b->error = NULL;
  LLVMDisposeMessage(message);
  return WEFT_EBUILD;
}

/* Step 3b: kernels with barriers become region state machines where they
 * can; the others (and all, with barrier_regions off) keep fibers. */
static int schedule_regions(build *b) {
  int any = 0;
  for (unsigned i = 0; i < b->num_kernels; i++) {
    if (!weft__calls_barrier(b->bodies[i])) continue;
    b->kernels[i].flags |= WEFT_KERNEL_HAS_BARRIER;
    if (barrier_regions) {
      weft__regions_split(b->bodies[i]);
      any = 1;
    }
  }
  if (!any) return 0;
  /* SROA first, so that only what crosses blocks goes through reg2mem. */
  int rc = weft__run_passes(b->module, b->machine, "function(sroa,reg2mem)",
                            &b->error);
  for (unsigned i = 0; i < b->num_kernels && !rc; i++) {
    if (!(b->kernels[i].flags & WEFT_KERNEL_HAS_BARRIER)) continue;
    int made = weft__regions_make(b->bodies[i], b->layout, max_private,
                                  &b->kernels[i]);
    if (made < 0) rc = made;
  }
  return rc;
}

/* Steps 2 to 5 of passes.h, then optimization. */
static int lower_kernels(build *b) {
  int rc = make_entry_names(b);
  if (!rc) rc = weft__kernel_body_make(b->module, b->bodies, b->num_kernels);
  for (unsigned i = 0; i < b->num_kernels && !rc; i++)
    rc = weft__workitem_lower(b->bodies[i], &b->sites);
  /* A kernel that calls another takes in its body (and barriers) first. */
  if (!rc) rc = weft__run_passes(b->module, b->machine, "always-inline", &b->error);
  if (!rc) rc = schedule_regions(b);
  LLVMValueRef entries[b->num_kernels + 1];
  for (unsigned i = 0; i < b->num_kernels && !rc; i++) {
    entries[i] = b->kernels[i].flags & WEFT_KERNEL_REGIONS
                     ? weft__workgroup_make_regions(b->module, b->bodies[i],
                                                    &b->kernels[i],
                                                    b->entry_names[i])
                     : weft__workgroup_make(b->module, b->bodies[i],
                                            &b->kernels[i], b->entry_names[i]);
    LLVMSetLinkage(b->bodies[i], LLVMInternalLinkage);
  }
  if (rc) return rc;
  /* Barrier sites are known; the line tables have served. */
  LLVMStripModuleDebugInfo(b->module);
  rc = weft__run_passes(b->module, b->machine, "always-inline,globaldce",
                        &b->error);
  for (unsigned i = 0; i < b->num_kernels && !rc; i++)
    rc = weft__local_mem_lower(entries[i], b->layout,
                               &b->kernels[i].local_mem_size, &b->error);
  if (!rc) rc = verify(b);
  if (rc) return rc;
  weft__target_apply(b->module, b->machine);
  rc = weft__run_passes(b->module, b->machine,
                        b->options.optimize ? "default<O3>" : "globaldce",
                        &b->error);
  if (!rc) dump_module(b->module, b->serial);
  return rc;
}

/* Hands the module to ORC and fills in each kernel's entry point. */
static int load_code(build *b, weft_binary **out) {
  LLVMOrcThreadSafeModuleRef tsm =
      LLVMOrcCreateNewThreadSafeModule(b->module, b->ts_context);
  b->module = NULL; /* owned by tsm now */
  weft_orc_code *code = NULL;
  int rc = weft__orc_add(tsm, &code, &b->error);
  for (unsigned i = 0; i < b->num_kernels && !rc; i++) {
    b->kernels[i].entry =
        (weft_wg_fn)weft__orc_lookup(code, b->entry_names[i], &b->error);
    if (!b->kernels[i].entry) rc = WEFT_EBUILD;
  }
  weft_binary *binary = rc ? NULL : calloc(1, sizeof *binary);
  if (!binary) {
    weft__orc_remove(code);
    return rc ? rc : WEFT_ENOMEM;
  }
  binary->num_kernels = b->num_kernels;
  binary->kernels = b->kernels;
  binary->num_sites = b->sites.count;
  binary->sites = b->sites.locs;
  binary->impl = code;
  b->kernels = NULL;
  b->sites.locs = NULL;
  *out = binary;
  return 0;
}

static void build_free(build *b) {
  weft__options_free(&b->options);
  if (b->module) LLVMDisposeModule(b->module);
  if (b->ts_context) LLVMOrcDisposeThreadSafeContext(b->ts_context);
  if (b->layout) LLVMDisposeTargetData(b->layout);
  if (b->machine) LLVMDisposeTargetMachine(b->machine);
  weft__kernel_descs_free(b->kernels, b->num_kernels);
  for (unsigned i = 0; b->entry_names && i < b->num_kernels; i++)
    free(b->entry_names[i]);
  free(b->entry_names);
  free(b->bodies);
  free(b->sites.locs);
  free(b->error);
}

int weft__jit_build(const char *source, size_t length, const char *options,
                    weft_binary **out, char **log) {
  build b = {0};
  *out = NULL;
  *log = NULL;
  int rc = weft__options_parse(options, &b.options, &b.error);
  if (!rc) {
    b.ts_context = LLVMOrcCreateNewThreadSafeContext();
    b.machine = weft__target_machine_create();
    rc = b.machine ? 0 : WEFT_EBUILD;
  }
  if (!rc) {
    b.layout = LLVMCreateTargetDataLayout(b.machine);
    rc = front_end(&b, source, length, log);
  }
  if (!rc) rc = weft__builtins_link(b.module, &b.error);
  if (!rc) {
    weft__target_apply(b.module, b.machine);
    rc = weft__kernel_info_collect(b.module, b.layout, &b.kernels,
                                   &b.num_kernels, &b.error);
  }
  if (!rc) rc = weft__inline_callees(b.module, b.machine, &b.error);
  if (!rc) rc = lower_kernels(&b);
  if (!rc) rc = load_code(&b, out);
  if (rc && rc != WEFT_ENOMEM && !*log && !b.error)
    b.error = strdup("error: the build failed\n");
  log_append(log, b.error);
  if (!*log) *log = strdup("");
  build_free(&b);
  return rc;
}

void weft__jit_binary_free(weft_binary *binary) {
  if (!binary) return;
  weft__orc_remove(binary->impl);
  weft__kernel_descs_free(binary->kernels, binary->num_kernels);
  free(binary->sites);
  free(binary);
}
