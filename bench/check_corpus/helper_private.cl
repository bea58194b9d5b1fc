// A private array indexed past its end inside a helper function.
// class: memory
// expect: error
// global: 20 local: 4
// arg: int[20]
int pick(int i) {
  int table[4] = {10, 20, 30, 40};
  return table[i % 5];
}
__kernel void k(__global int *out) {
  out[get_global_id(0)] = pick((int)get_global_id(0));
}
