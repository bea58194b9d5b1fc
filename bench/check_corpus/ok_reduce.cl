// Correct: a reduction through a __local argument, a barrier per level.
// class: correct
// expect: clean
// global: 1024 local: 256
// arg: float[1024]=fill:1
// arg: float[4]
// arg: local[1024]
__kernel void k(__global const float *in, __global float *partial,
                __local float *scratch) {
  uint lid = get_local_id(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
