/* check_access.c: what check mode's passes share (check_access.h): the
 * accesses an instruction makes, the object a pointer comes from, and the
 * sites and reports of the checks. */
#include "jit/cpu/check_access.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/ir/ir.h"
#include "weft/weft.h"

/* ------------------------------------------------------------- tracing */

#define MAX_SEEN 64

/* The argument or variable p points into, or NULL when that is not known
 * (seen: the phis being traced, so that a loop's pointer is followed once). */
static LLVMValueRef trace(LLVMValueRef p, LLVMValueRef *seen, unsigned *n_seen) {
  p = weft__pointer_root(p);
  if (LLVMIsAArgument(p) || LLVMIsAAllocaInst(p) || LLVMIsAGlobalVariable(p))
    return p;
  int phi = LLVMIsAPHINode(p) != NULL;
  if (!phi && !LLVMIsASelectInst(p)) return NULL;
  for (unsigned i = 0; i < *n_seen; i++)
    if (seen[i] == p) return p; /* around a loop: decided by the others */
  if (*n_seen == MAX_SEEN) return NULL;
  seen[(*n_seen)++] = p;
  LLVMValueRef base = NULL;
  unsigned n = phi ? LLVMCountIncoming(p) : 2;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef in = phi ? LLVMGetIncomingValue(p, i) : LLVMGetOperand(p, i + 1);
    LLVMValueRef b = trace(in, seen, n_seen);
    if (b == p) continue;
    if (!b || (base && b != base)) return NULL;
    base = b;
  }
  return base;
}

static weft_address_space space_of(LLVMValueRef pointer) {
  unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(pointer));
  return as == WEFT_AS_GLOBAL || as == WEFT_AS_LOCAL || as == 2
             ? (weft_address_space)as
             : WEFT_ADDRESS_PRIVATE;
}

/* What the base that trace() found is: 1 with *o filled, 0 when it is not
 * an object with a known size. */
static int describe(LLVMValueRef body, const weft_kernel_desc *desc,
                    LLVMTargetDataRef layout, LLVMValueRef base,
                    weft_origin *o) {
  memset(o, 0, sizeof *o);
  o->base = base;
  o->arg = -1;
  o->name = "";
  if (LLVMIsAArgument(base)) {
    for (unsigned i = 0; i < desc->num_args; i++)
      if (LLVMGetParam(body, i) == base &&
          desc->args[i].kind != WEFT_ARG_VALUE) {
        o->arg = (int)i;
        o->space = desc->args[i].address_space;
        return 1;
      }
    return 0;
  }
  size_t length;
  o->name = LLVMGetValueName2(base, &length);
  o->space = space_of(base);
  if (LLVMIsAAllocaInst(base)) {
    LLVMValueRef count = LLVMGetOperand(base, 0);
    if (!LLVMIsAConstantInt(count)) return 0;
    o->extent = LLVMABISizeOfType(layout, LLVMGetAllocatedType(base)) *
                LLVMConstIntGetZExtValue(count);
    /* The name as written: LLVM adds ".i" when it inlines, ".sroa.N"
     * when it splits, and no C name holds a dot. */
    o->name_length = strcspn(o->name, ".");
    return 1;
  }
  /* A variable defined here (a declared one's size is elsewhere). Clang
   * names a kernel's __local variables "kernel.name". */
  if (LLVMIsDeclaration(base)) return 0;
  o->extent = LLVMABISizeOfType(layout, LLVMGlobalGetValueType(base));
  const char *dot = strrchr(o->name, '.');
  if (dot && o->space == WEFT_ADDRESS_LOCAL) o->name = dot + 1;
  o->name_length = strlen(o->name);
  return 1;
}

int weft__origin_of(LLVMValueRef body, const weft_kernel_desc *desc,
                    LLVMTargetDataRef layout, LLVMValueRef pointer,
                    weft_origin *o) {
  LLVMValueRef seen[MAX_SEEN];
  unsigned n_seen = 0;
  LLVMValueRef base = trace(pointer, seen, &n_seen);
  return base && describe(body, desc, layout, base, o);
}

/* ------------------------------------------------------------- sites */

/* The file of a debug location, or "" (line 0) without one. */
static void location_of(LLVMValueRef inst, weft_check_site *site) {
  site->loc.line = LLVMGetDebugLocLine(inst);
  site->loc.column = LLVMGetDebugLocColumn(inst);
  const char *file = "";
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(inst);
  LLVMMetadataRef scope = loc ? LLVMDILocationGetScope(loc) : NULL;
  LLVMMetadataRef f = scope ? LLVMDIScopeGetFile(scope) : NULL;
  unsigned length = 0;
  if (f) file = LLVMDIFileGetFilename(f, &length);
  site->file = strndup(file ? file : "", length);
}

int weft__check_site_add(weft_check_sites *s, LLVMValueRef inst,
                         const weft_check_site *what, size_t name_length,
                         unsigned *index) {
  if (s->count == s->capacity) {
    unsigned capacity = s->capacity ? 2 * s->capacity : 16;
    weft_check_site *grown = realloc(s->sites, capacity * sizeof *grown);
    if (!grown) return WEFT_ENOMEM;
    s->sites = grown;
    s->capacity = capacity;
  }
  weft_check_site *site = &s->sites[s->count];
  *site = *what;
  location_of(inst, site);
  site->variable = strndup(what->variable ? what->variable : "", name_length);
  if (!site->file || !site->variable) {
    free(site->file);
    free(site->variable);
    return WEFT_ENOMEM;
  }
  *index = s->count++;
  return 0;
}

int weft__check_site_of(weft_check_sites *sites, LLVMValueRef inst,
                        const weft_access *a, unsigned kind, unsigned *index) {
  weft_check_site what = {.access = kind,
                          .arg = a->from.arg,
                          .space = a->from.space,
                          .extent = a->from.extent,
                          .variable = (char *)a->from.name};
  return weft__check_site_add(sites, inst, &what, a->from.name_length, index);
}

LLVMValueRef weft__access_offset(LLVMBuilderRef b, const weft_access *a) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(a->pointer)));
  return LLVMBuildSub(b, LLVMBuildPtrToInt(b, a->pointer, i64, ""),
                      LLVMBuildPtrToInt(b, a->from.base, i64, ""), "offset");
}

LLVMValueRef weft__arg_extent(LLVMBuilderRef b, LLVMValueRef body, int arg) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMValueRef ctx = weft__body_param(body, WEFT_BODY_CTX);
  LLVMValueRef sizes = weft__ctx_invariant(
      b, LLVMPointerTypeInContext(context, 0), ctx,
      offsetof(weft_wg_ctx, arg_sizes));
  LLVMValueRef index = LLVMConstInt(i64, (unsigned)arg, 0);
  LLVMValueRef size = LLVMBuildLoad2(
      b, i64, LLVMBuildInBoundsGEP2(b, i64, sizes, &index, 1, ""), "extent");
  weft__set_invariant(size);
  return size;
}

void weft__check_failed_if(LLVMBuilderRef b, LLVMValueRef body,
                           LLVMValueRef failed, unsigned site,
                           LLVMValueRef offset, LLVMValueRef size,
                           LLVMValueRef at) {
  LLVMContextRef context = LLVMGetTypeContext(LLVMTypeOf(failed));
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(at);
  LLVMBasicBlockRef report = LLVMInsertBasicBlockInContext(context, rest, "check.report");
  LLVMBuildCondBr(b, failed, report, rest);
  LLVMPositionBuilderAtEnd(b, report);
  weft__check_failed_call(b, body,
                          LLVMConstInt(LLVMInt32TypeInContext(context), site, 0),
                          offset, size, at);
  LLVMBuildBr(b, rest);
}

void weft__check_failed_call(LLVMBuilderRef b, LLVMValueRef body,
                             LLVMValueRef site, LLVMValueRef offset,
                             LLVMValueRef size, LLVMValueRef at) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(context, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMTypeRef params[] = {ptr, i64, i64, i64, i32, i64, i64};
  LLVMValueRef fn = weft__runtime_function(module, WEFT_CHECK_FAILED_SYMBOL,
                                           NULL, params, 7, "cold");
  LLVMValueRef args[] = {weft__body_param(body, WEFT_BODY_CTX),
                         weft__body_param(body, WEFT_BODY_LX),
                         weft__body_param(body, WEFT_BODY_LY),
                         weft__body_param(body, WEFT_BODY_LZ),
                         site, offset, size};
  LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 7, "");
  LLVMInstructionSetDebugLoc(call, LLVMInstructionGetDebugLoc(at));
}

/* ---------------------------------------------------------- accesses */

static LLVMValueRef size_constant(LLVMTargetDataRef layout, LLVMTypeRef type) {
  LLVMContextRef context = LLVMGetTypeContext(type);
  return LLVMConstInt(LLVMInt64TypeInContext(context),
                      LLVMStoreSizeOfType(layout, type), 0);
}

static weft_access make_access(LLVMValueRef pointer, LLVMValueRef size,
                          unsigned kind) {
  return (weft_access){.pointer = pointer, .size = size, .kind = kind};
}

unsigned weft__accesses_of(LLVMTargetDataRef layout, LLVMValueRef inst,
                           weft_access *out) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad:
    out[0] = make_access(LLVMGetOperand(inst, 0), size_constant(layout, LLVMTypeOf(inst)),
                      WEFT_ACCESS_READ);
    return 1;
  case LLVMStore:
    out[0] = make_access(LLVMGetOperand(inst, 1),
                      size_constant(layout, LLVMTypeOf(LLVMGetOperand(inst, 0))),
                      WEFT_ACCESS_WRITE);
    return 1;
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
    out[0] = make_access(LLVMGetOperand(inst, 0),
                      size_constant(layout, LLVMTypeOf(LLVMGetOperand(inst, 1))),
                      WEFT_ACCESS_READ | WEFT_ACCESS_WRITE);
    return 1;
  case LLVMCall: break;
  default: return 0;
  }
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  size_t length;
  const char *name = LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &length) : "";
  LLVMValueRef size = LLVMGetNumArgOperands(inst) > 2 ? LLVMGetOperand(inst, 2) : NULL;
  if (!size || LLVMGetTypeKind(LLVMTypeOf(size)) != LLVMIntegerTypeKind) return 0;
  if (!strncmp(name, "llvm.memset.", 12)) {
    out[0] = make_access(LLVMGetOperand(inst, 0), size, WEFT_ACCESS_WRITE);
    return 1;
  }
  if (strncmp(name, "llvm.memcpy.", 12) && strncmp(name, "llvm.memmove.", 13))
    return 0;
  out[0] = make_access(LLVMGetOperand(inst, 0), size, WEFT_ACCESS_WRITE);
  out[1] = make_access(LLVMGetOperand(inst, 1), size, WEFT_ACCESS_READ);
  return 2;
}

static int accesses_memory(LLVMValueRef inst, void *layout) {
  weft_access a[2];
  return weft__accesses_of(layout, inst, a) != 0;
}

LLVMValueRef *weft__memory_instructions(LLVMValueRef body,
                                        LLVMTargetDataRef layout,
                                        unsigned *count) {
  return weft__instructions_where(body, accesses_memory, layout, count);
}
