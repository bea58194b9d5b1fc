// Half of a group skips the barrier.
// class: divergence
// expect: error
// global: 16 local: 16
// arg: int[16]
__kernel void k(__global int *out) {
  size_t l = get_local_id(0);
  if (l < 8) barrier(CLK_LOCAL_MEM_FENCE);
  out[l] = (int)l;
}
