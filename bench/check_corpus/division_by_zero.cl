// One work-item divides by zero (a warning: the kernel goes on).
// class: division
// expect: warning
// global: 64 local: 16
// arg: int[64]
__kernel void k(__global int *a) {
  int d = a[get_global_id(0)] + (get_global_id(0) != 20);
  a[get_global_id(0)] = 100 / d;
}
