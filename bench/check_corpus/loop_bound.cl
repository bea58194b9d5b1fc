// A loop that runs one step too far (<= for <).
// class: memory
// expect: error
// global: 4 local: 4
// arg: float[4]
// arg: float[32]=fill:1
__kernel void k(__global float *out, __global const float *in) {
  size_t i = get_global_id(0);
  float sum = 0;
  for (int j = 0; j <= 8; j++) sum += in[i * 8 + j];
  out[i] = sum;
}
