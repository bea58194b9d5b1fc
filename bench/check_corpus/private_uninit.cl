// A private array of which only the first element is set.
// class: uninit
// expect: error
// global: 8 local: 8
// arg: int[8]
__kernel void k(__global int *out) {
  int t[4];
  t[0] = 1;
  out[get_global_id(0)] = t[get_global_id(0) % 4];
}
