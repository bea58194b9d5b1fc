// One work-item loops for ever.
// class: hang
// expect: error
// global: 16 local: 16
// arg: int[16]
__kernel void k(__global int *out) {
  size_t i = get_global_id(0);
  if (i == 5)
    for (;;) {}
  out[i] = 1;
}
