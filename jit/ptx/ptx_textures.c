/* ptx_textures.c: kernels whose image reads may go through textures made
 * in a version that takes them for granted.
 *
 * On the GPU an image read asks the layout for its texture handle
 * (builtins/image.cl: __weft_texture_handle(&layout->texture[slot])) and
 * reads the texture if there is one, else the image's memory in software.
 * The software read is large, so each read is a branch around it: a loop
 * of reads (a blur's taps) is not unrolled and its fetches do not overlap
 * (image_blur took 1.4 to 2 times NVIDIA's time, and the same kernel
 * without the branches as long as NVIDIA's).
 *
 * Whether an image has a texture is the same for every work-item of a
 * launch. Where every handle a kernel body asks for is computed from its
 * arguments and constants alone (as an image argument and a sampler
 * argument or literal give), the body is copied: the copy takes every
 * handle as there (its software reads fall away), and the body's new
 * first block loads the handles and calls the copy when none is 0, else
 * goes on as before. For a body that reads textures in a loop or more
 * than once, a second copy also takes every image's channel order
 * (__weft_texture_order) as RGBA, the commonest, whose reads then reorder
 * nothing (a read's selects on the order were most of a blur's
 * instructions); it is called when the orders are. Every ask then becomes
 * a load. */
#include <stdio.h>
#include <stdlib.h>

#include "jit/ir/ir.h"
#include "jit/ir/target.h"
#include "jit/ptx/ptx.h"

#define ASK "__weft_texture_handle"
#define ASK_ORDER "__weft_texture_order"
#define CL_RGBA 0x10B5

/* Instructions a handle's address may be computed through, at most. */
#define ADDRESS_BUDGET 16

/* Whether v can be computed in fn's first block: constants, fn's
 * arguments, and side-effect-free instructions over them. */
static int from_arguments(LLVMValueRef v, unsigned *budget) {
  if (LLVMIsAConstant(v) || LLVMIsAArgument(v)) return 1;
  if (!LLVMIsAInstruction(v) || !*budget) return 0;
  --*budget;
  if (!LLVMIsABinaryOperator(v) && !LLVMIsACastInst(v) &&
      !LLVMIsAICmpInst(v) && !LLVMIsAGetElementPtrInst(v) &&
      !LLVMIsASelectInst(v))
    return 0;
  for (int i = 0, n = LLVMGetNumOperands(v); i < n; i++)
    if (!from_arguments(LLVMGetOperand(v, (unsigned)i), budget)) return 0;
  return 1;
}

static int asks(LLVMValueRef inst, void *ask) {
  return LLVMIsACallInst(inst) && LLVMGetCalledValue(inst) == ask;
}

/* In the copy: a compare of a handle with 0 is known. */
static void take_handles_as_there(LLVMValueRef copy, LLVMValueRef ask) {
  unsigned n = 0;
  LLVMValueRef *calls = weft__instructions_where(copy, asks, ask, &n);
  for (unsigned i = 0; calls && i < n; i++)
    for (LLVMUseRef u = LLVMGetFirstUse(calls[i]); u;) {
      LLVMValueRef user = LLVMGetUser(u);
      u = LLVMGetNextUse(u);
      if (!LLVMIsAICmpInst(user) || !LLVMIsNull(LLVMGetOperand(user, 1)))
        continue;
      LLVMIntPredicate p = LLVMGetICmpPredicate(user);
      if (p != LLVMIntEQ && p != LLVMIntNE) continue;
      LLVMTypeRef i1 = LLVMTypeOf(user);
      LLVMReplaceAllUsesWith(user, LLVMConstInt(i1, p == LLVMIntNE, 0));
      LLVMInstructionEraseFromParent(user);
    }
  free(calls);
}

/* The calls of fn to ask whose addresses are computed from fn's
 * arguments, in *calls (malloc'd), *n of them; 0 where one is not. */
static int asks_from_arguments(LLVMValueRef fn, LLVMValueRef ask,
                               LLVMValueRef **calls, unsigned *n) {
  *n = 0;
  *calls = ask ? weft__instructions_where(fn, asks, ask, n) : NULL;
  if (ask && !*calls) return 0;
  for (unsigned i = 0; i < *n; i++) {
    unsigned budget = ADDRESS_BUDGET;
    if (!from_arguments(LLVMGetOperand((*calls)[i], 0), &budget)) return 0;
  }
  return 1;
}

/* Whether every value the asks load, remade and loaded at the builder,
 * compares to value as p says. */
static LLVMValueRef all_loaded(LLVMBuilderRef b, LLVMValueRef *calls,
                               unsigned n, LLVMTypeRef type,
                               LLVMIntPredicate p, LLVMValueRef value) {
  LLVMContextRef ctx = LLVMGetTypeContext(type);
  LLVMValueRef all = LLVMConstInt(LLVMInt1TypeInContext(ctx), 1, 0);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef at = weft__remake(b, LLVMGetOperand(calls[i], 0));
    LLVMValueRef loaded = LLVMBuildLoad2(b, type, at, "");
    all = LLVMBuildAnd(b, all, LLVMBuildICmp(b, p, loaded, value, ""), "");
  }
  return all;
}

/* A block of fn that calls callee with fn's parameters (args: room for
 * them) and returns what it returns. */
static LLVMBasicBlockRef call_block(LLVMBuilderRef b, LLVMValueRef fn,
                                    LLVMValueRef callee, LLVMValueRef *args) {
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  LLVMBasicBlockRef block = LLVMAppendBasicBlockInContext(ctx, fn, "version");
  LLVMPositionBuilderAtEnd(b, block);
  unsigned count = LLVMCountParams(fn);
  for (unsigned i = 0; i < count; i++) args[i] = LLVMGetParam(fn, i);
  LLVMTypeRef type = LLVMGlobalGetValueType(fn);
  LLVMValueRef result = LLVMBuildCall2(b, type, callee, args, count, "");
  if (LLVMGetTypeKind(LLVMGetReturnType(type)) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, result);
  return block;
}

/* fn's first block becomes: the handles loaded, and when none is 0 a call
 * of `textures` (or of `rgba`, if there is one, when every order asked
 * is RGBA), else the old first block (now second, its static allocas
 * moved up, where the inliner looks for them). */
static void dispatch(LLVMValueRef fn, LLVMValueRef textures, LLVMValueRef rgba,
                     LLVMValueRef *handles, unsigned num_handles,
                     LLVMValueRef *orders, unsigned num_orders,
                     LLVMValueRef *args) {
  LLVMContextRef ctx = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  LLVMBasicBlockRef old = LLVMGetEntryBasicBlock(fn);
  LLVMBasicBlockRef first = LLVMInsertBasicBlockInContext(ctx, old, "textures");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, first);
  for (LLVMValueRef i = LLVMGetFirstInstruction(old), next; i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i) && LLVMIsAConstant(LLVMGetOperand(i, 0)))
      weft__instruction_move(b, i);
  }
  LLVMTypeRef u64 = LLVMInt64TypeInContext(ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef there = all_loaded(b, handles, num_handles, u64, LLVMIntNE,
                                  LLVMConstNull(u64));
  LLVMValueRef is_rgba = all_loaded(b, orders, num_orders, i32, LLVMIntEQ,
                                    LLVMConstInt(i32, CL_RGBA, 0));
  LLVMValueRef both = LLVMBuildAnd(b, there, is_rgba, "");
  LLVMBasicBlockRef with = call_block(b, fn, textures, args);
  if (rgba) {
    /* Both conditions in the first branch: the orders' loads go out
     * beside the handles', not after them. */
    LLVMBasicBlockRef rgba_block = call_block(b, fn, rgba, args);
    LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(ctx, fn, "orders");
    LLVMPositionBuilderAtEnd(b, other);
    LLVMBuildCondBr(b, there, with, old);
    LLVMPositionBuilderAtEnd(b, first);
    LLVMBuildCondBr(b, both, rgba_block, other);
  } else {
    LLVMPositionBuilderAtEnd(b, first);
    LLVMBuildCondBr(b, there, with, old);
  }
  LLVMDisposeBuilder(b);
}

/* A copy of fn named fn's name and suffix, internal. */
static LLVMValueRef copy_of(LLVMValueRef fn, const char *suffix) {
  size_t length = 0;
  const char *name = LLVMGetValueName2(fn, &length);
  char copy_name[256];
  snprintf(copy_name, sizeof copy_name, "%.*s.%s",
           (int)(length < 200 ? length : 200), name, suffix);
  LLVMValueRef copy = weft__function_clone(fn, copy_name);
  LLVMSetLinkage(copy, LLVMInternalLinkage);
  return copy;
}

/* In fn, each ask_order answers RGBA. */
static void take_orders_as_rgba(LLVMValueRef fn, LLVMValueRef ask_order) {
  unsigned n = 0;
  LLVMValueRef *calls = weft__instructions_where(fn, asks, ask_order, &n);
  for (unsigned i = 0; calls && i < n; i++) {
    LLVMValueRef rgba = LLVMConstInt(LLVMTypeOf(calls[i]), CL_RGBA, 0);
    LLVMReplaceAllUsesWith(calls[i], rgba);
    LLVMInstructionEraseFromParent(calls[i]);
  }
  free(calls);
}

/* Whether block b of fn is in a loop. */
static int in_loop(LLVMValueRef fn, LLVMBasicBlockRef b) {
  weft_cfg g;
  if (weft__cfg_make(fn, &g)) return 0;
  unsigned char *marks = malloc(g.count + 1);
  unsigned at = weft__cfg_index(&g, b);
  int found = marks && !weft__cfg_in_loops(&g, marks, NULL, NULL) && at < g.count &&
              marks[at];
  free(marks);
  weft__cfg_free(&g);
  return found;
}

/* Whether fn reads more than one texture as it runs: several asks, or
 * one in a loop. The RGBA copy is for those (a kernel of one read a
 * work-item gained nothing by it and lost to its size: image_copy 1.22
 * times NVIDIA's time against 1.05). */
static int reads_often(LLVMValueRef fn, LLVMValueRef *handles, unsigned n) {
  return n > 1 ||
         (n == 1 && in_loop(fn, LLVMGetInstructionParent(handles[0])));
}

/* Versions fn if it asks for handles, each (and each order asked) from
 * its arguments alone. */
static void version(LLVMValueRef fn, LLVMValueRef ask, LLVMValueRef ask_order) {
  unsigned num_handles = 0, num_orders = 0;
  LLVMValueRef *handles = NULL, *orders = NULL;
  LLVMValueRef *args = malloc((LLVMCountParams(fn) + 1) * sizeof *args);
  int whole = args && asks_from_arguments(fn, ask, &handles, &num_handles) &&
              num_handles > 0 &&
              asks_from_arguments(fn, ask_order, &orders, &num_orders);
  if (whole) {
    LLVMValueRef textures = copy_of(fn, "textures"), rgba = NULL;
    take_handles_as_there(textures, ask);
    if (num_orders && reads_often(fn, handles, num_handles)) {
      rgba = copy_of(fn, "rgba");
      take_handles_as_there(rgba, ask);
      take_orders_as_rgba(rgba, ask_order);
    }
    dispatch(fn, textures, rgba, handles, num_handles, orders, num_orders,
             args);
  }
  free(args);
  free(handles);
  free(orders);
}

/* An ask as the load of what it asks for. */
static LLVMValueRef load_asked(LLVMBuilderRef b, LLVMValueRef call,
                               void *unused) {
  (void)unused;
  return LLVMBuildLoad2(b, LLVMTypeOf(call), LLVMGetOperand(call, 0), "");
}

int weft__ptx_textures_version(LLVMModuleRef module,
                               LLVMTargetMachineRef machine, int optimize,
                               char **error) {
  LLVMValueRef ask = LLVMGetNamedFunction(module, ASK);
  LLVMValueRef ask_order = LLVMGetNamedFunction(module, ASK_ORDER);
  if (!ask) return 0;
  /* The front end's values in memory (arguments, locals) made registers
   * first: an ask's address is then the argument's. */
  int rc = optimize ? weft__run_passes(module, machine,
                                       WEFT_PTX_FIRST_PASSES
                                       ",function(early-cse,instcombine)",
                                       error)
                    : 0;
  if (!rc && optimize) {
    /* The bodies that ask, listed first: copies ask too. */
    unsigned n = 0, capacity = 0;
    LLVMValueRef *fns = NULL;
    for (LLVMUseRef u = LLVMGetFirstUse(ask); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef fn = LLVMGetBasicBlockParent(
          LLVMGetInstructionParent(LLVMGetUser(u)));
      unsigned seen = 0;
      while (seen < n && fns[seen] != fn) seen++;
      if (seen < n) continue;
      if (n == capacity) {
        capacity = capacity ? 2 * capacity : 8;
        LLVMValueRef *grown = realloc(fns, capacity * sizeof *fns);
        if (!grown) break;
        fns = grown;
      }
      fns[n++] = fn;
    }
    for (unsigned i = 0; fns && i < n; i++) version(fns[i], ask, ask_order);
    free(fns);
  }
  weft__calls_replace(ask, load_asked, NULL);
  if (ask_order) weft__calls_replace(ask_order, load_asked, NULL);
  return rc;
}
