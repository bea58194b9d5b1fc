// y = a*x + y over a 1-D range.
__kernel void saxpy(float a, __global const float *x, __global float *y) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + y[i];
}
