// One work-item writes one element past the end of a 64-int buffer.
// class: memory
// expect: error
// global: 65 local: 5
// arg: int[64]
__kernel void k(__global int *out) {
  size_t i = get_global_id(0);
  out[i] = (int)i;
}
