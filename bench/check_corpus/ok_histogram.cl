// Correct: a histogram with __local bins and atomics.
// class: correct
// expect: clean
// global: 1024 local: 256
// arg: uchar[1024]=random
// arg: uint[256]
__kernel void k(__global const uchar *data, __global uint *bins) {
  __local uint local_bins[256];
  uint lid = get_local_id(0);
  local_bins[lid] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(&local_bins[data[get_global_id(0)]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_add(&bins[lid], local_bins[lid]);
}
