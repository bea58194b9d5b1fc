// A buffer whose contents start undefined (OpenCL's without host data):
// the first kernel of a pipeline writes only its even elements, and every
// work-item reads its neighbour.
// class: uninit
// expect: error
// global: 64 local: 16
// arg: int[64]=undefined
// arg: int[64]
__kernel void k(__global int *scratch, __global int *out) {
  size_t i = get_global_id(0);
  if (i % 2 == 0) scratch[i] = (int)i;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] = scratch[i ^ 1];
}
