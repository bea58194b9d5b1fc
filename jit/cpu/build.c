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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>
#include <llvm-c/Linker.h>
#include <llvm-c/TargetMachine.h>

#include "jit/cache/binary_io.h"
#include "jit/cache/cache.h"
#include "jit/cache/cache_binary.h"
#include "jit/cpu/code_lines.h"
#include "jit/cpu/orc.h"
#include "jit/cpu/passes.h"
#include "jit/cpu/perf_map.h"
#include "jit/front/builtins.h"
#include "jit/front/compile.h"
#include "jit/front/options.h"
#include "jit/ir/build_state.h"
#include "jit/ir/kernel_info.h"
#include "jit/ir/target.h"
#include "jit/jit_object.h"
#include "weft/weft.h"

/* The host CPU and the settings that change the generated code. */
static char *machine_identity(const weft_jit *jit) {
  const weft_jit_codegen *g = &jit->codegen;
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  const char *id = weft__build_id();
  char *identity = NULL;
  if (asprintf(&identity,
               "%s|%s|%s|%s|regions=%d|private=%zu|schedule=%d|weak=%d|"
               "check=%u|stops=%d|sub_groups=%u|%s",
               id ? id : "no-build-id", WEFT_CPU_TRIPLE, cpu, features,
               g->barrier_regions, g->max_private, g->schedule_points,
               g->weak_memory, g->check, g->stop_points, g->sub_group_width,
               weft__jit_features()) < 0)
    identity = NULL;
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return identity;
}

int weft__jit_cpu_create(const weft_jit_config *config, weft_jit **out,
                         char **error) {
  weft_jit *jit = weft__jit_object_new(WEFT_JIT_CPU, config->dump_dir,
                                       config->cache_dir, config->cache_kept);
  if (!jit) return WEFT_ENOMEM;
  jit->codegen = config->codegen;
  if (config->perf_map) weft__perf_map_enable();
  int rc = weft__orc_init(config->symbols, config->num_symbols,
                          config->perf_jitdump, error);
  if (!rc && !(jit->identity = machine_identity(jit))) rc = WEFT_ENOMEM;
  if (rc) {
    /* (The ORC LLJIT, once started, stays: the process has one.) */
    free(jit->dump_dir);
    free(jit);
    return rc;
  }
  *out = jit;
  return 0;
}

/* The state of one build, released in one place whatever the outcome. */
typedef struct build {
  const weft_jit *jit;
  weft_build_state s;
  weft_cache_key key;
  LLVMValueRef *bodies;
  /* Step 4's jammed bodies, WEFT_JAM_TIERS + 1 a kernel (NULL: none). */
  weft_jammed *jams;
  weft_jammed **region_jams;  /* a kernel's, by region state (or NULL) */
  /* Jams of whole sub-groups, WEFT_JAM_TIERS + 1 a kernel (or NULL). */
  weft_jammed *lanes_jams;
  /* A region kernel's jams of whole sub-groups, by region state (or
   * NULL): make_lanes_regions. */
  weft_jammed **lanes_regions;
  /* A kernel's copy of its body that keeps the slots' way (or NULL,
   * or none at all): split_slots. */
  LLVMValueRef *slots;
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
    if (b->jit->codegen.barrier_regions) {
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
    int made = weft__regions_make(b->bodies[i], b->s.layout,
                                  b->jit->codegen.max_private, &b->s.kernels[i]);
    if (made < 0) rc = made;
  }
  return rc;
}

/* The checks the build makes: the environment's and its options'. */
static unsigned checks_asked(const build *b) {
  return b->jit->codegen.check | b->s.options.check;
}

/* Step 3c, in check mode: the checks the environment and the options ask
 * for, and stop points in loops (also under WEFT_TIMEOUT alone). */
static int insert_checks(build *b) {
  unsigned check = checks_asked(b);
  if (!check && !b->jit->codegen.stop_points) return 0;
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

/* Whether atomics on a counter the group shares are aggregated: in
 * optimized builds, unless -cl-weft-no-aggregate; not where a check or
 * the schedule's exploration should see each work-item's own atomic. */
static int aggregating(const build *b) {
  const weft_jit_codegen *g = &b->jit->codegen;
  return b->s.options.optimize && !b->s.options.no_aggregate &&
         !checks_asked(b) && !g->schedule_points && !g->weak_memory;
}

/* Whether jamming (jam.c) applies: optimized builds that run kernels as
 * they are written (no checks, no schedule exploration, whose points
 * would stop it anyway), unless -cl-weft-no-jam. */
static int jamming(const build *b) {
  const weft_jit_codegen *g = &b->jit->codegen;
  return b->s.options.optimize && !b->s.options.no_jam && !checks_asked(b) &&
         !g->schedule_points && !g->weak_memory;
}

/* Kernels that never run jammed: their groups wait or are resized, their
 * sub-groups run interleaved, or their aggregated atomics keep counts in
 * the group (one work-item at a time). */
#define NEVER_JAMMED                                                         \
  (WEFT_KERNEL_COOPERATIVE | WEFT_KERNEL_SUB_GROUPS |                        \
   WEFT_KERNEL_AGGREGATES | WEFT_KERNEL_RESIZABLE)

/* Whether kernel i runs as one plain loop over its work-items. */
static int runs_plain(const build *b, unsigned i) {
  return !(b->s.kernels[i].flags & NEVER_JAMMED) &&
         !weft__calls_barrier(b->bodies[i]);
}

/* Notes kernel k's jammed functions in its description. */
static void note_tiers(weft_kernel_desc *k, const weft_jammed *tiers) {
  k->flags |= WEFT_KERNEL_JAMMED;
  if (tiers[0].width > k->jam_width) k->jam_width = tiers[0].width;
}

/* Kernel i's jammed functions for its body's state (-1: a plain body),
 * for registers of bits (jam.c), noted in its description. */
static void make_tiers(build *b, unsigned i, int state, unsigned bits,
                       weft_jammed *tiers) {
  if (weft__jam_tiers(b->bodies[i], b->s.layout, bits, state, 0, 0,
                      b->entry_names[i], tiers))
    note_tiers(&b->s.kernels[i], tiers);
}

/* Deletes the jammed functions of tiers (WEFT_JAM_TIERS + 1, as
 * weft__jam_tiers fills them), which are then none. */
static void delete_jams(weft_jammed *tiers) {
  for (unsigned t = 0; t < WEFT_JAM_TIERS && tiers[t].fn; t++) {
    LLVMDeleteFunction(tiers[t].fn);
    tiers[t].fn = NULL;
  }
}

/* Whether make_lanes_jams made kernel i a jam of whole sub-groups. */
static int has_lanes_jam(const build *b, unsigned i) {
  return b->lanes_jams && b->lanes_jams[i * (WEFT_JAM_TIERS + 1)].fn;
}

/* Whether kernel i keeps asking __weft_sub_group_lanes() until its
 * regions are made (make_lanes_regions): its sub-group functions are
 * not jammed whole (a work-group barrier among them), its groups neither
 * wait nor are resized, and it may run as jammed regions. */
static int keeps_lanes(const build *b, unsigned i) {
  return jamming(b) && b->jit->codegen.barrier_regions && b->lanes_jams &&
         !has_lanes_jam(b, i) &&
         !(b->s.kernels[i].flags & WEFT_KERNEL_RESIZABLE) &&
         weft__sub_group_lanes_used(b->bodies[i]) &&
         !weft__calls_sync(b->bodies[i]);
}

/* Whether split_slots split kernel i's body from its slots' way. */
static int is_split(const build *b, unsigned i) {
  return b->slots && b->slots[i];
}

/* Jams of whole sub-groups (jam_sub_groups.c), made while the sub-group
 * functions still ask __weft_sub_group_lanes(); then it is 0 in every
 * body but those that keep it for their regions (keeps_lanes), and what
 * it left unreached goes, before the sub-group cuts look at the slots'
 * barriers (which they take as the way of a kernel that keeps it). */
static int make_lanes_jams(build *b) {
  if (!weft__sub_group_lanes_asked(b->s.module)) return 0;
  int rc = 0;
  if (jamming(b)) {
    unsigned n = b->s.num_kernels;
    b->lanes_jams = calloc((size_t)n * (WEFT_JAM_TIERS + 1) + 1,
                           sizeof *b->lanes_jams);
    LLVMValueRef *copies = calloc(n + 1, sizeof *copies);
    if (!b->lanes_jams || !copies) rc = WEFT_ENOMEM;
    /* The jams run copies of the bodies whose sub-group functions take
     * the lanes' way only: a branch that lanes take differently around
     * non-uniform ones can then be made straight-line code
     * (jam_predicate.c), which the slots' way could not be. */
    for (unsigned i = 0; i < n && !rc; i++)
      if (weft__sub_group_lanes_used(b->bodies[i]) &&
          !(b->s.kernels[i].flags & WEFT_KERNEL_RESIZABLE)) {
        copies[i] = weft__function_clone(b->bodies[i], "weft.lanes.body");
        weft__sub_group_lanes_in(copies[i], 1);
      }
    /* As make_jams does: `?:`, `&&` made selects where cheap; and the
     * copies' slots' ways dropped. */
    if (!rc)
      rc = weft__run_passes(b->s.module, b->s.machine, "function(simplifycfg)",
                            &b->s.error);
    unsigned bits = rc ? 0 : weft__target_vector_bits(b->s.machine);
    for (unsigned i = 0; i < n && !rc; i++) {
      weft_jammed *lanes = &b->lanes_jams[i * (WEFT_JAM_TIERS + 1)];
      if (copies[i])
        weft__jam_tiers(copies[i], b->s.layout, bits, -1,
                        weft_cpu_sub_group_width(&b->s.kernels[i]), 0,
                        b->entry_names[i], lanes);
      /* External until lanes_of: the always-inliner deletes internal
       * always-inline functions that have no callers yet. */
      for (unsigned t = 0; t < WEFT_JAM_TIERS && lanes[t].fn; t++)
        LLVMSetLinkage(lanes[t].fn, LLVMExternalLinkage);
    }
    for (unsigned i = 0; copies && i < n; i++)
      if (copies[i]) LLVMDeleteFunction(copies[i]);
    free(copies);
  }
  for (unsigned i = 0; i < b->s.num_kernels; i++)
    if (!keeps_lanes(b, i)) weft__sub_group_lanes_in(b->bodies[i], 0);
  if (!rc)
    rc = weft__run_passes(b->s.module, b->s.machine, "function(simplifycfg)",
                          &b->s.error);
  return rc;
}

/* Kernel i keeps asking __weft_sub_group_lanes() for its regions, but
 * its sub-groups meet where not every work-item passes (cuts could not
 * make them work-group barriers: `if (get_sub_group_id() == 0) s =
 * sub_group_reduce_add(s);` after a barrier), so it would run on fibers
 * throughout (the canonical two-level sub-group reduction of 16M ints
 * in groups of 256 took 1.3 s on the EPYC, 70 times the tree's). Split
 * it: the body keeps the lanes' way only, for regions that jams of
 * whole sub-groups run, where a branch around a sub-group function can
 * be made straight-line code (jam_predicate.c); a copy keeps the
 * slots' way, which runs (on fibers) the groups that are not whole
 * sub-groups (make_entries). Not where a meeting is on the lanes' way
 * too (a sub_group_barrier()), nor in a kernel that another calls. */
static int split_slots(build *b, unsigned i) {
  LLVMValueRef body = b->bodies[i];
  /* (Another kernel that calls it takes in the body as it is.) */
  if (LLVMGetFirstUse(body) || !keeps_lanes(b, i) || !weft__has_sub_groups(body) ||
      !weft__sub_group_meetings_lanes_free(body))
    return 0;
  if (!b->slots && !(b->slots = calloc(b->s.num_kernels + 1, sizeof *b->slots)))
    return WEFT_ENOMEM;
  b->slots[i] = weft__function_clone(body, "weft.slots.body");
  weft__sub_group_lanes_in(b->slots[i], 0);
  weft__sub_group_lanes_in(body, 1);
  return 0;
}

/* Kernel i's jams of whole sub-groups, but where its groups wait, are
 * resized or count aggregated atomics (those have none: the jam refuses
 * what they call); those of a kernel whose sub-groups otherwise run
 * interleaved serve too (the back end calls the work-group function
 * for whole groups then, weft_cpu_sub_groups_jammed). */
static const weft_jammed *lanes_of(build *b, unsigned i) {
  weft_jammed *lanes =
      b->lanes_jams ? &b->lanes_jams[i * (WEFT_JAM_TIERS + 1)] : NULL;
  if (!lanes || !lanes[0].fn) return NULL;
  weft_kernel_desc *k = &b->s.kernels[i];
  for (unsigned t = 0; t < WEFT_JAM_TIERS && lanes[t].fn; t++)
    LLVMSetLinkage(lanes[t].fn, LLVMInternalLinkage);
  if (!(k->flags & NEVER_JAMMED & ~WEFT_KERNEL_SUB_GROUPS)) {
    k->flags |= WEFT_KERNEL_SUB_GROUPS_JAMMED;
    if (lanes[0].width > k->jam_width) k->jam_width = lanes[0].width;
    return lanes;
  }
  delete_jams(lanes);
  return NULL;
}

/* Step 4's jammed bodies of kernels without barriers, made while the
 * bodies' values are still registers (schedule_regions's reg2mem puts
 * every function's in memory). */
static int make_jams(build *b) {
  if (!jamming(b)) return 0;
  /* Loops of one turn go first (a tuning parameter of 1): their counter
   * would hide the work-item ids that jam_ids.c takes. */
  int rc = weft__one_turn_loops_unroll(b->s.module, b->s.machine, &b->s.error);
  if (rc) return rc;
  /* Int indices widened, here for the region bodies' jams too. */
  for (unsigned i = 0; i < b->s.num_kernels; i++)
    if (!(b->s.kernels[i].flags & NEVER_JAMMED))
      weft__wide_indices(b->bodies[i]);
  /* Clang's code branches for `c ? a : b`, `&&` and `||`: made selects
   * where both sides are cheap, work-items that differ there can still
   * be jammed. */
  rc = weft__run_passes(b->s.module, b->s.machine, "function(simplifycfg)",
                        &b->s.error);
  if (rc) return rc;
  b->jams = calloc((size_t)b->s.num_kernels * (WEFT_JAM_TIERS + 1) + 1,
                   sizeof *b->jams);
  if (!b->jams) return WEFT_ENOMEM;
  unsigned bits = weft__target_vector_bits(b->s.machine);
  for (unsigned i = 0; i < b->s.num_kernels; i++)
    if (runs_plain(b, i))
      make_tiers(b, i, -1, bits, &b->jams[i * (WEFT_JAM_TIERS + 1)]);
  return 0;
}

/* Plain kernels that are not jammed (memory-bound ones: jammed ones have
 * loops of their own) store their streams non-temporally in launches too
 * large for the caches (stream_stores.c); in the builds jamming applies
 * to, run as written, unless -cl-weft-no-stream. */
static void make_streams(build *b) {
  if (!jamming(b) || b->s.options.no_stream) return;
  for (unsigned i = 0; i < b->s.num_kernels; i++) {
    weft_kernel_desc *k = &b->s.kernels[i];
    if (runs_plain(b, i) && !(k->flags & WEFT_KERNEL_JAMMED))
      if (weft__stream_stores_make(b->bodies[i])) k->flags |= WEFT_KERNEL_STREAMS;
  }
}

/* Kernel i's regions that hold sub-group functions, each jammed for
 * whole sub-groups (their functions' lanes taken from each other),
 * through the lanes' way of the body (keeps_lanes). All or none: a call
 * that runs whole sub-groups must find such jams for every region with
 * sub-group functions the lanes' way reaches; each must run the width
 * of a sub-group last (nothing is left over). */
static void make_lanes_regions(build *b, unsigned i, unsigned bits) {
  weft_kernel_desc *k = &b->s.kernels[i];
  unsigned width = weft_cpu_sub_group_width(k), n = k->num_states, made = 0;
  weft_jammed *jams = calloc((size_t)n * (WEFT_JAM_TIERS + 1) + 1, sizeof *jams);
  unsigned char *reached = malloc(n + 1);
  int ok = jams && reached && weft__regions_lanes_states(b->bodies[i], n, reached);
  for (unsigned s = 0; s < n && ok; s++) {
    if (!reached[s] || !weft__regions_ask_lanes(b->bodies[i], s)) continue;
    weft_jammed *tiers = &jams[s * (WEFT_JAM_TIERS + 1)];
    int32_t only;
    /* A region with more than one way out (a barrier in a loop, the
     * tree before a sub-group's reduction) says where its calls stop. */
    int stating = !weft__regions_next_state(b->bodies[i], s, 1, &only);
    unsigned count = weft__jam_tiers(b->bodies[i], b->s.layout, bits, (int)s,
                                     width, stating, b->entry_names[i], tiers);
    ok = count && tiers[count - 1].width == width;
    for (unsigned t = 0; t < count; t++) {
      tiers[t].next = stating ? 0 : only;
      tiers[t].stating = stating;
    }
    made += ok;
  }
  free(reached);
  if (!ok || !made) { /* the slots serve */
    for (unsigned s = 0; jams && s < n; s++)
      delete_jams(&jams[s * (WEFT_JAM_TIERS + 1)]);
    free(jams);
    return;
  }
  b->lanes_regions[i] = jams;
  k->flags |= WEFT_KERNEL_SUB_GROUPS_JAMMED;
  for (unsigned s = 0; s < n; s++)
    if (jams[s * (WEFT_JAM_TIERS + 1)].width > k->jam_width)
      k->jam_width = jams[s * (WEFT_JAM_TIERS + 1)].width;
}

/* The jammed regions of region bodies (regions.c): those whose
 * work-items all stop in one state, each on its own (a region with a
 * branch that differs between work-items keeps the others jammed); first
 * those of whole sub-groups, then __weft_sub_group_lanes() is 0
 * everywhere (its way left dead, for the jams' scopes and O3). */
static int make_region_jams(build *b) {
  int any = 0;
  for (unsigned i = 0; i < b->s.num_kernels; i++)
    any |= (b->s.kernels[i].flags & WEFT_KERNEL_REGIONS) != 0;
  if (!any || !jamming(b)) {
    weft__sub_group_lanes_off(b->s.module);
    return 0;
  }
  /* Regions' values crossing blocks went to memory (reg2mem). */
  int rc = weft__run_passes(b->s.module, b->s.machine, "function(sroa)",
                            &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++)
    if (b->s.kernels[i].flags & WEFT_KERNEL_REGIONS)
      weft__regions_scope_objects(b->bodies[i]);
  b->region_jams = calloc(b->s.num_kernels + 1, sizeof *b->region_jams);
  b->lanes_regions = calloc(b->s.num_kernels + 1, sizeof *b->lanes_regions);
  if (!rc && (!b->region_jams || !b->lanes_regions)) rc = WEFT_ENOMEM;
  unsigned bits = weft__target_vector_bits(b->s.machine);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    const weft_kernel_desc *k = &b->s.kernels[i];
    if ((k->flags & WEFT_KERNEL_REGIONS) && !(k->flags & NEVER_JAMMED) &&
        (weft__sub_group_lanes_used(b->bodies[i]) || is_split(b, i)))
      make_lanes_regions(b, i, bits);
  }
  weft__sub_group_lanes_off(b->s.module);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    const weft_kernel_desc *k = &b->s.kernels[i];
    const weft_jammed *lanes = b->lanes_regions[i];
    /* A split kernel runs as regions only with jams of whole sub-groups
     * (make_entries), which serve every call of the regions they jam. */
    if (!(k->flags & WEFT_KERNEL_REGIONS) || (k->flags & NEVER_JAMMED) ||
        (is_split(b, i) && !lanes))
      continue;
    weft_jammed *jams = calloc((size_t)k->num_states * (WEFT_JAM_TIERS + 1) + 1,
                               sizeof *jams);
    if (!jams) return WEFT_ENOMEM;
    b->region_jams[i] = jams;
    for (unsigned s = 0; s < k->num_states; s++) {
      int32_t only;
      if (is_split(b, i) && lanes[s * (WEFT_JAM_TIERS + 1)].fn) continue;
      if (weft__regions_next_state(b->bodies[i], s, 0, &only))
        make_tiers(b, i, (int)s, bits, &jams[s * (WEFT_JAM_TIERS + 1)]);
    }
  }
  return rc;
}

/* Split kernel i's work-group function (split_slots): its regions, run
 * by whole sub-groups, where its calls are for them; else, into *apart,
 * that of its slots' way, on fibers (always inlined into the first).
 * Where its regions are not all jammed, or it has none (too much private
 * memory), fibers throughout, as before the split. */
static LLVMValueRef split_entry(build *b, unsigned i, LLVMValueRef *apart) {
  weft_kernel_desc *k = &b->s.kernels[i];
  LLVMValueRef slots = b->slots[i];
  /* Its sub-groups meet on fibers in groups that are not whole. */
  k->flags |= WEFT_KERNEL_SUB_GROUPS;
  LLVMSetLinkage(slots, LLVMInternalLinkage);
  if (!(k->flags & WEFT_KERNEL_REGIONS) || !b->lanes_regions ||
      !b->lanes_regions[i]) {
    k->flags &= ~WEFT_KERNEL_REGIONS;
    LLVMDeleteFunction(b->bodies[i]);
    b->bodies[i] = slots;
    b->slots[i] = NULL;
    return weft__workgroup_make(b->s.module, slots, NULL, NULL, k,
                                b->entry_names[i], b->s.options.optimize);
  }
  char name[strlen(b->entry_names[i]) + 8];
  snprintf(name, sizeof name, "%s.apart", b->entry_names[i]);
  *apart = weft__workgroup_make(b->s.module, slots, NULL, NULL, k, name,
                                b->s.options.optimize);
  LLVMSetLinkage(*apart, LLVMInternalLinkage);
  LLVMAddAttributeAtIndex(
      *apart, LLVMAttributeFunctionIndex,
      LLVMCreateEnumAttribute(LLVMGetModuleContext(b->s.module),
                              LLVMGetEnumAttributeKindForName("alwaysinline", 12),
                              0));
  return weft__workgroup_make_regions(b->s.module, b->bodies[i],
                                      b->region_jams[i], NULL,
                                      b->lanes_regions[i], *apart, k,
                                      b->entry_names[i]);
}

/* Step 4: the work-group functions; the work-group functions of split
 * kernels' slots' ways into aparts (NULL for the others). */
static void make_entries(build *b, LLVMValueRef *entries, LLVMValueRef *aparts) {
  for (unsigned i = 0; i < b->s.num_kernels; i++) {
    weft_kernel_desc *k = &b->s.kernels[i];
    const weft_jammed *lanes = lanes_of(b, i);
    aparts[i] = NULL;
    if (is_split(b, i))
      entries[i] = split_entry(b, i, &aparts[i]);
    else if (k->flags & WEFT_KERNEL_REGIONS)
      entries[i] = weft__workgroup_make_regions(
          b->s.module, b->bodies[i],
          b->region_jams ? b->region_jams[i] : NULL, lanes,
          b->lanes_regions ? b->lanes_regions[i] : NULL, NULL, k,
          b->entry_names[i]);
    else
      entries[i] = weft__workgroup_make(
          b->s.module, b->bodies[i],
          b->jams ? &b->jams[i * (WEFT_JAM_TIERS + 1)] : NULL, lanes, k,
          b->entry_names[i], b->s.options.optimize);
    LLVMSetLinkage(b->bodies[i], LLVMInternalLinkage);
  }
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
    unsigned width = weft_cpu_sub_group_width(&b->s.kernels[i]);
    rc = weft__resize_calls_lower(
        b->bodies[i], (b->s.kernels[i].flags & WEFT_KERNEL_RESIZABLE) != 0);
    if (!rc) rc = weft__workitem_lower(b->bodies[i], width, &b->sites);
    if (!rc) rc = weft__printf_lower(b->bodies[i], b->s.layout);
    if (!rc) rc = weft__yield_points_insert(b->bodies[i]);
  }
  if (!rc) rc = make_lanes_jams(b);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    unsigned width = weft_cpu_sub_group_width(&b->s.kernels[i]);
    rc = weft__sub_group_cuts(b->bodies[i], width);
    if (!rc) rc = split_slots(b, i);
  }
  /* Split bodies' slots' ways (and their copies' lanes' ways) gone. */
  if (!rc && b->slots)
    rc = weft__run_passes(b->s.module, b->s.machine, "function(simplifycfg)",
                          &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    assert(!is_split(b, i) || !weft__has_sub_groups(b->bodies[i]));
    unsigned words = 0;
    /* Not where whole sub-groups run side by side: they keep their own
     * atomics (a sub-group's elected lane counting for it, jam_predicate.c),
     * and an aggregated kernel runs none (compact_ballot of
     * bench_sub_groups: 175 ms aggregated, 32.5 jammed). */
    if (!rc && aggregating(b) && !has_lanes_jam(b, i) && !keeps_lanes(b, i) &&
        !is_split(b, i))
      rc = weft__aggregate_atomics(b->bodies[i], &b->sites, &words);
    if (words) b->s.kernels[i].flags |= WEFT_KERNEL_AGGREGATES;
    b->s.kernels[i].aggregate_words = words;
    if (!rc && b->jit->codegen.schedule_points)
      rc = weft__sched_points_insert(b->bodies[i], b->jit->codegen.schedule_points);
  }
  /* A kernel that calls another takes in its body (and barriers) first. */
  if (!rc) rc = weft__run_passes(b->s.module, b->s.machine, "always-inline", &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    if (weft__calls_sync(b->bodies[i]))
      b->s.kernels[i].flags |= WEFT_KERNEL_COOPERATIVE;
    if (weft__has_sub_groups(b->bodies[i]))
      b->s.kernels[i].flags |= WEFT_KERNEL_SUB_GROUPS;
  }
  if (!rc) rc = insert_checks(b);
  for (unsigned i = 0; i < b->s.num_kernels && !rc && b->jit->codegen.weak_memory;
       i++)
    rc = weft__weak_memory_insert(b->bodies[i], b->s.layout);
  if (!rc) rc = make_jams(b);
  if (!rc) make_streams(b);
  if (!rc) rc = schedule_regions(b);
  if (!rc) rc = make_region_jams(b);
  if (rc) return rc;
  LLVMValueRef entries[b->s.num_kernels + 1], aparts[b->s.num_kernels + 1];
  make_entries(b, entries, aparts);
  /* The line tables stay (with -g, all of Clang's debug information): a
   * fault's report names its line, and gdb and perf see lines. */
  /* The ids' variables only where the work-items' loop stays a loop:
   * vectorized, its stores would give another work-item's ids. */
  int ids = b->s.options.debug && !b->s.options.optimize;
  weft__debug_info_adopt(b->s.module, entries, b->bodies, b->s.num_kernels, ids);
  for (unsigned i = 0; i < b->s.num_kernels; i++)
    if (aparts[i]) weft__debug_info_adopt(b->s.module, &aparts[i], &b->slots[i], 1, ids);
  rc = weft__run_passes(b->s.module, b->s.machine, "always-inline,globaldce",
                        &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    rc = weft__local_mem_lower(entries[i], b->s.layout,
                               &b->s.kernels[i].local_mem_size, &b->s.error);
    if (!rc) weft__local_atomics_lower(entries[i]);
    if (!rc) weft__address_spaces_flatten(entries[i]);
  }
  if (!rc) rc = weft__build_state_verify(&b->s);
  if (rc) return rc;
  internalize(b);
  weft__target_apply(b->s.module, b->s.machine);
  rc = weft__run_passes(b->s.module, b->s.machine,
                        b->s.options.optimize ? "default<O3>" : "globaldce",
                        &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++)
    if (b->s.kernels[i].flags & WEFT_KERNEL_STREAMS)
      weft__streamed_stores_finish(
          LLVMGetNamedFunction(b->s.module, b->entry_names[i]));
  if (!rc) weft__jit_dump_module(b->jit, b->s.module);
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
    rc = weft__kernel_info_check_sub_groups(b->s.kernels, b->s.num_kernels,
                                            WEFT_CPU_SUB_GROUP_SIZES,
                                            "the CPU", &b->s.error);
  for (unsigned i = 0; i < b->s.num_kernels && !rc; i++) {
    weft_kernel_desc *k = &b->s.kernels[i];
    k->sub_group_width = k->reqd_sub_group_size ? k->reqd_sub_group_size
                                                : b->jit->codegen.sub_group_width;
  }
  if (!rc)
    weft__div_guard_insert(b->s.module, checks_asked(b) != 0);
  if (!rc) rc = weft__inline_callees(b->s.module, b->s.machine, 0, &b->s.error);
  if (!rc)
    rc = weft__fork_points_lower(b->s.module, b->s.machine, b->s.layout,
                                 b->s.kernels, b->s.num_kernels, &b->s.error);
  if (!rc) rc = lower_kernels(b);
  if (!rc) rc = emit_and_load(b, log, out);
  return rc;
}

/* Makes the build's LLVM objects. */
static int make_llvm(build *b) {
  return weft__build_state_start(&b->s, weft__target_machine_create(),
                                 "code for this CPU");
}

/* The key of a build from input (source or bitcode) with options. */
static void make_key(build *b, const char *kind, const void *input,
                     size_t size, const char *options) {
  weft__cache_key_make(b->jit->identity, kind, input, size, options, &b->key);
}

/* Ends a build: the error joins the log, which is never NULL. */
static int end(build *b, int rc, char **log) {
  for (unsigned i = 0; b->entry_names && i < b->s.num_kernels; i++)
    free(b->entry_names[i]);
  free(b->entry_names);
  free(b->bodies);
  free(b->jams);
  free(b->lanes_jams);
  for (unsigned i = 0; b->region_jams && i < b->s.num_kernels; i++)
    free(b->region_jams[i]);
  free(b->region_jams);
  for (unsigned i = 0; b->lanes_regions && i < b->s.num_kernels; i++)
    free(b->lanes_regions[i]);
  free(b->lanes_regions);
  free(b->slots);
  free(b->sites.locs);
  weft__check_sites_free(b->checks.sites, b->checks.count);
  free(b->stamps);
  return weft__build_state_end(&b->s, rc, log);
}

/* A hit in the cache: the binary, with nothing built. */
static int from_cache(build *b, weft_binary **out, char **log, int *rc) {
  /* WEFT_DUMP_IR asks for the IR of every build: build it. */
  if (b->jit->dump_dir) return 0;
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
  if ((*rc = weft__jit_parse_options(b->jit, options, &b->s.options,
                                     &b->s.error)))
    return 1;
  make_key(b, kind, input, size, options ? options : "");
  if (from_cache(b, out, log, rc)) return 1;
  return (*rc = make_llvm(b)) != 0;
}

int weft__jit_build(const weft_jit *cpu, const char *source, size_t length,
                    const char *options, weft_binary **out, char **log) {
  assert(cpu->target == WEFT_JIT_CPU);
  build b = {.jit = cpu};
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

int weft__jit_build_bitcode(const weft_jit *cpu, const void *bitcode,
                            size_t size, const char *options,
                            weft_binary **out, char **log) {
  assert(cpu->target == WEFT_JIT_CPU);
  build b = {.jit = cpu};
  int rc;
  if (begin(&b, "bitcode", bitcode, size, options, out, log, &rc))
    return end(&b, rc, log);
  rc = weft__module_from_bitcode(b.s.context, bitcode, size, &b.s.module, log);
  if (!rc && !(b.stamps = strdup(""))) rc = WEFT_ENOMEM;
  if (!rc) rc = finish(&b, *log ? *log : "", out);
  return end(&b, rc, log);
}
