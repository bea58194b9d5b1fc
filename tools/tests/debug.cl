int triple(int v) {
  int t = v * 3;
  return t;
}
__kernel void debug(__global int *out) {
  int i = (int)get_global_id(0);
  int t = triple(i);
  out[i] = t + 1;
  if (i == 5) *(volatile __global int *)0 = t;
}
