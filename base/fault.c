/* fault.c: crash handling for kernel code (see fault.h). */
#include "base/fault.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "weft/weft.h"

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define NUM_FAULT_SIGNALS (sizeof fault_signals / sizeof *fault_signals)

static struct sigaction previous[NUM_FAULT_SIGNALS];
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_result;

/* The fault state of the worker running on this thread, or NULL. Workers
 * set it before running any kernel, so the handler never makes the first
 * access to this thread-local variable. */
static __thread weft_fault *current;

static int signal_index(int sig) {
  for (size_t i = 0; i < NUM_FAULT_SIGNALS; i++)
    if (fault_signals[i] == sig) return (int)i;
  return -1;
}

/* A fault that is not ours: do what would have happened without Weft. */
static void pass_on(int sig, siginfo_t *info, void *context) {
  const struct sigaction *old = &previous[signal_index(sig)];
  if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
    old->sa_sigaction(sig, info, context);
  } else if (!(old->sa_flags & SA_SIGINFO) && old->sa_handler != SIG_DFL &&
             old->sa_handler != SIG_IGN) {
    old->sa_handler(sig);
  } else {
    /* Default action: returning re-runs the faulting instruction, which
     * now faults with no handler; a signal sent by kill() is re-sent. */
    signal(sig, SIG_DFL);
    if (info->si_code <= 0) raise(sig);
  }
}

/* The instruction that faulted, from the signal's context. */
static void *fault_pc(void *context) {
  const ucontext_t *uc = context;
#if defined(__x86_64__)
  return (void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  return (void *)uc->uc_mcontext.pc;
#else
  (void)uc;
  return NULL;
#endif
}

static void on_fault(int sig, siginfo_t *info, void *context) {
  weft_fault *f = current;
  if (!f || !f->armed) {
    pass_on(sig, info, context);
    return;
  }
  f->armed = 0;
  f->signo = sig;
  f->code = info->si_code;
  f->addr = info->si_addr;
  f->pc = fault_pc(context);
  siglongjmp(f->recover, WEFT_JUMP_FAULT);
}

static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  /* SA_NODEFER: the jump out of the handler leaves no signal blocked. */
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < NUM_FAULT_SIGNALS; i++)
    if (sigaction(fault_signals[i], &sa, &previous[i])) install_result = WEFT_ESYS;
}

int weft__fault_install(void) {
  pthread_once(&install_once, install);
  return install_result;
}

int weft__fault_init(weft_fault *f) {
  memset(f, 0, sizeof *f);
  /* Large enough for the handler and what it calls on any libc. */
  f->altstack_size = 64 * 1024;
  f->altstack = mmap(NULL, f->altstack_size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (f->altstack == MAP_FAILED) {
    f->altstack = NULL;
    return WEFT_ESYS;
  }
  return 0;
}

void weft__fault_fini(weft_fault *f) {
  if (f->altstack) munmap(f->altstack, f->altstack_size);
  f->altstack = NULL;
}

void weft__fault_attach(weft_fault *f, weft_fault_saved *saved) {
  stack_t ss = {.ss_sp = f->altstack, .ss_size = f->altstack_size};
  sigaltstack(&ss, &saved->altstack);
  saved->current = current;
  current = f;
}

void weft__fault_detach(const weft_fault_saved *saved) {
  current = saved->current;
  stack_t ss = saved->altstack;
  /* A thread that had no alternate stack gets none back. */
  if (ss.ss_flags & SS_DISABLE) ss = (stack_t){.ss_flags = SS_DISABLE};
  sigaltstack(&ss, NULL);
}

int weft__fault_run(int (*fn)(void *arg), void *arg, int *rc, char *what,
                    size_t size) {
  weft_fault f;
  if (weft__fault_install() || weft__fault_init(&f)) {
    *rc = fn(arg);
    return 0;
  }
  weft_fault_saved saved;
  weft__fault_attach(&f, &saved);
  int faulted = sigsetjmp(f.recover, 1) != 0;
  if (!faulted) {
    f.armed = 1;
    *rc = fn(arg);
    f.armed = 0;
  } else {
    weft__fault_describe(&f, what, size);
  }
  weft__fault_detach(&saved);
  weft__fault_fini(&f);
  return faulted;
}

void weft__fault_describe(const weft_fault *f, char *out, size_t size) {
  switch (f->signo) {
  case SIGSEGV:
    snprintf(out, size, "a segmentation fault (invalid access to address %p)",
             f->addr);
    break;
  case SIGBUS:
    snprintf(out, size, "a bus error (misaligned or unmapped address %p)",
             f->addr);
    break;
  case SIGFPE:
    snprintf(out, size, "an arithmetic trap (%s)",
             f->code == FPE_INTDIV ? "integer division by zero"
             : f->code == FPE_INTOVF ? "integer overflow in division"
                                     : "floating-point exception");
    break;
  case SIGILL:
    snprintf(out, size, "an illegal instruction at %p", f->addr);
    break;
  default:
    snprintf(out, size, "signal %d", f->signo);
  }
}
