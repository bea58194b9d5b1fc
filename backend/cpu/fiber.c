/* fiber.c: the two context switches (see fiber.h). */
#include "backend/cpu/fiber.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- asm */
#if defined(__x86_64__)

void weft__fiber_swap_asm(void **save_sp, void *load_sp);
void weft__fiber_start_asm(void);

static int asm_init(weft_fiber *f) {
  (void)f;
  return 0;
}

static void asm_fini(weft_fiber *f) { (void)f; }

/* Lays out the frame weft__fiber_swap_asm pops (see fiber_x86_64.S) so that
 * the first switch "returns" into weft__fiber_start_asm. */
static void asm_make(weft_fiber *f, void *stack, size_t size,
                     weft_fiber_entry entry, void *arg) {
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  uint64_t *sp = (uint64_t *)(top - 72);
  sp[0] = 0;                          /* r15 */
  sp[1] = 0;                          /* r14 */
  sp[2] = (uint64_t)(uintptr_t)arg;   /* r13 */
  sp[3] = (uint64_t)(uintptr_t)entry; /* r12 */
  sp[4] = 0;                          /* rbx */
  sp[5] = 0;                          /* rbp: ends frame-pointer walks */
  sp[6] = (uint64_t)(uintptr_t)weft__fiber_start_asm;
  /* After the return, rsp = top - 16: aligned for the call in start. */
  f->sp = sp;
  f->entry = entry;
  f->arg = arg;
}

static void asm_swap(weft_fiber *from, weft_fiber *to) {
  weft__fiber_swap_asm(&from->sp, to->sp);
}

static const weft_fiber_ops asm_ops = {"asm", asm_init, asm_fini, asm_make,
                                       asm_swap};
#endif

/* ----------------------------------------------------------- ucontext */

static int uc_init(weft_fiber *f) {
  if (!f->uc && !(f->uc = calloc(1, sizeof *f->uc))) return -1;
  return 0;
}

static void uc_fini(weft_fiber *f) {
  free(f->uc);
  f->uc = NULL;
}

/* makecontext passes int arguments only: the fiber's address travels as
 * two halves. */
static void uc_start(int hi, int lo) {
  uintptr_t p = ((uintptr_t)(unsigned)hi << 32) | (uintptr_t)(unsigned)lo;
  weft_fiber *f = (weft_fiber *)p;
  f->entry(f->arg);
  abort(); /* entry never returns */
}

static void uc_make(weft_fiber *f, void *stack, size_t size,
                    weft_fiber_entry entry, void *arg) {
  f->entry = entry;
  f->arg = arg;
  getcontext(f->uc);
  f->uc->uc_stack.ss_sp = stack;
  f->uc->uc_stack.ss_size = size;
  f->uc->uc_link = NULL;
  uintptr_t p = (uintptr_t)f;
  makecontext(f->uc, (void (*)(void))uc_start, 2, (int)(unsigned)(p >> 32),
              (int)(unsigned)(p & 0xffffffffu));
}

static void uc_swap(weft_fiber *from, weft_fiber *to) {
  swapcontext(from->uc, to->uc);
}

static const weft_fiber_ops ucontext_ops = {"ucontext", uc_init, uc_fini,
                                            uc_make, uc_swap};

const weft_fiber_ops *weft__fiber_ops(weft_fiber_kind kind) {
#if defined(__x86_64__)
  if (kind == WEFT_FIBER_ASM) return &asm_ops;
#else
  (void)kind;
#endif
  return &ucontext_ops;
}
