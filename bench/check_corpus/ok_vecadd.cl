// Correct: c = a + b.
// class: correct
// expect: clean
// global: 1024 local: 64
// arg: float[1024]=iota
// arg: float[1024]=fill:2
// arg: float[1024]
__kernel void k(__global const float *a, __global const float *b,
                __global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
