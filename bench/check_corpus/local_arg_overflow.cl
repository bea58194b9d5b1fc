// A __local argument read one past its end.
// class: memory
// expect: error
// global: 32 local: 16
// arg: int[32]
// arg: local[64]
__kernel void k(__global int *out, __local int *scratch) {
  size_t l = get_local_id(0);
  scratch[l] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = scratch[l + 1];
}
