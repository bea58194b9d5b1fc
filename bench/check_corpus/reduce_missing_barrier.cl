// A tree reduction through __local memory whose loop lacks its barrier.
// class: races
// expect: error
// global: 256 local: 64
// arg: float[256]=fill:1
// arg: float[4]
// arg: local[256]
__kernel void k(__global const float *in, __global float *partial,
                __local float *scratch) {
  size_t lid = get_local_id(0);
  scratch[lid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
    if (lid < s) scratch[lid] += scratch[lid + s];
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
