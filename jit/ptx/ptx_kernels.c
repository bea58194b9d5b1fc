/* ptx_kernels.c: what turns a linked, inlined OpenCL module into CUDA
 * kernels (see ptx.h): the globals behind the primitives the nvptx
 * builtins leave to the JIT, and one CUDA entry per OpenCL kernel. */
#include "jit/ptx/ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"
#include "jit/ir/kernel_info.h"
#include "jit/ir/ir.h"
#include "weft/weft.h"

/* NVPTX's address spaces. */
#define AS_GLOBAL 1
#define AS_SHARED 3
#define AS_CONST 4

/* A work-group has at most this many work-items on a CUDA GPU: the
 * collectives' scratch holds one slot per work-item. */
#define MAX_GROUP_ITEMS 1024
/* The bytes of constant memory a module may use, per the CUDA driver. */
#define CONSTANT_MEMORY 65536

static LLVMValueRef add_global(LLVMModuleRef module, const char *name,
                               LLVMTypeRef type, unsigned space,
                               unsigned align) {
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(module, type, name, space);
  LLVMSetAlignment(g, align);
  return g;
}

/* A global the runtime writes before each launch: visible by name to
 * cuModuleGetGlobal, and never assumed to hold its initial zeros (it is
 * externally initialized, which also keeps it external when the build
 * makes the rest internal). */
static LLVMValueRef runtime_global(LLVMModuleRef module, const char *name,
                                   LLVMTypeRef type, unsigned space) {
  LLVMValueRef g = LLVMGetNamedGlobal(module, name);
  if (g) return g; /* a second round (weft__ptx_primitives_lower) */
  g = add_global(module, name, type, space, 128);
  LLVMSetInitializer(g, LLVMConstNull(type));
  LLVMSetLinkage(g, LLVMExternalLinkage);
  LLVMSetExternallyInitialized(g, 1);
  return g;
}

/* Replaces every call of fn with value, and fn goes. */
static void replace_calls(LLVMValueRef fn, LLVMValueRef value) {
  weft__calls_replace(fn, weft__call_value, value);
}

/* The bytes of constant memory the program's own __constant variables
 * take, each rounded as the driver places them. */
static unsigned long long constant_bytes(LLVMModuleRef module,
                                         LLVMTargetDataRef layout) {
  unsigned long long total = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(module); g;
       g = LLVMGetNextGlobal(g)) {
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != AS_CONST) continue;
    total += (LLVMABISizeOfType(layout, LLVMGlobalGetValueType(g)) + 127) &
             ~127ull;
  }
  return total;
}

/* The primitives' globals (target.cl says which): the launch block in
 * constant memory, the barrier's words and the watchdog in global memory,
 * the scratch of the collectives in shared memory. Each exists only where
 * called. */
/* Shared memory of the module's, undefined at a block's start, made once
 * (internal: the build may rename nothing it has to find). */
static LLVMValueRef shared_global(LLVMModuleRef module, const char *name,
                                  LLVMTypeRef type, unsigned align) {
  LLVMValueRef g = LLVMGetNamedGlobal(module, name);
  if (g) return g;
  g = add_global(module, name, type, AS_SHARED, align);
  LLVMSetInitializer(g, LLVMGetUndef(type));
  LLVMSetLinkage(g, LLVMInternalLinkage);
  return g;
}

void weft__ptx_primitives_lower(LLVMModuleRef module) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(context);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(context);
  LLVMValueRef fn;
  if ((fn = LLVMGetNamedFunction(module, "__weft_launch_block")))
    replace_calls(fn, runtime_global(module, WEFT_PTX_LAUNCH_BLOCK,
                                     LLVMArrayType2(i64, 4), AS_CONST));
  if ((fn = LLVMGetNamedFunction(module, "__weft_launch_words")))
    replace_calls(fn, runtime_global(module, WEFT_PTX_LAUNCH_WORDS,
                                     LLVMArrayType2(i32, WEFT_LAUNCH_WORDS),
                                     AS_GLOBAL));
  if ((fn = LLVMGetNamedFunction(module, "__weft_watchdog")))
    replace_calls(fn, runtime_global(module, WEFT_PTX_WATCHDOG,
                                     LLVMArrayType2(i64, 3), AS_GLOBAL));
  if ((fn = LLVMGetNamedFunction(module, "__weft_wg_scratch")))
    /* One slot per work-item, and one for the result (collectives.cl). */
    replace_calls(fn, shared_global(module, "weft_wg_scratch",
                                    LLVMArrayType2(i64, MAX_GROUP_ITEMS + 1),
                                    16));
  if ((fn = LLVMGetNamedFunction(module, "__weft_coop_state")))
    replace_calls(fn, runtime_global(module, WEFT_PTX_COOP_STATE,
                                     LLVMArrayType2(i64, WEFT_PTX_COOP_WORDS),
                                     AS_GLOBAL));
  if ((fn = LLVMGetNamedFunction(module, "__weft_coop_block")))
    /* The block's group (builtins/nvptx/coop.cl). */
    replace_calls(fn, shared_global(module, "weft_coop_block",
                                    LLVMArrayType2(i32, WEFT_PTX_COOP_BLOCK_WORDS), 16));
}

/* What a kernel's parameters become in its CUDA entry. */
typedef struct entry_args {
  LLVMValueRef dynamic_local; /* extern shared memory, or NULL */
  LLVMValueRef constant_bank; /* or NULL */
} entry_args;

/* The entry's parameter type for the kernel's parameter i. */
static LLVMTypeRef entry_param_type(LLVMValueRef body,
                                    const weft_kernel_desc *k, unsigned i) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  const weft_arg_desc *a = &k->args[i];
  if (a->kind == WEFT_ARG_LOCAL || weft__arg_is_constant_buffer(a))
    return LLVMInt64TypeInContext(context);
  LLVMTypeRef by_value = weft__byval_type(body, i);
  return by_value ? by_value : LLVMTypeOf(LLVMGetParam(body, i));
}

/* The body's argument i from the entry's parameter p. */
static LLVMValueRef body_arg(LLVMBuilderRef b, LLVMValueRef body,
                             const weft_kernel_desc *k, unsigned i,
                             LLVMValueRef p, const entry_args *e) {
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  LLVMTypeRef i8 = LLVMInt8TypeInContext(context);
  if (k->args[i].kind == WEFT_ARG_LOCAL)
    return LLVMBuildGEP2(b, i8, e->dynamic_local, &p, 1, "local");
  if (weft__arg_is_constant_buffer(&k->args[i]))
    return LLVMBuildGEP2(b, i8, e->constant_bank, &p, 1, "constant");
  LLVMTypeRef by_value = weft__byval_type(body, i);
  if (!by_value) return p;
  LLVMValueRef copy = LLVMBuildAlloca(b, by_value, "byval");
  LLVMBuildStore(b, p, copy);
  return copy;
}

/* The kernel's code becomes an internal body, called with the C
 * convention from everywhere (other kernels may call it). */
static void make_body(LLVMValueRef kernel, const char *name) {
  char *body_name = NULL;
  if (asprintf(&body_name, "weft.body.%s", name) >= 0) {
    LLVMSetValueName2(kernel, body_name, strlen(body_name));
    free(body_name);
  }
  LLVMSetFunctionCallConv(kernel, LLVMCCallConv);
  LLVMSetLinkage(kernel, LLVMInternalLinkage);
  /* Clang keeps kernels out of line; a body belongs inside its entry. */
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(kernel));
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMRemoveEnumAttributeAtIndex(kernel, LLVMAttributeFunctionIndex, noinline);
  LLVMAddAttributeAtIndex(kernel, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(context, always, 0));
}

/* The entry takes the kernel's place in everything but calls: Clang
 * marked the kernel a CUDA kernel in nvvm.annotations, which has no C API
 * to edit, and replacing the kernel's uses moves that mark. Calls (from
 * other kernels) go back to the body. */
static void take_place(LLVMValueRef kernel, LLVMValueRef entry) {
  unsigned n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(kernel); u; u = LLVMGetNextUse(u))
    n += LLVMIsACallInst(LLVMGetUser(u)) != NULL;
  LLVMValueRef calls[n + 1];
  n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(kernel); u; u = LLVMGetNextUse(u))
    if (LLVMIsACallInst(LLVMGetUser(u))) calls[n++] = LLVMGetUser(u);
  LLVMReplaceAllUsesWith(kernel, entry);
  for (unsigned i = 0; i < n; i++) {
    /* The callee is a call's last operand. */
    LLVMSetOperand(calls[i], (unsigned)LLVMGetNumOperands(calls[i]) - 1, kernel);
    LLVMSetInstructionCallConv(calls[i], LLVMCCallConv);
  }
}

/* A call of the pool's function name (builtins/nvptx/coop.cl), declared
 * for the second link of the builtins to define: i32 (), or void with
 * no result. */
static LLVMValueRef coop_call(LLVMBuilderRef b, LLVMModuleRef module,
                              const char *name, int result) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef type = result ? LLVMInt32TypeInContext(context)
                            : LLVMVoidTypeInContext(context);
  LLVMValueRef fn = weft__runtime_function(module, name, result ? type : NULL,
                                           NULL, 0, "convergent");
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, NULL, 0, "");
}

/* In a cooperative kernel's body, the block's x index and the grid's x
 * size become its group's id and count (get_group_id(0),
 * get_num_groups(0) and get_global_size(0) are made of them). */
static void group_of_block(LLVMValueRef body) {
  static const char *const from[] = {"llvm.nvvm.read.ptx.sreg.ctaid.x",
                                     "llvm.nvvm.read.ptx.sreg.nctaid.x"};
  static const char *const to[] = {"__weft_coop_group_id",
                                   "__weft_coop_num_groups"};
  LLVMModuleRef module = LLVMGetGlobalParent(body);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
      next = LLVMGetNextInstruction(i);
      for (unsigned w = 0; w < 2; w++) {
        if (!weft__is_call_to(i, from[w])) continue;
        LLVMPositionBuilderBefore(b, i);
        LLVMReplaceAllUsesWith(i, coop_call(b, module, to[w], 1));
        LLVMInstructionEraseFromParent(i);
        break;
      }
    }
  LLVMDisposeBuilder(b);
}

/* The entry's code around the call of a cooperative kernel's body: each
 * group the block takes runs it, until the pool is done. Leaves the
 * builder where the call goes; returns the block to go on to after it. */
static LLVMBasicBlockRef pool_loop(LLVMBuilderRef b, LLVMModuleRef module,
                                   LLVMValueRef entry) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(context, entry, "run");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(context, entry, "next");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(context, entry, "done");
  LLVMValueRef zero = LLVMConstInt(LLVMInt32TypeInContext(context), 0, 0);
  LLVMValueRef go = coop_call(b, module, "__weft_coop_first", 1);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, go, zero, ""), run, done);
  LLVMPositionBuilderAtEnd(b, next);
  go = coop_call(b, module, "__weft_coop_next", 1);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, go, zero, ""), run, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMPositionBuilderAtEnd(b, run);
  return next;
}

/* The body's restrict (noalias) pointer parameters are the entry's too:
 * NVPTX loads through a kernel parameter that is noalias and only read
 * with ld.global.nc (the read-only cache), and it sees only the entry's
 * parameters. The entry passes them on unchanged, so what holds of the
 * body's holds of the entry's. */
static void pass_noalias(LLVMValueRef body, LLVMValueRef entry, unsigned i) {
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  LLVMValueRef p = LLVMGetParam(entry, i);
  if (LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMPointerTypeKind ||
      !LLVMGetEnumAttributeAtIndex(body, i + 1, noalias))
    return;
  LLVMContextRef context = LLVMGetModuleContext(LLVMGetGlobalParent(body));
  LLVMAddAttributeAtIndex(entry, i + 1,
                          LLVMCreateEnumAttribute(context, noalias, 0));
}

/* The CUDA entry of one kernel, named as the kernel, calling its body. */
static void make_entry(LLVMModuleRef module, LLVMValueRef kernel,
                       const weft_kernel_desc *k, const entry_args *e) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  make_body(kernel, k->name);
  unsigned n = k->num_args;
  LLVMTypeRef types[n + 1];
  for (unsigned i = 0; i < n; i++) types[i] = entry_param_type(kernel, k, i);
  LLVMTypeRef type =
      LLVMFunctionType(LLVMVoidTypeInContext(context), types, n, 0);
  LLVMValueRef entry = LLVMAddFunction(module, k->name, type);
  take_place(kernel, entry);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(context);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(context, entry, ""));
  LLVMValueRef args[n + 1];
  for (unsigned i = 0; i < n; i++)
    args[i] = body_arg(b, kernel, k, i, LLVMGetParam(entry, i), e);
  int pool = (k->flags & WEFT_KERNEL_RESIZABLE) != 0;
  LLVMBasicBlockRef next = pool ? pool_loop(b, module, entry) : NULL;
  /* Each group starts with the arguments' own bytes, whatever the one
   * before did to its copy. */
  for (unsigned i = 0; pool && i < n; i++)
    if (args[i] != LLVMGetParam(entry, i) && LLVMIsAAllocaInst(args[i]))
      LLVMBuildStore(b, LLVMGetParam(entry, i), args[i]);
  /* Only parameters passed on as they are: a copy is another object. */
  for (unsigned i = 0; i < n; i++)
    if (args[i] == LLVMGetParam(entry, i)) pass_noalias(kernel, entry, i);
  LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(kernel), kernel,
                                     args, n, "");
  LLVMSetInstructionCallConv(call, LLVMCCallConv);
  if (pool) {
    coop_call(b, module, "__weft_coop_leave", 0);
    LLVMBuildBr(b, next);
    group_of_block(kernel);
  } else {
    LLVMBuildRetVoid(b);
  }
  LLVMDisposeBuilder(b);
}

/* The globals the entries read their pointer arguments from. */
static entry_args make_entry_globals(LLVMModuleRef module,
                                     LLVMTargetDataRef layout,
                                     const weft_kernel_desc *kernels,
                                     unsigned count) {
  LLVMContextRef context = LLVMGetModuleContext(module);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(context);
  int local = 0, constant = 0;
  for (unsigned i = 0; i < count; i++)
    for (unsigned a = 0; a < kernels[i].num_args; a++) {
      local |= kernels[i].args[a].kind == WEFT_ARG_LOCAL;
      constant |= weft__arg_is_constant_buffer(&kernels[i].args[a]);
    }
  entry_args e = {0};
  if (local)
    /* The launch's dynamic shared memory: extern __shared__ in CUDA. */
    e.dynamic_local = add_global(module, "weft_dynamic_local",
                                 LLVMArrayType2(i8, 0), AS_SHARED,
                                 WEFT_LOCAL_ALIGN);
  if (constant) {
    unsigned long long used = constant_bytes(module, layout);
    unsigned long long size = used < CONSTANT_MEMORY / 2
                                  ? CONSTANT_MEMORY - used
                                  : CONSTANT_MEMORY / 2;
    e.constant_bank = runtime_global(module, WEFT_PTX_CONSTANT_BANK,
                                     LLVMArrayType2(i8, size), AS_CONST);
  }
  return e;
}

int weft__ptx_make_kernels(LLVMModuleRef module, LLVMTargetDataRef layout,
                           weft_kernel_desc *kernels, unsigned count) {
  LLVMValueRef found[count + 1];
  unsigned n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(module); f && n < count;
       f = LLVMGetNextFunction(f))
    if (weft__is_kernel(f)) found[n++] = f;
  if (n != count) return WEFT_EBUILD;
  for (unsigned i = 0; i < count; i++)
    if (weft__uses_launch_words(found[i]))
      kernels[i].flags |= WEFT_KERNEL_GLOBAL_BARRIER;
  weft__ptx_primitives_lower(module);
  entry_args e = make_entry_globals(module, layout, kernels, count);
  for (unsigned i = 0; i < count; i++)
    make_entry(module, found[i], &kernels[i], &e);
  return 0;
}
