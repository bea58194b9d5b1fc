// Work-item 37 writes through a NULL pointer.
__kernel void crash(__global int *a) {
  __global int *p = get_global_id(0) == 37 ? 0 : a;
  p[get_global_id(0)] = 1;
}
