/* fork_points.c: the points of cooperative kernels (weft/kernel.h,
 * cl_weft_cooperative_kernels), expanded in the kernels after step 1
 * (everything inlined) and before step 2, while Clang's code still keeps
 * every variable in memory. The builtins' __weft_fork_point(kind) becomes
 *
 *       [request_fork, resizing barrier: each work-item copies its
 *        transmit variables to its record, __weft_transmit_slot]
 *       barrier
 *       if (local id == 0) __weft_coop_point(kind, site)    the back end
 *       barrier                                            decides
 *       [offer_kill, resizing barrier: if (__weft_coop_exit()) return]
 *     resume site:
 *
 * and a kernel with resume sites starts with a dispatch on
 * __weft_resume_site(): the work-items of a forked group copy their
 * records back into the transmit variables and jump to their site.
 * Whatever else was live there is undefined for them, as the paper has
 * it: reg2mem first puts every value that crosses blocks in memory, so
 * the jump breaks no dominance, and SROA turns the loads on the new path
 * into undef. The barriers make the point a group's: every work-item is
 * there when the back end decides, and none runs on before it has. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/ir/ir.h"
#include "jit/ir/target.h"
#include "jit/kernel_abi.h"
#include "weft/kernel.h"
#include "weft/weft.h"

#define FORK_POINT "__weft_fork_point"
/* A work-item's record starts so aligned, and is a multiple of it long. */
#define RECORD_ALIGN 16
#define TRANSMIT_ANNOTATION "weft.transmit"

/* A transmit variable: its alloca and its place in a work-item's record. */
typedef struct transmit_var {
  LLVMValueRef alloca;
  uint64_t offset, size;
} transmit_var;

typedef struct kernel_points {
  LLVMValueRef fn;
  transmit_var *vars;
  unsigned num_vars;
  uint64_t record_size;
  LLVMBasicBlockRef *resume; /* resume[s - 1]: where site s goes on */
  unsigned num_resume;
  int barriers; /* whether it has a resizing barrier */
} kernel_points;

/* Whether call is llvm.var.annotation with the transmit qualifier's
 * text. */
static int is_transmit_annotation(LLVMValueRef call, void *unused) {
  (void)unused;
  if (!LLVMIsACallInst(call)) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!LLVMIsAFunction(callee) ||
      strncmp(LLVMGetValueName(callee), "llvm.var.annotation", 19))
    return 0;
  LLVMValueRef text = LLVMGetOperand(call, 1);
  if (!LLVMIsAGlobalVariable(text) || !LLVMGetInitializer(text)) return 0;
  size_t length = 0;
  const char *s = LLVMGetAsString(LLVMGetInitializer(text), &length);
  return s && length >= sizeof TRANSMIT_ANNOTATION - 1 &&
         !strncmp(s, TRANSMIT_ANNOTATION, sizeof TRANSMIT_ANNOTATION - 1);
}

static int is_lifetime_marker(LLVMValueRef inst, void *unused) {
  (void)unused;
  if (!LLVMIsACallInst(inst)) return 0;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  return LLVMIsAFunction(callee) &&
         !strncmp(LLVMGetValueName(callee), "llvm.lifetime.", 14);
}

static int fail(char **error, LLVMValueRef at, const char *fmt,
                const char *name) {
  unsigned length = 0;
  const char *file = at ? LLVMGetDebugLocFilename(at, &length) : NULL;
  char where[320] = "";
  if (file && LLVMGetDebugLocLine(at))
    snprintf(where, sizeof where, "%.*s:%u:%u: ", (int)length, file,
             LLVMGetDebugLocLine(at), LLVMGetDebugLocColumn(at));
  char text[512];
  snprintf(text, sizeof text, fmt, name);
  if (asprintf(error, "%serror: %s\n", where, text) < 0) *error = NULL;
  return WEFT_EBUILD;
}

/* The transmit variables of k's kernel, laid out in a record; their
 * annotations removed (they would keep SROA from promoting them). */
static int collect_transmit(kernel_points *k, LLVMTargetDataRef layout,
                            char **error) {
  LLVMValueRef *calls =
      weft__instructions_where(k->fn, is_transmit_annotation, NULL,
                               &k->num_vars);
  if (!calls && k->num_vars) return WEFT_ENOMEM;
  k->vars = calloc(k->num_vars + 1, sizeof *k->vars);
  if (!k->vars) {
    free(calls);
    return WEFT_ENOMEM;
  }
  int rc = 0;
  uint64_t offset = 0;
  for (unsigned i = 0; i < k->num_vars; i++) {
    LLVMValueRef a = LLVMGetOperand(calls[i], 0);
    if (!LLVMIsAAllocaInst(a)) {
      rc = fail(error, calls[i], "transmit qualifies private variables of "
                "a kernel only (in kernel '%s')", LLVMGetValueName(k->fn));
      break;
    }
    uint64_t align = LLVMGetAlignment(a) ? LLVMGetAlignment(a) : 1;
    offset = (offset + align - 1) / align * align;
    k->vars[i] = (transmit_var){a, offset,
                                LLVMABISizeOfType(layout, LLVMGetAllocatedType(a))};
    offset += k->vars[i].size;
  }
  k->record_size = (offset + RECORD_ALIGN - 1) / RECORD_ALIGN * RECORD_ALIGN;
  for (unsigned i = 0; i < k->num_vars; i++)
    LLVMInstructionEraseFromParent(calls[i]);
  free(calls);
  return rc;
}

/* A call of the primitive name (returning result, NULL for void) at b. */
static LLVMValueRef primitive(LLVMBuilderRef b, LLVMModuleRef m,
                              const char *name, LLVMTypeRef result,
                              LLVMValueRef *args, unsigned n,
                              const char *attribute) {
  LLVMTypeRef params[2];
  for (unsigned i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
  LLVMValueRef fn = weft__runtime_function(m, name, result, params, n, attribute);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

/* The alignment v's copy may assume on both sides: its alloca's, but no
 * more than a record's (each runtime's records start 16-aligned, every
 * work-item's a multiple of 16 bytes on: backend/cpu/coop.c, cuda_pool.c),
 * its offset in the record a multiple of it. A copy assumed unaligned
 * was a byte at a time on the GPU: four stores a work-item a point for
 * an int. */
static unsigned field_align(const transmit_var *v) {
  unsigned align = LLVMGetAlignment(v->alloca);
  if (!align) align = 1;
  if (align > RECORD_ALIGN) align = RECORD_ALIGN;
  assert(v->offset % align == 0);
  return align;
}

/* Copies every transmit variable to (save) or from the work-item's
 * record, at b. */
static void copy_records(LLVMBuilderRef b, const kernel_points *k, int save) {
  if (!k->record_size) return;
  LLVMModuleRef m = LLVMGetGlobalParent(k->fn);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef size = LLVMConstInt(i64, k->record_size, 0);
  LLVMValueRef slot = primitive(b, m, "__weft_transmit_slot",
                                LLVMPointerTypeInContext(c, 0), &size, 1, NULL);
  for (unsigned i = 0; i < k->num_vars; i++) {
    const transmit_var *v = &k->vars[i];
    LLVMValueRef at = LLVMConstInt(i64, v->offset, 0);
    LLVMValueRef field =
        LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(c), slot, &at, 1, "");
    LLVMValueRef bytes = LLVMConstInt(i64, v->size, 0);
    unsigned align = field_align(v);
    if (save) LLVMBuildMemCpy(b, field, align, v->alloca, align, bytes);
    else LLVMBuildMemCpy(b, v->alloca, align, field, align, bytes);
  }
}

static void barrier(LLVMBuilderRef b, LLVMModuleRef m) {
  LLVMValueRef flags = LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(m)),
                                    3, 0); /* local and global fences */
  primitive(b, m, "__weft_barrier", NULL, &flags, 1, "convergent");
}

/* Whether the work-item's local id is 0 in every dimension, at b. */
static LLVMValueRef is_first_item(LLVMBuilderRef b, LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef any = NULL;
  for (unsigned d = 0; d < 3; d++) {
    LLVMValueRef dim = LLVMConstInt(LLVMInt32TypeInContext(c), d, 0);
    LLVMValueRef id = primitive(b, m, "__weft_local_id", i64, &dim, 1, NULL);
    any = any ? LLVMBuildOr(b, any, id, "") : id;
  }
  return LLVMBuildICmp(b, LLVMIntEQ, any, LLVMConstInt(i64, 0, 0), "first");
}

/* Expands the fork point call (passes.h's picture above); the block it
 * goes on in is k's next resume site unless it is offer_kill. */
static int expand(kernel_points *k, LLVMValueRef call, char **error) {
  LLVMValueRef kind_value = LLVMGetOperand(call, 0);
  unsigned kind = LLVMIsAConstantInt(kind_value)
                      ? (unsigned)LLVMConstIntGetZExtValue(kind_value) : 0;
  if (kind < WEFT__POINT_OFFER_KILL || kind > WEFT__POINT_RESIZING_BARRIER)
    return fail(error, call, "a cooperative kernel's point of unknown kind "
                "in kernel '%s'", LLVMGetValueName(k->fn));
  LLVMModuleRef m = LLVMGetGlobalParent(k->fn);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  int resumes = kind != WEFT__POINT_OFFER_KILL;
  int exits = kind != WEFT__POINT_REQUEST_FORK;
  k->barriers |= kind == WEFT__POINT_RESIZING_BARRIER;
  unsigned site = resumes ? k->num_resume + 1 : 0;

  LLVMBasicBlockRef head = weft__block_split_before(call, "weft.point");
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(call);
  LLVMBasicBlockRef decide = LLVMInsertBasicBlockInContext(c, rest, "weft.decide");
  LLVMBasicBlockRef after = LLVMInsertBasicBlockInContext(c, rest, "weft.decided");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  /* Every instruction made here comes from the call's line: a barrier's
   * divergence report names it. */
  LLVMSetCurrentDebugLocation2(b, LLVMInstructionGetDebugLoc(call));
  LLVMPositionBuilderAtEnd(b, head);
  if (resumes) copy_records(b, k, 1);
  barrier(b, m);
  LLVMBuildCondBr(b, is_first_item(b, m), decide, after);
  LLVMPositionBuilderAtEnd(b, decide);
  LLVMValueRef args[] = {LLVMConstInt(i32, kind, 0), LLVMConstInt(i32, site, 0)};
  primitive(b, m, "__weft_coop_point", NULL, args, 2, NULL);
  LLVMBuildBr(b, after);
  LLVMPositionBuilderAtEnd(b, after);
  barrier(b, m);
  if (exits) {
    LLVMBasicBlockRef end = LLVMInsertBasicBlockInContext(c, rest, "weft.killed");
    LLVMValueRef killed = primitive(b, m, "__weft_coop_exit", i32, NULL, 0, NULL);
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, killed,
                                     LLVMConstInt(i32, 0, 0), ""),
                    end, rest);
    LLVMPositionBuilderAtEnd(b, end);
    LLVMBuildRetVoid(b);
  } else {
    LLVMBuildBr(b, rest);
  }
  LLVMDisposeBuilder(b);
  LLVMInstructionEraseFromParent(call);
  if (!resumes) return 0;
  LLVMBasicBlockRef *grown =
      realloc(k->resume, (k->num_resume + 1) * sizeof *grown);
  if (!grown) return WEFT_ENOMEM;
  k->resume = grown;
  k->resume[k->num_resume++] = rest;
  return 0;
}

static int is_fork_point(LLVMValueRef inst, void *unused) {
  (void)unused;
  return weft__is_call_to(inst, FORK_POINT);
}

/* Whether another kernel calls fn (its body would take its fork points
 * into the caller's, where they mean nothing). */
static int called(LLVMValueRef fn) {
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u))
    if (LLVMIsACallInst(LLVMGetUser(u))) return 1;
  return 0;
}

/* Expands k's fork points; 1 when it has any, 0 when none. */
static int expand_kernel(kernel_points *k, LLVMTargetDataRef layout,
                         char **error) {
  unsigned n = 0;
  LLVMValueRef *calls = weft__instructions_where(k->fn, is_fork_point, NULL, &n);
  if (!calls && n) return WEFT_ENOMEM;
  int rc = collect_transmit(k, layout, error);
  if (!rc && n && called(k->fn))
    rc = fail(error, calls[0], "kernel '%s' has cooperative kernels' points "
              "(offer_kill, request_fork, resizing_global_barrier) and is "
              "called by another kernel", LLVMGetValueName(k->fn));
  for (unsigned i = 0; i < n && !rc; i++) rc = expand(k, calls[i], error);
  free(calls);
  if (rc || !n) return rc;
  /* A forked group enters where these never ran. */
  LLVMValueRef *markers = weft__instructions_where(
      k->fn, is_lifetime_marker, NULL, &n);
  if (!markers && n) return WEFT_ENOMEM;
  for (unsigned i = 0; i < n; i++) LLVMInstructionEraseFromParent(markers[i]);
  free(markers);
  return 1;
}

/* The dispatch at the start of k's kernel: a forked group's work-items
 * take their records and go to their site. The entry's allocas move to it,
 * so that they are made on every path. */
static void add_dispatch(const kernel_points *k) {
  LLVMModuleRef m = LLVMGetGlobalParent(k->fn);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMBasicBlockRef start = LLVMGetEntryBasicBlock(k->fn);
  LLVMBasicBlockRef entry = LLVMInsertBasicBlockInContext(c, start, "weft.dispatch");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, entry);
  for (LLVMValueRef i = LLVMGetFirstInstruction(start), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i)) weft__instruction_move(b, i);
  }
  LLVMValueRef site = primitive(b, m, "__weft_resume_site", i32, NULL, 0, NULL);
  LLVMValueRef sw = LLVMBuildSwitch(b, site, start, k->num_resume);
  for (unsigned s = 0; s < k->num_resume; s++) {
    LLVMBasicBlockRef load = LLVMAppendBasicBlockInContext(c, k->fn, "weft.resume");
    LLVMAddCase(sw, LLVMConstInt(i32, s + 1, 0), load);
    LLVMPositionBuilderAtEnd(b, load);
    copy_records(b, k, 0);
    LLVMBuildBr(b, k->resume[s]);
  }
  LLVMDisposeBuilder(b);
}

int weft__fork_points_lower(LLVMModuleRef module, LLVMTargetMachineRef machine,
                            LLVMTargetDataRef layout, weft_kernel_desc *kernels,
                            unsigned count, char **error) {
  kernel_points *k = calloc(count + 1, sizeof *k);
  if (!k) return WEFT_ENOMEM;
  int rc = 0, any = 0;
  for (unsigned i = 0; i < count && !rc; i++) {
    k[i].fn = LLVMGetNamedFunction(module, kernels[i].name);
    if (!k[i].fn) continue;
    int has = expand_kernel(&k[i], layout, error);
    if (has < 0) rc = has;
    if (has <= 0) continue;
    kernels[i].flags |= WEFT_KERNEL_RESIZABLE;
    if (k[i].barriers) kernels[i].flags |= WEFT_KERNEL_RESIZING_BARRIER;
    kernels[i].transmit_size = k[i].record_size;
    any = 1;
  }
  if (!rc && any)
    rc = weft__run_passes(module, machine, "function(reg2mem)", error);
  for (unsigned i = 0; i < count && !rc; i++)
    if (k[i].num_resume) add_dispatch(&k[i]);
  for (unsigned i = 0; i < count; i++) {
    free(k[i].vars);
    free(k[i].resume);
  }
  free(k);
  return rc;
}
