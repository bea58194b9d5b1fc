/* fiber_x86_64.S: the register-only context switch for x86-64 (System V).
 *
 * A suspended fiber's stack holds, from its saved stack pointer upwards:
 * r15, r14, r13, r12, rbx, rbp and the address to resume at. The
 * caller-saved registers need no saving: the switch is an ordinary function
 * call to the code around it. The MXCSR and x87 control words are not
 * switched either: every fiber of a thread runs kernel code, which has no
 * way to change them (OpenCL C gives no access to the floating-point
 * environment), and reloading them (ldmxcsr, fldcw) would cost more than
 * the rest of the switch. */
#if defined(__x86_64__)
  .text

/* void weft__fiber_swap_asm(void **save_sp, void *load_sp) */
  .globl weft__fiber_swap_asm
  .hidden weft__fiber_swap_asm
  .type weft__fiber_swap_asm, @function
weft__fiber_swap_asm:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size weft__fiber_swap_asm, .-weft__fiber_swap_asm

/* Where a new fiber first resumes: r12 holds its entry, r13 its argument.
 * The stack is 16-byte aligned here, as the call requires. */
  .globl weft__fiber_start_asm
  .hidden weft__fiber_start_asm
  .type weft__fiber_start_asm, @function
weft__fiber_start_asm:
  movq %r13, %rdi
  callq *%r12
  ud2 /* entry never returns */
  .size weft__fiber_start_asm, .-weft__fiber_start_asm
#endif
  .section .note.GNU-stack,"",@progbits
