// Correct: a tiled matrix product through __local memory.
// class: correct
// expect: clean
// global: 32,32 local: 16,16
// arg: float[1024]=iota
// arg: float[1024]=fill:1
// arg: float[1024]
// arg: uint=32
#define TILE 16
__kernel void k(__global const float *a, __global const float *b,
                __global float *c, uint n) {
  __local float at[TILE][TILE], bt[TILE][TILE];
  uint row = get_global_id(1), col = get_global_id(0);
  uint y = get_local_id(1), x = get_local_id(0);
  float sum = 0.0f;
  for (uint step = 0; step < n; step += TILE) {
    at[y][x] = a[row * n + step + x];
    bt[y][x] = b[(step + y) * n + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 0; k < TILE; k++) sum += at[y][k] * bt[k][x];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  c[row * n + col] = sum;
}
