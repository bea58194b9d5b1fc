// Every work-item reads its neighbour: the last reads past the end.
// class: memory
// expect: error
// global: 64 local: 16
// arg: int[64]
// arg: int[64]=fill:3
__kernel void k(__global int *out, __global const int *in) {
  size_t i = get_global_id(0);
  out[i] = in[i + 1];
}
