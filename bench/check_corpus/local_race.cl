// A neighbour exchange through __local memory without its barrier.
// class: races
// expect: error
// global: 32 local: 16
// arg: int[32]
__kernel void k(__global int *out) {
  __local int tile[16];
  size_t l = get_local_id(0);
  tile[l] = (int)l;
  out[get_global_id(0)] = tile[(l + 1) % 16];
}
