/* The builtin libraries (each an index and per-family bitcode modules, see
 * builtins_parts.h), embedded in libweft so that no file needs to be found
 * at run time: the CPU's (WEFT_BUILTINS_BC, its path in the build tree)
 * and NVIDIA GPUs' (WEFT_BUILTINS_NVPTX_BC). */
  .section .rodata
  .balign 16
  .globl weft__builtins_bc_start
  .hidden weft__builtins_bc_start
weft__builtins_bc_start:
  .incbin WEFT_BUILTINS_BC
  .globl weft__builtins_bc_end
  .hidden weft__builtins_bc_end
weft__builtins_bc_end:
  .byte 0

  .balign 16
  .globl weft__builtins_nvptx_bc_start
  .hidden weft__builtins_nvptx_bc_start
weft__builtins_nvptx_bc_start:
  .incbin WEFT_BUILTINS_NVPTX_BC
  .globl weft__builtins_nvptx_bc_end
  .hidden weft__builtins_nvptx_bc_end
weft__builtins_nvptx_bc_end:
  .byte 0

/* include/weft/kernel.h, which every program is compiled with (NUL-
 * terminated). */
  .globl weft__kernel_header
  .hidden weft__kernel_header
weft__kernel_header:
  .incbin WEFT_KERNEL_HEADER
  .byte 0
  .section .note.GNU-stack,"",@progbits
