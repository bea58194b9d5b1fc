// Half the work-items fill a __local array; all read it.
// class: uninit
// expect: error
// global: 32 local: 16
// arg: int[32]
__kernel void k(__global int *out) {
  __local int tile[16];
  size_t l = get_local_id(0);
  if (l < 8) tile[l] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[15 - l];
}
