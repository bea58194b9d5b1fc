// A write 2^36 elements away.
// class: memory
// expect: error
// global: 16 local: 16
// arg: int[16]
__kernel void k(__global int *out) {
  size_t i = get_global_id(0);
  if (i == 3) out[i + (1L << 36)] = 1;
  out[i] = 2;
}
