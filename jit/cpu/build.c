/* build.c: from OpenCL C source, or from bitcode, to callable work-group
 * functions, through the kernel cache.
 *
 * Clang front end (front/compile.c) -> link the builtins -> describe the
 * kernels -> inline all callees -> kernel bodies -> work-item lowering ->
 * work-group functions -> __local placement -> O3 for the host CPU ->
 * object code -> the cache (cache/cache.c), which loads it into ORC LLJIT
 * (orc.c). See passes.h for the transformations. A build whose key the
 * cache knows skips all of it. */
#include "jit/jit.h"

#include <assert.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Linker.h>
#include <llvm-c/TargetMachine.h>

#include "jit/cache/binary_io.h"
#include "jit/ir/build_state.h"
#include "jit/front/builtins.h"
#include "jit/cache/cache.h"
#include "jit/cpu/code_lines.h"
#include "jit/front/compile.h"
#include "jit/ir/kernel_info.h"
#include "jit/front/options.h"
#include "jit/cpu/orc.h"
#include "jit/cpu/passes.h"
#include "jit/cpu/perf_map.h"
#include "jit/ir/target.h"
#include "weft/weft.h"

static char *dump_dir;
static int barrier_regions;
static size_t max_private;
static int schedule_points;
static int weak_memory;     /* WEFT_MEMORY=weak */
static unsigned check_mode; /* WEFT_CHECK */
static int stop_points;     /* WEFT_TIMEOUT set: loops get stop points */
static atomic_uint dump_serial;
/* What the code depends on besides the input: part of every cache key. */
static char *machine_identity;

/* The host CPU and the settings that change the generated code. */
static int make_machine_identity(void) {
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  const char *id = weft__build_id();
  int n = asprintf(&machine_identity,
                   "%s|%s|%s|%s|regions=%d|private=%zu|schedule=%d|weak=%d|"
                   "check=%u|stops=%d|%s",
                   id ? id : "no-build-id", WEFT_CPU_TRIPLE, cpu, features,
                   barrier_regions, max_private, schedule_points, weak_memory,
                   check_mode,
                   stop_points,
                   weft__jit_features());
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  if (n < 0) machine_identity = NULL;
  return machine_identity ? 0 : WEFT_ENOMEM;
}

int weft__jit_init(const weft_jit_config *config, char **error) {
  if (config->dump_dir && !(dump_dir = strdup(config->dump_dir)))
    return WEFT_ENOMEM;
  barrier_regions = config->barrier_regions;
  max_private = config->max_private;
  schedule_points = config->schedule_points;
  weak_memory = config->weak_memory;
  check_mode = config->check;
  stop_points = config->stop_points;
  /* Without a build ID nothing tells this Weft's cached code from
   * another's: keep the cache in memory. */
  weft__cache_set_dir(weft__build_id() ? config->cache_dir : NULL);
  if (config->perf_map) weft__perf_map_enable();
  int rc = weft__orc_init(config->symbols, config->num_symbols,
                          config->perf_jitdump, error);
  if (!rc) rc = make_machine_identity();
  return rc;
}

/* Writes the optimized module to dump_dir/program-N.ll, for debugging. */
void weft__jit_dump_module(LLVMModuleRef module) {
  char *path = NULL, *message = NULL;
  if (!dump_dir || asprintf(&path, "%s/program-%u.ll", dump_dir,
                            atomic_fetch_add(&dump_serial, 1)) < 0)
    return;
  if (LLVMPrintModuleToFile(module, path, &message)) {
    fprintf(stderr, "weft: cannot write %s: %s\n", path, message);
    LLVMDisposeMessage(message);
  }
  free(path);
}

/* The state of one build, released in one place whatever the outcome. */
typedef struct build {
  weft_build_state s;
  weft_cache_key key;
  LLVMValueRef *bodies;
  char **entry_names;
  char prefix[48];            /* of the symbol names (cache.h) */
  char *stamps;               /* the files the front end read */
  weft_sites sites;
  weft_check_sites checks;    /* check mode's instrumented accesses */
} build;

static int make_entry_names(build *b) {
  b->entry_names = calloc(b->s.num_kernels + 1, sizeof *b->entry_names);
  b->bodies = calloc(b->s.num_kernels + 1, sizeof *b->bodies);
  if (!b->entry_names || !b->bodies) return WEFT_ENOMEM;
  for (unsigned i = 0; i < b->s.num_kernels; i++) {
    if (asprintf(&b->entry_names[i], "%s.%s", b->prefix,
                 b->s.kernels[i].name) < 0) {
      b->entry_names[i] = NULL;
      return WEFT_ENOMEM;
    }
  }
  return 0;
}

/* Step 3d: kernels with barriers become region state machines where they
 * can; the others (and all, with barrier_regions off) keep fibers. */
static int schedule_regions(build *b) {
  int any = 0;
  for (unsigned i = 0; i < b->s.num_kernels; i++) {
    if (!weft__calls_barrier(b->bodies[i])) continue;
    b->s.kernels[i].flags |= WEFT_KERNEL_HAS_BARRIER;
    if (barrier_regions) {
      weft__regions_split(b->bodies[i]);
      any = 1;
    }
  }
  if (!any) return 0;
  /* SROA first, so that only what crosses blocks goes through reg2mem. */
  int rc = weft__run_passes(b->s.module, b->s.machine, "function(sroa,reg2mem)",
                            &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    if (!(b->s.kernels[i].flags & WEFT_KERNEL_HAS_BARRIER)) continue;
    int made = weft__regions_make(b->bodies[i], b->s.layout, max_private,
                                  &b->s.kernels[i]);
    if (made < 0) rc = made;
  }
  return rc;
}

/* The checks the build makes: the environment's and its options'. */
static unsigned checks_asked(const build *b) {
  return check_mode | b->s.options.check;
}

/* Step 3c, in check mode: the checks the environment and the options ask
 * for, and stop points in loops (also under WEFT_TIMEOUT alone). */
static int insert_checks(build *b) {
  unsigned check = checks_asked(b);
  if (!check && !stop_points) return 0;
  int rc = 0;
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    if (check & WEFT_CHECK_MEMORY)
      rc = weft__check_memory_insert(b->bodies[i], &b->s.kernels[i],
                                     b->s.layout, &b->checks);
    if (!rc && (check & WEFT_CHECK_UNINIT)) {
      rc = weft__check_uninit_insert(b->bodies[i], &b->s.kernels[i],
                                     b->s.layout, &b->checks);
      b->s.kernels[i].flags |= WEFT_KERNEL_LOCAL_SHADOW | WEFT_KERNEL_ARG_SHADOWS;
    }
    if (!rc && (check & WEFT_CHECK_RACES)) {
      rc = weft__check_races_insert(b->bodies[i], &b->s.kernels[i],
                                    b->s.layout, &b->checks);
      b->s.kernels[i].flags |= WEFT_KERNEL_RACES;
    }
    if (!rc) rc = weft__check_divisions_lower(b->bodies[i], &b->checks);
    if (!rc) rc = weft__stop_points_insert(b->bodies[i], &b->checks);
    b->s.kernels[i].flags |= WEFT_KERNEL_STOP_POINTS;
  }
  return rc;
}

/* Everything but the work-group functions becomes internal: programs
 * share the JIT's symbol table, so two programs may define the same
 * function or program-scope variable, and O3 sees every use. */
static void internalize(build *b) {
  weft__build_state_internalize(&b->s, (const char *const *)b->entry_names,
                                b->s.num_kernels);
}

/* Steps 2 to 5 of passes.h, then optimization. */
static int lower_kernels(build *b) {
  int rc = make_entry_names(b);
  if (!rc) rc = weft__kernel_body_make(b->s.module, b->bodies, b->s.num_kernels);
  /* Clang's code keeps every variable in memory: promoted to registers,
   * a value's flow from an atomic load to a loop's exit can be followed
   * (yield points), and pointers to their objects (check mode). */
  if (!rc)
    rc = weft__run_passes(b->s.module, b->s.machine, "function(sroa)",
                          &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++)
    if (weft__uses_launch_words(b->bodies[i]))
      b->s.kernels[i].flags |= WEFT_KERNEL_GLOBAL_BARRIER;
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    rc = weft__workitem_lower(b->bodies[i], &b->sites);
    if (!rc) rc = weft__printf_lower(b->bodies[i], b->s.layout);
    if (!rc) rc = weft__yield_points_insert(b->bodies[i]);
    if (!rc && schedule_points)
      rc = weft__sched_points_insert(b->bodies[i], schedule_points);
  }
  /* A kernel that calls another takes in its body (and barriers) first. */
  if (!rc) rc = weft__run_passes(b->s.module, b->s.machine, "always-inline", &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++)
    if (weft__calls_sync(b->bodies[i]))
      b->s.kernels[i].flags |= WEFT_KERNEL_COOPERATIVE;
  if (!rc) rc = insert_checks(b);
  for (unsigned i = 0; i < b->s.num_kernels && !rc && weak_memory; i++)
    rc = weft__weak_memory_insert(b->bodies[i], b->s.layout);
  if (!rc) rc = schedule_regions(b);
  LLVMValueRef entries[b->s.num_kernels + 1];
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    entries[i] = b->s.kernels[i].flags & WEFT_KERNEL_REGIONS
                     ? weft__workgroup_make_regions(b->s.module, b->bodies[i],
                                                    &b->s.kernels[i],
                                                    b->entry_names[i])
                     : weft__workgroup_make(b->s.module, b->bodies[i],
                                            &b->s.kernels[i], b->entry_names[i]);
    LLVMSetLinkage(b->bodies[i], LLVMInternalLinkage);
  }
  if (rc) return rc;
  /* The line tables stay (with -g, all of Clang's debug information): a
   * fault's report names its line, and gdb and perf see lines. */
  /* The ids' variables only where the work-items' loop stays a loop:
   * vectorized, its stores would give another work-item's ids. */
  weft__debug_info_adopt(b->s.module, entries, b->bodies, b->s.num_kernels,
                         b->s.options.debug && !b->s.options.optimize);
  rc = weft__run_passes(b->s.module, b->s.machine, "always-inline,globaldce",
                        &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++)
    rc = weft__local_mem_lower(entries[i], b->s.layout,
                               &b->s.kernels[i].local_mem_size, &b->s.error);
  if (!rc) rc = weft__build_state_verify(&b->s);
  if (rc) return rc;
  internalize(b);
  weft__target_apply(b->s.module, b->s.machine);
  rc = weft__run_passes(b->s.module, b->s.machine,
                        b->s.options.optimize ? "default<O3>" : "globaldce",
                        &b->s.error);
  if (!rc) weft__jit_dump_module(b->s.module);
  return rc;
}

int weft__jit_code_line(const weft_binary *binary, const char *kernel,
                        const void *pc, char *out, size_t size) {
  const weft_cached *c = binary->cached;
  if (!c || !c->object || !pc) return 0;
  char *name = NULL, *error = NULL;
  if (asprintf(&name, "%s.%s", c->prefix, kernel) < 0) return 0;
  void *entry = weft__orc_lookup(c->code, name, &error);
  int found = entry && weft__code_line(c->object, c->object_size, name,
                                       (uintptr_t)entry, (uintptr_t)pc, out,
                                       size);
  free(name);
  free(error);
  return found;
}

/* The kernels' entry points in loaded code: prefix.kernel_name. */
static int find_entries(weft_binary *binary, const char *prefix, char **error) {
  for (unsigned i = 0; i < binary->num_kernels; i++) {
    char *name = NULL;
    if (asprintf(&name, "%s.%s", prefix, binary->kernels[i].name) < 0)
      return WEFT_ENOMEM;
    weft_cached *c = binary->cached;
    binary->kernels[i].entry = (weft_wg_fn)weft__orc_lookup(c->code, name, error);
    free(name);
    if (!binary->kernels[i].entry) return WEFT_EBUILD;
  }
  return 0;
}

int weft__jit_binary_from_cache(weft_cached *c, int from, weft_binary **out,
                                char **log) {
  weft_binary *binary = calloc(1, sizeof *binary);
  if (!binary) {
    weft__cache_release(c);
    return WEFT_ENOMEM;
  }
  binary->cached = c;
  binary->from_cache = from;
  char *error = NULL;
  int rc = weft__binary_load(c->descs, c->descs_size, binary);
  /* A GPU's entry has PTX, whose kernels the driver finds. */
  if (!rc && c->code) rc = find_entries(binary, c->prefix, &error);
  if (rc) {
    weft__jit_binary_free(binary);
    weft__log_append(log, error ? error : "error: a cached build is unusable\n");
    free(error);
    return rc;
  }
  weft__log_append(log, c->log);
  *out = binary;
  return 0;
}

int weft__jit_cache_keep(const weft_cache_key *key, weft_cache_kind kind,
                         const char *stamps, const void *object, size_t size,
                         const weft_binary *desc, const char *log,
                         weft_binary **out, char **error) {
  unsigned char *descs = NULL;
  size_t descs_size = 0;
  weft_cached *c = NULL;
  int rc = weft__binary_save(desc, &descs, &descs_size);
  if (!rc)
    rc = weft__cache_add(key, kind, stamps, object, size, descs, descs_size,
                         log, &c, error);
  free(descs);
  if (rc) return rc;
  char *ignored = NULL;
  rc = weft__jit_binary_from_cache(c, 0, out, &ignored);
  free(ignored);
  return rc;
}

/* Generates object code for the module, hands it to the cache (which loads
 * it) and makes the binary. */
static int emit_and_load(build *b, const char *log, weft_binary **out) {
  LLVMMemoryBufferRef object = NULL;
  if (weft__build_state_emit(&b->s, LLVMObjectFile, &object)) return WEFT_EBUILD;
  weft_binary desc = {.num_kernels = b->s.num_kernels,
                      .kernels = b->s.kernels,
                      .num_sites = b->sites.count,
                      .sites = b->sites.locs,
                      .num_check_sites = b->checks.count,
                      .check_sites = b->checks.sites,
                      .global_vars_size = b->s.global_vars_size};
  int rc = weft__jit_cache_keep(&b->key, WEFT_CACHE_CODE, b->stamps,
                                LLVMGetBufferStart(object),
                                LLVMGetBufferSize(object), &desc, log, out,
                                &b->s.error);
  LLVMDisposeMemoryBuffer(object);
  return rc;
}

/* The back half, from the front end's module to a binary. */
static int finish(build *b, const char *log, weft_binary **out) {
  weft__cache_symbol_prefix(&b->key, b->stamps, b->prefix);
  b->s.global_vars_size = weft__global_variables_size(b->s.module, b->s.layout);
  int rc = weft__builtins_link(b->s.module, WEFT_BUILTINS_CPU, &b->s.error);
  if (!rc) {
    weft__target_apply(b->s.module, b->s.machine);
    rc = weft__kernel_info_collect(b->s.module, b->s.layout, &b->s.kernels,
                                   &b->s.num_kernels, &b->s.error);
  }
  if (!rc)
    weft__div_guard_insert(b->s.module, checks_asked(b) != 0);
  if (!rc) rc = weft__inline_callees(b->s.module, b->s.machine, 0, &b->s.error);
  if (!rc) rc = lower_kernels(b);
  if (!rc) rc = emit_and_load(b, log, out);
  return rc;
}

/* Makes the build's LLVM objects. */
static int make_llvm(build *b) {
  return weft__build_state_start(&b->s, weft__target_machine_create(),
                                 "code for this CPU");
}

/* Parses options: weft_assert checks in testing builds (schedule
 * exploration, check mode) or when asked (-cl-weft-assert). */
static int parse_options(build *b, const char *options) {
  weft_build_options *o = &b->s.options;
  int rc = weft__options_parse(options, o, &b->s.error);
  if (!rc && (o->assertions || o->check || check_mode || schedule_points))
    rc = weft__options_define_assert(o);
  return rc;
}

/* Parses options and makes the build's LLVM objects. */
static int start(build *b, const char *options) {
  int rc = parse_options(b, options);
  return rc ? rc : make_llvm(b);
}

/* The key of a build from input (source or bitcode) with options. */
static void make_key(build *b, const char *kind, const void *input,
                     size_t size, const char *options) {
  weft__cache_key_make(machine_identity, kind, input, size, options, &b->key);
}

/* Ends a build: the error joins the log, which is never NULL. */
static int end(build *b, int rc, char **log) {
  for (unsigned i = 0; b->entry_names && i < b->s.num_kernels; i++)
    free(b->entry_names[i]);
  free(b->entry_names);
  free(b->bodies);
  free(b->sites.locs);
  weft__check_sites_free(b->checks.sites, b->checks.count);
  free(b->stamps);
  return weft__build_state_end(&b->s, rc, log);
}

int weft__jit_dumps_ir(void) { return dump_dir != NULL; }

/* A hit in the cache: the binary, with nothing built. */
static int from_cache(build *b, weft_binary **out, char **log, int *rc) {
  /* WEFT_DUMP_IR asks for the IR of every build: build it. */
  if (dump_dir) return 0;
  int from_disk = 0;
  weft_cached *c = weft__cache_find(&b->key, WEFT_CACHE_CODE, &from_disk);
  if (!c) {
    *rc = WEFT__EMISS; /* the end of a build from the cache only */
    return weft__cache_only_now();
  }
  *rc = weft__jit_binary_from_cache(c, from_disk ? 2 : 1, out, log);
  return 1;
}

/* What every build from an input does first: the options parsed, the key
 * made, the cache asked, the LLVM objects made. 1 when that ends the
 * build (an error or a cache hit; *rc says which), else 0. */
static int begin(build *b, const char *kind, const void *input, size_t size,
                 const char *options, weft_binary **out, char **log,
                 int *rc) {
  *out = NULL;
  *log = NULL;
  if ((*rc = parse_options(b, options))) return 1;
  make_key(b, kind, input, size, options ? options : "");
  if (from_cache(b, out, log, rc)) return 1;
  return (*rc = make_llvm(b)) != 0;
}

int weft__jit_build(const char *source, size_t length, const char *options,
                    weft_binary **out, char **log) {
  build b = {0};
  int rc;
  if (begin(&b, "source", source, length, options, out, log, &rc))
    return end(&b, rc, log);
  weft_source_file file = {WEFT_SOURCE_NAME, source, length};
  char *deps = NULL;
  rc = weft__compile_source(b.s.context, 0, &b.s.options, &file, NULL, 0, &b.s.module,
                            log, &deps);
  if (!rc && !(b.stamps = weft__cache_stamp(deps))) rc = WEFT_ENOMEM;
  free(deps);
  if (!rc) rc = finish(&b, *log, out);
  return end(&b, rc, log);
}

int weft__jit_build_bitcode(const void *bitcode, size_t size,
                            const char *options, weft_binary **out,
                            char **log) {
  build b = {0};
  int rc;
  if (begin(&b, "bitcode", bitcode, size, options, out, log, &rc))
    return end(&b, rc, log);
  rc = weft__module_from_bitcode(b.s.context, bitcode, size, &b.s.module, log);
  if (!rc && !(b.stamps = strdup(""))) rc = WEFT_ENOMEM;
  if (!rc) rc = finish(&b, *log ? *log : "", out);
  return end(&b, rc, log);
}

int weft__jit_compile(unsigned sm, const char *source, size_t length,
                      const char *options,
                      const weft_jit_header *headers, unsigned num_headers,
                      void **bitcode, size_t *size, char **log) {
  build b = {0};
  *bitcode = NULL;
  *log = NULL;
  int rc = start(&b, options);
  weft_source_file file = {WEFT_SOURCE_NAME, source, length};
  weft_source_file *files = calloc(num_headers + 1, sizeof *files);
  if (!rc && !files) rc = WEFT_ENOMEM;
  for (unsigned i = 0; !rc && i < num_headers; i++)
    files[i] = (weft_source_file){headers[i].name, headers[i].source,
                                  strlen(headers[i].source)};
  if (!rc)
    rc = weft__compile_source(b.s.context, sm, &b.s.options, &file, files,
                              num_headers,
                              &b.s.module, log, NULL);
  free(files);
  if (!rc) rc = weft__module_to_bitcode(b.s.module, bitcode, size);
  return end(&b, rc, log);
}

int weft__jit_link(const void *const *bitcodes, const size_t *sizes,
                   unsigned count, void **bitcode, size_t *size, char **log) {
  build b = {0};
  *bitcode = NULL;
  *log = NULL;
  int rc = start(&b, NULL);
  for (unsigned i = 0; !rc && i < count; i++) {
    LLVMModuleRef m = NULL;
    rc = weft__module_from_bitcode(b.s.context, bitcodes[i], sizes[i], &m, log);
    if (rc) break;
    if (!b.s.module) b.s.module = m;
    else if (LLVMLinkModules2(b.s.module, m)) rc = WEFT_EBUILD; /* m is gone */
  }
  if (!rc && !b.s.module) rc = WEFT_EINVAL;
  if (!rc) rc = weft__module_to_bitcode(b.s.module, bitcode, size);
  return end(&b, rc, log);
}

void weft__jit_binary_free(weft_binary *binary) {
  if (!binary) return;
  /* A GPU's module (impl) is its back end's to free first. */
  assert(!binary->impl);
  weft__cache_release(binary->cached);
  weft__kernel_descs_free(binary->kernels, binary->num_kernels);
  weft__check_sites_free(binary->check_sites, binary->num_check_sites);
  free(binary->sites);
  free(binary);
}
