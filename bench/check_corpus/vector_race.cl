// Each work-item stores a float4 two floats past its neighbour's: their
// halves overlap, and no barrier orders them.
// class: races
// expect: error
// global: 16 local: 16
// arg: float[40]
__kernel void k(__global float *out) {
  size_t i = get_global_id(0);
  vstore4((float4)(i), 0, out + 2 * i);
}
