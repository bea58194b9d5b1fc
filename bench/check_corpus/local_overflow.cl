// A __local array written one past its end by the group's last item.
// class: memory
// expect: error
// global: 32 local: 16
// arg: int[32]
__kernel void k(__global int *out) {
  __local int tile[16];
  size_t l = get_local_id(0);
  tile[l + 1] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tile[l];
}
