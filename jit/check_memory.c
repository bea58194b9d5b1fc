/* check_memory.c: check mode's memory check (WEFT_CHECK=memory), step 3c
 * of passes.h.
 *
 * Every load, store, atomic and memory intrinsic of a kernel body whose
 * pointer comes from a known object -- a buffer or __local argument of the
 * kernel, a __local, __constant or program-scope variable, a private
 * variable -- is checked against that object before it happens:
 *
 *     0 <= pointer - object  and  pointer - object + size <= bytes of object
 *
 * where an argument's bytes are the launch's (the buffer's size from where
 * the argument points, a sub-buffer's, a __local argument's), read from
 * the work-group context, and a variable's are known here. An access that
 * fails is not carried out (a read gives zero): the back end's
 * check_failed gets the work-item, the site (which names the source line,
 * the object and the kind of access) and the offset, and the kernel goes
 * on, so that one run reports every distinct bug.
 *
 * A pointer is traced back through GEPs, casts, phis and selects; one that
 * comes from memory, from an integer, or from two objects at once is not
 * checked (README: Debugging kernels). */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "jit/passes.h"
#include "weft/weft.h"

/* The object a pointer points into. */
typedef struct origin {
  LLVMValueRef base;        /* the argument or the variable */
  int arg;                  /* the kernel argument, or -1 */
  uint64_t extent;          /* the variable's bytes (arg -1) */
  weft_address_space space;
  const char *name;         /* the variable's name (arg -1), */
  size_t name_length;       /* of name_length bytes */
} origin;

/* One pointer an instruction uses, checked for size bytes. */
typedef struct access {
  LLVMValueRef pointer;
  LLVMValueRef size;        /* i64 */
  unsigned kind;            /* WEFT_ACCESS_* */
  origin from;
  unsigned site;
} access;

typedef struct checker {
  LLVMValueRef body;
  const weft_kernel_desc *desc;
  LLVMTargetDataRef layout;
  LLVMBuilderRef b;
  LLVMModuleRef module;
  LLVMContextRef context;
  LLVMTypeRef i64;
  weft_check_sites *sites;
} checker;

/* ------------------------------------------------------------- tracing */

#define MAX_SEEN 64

/* The operand a pointer is made from without leaving its object, or NULL. */
static LLVMValueRef derived_from(LLVMValueRef p) {
  if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
      LLVMIsAAddrSpaceCastInst(p))
    return LLVMGetOperand(p, 0);
  if (LLVMIsAConstantExpr(p)) {
    LLVMOpcode op = LLVMGetConstOpcode(p);
    if (op == LLVMGetElementPtr || op == LLVMBitCast || op == LLVMAddrSpaceCast)
      return LLVMGetOperand(p, 0);
  }
  return NULL;
}

/* The argument or variable p points into, or NULL when that is not known
 * (seen: the phis being traced, so that a loop's pointer is followed once). */
static LLVMValueRef trace(LLVMValueRef p, LLVMValueRef *seen, unsigned *n_seen) {
  for (LLVMValueRef from; (from = derived_from(p));) p = from;
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
static int describe(const checker *c, LLVMValueRef base, origin *o) {
  memset(o, 0, sizeof *o);
  o->base = base;
  o->arg = -1;
  o->name = "";
  if (LLVMIsAArgument(base)) {
    for (unsigned i = 0; i < c->desc->num_args; i++)
      if (LLVMGetParam(c->body, i) == base &&
          c->desc->args[i].kind != WEFT_ARG_VALUE) {
        o->arg = (int)i;
        o->space = c->desc->args[i].address_space;
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
    o->extent = LLVMABISizeOfType(c->layout, LLVMGetAllocatedType(base)) *
                LLVMConstIntGetZExtValue(count);
    /* The name as written: LLVM adds ".i" when it inlines, ".sroa.N"
     * when it splits, and no C name holds a dot. */
    o->name_length = strcspn(o->name, ".");
    return 1;
  }
  /* A variable defined here (a declared one's size is elsewhere). Clang
   * names a kernel's __local variables "kernel.name". */
  if (LLVMIsDeclaration(base)) return 0;
  o->extent = LLVMABISizeOfType(c->layout, LLVMGlobalGetValueType(base));
  const char *dot = strrchr(o->name, '.');
  if (dot && o->space == WEFT_ADDRESS_LOCAL) o->name = dot + 1;
  o->name_length = strlen(o->name);
  return 1;
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

static int add_site(checker *c, LLVMValueRef inst, access *a) {
  weft_check_site what = {.access = a->kind,
                          .arg = a->from.arg,
                          .space = a->from.space,
                          .extent = a->from.extent,
                          .variable = (char *)a->from.name};
  return weft__check_site_add(c->sites, inst, &what, a->from.name_length,
                              &a->site);
}

/* ---------------------------------------------------------- accesses */

static LLVMValueRef size_constant(const checker *c, LLVMTypeRef type) {
  return LLVMConstInt(c->i64, LLVMStoreSizeOfType(c->layout, type), 0);
}

static access make_access(LLVMValueRef pointer, LLVMValueRef size,
                          unsigned kind) {
  return (access){.pointer = pointer, .size = size, .kind = kind};
}

/* The accesses inst makes (0 to 2), in out; returns how many. */
static unsigned accesses_of(const checker *c, LLVMValueRef inst, access *out) {
  switch (LLVMGetInstructionOpcode(inst)) {
  case LLVMLoad:
    out[0] = make_access(LLVMGetOperand(inst, 0), size_constant(c, LLVMTypeOf(inst)),
                      WEFT_ACCESS_READ);
    return 1;
  case LLVMStore:
    out[0] = make_access(LLVMGetOperand(inst, 1),
                      size_constant(c, LLVMTypeOf(LLVMGetOperand(inst, 0))),
                      WEFT_ACCESS_WRITE);
    return 1;
  case LLVMAtomicRMW:
  case LLVMAtomicCmpXchg:
    out[0] = make_access(LLVMGetOperand(inst, 0),
                      size_constant(c, LLVMTypeOf(LLVMGetOperand(inst, 1))),
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

/* Keeps the accesses whose object is known (0 to n of them). */
static unsigned known_objects(const checker *c, access *a, unsigned n) {
  unsigned kept = 0;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef seen[MAX_SEEN];
    unsigned n_seen = 0;
    LLVMValueRef base = trace(a[i].pointer, seen, &n_seen);
    if (base && describe(c, base, &a[i].from)) a[kept++] = a[i];
  }
  return kept;
}

/* ------------------------------------------------------------ checking */

/* The object's bytes: the launch's for an argument, else a constant. */
static LLVMValueRef extent_of(const checker *c, const origin *o) {
  if (o->arg < 0) return LLVMConstInt(c->i64, o->extent, 0);
  LLVMValueRef ctx = weft__body_param(c->body, WEFT_BODY_CTX);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c->context, 0);
  LLVMValueRef sizes = LLVMBuildLoad2(
      c->b, ptr, weft__ctx_field(c->b, ctx, offsetof(weft_wg_ctx, arg_sizes)), "");
  weft__set_invariant(sizes);
  LLVMValueRef index = LLVMConstInt(c->i64, (unsigned)o->arg, 0);
  LLVMValueRef size = LLVMBuildLoad2(
      c->b, c->i64, LLVMBuildInBoundsGEP2(c->b, c->i64, sizes, &index, 1, ""), "");
  weft__set_invariant(size);
  return size;
}

/* The access's offset in its object (i64). */
static LLVMValueRef offset_of(const checker *c, const access *a) {
  return LLVMBuildSub(c->b, LLVMBuildPtrToInt(c->b, a->pointer, c->i64, ""),
                      LLVMBuildPtrToInt(c->b, a->from.base, c->i64, ""),
                      "check.offset");
}

/* i1: offset <= extent and offset + size <= extent, unsigned (a negative
 * offset is huge). */
static LLVMValueRef within(const checker *c, LLVMValueRef offset,
                           LLVMValueRef size, LLVMValueRef extent) {
  LLVMValueRef end = LLVMBuildAdd(c->b, offset, LLVMBuildZExt(c->b, size, c->i64, ""), "");
  return LLVMBuildAnd(c->b, LLVMBuildICmp(c->b, LLVMIntULE, offset, extent, ""),
                      LLVMBuildICmp(c->b, LLVMIntULE, end, extent, ""), "");
}

/* In the failure block: the report of the first access that failed. */
static void report(const checker *c, LLVMValueRef inst, const access *a,
                   LLVMValueRef *ok, LLVMValueRef *offsets, unsigned n) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c->context);
  LLVMValueRef site = LLVMConstInt(i32, a[n - 1].site, 0);
  LLVMValueRef offset = offsets[n - 1];
  LLVMValueRef size = LLVMBuildZExt(c->b, a[n - 1].size, c->i64, "");
  for (unsigned i = n - 1; i-- > 0;) {
    LLVMValueRef bad = LLVMBuildNot(c->b, ok[i], "");
    site = LLVMBuildSelect(c->b, bad, LLVMConstInt(i32, a[i].site, 0), site, "");
    offset = LLVMBuildSelect(c->b, bad, offsets[i], offset, "");
    size = LLVMBuildSelect(c->b, bad, LLVMBuildZExt(c->b, a[i].size, c->i64, ""),
                           size, "");
  }
  weft__check_failed_call(c->b, c->body, site, offset, size, inst);
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

/* Puts inst behind the checks of its n accesses:
 *   head: checks; br ok, do, fail
 *   do:   inst; br rest          fail: check_failed(...); br rest
 *   rest: phi(inst's value, zero); what followed inst */
static void guard(const checker *c, LLVMValueRef inst, access *a, unsigned n) {
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(inst);
  LLVMBasicBlockRef head = weft__block_split_before(inst, "check");
  LLVMBasicBlockRef rest = LLVMGetInstructionParent(inst);
  LLVMPositionBuilderAtEnd(c->b, head);
  LLVMSetCurrentDebugLocation2(c->b, loc);
  LLVMValueRef ok[2], offsets[2], all = NULL;
  for (unsigned i = 0; i < n; i++) {
    offsets[i] = offset_of(c, &a[i]);
    ok[i] = within(c, offsets[i], a[i].size, extent_of(c, &a[i].from));
    all = all ? LLVMBuildAnd(c->b, all, ok[i], "") : ok[i];
  }
  LLVMBasicBlockRef pass = LLVMInsertBasicBlockInContext(c->context, rest, "check.ok");
  LLVMBasicBlockRef fail = LLVMInsertBasicBlockInContext(c->context, rest, "check.failed");
  LLVMBuildCondBr(c->b, all, pass, fail);
  LLVMPositionBuilderAtEnd(c->b, fail);
  report(c, inst, a, ok, offsets, n);
  LLVMBuildBr(c->b, rest);
  LLVMPositionBuilderAtEnd(c->b, pass);
  weft__instruction_move(c->b, inst);
  LLVMBuildBr(c->b, rest);
  LLVMTypeRef type = LLVMTypeOf(inst);
  if (LLVMGetTypeKind(type) == LLVMVoidTypeKind) return;
  /* A read that failed gives zero. */
  LLVMPositionBuilderBefore(c->b, LLVMGetFirstInstruction(rest));
  LLVMValueRef phi = LLVMBuildPhi(c->b, type, "");
  LLVMReplaceAllUsesWith(inst, phi);
  LLVMValueRef values[] = {inst, LLVMConstNull(type)};
  LLVMBasicBlockRef from[] = {pass, fail};
  LLVMAddIncoming(phi, values, from, 2);
}

/* The instructions of body that access memory, collected before any is
 * moved (the blocks change under a walk); NULL when out of memory. */
static LLVMValueRef *memory_instructions(const checker *c, unsigned *count) {
  unsigned n = 0, capacity = 64;
  LLVMValueRef *list = malloc(capacity * sizeof *list);
  if (!list) return NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(c->body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      access a[2];
      if (!accesses_of(c, i, a)) continue;
      if (n == capacity) {
        LLVMValueRef *grown = realloc(list, 2 * capacity * sizeof *list);
        if (!grown) {
          free(list);
          return NULL;
        }
        list = grown;
        capacity *= 2;
      }
      list[n++] = i;
    }
  *count = n;
  return list;
}

int weft__check_memory_insert(LLVMValueRef body, const weft_kernel_desc *desc,
                              LLVMTargetDataRef layout,
                              weft_check_sites *sites) {
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMContextRef context = LLVMGetModuleContext(module);
  checker c = {body, desc, layout, LLVMCreateBuilderInContext(context), module,
               context, LLVMInt64TypeInContext(context), sites};
  unsigned count;
  LLVMValueRef *list = memory_instructions(&c, &count);
  int rc = list ? 0 : WEFT_ENOMEM;
  for (unsigned k = 0; k < count && !rc; k++) {
    access a[2];
    unsigned n = known_objects(&c, a, accesses_of(&c, list[k], a));
    for (unsigned i = 0; i < n && !rc; i++) rc = add_site(&c, list[k], &a[i]);
    if (n && !rc) guard(&c, list[k], a, n);
  }
  free(list);
  LLVMDisposeBuilder(c.b);
  return rc;
}
