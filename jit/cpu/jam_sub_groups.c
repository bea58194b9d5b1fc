/* jam_sub_groups.c: sub-group functions in a jammed call that runs whole
 * sub-groups side by side.
 *
 * On the CPU a sub-group is `width` consecutive local linear ids. When a
 * group's x size is a multiple of the width, a sub-group is `width`
 * consecutive x ids of one row, and a jammed call (jam.c) whose first x
 * is a multiple of it and whose width is one runs whole sub-groups,
 * instruction by instruction. There a reduction, a scan or a broadcast
 * needs no slots in memory and no barriers: each lane's value is at hand
 * as one of the clones. builtins/sub_groups.cl asks
 * __weft_sub_group_lanes() first: such a jam takes it as 1 and folds its
 * lanes' values here (in lane order, as the slots' fold does, so that a
 * float reduction gives the same bits either way); everywhere else the
 * JIT makes it 0 (weft__sub_group_lanes_off) and the slots serve.
 *
 * Where only some lanes come (a branch that lanes take differently, made
 * straight-line code in the copy of the body such jams are made from:
 * jam_predicate.c, build.c; a loop they leave at different turns:
 * jam_loops.c), a fold folds those that came, as the slots fold those
 * that met; a pick of a lane that did not come is undefined, as in
 * OpenCL. The functions every lane must come to (sub_group_reduce_add,
 * sub_group_broadcast ...: the builtins mark them, WEFT_LANES_ALL and
 * the pickall) are taken there too, with a check that every lane of
 * each sub-group came or none did (a branch on the sub-group's id, a
 * loop whose turns its lanes share: check_whole); where not, the
 * runtime runs the group again on the slots, which report the
 * work-items that parted ways. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins/sub_group_lanes.h"
#include "jit/cpu/jam.h"

#define LANES "__weft_sub_group_lanes"
#define FOLD "__weft_sub_group_fold_"
#define PICK "__weft_sub_group_pick_"
/* A fold that only the lanes whose mask is set come to (a branch that
 * lanes take differently, made straight-line code: jam_predicate.c):
 * (x, what, i1 mask). Made here, never by the builtins. */
#define MASKED_FOLD "__weft_sub_group_mfold_"
/* A pick of a uniform function (sub_groups.h). */
#define PICK_ALL "__weft_sub_group_pickall_"
/* Such a pick that only the lanes whose mask is set come to: (x, from,
 * i1 mask). Made here. */
#define MASKED_PICK_ALL "__weft_sub_group_mpickall_"
/* Made here: (ctx, i1 parted) calls the runtime where parted holds
 * (kernel_abi.h: WEFT_LANES_PARTED_SYMBOL). */
#define CHECK_WHOLE "weft.sub_group.whole"

/* The callee's name when inst calls a function directly, else "". */
static const char *callee_name(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst)) return "";
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  return LLVMIsAFunction(callee) ? LLVMGetValueName(callee) : "";
}

int weft__jam_is_lanes_query(LLVMValueRef inst) {
  return !strcmp(callee_name(inst), LANES);
}

/* The lanes calls, by the prefix of their names. */
enum { NOT_LANES, FOLDS, PICKS };
static const struct {
  const char *prefix;
  int call;          /* FOLDS or PICKS */
  unsigned operands; /* 3 with a mask */
  int all;           /* of a uniform function */
} CALLS[] = {{FOLD, FOLDS, 2, 0},
             {MASKED_FOLD, FOLDS, 3, 0},
             {PICK, PICKS, 2, 0},
             {PICK_ALL, PICKS, 2, 1},
             {MASKED_PICK_ALL, PICKS, 3, 1}};
enum { NUM_CALLS = sizeof CALLS / sizeof *CALLS };

/* Which of CALLS inst's callee is named as (NUM_CALLS: none). */
static unsigned call_kind(LLVMValueRef inst) {
  const char *name = callee_name(inst);
  for (unsigned k = 0; k < NUM_CALLS; k++)
    if (!strncmp(name, CALLS[k].prefix, strlen(CALLS[k].prefix))) return k;
  return NUM_CALLS;
}

/* Whether inst folds (FOLDS) or picks (PICKS) as the builtins call them:
 * a scalar of the type its name says and, for a fold, a known constant
 * `what` (a kernel that names these itself gets no fold of its own). */
static int lanes_call(LLVMValueRef inst) {
  unsigned k = call_kind(inst);
  if (k == NUM_CALLS) return NOT_LANES;
  const char *suffix = callee_name(inst) + strlen(CALLS[k].prefix);
  LLVMTypeRef t = LLVMTypeOf(inst);
  LLVMTypeKind kind = LLVMGetTypeKind(t);
  LLVMContextRef c = LLVMGetTypeContext(t);
  int typed = suffix[0] == 'f' ? kind == LLVMFloatTypeKind || kind == LLVMDoubleTypeKind
                               : (suffix[0] == 'i' || suffix[0] == 'u') &&
                                     kind == LLVMIntegerTypeKind;
  unsigned n = CALLS[k].operands;
  if (!typed || LLVMGetNumArgOperands(inst) != n ||
      LLVMTypeOf(LLVMGetOperand(inst, 0)) != t ||
      (n == 3 && LLVMTypeOf(LLVMGetOperand(inst, 2)) != LLVMInt1TypeInContext(c)))
    return NOT_LANES;
  if (CALLS[k].call == PICKS)
    return LLVMTypeOf(LLVMGetOperand(inst, 1)) == LLVMInt32TypeInContext(c)
               ? PICKS
               : NOT_LANES;
  LLVMValueRef what = LLVMGetOperand(inst, 1);
  if (!LLVMIsAConstantInt(what)) return NOT_LANES;
  unsigned long long w = LLVMConstIntGetZExtValue(what);
  unsigned op = WEFT_LANES_OP(w);
  return w < 2 * WEFT_LANES_ALL &&
                 WEFT_LANES_KIND(w) <= WEFT_LANES_EXCLUSIVE_FIRST &&
                 op <= WEFT_LANES_xor &&
                 (suffix[0] != 'f' || op <= WEFT_LANES_mul)
             ? FOLDS
             : NOT_LANES;
}

int weft__jam_is_lanes_call(LLVMValueRef inst) { return lanes_call(inst) != NOT_LANES; }

/* Whether call is of a function that all lanes must come to: a fold
 * the builtins mark WEFT_LANES_ALL, or a pickall. */
static int of_all(LLVMValueRef call) {
  unsigned k = call_kind(call);
  return CALLS[k].all ||
         (CALLS[k].call == FOLDS &&
          (LLVMConstIntGetZExtValue(LLVMGetOperand(call, 1)) & WEFT_LANES_ALL));
}

/* The masked form (named `masked` and the suffix of call's callee after
 * its `plain` prefix) of call's fold or pick, with the attributes the
 * builtins give them (no memory touched: jam_predicate.c's predicable
 * takes it again, a branch around it). */
static LLVMValueRef masked_form(LLVMValueRef call, const char *plain,
                                const char *masked) {
  LLVMModuleRef m = LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
  LLVMValueRef unmasked = LLVMGetCalledValue(call);
  const char *suffix = LLVMGetValueName(unmasked) + strlen(plain);
  char name[strlen(masked) + strlen(suffix) + 1];
  snprintf(name, sizeof name, "%s%s", masked, suffix);
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (fn) return fn;
  LLVMTypeRef t = LLVMTypeOf(call);
  LLVMContextRef c = LLVMGetTypeContext(t);
  LLVMTypeRef params[] = {t, LLVMTypeOf(LLVMGetOperand(call, 1)),
                          LLVMInt1TypeInContext(c)};
  fn = LLVMAddFunction(m, name, LLVMFunctionType(t, params, 3, 0));
  weft__copy_attributes(unmasked, fn, LLVMAttributeFunctionIndex);
  return fn;
}

void weft__jam_lanes_mask(LLVMBuilderRef b, LLVMValueRef call, LLVMValueRef mask) {
  assert(weft__jam_is_lanes_call(call));
  unsigned k = call_kind(call);
  /* A non-uniform pick of a lane that did not come: undefined. */
  if (CALLS[k].call == PICKS && !CALLS[k].all) return;
  if (CALLS[k].operands == 3) { /* masked in a branch within */
    LLVMPositionBuilderBefore(b, call);
    LLVMSetOperand(call, 2, LLVMBuildAnd(b, LLVMGetOperand(call, 2), mask, ""));
    return;
  }
  LLVMValueRef fn = CALLS[k].call == PICKS
                        ? masked_form(call, PICK_ALL, MASKED_PICK_ALL)
                        : masked_form(call, FOLD, MASKED_FOLD);
  LLVMValueRef args[] = {LLVMGetOperand(call, 0), LLVMGetOperand(call, 1), mask};
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef masked =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
  LLVMReplaceAllUsesWith(call, masked);
  LLVMInstructionEraseFromParent(call);
}

int weft__sub_group_lanes_used(LLVMValueRef body) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(body); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (weft__jam_is_lanes_query(i)) return 1;
  return 0;
}

/* Replaces inst by v everywhere and erases it. */
static void replace(LLVMValueRef inst, LLVMValueRef v) {
  LLVMReplaceAllUsesWith(inst, v);
  LLVMInstructionEraseFromParent(inst);
}

/* Whether v is sub_groups.cl's test of __weft_sub_group_lanes() (an
 * icmp eq or ne of it with 0), and if so in *holds whether it holds
 * where the lanes run side by side (the query is 1). */
static int lanes_test(LLVMValueRef v, int *holds) {
  if (!LLVMIsAICmpInst(v) || !weft__jam_is_lanes_query(LLVMGetOperand(v, 0)) ||
      !LLVMIsAConstantInt(LLVMGetOperand(v, 1)) ||
      LLVMConstIntGetZExtValue(LLVMGetOperand(v, 1)) != 0)
    return 0;
  LLVMIntPredicate p = LLVMGetICmpPredicate(v);
  *holds = p == LLVMIntNE;
  return p == LLVMIntNE || p == LLVMIntEQ;
}

/* A call of __weft_sub_group_lanes() made `on` (0 or 1), and its tests
 * made constants, so that simplifycfg drops the branch. */
static void lanes_call_set(LLVMValueRef call, int on) {
  LLVMValueRef value = LLVMConstInt(LLVMTypeOf(call), (unsigned)on, 0);
  LLVMTypeRef i1 = LLVMInt1TypeInContext(LLVMGetTypeContext(LLVMTypeOf(call)));
  for (LLVMUseRef u; (u = LLVMGetFirstUse(call));) {
    LLVMValueRef user = LLVMGetUser(u);
    int holds;
    if (lanes_test(user, &holds)) { /* holds where the query is 1 */
      replace(user, LLVMConstInt(i1, on ? holds : !holds, 0));
      continue;
    }
    for (int o = 0; o < LLVMGetNumOperands(user); o++)
      if (LLVMGetOperand(user, (unsigned)o) == call)
        LLVMSetOperand(user, (unsigned)o, value);
  }
  LLVMInstructionEraseFromParent(call);
}

int weft__sub_group_lanes_asked(LLVMModuleRef module) {
  LLVMValueRef query = LLVMGetNamedFunction(module, LANES);
  return query && LLVMGetFirstUse(query);
}

/* Every call of query in function only (NULL: anywhere) made `on`. A
 * call made so takes only its own use of query with it (and its tests'
 * uses of the call), so the next use, read first, stays. */
static void lanes_set(LLVMValueRef query, LLVMValueRef only, int on) {
  for (LLVMUseRef u = LLVMGetFirstUse(query), next; u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef call = LLVMGetUser(u);
    if (!only || LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)) == only)
      lanes_call_set(call, on);
  }
}

int weft__sub_group_lanes_off(LLVMModuleRef module) {
  LLVMValueRef query = LLVMGetNamedFunction(module, LANES);
  if (!query) return 0;
  lanes_set(query, NULL, 0);
  return 1;
}

void weft__sub_group_lanes_in(LLVMValueRef body, int on) {
  LLVMValueRef query =
      LLVMGetNamedFunction(LLVMGetGlobalParent(body), LANES);
  if (query) lanes_set(query, body, on);
}

int weft__jam_lanes_branch(LLVMValueRef term) {
  int holds;
  if (!LLVMIsABranchInst(term) || !LLVMIsConditional(term) ||
      !lanes_test(LLVMGetCondition(term), &holds))
    return -1;
  return holds ? 0 : 1;
}

/* ------------------------------------------------------------- folds */

/* What a fold's type is: a float, or an integer signed or not (its
 * name's suffix: i32, u8, f64 ...). */
typedef struct lanes_type {
  LLVMTypeRef type;
  char kind; /* 'i', 'u' or 'f' */
} lanes_type;

static lanes_type type_of(LLVMValueRef call) {
  const char *suffix = callee_name(call) + strlen(CALLS[call_kind(call)].prefix);
  return (lanes_type){LLVMTypeOf(call), suffix[0]};
}

/* op(acc, x) as sub_groups.h's OP_<op> makes it: min and max keep acc
 * unless x is less (greater), as a compare and a select. */
static LLVMValueRef apply(LLVMBuilderRef b, lanes_type t, unsigned op,
                          LLVMValueRef acc, LLVMValueRef x) {
  int f = t.kind == 'f';
  switch (op) {
  case WEFT_LANES_add:
    return f ? LLVMBuildFAdd(b, acc, x, "") : LLVMBuildAdd(b, acc, x, "");
  case WEFT_LANES_mul:
    return f ? LLVMBuildFMul(b, acc, x, "") : LLVMBuildMul(b, acc, x, "");
  case WEFT_LANES_and:
    return LLVMBuildAnd(b, acc, x, "");
  case WEFT_LANES_or:
    return LLVMBuildOr(b, acc, x, "");
  case WEFT_LANES_xor:
    return LLVMBuildXor(b, acc, x, "");
  default:
    break;
  }
  int min = op == WEFT_LANES_min;
  LLVMValueRef better =
      f ? LLVMBuildFCmp(b, min ? LLVMRealOLT : LLVMRealOGT, x, acc, "")
        : LLVMBuildICmp(b,
                        t.kind == 'u' ? (min ? LLVMIntULT : LLVMIntUGT)
                                      : (min ? LLVMIntSLT : LLVMIntSGT),
                        x, acc, "");
  return LLVMBuildSelect(b, better, x, acc, "");
}

/* The identity of op, as sub_groups.h's IDENT_<op>. */
static LLVMValueRef identity(lanes_type t, unsigned op) {
  int f = t.kind == 'f';
  switch (op) {
  case WEFT_LANES_add:
  case WEFT_LANES_or:
  case WEFT_LANES_xor:
    return LLVMConstNull(t.type);
  case WEFT_LANES_mul:
    return f ? LLVMConstReal(t.type, 1.0) : LLVMConstInt(t.type, 1, 0);
  case WEFT_LANES_and:
    return LLVMConstAllOnes(t.type);
  default:
    break;
  }
  int least = op == WEFT_LANES_max; /* max starts from the least value */
  if (f) return LLVMConstReal(t.type, least ? -__builtin_inf() : __builtin_inf());
  unsigned bits = LLVMGetIntTypeWidth(t.type);
  unsigned long long all = bits == 64 ? ~0ull : (1ull << bits) - 1;
  unsigned long long sign = 1ull << (bits - 1);
  unsigned long long v = t.kind == 'u' ? (least ? 0 : all)
                                       : (least ? sign : all & ~sign);
  return LLVMConstInt(t.type, v, 0);
}

/* v's lanes moved up by `by`, the identity coming in below. */
static LLVMValueRef shift_up(LLVMBuilderRef b, LLVMValueRef v,
                             LLVMValueRef idents, unsigned width, unsigned by) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(LLVMTypeOf(v)));
  LLVMValueRef mask[width];
  for (unsigned i = 0; i < width; i++)
    mask[i] = LLVMConstInt(i32, i >= by ? i - by : width + i, 0);
  return LLVMBuildShuffleVector(b, v, idents, LLVMConstVector(mask, width), "");
}

/* v's lanes, each with the one `by` across (its index xor by). */
static LLVMValueRef swap_across(LLVMBuilderRef b, LLVMValueRef v,
                                unsigned width, unsigned by) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(LLVMTypeOf(v)));
  LLVMValueRef mask[width];
  for (unsigned i = 0; i < width; i++) mask[i] = LLVMConstInt(i32, i ^ by, 0);
  return LLVMBuildShuffleVector(b, v, LLVMGetUndef(LLVMTypeOf(v)),
                                LLVMConstVector(mask, width), "");
}

/* values[0 .. n) as one vector, at the builder. */
static LLVMValueRef vector_of(LLVMBuilderRef b, const LLVMValueRef *values,
                              unsigned n) {
  LLVMTypeRef t = LLVMTypeOf(values[0]);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(t));
  LLVMValueRef v = LLVMGetUndef(LLVMVectorType(t, n));
  for (unsigned k = 0; k < n; k++)
    v = LLVMBuildInsertElement(b, v, values[k], LLVMConstInt(i32, k, 0), "");
  return v;
}

/* An integer fold of the sub-group as one vector: its lanes' values
 * gathered, a step per power of two below the width (a scan: each
 * lane's fold with the one that far below it; a reduction: with the one
 * that far across, which leaves every lane the whole), the lanes'
 * results taken apart.
 * Integer operations do not care about the order (unlike floats, whose
 * folds go in lane order), and in lane order the width's results were a
 * chain of dependent operations that LLVM's loop vectorizer took across
 * sub-groups, with a gather and a scatter per lane: on the EPYC, a
 * sub_group_scan_inclusive_add over 16M ints took 18-28 ms, and 3.2 so;
 * sub_group_reduce_add, every lane storing it, 18-24 ms, and 3.1. */
static void fold_as_vector(weft_jam *j, LLVMBuilderRef b, lanes_type t,
                           unsigned kind, unsigned op, LLVMValueRef x,
                           LLVMValueRef *came, unsigned first,
                           LLVMValueRef *results) {
  unsigned width = j->sub_group_width;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(t.type));
  LLVMValueRef ident = identity(t, op), splat[width];
  for (unsigned i = 0; i < width; i++) splat[i] = ident;
  LLVMValueRef idents = LLVMConstVector(splat, width);
  LLVMValueRef v = weft__jam_items_vector(j, b, x, first, j->sub_group_width);
  if (came) /* the lanes that did not come fold the identity */
    v = LLVMBuildSelect(b, vector_of(b, came, width), v, idents, "");
  lanes_type vt = {LLVMTypeOf(v), t.kind};
  for (unsigned by = 1; by < width; by *= 2)
    v = apply(b, vt, op,
              kind == WEFT_LANES_REDUCE ? swap_across(b, v, width, by)
                                        : shift_up(b, v, idents, width, by),
              v);
  if (kind == WEFT_LANES_EXCLUSIVE || kind == WEFT_LANES_EXCLUSIVE_FIRST)
    v = shift_up(b, v, idents, width, 1);
  /* A reduction leaves every lane the whole: one value for all, so that
   * what each lane makes of it is made once (a ballot's bit count). */
  for (unsigned lane = 0; lane < width; lane++)
    results[lane] = kind == WEFT_LANES_REDUCE && lane
                        ? results[0]
                        : LLVMBuildExtractElement(b, v, LLVMConstInt(i32, lane, 0), "");
}

/* Each lane's flag of having come to call (of the sub-group whose first
 * work-item of the call is first), into came[]: the mask a branch made
 * straight-line code gave the call, and where it is in a loop that
 * lanes leave at different turns, its flag of being still in it. 0
 * where every lane comes. */
static int lanes_came(weft_jam *j, LLVMBuilderRef b, LLVMValueRef call,
                      unsigned first, LLVMValueRef *came) {
  LLVMValueRef mask =
      LLVMGetNumArgOperands(call) == 3 ? LLVMGetOperand(call, 2) : NULL;
  const weft_jam_loop *loop = weft__jam_loops_around(j, call);
  if (!mask && !loop) return 0;
  for (unsigned lane = 0; lane < j->sub_group_width; lane++) {
    LLVMValueRef m = mask ? weft__jam_whole(j, b, mask, first + lane) : NULL;
    LLVMValueRef stay = loop ? loop->stay[first + lane] : NULL;
    came[lane] = m && stay ? LLVMBuildAnd(b, m, stay, "") : m ? m : stay;
  }
  return 1;
}

LLVMValueRef weft__sub_group_parted_function(LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fn = weft__runtime_function(m, WEFT_LANES_PARTED_SYMBOL, NULL,
                                           &ptr, 1, "noreturn");
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(
                              c, LLVMGetEnumAttributeKindForName("cold", 4), 0));
  return fn;
}

/* The function that calls the runtime where parted holds (else
 * nothing): inlined (always-inline), a branch to a cold call. */
static LLVMValueRef whole_check(LLVMModuleRef m) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, CHECK_WHOLE);
  if (fn) return fn;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef params[] = {ptr, LLVMInt1TypeInContext(c)};
  fn = LLVMAddFunction(m, CHECK_WHOLE,
                       LLVMFunctionType(LLVMVoidTypeInContext(c), params, 2, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(
                              c, LLVMGetEnumAttributeKindForName("alwaysinline", 12), 0));
  LLVMValueRef report = weft__sub_group_parted_function(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry"),
                    parted = LLVMAppendBasicBlockInContext(c, fn, "parted"),
                    whole = LLVMAppendBasicBlockInContext(c, fn, "whole");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildCondBr(b, LLVMGetParam(fn, 1), parted, whole);
  LLVMPositionBuilderAtEnd(b, parted);
  LLVMValueRef ctx = LLVMGetParam(fn, 0);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(report), report, &ctx, 1, "");
  LLVMBuildUnreachable(b);
  LLVMPositionBuilderAtEnd(b, whole);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* A function all lanes must come to, where only some may (came[]: a
 * branch, a loop): unless every lane of the sub-group came or none did,
 * the runtime runs the group again without whole sub-groups, where the
 * slots name the work-items that parted ways, and reports them. The
 * function then folds or picks the whole sub-group (the results of one
 * that did not come go unused). */
static void check_whole(weft_jam *j, LLVMBuilderRef b, LLVMValueRef *came) {
  unsigned n = j->sub_group_width;
  LLVMTypeRef bits = LLVMIntTypeInContext(j->context, n);
  LLVMValueRef v = LLVMBuildBitCast(b, vector_of(b, came, n), bits, "");
  LLVMValueRef parted = LLVMBuildAnd(
      b, LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstNull(bits), ""),
      LLVMBuildICmp(b, LLVMIntNE, v, LLVMConstAllOnes(bits), ""), "parted");
  LLVMValueRef fn = whole_check(LLVMGetGlobalParent(j->fn));
  LLVMValueRef args[] = {weft__body_param(j->fn, WEFT_BODY_CTX), parted};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

/* Every lane's result of fold call `what` for the sub-group whose first
 * work-item of the call is first: into results[0 .. width), in lane
 * order as the slots' folds (sub_groups.cl, sub_groups_non_uniform.cl),
 * or for integers in any order (fold_as_vector). Where only some lanes
 * come (lanes_came), it folds those, as the slots fold those that met;
 * the others' results go unused. */
static void fold(weft_jam *j, LLVMBuilderRef b, LLVMValueRef call,
                 unsigned first, LLVMValueRef *results) {
  lanes_type t = type_of(call);
  LLVMValueRef x = LLVMGetOperand(call, 0);
  unsigned what = (unsigned)LLVMConstIntGetZExtValue(LLVMGetOperand(call, 1));
  unsigned kind = WEFT_LANES_KIND(what), op = WEFT_LANES_OP(what);
  unsigned width = j->sub_group_width;
  LLVMValueRef flags[width];
  LLVMValueRef *came = lanes_came(j, b, call, first, flags) ? flags : NULL;
  if (came && of_all(call)) {
    check_whole(j, b, came);
    came = NULL;
  }
  if (t.kind != 'f' && width >= 4 && !(width & (width - 1))) {
    fold_as_vector(j, b, t, kind, op, x, came, first, results);
    return;
  }
  int from_first = kind == WEFT_LANES_REDUCE ||
                   kind == WEFT_LANES_INCLUSIVE_FIRST ||
                   kind == WEFT_LANES_EXCLUSIVE_FIRST;
  int exclusive = kind == WEFT_LANES_EXCLUSIVE || kind == WEFT_LANES_EXCLUSIVE_FIRST;
  LLVMValueRef ident = identity(t, op), acc = NULL; /* nothing folded yet */
  /* Where only some come: whether a lane before has (else acc is ident). */
  LLVMValueRef some = NULL;
  for (unsigned lane = 0; lane < width; lane++) {
    LLVMValueRef before = acc ? acc : ident;
    LLVMValueRef v = weft__jam_whole(j, b, x, first + lane);
    LLVMValueRef next = acc ? apply(b, t, op, acc, v)
                            : from_first ? v : apply(b, t, op, ident, v);
    if (came) {
      LLVMValueRef c = came[lane];
      if (acc && from_first)
        next = LLVMBuildSelect(b, some, next, v, "");
      next = LLVMBuildSelect(b, c, next, before, "");
      some = some ? LLVMBuildOr(b, some, c, "") : c;
    }
    acc = next;
    results[lane] = exclusive ? before : acc;
  }
  if (kind == WEFT_LANES_REDUCE)
    for (unsigned lane = 0; lane < width; lane++) results[lane] = acc;
}

/* Every lane's x of the lane its `from` names (the low bits of from: a
 * lane past the sub-group is undefined behaviour, never a read outside
 * it), for the sub-group from first. */
static void pick(weft_jam *j, LLVMBuilderRef b, LLVMValueRef call,
                 unsigned first, LLVMValueRef *results) {
  unsigned n = j->sub_group_width;
  LLVMValueRef x = LLVMGetOperand(call, 0), from = LLVMGetOperand(call, 1);
  LLVMValueRef came[n];
  if (of_all(call) && lanes_came(j, b, call, first, came)) check_whole(j, b, came);
  if (LLVMIsAConstantInt(from)) {
    unsigned lane = (unsigned)LLVMConstIntGetZExtValue(from) % n;
    LLVMValueRef v = weft__jam_whole(j, b, x, first + lane);
    for (unsigned k = 0; k < n; k++) results[k] = v;
    return;
  }
  LLVMValueRef lanes = weft__jam_items_vector(j, b, x, first, j->sub_group_width);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(j->context);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef lane = LLVMBuildAnd(b, weft__jam_whole(j, b, from, first + k),
                                     LLVMConstInt(i32, n - 1, 0), "");
    results[k] = LLVMBuildExtractElement(b, lanes, lane, "");
  }
}

int weft__jam_sub_group_call(weft_jam *j, LLVMBuilderRef b, LLVMValueRef inst) {
  if (!j->sub_group_width) return 0;
  unsigned k = weft__jam_index(j, inst);
  LLVMValueRef *copies = &j->copies[(size_t)k * j->width];
  if (weft__jam_is_lanes_query(inst)) {
    copies[0] = LLVMConstInt(LLVMTypeOf(inst), 1, 0);
  } else {
    int call = lanes_call(inst);
    if (!call) return 0;
    for (unsigned first = 0; first < j->width; first += j->sub_group_width)
      (call == FOLDS ? fold : pick)(j, b, inst, first, copies + first);
  }
  j->finished[k] = 1;
  return 1;
}
