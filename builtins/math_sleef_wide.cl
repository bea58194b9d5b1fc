/*
 * SLEEF's 256- and 512-bit functions (float8, float16, double4, double8),
 * behind helpers that take their vectors by pointer.
 *
 * Why a file of its own: SLEEF passes these vectors in ymm and zmm
 * registers. Kernels and the rest of the library are compiled without AVX,
 * where Clang passes a float8 argument in memory; this file is compiled with
 * AVX-512 enabled (see CMakeLists.txt), so its calls to SLEEF pass registers,
 * and the pointers keep its own interface the same under both ABIs. After
 * inlining, the pointers are gone.
 *
 * Which functions may run is decided at run time: the JIT compiles for the
 * host, which may lack AVX-512 (then a float16 takes two 8-wide calls) or
 * even AVX (then four 4-wide ones, which need only SSE2). SLEEF's own
 * dispatchers then pick the best code within each width.
 */
#include "math_shared.h"

enum { LEVEL_UNKNOWN, LEVEL_SSE2, LEVEL_AVX, LEVEL_AVX512 };

/* Per program (the JIT makes it internal); threads that race to fill it in
 * store the same value. */
static global int cpu_level = LEVEL_UNKNOWN;

/* SLEEF's own CPUID (the JIT has no assembler for inline asm). */
void Sleef_x86CpuID(private int *regs, uint leaf, uint subleaf);

/* AVX: the CPU has it and the OS saves ymm registers (OSXSAVE; Linux then
 * saves what the CPU has, zmm included). AVX-512 Foundation on top. */
static int detect_level(void) {
  int regs[4];
  Sleef_x86CpuID(regs, 1, 0);
  int osxsave = regs[2] >> 27 & 1, avx = regs[2] >> 28 & 1;
  if (!osxsave || !avx) return LEVEL_SSE2;
  Sleef_x86CpuID(regs, 7, 0);
  return regs[1] >> 16 & 1 ? LEVEL_AVX512 : LEVEL_AVX;
}

static int level(void) {
  int l = __atomic_load_n(&cpu_level, __ATOMIC_RELAXED);
  if (l == LEVEL_UNKNOWN) {
    l = detect_level();
    __atomic_store_n(&cpu_level, l, __ATOMIC_RELAXED);
  }
  return l;
}

/* SLEEF's functions of one width, by their C names. They touch no memory
 * of ours (const), which lets LLVM keep values in registers across them. */
#define DECLARE1(T, name) T __attribute__((const)) name(T);
#define DECLARE2(T, name) T __attribute__((const)) name(T, T);
#define DECLARE(n, name, suffix)                                             \
  DECLARE##n(float4, Sleef_##name##f4##suffix)                               \
  DECLARE##n(float8, Sleef_##name##f8##suffix)                               \
  DECLARE##n(float16, Sleef_##name##f16##suffix)                             \
  DECLARE##n(double2, Sleef_##name##d2##suffix)                              \
  DECLARE##n(double4, Sleef_##name##d4##suffix)                              \
  DECLARE##n(double8, Sleef_##name##d8##suffix)

/* Calls on *x (and *y), storing the result in *x. */
#define CALL1(f, x, y) *(x) = f(*(x))
#define CALL2(f, x, y) *(x) = f(*(x), *(y))
#define HALVES1(f, W, x, y)                                                  \
  do {                                                                       \
    W lo = (x)->lo, hi = (x)->hi;                                            \
    f(&lo);                                                                  \
    f(&hi);                                                                  \
    (x)->lo = lo;                                                            \
    (x)->hi = hi;                                                            \
  } while (0)
#define HALVES2(f, W, x, y)                                                  \
  do {                                                                       \
    W lo = (x)->lo, hi = (x)->hi, ylo = (y)->lo, yhi = (y)->hi;              \
    f(&lo, &ylo);                                                            \
    f(&hi, &yhi);                                                            \
    (x)->lo = lo;                                                            \
    (x)->hi = hi;                                                            \
  } while (0)
#define PARAMS1(T) private T *x
#define PARAMS2(T) private T *x, private const T *y

/* One helper: the wide SLEEF function where the CPU has it, else its two
 * halves by the narrower path (the helper H of half the width, or SLEEF's
 * function N of half the width). */
#define HELPER(n, T, H, wide, narrow, need)                                  \
  void __weft_sleef_##wide(PARAMS##n(T)) {                                   \
    if (level() >= need)                                                     \
      CALL##n(Sleef_##wide, x, y);                                           \
    else                                                                     \
      HALVES##n(narrow, H, x, y);                                            \
  }

/* The narrower path when it is SLEEF's 128-bit function itself. */
#define SLEEF_IN_PLACE1(T, f)                                                \
  static void WEFT_OVERLOAD in_place_##f(private T *x) { *x = f(*x); }
#define SLEEF_IN_PLACE2(T, f)                                                \
  static void WEFT_OVERLOAD in_place_##f(private T *x, private const T *y) { \
    *x = f(*x, *y);                                                          \
  }

#define WIDE(n, name, suffix)                                                \
  DECLARE(n, name, suffix)                                                   \
  SLEEF_IN_PLACE##n(float4, Sleef_##name##f4##suffix)                        \
  SLEEF_IN_PLACE##n(double2, Sleef_##name##d2##suffix)                       \
  HELPER(n, float8, float4, name##f8##suffix,                                \
         in_place_Sleef_##name##f4##suffix, LEVEL_AVX)                       \
  HELPER(n, float16, float8, name##f16##suffix,                              \
         __weft_sleef_##name##f8##suffix, LEVEL_AVX512)                      \
  HELPER(n, double4, double2, name##d4##suffix,                              \
         in_place_Sleef_##name##d2##suffix, LEVEL_AVX)                       \
  HELPER(n, double8, double4, name##d8##suffix,                              \
         __weft_sleef_##name##d4##suffix, LEVEL_AVX512)

#define WIDE1(name, suffix) WIDE(1, name, suffix)
#define WIDE2(name, suffix) WIDE(2, name, suffix)
WEFT_SLEEF_FUNCTIONS(WIDE1, WIDE2)
