/* The PTX of add_index.cl, NUL-terminated, as the driver wants it. */
  .section .rodata
  .globl add_index_ptx
add_index_ptx:
  .incbin ADD_INDEX_PTX
  .byte 0
  .section .note.GNU-stack,"",@progbits
