/*
 * cpu_relax.h: the pause a spin-wait makes between two looks at memory
 * (x86's pause: it lets the other hyper-thread run and avoids the memory
 * order flush on leaving the loop), nothing elsewhere.
 */
#ifndef WEFT_BASE_CPU_RELAX_H
#define WEFT_BASE_CPU_RELAX_H

static inline void weft__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

#endif
