/*
 * fiber.h: user-space contexts for work-items, and two ways to switch them.
 *
 * The x86-64 switch saves the callee-saved registers and the SSE/x87 control
 * words on the stack and swaps stack pointers: a few nanoseconds. The
 * ucontext switch (swapcontext) is portable but makes a signal-mask system
 * call each time. WEFT_FIBER chooses; both pass the same tests.
 */
#ifndef WEFT_BACKEND_CPU_FIBER_H
#define WEFT_BACKEND_CPU_FIBER_H

#include <stddef.h>
#include <ucontext.h>

#include "base/config.h"

typedef void (*weft_fiber_entry)(void *arg);

typedef struct weft_fiber {
  void *sp;                /* asm: the saved stack pointer */
  ucontext_t *uc;          /* ucontext: the saved context */
  weft_fiber_entry entry;  /* what a new fiber starts with */
  void *arg;
} weft_fiber;

typedef struct weft_fiber_ops {
  const char *name;
  /* Gets f ready to hold a context (allocates for ucontext). */
  int (*init)(weft_fiber *f);
  void (*fini)(weft_fiber *f);
  /* Makes f start entry(arg) on the stack [stack, stack + size) the first
   * time it is switched to. entry must never return: it ends by switching
   * to another fiber. */
  void (*make)(weft_fiber *f, void *stack, size_t size, weft_fiber_entry entry,
               void *arg);
  /* Saves the running context in from and continues in to. */
  void (*swap)(weft_fiber *from, weft_fiber *to);
} weft_fiber_ops;

/* The switch of that kind (the asm one only on x86-64, else ucontext). */
const weft_fiber_ops *weft__fiber_ops(weft_fiber_kind kind);

#endif
