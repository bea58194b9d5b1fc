// A float4 load that starts inside the buffer and ends outside it.
// class: memory
// expect: error
// global: 3 local: 1
// arg: float[3]
// arg: float[10]=fill:1
__kernel void k(__global float *out, __global const float *in) {
  size_t i = get_global_id(0);
  float4 v = vload4(i, in);
  out[i] = v.x + v.y + v.z + v.w;
}
