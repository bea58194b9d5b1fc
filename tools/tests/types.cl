// Kernels over several argument types, one per type family.

__kernel void add3(__global float3 *v, float3 d) {
  v[get_global_id(0)] += d;
}

__kernel void bytes(__global char *c, char k, __global uchar *u) {
  size_t i = get_global_id(0);
  c[i] = (char)(c[i] - k);
  u[i] = (uchar)(u[i] + 1);
}

__kernel void wide(__global double *d, double s, __global ulong *l, long k) {
  size_t i = get_global_id(0);
  d[i] *= s;
  l[i] = l[i] + (ulong)k;
}

// Writes its global id: with an offset the first ids are skipped.
__kernel void ids(__global int *out) {
  out[get_global_id(0)] = (int)get_global_id(0);
}

__kernel void scale_int(__global int *a, int k) {
  a[get_global_id(0)] *= k;
}
