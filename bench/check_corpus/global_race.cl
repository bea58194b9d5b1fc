// Work-item 0 of every group increments out[0] without an atomic.
// class: races
// expect: error
// global: 64 local: 8
// arg: int[1]
__kernel void k(__global int *out) {
  if (get_local_id(0) == 0) out[0] = out[0] + 1;
}
