// Work-item 0 writes before the start of the buffer.
// class: memory
// expect: error
// global: 16 local: 16
// arg: int[16]
__kernel void k(__global int *out) {
  int i = (int)get_global_id(0);
  out[i - 1] = i;
}
