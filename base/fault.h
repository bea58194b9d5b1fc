/*
 * fault.h: turning a crash inside a kernel, or inside the compiler, into
 * an error report. The CPU executor's worker threads (backend/cpu) and
 * the build stack (core/build_stack.c) use it.
 *
 * Each worker thread has a weft_fault. While it is armed, a SIGSEGV, SIGBUS,
 * SIGFPE or SIGILL on that thread records what happened and jumps back to
 * the worker's recovery point (on an alternate signal stack, so a stack
 * overflow can be handled too). A fault anywhere else goes to whatever
 * handled the signal before Weft, or gets the default action.
 */
#ifndef WEFT_BASE_FAULT_H
#define WEFT_BASE_FAULT_H

#include <setjmp.h>
#include <signal.h>
#include <stddef.h>

/* The values a recovery point sees from sigsetjmp. */
#define WEFT_JUMP_FAULT 1   /* a signal arrived; signo/addr say which */
#define WEFT_JUMP_ABORT 2   /* the runtime gave up on the group (reported) */
#define WEFT_JUMP_SKIP 3    /* replay: this work-item is not the faulty one */

typedef struct weft_fault {
  sigjmp_buf recover;
  volatile sig_atomic_t armed;
  volatile int signo;
  volatile int code;
  void *volatile addr;
  void *volatile pc;         /* the faulting instruction (NULL: unknown) */
  void *altstack;
  size_t altstack_size;
} weft_fault;

/* Installs the process's handlers (once). */
int weft__fault_install(void);

/* Allocates f's alternate signal stack. */
int weft__fault_init(weft_fault *f);
void weft__fault_fini(weft_fault *f);

/* What a thread had before weft__fault_attach, to give back on detach. */
typedef struct weft_fault_saved {
  stack_t altstack;
  weft_fault *current;
} weft_fault_saved;

/* Makes f the fault state of the calling thread (its alternate stack and
 * the handler's link to it). A pool thread attaches for good; the thread
 * that launches a kernel attaches for the launch and then detaches, which
 * gives it back what it had. */
void weft__fault_attach(weft_fault *f, weft_fault_saved *saved);
void weft__fault_detach(const weft_fault_saved *saved);

/* Runs *rc = fn(arg) with a fault on the calling thread caught (faults
 * of the compiler, which runs on threads of its own: build_stack.c): 0,
 * or 1 when a fault ended fn, what describing it. What fn had allocated
 * then is lost, and it must hold no lock another thread may want. */
int weft__fault_run(int (*fn)(void *arg), void *arg, int *rc, char *what,
                    size_t size);

/* "segmentation fault (invalid access to address 0x10)", and the like. */
void weft__fault_describe(const weft_fault *f, char *out, size_t size);

#endif
