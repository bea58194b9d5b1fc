__kernel void broken(__global int *a) {
  int i = get_global_id(0)
  a[i] = undeclared_thing;
}
